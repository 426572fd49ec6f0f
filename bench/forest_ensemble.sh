#!/usr/bin/env bash
# simfind's top-k and containment lookups against datasketch's
# MinHashLSHForest and MinHashLSHEnsemble, and both against a brute force
# (issue #37, "Speed"). Uses the engines' venv (target/engines/venv:
# datasketch 2.0.0 and the simfind wheel, made by scripts/setup-engines.sh)
# and the test build's binary. Numbers: docs/PERFORMANCE.md, "Top-k and
# containment against LSH Forest and LSH Ensemble".
#
#   bash bench/forest_ensemble.sh [--docs 2000] [--queries 100] [--k 10] [--sets 5000] [--t 0.7]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/engines/venv
[ -x "$venv/bin/python" ] || { echo "no $venv: run scripts/setup-engines.sh" >&2; exit 2; }
cargo build --profile release-tests --bin simfind -q
"$venv/bin/python" bench/forest_ensemble.py target/release-tests/simfind "$@"
