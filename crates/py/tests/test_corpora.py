"""`dedupe` on the shared corpora (../shared/data, real near-duplicates with
exact ground truth) finds the pairs `simfind scan` finds on their files, with
the same similarities, and every true pair at the threshold; from several
Python threads at once, the same answer."""

import os
import pickle
import threading

import pytest

import simfind
from conftest import ROOT, csv_rows

DATA = ROOT.parent / "shared" / "data"
# The benchmark's recipe (bench/python_native.py): 20 bands of 5 rows at 0.8.
FLAGS = ["-k", "5", "-b", "20", "-r", "5", "-t", "0.8", "--method", "lsh", "--seed", "1"]
OPTIONS = dict(k=5, bands=20, rows=5, threshold=0.8, method="lsh", seed=1)


def corpus(name):
    root = DATA / f"{name}-docs" / "files"
    if not root.is_dir():
        pytest.skip(f"{root} is not there (the shared corpora)")
    names = sorted(
        os.path.relpath(os.path.join(d, f), root)
        for d, _, files in os.walk(root)
        for f in files
        if not os.path.islink(os.path.join(d, f))
    )
    texts = [(root / n).read_bytes().decode("utf-8", "replace") for n in names]
    return root, names, texts


@pytest.mark.parametrize("name", ["debian", "django"])
def test_dedupe_finds_what_scan_finds_on_the_files(simfind_bin, name):
    root, names, texts = corpus(name)
    rows = csv_rows(simfind_bin("scan", root, "-q", *FLAGS))[1:]
    position = {n: i for i, n in enumerate(names)}
    prefix = f"{root}/"
    expected = [
        (position[a[len(prefix):]], position[b[len(prefix):]], s)
        for a, b, s, *_ in rows
    ]
    pairs = simfind.dedupe(texts, **OPTIONS).pairs
    got = [
        (a, b, f"{s:.6f}")
        for a, b, s in zip(*(pairs.column(c).to_pylist() for c in pairs.column_names))
    ]
    assert got == sorted((min(a, b), max(a, b), s) for a, b, s in expected)
    # Every true pair at 0.8 (the corpus's exact truth) is found.
    truth = set()
    with open(DATA / f"{name}-docs" / "truth_char5.csv") as lines:
        next(lines)
        for line in lines:
            a, b, j = line.rstrip("\n").rsplit(",", 2)
            if float(j) >= 0.8:
                i, k = position[a], position[b]
                truth.add((min(i, k), max(i, k)))
    assert {(a, b) for a, b, _ in got} == truth


def test_threads_calling_at_once_get_the_answer_of_one_call(texts):
    alone = simfind.dedupe(texts, threshold=0.3, seed=5)
    answers = [None] * 4

    def call(i):
        answers[i] = simfind.dedupe(texts, threshold=0.3, seed=5, threads=1 + i % 2)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for found in answers:
        assert found.pairs.equals(alone.pairs) and found.keep.equals(alone.keep)


def test_results_pickle(texts):
    found = simfind.dedupe(texts, threshold=0.3)
    again = pickle.loads(pickle.dumps(found))
    assert again.pairs.equals(found.pairs)
    assert again.groups.equals(found.groups) and again.keep.equals(found.keep)
    assert repr(again) == repr(found)


def test_an_index_does_not_pickle(tmp_path):
    with simfind.Index(tmp_path / "i.simfind") as index:
        with pytest.raises(TypeError):
            pickle.dumps(index)
