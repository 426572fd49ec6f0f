#!/bin/bash
# Bias and variance of the three MinHash sketches (classic, oph, block) against
# the exact Jaccard similarity: for each set size and similarity, two files of
# word tokens with a known Jaccard J, signed with SEEDS seeds (n = 100 values:
# 20 bands × 5 rows) through `simfind compare`; one line per configuration:
#   kind union J mean bias sd sd_binomial
# where sd_binomial = sqrt(J(1−J)/100) is classic MinHash's. Run from the
# project root: bench/block_minhash.sh [BINARY] [SEEDS]
set -euo pipefail
bin=${1:-target/release/simfind} seeds=${2:-200}
tmp=$(mktemp -d)
trap 'rm -r "$tmp"' EXIT
printf '%-8s %6s %6s %8s %9s %8s %8s\n' kind union J mean bias sd sd_binom
for union in 30 300 3000; do
  for j in 0.3333 0.8; do
    # |A ∩ B| = J·|A ∪ B|; the rest split evenly between A only and B only.
    python3 - "$tmp" "$union" "$j" <<'PY'
import sys
tmp, union, j = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
common = round(j * union); only = (union - common) // 2
a = [f"c{i}" for i in range(common)] + [f"a{i}" for i in range(only)]
b = [f"c{i}" for i in range(common)] + [f"b{i}" for i in range(union - common - only)]
open(f"{tmp}/a.txt", "w").write(" ".join(a) + "\n")
open(f"{tmp}/b.txt", "w").write(" ".join(b) + "\n")
PY
    for kind in classic oph block; do
      for seed in $(seq "$seeds"); do
        "$bin" compare "$tmp/a.txt" "$tmp/b.txt" --shingle word -k 1 --minhash "$kind" --seed "$seed" \
          | awk -F, '$1 == "jaccard" {j = $2} $1 == "minhash_estimate" {e = $2} END {print j, e}'
      done | awk -v kind="$kind" -v union="$union" '
        {j = $1; s += $2; ss += $2 * $2; n++}
        END {m = s / n; sd = sqrt(ss / n - m * m);
             printf "%-8s %6d %6.4f %8.4f %+9.4f %8.4f %8.4f\n", kind, union, j, m, m - j, sd, sqrt(j * (1 - j) / 100)}'
    done
  done
done
