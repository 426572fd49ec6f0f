"""simfind.datasketch against the package it replaces, datasketch 2.0.0
(scripts/engines-requirements.txt pins it into the tests' venv).

Differential: the same inputs given to both, and what each returns compared
exactly (hash values, Jaccard estimates, LSH answers as sets, bands and rows,
the LeanMinHash bytes, the exception types of bad input). Inputs are generated
with fixed seeds, and real: the paragraphs of testdata/ and, when the shared
corpora are beside the project, django-docs files.
"""

import pathlib
import pickle
import random
import sys
import threading
import types

import numpy as np
import pytest

ds = pytest.importorskip("datasketch", reason="datasketch is not installed (scripts/engines-requirements.txt)")
import datasketch.lsh  # noqa: E402

import simfind.datasketch as sd  # noqa: E402

import conftest  # noqa: E402

SCHEMES = ["affine32", "affine64", "legacy"]


def test_the_pinned_version_is_the_one_compared_with():
    from importlib.metadata import version

    assert version("datasketch") == "2.0.0"


def words(rng, n, vocabulary=3000):
    return [f"w{rng.randrange(vocabulary)}".encode() for _ in range(n)]


def shingles(text, k=3):
    """The word k-grams of `text` as bytes: the tokens a datasketch user feeds."""
    ws = text.lower().split()
    return [" ".join(ws[i : i + k]).encode() for i in range(max(len(ws) - k + 1, 1))] if ws else []


def same(ours, theirs):
    assert ours.hashvalues.dtype == theirs.hashvalues.dtype
    assert np.array_equal(ours.hashvalues, theirs.hashvalues)
    assert ours.seed == theirs.seed and ours.scheme == theirs.scheme and len(ours) == len(theirs)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("seed,num_perm", [(1, 128), (7, 16), (123456, 256), (0, 1)])
def test_hashvalues_equal_datasketchs(scheme, seed, num_perm):
    rng = random.Random(seed)
    tokens = words(rng, 3000)
    ours = sd.MinHash(num_perm=num_perm, seed=seed, scheme=scheme)
    theirs = ds.MinHash(num_perm=num_perm, seed=seed, scheme=scheme)
    same(ours, theirs)  # empty
    assert ours.is_empty() and theirs.is_empty()
    assert np.array_equal(ours.permutations, theirs.permutations)
    ours.update_batch(tokens[:1500])
    theirs.update_batch(tokens[:1500])
    same(ours, theirs)
    # One token at a time, a generator, a bytearray: the same values.
    for t in tokens[1500:1600]:
        ours.update(t)
        theirs.update(t)
    ours.update_batch(t for t in tokens[1600:])
    theirs.update_batch(t for t in tokens[1600:])
    ours.update(bytearray(b"a bytearray"))
    theirs.update(bytearray(b"a bytearray"))
    same(ours, theirs)
    assert not ours.is_empty()
    assert ours.count() == theirs.count()
    assert np.array_equal(ours.digest(), theirs.digest())


def test_legacy_is_datasketch_1x():
    """The values datasketch 1.10's own test_byte_tokens asserts for
    MinHash(4, 1) after update(b"Hello") (1.x had only this scheme)."""
    m = sd.MinHash(4, 1, scheme="legacy")
    m.update(b"Hello")
    assert m.hashvalues.tolist() == [734825475, 960773806, 359816889, 342714745]
    # 2.0's default differs: this is why 1.x users need scheme="legacy".
    assert sd.MinHash(4, 1).hashvalues.dtype == np.uint32


