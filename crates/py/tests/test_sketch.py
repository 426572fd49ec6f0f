"""`minhash`: signatures as numpy arrays, the values `simfind sign` writes,
picklable sketches whose estimate is close to the exact Jaccard."""

import json
import math
import pickle

import numpy as np
import pyarrow.parquet as pq
import pytest

import simfind


def test_signatures_are_a_2d_uint32_array(texts):
    signatures = simfind.minhash(texts[:10], bands=16, rows=4, seed=3)
    assert signatures.values.dtype == np.uint32
    assert signatures.values.shape == (10, 64)
    assert len(signatures) == 10
    assert signatures.recipe == {
        "shingle": "char", "k": 5, "seed": 3, "sketch": signatures.recipe["sketch"],
        "bands": 16, "rows": 4,
    }
    assert repr(signatures).startswith("Signatures(10 texts x 64 values")


@pytest.mark.parametrize("sketch", ["classic", "oph", "block"])
def test_signatures_equal_what_sign_writes(tmp_path, simfind_bin, texts, sketch):
    texts = texts + ["", "abc"]  # two texts with no shingle: no signature row
    jsonl = tmp_path / "texts.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts)),
        encoding="utf-8",
    )
    out = tmp_path / "signed"
    simfind_bin("sign", "--input", "jsonl", jsonl, "--out", out, "-q",
                "-b", "20", "-r", "5", "--seed", "11", "--minhash", sketch)
    table = pq.read_table(out / "signatures").sort_by("doc_id")
    signatures = simfind.minhash(texts, bands=20, rows=5, seed=11, sketch=sketch)
    assert signatures.recipe["sketch"] == sketch
    ids = table.column("doc_id").to_pylist()
    assert ids == [i for i in range(len(texts)) if not signatures.empty[i]]
    assert list(np.flatnonzero(signatures.empty)) == [len(texts) - 2, len(texts) - 1]
    written = np.array(table.column("signature").to_pylist(), dtype=np.int32).view(np.uint32)
    assert np.array_equal(signatures.values[ids], written)


def test_the_estimate_is_within_the_binomial_margin(texts):
    n = 256
    signatures = simfind.minhash(texts, bands=64, rows=4, seed=42, sketch="classic")
    checked = 0
    for i in range(0, len(texts) - 1):
        j = i + 1
        exact = simfind.jaccard(texts[i], texts[j])
        if exact is None or signatures.empty[i] or signatures.empty[j]:
            continue
        estimate = signatures[i].jaccard(signatures[j])
        # n independent positions, each agreeing with probability `exact`.
        margin = 4 * math.sqrt(exact * (1 - exact) / n) + 1 / n
        assert abs(estimate - exact) <= margin, (i, j, exact, estimate)
        checked += 1
    assert checked > 10


def test_sketches_and_signatures_pickle(texts):
    signatures = simfind.minhash(texts[:5], bands=8, rows=4, seed=1)
    again = pickle.loads(pickle.dumps(signatures))
    assert np.array_equal(again.values, signatures.values)
    assert again.recipe == signatures.recipe
    sketch = signatures[2]
    copy = pickle.loads(pickle.dumps(sketch))
    assert copy == sketch
    assert copy.jaccard(sketch) == 1.0


def test_sketches_of_different_recipes_are_not_compared():
    a = simfind.minhash(["one text here"], bands=8, rows=4, seed=1)[0]
    b = simfind.minhash(["one text here"], bands=8, rows=4, seed=2)[0]
    with pytest.raises(ValueError, match="different recipes"):
        a.jaccard(b)


def test_a_text_with_no_shingle_has_no_estimate():
    signatures = simfind.minhash(["", "one text here"], bands=8, rows=4)
    assert signatures[0].values is None
    assert signatures[0].jaccard(signatures[1]) is None
    assert list(signatures.empty) == [True, False]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"sketch": "fast"}, ValueError, "sketch must be one of classic, oph, block"),
        ({"k": -1}, ValueError, "k must be a non-negative int"),
        ({"seed": "1"}, TypeError, "seed must be an int, not str"),
        ({"threads": 0}, ValueError, "threads must be at least 1, got 0"),
    ],
)
def test_bad_options_name_the_argument(kwargs, error, message):
    with pytest.raises(error, match=message):
        simfind.minhash(["a text"], **kwargs)


def test_signatures_do_not_depend_on_threads(texts):
    one = simfind.minhash(texts, bands=8, rows=4, seed=9, threads=1)
    two = simfind.minhash(texts, bands=8, rows=4, seed=9, threads=2)
    assert np.array_equal(one.values, two.values)
