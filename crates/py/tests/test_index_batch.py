"""`Index.add_if_new` given a batch, and `Index.remove`, against a brute force
over `simfind.jaccard` (exact lookups, so the truth is exact too)."""

import random

import pytest

import simfind

T = 0.5


def corpus(seed=7, n=24):
    """Texts with near copies (90 % of a text) and far ones (a third of it),
    interleaved so a batch meets a copy after its original."""
    rng = random.Random(seed)

    def words(k):
        return " ".join("".join(rng.choice("abcdefghij") for _ in range(rng.randint(3, 8))) for _ in range(k))

    texts = {}
    for i in range(n):
        base = words(80)
        texts[f"t{i}"] = base
        if i % 3 == 0:
            cut = base.split(" ")
            texts[f"t{i}-near"] = " ".join(cut[: len(cut) * 9 // 10])
            texts[f"t{i}-far"] = " ".join(cut[: len(cut) // 3])
    return texts


def brute_force(items, indexed=()):
    """What add-if-new decides for each (id, text) in order: new unless
    something kept before it (in `indexed` or earlier in `items`) is ≥ T; its
    nearest the most similar (ties by id)."""
    kept = list(indexed)
    out = []
    for i, text in items:
        scored = sorted(((-simfind.jaccard(text, t), k) for k, t in kept if simfind.jaccard(text, t) >= T))
        if scored:
            out.append(simfind.Decision(False, i, scored[0][1], -scored[0][0]))
        else:
            out.append(simfind.Decision(True, i, None, None))
            kept.append((i, text))
    return out


def close(got, want):
    assert [(d.new, d.id, d.nearest) for d in got] == [(d.new, d.id, d.nearest) for d in want]
    for g, w in zip(got, want):
        assert (g.similarity is None) == (w.similarity is None)
        if w.similarity is not None:
            assert abs(g.similarity - w.similarity) < 1e-12


def test_a_batch_decides_as_the_brute_force(tmp_path):
    texts = corpus()
    items = list(texts.items())
    first, second = items[:10], items[10:]
    with simfind.Index(tmp_path / "a.simfind", threshold=T, seed=3) as index:
        got = index.add_if_new([t for _, t in first], ids=[i for i, _ in first], exact=True)
        want = brute_force(first)
        close(got, want)
        # The second batch sees what the first committed, and itself.
        kept = [(i, t) for (i, t), d in zip(first, want) if d.new]
        got = index.add_if_new((t for _, t in second), [i for i, _ in second], exact=True)
        want2 = brute_force(second, kept)
        close(got, want2)
        assert any(not d.new for d in want2) and any(d.new for d in want2)
        assert any(not d.new and d.nearest.startswith(d.id.split("-")[0]) for d in want2)
        assert len(index) == sum(d.new for d in want + want2)
    # The same decisions one text at a time: batching changes nothing.
    with simfind.Index(tmp_path / "b.simfind", threshold=T, seed=3) as index:
        one_by_one = [index.add_if_new(t, id=i, exact=True) for i, t in items]
    close(one_by_one, want + want2)


def test_a_batch_is_one_transaction(tmp_path):
    texts = list(corpus(n=6).values())
    with simfind.Index(tmp_path / "a.simfind", threshold=T) as index:
        index.insert(texts[:2], ids=["x", "y"])
        with pytest.raises(ValueError, match=r"texts\[2\].*binary.*nothing"):
            index.add_if_new(texts[2:4] + ["bin\0ary"] + texts[4:], exact=True)
        assert len(index) == 2
        with pytest.raises(ValueError, match="ids has 1 items for 2 texts"):
            index.add_if_new(texts[2:4], ids=["only"])
        with pytest.raises(TypeError, match=r"ids\[0\]|ids must be str"):
            index.add_if_new(texts[2:4], ids=[1, 2])
        with pytest.raises(TypeError):
            index.add_if_new("one text", ids=["a"])
        assert len(index) == 2
        # Default ids: content hashes, as for one text.
        got = index.add_if_new(texts[2:4])
        assert [d.id for d in got] == [index.add_if_new(t).id for t in texts[2:4]]
        assert index.add_if_new([]) == []


def test_remove_forgets_documents(tmp_path):
    texts = corpus(seed=9, n=9)
    with simfind.Index(tmp_path / "a.simfind", threshold=T, seed=1) as index:
        index.insert(list(texts.values()), ids=list(texts))
        n = len(index)
        gone = ["t0", "t0-near", "t3-near", "t6"]
        index.remove(gone)
        assert len(index) == n - 4
        left = {i: t for i, t in texts.items() if i not in gone}
        for qid in ("t0", "t3", "t6-far"):
            q = texts[qid]
            want = sorted(((-simfind.jaccard(q, t), i) for i, t in left.items() if simfind.jaccard(q, t) >= T))
            assert [i for i, _ in index.query(q, exact=True)] == [i for _, i in want]
        # t0 and its near copy are gone: t0 is new again.
        assert index.add_if_new(texts["t0"], id="t0", exact=True).new
        index.remove("t0")
        # An id it does not hold: a KeyError, and nothing removed.
        with pytest.raises(KeyError, match="t0"):
            index.remove(["t1", "t0"])
        assert len(index) == n - 4
        assert index.query(texts["t1"], exact=True)[0] == ("t1", 1.0)
        with pytest.raises(TypeError):
            index.remove([3])
    # The command sees the removal too (the same file).
    with simfind.Index(tmp_path / "a.simfind") as index:
        assert len(index) == n - 4
