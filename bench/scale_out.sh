#!/usr/bin/env bash
# Rows, bytes, seconds and peak memory per stage of the scale-out path
# (docs/SCALE-OUT.md): sign in SHARDS shards (2 at a time, as `xargs -P` on
# one box), the band join in DuckDB (memory_limit and temp_directory set, so
# it spills rather than fails; with SPARK=1 also in Spark local mode),
# verify --pairs in one process and split by component in PARTS processes
# (run one after another, so each one's peak memory is its own); and
# `scan --method lsh` on the same corpus for comparison (SCAN=0 leaves it out).
#
#   bash bench/scale_out.sh CORPUS_DIR [SHARDS] [BINARY]
#   python3 bench/gen_small_files.py /tmp/sf1m --files 1000000   # a corpus (~4 GB of blocks)
#
# Environment: PARTS (verify parts, default 4), DUCK_MEMORY (default 2GB),
# DUCK_THREADS (default 2), SPARK=1, SCAN=0, BEFORE=OTHER_BINARY (the split
# verification run again with another simfind, e.g. main's, for a before/after
# in one run). Needs the engines' venv (bash
# scripts/setup-engines.sh) and GNU time (/usr/bin/time). Writes into a
# temporary directory under TMPDIR (default /tmp), removed at the end; check
# its free space first (about 700 B of Parquet a document, plus DuckDB's
# spill). Prints a Markdown table.
set -euo pipefail
corpus=${1:?usage: bench/scale_out.sh CORPUS_DIR [SHARDS] [BINARY]}
shards=${2:-4}
cd "$(dirname "$0")/.."
bin=$(realpath "${3:-target/release/simfind}")
parts=${PARTS:-4}
duck_memory=${DUCK_MEMORY:-2GB}
duck_threads=${DUCK_THREADS:-2}
py=target/engines/venv/bin/python
work=$(mktemp -d "${TMPDIR:-/tmp}/simfind-scale-out.XXXXXX")
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }
rows() { "$py" -c "import pyarrow.parquet as pq,sys; print(sum(pq.ParquetFile(f).metadata.num_rows for f in sys.argv[1:]))" "$@"; }
bytes() { du -cb "$@" | tail -1 | cut -f1; }
# Peak resident memory in MB of the commands timed into these files (GNU time's %M is KiB).
peak() { cat "$@" | sort -n | tail -1 | awk '{printf "%.0f", $1 / 1024}'; }
timed() { local log=$1; shift; /usr/bin/time -f '%M' -o "$log" "$@"; }

files=$(find "$corpus" -type f | wc -l)
echo "corpus $corpus: $files files, $(du -sb "$corpus" | cut -f1) bytes; $shards shards; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| stage | rows out | bytes out | seconds | peak MB (one process) |"
echo "|---|--:|--:|--:|--:|"

t0=$(now)
seq 0 $((shards - 1)) | xargs -P 2 -I{} /usr/bin/time -f '%M' -o "$work/sign-{}.mem" \
    "$bin" sign "$corpus" --out "$work/signed" --shard "{}/$shards" -j 1 -q
t1=$(now)
for table in docs signatures bands; do
    if [ $table = docs ]; then s=$(secs "$t0" "$t1"); m=$(peak "$work"/sign-*.mem); else s='″'; m='″'; fi
    echo "| sign → $table | $(rows "$work"/signed/$table/*.parquet) | $(bytes "$work"/signed/$table) | $s | $m |"
done

t0=$(now)
timed "$work/duck.mem" "$py" spark/simfind_lsh_duckdb.py "$work/signed" "$work/duck" --exact-pairs \
    --threads "$duck_threads" --memory-limit "$duck_memory" --temp-directory "$work/spill"
t1=$(now)
echo "| DuckDB band join ($duck_threads threads, memory_limit $duck_memory) → pairs | $(rows "$work"/duck/pairs/*.parquet) | $(bytes "$work/duck/pairs") | $(secs "$t0" "$t1") | $(peak "$work/duck.mem") |"
echo "| DuckDB → components | $(rows "$work"/duck/components/*.parquet) | $(bytes "$work/duck/components") | ″ | ″ |"

if [ "${SPARK:-0}" = 1 ]; then
    t0=$(now)
    "$py" spark/simfind_lsh.py "$work/signed" "$work/spark" --exact-pairs --master 'local[2]' --partitions 8 2>/dev/null
    t1=$(now)
    echo "| Spark local[2] band join → pairs | $(rows "$work"/spark/pairs/*.parquet) | $(bytes "$work/spark/pairs") | $(secs "$t0" "$t1") | |"
fi

t0=$(now)
timed "$work/verify.mem" "$bin" verify --pairs "$work/duck/pairs" --docs "$work/signed" -q -o "$work/verified.csv"
t1=$(now)
echo "| verify --pairs → CSV | $(($(wc -l < "$work/verified.csv") - 1)) | $(bytes "$work/verified.csv") | $(secs "$t0" "$t1") | $(peak "$work/verify.mem") |"

t0=$(now)
for i in $(seq 0 $((parts - 1))); do
    timed "$work/part-$i.mem" "$bin" verify --pairs "$work/duck/pairs" --docs "$work/signed" \
        --components "$work/duck/components" --component-shard "$i/$parts" -q -o "$work/part-$i.csv"
done
t1=$(now)
tail -qn +2 "$work"/part-*.csv | LC_ALL=C sort > "$work/parts.sorted"
tail -n +2 "$work/verified.csv" | LC_ALL=C sort > "$work/verified.sorted"
echo "| verify --component-shard I/$parts, $parts processes one after another → CSV | $(wc -l < "$work/parts.sorted") | $(bytes "$work"/part-*.csv) | $(secs "$t0" "$t1") | $(peak "$work"/part-*.mem) |"

if [ -n "${BEFORE:-}" ]; then
    t0=$(now)
    for i in $(seq 0 $((parts - 1))); do
        timed "$work/before-$i.mem" "$BEFORE" verify --pairs "$work/duck/pairs" --docs "$work/signed" \
            --components "$work/duck/components" --component-shard "$i/$parts" -q -o "$work/before-$i.csv"
    done
    t1=$(now)
    echo "| (the same $parts parts with $BEFORE) | $(tail -qn +2 "$work"/before-*.csv | wc -l) | $(bytes "$work"/before-*.csv) | $(secs "$t0" "$t1") | $(peak "$work"/before-*.mem) |"
fi

if [ "${SCAN:-1}" = 1 ]; then
    t0=$(now)
    timed "$work/scan.mem" "$bin" scan "$corpus" --method lsh -q -o "$work/scan.csv"
    t1=$(now)
    echo "| (scan --method lsh, one box) | $(($(wc -l < "$work/scan.csv") - 1)) | $(bytes "$work/scan.csv") | $(secs "$t0" "$t1") | $(peak "$work/scan.mem") |"
fi
echo
if cmp -s "$work/parts.sorted" "$work/verified.sorted"; then
    echo "verify --component-shard: the $parts parts' rows are the single run's"
else
    echo "verify --component-shard: the $parts parts' rows DIFFER from the single run's"
fi
if [ "${SCAN:-1}" = 1 ]; then
    if cmp -s "$work/scan.csv" "$work/verified.csv"; then
        echo "verify --pairs output identical to scan --method lsh"
    else
        echo "verify --pairs output DIFFERS from scan --method lsh"
    fi
fi
