#!/usr/bin/env bash
# Checks the feature alignment of the root Cargo.toml: every crate the
# installed binary is built from (`cargo install --path .`) must have the
# features it has in the test build (`scripts/test.sh`, dev-dependencies
# included), or cargo compiles it, and everything above it (core, engine,
# binary), a second time for the install check. Fast: `cargo tree` only.
# Exits 1 naming each crate whose features differ, and what to add.
set -euo pipefail
cd "$(dirname "$0")/.."
features() {
    cargo tree "$@" -f '{p} [{f}]' --prefix none | sed 's/ (\*)$//' | grep -v '^$' | sort -u
}
tests=$(features --workspace --exclude simfind-py -e normal,build,dev)
install=$(features -p simfind-cli -e normal,build)
differ=$(comm -13 <(echo "$tests") <(echo "$install"))
if [ -n "$differ" ]; then
    echo "check-features: these crates are built with other features by \`cargo install\` than by the tests:" >&2
    while read -r line; do
        name=${line%% *}
        echo "  install: $line" >&2
        echo "  tests:   $(echo "$tests" | grep "^$name " | tr '\n' ' ')" >&2
    done <<<"$differ"
    echo "check-features: add the tests' features to the alignment list in Cargo.toml's [dependencies]" >&2
    exit 1
fi
echo "check-features: the installed binary's crates are the tests' (features aligned)" >&2
