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
# With KIND=jsonl the items are JSON Lines records instead of files
# (bench/gen_jsonl.py: 4–12 words each, every 50th a near copy), indexed
# with `index --input jsonl` and streamed with `--input jsonl`: ten million
# records are one 600 MB file where ten million files are 40 GB of blocks.
#
# Usage: bench/add_if_new.sh
# Env: SIMFIND (binary, default target/release/simfind), KIND (files or
# jsonl, default files), N (default 100000),
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
KIND=${KIND:-files}
KIND_ARGS=()
EXTRA=()
[ -z "${EXACT:-}" ] || EXTRA+=(--exact)
case "$KIND" in
  files)
    [ -d "$WORK/base" ] || python3 bench/gen_small_files.py "$WORK/base" --files "$N" --seed 1
    [ -d "$WORK/stream" ] || python3 bench/gen_small_files.py "$WORK/stream" --files $((M + L)) --seed 2
    BASE=$WORK/base ;;
  jsonl)
    [ -f "$WORK/base.jsonl" ] || python3 bench/gen_jsonl.py "$WORK/base.jsonl" --records "$N" --seed 1
    # Ids of their own, so that a streamed record is never taken for an indexed one.
    [ -f "$WORK/stream.jsonl" ] || python3 bench/gen_jsonl.py /dev/stdout --records $((M + L)) --seed 2 \
      | sed 's/^{"id":"r/{"id":"s/' > "$WORK/stream.jsonl"
    BASE=$WORK/base.jsonl
    KIND_ARGS+=(--input jsonl) ;;
  *) echo "KIND is files or jsonl" >&2; exit 2 ;;
esac
echo "index: $N $KIND items; stream: $M + $L; binary $BIN; $(nproc) cores"

DB=$WORK/index.simfind
if [ ! -f "$WORK/index.ready" ]; then
  rm -f "$DB"
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/index.time" "$BIN" index "$BASE" --db "$DB" -q "${KIND_ARGS[@]}"
  touch "$WORK/index.ready"
  echo "1. index built: $(awk '{printf "%s s wall, %.2f s CPU, %d MB peak RSS", $1, $2 + $3, $4 / 1024}' "$WORK/index.time"); $(du -h "$DB" | cut -f1)"
fi
# Every run starts from the index of N documents.
cp "$DB" "$WORK/run.simfind"
if [ "$KIND" = files ]; then
  find "$WORK/stream" -type f | sort > "$WORK/all.list"
else
  cp "$WORK/stream.jsonl" "$WORK/all.list"
fi
head -n "$M" "$WORK/all.list" > "$WORK/batch.list"
tail -n "$L" "$WORK/all.list" > "$WORK/single.list"

/usr/bin/time -f "%e %U %S" -o "$WORK/stream.time" \
  "$BIN" query --db "$WORK/run.simfind" --add-if-new - "${KIND_ARGS[@]}" "${EXTRA[@]}" \
  < "$WORK/batch.list" > "$WORK/batch.csv" 2> "$WORK/batch.err"
read -r wall user sys < "$WORK/stream.time"
new=$(grep -c ',new,' "$WORK/batch.csv" || true)
seen=$(grep -c ',seen,' "$WORK/batch.csv" || true)
awk -v m="$M" -v w="$wall" -v u="$user" -v s="$sys" -v n="$new" -v e="$seen" 'BEGIN {
  printf "2. streamed at once: %d items in %.2f s wall (%.0f items/s), %.2f s CPU; %d new, %d seen\n",
    m, w, m / w, u + s, n, e }'

python3 bench/add_if_new_latency.py "$BIN" "$WORK/run.simfind" "$WORK/single.list" "${KIND_ARGS[@]}" "${EXTRA[@]}"
