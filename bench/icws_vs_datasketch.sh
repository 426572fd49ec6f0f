#!/usr/bin/env bash
# simfind's weighted MinHash (compare --icws) against datasketch's
# WeightedMinHashGenerator: accuracy against the exact weighted Jaccard, and
# signing time. datasketch goes into target/bench-venv (bench/requirements.txt),
# never into the test venv. Numbers: docs/PERFORMANCE.md, "Weighted MinHash".
#
#   bash bench/icws_vs_datasketch.sh [--pairs 200] [--samples 128]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import datasketch' 2>/dev/null; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install -q "$(grep '^datasketch' bench/requirements.txt)"
fi
cargo build --release -q
"$venv/bin/python" bench/icws_vs_datasketch.py target/release/simfind "$@"
