"""`inputanim export` read by three.js's GLTFLoader in headless Chromium (driven by Selenium
through chromium-driver, as the viewer's test): after loading a .glb and a .gltf, the world
positions and rotations of the head, every joint of both hands and the gaze node, at ten times
across the recording, equal `inputanim sample`'s values converted to glTF's coordinates
(x mirrored) within 1e-5. Run by ctest (tests/export.cmake); exits 77 (skipped) when Chromium,
its driver, Selenium or the npm packages are absent.

    /usr/bin/python3 tests/browser/gltf_loader_test.py --cli build/tools/inputanim \
        --modules build/tools/web/node_modules
"""
import argparse
import functools
import http.server
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

SKIP = 77
ARGS = None

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    if __name__ == "__main__":
        print("SKIPPED: Selenium is not installed (Debian: apt-get install python3-selenium)")
        sys.exit(SKIP)
    raise

JOINTS = ["Wrist", "Palm", "ThumbMetacarpalJoint", "ThumbProximalJoint", "ThumbDistalJoint",
          "ThumbTip", "IndexMetacarpal", "IndexKnuckle", "IndexMiddleJoint", "IndexDistalJoint",
          "IndexTip", "MiddleMetacarpal", "MiddleKnuckle", "MiddleMiddleJoint",
          "MiddleDistalJoint", "MiddleTip", "RingMetacarpal", "RingKnuckle", "RingMiddleJoint",
          "RingDistalJoint", "RingTip", "PinkyMetacarpal", "PinkyKnuckle", "PinkyMiddleJoint",
          "PinkyDistalJoint", "PinkyTip"]