@pytest.mark.parametrize("scheme", SCHEMES)
def test_tokens_of_every_length_up_to_three_sha1_blocks(scheme):
    """Empty tokens, and lengths across SHA-1's block and padding edges."""
    for n in range(0, 200):
        token = bytes((7 * i + n) % 256 for i in range(n))
        ours, theirs = sd.MinHash(num_perm=8, scheme=scheme), ds.MinHash(num_perm=8, scheme=scheme)
        ours.update_batch([token])
        theirs.update_batch([token])
        same(ours, theirs)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_baseline_kernel_gives_the_vector_kernels_values(scheme):
    """The kernel picks AVX2 / AVX-512 loops where the CPU has them; the
    baseline loops (every other CPU) must give the same values."""
    from simfind._simfind import _ds_sign

    m = sd.MinHash(num_perm=100, seed=3, scheme=scheme)
    a, b = m._perm_bytes()
    rng = random.Random(8)
    sets = [words(rng, n) for n in (0, 1, 7, 2000)]
    fast = _ds_sign(sets, scheme, a, b, 100)
    assert fast == _ds_sign(sets, scheme, a, b, 100, portable=True)
    want = ds.MinHash.bulk(sets, num_perm=100, seed=3, scheme=scheme)
    got = np.frombuffer(fast, dtype=want[0].hashvalues.dtype).reshape(len(sets), 100)
    assert all(np.array_equal(g, w.hashvalues) for g, w in zip(got, want))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_python_hashfunc_gives_datasketchs_values(scheme):
    """Ints through the identity (datasketch's own tests do this), and a
    hash of str: the values are permuted in numpy, as datasketch does."""
    rng = np.random.RandomState(3)
    ints = rng.randint(0, 2**32, 500)
    ours = sd.MinHash(seed=5, scheme=scheme, hashfunc=lambda x: x)
    theirs = ds.MinHash(seed=5, scheme=scheme, hashfunc=lambda x: x)
    ours.update_batch(ints)
    theirs.update_batch(ints)
    for v in ints[:20]:
        ours.update(int(v))
        theirs.update(int(v))
    same(ours, theirs)

    def h(s):
        return sum(map(ord, s)) * 2654435761 % 2**32

    ours = sd.MinHash(seed=9, scheme=scheme, hashfunc=h)
    theirs = ds.MinHash(seed=9, scheme=scheme, hashfunc=h)
    ours.update_batch(["abc", "def", "zzz"])
    theirs.update_batch(["abc", "def", "zzz"])
    same(ours, theirs)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_bulk_and_generator_equal_datasketchs(scheme):
    rng = random.Random(11)
    sets = [words(rng, rng.randrange(0, 300), 400) for _ in range(300)]
    ours = sd.MinHash.bulk(sets, num_perm=64, seed=4, scheme=scheme)
    theirs = ds.MinHash.bulk(sets, num_perm=64, seed=4, scheme=scheme)
    assert len(ours) == len(theirs) == len(sets)
    for o, t in zip(ours, theirs):
        same(o, t)
        assert type(o) is sd.MinHash
    # More sets than one native call takes, read lazily from a generator.
    many = (words(random.Random(i), 5, 50) for i in range(sd.MinHash._CHUNK + 10))
    got = sd.MinHash.generator(many, num_perm=32, seed=2, scheme=scheme)
    want = ds.MinHash.generator((words(random.Random(i), 5, 50) for i in range(sd.MinHash._CHUNK + 10)), num_perm=32, seed=2, scheme=scheme)
    n = 0
    for o, t in zip(got, want):
        same(o, t)
        n += 1
    assert n == sd.MinHash._CHUNK + 10
    # Each MinHash of a bulk is its own: updating one leaves the others.
    before = ours[1].digest()
    ours[0].update(b"another token")
    assert np.array_equal(ours[1].hashvalues, before)


def real_texts():
    texts = [t for t in conftest.testdata_texts() if len(t.split()) >= 5]
    corpus = conftest.ROOT.parent / "shared" / "data" / "django-docs" / "files"
    if corpus.is_dir():
        # Two releases of the same docs: many near-copies, some identical.
        for release in sorted(p for p in corpus.iterdir() if p.is_dir())[:2]:
            files = sorted((release / "docs" / "ref").rglob("*.txt"))[:60]
            texts.extend(f.read_text(encoding="utf-8", errors="replace") for f in files)
    return texts


