#!/usr/bin/env bash
# read() vs mmap for input::read, by file size and on the real corpora.
# Hot page cache (best of N rounds), so this measures system-call, copy and
# page-table cost, not the disk. Compare ratios within one run only.
#
#   bash bench/read_vs_mmap.sh [ROUNDS] [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
WORK=${2:-${TMPDIR:-/tmp}/simfind-readbench}
TOTAL=$((128 * 1024 * 1024))   # bytes per size class
cargo build --release --example read_bench >&2
BIN=target/release/examples/read_bench

mkdir -p "$WORK"
for size in 4096 65536 262144 1048576 4194304 16777216 67108864; do
  d="$WORK/$size"
  if [ ! -d "$d" ]; then
    mkdir -p "$d"
    n=$((TOTAL / size))
    head -c "$size" /dev/urandom | base64 -w 76 > "$d/0"
    truncate -s "$size" "$d/0"
    for i in $(seq 1 $((n - 1))); do cp "$d/0" "$d/$i"; done
  fi
  for threads in 1 2; do
    for thr in never 0; do
      printf 'size=%-9s ' "$size"
      "$BIN" "$thr" "$threads" "$ROUNDS" "$d"
    done
  done
done

DATA=${SIMFIND_DATA:-../shared/data}
for corpus in debian-docs django-docs; do
  [ -d "$DATA/$corpus/files" ] || continue
  for thr in never 1048576 262144 0; do
    printf 'corpus=%-12s ' "$corpus"
    "$BIN" "$thr" 2 "$ROUNDS" "$DATA/$corpus/files"
  done
done
