#!/usr/bin/env bash
# CPU (user + sys) of `simfind scan` for two or more binaries, interleaved in one
# run so that they share the machine's load: the end-to-end check of the front
# end (normalise, hash, dedup, sign). Prints the median of ROUNDS runs per
# binary, corpus and kernel, and `cat` of the same files for scale.
#
#   bash bench/front.sh ROUNDS BIN1 BIN2 ...
#   e.g. bash bench/front.sh 5 /tmp/simfind-before target/release/simfind
#
# Output files go to a temporary directory (never -o /dev/null).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
shift
DATA=${SIMFIND_DATA:-../shared/data}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %-8s %-40s %8s %8s\n' corpus minhash binary cpu_s wall_s
for corpus in debian-docs django-docs; do
  files="$DATA/$corpus/files"
  for mh in classic oph; do
    for bin in "$@"; do
      : >"$OUT/cpu" && : >"$OUT/wall"
      for _ in $(seq "$ROUNDS"); do
        /usr/bin/time -f '%U %S %e' -o "$OUT/time" "$bin" scan "$files" \
          -b 20 -r 5 -t 0.8 --method lsh --minhash "$mh" -o "$OUT/pairs.csv" 2>/dev/null
        read -r u s e <"$OUT/time"
        echo "$u + $s" | bc >>"$OUT/cpu"
        echo "$e" >>"$OUT/wall"
      done
      printf '%-12s %-8s %-40s %8s %8s\n' "$corpus" "$mh" "$bin" \
        "$(median <"$OUT/cpu")" "$(median <"$OUT/wall")"
    done
  done
  : >"$OUT/wall"
  for _ in $(seq "$ROUNDS"); do
    /usr/bin/time -f '%U %S %e' -o "$OUT/time" \
      sh -c "find '$files' -type f -print0 | xargs -0 cat > '$OUT/cat'"
    read -r u s e <"$OUT/time"
    echo "$e" >>"$OUT/wall"
  done
  printf '%-12s %-8s %-40s %8s %8s\n' "$corpus" - cat - "$(median <"$OUT/wall")"
done
