#!/usr/bin/env bash
# `scan --input parquet` against `scan --input jsonl` on the same records
# (issue #35 point 4): what reading a Parquet table costs beside the JSON
# Lines file of the same rows, in wall time, CPU seconds and peak memory.
#   SIMFIND=target/release/simfind ROUNDS=3 bash bench/parquet_input.sh [RECORDS]
# RECORDS (default 1,000,000) short records from bench/gen_jsonl.py, written
# as JSON Lines and, by pyarrow (the engines' venv, scripts/setup-engines.sh),
# as Parquet with row groups of 100,000 rows. One line per run: kind wall-s
# cpu-s peak-RSS-KB pairs; rounds alternate the two kinds, so that both see
# the same load. Compare the two kinds' medians within one run.
set -euo pipefail
bin=${SIMFIND:-target/release/simfind}
rounds=${ROUNDS:-3}
records=${1:-1000000}
python=${PYTHON:-target/engines/venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 bench/gen_jsonl.py "$tmp/r.jsonl" --records "$records" >/dev/null
"$python" - "$tmp/r.jsonl" "$tmp/r.parquet" <<'PY'
import sys, pyarrow.json as pj, pyarrow.parquet as pq
pq.write_table(pj.read_json(sys.argv[1]), sys.argv[2], row_group_size=100_000)
PY
printf 'kind\twall_s\tcpu_s\trss_kb\tpairs\n'
for _ in $(seq "$rounds"); do
  for kind in jsonl parquet; do
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
      "$bin" scan --input "$kind" "$tmp/r.$kind" -q > "$tmp/pairs.csv"
    read -r wall user sys rss < "$tmp/time"
    printf '%s\t%s\t%.2f\t%s\t%s\n' "$kind" "$wall" "$(echo "$user + $sys" | bc)" "$rss" \
      "$(($(wc -l < "$tmp/pairs.csv") - 1))"
  done
done
cmp <("$bin" scan --input jsonl "$tmp/r.jsonl" -q) <("$bin" scan --input parquet "$tmp/r.parquet" -q) \
  && echo "same pairs" >&2
