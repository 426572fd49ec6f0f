#!/usr/bin/env python3
"""Generate N short JSON Lines records (default 10,000,000) for the
ten-million-documents test of issue #22 (`scan --input jsonl`).

  bench/gen_jsonl.py OUT.jsonl [--records 10000000] [--seed 1] [--csv]

One line per record, `{"id":"r0000000","text":"..."}`, the text 4–12 random
words (3–9 letters) from a 20,000-word vocabulary, as bench/gen_small_files.py
draws them (a large vocabulary, so that unrelated records share few
5-character windows). Every 50th record is a near-copy of the one before it
(one word changed), so the scan has real pairs to find. The first N lines of
the file are the corpus of N records: `head -n 1000000` gives the million.
Deterministic for a given seed; about 60 bytes a record and a minute per
million records. `--csv` writes the same records as CSV instead (header
`id,text`, then `r0000000,...`: the texts need no quotes), for `scan --input
csv`; its first N + 1 lines are the N records. Ten million files would take ~40 GB of disk blocks and hours
to create; one file of ten million lines takes ~600 MB.
"""
import argparse
import json
import random


def vocabulary(rng, size=20_000):
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randrange(3, 10))) for _ in range(size)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--records", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv", action="store_true", help="CSV (id,text) instead of JSON Lines")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    words = vocabulary(rng)
    prev = None
    with open(a.out, "w", buffering=1 << 20) as out:
        if a.csv:
            out.write("id,text\n")
        for i in range(a.records):
            if prev is not None and i % 50 == 1:
                changed = prev.split(" ")
                changed[rng.randrange(len(changed))] = rng.choice(words)
                text = " ".join(changed)
            else:
                text = " ".join(rng.choices(words, k=rng.randrange(4, 13)))
            prev = text
            if a.csv:
                out.write("r%07d,%s\n" % (i, text))
            else:
                out.write(json.dumps({"id": "r%07d" % i, "text": text}, separators=(",", ":")))
                out.write("\n")


if __name__ == "__main__":
    main()
