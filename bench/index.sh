#!/usr/bin/env bash
# Cost of the persistent index (docs/INDEX.md), for docs/PERFORMANCE.md:
#   1. first `simfind index` of the corpus,
#   2. re-index with nothing changed (median of 3),
#   3. re-index with 1 % of the files changed,
#   4. `scan --db` after that vs a fresh `scan` (same output, checked),
#   5. `query` latency, one document per process, warm cache (wall and CPU ms;
#      bench/index_query.py),
#   6. database size per document.
#
# Usage: bench/index.sh [DIR...]
#   default DIRs: ../shared/data/linux-scale/files (build it with
#   ../shared/data/build_linux_scale.sh), debian-docs/files, django-docs/files.
# Env: SIMFIND (binary, default target/release/simfind), SKIP_SCAN=1 to skip step 4,
# QUERIES (documents queried in step 5, default 25), QUERY_BASELINE (a second binary
# whose queries are timed alternately on the same index), INDEX_BASELINE (a second
# binary whose unchanged re-index of step 2 is timed alternately, against the same
# first build; step 2 then also prints each binary's CPU seconds).
# STEPS (e.g. "1 2", then "5 6"): run only these steps, and INDEX_WORK=DIR: work in
# DIR and keep it (the copy and the first build's time are reused by a later run with
# the same DIR): so that a long benchmark is several short runs under one lock each.
#
# The corpora are never modified: the script works on a hard-linked copy in a
# temporary directory and "changes" a file by replacing its link with a new
# file, never by writing through it.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SIMFIND:-target/release/simfind}
[ -x "$BIN" ] || { echo "build first: cargo build --release" >&2; exit 2; }
if [ $# -eq 0 ]; then
  set -- ../shared/data/linux-scale/files ../shared/data/debian-docs/files ../shared/data/django-docs/files
fi
if [ -n "${INDEX_WORK:-}" ]; then
  WORK=$INDEX_WORK
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/simfind-index-bench.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi
step() { [ -z "${STEPS:-}" ] || [[ " $STEPS " == *" $1 "* ]]; }
ROOTS=()
i=0
for dir in "$@"; do
  [ -d "$dir" ] || { echo "no corpus at $dir" >&2; exit 2; }
  i=$((i + 1))
  [ -d "$WORK/root$i" ] || cp -al "$dir" "$WORK/root$i" 2>/dev/null || cp -a "$dir" "$WORK/root$i"
  ROOTS+=("$WORK/root$i")
done
DB=$WORK/index.simfind
FILES=$(find "${ROOTS[@]}" -type f | wc -l)
BYTES=$(du -sb "${ROOTS[@]}" | awk '{s += $1} END {print s}')
echo "corpus: $FILES files, $BYTES bytes in $# roots; binary $BIN; $(nproc) cores"

# Wall seconds of one command (its stderr goes to $WORK/last.err).
timed() {
  local start end
  start=$(date +%s%N)
  "$@" 2>"$WORK/last.err" >/dev/null
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN {printf "%.3f", ns / 1e9}'
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

if step 1; then
  /usr/bin/time -f "%e %U %S" -o "$WORK/first.time" "$BIN" index "${ROOTS[@]}" --db "$DB" 2>"$WORK/last.err" >/dev/null
  echo "1. first build:        $(awk '{print $1}' "$WORK/first.time") s, CPU $(awk '{print $2 + $3}' "$WORK/first.time") s   ($(tail -1 "$WORK/last.err"))"
fi
first=$(awk '{print $1}' "$WORK/first.time")
first_cpu=$(awk '{print $2 + $3}' "$WORK/first.time")

if ! step 2; then
  :
elif [ -z "${INDEX_BASELINE:-}" ]; then
  unchanged=$(for _ in 1 2 3; do timed "$BIN" index "${ROOTS[@]}" --db "$DB"; echo; done | median)
  echo "2. unchanged re-index: $unchanged s (median of 3) = $(awk -v a="$unchanged" -v b="$first" 'BEGIN {printf "%.1f", 100 * a / b}') % of the first build"
  echo "   ($(tail -1 "$WORK/last.err"))"
else
  # Alternating, three runs each: wall, user and system seconds per run.
  pair=("$INDEX_BASELINE" "$BIN")
  for i in 0 1; do : > "$WORK/unchanged.$i"; done
  for _ in 1 2 3; do
    for i in 0 1; do
      /usr/bin/time -f "%e %U %S" -o "$WORK/time.out" "${pair[$i]}" index "${ROOTS[@]}" --db "$DB" 2>"$WORK/last.err" >/dev/null
      cat "$WORK/time.out" >> "$WORK/unchanged.$i"
    done
  done
  for i in 0 1; do
    f=$WORK/unchanged.$i
    wall=$(awk '{print $1}' "$f" | median)
    cpu=$(awk '{print $2 + $3}' "$f" | median)
    echo "2. unchanged re-index, ${pair[$i]}: $wall s (median of $(awk '{printf "%s ", $1}' "$f")) =" \
      "$(awk -v a="$wall" -v b="$first" 'BEGIN {printf "%.2f", 100 * a / b}') % of the first build;" \
      "CPU $cpu s (median of $(awk '{printf "%.2f ", $2 + $3}' "$f")) =" \
      "$(awk -v a="$cpu" -v b="$first_cpu" 'BEGIN {printf "%.2f", 100 * a / b}') % of its CPU"
  done
  echo "   ($(tail -1 "$WORK/last.err"))"
fi

if step 3; then
# Change every 100th file (1 %): its text plus one line, as a new file with a
# modification time an hour ago (outside the 3 s "racy" window, as in a nightly run).
find "${ROOTS[@]}" -type f | sort | awk 'NR % 100 == 0' > "$WORK/changed.list"
while IFS= read -r f; do
  { cat "$f"; echo "changed by bench/index.sh"; } > "$f.new"
  mv -f "$f.new" "$f"
  touch -d '1 hour ago' "$f"
done < "$WORK/changed.list"
changed=$(timed "$BIN" index "${ROOTS[@]}" --db "$DB")
echo "3. 1 % changed ($(wc -l < "$WORK/changed.list") files): $changed s = $(awk -v a="$changed" -v b="$first" 'BEGIN {printf "%.1f", 100 * a / b}') % of the first build"
echo "   ($(tail -1 "$WORK/last.err"))"
fi

if step 4 && [ "${SKIP_SCAN:-0}" != 1 ]; then
  # Another 1 % (other files), then scan --db vs a fresh scan.
  find "${ROOTS[@]}" -type f | sort | awk 'NR % 100 == 50' > "$WORK/changed2.list"
  while IFS= read -r f; do
    { cat "$f"; echo "changed again"; } > "$f.new"; mv -f "$f.new" "$f"; touch -d '1 hour ago' "$f"
  done < "$WORK/changed2.list"
  withdb=$(timed "$BIN" scan "${ROOTS[@]}" --db "$DB" -t 0.8 -o "$WORK/db.csv")
  fresh=$(timed "$BIN" scan "${ROOTS[@]}" -t 0.8 -o "$WORK/fresh.csv")
  cmp -s "$WORK/db.csv" "$WORK/fresh.csv" && same=identical || same=DIFFERENT
  echo "4. scan --db -t 0.8 after another 1 %: $withdb s; fresh scan: $fresh s; outputs $same ($(($(wc -l < "$WORK/fresh.csv") - 1)) pairs)"
fi

# Query latency: $QUERIES documents (default 25) over 1 KiB, evenly spread over the
# corpus in path order, each queried 3 times in a row (the first warms the cache);
# the last run of each counts: wall and CPU ms per process (bench/index_query.py).
# With QUERY_BASELINE=BINARY, that binary is timed the same way on the same index,
# alternating with $BIN query by query (an A/B in one run), and the outputs of the
# two are compared query by query.
if step 5; then
find "${ROOTS[@]}" -type f -size +1k | sort > "$WORK/big.list"
awk -v n="${QUERIES:-25}" -v total="$(wc -l < "$WORK/big.list")" \
  'BEGIN {step = total / n} NR == int(k * step) + 1 && k < n {print; k++}' "$WORK/big.list" > "$WORK/queries.list"
for mode in exact signature; do
  python3 bench/index_query.py "$DB" "$WORK/queries.list" "$mode" "$BIN" ${QUERY_BASELINE:+"$QUERY_BASELINE"}
done
startup=$(for _ in 1 2 3 4 5; do timed "$BIN" --version; echo; done | median)
echo "   process start-up alone (simfind --version): $(awk -v s="$startup" 'BEGIN {printf "%.1f", s * 1000}') ms"
fi

step 6 || exit 0

SIZE=$(stat -c %s "$DB")
DOCS=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from documents').fetchone()[0])" "$DB")
echo "6. database: $SIZE bytes for $DOCS documents = $((SIZE / DOCS)) bytes per document"
python3 - "$DB" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
try:
    rows = c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    for name, size in rows:
        print(f"   {name:24s} {size:>12,d} bytes")
except sqlite3.OperationalError:
    pass
EOF
