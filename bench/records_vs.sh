#!/usr/bin/env bash
# simfind against recordlinkage and Splink (DuckDB) on the generated
# record-linkage benchmark (bench/gen_records.py): recall, precision, F1 and
# wall time in one run. The Python packages go into their own venv,
# target/bench-venv (bench/requirements.txt), never into the test venv.
#
#   bash bench/records_vs.sh [PEOPLE]        # default 10000 people (~18,000 records)
set -euo pipefail
cd "$(dirname "$0")/.."
people=${1:-10000}
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import splink, recordlinkage' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r bench/requirements.txt
fi
cargo build --release -q
dir=target/records-bench/$people
python3 bench/gen_records.py "$dir" --people "$people"
"$venv/bin/python" bench/records_vs.py "$dir" target/release/simfind
