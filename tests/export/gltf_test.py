"""`inputanim export` to glTF, read by readers nobody here wrote: Khronos' glTF-Validator (from
npm, pinned in web/package-lock.json) must report 0 errors and 0 warnings for .glb and .gltf
exports of generated recordings of every version and layout, with and without each block and
markers, of a recording with negative times, and of the real 2019 recordings; and every
keyframe of every channel must be exactly the row `inputanim sample` prints at its time,
converted to glTF's coordinates. Run by ctest (tests/export.cmake); exits 77 (skipped) when
node or the npm packages are absent.

    /usr/bin/python3 tests/export/gltf_test.py --cli build/tools/inputanim --node node \
        --modules build/tools/web/node_modules [--recordings DIR]
"""
import argparse
import base64
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy as np

SKIP = 77
ARGS = None
HERE = os.path.dirname(os.path.abspath(__file__))

JOINTS = ["Wrist", "Palm", "ThumbMetacarpalJoint", "ThumbProximalJoint", "ThumbDistalJoint",
          "ThumbTip", "IndexMetacarpal", "IndexKnuckle", "IndexMiddleJoint", "IndexDistalJoint",
          "IndexTip", "MiddleMetacarpal", "MiddleKnuckle", "MiddleMiddleJoint",
          "MiddleDistalJoint", "MiddleTip", "RingMetacarpal", "RingKnuckle", "RingMiddleJoint",
          "RingDistalJoint", "RingTip", "PinkyMetacarpal", "PinkyKnuckle", "PinkyMiddleJoint",
          "PinkyDistalJoint", "PinkyTip"]
POSE = ["position.x", "position.y", "position.z", "rotation.x", "rotation.y", "rotation.z",
        "rotation.w"]


def run(*args):
    return subprocess.run([ARGS.cli, *args], check=False, capture_output=True)


def negative_time_recording(path):
    """A v1.0 file (FORMAT.md section 3) whose keys start before 0, as MRTK keeps one key from
    before the buffer's start: camera, left tracked and two left joints moving, a marker at
    -0.25 s."""
    out = io.BytesIO()
    out.write(struct.pack("<QII", 0x6A8FAF6E0F9E42C6, 1, 0))
    times = [-0.5, -0.1, 0.3, 0.7]

    def float_curve(values):
        out.write(struct.pack("<iii", 8, 8, len(values)))
        for t, v in zip(times, values):
            out.write(struct.pack("<ffffffi", t, v, 0, 0, 0, 0, 3))

    def empty():
        out.write(struct.pack("<iii", 8, 8, 0))

    for c in range(7):
        float_curve([0.1 * c + k * 0.05 for k in range(4)] if c < 3 else
                    [0.5, 0.4, 0.3, 0.2] if c < 6 else [0.9, 0.8, 0.7, 0.6])
    # left tracked: on from -0.5; right tracked, pinching: no keys.
    out.write(struct.pack("<iii", 8, 8, 1) + struct.pack("<ff", -0.5, 1.0))
    for _ in range(3):
        empty()
    for hand in range(2):
        for joint in range(27):
            for c in range(7):
                if hand == 0 and joint in (1, 11):
                    float_curve([joint * 0.01 + c * 0.1 + k * 0.02 for k in range(4)])
                else:
                    empty()
    name = b"start"
    out.write(struct.pack("<if", 1, -0.25) + bytes([len(name)]) + name)
    with open(path, "wb") as f:
        f.write(out.getvalue())


