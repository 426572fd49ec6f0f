#!/usr/bin/env bash
# CI's fuzzing step (issue #38), bounded in time: builds the fuzz crate
# (fuzz/, cargo-fuzz on nightly), replays each target's kept corpus and
# reproducers (fuzz/corpus/<t>, fuzz/regressions/<t>), then fuzzes each
# target for SECONDS (default 8). Exit 1 if a target fails; the failing
# input is left in fuzz/.artifacts/<t>/ to be kept under
# fuzz/regressions/<t>/ (the suite replays those on stable).
#
# The build is what costs: every crate the targets link is compiled
# instrumented. So the common build leaves out Parquet (arrow and parquet
# are most of it): only the `exchange` target needs them, and it is built
# apart with the fuzz crate's `parquet` feature, after the others, and only
# when named or with --all (the suite replays its corpus on every run).
#
# Installs what a fresh machine lacks: cargo-fuzz (from crates.io), and the
# nightly toolchain if rustup can fetch it. With SIMFIND_FUZZ_OPTIONAL=1 a
# machine that has no nightly and cannot fetch one skips the step with a
# message instead of failing.
# Longer runs, and folding new coverage into the corpus: fuzz/run.sh.
#
#   bash scripts/fuzz.sh                  # CI: every target but exchange, 8 s each
#   bash scripts/fuzz.sh 60               # a minute per target
#   bash scripts/fuzz.sh --all 45         # every target, exchange included
#   bash scripts/fuzz.sh 30 journal size  # the targets named
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
all=0
if [[ ${1:-} == --all ]]; then
    all=1
    shift
fi
seconds=${1:-8}
shift || true
named=("$@")

if ! rustup toolchain list | grep -q '^nightly'; then
    if ! rustup toolchain install nightly --profile minimal; then
        if [[ ${SIMFIND_FUZZ_OPTIONAL:-0} == 1 ]]; then
            echo "--- fuzz: SKIPPED: no nightly toolchain on this machine and none can be fetched" >&2
            exit 0
        fi
        echo "fuzz: cargo-fuzz needs a nightly toolchain; none is installed and rustup could not fetch one" >&2
        exit 1
    fi
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    step=$SECONDS
    cargo +nightly install cargo-fuzz --locked
    echo "--- fuzz: cargo-fuzz installed in $((SECONDS - step)) s" >&2
fi
# The index and journal targets write small files per input: on tmpfs
# their syncs cost nothing.
if [[ -z ${TMPDIR:-} && -w /dev/shm ]]; then
    export TMPDIR=/dev/shm
fi

# The features a target needs beyond the common build.
features() {
    case $1 in
    exchange) echo parquet ;;
    *) echo "" ;;
    esac
}

targets=()
if [[ ${#named[@]} -gt 0 ]]; then
    targets=("${named[@]}")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
# Targets with features last: building one changes the feature set, which
# a later common target would otherwise rebuild back.
common=()
apart=()
for t in "${targets[@]}"; do
    if [[ -n $(features "$t") ]]; then
        if [[ $all == 1 || ${#named[@]} -gt 0 ]]; then
            apart+=("$t")
        else
            echo "--- fuzz $t: left out (needs --features $(features "$t"); bash scripts/fuzz.sh --all); its corpus is replayed by the suite" >&2
        fi
    else
        common+=("$t")
    fi
done

started=$SECONDS
if [[ ${#common[@]} -gt 0 ]]; then
    cargo +nightly fuzz build -O
    echo "--- fuzz: built the common targets in $((SECONDS - started)) s" >&2
fi

failed=()
run() {
    local t=$1
    shift
    mkdir -p "corpus/$t" "regressions/$t" ".artifacts/$t"
    local work
    work=$(mktemp -d)
    local step=$SECONDS
    # The scratch directory first: libFuzzer writes new inputs there, so
    # the kept corpus is only read. -runs=0 replays every input once.
    local flags=(-max_len=4096 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024
        "-artifact_prefix=.artifacts/$t/")
    if cargo +nightly fuzz run -O "$@" "$t" "$work" "corpus/$t" "regressions/$t" -- \
        "${flags[@]}" -runs=0 >"$work.log" 2>&1 &&
        timeout $((seconds + 60)) cargo +nightly fuzz run -O "$@" "$t" "$work" "corpus/$t" \
            "regressions/$t" -- "${flags[@]}" -max_total_time="$seconds" -print_final_stats=1 >>"$work.log" 2>&1; then
        local runs
        runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work.log" | tail -n 1 || true)
        echo "--- fuzz $t: ok in $((SECONDS - step)) s (${runs:-replayed})" >&2
    else
        echo "--- fuzz $t: FAILED; what failed, and the last lines of its log:" >&2
        grep -a -E -A3 '^(thread .* panicked|error(\[|:))' "$work.log" | head -n 20 >&2 || true
        grep -a -E '^(SUMMARY|Base64|artifact_prefix)' "$work.log" >&2 || true
        tail -n 12 "$work.log" >&2
        failed+=("$t")
    fi
    rm -rf "$work" "$work.log"
}
for t in "${common[@]}"; do
    run "$t"
done
for t in "${apart[@]}"; do
    step=$SECONDS
    cargo +nightly fuzz build -O --features "$(features "$t")" "$t"
    echo "--- fuzz $t: built with --features $(features "$t") in $((SECONDS - step)) s" >&2
    run "$t" --features "$(features "$t")"
done
echo "--- fuzz: $((${#common[@]} + ${#apart[@]})) targets in $((SECONDS - started)) s" >&2
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: failed: ${failed[*]} (inputs in fuzz/.artifacts/)" >&2
    exit 1
fi