@pytest.mark.parametrize("scheme", ["affine32", "legacy"])
def test_real_texts_give_the_same_estimates_and_lsh_answers(scheme):
    texts = real_texts()
    sets = [shingles(t) for t in texts]
    ours = sd.MinHash.bulk(sets, num_perm=128, seed=1, scheme=scheme)
    theirs = ds.MinHash.bulk(sets, num_perm=128, seed=1, scheme=scheme)
    for o, t in zip(ours, theirs):
        same(o, t)
    rng = random.Random(2)
    for _ in range(300):
        i, j = rng.randrange(len(texts)), rng.randrange(len(texts))
        assert ours[i].jaccard(ours[j]) == theirs[i].jaccard(theirs[j])
    for threshold in (0.3, 0.5, 0.8):
        lo = sd.MinHashLSH(threshold=threshold, num_perm=128)
        lt = ds.MinHashLSH(threshold=threshold, num_perm=128)
        assert (lo.b, lo.r) == (lt.b, lt.r)
        for i, (o, t) in enumerate(zip(ours, theirs)):
            lo.insert(f"t{i}", o)
            lt.insert(f"t{i}", t)
        found = 0
        for o, t in zip(ours, theirs):
            answer = set(lo.query(o))
            assert answer == set(lt.query(t))
            found += len(answer) > 1
        # Not a vacuous comparison: near copies were found.
        assert found > 0, threshold
        assert lo.get_counts() == lt.get_counts()
        # Removing half: the answers still agree.
        for i in range(0, len(texts), 2):
            lo.remove(f"t{i}")
            lt.remove(f"t{i}")
            assert f"t{i}" not in lo
        for o, t in zip(ours, theirs):
            assert set(lo.query(o)) == set(lt.query(t))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_band_keys_are_datasketchs(scheme):
    m = sd.MinHash(num_perm=32, seed=3, scheme=scheme)
    m.update_batch(words(random.Random(1), 50))
    t = ds.MinHash(num_perm=32, seed=3, scheme=scheme)
    t.update_batch(words(random.Random(1), 50))
    lo, lt = sd.MinHashLSH(params=(8, 4), num_perm=32), ds.MinHashLSH(params=(8, 4), num_perm=32)
    lo.insert("k", m)
    lt.insert("k", t)
    assert lo.keys["k"] == list(lt.keys.get("k"))
    assert [dict(h) for h in lo.hashtables] == [dict(h._dict) for h in lt.hashtables]
    assert lo._H(m.hashvalues[0:4]) == lt._H(t.hashvalues[0:4])


def test_bands_and_rows_are_datasketchs_for_every_threshold(monkeypatch):
    grid = [(t, n, w) for n in (16, 64, 128, 256) for t in np.round(np.arange(0.1, 1.0, 0.1), 2) for w in ((0.5, 0.5), (0.3, 0.7))]
    for t, n, w in grid:
        assert sd._optimal_param(float(t), n, *w) == datasketch.lsh._optimal_param(float(t), n, *w), (t, n, w)
    # Without scipy the areas are Gauss-Legendre's (exact for these
    # polynomials): the same choices.
    sd._optimal_param.cache_clear()
    monkeypatch.setitem(sys.modules, "scipy.integrate", None)
    try:
        for t, n, w in grid[::3]:
            assert sd._optimal_param(float(t), n, *w) == datasketch.lsh._optimal_param(float(t), n, *w), (t, n, w)
    finally:
        sd._optimal_param.cache_clear()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_lean_minhash_bytes_are_datasketchs(scheme):
    tokens = words(random.Random(4), 200)
    m, t = sd.MinHash(seed=2, scheme=scheme), ds.MinHash(seed=2, scheme=scheme)
    m.update_batch(tokens)
    t.update_batch(tokens)
    lo, lt = sd.LeanMinHash(m), ds.LeanMinHash(t)
    assert lo.bytesize() == lt.bytesize()
    for order in "@<>!":
        bo, bt = bytearray(lo.bytesize(order)), bytearray(lt.bytesize(order))
        lo.serialize(bo, order)
        lt.serialize(bt, order)
        assert bo == bt, order
        # Each reads the other's bytes.
        same(sd.LeanMinHash.deserialize(bt, order), ds.LeanMinHash.deserialize(bo, order))
    assert lo.jaccard(m) == 1.0 and hash(lo) == hash(lo.copy())
    assert lo.count() == lt.count()
    assert pickle.loads(pickle.dumps(lo)) == lo
    # The pickled state is datasketch's LeanMinHash state.
    assert lo.__getstate__() == lt.__getstate__()


