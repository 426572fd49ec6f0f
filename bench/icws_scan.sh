#!/usr/bin/env bash
# scan --sketch icws over bags that share a vocabulary: main's binary (BASE)
# against this one, alternating, user CPU seconds; then datasketch signing
# the same bags (target/bench-venv, as bench/icws_vs_datasketch.sh installs
# it). Numbers: docs/PERFORMANCE.md, "Per-token draw cache". Run under
# `flock /work/bench.lock` on the shared machine.
#
#   bash bench/icws_scan.sh BASE [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1
repeats=${2:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import random, sys
rng = random.Random(5)
vocab = [f"w{i}" for i in range(5000)]
weights = [1 / (i + 1) ** 0.8 for i in range(5000)]
for d in range(400):
    with open(f"{sys.argv[1]}/d{d:03}.txt", "w") as f:
        f.write(" ".join(rng.choices(vocab, weights, k=1500)) + "\n")
PY
args=(scan --sketch icws "$dir" --shingle word -k 1 -b 32 -r 4 -t 0.5 -j 1 -q)
for _ in $(seq "$repeats"); do
    for b in "$base" target/release/simfind; do
        /usr/bin/time -f "$b: %U s user, %e s wall" "$b" "${args[@]}" >/dev/null
    done
done
if [ -x target/bench-venv/bin/python ]; then
    target/bench-venv/bin/python - "$dir" <<'PY'
import collections, glob, sys, time
import numpy as np
from datasketch import WeightedMinHashGenerator
bags = [collections.Counter(open(f).read().split()) for f in sorted(glob.glob(f"{sys.argv[1]}/*.txt"))]
vocab = {}
for c in bags:
    for w in c:
        vocab.setdefault(w, len(vocab))
vecs = []
for c in bags:
    v = np.zeros(len(vocab))
    for w, n in c.items():
        v[vocab[w]] = n
    vecs.append(v)
t = time.perf_counter()
gen = WeightedMinHashGenerator(len(vocab), sample_size=128, seed=1)
made = time.perf_counter() - t
t = time.perf_counter()
for v in vecs:
    gen.minhash(v)
print(f"datasketch: {len(vecs)} bags over {len(vocab)} words: generator {made:.3f} s, "
      f"minhash() {time.perf_counter() - t:.3f} s")
PY
fi
