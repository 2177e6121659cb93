"""A glTF written by Blender's own exporter imports, and plays where Blender shows it.

`inputanim gen` makes a recording, `inputanim export` a .glb; Blender (headless) imports it, keys
changes (the head, both hands), exports it again with its own exporter and reports its world
positions of the head, the gaze and every joint at each whole frame (blender_gltf_scene.py).
That .glb is then
`inputanim import`ed and `inputanim sample`d at Blender's frame times: every position within
5 mm of Blender's, the hands tracked where Blender's hand has its scale, and the edits there.

Exit 77 (skipped) when `blender` is not installed.

    /usr/bin/python3 tests/scripts/blender_gltf.py --cli build/tools/inputanim --work /tmp/b
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys

TOLERANCE = 0.005  # metres


def run(argv, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(argv), r.stdout[-4000:], r.stderr[-4000:]))
    return r.stdout


def unity_of_blender(p):
    # Blender is z-up (x, y, z) = glTF's (x, -z, y); `export` mirrors glTF's x into Unity's.
    x, y, z = p
    return (-x, z, -y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--blender", default=shutil.which("blender"))
    args = ap.parse_args()
    if not args.blender:
        print("skipped: blender is not installed")
        return 77
    os.makedirs(args.work, exist_ok=True)
    w = lambda name: os.path.join(args.work, name)  # noqa: E731
    here = os.path.dirname(os.path.abspath(__file__))

    # Seed 2: the hands lose and regain tracking within 3 s.
    run([args.cli, "gen", "-o", w("take.bin"), "--seconds", "3", "--seed", "2"])
    run([args.cli, "export", w("take.bin"), w("take.glb")])
    run([args.blender, "-b", "--factory-startup", "--python",
         os.path.join(here, "blender_gltf_scene.py"), "--",
         w("take.glb"), w("blender.glb"), w("blender.json")])
    seen = json.load(open(w("blender.json")))
    fps = seen["fps"]
    run([args.cli, "import", w("blender.glb"), w("imported.bin")])

    # Blender's exporter writes a frame's keys at frame / fps seconds.
    frames = seen["frames"]
    first = frames[0]["frame"] / fps
    rows = list(csv.DictReader(io.StringIO(run([
        args.cli, "sample", w("imported.bin"), "--rate", repr(fps), "--from", repr(first),
        "--until", repr(frames[-1]["frame"] / fps)]))))
    if len(rows) != len(frames):
        sys.exit("%d rows sampled for Blender's %d frames" % (len(rows), len(frames)))

    worst, where, compared = 0.0, "", 0
    states = set()
    for frame, row in zip(frames, rows):
        positions = {"head": "camera.position", "gaze": "gaze.origin"}
        for side in ("left", "right"):
            tracked = frame["hand.%s.scale" % side] > 0.5
            states.add((side, tracked))
            if (row["hand.%s.tracked" % side] == "1") != tracked:
                sys.exit("frame %d: hand.%s.tracked is %s, Blender's hand scale %g" % (
                    frame["frame"], side, row["hand.%s.tracked" % side],
                    frame["hand.%s.scale" % side]))
            # An untracked hand's joints collapse onto the hand in Blender (its scale is 0).
            if tracked:
                for key in frame:
                    if key.startswith("hand.%s." % side) and not key.endswith(".scale"):
                        joint = key.split(".")[2]
                        positions[key] = "hand.%s.joint.%s.position" % (side, joint)
        for key, curve in positions.items():
            expected = unity_of_blender(frame[key])
            for axis, e in zip("xyz", expected):
                d = abs(float(row[curve + "." + axis]) - e)
                compared += 1
                if d > worst:
                    worst, where = d, "%s.%s at frame %d" % (curve, axis, frame["frame"])
    edited = next(r for f, r in zip(frames, rows) if f["frame"] == seen["edited"])
    # The hand's move is keyed once, so it holds at every frame; measured where the hand is
    # tracked (Blender writes the joints of a hand scaled to 0 at the hand's origin).
    tracked = next(r for f, r in zip(frames, rows) if f["hand.right.scale"] > 0.5)
    original = {}
    for row, curve in ((edited, "camera.position.y"),
                       (tracked, "hand.right.joint.Wrist.position.x")):
        original[curve] = float(list(csv.DictReader(io.StringIO(run([
            args.cli, "sample", w("take.bin"), "--rate", repr(fps), "--curve", curve,
            "--from", row["t"], "--until", row["t"]]))))[0][curve])
    lift = float(edited["camera.position.y"]) - original["camera.position.y"]
    # Blender's +x is Unity's -x.
    shift = original["hand.right.joint.Wrist.position.x"] - float(
        tracked["hand.right.joint.Wrist.position.x"])
    print("%d values over %d frames at %g fps: worst %.3g m (%s); the edits lift the head %.4f m "
          "and move the right hand %.4f m" % (compared, len(frames), fps, worst, where, lift,
                                               shift))
    if len(states) != 4:
        sys.exit("each hand should be seen tracked and untracked: %s" % sorted(states))
    if abs(lift - 0.1) > TOLERANCE or abs(shift - 0.05) > TOLERANCE:
        sys.exit("the head keyed 0.1 m higher and the hand 0.05 m aside in Blender are %.4f m "
                 "higher and %.4f m aside" % (lift, shift))
    if worst > TOLERANCE:
        sys.exit("off by %.6f m, more than %g" % (worst, TOLERANCE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
