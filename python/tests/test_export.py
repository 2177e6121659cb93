"""Recording.export (docs/EXPORT.md): the bytes of `inputanim export`, to a path or a file
object; and the Unity clip read back with a YAML parser (Unity's tags handled): every key of
every curve is the recording's key bit for bit, the infinity modes follow the wrap modes, the
events are the markers, and the parsed curves, evaluated by the library, sample as the
recording does."""

import io
import json
import os
import pathlib
import struct

import numpy as np
import pytest

import inputanim
from conftest import run

yaml = pytest.importorskip("yaml")

POSE = ["position.x", "position.y", "position.z", "rotation.x", "rotation.y", "rotation.z",
        "rotation.w"]
UNITY_POSE = ["m_LocalPosition.x", "m_LocalPosition.y", "m_LocalPosition.z",
              "m_LocalRotation.x", "m_LocalRotation.y", "m_LocalRotation.z", "m_LocalRotation.w"]


class UnityLoader(getattr(yaml, "CBaseLoader", yaml.BaseLoader)):
    """Every scalar as its text (floats are compared bit for bit), Unity's !u! tags read as plain
    mappings."""


UnityLoader.add_multi_constructor(
    "tag:unity3d.com,2011:", lambda loader, suffix, node: loader.construct_mapping(node, True))


def curve_path(binding):
    """The recording's curve path of a clip binding (docs/EXPORT.md's table)."""
    path, attribute, class_id = binding["path"], binding["attribute"], binding["classID"]
    if class_id == "95":
        side = {"LeftHandPinching": "left", "RightHandPinching": "right"}[attribute]
        return f"hand.{side}.pinching"
    if class_id == "1":
        assert attribute == "m_IsActive"
        return {"LeftHand": "hand.left.tracked", "RightHand": "hand.right.tracked"}[path]
    assert class_id == "4"
    channel = POSE[UNITY_POSE.index(attribute)]
    if path == "Camera":
        return "camera." + channel
    if path in ("Gaze", "Gaze/Direction"):
        axis = attribute[-1]
        return ("gaze.origin." if path == "Gaze" else "gaze.direction.") + axis
    hand, joint = path.split("/")
    side = {"LeftHand": "left", "RightHand": "right"}[hand]
    return f"hand.{side}.joint.{joint}.{channel}"


def f32(text):
    return np.float32(float(text))


def bits(values):
    return np.asarray(values, dtype="<f4").view("<u4")


def infinity(wrap):
    """Unity's serialised infinity (PingPong 0, Repeat 1, Clamp 2) of a WrapMode."""
    return {2: "1", 4: "0"}.get(int(wrap), "2")


def read_clip(path):
    with open(path, "rb") as f:
        text = f.read().decode()
    assert text.startswith("%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!74 &7400000\n")
    return yaml.load(text, Loader=UnityLoader)["AnimationClip"]


def keys_of(c):
    """The parsed keys as arrays: time, value, inSlope, outSlope, inWeight, outWeight (float32)
    and weightedMode (int)."""
    keys = c["curve"]["m_Curve"]
    fields = ["time", "value", "inSlope", "outSlope", "inWeight", "outWeight"]
    out = {f: np.array([f32(k[f]) for k in keys], dtype=np.float32) for f in fields}
    out["weightedMode"] = np.array([int(k["weightedMode"]) for k in keys], dtype=np.int32)
    return out


