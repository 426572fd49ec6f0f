#!/usr/bin/env bash
# Peak RSS of scans of n identical files (reliability review, cases 5.1–5.3):
# pairs, groups and removable paths, for n = 2,500 / 5,000 / 10,000.
#   bench/identical_memory.sh [BINARY] [WORKDIR]
# Prints one line per run: n, output, peak RSS (KB), wall seconds.
set -euo pipefail
bin=${1:-target/release/simfind}
work=${2:-$(mktemp -d)}
text=$(python3 -c "print(('the quick brown fox jumps over the lazy dog ' * 24)[:995], end='')")
for n in 2500 5000 10000; do
  dir="$work/ident$n"
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    for i in $(seq -w 1 "$n"); do printf '%s' "$text" > "$dir/f$i.txt"; done
  fi
  for mode in pairs "--format clusters" --list-removable; do
    args=()
    [ "$mode" != pairs ] && args=($mode)
    r=$({ /usr/bin/time -f "%M %e" "$bin" --threads 1 scan -q "$dir" "${args[@]}" > /dev/null; } 2>&1 | tail -1)
    echo "n=$n  $mode  peak_rss_kb,wall_s=$r"
  done
done
