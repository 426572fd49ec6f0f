#!/usr/bin/env bash
# Installs simfind the way the README says (`cargo install --path . --locked`)
# into a temporary root, and checks what a user gets: the binary runs, finds
# the shipped testdata's pairs, names its build, prints completions for every
# shell and a man page that renders. `.ci/run` runs it after the tests with
# `--target-dir target --profile release-tests`, reusing the tests' build;
# alone, cargo install builds the release profile from scratch in a temporary
# target directory (minutes on 2 cores), which is why it is a script and not
# a test. Extra arguments go to cargo install.
#   bench/install_check.sh [--offline] [--target-dir DIR] [--profile P]
# Exits 1 with the failing step named.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
step() { echo "install_check: $*" >&2; }
fail() { echo "install_check: FAILED: $*" >&2; exit 1; }

step "cargo install --path . --locked --root $root $*"
cargo install --path . --locked --root "$root" "$@" || fail "cargo install"
bin=$root/bin/simfind
[ -x "$bin" ] || fail "no $bin"
step "installed binary: $(stat -c %s "$bin") bytes"
if command -v readelf >/dev/null && readelf -S "$bin" | grep -q '\.debug_'; then
  fail "the installed binary carries debug sections"
fi

"$bin" -V | grep -qx "simfind $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)" \
  || fail "-V is not one line with the Cargo version"
"$bin" --version | grep -q 'simd kernels on this CPU' || fail "--version has no kernels"
"$bin" --version >&2

pairs=$("$bin" scan testdata/ -q | tail -n +2 | wc -l)
[ "$pairs" -eq 6 ] || fail "scan testdata/ found $pairs pairs, expected 6"

for shell in bash zsh fish elvish powershell; do
  "$bin" completions "$shell" | grep -q scan || fail "completions $shell"
done
if command -v bash >/dev/null; then
  bash -c 'source <("$0" completions bash) && complete -p simfind >/dev/null' "$bin" \
    || fail "bash cannot load the completions"
fi
for shell in zsh fish; do
  command -v "$shell" >/dev/null || step "$shell not installed: its script was not loaded"
done
if command -v zsh >/dev/null; then
  HOME=$root ZDOTDIR=$root zsh -c 'autoload -Uz compinit && compinit -u && source <("$0" completions zsh)' "$bin" \
    || fail "zsh cannot load the completions"
fi
if command -v fish >/dev/null; then
  "$bin" completions fish | HOME=$root fish -c 'source -' || fail "fish cannot load the completions"
fi
if command -v man >/dev/null; then
  for page in "" scan; do
    out=$("$bin" man $page | MANWIDTH=80 man -l - 2>&1 >/dev/null) || fail "man -l ($page)"
    [ -z "$out" ] || fail "man -l warned ($page): $out"
  done
else
  step "man not installed: the man page was not rendered"
fi
step "ok"
