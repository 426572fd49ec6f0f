"""Signing speed of simfind.datasketch against datasketch itself, in one process
on the same tokens (docs/PERFORMANCE.md, "The datasketch-compatible layer").

    target/engines/venv/bin/python bench/datasketch_layer.py [CORPUS_DIR] [--reps N]

CORPUS_DIR: a directory of text files (default ../shared/data/django-docs/files);
each file's word 3-grams (lowercased, UTF-8 bytes) are its tokens, what a
datasketch user feeds. Measured, per scheme (affine32, the default, and legacy):
- update_batch: one MinHash updated with every file's tokens in turn;
- bulk: MinHash.bulk over all the files' token lists;
- lsh: MinHashLSH(threshold=0.8) inserting every file's MinHash, then querying
  each (Python on both sides: the band keys and dict buckets).
Each is run --reps times; the best wall time is kept, with the CPU time of that
run beside it (the bulk of simfind runs on two threads). Both sides are checked
to give the same hash values before anything is timed.
"""

import argparse
import pathlib
import sys
import time

import numpy as np

import datasketch as ds
import simfind.datasketch as sd


def tokens_of(text, k=3):
    words = text.lower().split()
    return [" ".join(words[i : i + k]).encode() for i in range(max(len(words) - k + 1, 0))]


def best(fn, reps):
    runs = []
    for _ in range(reps):
        w, c = time.perf_counter(), time.process_time()
        fn()
        runs.append((time.perf_counter() - w, time.process_time() - c))
    return min(runs)


def main():
    ap = argparse.ArgumentParser()
    root = pathlib.Path(__file__).resolve().parents[1]
    ap.add_argument("corpus", nargs="?", default=root.parent / "shared" / "data" / "django-docs" / "files")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--num-perm", type=int, default=128)
    args = ap.parse_args()
    files = sorted(p for p in pathlib.Path(args.corpus).rglob("*") if p.is_file())
    sets = [tokens_of(p.read_bytes().decode("utf-8", "replace")) for p in files]
    sets = [s for s in sets if s]
    n_tokens = sum(map(len, sets))
    print(f"{len(sets)} files, {n_tokens} tokens, num_perm {args.num_perm}, best of {args.reps}")
    print("| scheme | call | datasketch wall (cpu) s | simfind.datasketch wall (cpu) s | ratio (wall) |")
    print("|---|---|---|---|---|")
    for scheme in ("affine32", "legacy"):
        kw = dict(num_perm=args.num_perm, seed=1, scheme=scheme)
        # Same values first: a fast wrong answer is not measured.
        a, b = ds.MinHash.bulk(sets[:50], **kw), sd.MinHash.bulk(sets[:50], **kw)
        assert all(np.array_equal(x.hashvalues, y.hashvalues) for x, y in zip(a, b))

        def batch(mod):
            m = mod.MinHash(**kw)
            for s in sets:
                m.update_batch(s)
            return m

        assert np.array_equal(batch(ds).hashvalues, batch(sd).hashvalues)
        for call, run in (
            ("update_batch", batch),
            ("bulk", lambda mod: mod.MinHash.bulk(sets, **kw)),
        ):
            theirs = best(lambda: run(ds), args.reps)
            ours = best(lambda: run(sd), args.reps)
            print(
                f"| {scheme} | {call} | {theirs[0]:.2f} ({theirs[1]:.2f}) | "
                f"{ours[0]:.3f} ({ours[1]:.3f}) | {theirs[0] / ours[0]:.1f}× |"
            )
    kw = dict(num_perm=args.num_perm, seed=1)
    theirs_m, ours_m = ds.MinHash.bulk(sets, **kw), sd.MinHash.bulk(sets, **kw)

    def lsh(mod, ms):
        index = mod.MinHashLSH(threshold=0.8, num_perm=args.num_perm)
        for i, m in enumerate(ms):
            index.insert(i, m)
        return [set(index.query(m)) for m in ms]

    assert lsh(ds, theirs_m) == lsh(sd, ours_m)
    theirs = best(lambda: lsh(ds, theirs_m), args.reps)
    ours = best(lambda: lsh(sd, ours_m), args.reps)
    print(
        f"| affine32 | lsh insert + query | {theirs[0]:.2f} ({theirs[1]:.2f}) | "
        f"{ours[0]:.3f} ({ours[1]:.3f}) | {theirs[0] / ours[0]:.1f}× |"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
