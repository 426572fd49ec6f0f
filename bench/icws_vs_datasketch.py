"""simfind's weighted MinHash (compare --icws) against datasketch's
WeightedMinHashGenerator, the same algorithm (Ioffe's ICWS): accuracy over
random bags with a known weighted Jaccard similarity, and signing time on one
large bag. Run by bench/icws_vs_datasketch.sh (which installs datasketch into
target/bench-venv); no test depends on it.

    python bench/icws_vs_datasketch.py SIMFIND [--pairs 200] [--samples 128]
        [--base OTHER_SIMFIND] [--repeats 5]

With --base, the timing step alternates the two binaries --repeats times
(ratios within one run: the machine is shared and noisy).
"""

import argparse
import math
import random
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from datasketch import WeightedMinHashGenerator


def bag_text(counts):
    return " ".join(f"w{i}" for i, c in enumerate(counts) for _ in range(c)) + "\n"


def weighted_jaccard(a, b):
    return sum(map(min, a, b)) / sum(map(max, a, b))


def simfind_compare(simfind, fa, fb, samples, seed, icws=True):
    args = [simfind, "compare", str(fa), str(fb), "--shingle", "word", "-k", "1",
            "-b", str(samples), "-r", "1", "--seed", str(seed), "-q"]
    if icws:
        args.append("--icws")
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return dict(line.split(",", 1) for line in out.splitlines()[1:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("simfind")
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--samples", type=int, default=128)
    ap.add_argument("--dim", type=int, default=50)
    ap.add_argument("--big", type=int, default=20000, help="distinct words of the timing bag")
    ap.add_argument("--base", help="another simfind binary, timed alternately with SIMFIND")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(20)
    n = args.samples
    errors = {"simfind": [], "datasketch": []}
    variance = []
    with tempfile.TemporaryDirectory() as tmp:
        fa, fb = Path(tmp, "a.txt"), Path(tmp, "b.txt")
        for p in range(args.pairs):
            a = [rng.choice([0, 0, 1, 2, 3, 5]) for _ in range(args.dim)]
            b = [max(0, x + rng.choice([-2, -1, 0, 0, 1])) if rng.random() < 0.7
                 else rng.choice([0, 1, 4]) for x in a]
            if not any(a) or not any(b):
                continue
            truth = weighted_jaccard(a, b)
            fa.write_text(bag_text(a))
            fb.write_text(bag_text(b))
            row = simfind_compare(args.simfind, fa, fb, n, seed=p)
            assert abs(float(row["weighted_jaccard"]) - truth) < 1e-6, (row, truth)
            errors["simfind"].append(float(row["icws_estimate"]) - truth)
            gen = WeightedMinHashGenerator(args.dim, sample_size=n, seed=p)
            est = gen.minhash(np.array(a, dtype=float)).jaccard(gen.minhash(np.array(b, dtype=float)))
            errors["datasketch"].append(est - truth)
            variance.append(truth * (1 - truth) / n)
        predicted = math.sqrt(sum(variance) / len(variance))
        print(f"accuracy: {len(variance)} bag pairs over {args.dim} words, {n} samples each")
        print(f"  binomial prediction of the RMSE: {predicted:.4f}")
        for tool, e in errors.items():
            bias = sum(e) / len(e)
            rmse = math.sqrt(sum(x * x for x in e) / len(e))
            print(f"  {tool:10s} bias {bias:+.4f}  RMSE {rmse:.4f}")

        # Signing time: one bag of --big distinct words (counts 1–4), both sides.
        big = [rng.randint(1, 4) for _ in range(args.big)]
        fa.write_text(bag_text(big))
        fb.write_text(bag_text(big))
        binaries = [("simfind", args.simfind)] + ([("base", args.base)] if args.base else [])
        signing = {name: [] for name, _ in binaries}
        for _ in range(args.repeats):
            for name, binary in binaries:
                start = time.perf_counter()
                simfind_compare(binary, fa, fb, n, seed=1, icws=False)
                plain = time.perf_counter() - start
                start = time.perf_counter()
                simfind_compare(binary, fa, fb, n, seed=1, icws=True)
                signing[name].append(time.perf_counter() - start - plain)
        # datasketch draws its dim × samples random arrays once, when the
        # generator is made; simfind draws each (sample, element) value from a
        # hash as it signs, so it needs no dimension. Both are printed.
        start = time.perf_counter()
        gen = WeightedMinHashGenerator(args.big, sample_size=n, seed=1)
        made = time.perf_counter() - start
        v = np.array(big, dtype=float)
        start = time.perf_counter()
        gen.minhash(v)
        gen.minhash(v)
        ds = time.perf_counter() - start
        print(f"signing two bags of {args.big} distinct words, {n} samples:")
        for name, times in signing.items():
            times.sort()
            print(f"  {name:8s} compare --icws minus plain compare: median {times[len(times) // 2]:.3f} s, "
                  f"min {times[0]:.3f} s ({len(times)} runs)")
        print(f"  datasketch minhash() twice:                {ds:.3f} s "
              f"(after {made:.3f} s making the generator)")


if __name__ == "__main__":
    main()
