#!/bin/bash
# What `--method auto` costs beside the better of `--method exact` and
# `--method lsh`, on documents and on many tiny files of one vocabulary (the
# shape where the exact join's probes explode and auto gives the join up after
# its sample): user CPU seconds of each, and auto ÷ the cheaper one.
#   bench/auto_method.sh [BINARY] [THRESHOLDS...]
# One line per corpus and threshold:
#   corpus t auto-s exact-s lsh-s auto/min auto's-choice
# The tiny files (50,000, from bench/gen_small_files.py) are generated once
# under target/bench-corpus/. Run from the project root.
set -euo pipefail
bin=${1:-target/release/simfind}
shift || true
thresholds=("${@:-0.3 0.5 0.8}")
thresholds=(${thresholds[@]})
tiny=target/bench-corpus/tiny50k
if [ ! -d "$tiny" ]; then
  python3 bench/gen_small_files.py "$tiny" --files 50000
fi
tmp=$(mktemp -d)
trap 'rm -r "$tmp"' EXIT
user() { # user CPU seconds of one scan
  /usr/bin/time -o "$tmp/time" -f "%U" "$bin" scan "$@" -o /dev/null 2>"$tmp/err"
  cat "$tmp/time"
}
for corpus in ../shared/data/debian-docs/files ../shared/data/django-docs/files "$tiny"; do
  name=$(basename "$(dirname "$corpus")"); [ "$corpus" = "$tiny" ] && name=tiny50k
  for t in "${thresholds[@]}"; do
    auto=$(user "$corpus" -t "$t")
    choice=$(grep -o 'method auto: [a-z]* ([^,;)]*' "$tmp/err" | head -1 | cut -c14-)
    exact=$(user "$corpus" -q -t "$t" --method exact)
    lsh=$(user "$corpus" -q -t "$t" --method lsh)
    awk -v n="$name" -v t="$t" -v a="$auto" -v e="$exact" -v l="$lsh" -v c="$choice" \
      'BEGIN { m = e < l ? e : l; printf "%s %s %.2f %.2f %.2f %.2f %s\n", n, t, a, e, l, a / m, c }'
  done
done
