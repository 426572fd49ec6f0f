#!/usr/bin/env bash
# The native Python API against datasketch, rensa and the command, on the
# same texts (bench/python_native.py says what is measured): run with the
# engines' venv (scripts/setup-engines.sh installs simfind's wheel, datasketch
# and rensa there, pinned) and this build's command.
#   bash bench/python_native.sh [python_native.py's options]
#   e.g. bash bench/python_native.sh --corpora short --short-n 200000
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-engines.sh
export SIMFIND_BIN="${SIMFIND_BIN:-$PWD/target/release-tests/simfind}"
# numpy (imported by pyarrow for simfind's results, and by datasketch) starts
# OpenBLAS's threads, which spin waiting for work for a while after the
# import: inside the timed window they took up to 0.06 CPU s of a 0.2 s call
# and a core from the tool measured. No tool here multiplies matrices, so
# every child runs with one BLAS thread (the same for all of them).
export OPENBLAS_NUM_THREADS=1
[ -x "$SIMFIND_BIN" ] || cargo build --profile release-tests --bin simfind
exec nice target/engines/venv/bin/python bench/python_native.py "$@"
