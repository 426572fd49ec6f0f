#!/usr/bin/env bash
# CI's fuzzing step (issue #38), bounded in time: builds the fuzz crate
# (fuzz/, cargo-fuzz on nightly), replays each target's kept corpus and
# reproducers (fuzz/corpus/<t>, fuzz/regressions/<t>), then fuzzes each
# target for SECONDS (default 8; 13 targets: about two and a half minutes
# after the build). Exit 1 if a target fails; the failing input is left in
# fuzz/.artifacts/<t>/ to be kept under fuzz/regressions/<t>/.
# Installs what a fresh machine lacks: the nightly toolchain and cargo-fuzz.
# Longer runs, and folding new coverage into the corpus: fuzz/run.sh.
#
#   bash scripts/fuzz.sh        # CI: replay + 8 s per target
#   bash scripts/fuzz.sh 60     # a minute per target
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-8}

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo +nightly install cargo-fuzz --locked
fi
# The index target builds a small SQLite index per input: on tmpfs its
# syncs cost nothing.
if [[ -z ${TMPDIR:-} && -w /dev/shm ]]; then
    export TMPDIR=/dev/shm
fi

started=$SECONDS
cargo +nightly fuzz build -O
echo "--- fuzz: built in $((SECONDS - started)) s" >&2
mapfile -t targets < <(cargo +nightly fuzz list)

failed=()
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "regressions/$t" ".artifacts/$t"
    work=$(mktemp -d)
    step=$SECONDS
    # The scratch directory first: libFuzzer writes new inputs there, so
    # the kept corpus is only read. -runs=0 replays every input once.
    flags=(-max_len=4096 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024
        "-artifact_prefix=.artifacts/$t/")
    if cargo +nightly fuzz run -O "$t" "$work" "corpus/$t" "regressions/$t" -- \
        "${flags[@]}" -runs=0 >"$work.log" 2>&1 &&
        timeout $((seconds + 60)) cargo +nightly fuzz run -O "$t" "$work" "corpus/$t" \
            "regressions/$t" -- "${flags[@]}" -max_total_time="$seconds" -print_final_stats=1 >>"$work.log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work.log" | tail -n 1 || true)
        echo "--- fuzz $t: ok in $((SECONDS - step)) s (${runs:-replayed})" >&2
    else
        echo "--- fuzz $t: FAILED; the last lines of its log:" >&2
        tail -n 30 "$work.log" >&2
        failed+=("$t")
    fi
    rm -rf "$work" "$work.log"
done
echo "--- fuzz: ${#targets[@]} targets in $((SECONDS - started)) s" >&2
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: failed: ${failed[*]} (inputs in fuzz/.artifacts/)" >&2
    exit 1
fi
