"""Assertions for tests of code that writes recordings: an interaction test that records a take,
a converter, an edit that must not move anything.

    from inputanim.testing import assert_recordings_close
    assert_recordings_close("expected.bin", "recorded.bin", position=0.002)

The comparison is inputanim.diff's (the library's compare); this module only words its report.
"""

from . import diff

__all__ = ["assert_recordings_close"]


def _fixed(value):
    return "not finite" if value is None or value != value else f"{value:.3f}"


def _size(value, kind):
    """An error in the unit people read it in: millimetres for positions, degrees for angles (as
    `inputanim diff`'s text)."""
    if kind == "position":
        return f"{_fixed(None if value is None else value * 1000.0)} mm"
    return f"{_fixed(value)} deg"


def _interval(i):
    return "-" if i is None else f"[{_fixed(i['start'])}, {_fixed(i['end'])}) s"


def _marker(m):
    return "-" if m is None else f"{_fixed(m['time'])} s {m['name']!r}"


def _blocks(side):
    held = [name for name in ("camera", "hands", "gaze") if side[f"has_{name}"]]
    return ", ".join(held) if held else "no block"


def _differences(report):
    """The first difference (the report's first in this order: the poses past their tolerance
    by the time they first were, then the state, marker and key differences, then other blocks)
    as (kind, sentence), and how many differences of each kind the report counts."""
    poses = []
    for frame in report["motion"].values():
        past = frame[frame["first_exceeded"].notna()]
        for name, row in past.iterrows():
            poses.append((row["first_exceeded"], name, row))
    keys = report["keys"]
    counts = {"pose": len(poses), "state": report["state"]["count"],
              "marker": report["markers"]["count"], "key": 0 if keys is None else keys["curves"],
              "blocks": int(report["structure"]["blocks_differ"])}
    if poses:
        # min() keeps the first of equal times: the report's (curve) order.
        first, name, row = min(poses, key=lambda p: p[0])
        kind = row["kind"]
        limit = report["tolerance"]["position" if kind == "position" else "angle"]
        return ("pose", f"{name} differs from {_fixed(first)} s by "
                        f"{_size(row['first_exceeded_error'], kind)} (tolerance "
                        f"{_size(limit, kind)}; max {_size(row['max'], kind)} at "
                        f"{_fixed(row['max_time'])} s)"), counts
    if report["state"]["differences"]:
        s = report["state"]["differences"][0]
        return ("state", f"{s['curve']} {s['change']}: A {_interval(s['a'])}, "
                         f"B {_interval(s['b'])}"), counts
    if report["markers"]["differences"]:
        m = report["markers"]["differences"][0]
        return ("marker", f"marker {m['change']}: A {_marker(m['a'])}, "
                          f"B {_marker(m['b'])}"), counts
    if keys is not None and keys["differences"]:
        k = keys["differences"][0]
        where = "" if k["key"] is None else f" of key {k['key']}"
        return ("key", f"keys of {k['curve']} differ: {k['field']}{where}: A {k['a']!r}, "
                       f"B {k['b']!r}"), counts
    return ("blocks", f"blocks differ: A has {_blocks(report['a'])}, B has "
                      f"{_blocks(report['b'])}"), counts


# The words of the count of the other differences, by kind.
_WORDS = {"pose": "poses past tolerance", "state": "state", "marker": "marker",
          "key": "curves' keys", "blocks": "blocks"}


def _message(report):
    (kind, first), counts = _differences(report)
    names = [side["path"] for side in (report["a"], report["b"])]
    sides = "recordings" if None in names else f"{names[0]!r} and {names[1]!r}"
    message = f"{sides} differ: {first}"
    counts[kind] -= 1
    others = sum(counts.values())
    if others:
        parts = ", ".join(f"{n} {_WORDS[k]}" for k, n in counts.items() if n)
        message += f"\n...and {others} more difference{'s' if others > 1 else ''} ({parts})"
    return message


def assert_recordings_close(a, b, *, position=0.001, angle=0.5, time=0.02, keys=False,
                            **options):
    """Returns None when recordings a and b are the same within the tolerances, as
    inputanim.diff(a, b, position=..., angle=..., time=..., keys=..., **options) judges them;
    else raises AssertionError naming the first difference: a pose past its tolerance (its name,
    the time it first was, by how much in mm or degrees, the tolerance, its largest error),
    else the first state (tracked, pinch), marker, key or block difference; then how many
    others there are. a and b are what diff() takes; its errors (InvalidRecording, OSError,
    ValueError) pass as they are."""
    # pytest shows the assertion where the test called this, not in here.
    __tracebackhide__ = True
    report = diff(a, b, position=position, angle=angle, time=time, keys=keys, **options)
    if not report["same"]:
        raise AssertionError(_message(report))