def rebuilt_recording(clip, has_gaze):
    """A v1.1 full-layout file holding the clip's curves (the None joint's empty) and its events:
    the parsed clip in the library's own terms, for evaluation."""
    by_path = {curve_path(c): c for c in clip["m_EditorCurves"]}
    paths = [p for p in inputanim._core.curve_paths()
             if not p.startswith("gaze") or has_gaze]
    out = io.BytesIO()
    out.write(struct.pack("<QII", 0x6A8FAF6E0F9E42C6, 1, 1))
    out.write(bytes([1, 1, 1 if has_gaze else 0]))
    inverse = {"1": 2, "0": 4, "2": 8}
    for p in paths:
        c = by_path.get(p)
        if c is None:
            out.write(struct.pack("<iii", 8, 8, 0))
            continue
        k = keys_of(c)
        n = len(k["time"])
        out.write(struct.pack("<iii", inverse[c["curve"]["m_PreInfinity"]],
                              inverse[c["curve"]["m_PostInfinity"]], n))
        for i in range(n):
            if ".tracked" in p or ".pinching" in p:
                out.write(struct.pack("<ff", k["time"][i], k["value"][i]))
            else:
                out.write(struct.pack("<ffffffi", *(k[f][i] for f in (
                    "time", "value", "inSlope", "outSlope", "inWeight", "outWeight")),
                    k["weightedMode"][i]))
    events = clip["m_Events"]
    out.write(struct.pack("<i", len(events)))
    for e in events:
        name = e["data"].encode()
        out.write(struct.pack("<f", f32(e["time"])) + bytes([len(name)]) + name)
    return out.getvalue()


