#!/usr/bin/env bash
# The cost of `scan DIR --important-words 20`'s first pass (counting each
# word's documents) on the shared corpora: wall and CPU (user + sys) seconds
# and peak RSS against a plain `scan --shingle word -k 1` over the same files,
# alternating, and the seconds of each stage from --summary-json (`count` is
# the first pass). Then the distinct words of each corpus (lowercased runs of
# letters and digits, counted in Python) times the 12 bytes the document
# frequencies hold per word. Numbers: docs/PERFORMANCE.md, "Important words
# on files". Run under `flock /work/bench.lock` on the shared machine.
#
#   bash bench/important_words.sh [BINARY] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/simfind}
repeats=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for corpus in debian-docs django-docs; do
    files=../shared/data/$corpus/files
    for _ in $(seq "$repeats"); do
        for mode in plain important; do
            if [ "$mode" = plain ]; then
                extra=(--shingle word -k 1)
            else
                extra=(--important-words 20)
            fi
            /usr/bin/time -o "$tmp/time" -f "%e %U %S %M" \
                "$bin" scan "$files" "${extra[@]}" -q -o "$tmp/pairs.csv" \
                --summary-json "$tmp/run.json"
            read -r wall user sys rss < "$tmp/time"
            stages=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["seconds"]["stages"]; print(" ".join(f"{k} {v:.2f}" for k, v in s.items()))' "$tmp/run.json")
            printf '%s %-9s wall %5.2f s  cpu %5.2f s  rss %4d MB  pairs %6d  stages: %s\n' \
                "$corpus" "$mode" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))" \
                "$(($(wc -l < "$tmp/pairs.csv") - 1))" "$stages"
        done
    done
    python3 - "$files" <<'PY'
import hashlib, os, re, sys
words, contents = set(), set()
for root, _, names in os.walk(sys.argv[1]):
    for name in names:
        data = open(os.path.join(root, name), "rb").read()
        digest = hashlib.sha256(data).digest()
        if b"\0" in data[:8192] or digest in contents:
            continue
        contents.add(digest)
        words.update(re.findall(r"[^\W_]+", data.decode("utf-8", "replace").lower()))
print(f"{os.path.basename(os.path.dirname(sys.argv[1]))}: {len(contents)} distinct text contents, "
      f"{len(words)} distinct words: {12 * len(words) / 1e6:.2f} MB of document frequencies")
PY
done
