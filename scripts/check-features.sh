#!/usr/bin/env bash
# Checks the feature alignment of the root and the Python crate's
# Cargo.toml: every crate that the installed binary (`cargo install --path
# .`) or the Python wheel (`maturin build`, crates/py) is built from must
# have the features it has in the test build (`scripts/test.sh`,
# dev-dependencies included), or cargo compiles it, and everything above it
# (core, engine, binary), once more. CI builds the wheel first, then the
# tests, then installs: aligned, core and engine are compiled once.
# Fast: `cargo tree` only. Exits 1 naming each crate whose features differ.
set -euo pipefail
cd "$(dirname "$0")/.."
features() {
    cargo tree "$@" -f '{p} [{f}]' --prefix none | sed 's/ (\*)$//' | grep -v '^$' | sort -u
}
status=0
# Twice: with build-dependencies, and without them, since a crate built for
# the build scripts (host) and for the target can have two feature sets in
# the tests (libc), and the wheel's one must match the target's.
check() {
    local who=$1 manifest=$2 edges=$3
    shift 3
    local tests
    tests=$(features --workspace --exclude simfind-py -e "$edges,dev")
    # Crates only the other build has (pyo3 for the wheel) cannot differ.
    local differ
    differ=$(comm -13 <(echo "$tests") <(features "$@" -e "$edges") | while read -r line; do
        if echo "$tests" | grep -q "^${line%% *} "; then echo "$line"; fi
    done)
    if [ -n "$differ" ]; then
        echo "check-features: these crates are built with other features by $who than by the tests:" >&2
        while read -r line; do
            name=${line%% *}
            echo "  $who: $line" >&2
            echo "  tests: $(echo "$tests" | grep "^$name " | tr '\n' ' ')" >&2
        done <<<"$differ"
        echo "check-features: add the tests' features to the alignment list in $manifest" >&2
        status=1
    fi
}
for edges in normal,build normal; do
    check "\`cargo install\`" "Cargo.toml's [dependencies]" "$edges" -p simfind-cli
    check "the wheel (maturin)" "crates/py/Cargo.toml's [dependencies] (and the root's, for what only pyo3 turns on)" "$edges" -p simfind-py
done
if [ "$status" = 0 ]; then
    echo "check-features: the installed binary's and the wheel's crates are the tests' (features aligned)" >&2
fi
exit "$status"
