#!/usr/bin/env bash
# Miri over the unsafe code it can run: normalisation's spare-capacity
# writes (the scalar ASCII kernel, the character writer, the unchecked
# UTF-8 conversion) and chunked normalisation over them; then, with
# `--replay`, the fuzz corpus replay (tests/suite/fuzz_regressions.rs, ~10 minutes:
# it reads the corpus, so isolation is off for it).
# Not run: the SIMD kernels (intrinsics behind CPU feature detection, which
# Miri reports as absent), mmap and its SIGBUS guard, fcntl, SQLite (C) and
# the file system; the property tests with thousands of cases and
# `block_edges` (the SIMD kernels' block edges, 9 000 inputs): each over ten
# minutes under Miri; their fixed-input siblings and the fuzz corpus run
# instead.
#
#   fuzz/miri.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup +nightly component list --installed | grep -q '^miri'; then
    rustup +nightly component add miri rust-src
fi
cargo +nightly miri setup

# Isolation stays on (no host file system or clock): the selected tests need
# neither. The library's unit tests that exercise the unsafe code:
cargo +nightly miri test --lib -- \
    text::normalize:: text::chunked:: \
    --skip every_path_agrees_with_definition \
    --skip arbitrary_bytes_agree_with_definition \
    --skip text_across_blocks_agrees_with_definition \
    --skip every_lowercase_fits_the_char_writer_memo \
    --skip joined_chunks_normalise_as_the_whole \
    --skip fed_windows_are_the_whole_texts \
    --skip block_edges

if [ "${1:-}" = "--replay" ]; then
    MIRIFLAGS="${MIRIFLAGS:-} -Zmiri-disable-isolation" cargo +nightly miri test --test suite fuzz_regressions::
fi

