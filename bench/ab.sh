#!/bin/bash
# Alternating old/new end-to-end scans on debian-docs and django-docs, oph and
# classic, with /usr/bin/time; one line per run:
#   round corpus mode old|new elapsed-s user-s maxrss-KB
# and a cmp of each pair of CSVs at the end. Run from the project root:
#   bench/ab.sh OLD_BINARY NEW_BINARY [ROUNDS]
set -euo pipefail
old=$1 new=$2 rounds=${3:-5}
tmp=$(mktemp -d)
for round in $(seq "$rounds"); do
  for corpus in debian-docs django-docs; do
    for mode in oph classic; do
      extra=(); [ "$mode" = oph ] && extra=(--minhash oph)
      for which in old new; do
        bin=$old; [ "$which" = new ] && bin=$new
        /usr/bin/time -o "$tmp/time" -f "%e %U %M" "$bin" scan "../shared/data/$corpus/files" \
          -q -b 20 -r 5 -t 0.8 "${extra[@]}" -o "$tmp/$corpus-$mode-$which.csv" 2>/dev/null
        echo "$round $corpus $mode $which $(cat "$tmp/time")"
      done
    done
  done
done
for corpus in debian-docs django-docs; do
  for mode in oph classic; do
    cmp "$tmp/$corpus-$mode-old.csv" "$tmp/$corpus-$mode-new.csv" >&2 && echo "$corpus $mode: CSVs identical" >&2
  done
done
rm -r "$tmp"
