#!/bin/bash
# What `--method auto` costs beside the better of `--method exact` and
# `--method lsh`, on documents and on the three shapes issue #14 names: many
# tiny files of one vocabulary (where the exact join's probes explode and auto
# gives the join up), a few huge files, and many identical files: user CPU
# seconds of each, and auto ÷ the cheaper one.
#   bench/auto_method.sh [BINARY] [THRESHOLDS...]
# One line per corpus and threshold:
#   corpus t auto-s exact-s lsh-s auto/min auto's-choice
# The generated corpora (bench/gen_small_files.py: 50,000 tiny files; 16
# files of 1.8–3.6 MB; 5,000 tiny files written 10 times each) are made once
# under target/bench-corpus/. Run from the project root.
set -euo pipefail
bin=${1:-target/release/simfind}
shift || true
thresholds=("${@:-0.3 0.5 0.8}")
thresholds=(${thresholds[@]})
tiny=target/bench-corpus/tiny50k
huge=target/bench-corpus/huge16
copies=target/bench-corpus/copies50k
[ -d "$tiny" ] || python3 bench/gen_small_files.py "$tiny" --files 50000
[ -d "$huge" ] || python3 bench/gen_small_files.py "$huge" --files 16 --words 300000,600000
[ -d "$copies" ] || python3 bench/gen_small_files.py "$copies" --files 5000 --copies 10
tmp=$(mktemp -d)
trap 'rm -r "$tmp"' EXIT
user() { # user CPU seconds of one scan
  /usr/bin/time -o "$tmp/time" -f "%U" "$bin" scan "$@" -o /dev/null 2>"$tmp/err"
  cat "$tmp/time"
}
for corpus in ../shared/data/debian-docs/files ../shared/data/django-docs/files \
  "$tiny" "$huge" "$copies"; do
  name=$(basename "$(dirname "$corpus")")
  case "$corpus" in target/bench-corpus/*) name=$(basename "$corpus") ;; esac
  for t in "${thresholds[@]}"; do
    auto=$(user "$corpus" -t "$t")
    choice=$(grep -o 'method auto: [a-z]* ([^,;)]*' "$tmp/err" | head -1 | cut -c14-)
    exact=$(user "$corpus" -q -t "$t" --method exact)
    lsh=$(user "$corpus" -q -t "$t" --method lsh)
    awk -v n="$name" -v t="$t" -v a="$auto" -v e="$exact" -v l="$lsh" -v c="$choice" \
      'BEGIN { m = e < l ? e : l; printf "%s %s %.2f %.2f %.2f %.2f %s\n", n, t, a, e, l, a / m, c }'
  done
done