@pytest.fixture(scope="module")
def clip_sources(cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("export")
    files = {}
    for name, options in [("compact", ["--markers", "3"]), ("full", ["--layout", "full"]),
                          ("v10", ["--version", "1.0", "--markers", "1"]),
                          ("no_gaze", ["--no-gaze"])]:
        path = folder / f"{name}.bin"
        run(cli, "gen", "-o", path, "--seconds", "0.5", "--seed", "5", *options)
        files[name] = path
    return files


@pytest.mark.parametrize("name", ["compact", "full", "v10", "no_gaze"])
def test_unity_clip_reads_back_as_the_recordings_keys(cli, clip_sources, tmp_path, name):
    source = clip_sources[name]
    rec = inputanim.open(source)
    out = tmp_path / "clip.anim"
    assert rec.export(out) == out.stat().st_size
    # The command writes the same bytes.
    run(cli, "export", source, tmp_path / "cli.anim")
    assert (tmp_path / "cli.anim").read_bytes() == out.read_bytes()

    clip = read_clip(out)
    # The runtime's float curves: the editor's that are not a Transform's.
    assert clip["m_FloatCurves"] == [c for c in clip["m_EditorCurves"] if c["classID"] != "4"]
    seen = set()
    for c in clip["m_EditorCurves"]:
        path = curve_path(c)
        seen.add(path)
        curve = rec.curves[path]
        k = keys_of(c)
        assert np.array_equal(bits(k["time"]), bits(curve.times)), path
        assert np.array_equal(bits(k["value"]), bits(curve.values)), path
        if curve.kind == "bool":
            # A step: Unity's constant tangents.
            assert np.all(np.isposinf(k["inSlope"])) and np.all(np.isposinf(k["outSlope"]))
            assert np.all(k["weightedMode"] == 0)
        elif curve.has_tangents:
            for field, mine in [("inSlope", curve.in_tangents), ("outSlope", curve.out_tangents),
                                ("inWeight", curve.in_weights),
                                ("outWeight", curve.out_weights)]:
                assert np.array_equal(bits(k[field]), bits(mine)), (path, field)
            assert np.array_equal(k["weightedMode"], curve.weighted_modes), path
        else:
            # FORMAT.md section 7: a compact key is slopes 0, weights 0, weighted mode Both.
            for field in ("inSlope", "outSlope", "inWeight", "outWeight"):
                assert np.array_equal(bits(k[field]), bits(np.zeros(len(curve)))), (path, field)
            assert np.all(k["weightedMode"] == 3)
        assert c["curve"]["m_PreInfinity"] == infinity(curve.pre_wrap)
        assert c["curve"]["m_PostInfinity"] == infinity(curve.post_wrap)
    # Every curve but the None joint's.
    assert seen == {p for p in rec.curves if ".joint.None." not in p}

    markers = rec.markers
    events = clip["m_Events"]
    assert len(events) == len(markers)
    for e, (_, m) in zip(events, markers.iterrows()):
        assert e["functionName"] == "OnInputAnimationMarker"
        assert e["data"] == m["name"]
        assert bits([f32(e["time"])]) == bits([m["time"]])

    # The parsed curves, evaluated by the library, sample as the recording.
    rebuilt = inputanim.open(rebuilt_recording(clip, "gaze.origin.x" in rec.curves))
    kept = sorted(seen)
    t0, v0 = rec.sample(60, kept)
    t1, v1 = rebuilt.sample(60, kept)
    assert np.array_equal(bits(t0), bits(t1))
    assert np.array_equal(bits(v0), bits(v1))


def test_export_to_a_file_object_or_a_path_writes_the_same_bytes(clip_sources, tmp_path):
    rec = inputanim.open(clip_sources["compact"])
    for fmt in ("glb", "gltf", "anim"):
        buffer = io.BytesIO()
        n = rec.export(buffer, fmt, rate=30)
        path = tmp_path / f"out.{fmt}"
        assert rec.export(path, rate=30) == n
        assert path.read_bytes() == buffer.getvalue()
    assert rec.export(io.BytesIO(), "glb", start=0.25, stop=0.5) > 0


def test_export_refusals_are_value_errors(clip_sources, tmp_path):
    rec = inputanim.open(clip_sources["compact"])
    with pytest.raises(ValueError, match="format"):
        rec.export(tmp_path / "out.obj")
    with pytest.raises(ValueError, match="format is required"):
        rec.export(io.BytesIO())
    with pytest.raises(ValueError, match="more than max_bytes 1000"):
        rec.export(tmp_path / "out.glb", max_bytes=1000)
    assert not (tmp_path / "out.glb").exists()
    with pytest.raises(ValueError, match="apply to glTF only"):
        rec.export(tmp_path / "out.anim", start=0.5)
    with pytest.raises(ValueError, match="window"):
        rec.export(tmp_path / "out.glb", start=100.0)
    with pytest.raises(OSError):
        rec.export(tmp_path / "missing" / "out.glb")


def with_markers(source, markers, target):
    """`source` (a recording whose marker names are ASCII) with its marker list replaced by
    `markers`, [(time, name bytes)], written to `target`."""
    data = source.read_bytes()
    old = inputanim.open(source).markers
    old_size = 4 + sum(4 + 1 + len(name.encode()) for name in old["name"])

    def length(n):
        out = bytearray()
        while True:
            out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                return bytes(out)

    trailer = struct.pack("<i", len(markers)) + b"".join(
        struct.pack("<f", t) + length(len(name)) + name for t, name in markers)
    target.write_bytes(data[:len(data) - old_size] + trailer)
    return target


# Names YAML 1.1 reads otherwise when raw (U+0085 is a line break to it) or refuses (the other C1
# controls, U+2028, U+2029, U+FEFF, the noncharacters), and what every reader takes as it is.
HARD_NAMES = ["a\x85b", "\x80\x9f", "line\u2028para\u2029", "\ufeffbom", "\ufdd0\ufffe\uffff",
              "tab\tquote\"back\\slash", "\U0001fffe\u00e9", "plain"]


def test_every_marker_name_reads_back_exactly_from_yaml_and_json(clip_sources, tmp_path):
    source = with_markers(clip_sources["compact"],
                          [(0.1 * i, name.encode()) for i, name in enumerate(HARD_NAMES)],
                          tmp_path / "names.bin")
    rec = inputanim.open(source)
    assert list(rec.markers["name"]) == HARD_NAMES
    rec.export(tmp_path / "names.anim")
    clip = yaml.load((tmp_path / "names.anim").read_text(encoding="utf-8"), Loader=UnityLoader)
    assert [event["data"] for event in clip["AnimationClip"]["m_Events"]] == HARD_NAMES
    rec.export(tmp_path / "names.gltf")
    gltf = json.loads((tmp_path / "names.gltf").read_text(encoding="utf-8"))
    assert [m["name"] for m in gltf["animations"][0]["extras"]["markers"]] == HARD_NAMES


def test_names_that_are_not_utf8_become_the_replacement_character(clip_sources, tmp_path):
    source = with_markers(clip_sources["compact"], [(0.0, b"x\xff\xc3")], tmp_path / "bad.bin")
    rec = inputanim.open(source)
    rec.export(tmp_path / "bad.anim")
    clip = yaml.load((tmp_path / "bad.anim").read_text(encoding="utf-8"), Loader=UnityLoader)
    assert clip["AnimationClip"]["m_Events"][0]["data"] == "x\ufffd\ufffd"


def test_a_rate_is_a_finite_number_above_0_for_every_format(clip_sources, tmp_path):
    rec = inputanim.open(clip_sources["compact"])
    for fmt in ("anim", "glb", "gltf"):
        for rate in (float("nan"), float("inf"), 0.0, -1.0):
            with pytest.raises(ValueError, match="is not a rate"):
                rec.export(tmp_path / f"out.{fmt}", rate=rate)
            assert not (tmp_path / f"out.{fmt}").exists()


class Trickle(io.RawIOBase):
    """A raw file object that takes at most `most` bytes a call (or returns `answer`)."""

    def __init__(self, most=1000, answer=None):
        self.data, self.most, self.answer = bytearray(), most, answer

    def writable(self):
        return True

    def write(self, b):
        if self.answer is not None:
            return self.answer
        taken = bytes(b[:self.most])
        self.data += taken
        return len(taken)


def test_a_file_object_that_takes_fewer_bytes_is_written_again_until_it_has_all(clip_sources):
    rec = inputanim.open(clip_sources["full"])
    whole = rec.export(io.BytesIO(), "glb")
    trickle = Trickle()
    assert rec.export(trickle, "glb") == whole
    expected = io.BytesIO()
    rec.export(expected, "glb")
    assert bytes(trickle.data) == expected.getvalue()
    with pytest.raises(OSError, match="returned 0"):
        rec.export(Trickle(answer=0), "glb")
    blocked = Trickle()
    blocked.write = lambda b: None
    with pytest.raises(BlockingIOError):
        rec.export(blocked, "glb")


def test_an_export_over_its_own_recording_is_refused_and_the_recording_kept(clip_sources,
                                                                            tmp_path):
    source = tmp_path / "take.bin"
    source.write_bytes(clip_sources["compact"].read_bytes())
    before = source.read_bytes()
    (tmp_path / "link.glb").symlink_to(source)
    rec = inputanim.open(source)
    for out, fmt in ((source, "anim"), (source, "glb"), (tmp_path / "link.glb", None)):
        with pytest.raises(ValueError, match="it is the input file itself"):
            rec.export(out, fmt)
    assert source.read_bytes() == before


def test_an_export_path_is_any_path_the_os_takes(clip_sources, tmp_path):
    rec = inputanim.open(clip_sources["compact"])
    expected = io.BytesIO()
    rec.export(expected, "glb")
    for name in (os.fsencode(tmp_path) + b"/take-\xff.glb",
                 os.fsdecode(os.fsencode(tmp_path) + b"/take-\xfe.glb"),
                 pathlib.Path(tmp_path) / "take-path.glb"):
        assert rec.export(name) == len(expected.getvalue())
        assert pathlib.Path(os.fsdecode(name)).read_bytes() == expected.getvalue()
    with pytest.raises(ValueError, match="NUL"):
        rec.export(f"{tmp_path}/take.glb\0.txt")
    assert not (tmp_path / "take.glb").exists()
