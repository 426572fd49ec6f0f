"""The code of docs/PYTHON.md's migration sections runs as written: every
```python block under "Migration from rensa" and "Migration from datasketch",
each section's blocks in order in one namespace, given what the prose
assumes (`texts`, a `stream` of (key, text), `publish`, a datasketch pickle
`minhash.pkl`)."""

import pickle
import re

import pytest

from conftest import ROOT
from conftest import testdata_texts as corpus

DOC = ROOT / "docs" / "PYTHON.md"


def blocks_under(heading):
    """The ```python blocks of the section whose heading contains `heading`
    (up to the next heading of the same or a higher level; a `#` line in a
    code block is no heading)."""
    headings, fenced = [], False
    lines = DOC.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#+ ", line):
            headings.append((i, len(line) - len(line.lstrip("#")), line))
    at = next(k for k, (_, _, line) in enumerate(headings) if heading in line)
    start, level, _ = headings[at]
    end = next((i for i, lv, _ in headings[at + 1 :] if lv <= level), len(lines))
    section = "\n".join(lines[start:end])
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def namespace():
    texts = corpus()
    published = []
    return {
        "texts": texts,
        "stream": [(str(i), t) for i, t in enumerate(texts)],
        "publish": published.append,
        "published": published,
    }


def test_the_rensa_migration_runs(tmp_path, monkeypatch):
    pytest.importorskip("rensa")
    monkeypatch.chdir(tmp_path)
    blocks = blocks_under("Migration from rensa")
    assert len(blocks) == 2
    ns = namespace()
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), ns)
    texts = ns["texts"]
    # What the doc says of simfind's answer: its similarities are exact.
    import simfind

    pairs = ns["found"].pairs
    for left, right, similarity in zip(*(pairs.column(c).to_pylist() for c in pairs.column_names)):
        exact = simfind.jaccard(texts[left], texts[right], shingle="word", k=1)
        assert similarity == exact >= 0.8
    assert ns["found"].pairs.num_rows > 0
    assert ns["signatures"].values.shape == (len(texts), 128)
    # The stream is published once by rensa's loop and once by simfind's.
    assert 0 < len(ns["published"]) < 2 * len(texts)


def test_the_datasketch_migration_runs(tmp_path, monkeypatch):
    datasketch = pytest.importorskip("datasketch")
    import simfind
    import simfind.datasketch

    monkeypatch.chdir(tmp_path)
    theirs = datasketch.MinHash(num_perm=128, seed=1)
    theirs.update_batch([b"a", b"b", b"c"])
    with open("minhash.pkl", "wb") as out:
        pickle.dump(theirs, out)
    blocks = blocks_under("Migration from datasketch")
    assert len(blocks) == 2
    ns = namespace()
    ns.update(simfind=simfind, pickle=pickle)
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), ns)
    assert 0 in ns["lsh"].query(ns["signatures"][0])
    assert type(ns["m"]) is simfind.datasketch.MinHash
    assert (ns["m"].hashvalues == theirs.hashvalues).all()
