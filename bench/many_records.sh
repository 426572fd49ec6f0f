#!/usr/bin/env bash
# Time and peak memory of a default records scan (`scan --input jsonl`, or
# `--input csv` for a file named *.csv: gen_jsonl.py --csv) as
# the number of documents grows (issue #22: ten million documents, "peak RSS
# at least 20 % under 1.5 × signature bytes + 64 MB", "2× documents ≤ 2.2×
# time"). The corpora are the first N lines of one JSON Lines file:
#   python3 bench/gen_jsonl.py target/corpus/r10m.jsonl        # 10 M records, 830 MB
#   SIMFIND=target/release/simfind ROUNDS=3 bash bench/many_records.sh \
#     target/corpus/r10m.jsonl 1000000 2000000 5000000 10000000
# One line per run: records wall-s user-s sys-s cpu-s peak-RSS-KB n budget-MB
# rss/budget pairs load (n: the signature length the scan chose; budget =
# 1.5 × records × n × 4 B + 64 MB, MB = 10^6 B; cpu = user + sys, what the
# linearity is judged by on a shared machine; load: the 1-minute load
# average as the run began). The prefixes are written beside the file and
# removed. ARGS: more scan arguments (CSV records are shingled by 2
# characters by default, JSON Lines by 5: ARGS="-k 5" compares the two on
# the same shingles). Rounds go through every size in turn, so that a size's runs see
# the same spread of load; take each size's median.
set -euo pipefail
bin=${SIMFIND:-target/release/simfind}
rounds=${ROUNDS:-1}
file=$1
shift
kind=jsonl
header=0
case $file in *.csv) kind=csv header=1 ;; esac
tmp=$(mktemp -d "$(dirname "$file")/many_records.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for count in "$@"; do
  head -n "$((count + header))" "$file" >"$tmp/$count.$kind"
done
for round in $(seq "$rounds"); do
  for count in "$@"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -o "$tmp/time" -f "%e %U %S %M" "$bin" scan --input "$kind" "$tmp/$count.$kind" \
      ${ARGS:-} -t 0.8 -o "$tmp/pairs.csv" 2>"$tmp/err"
    summary=$(grep -m1 ' records (' "$tmp/err")
    records=$(sed -E 's/^simfind: ([0-9]+) records.*/\1/' <<<"$summary")
    n=$(sed -E 's/.* ([0-9]+) bands × ([0-9]+) rows.*/\1 \2/' <<<"$summary" | awk '{print $1 * $2}')
    pairs=$(($(wc -l <"$tmp/pairs.csv") - 1))
    read -r wall user sys rss <"$tmp/time"
    awk -v f="$records" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v n="$n" \
      -v round="$round" -v p="$pairs" -v load="$load" \
      'BEGIN { b = (1.5 * f * n * 4 + 64e6) / 1e6;
               printf "round %d: %d records %.1f s wall %.1f user %.1f sys %.1f cpu %d KB n=%d budget %.0f MB rss/budget %.3f pairs %d load %s\n",
                      round, f, w, u, s, u + s, r, n, b, r * 1024 / 1e6 / b, p, load }'
  done
done
