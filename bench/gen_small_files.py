#!/usr/bin/env python3
"""Generate N small text files (default 1,000,000) for the many-files scaling test.

  bench/gen_small_files.py OUT_DIR [--files 1000000] [--seed 1]

Files are 150–600 bytes of pseudo-English drawn from a fixed vocabulary, 1,000 per
directory (d0000/f000000.txt ...). Every 50th file is a near-copy of the file before
it (a few words changed), so the scan has real pairs to find. Deterministic for a
given seed. Takes about a minute and ~4 GB of disk blocks per million files.
"""
import argparse
import os
import random

WORDS = ("the of and to in is that for it as was with be by on not he this are or his "
         "from at which but have an they you were their one all we can her has there "
         "been if more when will would who so no file system data kernel memory page "
         "process thread lock buffer queue device driver network packet socket table "
         "index search query result value error return status option config path").split()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
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
            n = rng.randrange(30, 120)
            text = " ".join(rng.choice(WORDS) for _ in range(n))
        prev = text
        with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