def test_pickles_round_trip_as_ours():
    m = sd.MinHash(num_perm=64, seed=8)
    m.update_batch(words(random.Random(5), 100))
    again = pickle.loads(pickle.dumps(m))
    assert type(again) is sd.MinHash and again == m
    again.update(b"more")  # still updatable, with the same permutations
    m.update(b"more")
    assert again == m
    lsh = sd.MinHashLSH(threshold=0.5, num_perm=64)
    lsh.insert("a", m)
    lsh2 = pickle.loads(pickle.dumps(lsh))
    assert type(lsh2) is sd.MinHashLSH and lsh2.query(m) == ["a"] and "a" in lsh2
    # A datasketch pickle, whose state has the same names, loads as ours
    # through an unpickler that maps its classes (docs/PYTHON.md).
    t = ds.MinHash(num_perm=64, seed=8)
    t.update_batch(words(random.Random(5), 100))

    class Unpickler(pickle.Unpickler):
        def find_class(self, module, name):
            if module.startswith("datasketch"):
                return getattr(sd, name)
            return super().find_class(module, name)

    import io

    mapped = Unpickler(io.BytesIO(pickle.dumps(t))).load()
    assert type(mapped) is sd.MinHash and np.array_equal(mapped.hashvalues, t.hashvalues)
    mapped.update(b"more")
    t.update(b"more")
    assert np.array_equal(mapped.hashvalues, t.hashvalues)


def raises_alike(ours, theirs):
    """Both calls raise, and an exception of the same type."""
    with pytest.raises(Exception) as o:
        ours()
    with pytest.raises(Exception) as t:
        theirs()
    assert type(o.value) is type(t.value), (o.value, t.value)


def test_bad_input_raises_what_datasketch_raises():
    # The same objects on both sides, named alike: o.m is ours, t.m theirs.
    o, t = types.SimpleNamespace(), types.SimpleNamespace()
    for side, mod in ((o, sd), (t, ds)):
        side.m = mod.MinHash(seed=1)
        side.m.update(b"x")
    raises_alike(lambda: o.m.update("a str"), lambda: t.m.update("a str"))
    raises_alike(lambda: o.m.update(None), lambda: t.m.update(None))
    before = o.m.digest()
    raises_alike(lambda: o.m.update_batch([b"a", 3, b"c"]), lambda: t.m.update_batch([b"a", 3, b"c"]))
    assert np.array_equal(o.m.hashvalues, before)  # nothing of the batch was added
    raises_alike(lambda: sd.MinHash(hashvalues=[1, 2]), lambda: ds.MinHash(hashvalues=[1, 2]))
    raises_alike(lambda: sd.MinHash(num_perm=0), lambda: ds.MinHash(num_perm=0))
    raises_alike(lambda: sd.MinHash(scheme="fast"), lambda: ds.MinHash(scheme="fast"))
    raises_alike(lambda: sd.MinHash(hashfunc=3), lambda: ds.MinHash(hashfunc=3))
    raises_alike(lambda: o.m.jaccard(sd.MinHash(seed=2)), lambda: t.m.jaccard(ds.MinHash(seed=2)))
    raises_alike(lambda: o.m.merge(sd.MinHash(num_perm=4)), lambda: t.m.merge(ds.MinHash(num_perm=4)))
    raises_alike(
        lambda: o.m.jaccard(sd.MinHash(scheme="legacy")), lambda: t.m.jaccard(ds.MinHash(scheme="legacy"))
    )
    raises_alike(lambda: sd.MinHash.union(o.m), lambda: ds.MinHash.union(t.m))
    raises_alike(lambda: sd.LeanMinHash(o.m).update(b"x"), lambda: ds.LeanMinHash(t.m).update(b"x"))
    raises_alike(lambda: sd.LeanMinHash(seed=1, hashvalues=[1]), lambda: ds.LeanMinHash(seed=1, hashvalues=[1]))
    raises_alike(lambda: sd.MinHash(gpu_mode="always").update_batch([b"x"]), lambda: ds.MinHash(gpu_mode="always").update_batch([b"x"]))
    raises_alike(lambda: sd.MinHash(scheme="affine32", hashfunc=lambda x: 2**40).update(b"x"),
                 lambda: ds.MinHash(scheme="affine32", hashfunc=lambda x: 2**40).update(b"x"))
    raises_alike(lambda: sd.MinHashLSH(threshold=1.5), lambda: ds.MinHashLSH(threshold=1.5))
    raises_alike(lambda: sd.MinHashLSH(num_perm=1), lambda: ds.MinHashLSH(num_perm=1))
    raises_alike(lambda: sd.MinHashLSH(weights=(0.5, 0.6)), lambda: ds.MinHashLSH(weights=(0.5, 0.6)))
    raises_alike(lambda: sd.MinHashLSH(params=(20, 20)), lambda: ds.MinHashLSH(params=(20, 20)))
    for side, mod in ((o, sd), (t, ds)):
        side.lsh = mod.MinHashLSH(threshold=0.5)
        side.lsh.insert("a", side.m)
    raises_alike(lambda: o.lsh.insert("a", o.m), lambda: t.lsh.insert("a", t.m))
    raises_alike(lambda: o.lsh.insert("b", sd.MinHash(num_perm=64)), lambda: t.lsh.insert("b", ds.MinHash(num_perm=64)))
    raises_alike(lambda: o.lsh.query(sd.MinHash(scheme="legacy")), lambda: t.lsh.query(ds.MinHash(scheme="legacy")))
    raises_alike(lambda: o.lsh.remove("zz"), lambda: t.lsh.remove("zz"))
    # Only the in-memory storage: another is refused before any work.
    with pytest.raises(ValueError, match="storage_config"):
        sd.MinHashLSH(storage_config={"type": "redis", "redis": {}})


