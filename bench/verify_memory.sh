#!/usr/bin/env bash
# Peak RSS of --verify signature on one large file (reliability review, case
# 5.11) and of exact verification of one pair of huge sets under
# --verify-memory (case 5.10).
#   bench/verify_memory.sh [BINARY] [WORKDIR]
# WORKDIR gets l4/f.txt (100 MB of base64, 76-column lines) and l2/{x,y}.txt
# (40 MB whitespace-free base64, one byte apart), made once.
# Prints one line per run: case, peak RSS (KB), wall and user seconds.
# CASES=l2 runs only the whitespace-free pair (CASES=l4 only the large file).
set -euo pipefail
bin=${1:-target/release/simfind}
work=${2:-$(mktemp -d)}
mkdir -p "$work/l4" "$work/l2"
cases=${CASES:-l4 l2}
if [[ $cases == *l4* && ! -f $work/l4/f.txt ]]; then
  head -c 75000000 /dev/urandom | base64 > "$work/l4/f.txt"
fi
if [ ! -f "$work/l2/y.txt" ]; then
  head -c 30000000 /dev/urandom | base64 -w0 > "$work/l2/x.txt"
  cp "$work/l2/x.txt" "$work/l2/y.txt"
  printf 'Q' | dd of="$work/l2/y.txt" bs=1 seek=20000000 conv=notrunc 2>/dev/null
fi
run() {
  local name=$1; shift
  r=$({ /usr/bin/time -f "%M %e %U" "$bin" "$@" > /dev/null; } 2>&1 | tail -1)
  echo "$name  peak_rss_kb,wall_s,user_s=$r"
}
if [[ $cases == *l4* ]]; then
run "l4 lsh" --threads 1 scan -q "$work/l4"
run "l4 --verify signature" --threads 1 scan -q "$work/l4" --verify signature
run "l4 --verify signature --verify-memory 64M" --threads 1 scan -q "$work/l4" --verify signature --verify-memory 64M
fi
[[ $cases == *l2* ]] || exit 0
for cap in 16M 100M 1G; do
  run "l2 --method lsh --verify-memory $cap (1 thread)" --threads 1 scan -q "$work/l2" --method lsh --verify-memory "$cap"
  run "l2 --verify-memory $cap (2 threads)" scan -q "$work/l2" --verify-memory "$cap"
done
