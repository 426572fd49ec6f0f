#!/usr/bin/env bash
# Issue #21: the price of scan's recall floor. Runs `scan DIR -t T` (defaults:
# tune's shape, method auto) with two binaries and prints the shape, CPU
# seconds (user + sys), peak RSS, candidates and pairs of each.
#   bench/recall_floor.sh OLD_BINARY NEW_BINARY [DATA_DIR]
set -uo pipefail
old=$1 new=$2 data=${3:-../shared/data}
for corpus in debian-docs django-docs; do
  for t in 0.5 0.7 0.8 0.9; do
    for bin in "$old" "$new"; do
      /usr/bin/time -f '%U %S %M' -o /tmp/recall_floor.time "$bin" scan "$data/$corpus/files" -t "$t" \
        -o /dev/null 2>/tmp/recall_floor.err
      read -r user sys rss </tmp/recall_floor.time
      summary=$(grep 'simfind: .* files' /tmp/recall_floor.err)
      shape=$(grep -oE '[0-9]+×[0-9]+ chosen' <<<"$summary" | cut -d' ' -f1)
      cand=$(grep -oE '[0-9]+ (candidates|pairs verified)' <<<"$summary" | head -1 | cut -d' ' -f1)
      pairs=$(grep -oE '[0-9]+ pairs? with' <<<"$summary" | cut -d' ' -f1)
      method=$(grep -oE 'method auto: [a-z]+' <<<"$summary" | cut -d' ' -f3)
      printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%d MB\t%s\t%s\n' "$corpus" "$t" "$(basename "$(dirname "$(dirname "$bin")")")" \
        "$shape" "$method" "$(echo "$user + $sys" | bc)" $((rss / 1024)) "$cand" "$pairs"
    done
  done
done