def test_sessions_merge_and_buffered_queries_agree():
    rng = random.Random(6)
    sets = [words(rng, 40, 200) for _ in range(60)]
    ours = sd.MinHash.bulk(sets, num_perm=64)
    theirs = ds.MinHash.bulk(sets, num_perm=64)
    lo, lt = sd.MinHashLSH(threshold=0.3, num_perm=64), ds.MinHashLSH(threshold=0.3, num_perm=64)
    with lo.insertion_session() as so, lt.insertion_session() as st:
        for i in range(30):
            so.insert(i, ours[i])
            st.insert(i, theirs[i])
    lo2, lt2 = sd.MinHashLSH(threshold=0.3, num_perm=64), ds.MinHashLSH(threshold=0.3, num_perm=64)
    for i in range(30, 60):
        lo2.insert(i, ours[i])
        lt2.insert(i, theirs[i])
    lo.merge(lo2)
    lt.merge(lt2)
    for o, t in zip(ours, theirs):
        assert set(lo.query(o)) == set(lt.query(t))
    for o, t in zip(ours[:3], theirs[:3]):
        lo.add_to_query_buffer(o)
        lt.add_to_query_buffer(t)
    assert set(lo.collect_query_buffer()) == set(lt.collect_query_buffer())
    with lo.deletion_session() as so, lt.deletion_session() as st:
        for i in range(0, 60, 3):
            so.remove(i)
            st.remove(i)
    for o, t in zip(ours, theirs):
        assert set(lo.query(o)) == set(lt.query(t))
    assert lo.is_empty() == lt.is_empty()
    assert lo.get_subset_counts(1, 2, 4) == lt.get_subset_counts(1, 2, 4)


