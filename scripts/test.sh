#!/usr/bin/env bash
# The README's test command: sets up the engines (scripts/setup-engines.sh),
# then runs the whole test suite with them required, so no engine test can be
# skipped silently here. Plain `cargo test --release` runs the same tests and
# lists the engine tests it ignored where the engines are not installed.
#
# Two steps, so that the log says which half a failure is in: first
# everything but the engine tests (unit tests, the suite `tests/suite/`, doc
# tests; the examples are built, as plain `cargo test` does), then the slow
# engine tests (`tests/engines/`: Spark, DuckDB, Chromium). Cargo cannot
# leave one test target out of a workspace run, so the first step names its
# targets. The second step is a workspace run too: with the same packages
# selected, cargo resolves the same features (the core's `test-support`
# comes from the engine's dev-dependencies), so it reuses the first step's
# crates and only links the engine tests instead of compiling the three
# crates again. The arguments are passed on to every `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-engines.sh
export SIMFIND_ENGINES=required
profile=(--profile release-tests)
echo "--- tests: unit, suite and doc tests (all but the engine tests)" >&2
cargo build "${profile[@]}" --workspace --examples
cargo test "${profile[@]}" --workspace --lib --bins --test suite "$@"
cargo test "${profile[@]}" --workspace --doc "$@"
echo "--- tests: the engine tests (Spark, DuckDB, Chromium)" >&2
cargo test "${profile[@]}" --workspace --test engines "$@"
