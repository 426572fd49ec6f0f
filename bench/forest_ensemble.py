"""simfind's top-k and containment lookups against datasketch's
MinHashLSHForest (top-k) and MinHashLSHEnsemble (containment), and both
against an exact brute force, on the same sets and the same num_perm
(issue #37, "Speed"). Run by bench/forest_ensemble.sh with the engines'
venv (target/engines/venv: datasketch and the simfind wheel); no test
depends on it.

    python bench/forest_ensemble.py SIMFIND [--part topk|containment|all]
        [--corpus DIR] [--docs 2000] [--queries 100] [--k 10]
        [--sets 5000] [--t 0.7] [--perm 128]

Top-k: the first --docs files of --corpus (path byte order), each the set
of its char 5-shingles as simfind makes it (`simfind.shingles`, the truth's
definition in /work/shared/data/README.md). --queries of them, drawn at
seed 37, each asks for its --k nearest other documents: the Python
`simfind.Index.query(text, top=K+1, threshold=FLOOR)` (every stored
signature compared, documents verified exactly in estimate order until the
rest are ruled out at the K+1-th similarity), the same with `exact=True`
at the first floor (every document whose size can reach it, in size-bound
order: the lookup before the walk), and datasketch's
`MinHashLSHForest(num_perm, l=8).query(m, K+1)`; the query itself is
dropped from both answers. recall@k: the share of the brute force's k best
that an answer holds, a tie at the k-th similarity counting as a hit
(any document as similar as the brute force's k-th is a right answer).

Containment: --sets generated sets of tokens (sizes log-uniform in
[10, 2000], tokens over 50,000: --tokens zipf, token i about as common as
1/i, so that a small set of common tokens lies inside many large sets; or
--tokens uniform), and --queries queries, each a
part of an indexed set (40–100 % of its tokens) plus up to 20 % other
tokens, so that containments fall on both sides of --t. Answers: the
indexed sets d with |q ∩ d| / |q| ≥ t. simfind: the sets written as files
of words, indexed with `--shingle word -k 1` (a file's set is then its set
of tokens), asked by one `simfind query --metric containment -t T` with
every query file (its rows with a_in_b ≥ t); datasketch:
`MinHashLSHEnsemble(threshold=t, num_perm, num_part=16)`. Recall and
precision against the brute force; query time per query (simfind's: one
process's wall time over the queries it answered, start-up included).

Times are wall seconds and CPU seconds of this process (datasketch,
the Python Index) or of the child (the CLI); the machine is shared, so
the ratios of one run are what to read.
"""

import argparse
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from datasketch import MinHash, MinHashLSHEnsemble, MinHashLSHForest

import simfind

SEED = 37


def minhash(hashes, perm):
    """A datasketch MinHash of a set of 64-bit hashes: their low 32 bits
    are the hash values datasketch would compute (its hash space is 32-bit),
    so both libraries sign the very same set."""
    m = MinHash(num_perm=perm, seed=1, hashfunc=lambda h: h & 0xFFFFFFFF)
    m.update_batch(hashes)
    return m


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Clock:
    """Wall and CPU seconds of a block (this process, or children)."""

    def __init__(self, children=False):
        self.cpu = cpu_children if children else cpu_self

    def __enter__(self):
        self.w0, self.c0 = time.perf_counter(), self.cpu()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.w0
        self.cpu_s = self.cpu() - self.c0


def jaccard(a, b):
    inter = len(a & b)
    union = len(a) + len(b) - inter
    return inter / union if union else 0.0


def recall_at_k(answer, exact_sims, k):
    """The share of the k best (by `exact_sims`, a dict id -> J) that
    `answer` holds, a tie at the k-th similarity counting as a hit."""
    best = sorted(exact_sims.values(), reverse=True)[:k]
    if not best:
        return 1.0
    kth = best[-1]
    hits = sum(1 for d in answer[:k] if exact_sims.get(d, 0.0) >= kth - 1e-12)
    return min(hits, len(best)) / len(best)