def test_threads_sign_the_same_values():
    """Signing releases the GIL: four threads signing their own MinHash at
    once give the values one thread gives."""
    rng = random.Random(7)
    batches = [words(rng, 20000) for _ in range(4)]
    want = [ds.MinHash(seed=3) for _ in batches]
    for m, b in zip(want, batches):
        m.update_batch(b)
    got = [sd.MinHash(seed=3) for _ in batches]
    errors = []

    def work(m, b):
        try:
            for _ in range(3):
                m.update_batch(b)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=mb) for mb in zip(got, batches)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for o, t in zip(got, want):
        same(o, t)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_b_bit_minhash_is_datasketchs(scheme):
    rng = random.Random(3)
    for b in (1, 2, 3, 8, 17, 32):
        for r in (0.0, 0.3):
            tokens = words(rng, 200, 300)
            other = tokens[:150] + words(rng, 50, 300)
            mo, mt = sd.MinHash(num_perm=100, scheme=scheme), ds.MinHash(num_perm=100, scheme=scheme)
            no, nt = sd.MinHash(num_perm=100, scheme=scheme), ds.MinHash(num_perm=100, scheme=scheme)
            for m, toks in ((mo, tokens), (mt, tokens), (no, other), (nt, other)):
                m.update_batch(toks)
            bo, bt = sd.bBitMinHash(mo, b, r), ds.bBitMinHash(mt, b, r)
            assert np.array_equal(bo.hashvalues, bt.hashvalues)
            assert bo.jaccard(sd.bBitMinHash(no, b, 0.2)) == bt.jaccard(ds.bBitMinHash(nt, b, 0.2))
            # The same pickled bytes; ours reads them back.
            assert bo.__getstate__() == bt.__getstate__() and bo.bytesize() == bt.bytesize()
            assert pickle.loads(pickle.dumps(bo)) == bo
    raises_alike(lambda: sd.bBitMinHash(mo, 33), lambda: ds.bBitMinHash(mt, 33))
    raises_alike(
        lambda: sd.bBitMinHash(mo, 2).jaccard(sd.bBitMinHash(mo, 3)),
        lambda: ds.bBitMinHash(mt, 2).jaccard(ds.bBitMinHash(mt, 3)),
    )


def test_weighted_minhash_and_its_lsh_are_datasketchs():
    import scipy.sparse

    rng = np.random.RandomState(1)
    for seed in (1, 5):
        go, gt = sd.WeightedMinHashGenerator(50, 64, seed), ds.WeightedMinHashGenerator(50, 64, seed)
        base = rng.uniform(0, 10, 50) * (rng.rand(50) < 0.6)
        vectors = [base * rng.uniform(0.8, 1.2, 50) * (rng.rand(50) < 0.9) for _ in range(60)]
        vectors += [rng.uniform(0, 10, 50) * (rng.rand(50) < 0.6) for _ in range(60)]
        ours = [go.minhash(v) for v in vectors]
        theirs = [gt.minhash(v) for v in vectors]
        for o, t in zip(ours, theirs):
            assert np.array_equal(o.hashvalues, t.hashvalues) and o.seed == t.seed
        assert ours[0].jaccard(ours[1]) == theirs[0].jaccard(theirs[1])
        X = np.array(vectors[:20])
        X[3] = 0
        many_o, many_t = go.minhash_many(X), gt.minhash_many(scipy.sparse.csr_matrix(X))
        assert [m is None for m in many_o] == [m is None for m in many_t] == [i == 3 for i in range(20)]
        for o, t in zip(many_o, many_t):
            assert o is None or np.array_equal(o.hashvalues, t.hashvalues)
        lo, lt = sd.MinHashLSH(threshold=0.5, num_perm=64), ds.MinHashLSH(threshold=0.5, num_perm=64)
        for i, (o, t) in enumerate(zip(ours, theirs)):
            lo.insert(i, o)
            lt.insert(i, t)
        found = 0
        for o, t in zip(ours, theirs):
            assert set(lo.query(o)) == set(lt.query(t))
            found += len(lo.query(o)) > 1
        assert found > 0
        assert pickle.loads(pickle.dumps(ours[0])) == ours[0]
    raises_alike(lambda: go.minhash(np.zeros(50)), lambda: gt.minhash(np.zeros(50)))
    raises_alike(lambda: go.minhash(np.ones(49)), lambda: gt.minhash(np.ones(49)))
    raises_alike(lambda: go.minhash(3), lambda: gt.minhash(3))


