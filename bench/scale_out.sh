#!/usr/bin/env bash
# Rows, bytes and seconds per stage of the scale-out path (docs/SCALE-OUT.md):
# sign in SHARDS shards (2 at a time, as `xargs -P` on one box), the band join
# in DuckDB (and with SPARK=1 in Spark local mode), verify --pairs; and
# `scan --method lsh` on the same corpus for comparison.
#
#   bash bench/scale_out.sh CORPUS_DIR [SHARDS] [BINARY]
#   python3 bench/gen_small_files.py /tmp/sf300k --files 300000   # a corpus
#
# Needs the engines' venv (bash scripts/setup-engines.sh). Writes into a
# temporary directory, removed at the end. Prints a Markdown table.
set -euo pipefail
corpus=${1:?usage: bench/scale_out.sh CORPUS_DIR [SHARDS] [BINARY]}
shards=${2:-4}
cd "$(dirname "$0")/.."
bin=${3:-target/release/simfind}
py=target/engines/venv/bin/python
work=$(mktemp -d /tmp/simfind-scale-out.XXXXXX)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }
rows() { "$py" -c "import pyarrow.parquet as pq,sys; print(sum(pq.ParquetFile(f).metadata.num_rows for f in sys.argv[1:]))" "$@"; }
bytes() { du -cb "$@" | tail -1 | cut -f1; }

files=$(find "$corpus" -type f | wc -l)
echo "corpus $corpus: $files files, $(du -sb "$corpus" | cut -f1) bytes; $shards shards; $(nproc) cores"
echo
echo "| stage | rows out | bytes out | seconds |"
echo "|---|--:|--:|--:|"

t0=$(now)
seq 0 $((shards - 1)) | xargs -P 2 -I{} "$bin" sign "$corpus" --out "$work/signed" --shard "{}/$shards" -j 1 -q
t1=$(now)
for table in docs signatures bands; do
    echo "| sign → $table | $(rows "$work"/signed/$table/*.parquet) | $(bytes "$work"/signed/$table) | $( [ $table = docs ] && secs "$t0" "$t1" || echo '″') |"
done

t0=$(now)
"$py" spark/simfind_lsh_duckdb.py "$work/signed" "$work/duck" --exact-pairs --threads 2 --memory-limit 4GB --temp-directory "$work/spill"
t1=$(now)
echo "| DuckDB band join → pairs | $(rows "$work"/duck/pairs/*.parquet) | $(bytes "$work/duck/pairs") | $(secs "$t0" "$t1") |"
echo "| DuckDB → components | $(rows "$work"/duck/components/*.parquet) | $(bytes "$work/duck/components") | ″ |"

if [ "${SPARK:-0}" = 1 ]; then
    t0=$(now)
    "$py" spark/simfind_lsh.py "$work/signed" "$work/spark" --exact-pairs --master 'local[2]' --partitions 8 2>/dev/null
    t1=$(now)
    echo "| Spark local[2] band join → pairs | $(rows "$work"/spark/pairs/*.parquet) | $(bytes "$work/spark/pairs") | $(secs "$t0" "$t1") |"
fi

t0=$(now)
"$bin" verify --pairs "$work/duck/pairs" --docs "$work/signed" -q -o "$work/verified.csv"
t1=$(now)
echo "| verify --pairs → CSV | $(($(wc -l < "$work/verified.csv") - 1)) | $(bytes "$work/verified.csv") | $(secs "$t0" "$t1") |"

t0=$(now)
"$bin" scan "$corpus" --method lsh -q -o "$work/scan.csv"
t1=$(now)
echo "| (scan --method lsh, one box) | $(($(wc -l < "$work/scan.csv") - 1)) | $(bytes "$work/scan.csv") | $(secs "$t0" "$t1") |"
if cmp -s "$work/scan.csv" "$work/verified.csv"; then
    echo; echo "verify --pairs output identical to scan --method lsh"
else
    echo; echo "verify --pairs output DIFFERS from scan --method lsh"
fi
