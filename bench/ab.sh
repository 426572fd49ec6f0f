#!/bin/bash
# Alternating old/new end-to-end scans, oph and classic, with /usr/bin/time;
# one line per run:
#   round corpus mode old|new elapsed-s user-s sys-s maxrss-KB
# then the median of each column per corpus, mode and binary, and a cmp of
# each pair of CSVs at the end. Run from the project root:
#   bench/ab.sh OLD_BINARY NEW_BINARY [ROUNDS]
# The corpora are debian-docs and django-docs unless CORPORA names others,
# as corpus directories (a corpus's `files/`), e.g. the pair-dense ones of
# bench/gen_dense.sh:
#   CORPORA="$TMPDIR/dense/crates/files $TMPDIR/dense/pystdlib/files \
#     ../shared/data/debian-docs/files ../shared/data/django-docs/files" bench/ab.sh OLD NEW
set -euo pipefail
old=$1 new=$2 rounds=${3:-5}
corpora=${CORPORA:-"../shared/data/debian-docs/files ../shared/data/django-docs/files"}
name() { # a corpus's name: the directory above `files/`, else its own
  local d=${1%/}
  [ "$(basename "$d")" = files ] && d=$(dirname "$d")
  basename "$d"
}
tmp=$(mktemp -d)
for round in $(seq "$rounds"); do
  for dir in $corpora; do
    corpus=$(name "$dir")
    for mode in oph classic; do
      extra=(); [ "$mode" = oph ] && extra=(--minhash oph)
      for which in old new; do
        bin=$old; [ "$which" = new ] && bin=$new
        /usr/bin/time -o "$tmp/time" -f "%e %U %S %M" "$bin" scan "$dir" \
          -q -b 20 -r 5 -t 0.8 "${extra[@]}" -o "$tmp/$corpus-$mode-$which.csv" 2>/dev/null
        echo "$round $corpus $mode $which $(cat "$tmp/time")" | tee -a "$tmp/runs"
      done
    done
  done
done
echo "median over $rounds rounds: corpus mode old|new elapsed-s user-s sys-s maxrss-KB (load $(cut -d' ' -f1-3 /proc/loadavg))"
for dir in $corpora; do
  corpus=$(name "$dir")
  for mode in oph classic; do
    for which in old new; do
      awk -v c="$corpus" -v m="$mode" -v w="$which" '$2 == c && $3 == m && $4 == w' "$tmp/runs" |
        python3 -c 'import sys, statistics as s
rows = [l.split() for l in sys.stdin]
cols = [s.median(float(r[i]) for r in rows) for i in range(4, 8)]
print(*rows[0][1:4], "%.3f %.3f %.3f %d" % tuple(cols))'
    done
  done
done
for dir in $corpora; do
  corpus=$(name "$dir")
  for mode in oph classic; do
    cmp "$tmp/$corpus-$mode-old.csv" "$tmp/$corpus-$mode-new.csv" >&2 && echo "$corpus $mode: CSVs identical" >&2
  done
done
rm -r "$tmp"
