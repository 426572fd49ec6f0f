#!/bin/bash
# Size and load time of `scan --format html` reports in headless Chromium
# (target/engines/chromium, from scripts/setup-engines.sh). Run from the project
# root after `cargo build --release`:
#   bench/report_html.sh [BINARY] [ROUNDS]
# Corpora: debian-docs (../shared/data) and a generated one of 5000 groups of
# two small files (the "thousands of groups" case). Per corpus it prints the
# report's bytes and time to write it, then per round:
#   corpus round load-ms drawn-ms blank-ms
# load-ms: wall-clock of `chromium --dump-dom` on the report; blank-ms: the
# same on an empty page (the browser's own start-up, to subtract); drawn-ms:
# the page's own performance.now() when its first page of groups is drawn.
# The machines are shared and noisy: compare within one run.
set -euo pipefail
bin=${1:-target/release/simfind}
rounds=${2:-5}
chromium=target/engines/chromium
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gen"
python3 - "$tmp/gen" <<'PY'
import os, random, sys
root = sys.argv[1]
rng = random.Random(7)
words = ["river", "stone", "lantern", "harbour", "winter", "copper", "meadow",
         "signal", "archive", "market", "garden", "engine", "letter", "bridge"]
for g in range(5000):
    text = " ".join(rng.choice(words) for _ in range(60)) + f" group {g}"
    d = os.path.join(root, f"d{g // 100:03}")
    os.makedirs(d, exist_ok=True)
    for copy in range(2):
        with open(os.path.join(d, f"g{g:05}-{copy}.txt"), "w") as f:
            f.write(text)
PY
printf '<!DOCTYPE html><html><body></body></html>' > "$tmp/blank.html"
browse() {
    local start end out
    start=$(date +%s%N)
    out=$("$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/profile" --dump-dom "file://$1" 2>/dev/null)
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 )) $(grep -o 'data-drawn-ms="[0-9]*"' <<<"$out" | grep -o '[0-9]*' || echo -)"
}
for corpus in debian-docs generated-5000-groups; do
    dir=../shared/data/debian-docs/files
    [ "$corpus" = generated-5000-groups ] && dir=$tmp/gen
    start=$(date +%s%N)
    "$bin" scan "$dir" -q --format html -o "$tmp/$corpus.html"
    end=$(date +%s%N)
    groups=$("$bin" scan "$dir" -q -t 0.9 --format clusters | tail -n +2 | cut -d, -f1 | sort -u | wc -l)
    echo "$corpus: $(stat -c %s "$tmp/$corpus.html") bytes, $groups groups, scan + report $(( (end - start) / 1000000 )) ms"
    for round in $(seq "$rounds"); do
        read -r load drawn < <(browse "$tmp/$corpus.html")
        read -r blank _ < <(browse "$tmp/blank.html")
        echo "$corpus $round $load $drawn $blank"
    done
done
