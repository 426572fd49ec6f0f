#!/usr/bin/env bash
# The README's test command: sets up the engines (scripts/setup-engines.sh),
# then runs the whole test suite with them required, so no engine test can be
# skipped silently here. Plain `cargo test --release` runs the same tests and
# lists the engine tests it ignored where the engines are not installed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-engines.sh
SIMFIND_ENGINES=required cargo test --profile release-tests --workspace "$@"
