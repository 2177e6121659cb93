#!/usr/bin/python3
"""`inputanim metrics` checked against an independent reading of docs/METRICS.md.

Generates recordings with `inputanim gen`, resamples them with `inputanim sample` (CSV), computes
every metric and event from the CSV in plain Python, written from the definitions and sharing no
code with the library, and compares with `inputanim metrics` (JSON Lines). Counts, sample indices
and float32 times must be equal, real numbers equal to a relative 1e-9.

Angles are computed here with another formula than the library's (the half-angle form
2 atan2(|a - b|, |a + b|) for unit vectors), so the two agree only if both are right.

Group existence is read from `inputanim info --format json` (has_hands, has_camera, has_gaze): the
generator keys every curve of a block it writes (tracked and pinching from time 0), so a block
present is a group with keys.

    metrics_from_sample.py --cli build/tools/inputanim
"""

import argparse
import csv
import io
import json
import math
import struct
import subprocess
import sys
import tempfile

RELATIVE = 1e-9


def f32(x):
    """x rounded to float32, as the command's times are."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def run(cli, *args):
    done = subprocess.run([cli, *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"inputanim {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def norm(v):
    return math.sqrt(sum(c * c for c in v))


def unit_angle(a, b):
    """The angle between unit vectors a and b (any dimension), in radians."""
    difference = norm([x - y for x, y in zip(a, b)])
    total = norm([x + y for x, y in zip(a, b)])
    return 2.0 * math.atan2(difference, total)


def normalised(v):
    n = norm(v)
    return [c / n for c in v]


def runs(flags):
    """Maximal runs of True as (first, one past the last)."""
    out = []
    start = None
    for i, on in enumerate(flags):
        if on and start is None:
            start = i
        elif not on and start is not None:
            out.append((start, i))
            start = None
    if start is not None:
        out.append((start, len(flags)))
    return out


class Grid:
    def __init__(self, times, rate):
        self.times = times
        self.rate = rate
        self.n = len(times)

    def time(self, i):
        if i < self.n:
            return self.times[i]
        return f32(self.times[0] + i / self.rate)

    def interval(self, a, b):
        return {"start_sample": a, "end_sample": b, "start": self.time(a), "end": self.time(b),
                "duration": (b - a) / self.rate}


def finite(values):
    return all(math.isfinite(v) for v in values)


def motion(positions, measured, rate):
    path = 0.0
    pairs = 0
    peak = 0.0
    for i in range(1, len(positions)):
        a, b = positions[i - 1], positions[i]
        if measured[i - 1] and measured[i] and finite(a) and finite(b):
            step = math.sqrt(sum((x - y) ** 2 for x, y in zip(b, a)))
            path += step
            pairs += 1
            peak = max(peak, step)
    return {"path_length": path, "motion_time": pairs / rate,
            "mean_speed": path / (pairs / rate) if pairs else None,
            "peak_speed": peak * rate if pairs else None}


def hand(columns, prefix, joint, grid):
    tracked = [v > 0.5 for v in columns[f"{prefix}.tracked"]]
    pinching = [t and v > 0.5 for t, v in zip(tracked, columns[f"{prefix}.pinching"])]
    position = list(zip(*(columns[f"{prefix}.joint.{joint}.position.{a}"] for a in "xyz")))
    intervals = runs(tracked)
    gaps = [(intervals[k][1], intervals[k + 1][0]) for k in range(len(intervals) - 1)]
    pinches = runs(pinching)
    metrics = {"tracked_samples": sum(tracked), "coverage": sum(tracked) / grid.n,
               "gaps": len(gaps), "gap_time": sum((b - a) / grid.rate for a, b in gaps),
               "longest_gap": max((b - a) / grid.rate for a, b in gaps) if gaps else None,
               "pinches": len(pinches),
               "pinch_time": sum((b - a) / grid.rate for a, b in pinches)}
    metrics.update(motion(position, tracked, grid.rate))
    events = {"tracking": sorted([("tracked", a, b) for a, b in intervals] +
                                 [("gap", a, b) for a, b in gaps], key=lambda e: e[1]),
              "pinch": pinches}
    return metrics, events


def head(columns, grid):
    position = list(zip(*(columns[f"camera.position.{a}"] for a in "xyz")))
    metrics = motion(position, [True] * grid.n, grid.rate)
    rotations = list(zip(*(columns[f"camera.rotation.{a}"] for a in "xyzw")))
    total = 0.0
    peak = None
    previous = None
    for q in rotations:
        if not finite(q):
            previous = None
            continue
        n = norm(q)
        q = [c / n for c in q] if n > 0 and math.isfinite(n) else [0.0, 0.0, 0.0, 1.0]
        if previous is not None:
            # q and -q are the same rotation: the nearer sign.
            if sum(a * b for a, b in zip(previous, q)) < 0:
                q_near = [-c for c in q]
            else:
                q_near = q
            angle = math.degrees(2.0 * unit_angle(previous, q_near))
            total += angle
            peak = angle if peak is None else max(peak, angle)
        previous = q
    metrics["rotation"] = total
    metrics["peak_angular_speed"] = peak * grid.rate if peak is not None else None
    return metrics


def gaze(columns, grid, o):
    origin = list(zip(*(columns[f"gaze.origin.{a}"] for a in "xyz")))
    raw = list(zip(*(columns[f"gaze.direction.{a}"] for a in "xyz")))
    direction = [normalised(d) if finite(d) and finite(p) and norm(d) > 0 else None
                 for d, p in zip(raw, origin)]
    velocity = [None] * grid.n
    for a, b in runs([d is not None for d in direction]):
        for i in range(a + 1, b):
            velocity[i] = math.degrees(unit_angle(direction[i - 1], direction[i])) * grid.rate
        if b - a > 1:
            velocity[a] = velocity[a + 1]
    candidates = [list(range(a, b)) for a, b in
                  runs([v is not None and v < o["fixation_velocity"] for v in velocity])]

    def mean_direction(samples):
        return normalised([sum(direction[i][k] for i in samples) for k in range(3)])

    merged = []
    for c in candidates:
        if merged and (c[0] - merged[-1][-1]) / grid.rate < o["merge_gap"] and math.degrees(
                unit_angle(mean_direction(merged[-1]), mean_direction(c))) < o["merge_angle"]:
            merged[-1] = merged[-1] + c
        else:
            merged.append(c)
    fixations = [f for f in merged if (f[-1] - f[0]) / grid.rate >= o["min_fixation"]]
    fixation_events = []
    for f in fixations:
        event = grid.interval(f[0], f[-1])
        event["direction"] = mean_direction(f)
        event["origin"] = [sum(origin[i][k] for i in f) / len(f) for k in range(3)]
        fixation_events.append(event)
    saccades = []
    for a, b in zip(fixation_events, fixation_events[1:]):
        event = grid.interval(a["end_sample"], b["start_sample"])
        event["amplitude"] = math.degrees(unit_angle(a["direction"], b["direction"]))
        saccades.append(event)
    durations = [f["duration"] for f in fixation_events]
    metrics = {"samples": sum(d is not None for d in direction),
               "fixations": len(fixations), "fixation_time": sum(durations),
               "mean_fixation_duration": sum(durations) / len(durations) if durations else None,
               "longest_fixation": max(durations) if durations else None,
               "saccades": len(saccades),
               "mean_saccade_amplitude": (sum(s["amplitude"] for s in saccades) / len(saccades)
                                          if saccades else None)}
    return metrics, fixation_events, saccades


def same(expected, actual, where):
    if isinstance(expected, bool) or expected is None or isinstance(expected, (int, str)):
        if expected != actual:
            raise AssertionError(f"{where}: expected {expected!r}, got {actual!r}")
    elif isinstance(expected, float):
        if actual is None or abs(expected - actual) > RELATIVE * max(abs(expected), 1e-3):
            raise AssertionError(f"{where}: expected {expected!r}, got {actual!r}")
    elif isinstance(expected, dict):
        if set(expected) != set(actual):
            raise AssertionError(f"{where}: fields {sorted(expected)} != {sorted(actual)}")
        for key in expected:
            same(expected[key], actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        if len(expected) != len(actual):
            raise AssertionError(f"{where}: {len(expected)} items expected, got {len(actual)}")
        for k, (e, a) in enumerate(zip(expected, actual)):
            same(e, a, f"{where}[{k}]")


def times_as_float32(event):
    """The command prints times as float32: compare them rounded so."""
    return {k: (f32(v) if k in ("start", "end") else v) for k, v in event.items()}


def check(cli, path, flags, options):
    info = json.loads(run(cli, "info", "--format", "json", path))
    globs = []
    if info["has_camera"]:
        globs.append("camera.**")
    if info["has_hands"]:
        globs += ["hand.*.tracked", "hand.*.pinching",
                  f"hand.*.joint.{options['joint']}.position.*"]
    if info["has_gaze"]:
        globs.append("gaze.**")
    args = ["sample", path, "--rate", repr(options["rate"])]
    for glob in globs:
        args += ["--curve", glob]
    table = list(csv.reader(io.StringIO(run(cli, *args))))
    # Each number is the shortest text of a float32: read back as that float32 exactly.
    header, rows = table[0], [[f32(float(v)) for v in row] for row in table[1:]]
    columns = {name: [row[k] for row in rows] for k, name in enumerate(header)}
    grid = Grid(columns["t"], options["rate"])

    expected = {"samples": grid.n, "start": grid.times[0], "end": grid.times[-1],
                "nonfinite_samples": sum(not finite(row[1:]) for row in rows),
                "hands": {"left": None, "right": None}, "head": None, "gaze": None,
                "measured_with": dict(options, level="full")}
    hand_events = {"tracking": [], "pinch": []}
    fixations, saccades = [], []
    if info["has_hands"]:
        for side in ("left", "right"):
            metrics, events = hand(columns, f"hand.{side}", options["joint"], grid)
            expected["hands"][side] = metrics
            hand_events["tracking"] += [dict(grid.interval(a, b), hand=side, event=kind)
                                        for kind, a, b in events["tracking"]]
            hand_events["pinch"] += [dict(grid.interval(a, b), hand=side)
                                     for a, b in events["pinch"]]
    if info["has_camera"]:
        expected["head"] = head(columns, grid)
    if info["has_gaze"]:
        expected["gaze"], fixations, saccades = gaze(columns, grid, options)

    summary = json.loads(run(cli, "metrics", path, *flags))
    assert summary.pop("path") == path
    summary["start"], summary["end"] = f32(summary["start"]), f32(summary["end"])
    same(expected, summary, f"{path} {' '.join(flags)}")

    for kind, wanted in (("tracking", hand_events["tracking"]), ("pinch", hand_events["pinch"]),
                         ("fixations", fixations), ("saccades", saccades)):
        lines = run(cli, "metrics", path, *flags, "--events", kind).splitlines()
        got = [json.loads(line) for line in lines]
        for event in got:
            assert event.pop("path") == path
        # Mean vectors are float32 in the output: equal to within their rounding.
        for e, g in zip(wanted, got):
            for vector in ("direction", "origin"):
                if vector in e:
                    if any(abs(a - b) > 1e-6 for a, b in zip(e.pop(vector), g.pop(vector))):
                        raise AssertionError(f"{path} --events {kind}: {vector} differs at "
                                             f"sample {e['start_sample']}")
        same([times_as_float32(e) for e in wanted], [times_as_float32(e) for e in got],
             f"{path} --events {kind}")
    counts = {k: len(v) for k, v in (("tracking", hand_events["tracking"]),
                                     ("pinch", hand_events["pinch"]), ("fixations", fixations))}
    print(f"{path} {' '.join(flags)}: {grid.n} samples, {counts} events agree")
    return counts


DEFAULTS = {"rate": 60.0, "joint": "Palm", "fixation_velocity": 30.0, "merge_gap": 0.075,
            "merge_angle": 0.5, "min_fixation": 0.1}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True, help="the inputanim command")
    cli = parser.parse_args().cli
    recordings = [("v11.bin", ["--seconds", "60", "--seed", "1"]),
                  ("v10.bin", ["--seconds", "45", "--seed", "2", "--version", "1.0"]),
                  ("full-no-hands.bin", ["--seconds", "30", "--seed", "3", "--layout", "full",
                                         "--no-hands"]),
                  ("no-camera-no-gaze.bin", ["--seconds", "30", "--seed", "4", "--no-camera",
                                             "--no-gaze"])]
    # The generator's fixations are never within the default 0.5 degrees of each other: a wide
    # merge angle makes merges happen (about one fixation in six of the 60 s recording).
    other = {"rate": 90.0, "joint": "IndexTip", "fixation_velocity": 45.0, "merge_gap": 0.15,
             "merge_angle": 10.0, "min_fixation": 0.08}
    other_flags = ["--rate", "90", "--joint", "IndexTip", "--fixation-velocity", "45",
                   "--merge-gap", "0.15", "--merge-angle", "10", "--min-fixation", "0.08"]
    totals = {"tracking": 0, "pinch": 0, "fixations": 0}
    with tempfile.TemporaryDirectory() as folder:
        for name, gen in recordings:
            path = f"{folder}/{name}"
            run(cli, "gen", "-o", path, *gen)
            for flags, options in (([], DEFAULTS), (other_flags, other)):
                for kind, count in check(cli, path, flags, options).items():
                    totals[kind] += count
    # The comparison means something only if there was something to compare.
    if min(totals.values()) < 10:
        sys.exit(f"too few events to compare: {totals}")


if __name__ == "__main__":
    main()
