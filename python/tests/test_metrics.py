"""Recording.metrics() and Recording.events() are `inputanim metrics --format csv` and
`inputanim metrics --events KIND --format csv`, value for value; index(metrics=True) is
`inputanim index --metrics --jsonl` row for row."""

import csv
import io
import math
import tracemalloc

import pytest

import inputanim
from conftest import assert_same_rows, cli_rows, flipping_pinches, run

KINDS = ["tracking", "pinch", "fixations", "saccades"]


def csv_table(cli, *args):
    text = run(cli, "metrics", "--format", "csv", "--level", "structure", *map(str, args)).stdout
    return list(csv.DictReader(io.StringIO(text)))


def same_value(got, text):
    """A frame's value against the CSV's field (empty for null; numbers printed exactly)."""
    if text == "":
        return got is None or (isinstance(got, float) and math.isnan(got))
    if isinstance(got, str):
        return got == text
    return float(got) == float(text)


def assert_same_table(frame, rows):
    assert len(frame) == len(rows)
    for got, expected in zip(frame.to_dict("records"), rows):
        assert list(got) == [k for k in expected if k != "path"]
        for name, value in got.items():
            assert same_value(value, expected[name]), (name, value, expected[name])


def test_metrics_are_the_commands(cli, generated_file):
    rec = inputanim.open(generated_file)
    assert_same_table(rec.metrics(), csv_table(cli, generated_file))


def test_every_parameter_reaches_the_measure(cli, generated):
    path = generated["v11_compact"]
    options = dict(rate=30.0, joint="IndexTip", fixation_velocity=50.0, merge_gap=0.2,
                   merge_angle=10.0, min_fixation=0.05)
    flags = [f"--{name.replace('_', '-')}={value}" for name, value in options.items()]
    got = inputanim.open(path).metrics(**options)
    assert_same_table(got, csv_table(cli, *flags, path))
    assert not got.equals(inputanim.open(path).metrics())


@pytest.mark.parametrize("kind", KINDS)
def test_events_are_the_commands(cli, generated_file, kind):
    rec = inputanim.open(generated_file)
    assert_same_table(rec.events(kind), csv_table(cli, "--events", kind, generated_file))


# The dtypes of each kind's columns (those of the frame built from the command's rows: str
# columns are object, times and durations float64, sample indices int64).
INTERVAL_DTYPES = {"start": "float64", "end": "float64", "duration": "float64",
                   "start_sample": "int64", "end_sample": "int64"}
EVENT_DTYPES = {
    "tracking": {"hand": "object", "event": "object", **INTERVAL_DTYPES},
    "pinch": {"hand": "object", **INTERVAL_DTYPES},
    "fixations": {**INTERVAL_DTYPES, **{f"{v}_{a}": "float64" for v in ("direction", "origin")
                                        for a in "xyz"}},
    "saccades": {**INTERVAL_DTYPES, "amplitude": "float64"},
}


@pytest.mark.parametrize("kind", KINDS)
def test_event_columns_have_fixed_dtypes_with_or_without_events(generated, kind):
    for name in ("v11_compact", "v11_hands_only"):
        frame = inputanim.open(generated[name]).events(kind)
        assert {c: str(t) for c, t in frame.dtypes.items()} == EVENT_DTYPES[kind], name
    assert len(inputanim.open(generated["v11_compact"]).events(kind)) > 0
    assert len(inputanim.open(generated["v11_hands_only"]).events("fixations")) == 0


def test_hand_and_event_columns_hold_strings(generated):
    frame = inputanim.open(generated["v11_compact"]).events("tracking")
    assert set(frame["hand"]) == {"left", "right"} and set(frame["event"]) == {"tracked"}
    assert all(type(v) is str for v in [*frame["hand"], *frame["event"]])


@pytest.fixture(scope="module")
def many_pinches(generated, tmp_path_factory):
    path = tmp_path_factory.mktemp("pinches") / "pinches.bin"
    return flipping_pinches(path, generated["v11_compact"], 100_000)


def test_events_are_columns_filled_by_the_library_not_an_object_per_event(cli, many_pinches):
    rec = inputanim.open(many_pinches)
    tracemalloc.start()
    try:
        frame = rec.events("pinch")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(frame) == 100_000
    # Python's and numpy's allocations while the frame was built: the hand column's references
    # (8 bytes an event) and little else. A dict per event took over 500 bytes an event.
    assert peak < 16 * len(frame), peak
    assert frame.iloc[-1].to_dict() == {"hand": "left", "start": 3333.3, "end": 3333.3167,
                                        "duration": 1 / 60, "start_sample": 199998,
                                        "end_sample": 199999}
    last = csv_table(cli, "--events", "pinch", many_pinches)[-1]
    assert [str(v) for v in frame.iloc[-1]] == [last[c] for c in frame.columns]


def test_tracking_events_with_gaps_are_the_commands(cli, tmp_path):
    # A minute of the generator's hands loses and finds each hand a few times.
    path = tmp_path / "minute.bin"
    run(cli, "gen", "-o", path, "--seconds", "60")
    frame = inputanim.open(path).events("tracking")
    assert set(frame["event"]) == {"tracked", "gap"} and set(frame["hand"]) == {"left", "right"}
    assert_same_table(frame, csv_table(cli, "--events", "tracking", path))


def test_a_recording_without_gaze_has_no_gaze_metrics(generated):
    rec = inputanim.open(generated["v11_hands_only"])
    row = rec.metrics().iloc[0]
    assert row["gaze_fixations"] is None
    assert len(rec.events("fixations")) == 0
    assert list(rec.events("fixations").columns)[-3:] == ["origin_x", "origin_y", "origin_z"]


def test_refused_parameters_raise_value_error(generated):
    rec = inputanim.open(generated["v11_compact"])
    with pytest.raises(ValueError):
        rec.metrics(rate=0)
    with pytest.raises(ValueError, match="no joint named"):
        rec.metrics(joint="Elbow")
    with pytest.raises(ValueError):
        rec.metrics(merge_angle=-1)
    with pytest.raises(ValueError):
        rec.metrics(max_samples=10)
    with pytest.raises(ValueError, match="kind must be"):
        rec.events("blinks")


def test_index_with_metrics_is_the_commands(cli, tree):
    expected = cli_rows(cli, "--metrics", tree)
    assert any(row.get("metrics") for row in expected)
    frame = inputanim.index(tree, metrics=True)
    assert list(frame.columns) == list(inputanim.INDEX_COLUMNS) + list(inputanim.METRICS_COLUMNS)
    assert_same_rows(frame, expected)


def test_dask_index_with_metrics_is_the_commands(cli, tree):
    distributed = pytest.importorskip("distributed")
    import inputanim.dask

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        frame = inputanim.dask.index(tree, client, partitions=2, metrics=True)
    assert_same_rows(frame, cli_rows(cli, "--metrics", tree))
