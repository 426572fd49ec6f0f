"""`dedupe` finds the pairs `simfind scan --input jsonl` finds, and takes the
collections a Python user holds texts in."""

import pyarrow as pa
import pytest

import simfind
from conftest import csv_rows

RUNS = [
    (["-t", "0.3"], {"threshold": 0.3}),
    (
        ["-t", "0.2", "--shingle", "word", "-k", "2"],
        {"threshold": 0.2, "shingle": "word", "k": 2},
    ),
    (
        ["-t", "0.5", "--method", "lsh", "--seed", "7"],
        {"threshold": 0.5, "method": "lsh", "seed": 7, "threads": 1},
    ),
]


def rows_of(pairs):
    """A pairs table as the command's first three CSV columns."""
    columns = (pairs.column(c).to_pylist() for c in ("left", "right", "similarity"))
    return [f"{a},{b},{s:.6f}" for a, b, s in zip(*columns)]


@pytest.mark.parametrize("flags, options", RUNS, ids=["char", "word", "lsh"])
def test_dedupe_finds_the_pairs_scan_finds(simfind_bin, texts, texts_jsonl, flags, options):
    cli = csv_rows(simfind_bin("scan", "--input", "jsonl", texts_jsonl, "-q", *flags))
    expected = [",".join(row[:3]) for row in cli[1:]]
    assert expected, "the corpus has pairs"
    assert rows_of(simfind.dedupe(texts, **options).pairs) == expected


def test_the_answer_does_not_depend_on_threads(texts):
    one = simfind.dedupe(texts, threshold=0.3, method="lsh", seed=3, threads=1)
    two = simfind.dedupe(texts, threshold=0.3, method="lsh", seed=3, threads=2)
    assert one.pairs.equals(two.pairs)
    assert one.keep.equals(two.keep)


def test_groups_and_keep_are_aligned_with_the_input():
    found = simfind.dedupe(["one text", "another", "one text"])
    assert found.groups.to_pylist() == [0, None, 0]
    assert found.keep.to_pylist() == [True, True, False]
    assert found.pairs.column_names == ["left", "right", "similarity"]
    assert repr(found) == "Duplicates(1 pairs, 3 texts, 1 removable)"


@pytest.mark.parametrize(
    "keep, expected",
    [("first", [True, False]), ("largest", [False, True]), ("smallest", [True, False])],
)
def test_the_keep_policy_picks_the_text_kept(keep, expected):
    short = "the quick brown fox jumps over the lazy dog"
    found = simfind.dedupe([short, short + " again"], threshold=0.5, keep=keep)
    assert found.pairs.num_rows == 1
    assert found.keep.to_pylist() == expected


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t,
        lambda t: iter(t),
        lambda t: (x for x in t),
        lambda t: tuple(t),
        lambda t: [x.encode() for x in t],
        lambda t: pa.array(t),
        lambda t: pa.array(t, pa.large_string()),
        lambda t: pa.array(t).dictionary_encode(),
        lambda t: pa.chunked_array([t[:1], t[1:]]),
        lambda t: pa.array([x.encode() for x in t], pa.binary()),
    ],
    ids=[
        "list", "iterator", "generator", "tuple", "bytes", "arrow", "large_string",
        "dictionary", "chunked", "binary",
    ],
)
def test_every_kind_of_collection_gives_the_same_answer(make):
    texts = ["one text", "another", "one text"]
    found = simfind.dedupe(make(texts))
    assert found.keep.to_pylist() == [True, True, False]


def test_a_table_column_is_named_with_column():
    table = pa.table({"id": [1, 2, 3], "body": ["one text", "another", "one text"]})
    assert simfind.dedupe(table, column="body").keep.to_pylist() == [True, True, False]


def test_pandas_series_and_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"body": ["one text", "another", "one text"]})
    assert simfind.dedupe(frame["body"]).keep.to_pylist() == [True, True, False]
    assert simfind.dedupe(frame, column="body").keep.to_pylist() == [True, True, False]
    # Arrow-backed strings, as pandas 3 makes them by default.
    series = frame["body"].astype("string[pyarrow]")
    assert simfind.dedupe(series).keep.to_pylist() == [True, True, False]
    # The keep mask filters the frame it came from.
    kept = frame[simfind.dedupe(frame, column="body").keep.to_numpy(zero_copy_only=False)]
    assert kept["body"].tolist() == ["one text", "another"]


def test_an_empty_collection_has_no_pairs():
    found = simfind.dedupe([])
    assert found.pairs.num_rows == 0
    assert len(found.keep) == 0 and len(found.groups) == 0