def read_gltf(path):
    """(JSON, buffer bytes) of a .glb or .gltf file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"glTF":
        magic, version, length = struct.unpack_from("<4sII", data, 0)
        assert version == 2 and length == len(data)
        json_length, json_type = struct.unpack_from("<I4s", data, 12)
        assert json_type == b"JSON"
        gl = json.loads(data[20:20 + json_length])
        bin_length, bin_type = struct.unpack_from("<I4s", data, 20 + json_length)
        assert bin_type == b"BIN\0"
        start = 28 + json_length
        return gl, data[start:start + bin_length]
    gl = json.loads(data)
    uri = gl["buffers"][0]["uri"]
    prefix = "data:application/octet-stream;base64,"
    assert uri.startswith(prefix)
    return gl, base64.b64decode(uri[len(prefix):])


def accessor(gl, buffer, index):
    a = gl["accessors"][index]
    view = gl["bufferViews"][a["bufferView"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[a["type"]]
    start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    values = np.frombuffer(buffer, dtype="<f4", count=a["count"] * width, offset=start)
    return values.reshape(a["count"], width) if width > 1 else values


def channels(gl, buffer):
    """{(node index, path): (times, values, interpolation)} of the one animation."""
    animation = gl["animations"][0]
    out = {}
    for c in animation["channels"]:
        s = animation["samplers"][c["sampler"]]
        out[(c["target"]["node"], c["target"]["path"])] = (
            accessor(gl, buffer, s["input"]), accessor(gl, buffer, s["output"]),
            s["interpolation"])
    return out


def sample(path, rate):
    """(times, {curve path: values}) as `inputanim sample` prints them."""
    r = run("sample", path, "--rate", str(rate))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
    header = lines[0].split(",")
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]], dtype=np.float32)
    return rows[:, 0], {name: rows[:, i] for i, name in enumerate(header) if i != 0}


def normalized(x, y, z, w):
    q = np.stack([x, y, z, w]).astype(np.float64)
    n = np.sqrt((q * q).sum(axis=0))
    ok = (n > 0) & np.isfinite(n)
    out = np.where(ok, q / np.where(ok, n, 1), np.array([[0], [0], [0], [1]]))
    return out.astype(np.float32)


class GltfExportTest(unittest.TestCase):
    validated = []

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def validate(self, files):
        """Khronos' validator over every file at once: its report per file."""
        r = subprocess.run([ARGS.node, os.path.join(HERE, "validate.mjs"), ARGS.modules, *files],
                           check=False, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [json.loads(line) for line in r.stdout.splitlines()]

    def check_values(self, source, exported, rate):
        gl, buffer = read_gltf(exported)
        times, columns = sample(source, rate)
        shift = gl["asset"]["extras"]["inputanim"]["timeShift"]
        self.assertEqual(shift, max(0.0, -float(times[0])))
        ch = channels(gl, buffer)
        nodes = gl["nodes"]
        # The joints of both hands have MRTK's names: a joint is found through its hand.
        index = {n["name"]: i for i, n in enumerate(nodes) if n["name"] not in JOINTS}
        expected_times = (times.astype(np.float64) + shift).astype(np.float32)

        def pose(node, prefix):
            t, translation, interpolation = ch[(node, "translation")]
            self.assertEqual(interpolation, "LINEAR")
            np.testing.assert_array_equal(t, expected_times)
            col = lambda c: columns.get(f"{prefix}.{c}", np.zeros_like(times))
            np.testing.assert_array_equal(translation[:, 0], -col("position.x"))
            np.testing.assert_array_equal(translation[:, 1], col("position.y"))
            np.testing.assert_array_equal(translation[:, 2], col("position.z"))
            _, rotation, _ = ch[(node, "rotation")]
            q = normalized(col("rotation.x"), col("rotation.y"), col("rotation.z"),
                           col("rotation.w"))
            np.testing.assert_allclose(rotation, np.stack([q[0], -q[1], -q[2], q[3]], axis=1),
                                       rtol=0, atol=1e-6)

        checked = 0
        if "camera.position.x" in columns:
            pose(index["head"], "camera")
            checked += 1
        if "gaze.origin.x" in columns:
            _, origin, _ = ch[(index["gaze"], "translation")]
            _, rotation, _ = ch[(index["gaze"], "rotation")]
            np.testing.assert_array_equal(origin, np.stack(
                [-columns["gaze.origin.x"], columns["gaze.origin.y"], columns["gaze.origin.z"]],
                axis=1))
            d = np.stack([-columns["gaze.direction.x"], columns["gaze.direction.y"],
                          columns["gaze.direction.z"]], axis=1).astype(np.float64)
            n = np.linalg.norm(d, axis=1)
            moving = n > 0
            # The node's +z axis, rotated by its rotation, is the gaze direction.
            x, y, z, w = (rotation[:, k].astype(np.float64) for k in range(4))
            axis = np.stack([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)],
                            axis=1)
            np.testing.assert_allclose(axis[moving], d[moving] / n[moving, None], atol=1e-5)
            checked += 1
        for side in ("left", "right"):
            if f"hand.{side}.tracked" not in columns:
                self.assertNotIn(f"hand.{side}", index)
                continue
            hand = index[f"hand.{side}"]
            _, scale, interpolation = ch[(hand, "scale")]
            self.assertEqual(interpolation, "STEP")
            on = (columns[f"hand.{side}.tracked"] > 0.5).astype(np.float32)
            np.testing.assert_array_equal(scale, np.stack([on, on, on], axis=1))
            children = nodes[hand]["children"]
            self.assertEqual([nodes[i]["name"] for i in children], JOINTS)
            for joint, node in zip(JOINTS, children):
                pose(node, f"hand.{side}.joint.{joint}")
            checked += 1
        return checked

    def test_generated_recordings_validate_and_equal_sample(self):
        # Every version and layout; each block absent once; markers.
        cases = [("v11-compact", ["--markers", "4"]),
                 ("v11-full-no-gaze", ["--layout", "full", "--no-gaze"]),
                 ("v10", ["--version", "1.0"]), ("hands-only", ["--no-camera", "--no-gaze"]),
                 ("gaze-only", ["--no-camera", "--no-hands"])]
        files = []
        for name, args in cases:
            source = self.path(name + ".bin")
            r = run("gen", "-o", source, "--seconds", "1", "--seed", "7", *args)
            self.assertEqual(r.returncode, 0, r.stderr)
            for ext in ("glb", "gltf"):
                out = self.path(f"{name}.{ext}")
                r = run("export", source, out, "--rate", "30")
                self.assertEqual(r.returncode, 0, r.stderr)
                files.append(out)
            self.assertGreater(self.check_values(source, self.path(name + ".glb"), 30), 0)
            # .glb and .gltf carry the same JSON (but the buffer's URI) and the same buffer.
            a, abin = read_gltf(self.path(name + ".glb"))
            b, bbin = read_gltf(self.path(name + ".gltf"))
            del b["buffers"][0]["uri"]
            self.assertEqual(a, b)
            self.assertEqual(abin, bbin)
        for report in self.validate(files):
            self.assertEqual((report["errors"], report["warnings"]), (0, 0), report)

    def test_negative_times_are_shifted_to_start_at_zero(self):
        source = self.path("negative.bin")
        negative_time_recording(source)
        out = self.path("negative.glb")
        r = run("export", source, out, "--rate", "20")
        self.assertEqual(r.returncode, 0, r.stderr)
        gl, _ = read_gltf(out)
        self.assertEqual(gl["asset"]["extras"]["inputanim"]["timeShift"], 0.5)
        self.check_values(source, out, 20)
        extras = gl["animations"][0]["extras"]
        self.assertEqual(extras["markers"], [{"time": 0.25, "name": "start"}])
        for report in self.validate([out]):
            self.assertEqual((report["errors"], report["warnings"]), (0, 0), report)

    def test_extras_carry_summary_markers_and_pinches(self):
        source = self.path("extras.bin")
        self.assertEqual(run("gen", "-o", source, "--seconds", "3", "--markers", "3").returncode,
                         0)
        out = self.path("extras.gltf")
        self.assertEqual(run("export", source, out).returncode, 0)
        gl, _ = read_gltf(out)
        summary = gl["asset"]["extras"]["inputanim"]
        self.assertEqual(summary["version"], "1.1")
        self.assertEqual(summary["layout"], "compact")
        self.assertEqual(summary["rate"], 60)
        extras = gl["animations"][0]["extras"]
        self.assertEqual(len(extras["markers"]), 3)
        self.assertEqual(set(extras["pinch"]), {"left", "right"})
        for start, end in extras["pinch"]["left"] + extras["pinch"]["right"]:
            self.assertLessEqual(start, end)

    def test_real_2019_recordings_validate(self):
        if not ARGS.recordings or not os.path.isdir(ARGS.recordings):
            self.skipTest("the real recordings are absent")
        files = []
        names = sorted(f for f in os.listdir(ARGS.recordings) if f.endswith(".bin"))
        self.assertEqual(len(names), 6)
        for name in names:
            out = self.path(name + ".glb")
            r = run("export", os.path.join(ARGS.recordings, name), out, "--rate", "10")
            self.assertEqual(r.returncode, 0, r.stderr)
            files.append(out)
        self.check_values(os.path.join(ARGS.recordings, names[-1]), files[-1], 10)
        for report in self.validate(files):
            self.assertEqual((report["errors"], report["warnings"]), (0, 0), report)


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--modules", required=True)
    parser.add_argument("--recordings")
    ARGS, rest = parser.parse_known_args()
    if not os.path.isdir(os.path.join(ARGS.modules, "gltf-validator")):
        print(f"SKIPPED: gltf-validator is not installed in {ARGS.modules} (npm ci)")
        sys.exit(SKIP)
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
