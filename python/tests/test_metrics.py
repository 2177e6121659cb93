"""Recording.metrics() and Recording.events() are `inputanim metrics --csv` and `inputanim
metrics --events KIND --csv`, value for value; index(metrics=True) is `inputanim index --metrics
--jsonl` row for row."""

import csv
import io
import math

import pytest

import inputanim
from conftest import assert_same_rows, cli_rows, run

KINDS = ["tracking", "pinch", "fixations", "saccades"]


def csv_table(cli, *args):
    text = run(cli, "metrics", "--csv", "--level", "structure", *map(str, args)).stdout
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
