#!/usr/bin/env bash
# The vector families side by side with faiss (IndexLSH, exact range search),
# scikit-learn (radius neighbours) and text-dedup (SimHash): recall, precision
# and wall time in one run (bench/families_vs.py says what each section
# compares and how the data is made). The Python packages go into their own
# venv, target/bench-venv (bench/requirements.txt), never into the test venv.
#
#   bash bench/families_vs.sh [POINTS] [SIMFIND]   # default 100000 planted points
set -euo pipefail
cd "$(dirname "$0")/.."
points=${1:-100000}
binary=${2:-target/release/simfind}
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import faiss, sklearn, text_dedup' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r bench/requirements.txt
fi
if [ "$binary" = target/release/simfind ]; then
    cargo build --release -q
fi
"$venv/bin/python" bench/families_vs.py ../shared/data target/families-bench "$binary" --points "$points"
