#!/usr/bin/env bash
# Time and peak memory of a default scan as the number of documents grows
# (issue #22: "time linear in documents, peak RSS at least 20 % under
# 1.5 × signature bytes + 64 MB"). Each argument is one corpus, given as a
# colon-separated list of roots; every corpus is scanned ROUNDS times in turn
# (smallest first) and one line printed per run:
#   files wall-s user-s sys-s peak-RSS-KB n budget-MB rss/budget
# where n is the signature length the scan chose (its summary's bands × rows)
# and budget = 1.5 × files × n × 4 B + 64 MB (MB = 10^6 B).
#   SIMFIND=target/release/simfind ROUNDS=2 bash bench/many_docs.sh A A:B
# Documents: python3 bench/gen_small_files.py A --seed 1 (and B --seed 2), a
# million small files each; the second corpus here is both, two million.
# PAIRS=DIR keeps each run's pairs as DIR/<files>.csv (the last round's), to
# `cmp` two binaries' outputs.
set -euo pipefail
bin=${SIMFIND:-target/release/simfind}
rounds=${ROUNDS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for round in $(seq "$rounds"); do
  for corpus in "$@"; do
    IFS=: read -r -a roots <<<"$corpus"
    /usr/bin/time -o "$tmp/time" -f "%e %U %S %M" "$bin" scan "${roots[@]}" -t 0.8 \
      -o "$tmp/pairs.csv" 2>"$tmp/err"
    summary=$(grep -m1 ' files, ' "$tmp/err")
    files=$(sed -E 's/^simfind: ([0-9]+) files.*/\1/' <<<"$summary")
    n=$(sed -E 's/.* ([0-9]+) bands × ([0-9]+) rows.*/\1 \2/' <<<"$summary" | awk '{print $1 * $2}')
    read -r wall user sys rss <"$tmp/time"
    if [ -n "${PAIRS:-}" ]; then cp "$tmp/pairs.csv" "$PAIRS/$files.csv"; fi
    awk -v f="$files" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v n="$n" -v round="$round" \
      'BEGIN { b = (1.5 * f * n * 4 + 64e6) / 1e6;
               printf "round %d: %d files %.1f s wall %.1f user %.1f sys %d KB n=%d budget %.0f MB rss/budget %.3f\n",
                      round, f, w, u, s, r, n, b, r * 1024 / 1e6 / b }'
  done
done
