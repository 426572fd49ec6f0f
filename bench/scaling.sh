#!/usr/bin/env bash
# Time and peak memory of `simfind scan` on growing prefixes of a corpus.
#
#   bench/scaling.sh CORPUS_FILES_DIR [WORK_DIR] [-- extra simfind args]
#
# Builds hard-linked prefixes of CORPUS_FILES_DIR (sorted file list cut at 1/8, 1/4, 1/2
# and all of its bytes, so that each prefix holds twice the data of the one before)
# under WORK_DIR (default /tmp/simfind-scaling), warms the
# page cache with cat, then runs the release binary on each and prints
#   fraction files MB wall_s cpu_s MB/s peak_RSS_MB budget_MB time_ratio data_ratio
# where budget = 1.5 × files × n × 4 bytes + 64 MB (n = 100, issue #5's memory bound)
# and the time ratio to the previous (half as large) prefix. Linear scaling means
# each ratio ≤ 2.2. Example (linux-scale, built by ../shared/data/build_linux_scale.sh):
#   bench/scaling.sh /root/linux-scale/files
set -euo pipefail
SRC="${1:?corpus files dir}"; shift
WORK="/tmp/simfind-scaling"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then WORK="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
EXTRA=("$@")
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/target/release/simfind"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release --quiet)
mkdir -p "$WORK"
# "path<TAB>size" records, NUL-terminated, in path-byte order.
(cd "$SRC" && find . -type f -printf '%p\t%s\0' | LC_ALL=C sort -z) > "$WORK/all.sized0"
total_bytes=$(awk -v RS='\0' -F'\t' '{s += $NF} END {printf "%d", s}' "$WORK/all.sized0")
printf 'fraction\tfiles\tMB\twall_s\tcpu_s\tMB/s\tpeak_RSS_MB\tbudget_MB\ttime_ratio\tdata_ratio\tload\n'
prev=""; prev_bytes=""
for frac in 8 4 2 1; do
  dir="$WORK/bytes-$frac"
  if [ ! -f "$dir.done" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    # The longest prefix of the sorted list within total/frac bytes.
    awk -v RS='\0' -v ORS='\0' -F'\t' -v limit="$((total_bytes / frac))" \
        '{ s += $NF; if (s > limit) exit; sub(/\t[0-9]+$/, ""); print }' "$WORK/all.sized0" \
      | (cd "$SRC" && xargs -0 cp --parents -l -t "$dir")
    touch "$dir.done"
  fi
  count=$(find "$dir" -type f | wc -l)
  bytes=$(find "$dir" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
  find "$dir" -type f -print0 | xargs -0 cat > /dev/null
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" "$BIN" scan "$dir" -q -o "$WORK/out.csv" "${EXTRA[@]}" || true
  read -r wall user sys rss < "$WORK/time.txt"
  ratio="-"; dratio="-"
  if [ -n "$prev" ]; then
    ratio=$(awk -v a="$wall" -v b="$prev" 'BEGIN {printf "%.2f", a / b}')
    dratio=$(awk -v a="$bytes" -v b="$prev_bytes" 'BEGIN {printf "%.2f", a / b}')
  fi
  awk -v f="1/$frac" -v n="$count" -v b="$bytes" -v w="$wall" -v c="$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" \
      -v r="$rss" -v q="$ratio" -v d="$dratio" -v l="$load" \
    'BEGIN {printf "%s\t%d\t%.0f\t%.2f\t%.2f\t%.1f\t%.0f\t%.0f\t%s\t%s\t%s\n", f, n, b/1e6, w, c, b/1e6/w, r/1024, (1.5*n*100*4)/1048576+64, q, d, l}'
  prev="$wall"; prev_bytes="$bytes"
done