def topk(args):
    files = sorted(p for p in Path(args.corpus).rglob("*") if p.is_file())
    files = [p for p in files if p.stat().st_size > 0][: args.docs]
    texts = [p.read_bytes().decode("utf-8", "replace") for p in files]
    ids = [str(i) for i in range(len(texts))]
    sets = [simfind.shingles(t, shingle="char", k=5) for t in texts]
    keep = [i for i, s in enumerate(sets) if s]
    pysets = {i: set(sets[i]) for i in keep}
    rng = random.Random(SEED)
    queries = rng.sample(keep, min(args.queries, len(keep)))
    k = args.k
    print(f"top-k: {len(keep)} documents of {args.corpus} (char 5-shingles), "
          f"{len(queries)} queries, k = {k}, num_perm = {args.perm}")

    # Brute force: each query's exact Jaccard with every other document.
    with Clock() as c:
        exact = {q: {i: jaccard(pysets[q], s) for i, s in pysets.items() if i != q}
                 for q in queries}
    print(f"  brute force: {c.wall / len(queries) * 1000:.1f} ms a query (Python sets)")

    # datasketch's LSH Forest.
    with Clock() as c:
        forest = MinHashLSHForest(num_perm=args.perm, l=8)
        mh = {}
        for i in keep:
            mh[i] = minhash(sets[i], args.perm)
            forest.add(i, mh[i])
        forest.index()
    print(f"  datasketch MinHashLSHForest(l=8) built in {c.wall:.1f} s")
    forest_answers = {}
    with Clock() as c:
        for q in queries:
            forest_answers[q] = [d for d in forest.query(mh[q], k + 1) if d != q][:k]
    forest_time = (c.wall / len(queries), c.cpu_s / len(queries))

    rows = [("datasketch MinHashLSHForest", forest_answers, forest_time)]
    with tempfile.TemporaryDirectory() as tmp:
        bands = args.perm // 8
        index = simfind.Index(os.path.join(tmp, "topk.simfind"), shingle="char", k=5,
                              bands=bands, rows=8)
        with Clock() as c:
            index.insert([texts[i] for i in keep], ids=[ids[i] for i in keep])
        print(f"  simfind.Index ({bands} bands × 8 rows) built in {c.wall:.1f} s")
        index.close()
        runs = [(floor, False) for floor in args.floors] + [(args.floors[0], True)]
        for floor, exhaustive in runs:
            # Each lookup from a freshly opened Index: none starts with the
            # signatures or sets another one left in memory.
            index = simfind.Index(os.path.join(tmp, "topk.simfind"), shingle="char", k=5,
                                  bands=bands, rows=8)
            answers = {}
            with Clock() as c:
                for q in queries:
                    got = index.query(texts[q], threshold=floor, top=k + 1, exact=exhaustive)
                    answers[q] = [int(d) for d, _ in got if d != ids[q]][:k]
            index.close()
            how = ", exact=True" if exhaustive else ""
            rows.append((f"simfind.Index.query(top={k}+1, threshold={floor}{how})", answers,
                         (c.wall / len(queries), c.cpu_s / len(queries))))

    print(f"  | lookup | recall@{k} | precision | ms a query (wall) | CPU ms a query |")
    print("  |---|--:|--:|--:|--:|")
    for name, answers, (wall, cpu) in rows:
        recall = sum(recall_at_k(answers[q], exact[q], k) for q in queries) / len(queries)
        # Precision: of what was returned, the share in the true k best (ties
        # included); the same count as recall when k are returned.
        returned = sum(len(answers[q]) for q in queries)
        right = 0
        for q in queries:
            best = sorted(exact[q].values(), reverse=True)[:k]
            kth = best[-1] if best else 1.0
            right += sum(1 for d in answers[q] if exact[q].get(d, 0.0) >= kth - 1e-12)
        precision = right / returned if returned else 1.0
        print(f"  | {name} | {recall:.3f} | {precision:.3f} | {wall * 1000:.2f} | {cpu * 1000:.2f} |")


def generated_sets(n, rng, tokens):
    vocab = 50_000
    sets = []
    for _ in range(n):
        size = int(math.exp(rng.uniform(math.log(10), math.log(2000))))
        s = set()
        while len(s) < size:
            if tokens == "zipf":
                # Small token numbers are common: a small set of them is
                # inside many large sets.
                s.add(int(vocab ** rng.random()))
            else:
                s.add(rng.randrange(vocab))
        sets.append(sorted(s))
    return sets


