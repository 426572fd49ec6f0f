#!/usr/bin/env python3
"""Generate N small text files (default 1,000,000) for the many-files scaling test.

  bench/gen_small_files.py OUT_DIR [--files 1000000] [--seed 1] [--words 25,130] [--copies 1]

Files are 150–900 bytes of random words (3–9 letters) drawn from a 20,000-word
vocabulary, 1,000 per directory (d0000/f000000.txt ...). The vocabulary is large so
that unrelated files share few 5-character windows, as real text does; with a tiny
vocabulary every file is a near-duplicate of every other and the run measures the
candidate explosion instead of scaling. Every 50th file is a near-copy of the file before
it (a few words changed), so the scan has real pairs to find. `--words LO,HI` draws each
file's word count from [LO, HI) instead (a few huge files: `--files 16 --words
300000,600000`), and `--copies K` writes each file K times (f000000.txt,
f000000-c1.txt, ...: many identical files). Deterministic for a given seed and options. Takes about a minute and ~4 GB of disk blocks per million files.
"""
import argparse
import os
import random

def vocabulary(rng, size=20_000):
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randrange(3, 10))) for _ in range(size)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--words", default="25,130", help="LO,HI: words per file, from [LO, HI)")
    ap.add_argument("--copies", type=int, default=1, help="write each file this many times")
    a = ap.parse_args()
    lo, hi = (int(w) for w in a.words.split(","))
    rng = random.Random(a.seed)
    WORDS = vocabulary(rng)
    prev = None
    for i in range(a.files):
        d = os.path.join(a.out, "d%04d" % (i // 1000))
        if i % 1000 == 0:
            os.makedirs(d, exist_ok=True)
        if prev is not None and i % 50 == 1:
            words = prev.split(" ")
            for _ in range(2):
                words[rng.randrange(len(words))] = rng.choice(WORDS)
            text = " ".join(words)
        else:
            n = rng.randrange(lo, hi)
            text = " ".join(rng.choice(WORDS) for _ in range(n))
        prev = text
        for c in range(a.copies):
            name = "f%06d.txt" % i if c == 0 else "f%06d-c%d.txt" % (i, c)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