@pytest.mark.parametrize("scheme", ["affine32", "legacy"])
def test_lsh_forest_answers_are_datasketchs(scheme):
    texts = real_texts()
    sets = [shingles(t) for t in texts]
    ours = sd.MinHash.bulk(sets, num_perm=64, seed=2, scheme=scheme)
    theirs = ds.MinHash.bulk(sets, num_perm=64, seed=2, scheme=scheme)
    fo, ft = sd.MinHashLSHForest(num_perm=64, l=8), ds.MinHashLSHForest(num_perm=64, l=8)
    assert fo.is_empty() and ft.is_empty()
    for i, (o, t) in enumerate(zip(ours, theirs)):
        fo.add(i, o)
        ft.add(i, t)
    fo.index()
    ft.index()
    assert not fo.is_empty() and 0 in fo
    for k in (1, 3, 10):
        for o, t in zip(ours, theirs):
            # The same keys, not only as many: the same traversal.
            assert set(fo.query(o, k)) == set(ft.query(t, k))
    for i in (0, 5, len(texts) - 1):
        assert np.array_equal(fo.get_minhash_hashvalues(i), ft.get_minhash_hashvalues(i))
        assert np.array_equal(fo.get_minhash_hashvalues(i), ours[i].hashvalues)
    again = pickle.loads(pickle.dumps(fo))
    assert set(again.query(ours[3], 5)) == set(fo.query(ours[3], 5))
    raises_alike(lambda: fo.add(0, ours[0]), lambda: ft.add(0, theirs[0]))
    raises_alike(lambda: fo.query(ours[0], 0), lambda: ft.query(theirs[0], 0))
    raises_alike(lambda: fo.get_minhash_hashvalues("nope"), lambda: ft.get_minhash_hashvalues("nope"))
    raises_alike(lambda: sd.MinHashLSHForest(num_perm=4, l=8), lambda: ds.MinHashLSHForest(num_perm=4, l=8))


@pytest.mark.parametrize("num_part,threshold", [(8, 0.6), (1, 0.8), (32, 0.5)])
def test_lsh_ensemble_partitions_params_and_answers_are_datasketchs(num_part, threshold):
    rng = random.Random(num_part)
    sets = [sorted({f"w{rng.randrange(2000)}".encode() for _ in range(rng.randrange(5, 400))}) for _ in range(250)]
    # Real texts too: django-docs files hold one another's paragraphs.
    sets += [sorted(set(shingles(t))) for t in real_texts()]
    sets = [s for s in sets if s]
    eo = sd.MinHashLSHEnsemble(threshold=threshold, num_perm=64, num_part=num_part)
    et = ds.MinHashLSHEnsemble(threshold=threshold, num_perm=64, num_part=num_part)
    assert np.array_equal(eo.params, et.params)
    mo, mt = sd.MinHash.bulk(sets, num_perm=64), ds.MinHash.bulk(sets, num_perm=64)
    assert eo.is_empty()
    eo.index((i, m, len(s)) for i, (m, s) in enumerate(zip(mo, sets)))
    et.index([(i, m, len(s)) for i, (m, s) in enumerate(zip(mt, sets))])
    assert (eo.lowers, eo.uppers) == (et.lowers, et.uppers)
    assert not eo.is_empty() and 0 in eo
    found = 0
    for q, s in enumerate(sets):
        part = s[: len(s) // 2 + 1]
        a, b = sd.MinHash(num_perm=64), ds.MinHash(num_perm=64)
        a.update_batch(part)
        b.update_batch(part)
        answer = set(eo.query(a, len(part)))
        assert answer == set(et.query(b, len(part))), q
        found += q in answer
    # The sets that contain each query were mostly found: not vacuous.
    assert found > len(sets) // 2
    again = pickle.loads(pickle.dumps(eo))
    assert set(again.query(mo[0], len(sets[0]))) == set(eo.query(mo[0], len(sets[0])))
    raises_alike(lambda: eo.index([("x", mo[0], 3)]), lambda: et.index([("x", mt[0], 3)]))
    raises_alike(lambda: sd.MinHashLSHEnsemble(m=1), lambda: ds.MinHashLSHEnsemble(m=1))
    raises_alike(
        lambda: sd.MinHashLSHEnsemble(num_perm=16).index(iter([("x", sd.MinHash(num_perm=16), 0)])),
        lambda: ds.MinHashLSHEnsemble(num_perm=16).index(iter([("x", ds.MinHash(num_perm=16), 0)])),
    )
    # Stricter than datasketch, which checks sizes only when given an
    # iterator: a size of 0 in a list is refused too.
    with pytest.raises(ValueError, match="positive"):
        sd.MinHashLSHEnsemble(num_perm=16).index([("x", sd.MinHash(num_perm=16), 0)])
