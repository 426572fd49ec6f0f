#!/usr/bin/env bash
# Builds pair-dense corpora (many near-copies: several releases of the same
# source) from what this machine has offline, for benchmarks of exact
# verification (issue #22). Nothing is downloaded; the sources are only read.
#   bash bench/gen_dense.sh DIR
# makes
#   DIR/crates/files    every crate with two or more versions in the cargo
#                       registry's source cache (~/.cargo/registry/src/*/:
#                       syn 2 and 3, three libc, clap, memchr, getrandom, ...),
#                       every regular file of each version
#   DIR/pystdlib/files  the *.py files of the standard library of five
#                       Python releases under pyenv (3.9 .. 3.13, without
#                       site-packages)
# Each corpus is a copy (cp, not links), so the page cache and the files'
# metadata belong to the benchmark. Re-running replaces DIR/<corpus>. The
# registry's contents depend on what was built on the machine: the script
# prints each corpus's file count and bytes, which docs/PERFORMANCE.md records.
set -euo pipefail
out=${1:?usage: bash bench/gen_dense.sh DIR}
registry=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ 2>/dev/null | head -1)
pyenv=${PYENV_ROOT:-$HOME/.pyenv}/versions

copy_tree() { # SRC DEST [find predicates...]: regular files only, sorted
  local src=$1 dest=$2; shift 2
  mkdir -p "$dest"
  (cd "$src" && find . "$@" -type f -print0 | sort -z |
    tar --null --no-recursion -T - -cf -) | tar -xf - -C "$dest"
}

if [ -n "$registry" ]; then
  rm -rf "$out/crates"
  mkdir -p "$out/crates/files"
  # A crate directory is NAME-VERSION; keep the names that occur more than once.
  names=$(ls "$registry" | sed -E 's/-[0-9]+\.[0-9]+\.[0-9]+.*$//' | sort | uniq -d)
  for name in $names; do
    for dir in "$registry/$name"-[0-9]*; do
      copy_tree "$dir" "$out/crates/files/$(basename "$dir")"
    done
  done
  echo "crates: $(find "$out/crates/files" -type f | wc -l) files," \
    "$(du -sb "$out/crates/files" | cut -f1) bytes"
else
  echo "crates: no cargo registry source cache found, skipped" >&2
fi

found=0
rm -rf "$out/pystdlib"
for v in 3.9 3.10 3.11 3.12 3.13; do
  lib=$(ls -d "$pyenv/$v".*/lib/python"$v" 2>/dev/null | tail -1) || true
  [ -n "$lib" ] || continue
  found=$((found + 1))
  copy_tree "$lib" "$out/pystdlib/files/$v" -path ./site-packages -prune -o -name '*.py'
done
if [ "$found" -gt 0 ]; then
  echo "pystdlib: $found releases, $(find "$out/pystdlib/files" -type f | wc -l) files," \
    "$(du -sb "$out/pystdlib/files" | cut -f1) bytes"
else
  echo "pystdlib: no pyenv Python 3.9-3.13 found, skipped" >&2
fi
