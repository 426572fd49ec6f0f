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
# targets. The second step selects the same packages, so cargo resolves the
# same features, reuses the first step's crates and only links the engine
# tests. The Python crate is left out: it has no Rust tests, and maturin
# builds it (scripts/setup-engines.sh). With the feature alignment of
# Cargo.toml (scripts/check-features.sh), the install check after this
# reuses these crates too. The arguments are passed on to every `cargo test`.
#
# The test build runs while the engines are set up: on a fresh machine the
# set-up is mostly downloads, Debian packages and LibreOffice making the
# test documents, and the build is the longest step of all, so the two
# overlap (docs/PERFORMANCE.md, "What CI costs"). Its log goes to a file and
# is printed when it ends; the wheel's build in the set-up waits for cargo's
# lock on the target directory and then compiles only the Python crate.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=(--profile release-tests)
packages=(--workspace --exclude simfind-py)
mkdir -p target
build_log=target/test-build.log
started=$SECONDS
cargo build "${profile[@]}" "${packages[@]}" --tests --examples >"$build_log" 2>&1 &
build=$!
# A failed set-up must not leave the build running behind the script.
trap 'kill "$build" 2>/dev/null || true' EXIT
bash scripts/setup-engines.sh
if ! wait "$build"; then
    cat "$build_log" >&2
    echo "--- test build failed (its log above, also in $build_log)" >&2
    exit 1
fi
trap - EXIT
tail -n 1 "$build_log" >&2
echo "--- test build and engine set-up: $((SECONDS - started)) s" >&2
export SIMFIND_ENGINES=required
echo "--- tests: unit, suite and doc tests (all but the engine tests)" >&2
cargo test "${profile[@]}" "${packages[@]}" --lib --bins --test suite "$@"
cargo test "${profile[@]}" "${packages[@]}" --doc "$@"
echo "--- tests: the engine tests (Spark, DuckDB, Chromium)" >&2
cargo test "${profile[@]}" "${packages[@]}" --test engines "$@"