def containment(args, simfind_bin):
    rng = random.Random(SEED)
    sets = generated_sets(args.sets, rng, args.tokens)
    queries = []
    for _ in range(args.queries):
        src = sets[rng.randrange(len(sets))]
        part = rng.sample(src, max(1, int(len(src) * rng.uniform(0.4, 1.0))))
        noise = rng.randrange(0, max(1, len(part) // 5) + 1)
        q = set(part)
        while len(q) < len(part) + noise:
            q.add(50_000 + rng.randrange(1_000_000))
        queries.append(sorted(q))
    t = args.t
    print(f"containment: {len(sets)} generated sets ({args.tokens} tokens), {len(queries)} "
          f"queries, t = {t}, num_perm = {args.perm}")
    psets = [set(s) for s in sets]
    with Clock() as c:
        truth = []
        for q in queries:
            qs = set(q)
            truth.append({i for i, d in enumerate(psets) if len(qs & d) / len(qs) >= t})
    print(f"  brute force: {c.wall / len(queries) * 1000:.1f} ms a query (Python sets); "
          f"{sum(map(len, truth))} (query, set) pairs at ≥ {t}")

    # Token i is the word `wi`: a word 1-shingle's hash is the word's.
    def word_hashes(s):
        return simfind.shingles(" ".join(f"w{x}" for x in s), shingle="word", k=1)

    with Clock() as c:
        ens = MinHashLSHEnsemble(threshold=t, num_perm=args.perm, num_part=16)
        entries = [(i, minhash(word_hashes(s), args.perm), len(s)) for i, s in enumerate(sets)]
        ens.index(entries)
    print(f"  datasketch MinHashLSHEnsemble(num_part=16) built in {c.wall:.1f} s")
    qmh = [minhash(word_hashes(q), args.perm) for q in queries]
    with Clock() as c:
        ens_answers = [set(ens.query(m, len(q))) for m, q in zip(qmh, queries)]
    rows = [("datasketch MinHashLSHEnsemble", ens_answers,
             (c.wall / len(queries), c.cpu_s / len(queries)))]

    with tempfile.TemporaryDirectory() as tmp:
        docs, qdir = Path(tmp, "sets"), Path(tmp, "queries")
        docs.mkdir()
        qdir.mkdir()
        for i, s in enumerate(sets):
            (docs / f"{i}.txt").write_text(" ".join(f"w{x}" for x in s) + "\n")
        qfiles = []
        for j, q in enumerate(queries):
            p = qdir / f"{j}.txt"
            p.write_text(" ".join(f"w{x}" for x in q) + "\n")
            qfiles.append(str(p))
        db = str(Path(tmp, "sets.simfind"))
        bands = args.perm // 8
        with Clock(children=True) as c:
            subprocess.run([simfind_bin, "index", str(docs), "--db", db, "--shingle", "word",
                            "-k", "1", "--bands", str(bands), "--rows", "8", "-q"], check=True)
        print(f"  simfind index (word 1-shingles, {bands} × 8) built in {c.wall:.1f} s")
        with Clock(children=True) as c:
            out = subprocess.run([simfind_bin, "query", *qfiles, "--db", db, "--metric",
                                  "containment", "-t", str(t), "-q"],
                                 check=True, capture_output=True, text=True).stdout
        answers = [set() for _ in queries]
        by_file = {f: j for j, f in enumerate(qfiles)}
        for line in out.splitlines()[1:]:
            a, b, a_in_b = line.split(",")[:3]
            if float(a_in_b) >= t:
                answers[by_file[a]].add(int(Path(b).stem))
        rows.append((f"simfind query --metric containment ({len(queries)} queries, one process)",
                     answers, (c.wall / len(queries), c.cpu_s / len(queries))))

    print("  | lookup | recall | precision | ms a query (wall) | CPU ms a query |")
    print("  |---|--:|--:|--:|--:|")
    for name, answers, (wall, cpu) in rows:
        found = sum(len(a & tr) for a, tr in zip(answers, truth))
        returned = sum(len(a) for a in answers)
        recall = found / max(1, sum(map(len, truth)))
        precision = found / returned if returned else 1.0
        print(f"  | {name} | {recall:.3f} | {precision:.3f} | {wall * 1000:.2f} | {cpu * 1000:.2f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("simfind")
    ap.add_argument("--part", choices=["topk", "containment", "all"], default="all")
    ap.add_argument("--corpus", default="../shared/data/debian-docs/files")
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--floors", type=float, nargs="+", default=[0.05, 0.3])
    ap.add_argument("--sets", type=int, default=5000)
    ap.add_argument("--t", type=float, default=0.7)
    ap.add_argument("--tokens", choices=["zipf", "uniform"], default="zipf",
                    help="token frequencies of the generated sets")
    ap.add_argument("--perm", type=int, default=128)
    args = ap.parse_args()
    if args.perm % 8:
        sys.exit("--perm must be a multiple of 8 (simfind bands it in rows of 8)")
    if args.part in ("topk", "all"):
        topk(args)
    if args.part in ("containment", "all"):
        containment(args, args.simfind)


if __name__ == "__main__":
    main()
