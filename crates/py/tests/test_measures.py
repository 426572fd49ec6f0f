"""`shingles` and `jaccard` measure what `simfind compare` measures."""

import re

import pytest

import simfind
from conftest import csv_rows

A = "testdata/news/lighthouse.txt"
B = "testdata/news/lighthouse-edited.txt"


def compare(simfind_bin, *args):
    """`compare`'s rows as measure -> value."""
    return {row[0]: row[1] for row in csv_rows(simfind_bin("compare", *args))[1:]}


def test_version_is_the_crates(root):
    manifest = (root / "crates/py/Cargo.toml").read_text()
    package = manifest.split("[package]", 1)[1]
    assert simfind.__version__ == re.search(r'^version = "([^"]+)"', package, re.M)[1]


def test_jaccard_and_shingles_agree_with_compare(root, simfind_bin):
    a, b = (root / A).read_bytes(), (root / B).read_bytes()
    chars = compare(simfind_bin, A, B)
    assert f"{simfind.jaccard(a, b):.6f}" == chars["jaccard"]
    assert f"{simfind.jaccard(a.decode(), b.decode()):.6f}" == chars["jaccard"]
    assert str(len(simfind.shingles(a))) == chars["shingles_a"]
    words = compare(simfind_bin, A, B, "--shingle", "word", "-k", "3")
    assert f"{simfind.jaccard(a, b, shingle='word', k=3):.6f}" == words["jaccard"]
    # A near-duplicate pair, so that agreeing is not agreeing on 0 or 1.
    assert chars["jaccard"] != words["jaccard"]


def test_two_texts_shorter_than_a_shingle_have_no_jaccard():
    assert simfind.jaccard("abc", "abd") is None


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"k": 0}, ValueError, "k must be between 1 and 256, got 0"),
        ({"k": -1}, ValueError, "k must be between 1 and 256, got -1"),
        ({"k": "3"}, TypeError, "k must be an int, not str"),
        ({"shingle": "line"}, ValueError, "shingle must be one of char, word"),
    ],
)
def test_bad_options_name_the_argument(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        simfind.jaccard("one text", "another", **kwargs)


def test_an_item_that_is_not_text_is_named():
    with pytest.raises(TypeError, match=r"^b must be str or bytes, not int$"):
        simfind.jaccard("one text", 3)
