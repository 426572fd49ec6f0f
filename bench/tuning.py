#!/usr/bin/env python3
"""Measure recall, precision and work of `simfind scan` for chosen (k, b, r, T)
against the exact ground truth in ../shared/data (docs/TUNING.md's tables).

Usage (from the project root, after `cargo build --release`):

    python3 bench/tuning.py weights [W…]  # scan's tune weight: recall/candidates per fn-weight
    python3 bench/tuning.py jobs        # the recommended (k, b, r) per typical job

Each row runs `simfind scan` once with explicit --bands/--rows/--threshold (the
shape printed by `simfind tune` for the given weights, or a fixed one), reads
the pairs it wrote, and compares them with the truth pairs at the threshold
whose two files both pass the same size filter. Standard library only.
"""

import csv
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The corpora sit beside the project root; SIMFIND_DATA overrides (e.g. for a
# git worktree that is not beside shared/).
DATA = os.environ.get("SIMFIND_DATA", os.path.join(ROOT, "..", "shared", "data"))
BIN = os.path.join(ROOT, "target", "release", "simfind")

_truth_cache = {}


def truth(corpus, shingle, threshold):
    key = (corpus, shingle)
    if key not in _truth_cache:
        path = os.path.join(DATA, corpus, f"truth_{shingle}.csv")
        with open(path, newline="") as f:
            _truth_cache[key] = [(r["a"], r["b"], float(r["jaccard"])) for r in csv.DictReader(f)]
    return {(a, b) for a, b, j in _truth_cache[key] if j >= threshold}


def size_ok(corpus, rel, min_size, max_size):
    size = os.path.getsize(os.path.join(DATA, corpus, "files", rel))
    return (min_size is None or size >= min_size) and (max_size is None or size <= max_size)


def tune(threshold, hashes, fn_weight=None, min_recall=None):
    cmd = [BIN, "tune", "--threshold", str(threshold), "--hashes", str(hashes), "--format", "csv"]
    if fn_weight is not None:
        cmd += ["--fn-weight", str(fn_weight)]
    if min_recall is not None:
        cmd += ["--min-recall", str(min_recall)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    row = list(csv.DictReader(out.splitlines()))[0]
    return int(row["bands"]), int(row["rows"])


def scan(corpus, shingle, bands, rows, threshold, min_size=None, max_size=None, verify="exact"):
    """Returns (recall, precision, found, true, candidates, seconds)."""
    kind, k = ("char", "5") if shingle == "char5" else ("word", "3")
    files = os.path.join(DATA, corpus, "files")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "pairs.csv")
        cmd = [BIN, "scan", files, "--shingle", kind, "--k", k, "--bands", str(bands),
               "--rows", str(rows), "--threshold", str(threshold), "--verify", verify, "-o", out]
        if min_size is not None:
            cmd += ["--min-size", str(min_size)]
        if max_size is not None:
            cmd += ["--max-size", str(max_size)]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{run.stderr}")
        prefix = files + "/"
        with open(out, newline="") as f:
            found = {(r["a"][len(prefix):], r["b"][len(prefix):]) for r in csv.DictReader(f)}
    summary = run.stderr.strip().splitlines()[-1]
    candidates = int(re.search(r"(\d+) candidates", summary).group(1))
    seconds = float(re.search(r"in ([\d.]+) s", summary).group(1))
    expected = {p for p in truth(corpus, shingle, threshold)
                if size_ok(corpus, p[0], min_size, max_size) and size_ok(corpus, p[1], min_size, max_size)}
    tp = len(found & expected)
    recall = tp / len(expected) if expected else float("nan")
    precision = tp / len(found) if found else float("nan")
    return recall, precision, len(found), len(expected), candidates, seconds


def weights(ws=(1, 2, 4, 8)):
    print("| corpus | T | fn-weight | b × r | P(T) | recall | precision | candidates | pairs | s |")
    print("|---|--:|--:|---|--:|--:|--:|--:|--:|--:|")
    for corpus in ["debian-docs", "django-docs"]:
        for threshold in [0.5, 0.6, 0.7, 0.8, 0.9]:
            for w in ws:
                b, r = tune(threshold, 100, w)
                p = 1 - (1 - threshold ** r) ** b
                rec, prec, found, true, cand, sec = scan(corpus, "char5", b, r, threshold)
                print(f"| {corpus} | {threshold} | {w:g} | {b} × {r} | {p:.3f} | {rec:.4f} | {prec:.4f} | "
                      f"{cand} | {true} | {sec:.2f} |", flush=True)


# (job, corpus, shingle, threshold, min_size, max_size)
JOBS = [
    ("short messages (files ≤ 2 KB)", "debian-docs", "char5", 0.7, None, 2048),
    ("short messages (files ≤ 2 KB)", "django-docs", "char5", 0.7, None, 2048),
    ("articles (reST docs pages)", "django-docs", "word3", 0.8, None, None),
    ("articles (reST docs pages)", "django-docs", "char5", 0.8, None, None),
    ("technical text and code (man pages, licences)", "debian-docs", "char5", 0.8, None, None),
    ("technical text and code (man pages, licences)", "debian-docs", "word3", 0.8, None, None),
    ("books (files ≥ 64 KB)", "debian-docs", "word3", 0.8, 65536, None),
    ("books (files ≥ 64 KB)", "django-docs", "word3", 0.8, 65536, None),
]


def jobs():
    print("| job | corpus | k | T | b × r | how chosen | recall | precision | candidates | pairs | s "
          "| signature-only precision / recall |")
    print("|---|---|---|--:|---|---|--:|--:|--:|--:|--:|---|")
    for job, corpus, shingle, threshold, lo, hi in JOBS:
        shapes = [((20, 5), "20 × 5 (MMDS)"), (tune(threshold, 100, 1), "tune, weights 1:1"),
                  (tune(threshold, 100, 16), "tune --fn-weight 16 (scan's)"),
                  (tune(threshold, 100, min_recall=0.99), "tune --min-recall 0.99")]
        for (b, r), how in shapes:
            rec, prec, found, true, cand, sec = scan(corpus, shingle, b, r, threshold, lo, hi)
            srec, sprec, *_ = scan(corpus, shingle, b, r, threshold, lo, hi, verify="signature")
            print(f"| {job} | {corpus} | {shingle} | {threshold} | {b} × {r} | {how} | {rec:.4f} | {prec:.4f} "
                  f"| {cand} | {true} | {sec:.2f} | {sprec:.4f} / {srec:.4f} |", flush=True)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "jobs"
    if what == "weights":
        weights([float(w) for w in sys.argv[2:]] or (1, 2, 4, 8))
    else:
        jobs()
