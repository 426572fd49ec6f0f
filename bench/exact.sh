#!/usr/bin/env bash
# simfind --method exact vs --method lsh at several thresholds on one corpus:
# wall and CPU seconds, peak RSS, pairs, and precision/recall against the
# corpus's exact truth (truth_char5.csv restricted to Jaccard >= t).
#
#   bench/exact.sh CORPUS [T ...]      e.g. bench/exact.sh ../shared/data/debian-docs 0.8 0.9
#
# CORPUS holds files/ and truth_char5.csv (see ../shared/data/README.md).
# Uses target/release/simfind (build it first). Defaults: char 5-shingles,
# 20 bands x 5 rows. The machine is shared: compare ratios within one run,
# and prefer the CPU column (user+sys) when the load average is above 2.
#
# A second table runs --method exact with each --exact-index of MMDS 3.9
# (EXACT_INDEXES, default "ppjoin length prefix position suffix"; set it empty
# to skip): index entries, entries the probes found, buckets looked into and
# pairs compared in full, as the summary line counts them.
set -euo pipefail
corpus="${1:?usage: bench/exact.sh CORPUS [T ...]}"; shift
thresholds=("${@:-0.5 0.7 0.8 0.9 0.95}")
[ $# -eq 0 ] && thresholds=(0.5 0.7 0.8 0.9 0.95)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${SIMFIND:-$here/target/release/simfind}"
out="${TMPDIR:-/tmp}/simfind-exact-bench"
mkdir -p "$out"
files="$(cd "$corpus/files" && pwd)"
printf '| corpus | t | method | wall s | CPU s | peak RSS MB | pairs | precision | recall | load |\n|---|--:|---|--:|--:|--:|--:|--:|--:|--:|\n'
for t in "${thresholds[@]}"; do
  for method in exact lsh; do
    load="$(cut -d' ' -f1 /proc/loadavg)"
    csv="$out/$(basename "$corpus")-$method-$t.csv"
    timing="$(/usr/bin/time -f '%e %U %S %M' "$bin" scan "$files" -q -t "$t" --method "$method" -o "$csv" 2>&1 | tail -1)"
    read -r wall user sys rss <<<"$timing"
    score="$(python3 - "$csv" "$corpus/truth_char5.csv" "$t" "$files/" <<'PY'
import csv, sys
pred_path, truth_path, t, prefix = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
with open(pred_path, newline="") as f:
    rows = list(csv.reader(f))[1:]
pred = {(a[len(prefix):], b[len(prefix):]) for a, b, *_ in rows}
with open(truth_path, newline="") as f:
    truth = {(a, b) for a, b, j in list(csv.reader(f))[1:] if float(j) >= t}
tp = len(pred & truth)
print(len(pred), f"{tp / max(len(pred), 1):.4f}", f"{tp / max(len(truth), 1):.4f}")
PY
)"
    read -r pairs precision recall <<<"$score"
    cpu="$(python3 -c "print(f'{$user + $sys:.2f}')")"
    printf '| %s | %s | %s | %s | %s | %d | %s | %s | %s | %s |\n' \
      "$(basename "$corpus")" "$t" "$method" "$wall" "$cpu" "$((rss / 1024))" "$pairs" "$precision" "$recall" "$load"
  done
done

indexes="${EXACT_INDEXES-ppjoin length prefix position suffix}"
[ -z "$indexes" ] && exit 0
printf '\n| corpus | t | --exact-index | wall s | CPU s | peak RSS MB | index entries | entries found | buckets | pairs compared | pairs | precision | recall | load |\n|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n'
for t in "${thresholds[@]}"; do
  for index in $indexes; do
    load="$(cut -d' ' -f1 /proc/loadavg)"
    csv="$out/$(basename "$corpus")-exact-$index-$t.csv"
    err="$out/$(basename "$corpus")-exact-$index-$t.err"
    /usr/bin/time -o "$err.time" -f '%e %U %S %M' \
      "$bin" scan "$files" -t "$t" --method exact --exact-index "$index" -o "$csv" 2>"$err"
    read -r wall user sys rss <"$err.time"
    work="$(python3 - "$err" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
num = lambda pat: (m.group(1).replace(",", "") if (m := re.search(pat, s)) else "-")
print(num(r"(\d[\d,]*) pairs? verified by the join"), num(r"index: (\d[\d,]*) entr"),
      num(r"and found (\d[\d,]*) entr") if "looked into" in s else num(r"probes found (\d[\d,]*) entr"),
      num(r"looked into (\d[\d,]*) bucket"))
PY
)"
    read -r compared entries found buckets <<<"$work"
    score="$(python3 - "$csv" "$corpus/truth_char5.csv" "$t" "$files/" <<'PY'
import csv, sys
pred_path, truth_path, t, prefix = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
with open(pred_path, newline="") as f:
    rows = list(csv.reader(f))[1:]
pred = {(a[len(prefix):], b[len(prefix):]) for a, b, *_ in rows}
with open(truth_path, newline="") as f:
    truth = {(a, b) for a, b, j in list(csv.reader(f))[1:] if float(j) >= t}
tp = len(pred & truth)
print(len(pred), f"{tp / max(len(pred), 1):.4f}", f"{tp / max(len(truth), 1):.4f}")
PY
)"
    read -r pairs precision recall <<<"$score"
    cpu="$(python3 -c "print(f'{$user + $sys:.2f}')")"
    printf '| %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
      "$(basename "$corpus")" "$t" "$index" "$wall" "$cpu" "$((rss / 1024))" "$entries" "$found" \
      "$buckets" "$compared" "$pairs" "$precision" "$recall" "$load"
  done
done
