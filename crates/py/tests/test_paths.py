"""`dedupe` and `minhash` read Parquet and JSON Lines files given by path, and
a Hugging Face dataset's column."""

import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import simfind

TEXTS = ["one text here", None, "another text", "one text here", "a third one"]
GOOD = [t for t in TEXTS if t is not None]


def write_parquet(path, texts, row_group_size=2, **kwargs):
    table = pa.table({"id": list(range(len(texts))), "body": pa.array(texts, **kwargs)})
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


def write_jsonl(path, texts):
    path.write_text("".join(json.dumps({"id": i, "body": t}) + "\n" for i, t in enumerate(texts)))
    return path


@pytest.mark.parametrize("as_str", [False, True], ids=["path", "str"])
def test_a_parquet_file_by_row_group(tmp_path, as_str):
    path = write_parquet(tmp_path / "t.parquet", GOOD)
    assert pq.ParquetFile(path).num_row_groups > 1
    found = simfind.dedupe(str(path) if as_str else path, column="body")
    assert found.keep.to_pylist() == simfind.dedupe(GOOD).keep.to_pylist()
    assert found.pairs.num_rows == 1


@pytest.mark.parametrize(
    "kwargs",
    [{"type": pa.large_string()}, {"type": pa.dictionary(pa.int32(), pa.string())}],
    ids=["large_string", "dictionary"],
)
def test_parquet_string_encodings(tmp_path, kwargs):
    path = write_parquet(tmp_path / "t.parquet", GOOD, **kwargs)
    assert simfind.dedupe(path, column="body").pairs.num_rows == 1


def test_several_files_are_one_collection_in_order(tmp_path):
    a = write_parquet(tmp_path / "a.parquet", GOOD[:2])
    b = write_jsonl(tmp_path / "b.jsonl", GOOD[2:])
    found = simfind.dedupe([a, b], column="body")
    assert found.pairs.to_pylist() == simfind.dedupe(GOOD).pairs.to_pylist()
    assert found.pairs.num_rows == 1
    signatures = simfind.minhash([str(a), str(b)], column="body", bands=4, rows=2)
    assert len(signatures) == len(GOOD)


def test_a_missing_value_in_a_file_is_named_by_position(tmp_path):
    path = write_parquet(tmp_path / "t.parquet", TEXTS)
    with pytest.raises(ValueError, match=r"texts\[1\] is a missing value"):
        simfind.dedupe(path, column="body")


def test_bad_paths_and_columns(tmp_path):
    parquet = write_parquet(tmp_path / "t.parquet", GOOD)
    jsonl = write_jsonl(tmp_path / "t.jsonl", GOOD)
    with pytest.raises(KeyError, match=r"column 'text' is not in .*t.parquet \(it has id, body\)"):
        simfind.dedupe(parquet, column="text")
    with pytest.raises(KeyError, match=r"t.jsonl:1: the record has no field 'text'"):
        simfind.dedupe(jsonl, column="text")
    with pytest.raises(TypeError, match="name their text column with column="):
        simfind.dedupe(parquet)
    with pytest.raises(FileNotFoundError):
        simfind.dedupe(tmp_path / "absent.jsonl", column="body")
    with pytest.raises(ValueError, match="not a Parquet"):
        simfind.dedupe(tmp_path / "t.csv", column="body")


def test_jsonl_agrees_with_scan(simfind_bin, tmp_path, texts):
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts)))
    cli = simfind_bin("scan", "--input", "jsonl", path, "-q", "-t", "0.3").decode().splitlines()[1:]
    found = simfind.dedupe(path, column="text", threshold=0.3).pairs
    got = [f"{a},{b},{s:.6f}" for a, b, s in zip(*(found.column(c).to_pylist() for c in ("left", "right", "similarity")))]
    assert got == [",".join(row.split(",")[:3]) for row in cli]


def test_a_hugging_face_dataset_column():
    datasets = pytest.importorskip("datasets")
    dataset = datasets.Dataset.from_dict({"body": GOOD})
    assert simfind.dedupe(dataset, column="body").pairs.num_rows == 1
    with pytest.raises(KeyError, match="column 'text' is not in the dataset"):
        simfind.dedupe(dataset, column="text")
