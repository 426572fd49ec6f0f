#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS each, one process
# at a time (one core), and keeps what it finds:
#   - a crash, leak, timeout or out-of-memory input → fuzz/regressions/<target>/
#     (replayed by tests/suite/fuzz_regressions.rs on every `cargo test`);
#   - new coverage → fuzz/.work/<target>/ (not kept in git; `fuzz/run.sh
#     --merge` folds it, minimised, into the small seed corpus fuzz/corpus/).
# Installs what is missing (the nightly toolchain, cargo-fuzz). Exit status 1
# if any target found something. Not part of `cargo test`.
#
# Targets: every [[bin]] of fuzz/Cargo.toml (`cargo fuzz list`): normalize,
# shingle, chunked, stopwords, size, index, writers, records, vectors,
# exchange, explain, csv_recovery, bits_header, journal, from_list, plan, and one
# per family of document extractors: extract_pdf, extract_office,
# extract_html, extract_mail, extract_rtf, extract_text.
# `exchange` needs the fuzz crate's `parquet` feature (arrow and parquet,
# left out of the common build); it runs last, built with it.
#
#   fuzz/run.sh                 # 30 s per target (a few minutes in all)
#   fuzz/run.sh 600 normalize   # ten minutes of one target
#   fuzz/run.sh --merge         # refresh corpus/: seeds + 24 small inputs from .work/
#   fuzz/run.sh --merge records # the same for the targets named
set -euo pipefail
cd "$(dirname "$0")"

merge=0
if [[ ${1:-} == --merge ]]; then
    merge=1
    shift
fi
seconds=30
if [[ $merge == 0 ]]; then
    seconds=${1:-30}
    shift || true
fi

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

# The index target builds a small SQLite index per input: on tmpfs its
# syncs cost nothing.
if [[ -z ${TMPDIR:-} && -w /dev/shm ]]; then
    export TMPDIR=/dev/shm
fi

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
# The features a target needs beyond the common build; such targets go
# last, so that the common ones are not rebuilt without them in between.
features() {
    case $1 in
    exchange) echo --features=parquet ;;
    esac
}
# The longest input a target mutates: documents (a PDF, a zipped office
# file) are tens of KB, the seeds of the other targets a few hundred bytes.
max_len() {
    case $1 in
    extract_*) echo 65536 ;;
    *) echo 4096 ;;
    esac
}
mapfile -t targets < <(for t in "${targets[@]}"; do
    echo "$([[ -n $(features "$t") ]] && echo 1 || echo 0) $t"
done | sort -s -k1,1n | cut -d' ' -f2)

cargo +nightly fuzz build -O

found=0
for t in "${targets[@]}"; do
    # Unquoted on purpose: no word when the target needs no feature.
    # shellcheck disable=SC2046
    set -- $(features "$t")
    mkdir -p "corpus/$t" "regressions/$t" ".work/$t" ".artifacts/$t"
    if [[ $merge == 1 ]]; then
        # The kept corpus stays a few KB per target, not the fuzzer's working
        # set: the hand-named seeds, plus the first $keep (by hash name) of
        # the inputs of at most 256 bytes that a merge finds to add coverage.
        keep=${KEEP:-24}
        tmp=$(mktemp -d)
        cargo +nightly fuzz run -O "$@" "$t" "$tmp" "corpus/$t" ".work/$t" "regressions/$t" -- \
            -merge=1 -max_len=256 2>&1 | tail -n 1
        find "corpus/$t" -type f -regextype egrep -regex '.*/[0-9a-f]{40}' -delete
        find "$tmp" -type f -printf '%f\n' | sort >"$tmp.list"
        n=0
        while read -r f && [[ $n -lt $keep ]]; do
            [[ -e corpus/$t/$f ]] && continue
            cp "$tmp/$f" "corpus/$t/"
            n=$((n + 1))
        done <"$tmp.list"
        rm -rf "$tmp" "$tmp.list"
        continue
    fi
    echo "== $t: ${seconds}s"
    # .work/<t> first: libFuzzer writes new inputs to the first directory;
    # the kept corpus and the reproducers are read as seeds.
    if ! cargo +nightly fuzz run -O "$@" "$t" ".work/$t" "corpus/$t" "regressions/$t" -- \
        -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=20 -rss_limit_mb=2048 \
        -malloc_limit_mb=1024 -print_final_stats=1 \
        -artifact_prefix=".artifacts/$t/" 2>".work/$t.log"; then
        found=1
    fi
    grep -E '^(stat::number_of_executed_units|stat::new_units_added)|SUMMARY|panicked' \
        ".work/$t.log" || true
    for a in ".artifacts/$t"/*; do
        [[ -e $a ]] || continue
        echo "   found: $a → regressions/$t/"
        cp "$a" "regressions/$t/"
        found=1
    done
    rm -f ".artifacts/$t"/*
done
exit $found