# three.js from the npm packages, by an import map; the page loads a file with GLTFLoader and
# reports every node's world transform (by glTF node index)
# at the times asked, with the animation's mixer set to each.
PAGE = """<!doctype html>
<script type="importmap">
{"imports": {"three": "/three/build/three.module.js", "three/addons/": "/three/examples/jsm/"}}
</script>
<script type="module">
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
window.probe = async (url, times) => {
  const gltf = await new GLTFLoader().loadAsync(url);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  // Played once and held at the end: a repeating action wraps its last time to the first.
  const action = mixer.clipAction(gltf.animations[0]);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  // Objects by glTF node index, through the hierarchy (the loader keeps children in order; its
  // associations name one node for every copy of a shared mesh).
  const json = gltf.parser.json;
  const byIndex = new Map();
  const walk = (i, object) => {
    byIndex.set(i, object);
    (json.nodes[i].children || []).forEach((c, k) => walk(c, object.children[k]));
  };
  json.scenes[json.scene].nodes.forEach((i, k) => walk(i, gltf.scene.children[k]));
  const out = [];
  for (const t of times) {
    mixer.setTime(t);
    gltf.scene.updateMatrixWorld(true);
    const nodes = {};
    for (const [i, o] of byIndex) {
      const p = new THREE.Vector3(), q = new THREE.Quaternion(), s = new THREE.Vector3();
      o.matrixWorld.decompose(p, q, s);
      nodes[i] = {name: o.name, p: p.toArray(), q: q.toArray(), s: s.toArray()};
    }
    out.push(nodes);
  }
  return {names: gltf.parser.json.nodes.map((n) => n.name), times: out};
};
window.ready = true;
</script>
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def run(*args):
    r = subprocess.run([ARGS.cli, *args], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def sample(path, rate):
    lines = run("sample", path, "--rate", str(rate)).splitlines()
    header = lines[0].split(",")
    return [dict(zip(header, map(float, line.split(",")))) for line in lines[1:]]


def mirrored_rotation(x, y, z, w):
    n = math.sqrt(x * x + y * y + z * z + w * w)
    return (x / n, -y / n, -z / n, w / n)


class GltfLoaderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        os.symlink(os.path.abspath(os.path.join(ARGS.modules, "three")),
                   os.path.join(cls.tmp.name, "three"))
        with open(os.path.join(cls.tmp.name, "index.html"), "w") as f:
            f.write(PAGE)
        handler = functools.partial(QuietHandler, directory=cls.tmp.name)
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        options = Options()
        for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]:
            options.add_argument(a)
        options.binary_location = ARGS.chromium
        cls.driver = webdriver.Chrome(service=Service(ARGS.chromedriver), options=options)
        cls.driver.set_script_timeout(60)
        cls.driver.get(f"http://127.0.0.1:{cls.server.server_address[1]}/index.html")
        WebDriverWait(cls.driver, 30).until(lambda d: d.execute_script("return window.ready"))

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.shutdown()
        cls.server.server_close()
        cls.tmp.cleanup()

    def probe(self, name, times):
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.probe(arguments[0], arguments[1]).then(done, (e) => done({error: String(e)}));",
            "/" + name, times)

    def assert_pose(self, node, position, rotation, what):
        p = node["p"]
        for k in range(3):
            self.assertAlmostEqual(p[k], position[k], delta=1e-5, msg=f"{what} position")
        q = node["q"]
        # q and -q are one rotation: three.js decomposes a matrix into either.
        sign = 1 if sum(a * b for a, b in zip(q, rotation)) >= 0 else -1
        for k in range(4):
            self.assertAlmostEqual(q[k], sign * rotation[k], delta=1e-5, msg=f"{what} rotation")

    def check(self, source, ext, rate=20):
        out = os.path.join(self.tmp.name, f"{os.path.basename(source)}.{ext}")
        run("export", source, out, "--rate", str(rate))
        rows = sample(source, rate)
        picks = [round(i * (len(rows) - 1) / 9) for i in range(10)]
        shift = max(0.0, -rows[0]["t"])
        result = self.probe(os.path.basename(out), [rows[i]["t"] + shift for i in picks])
        self.assertNotIn("error", result)
        names = result["names"]
        index = {n: i for i, n in enumerate(names) if n not in JOINTS}
        hands = {side: [i for i in range(index[f"hand.{side}"] + 1, index[f"hand.{side}"] + 27)]
                 for side in ("left", "right")}
        compared = 0
        for row_index, nodes in zip(picks, result["times"]):
            row = rows[row_index]
            head = nodes[str(index["head"])]
            self.assert_pose(head, (-row["camera.position.x"], row["camera.position.y"],
                                    row["camera.position.z"]),
                             mirrored_rotation(*(row[f"camera.rotation.{c}"] for c in "xyzw")),
                             f"head at {row['t']}")
            gaze = nodes[str(index["gaze"])]
            for k, c in enumerate("xyz"):
                sign = -1 if c == "x" else 1
                self.assertAlmostEqual(gaze["p"][k], sign * row[f"gaze.origin.{c}"], delta=1e-5)
            d = (-row["gaze.direction.x"], row["gaze.direction.y"], row["gaze.direction.z"])
            n = math.sqrt(sum(v * v for v in d))
            x, y, z, w = gaze["q"]
            axis = (2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y))
            for k in range(3):
                self.assertAlmostEqual(axis[k], d[k] / n, delta=1e-5, msg="gaze direction")
            for side, joints in hands.items():
                hand = nodes[str(index[f"hand.{side}"])]
                if row[f"hand.{side}.tracked"] <= 0.5:
                    self.assertEqual(hand["s"], [0, 0, 0])
                    continue
                for joint, i in zip(JOINTS, joints):
                    self.assertEqual(names[i], joint)
                    prefix = f"hand.{side}.joint.{joint}"
                    self.assert_pose(nodes[str(i)],
                                     (-row[f"{prefix}.position.x"], row[f"{prefix}.position.y"],
                                      row[f"{prefix}.position.z"]),
                                     mirrored_rotation(
                                         *(row[f"{prefix}.rotation.{c}"] for c in "xyzw")),
                                     f"{prefix} at {row['t']}")
                    compared += 1
        # Most of the ten times have both hands tracked in a generated recording.
        self.assertGreater(compared, 100)

    def test_glb_world_transforms_equal_sample(self):
        source = os.path.join(self.tmp.name, "glb.bin")
        run("gen", "-o", source, "--seconds", "4", "--seed", "3")
        self.check(source, "glb")

    def test_gltf_world_transforms_equal_sample(self):
        source = os.path.join(self.tmp.name, "gltf.bin")
        run("gen", "-o", source, "--seconds", "4", "--seed", "4", "--layout", "full")
        self.check(source, "gltf")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--modules", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "")
    ARGS, rest = parser.parse_known_args()
    if not ARGS.chromium or not ARGS.chromedriver:
        print("SKIPPED: Chromium and its driver are not installed")
        sys.exit(SKIP)
    if not os.path.isfile(os.path.join(ARGS.modules, "three", "build", "three.module.js")):
        print(f"SKIPPED: three is not installed in {ARGS.modules} (npm ci)")
        sys.exit(SKIP)
    result = unittest.main(argv=[sys.argv[0], *rest], exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
