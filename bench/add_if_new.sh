#!/usr/bin/env bash
# Streaming dedup (`query --db I --add-if-new -`, docs/SEARCH.md "Streaming
# dedup"), for docs/PERFORMANCE.md: throughput and latency of add-if-new
# against an index of N documents.
#   1. build the index of N small files (bench/gen_small_files.py, seed 1),
#   2. throughput: M other files (seed 2: every 50th a near copy of the one
#      before) streamed at once, as a pipeline does (`find | simfind query
#      --add-if-new -`): items/s, wall and CPU seconds,
#   3. latency: L more files fed one at a time, each answer awaited before
#      the next item is written (a client deciding item by item: every
#      answer is its own commit): p50/p99/max ms per item.
#
# Usage: bench/add_if_new.sh
# Env: SIMFIND (binary, default target/release/simfind), N (default 100000),
# M (default 20000), L (default 2000), WORK (keep the files and the index
# there and reuse them; default a temporary directory), EXACT=1 to add
# --exact (every document of a size that can reach T verified).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SIMFIND:-target/release/simfind}
[ -x "$BIN" ] || { echo "build first: cargo build --release" >&2; exit 2; }
N=${N:-100000}
M=${M:-20000}
L=${L:-2000}
if [ -n "${WORK:-}" ]; then
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/simfind-stream-bench.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi
EXTRA=()
[ -z "${EXACT:-}" ] || EXTRA+=(--exact)
[ -d "$WORK/base" ] || python3 bench/gen_small_files.py "$WORK/base" --files "$N" --seed 1
[ -d "$WORK/stream" ] || python3 bench/gen_small_files.py "$WORK/stream" --files $((M + L)) --seed 2
echo "index: $N files; stream: $M + $L files; binary $BIN; $(nproc) cores"

DB=$WORK/index.simfind
if [ ! -f "$WORK/index.ready" ]; then
  rm -f "$DB"
  /usr/bin/time -f "%e %U %S" -o "$WORK/index.time" "$BIN" index "$WORK/base" --db "$DB" -q
  touch "$WORK/index.ready"
  echo "1. index built: $(awk '{printf "%s s wall, %.2f s CPU", $1, $2 + $3}' "$WORK/index.time")"
fi
# Every run starts from the index of N documents.
cp "$DB" "$WORK/run.simfind"
find "$WORK/stream" -type f | sort > "$WORK/all.list"
head -n "$M" "$WORK/all.list" > "$WORK/batch.list"
tail -n "$L" "$WORK/all.list" > "$WORK/single.list"

/usr/bin/time -f "%e %U %S" -o "$WORK/stream.time" \
  "$BIN" query --db "$WORK/run.simfind" --add-if-new - "${EXTRA[@]}" \
  < "$WORK/batch.list" > "$WORK/batch.csv" 2> "$WORK/batch.err"
read -r wall user sys < "$WORK/stream.time"
new=$(grep -c ',new,' "$WORK/batch.csv" || true)
seen=$(grep -c ',seen,' "$WORK/batch.csv" || true)
awk -v m="$M" -v w="$wall" -v u="$user" -v s="$sys" -v n="$new" -v e="$seen" 'BEGIN {
  printf "2. streamed at once: %d items in %.2f s wall (%.0f items/s), %.2f s CPU; %d new, %d seen\n",
    m, w, m / w, u + s, n, e }'

python3 bench/add_if_new_latency.py "$BIN" "$WORK/run.simfind" "$WORK/single.list" "${EXTRA[@]}"
