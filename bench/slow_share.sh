#!/usr/bin/env bash
# --io-threads on a simulated network share: a FUSE pass-through that waits
# DELAY_MS on every open and read (bench/slowfs/slowfs.py), over the first
# FILES files of CORPUS. Prints wall seconds per --io-threads value, and checks
# that every run's CSV is byte-identical.
#
#   bench/slow_share.sh SIMFIND [CORPUS] [DELAY_MS] [FILES]
#
# Needs /dev/fuse and fusermount (Debian: fuse3 libfuse2); installs fusepy into
# $TMPDIR/simfind-slowfs-venv when missing.
set -euo pipefail
SIMFIND=$(realpath "$1")
CORPUS=${2:-../shared/data/debian-docs/files}
DELAY_MS=${3:-2}
FILES=${4:-1000}
TMP=${TMPDIR:-/tmp}
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v fusermount >/dev/null; then
    if command -v apt-get >/dev/null; then apt-get install -y fuse3 libfuse2 >/dev/null; else
        echo "needs fusermount and libfuse2" >&2; exit 2; fi
fi
VENV=$TMP/simfind-slowfs-venv
if ! "$VENV/bin/python" -c 'import fuse' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q fusepy
fi

src=$TMP/simfind-slowfs-src
mnt=$TMP/simfind-slowfs-mnt
rm -rf "$src"; mkdir -p "$src" "$mnt"
# The first FILES regular files in path order, with their relative paths.
(cd "$CORPUS" && find . -type f -print0 | LC_ALL=C sort -z > "$TMP/simfind-slowfs-list")
head -z -n "$FILES" "$TMP/simfind-slowfs-list" | (cd "$CORPUS" && xargs -0 cp --parents -p -t "$src")
"$VENV/bin/python" "$here/slowfs/slowfs.py" "$src" "$mnt" "$DELAY_MS" &
fs=$!
trap 'fusermount -u "$mnt" 2>/dev/null || true; kill $fs 2>/dev/null || true' EXIT
for _ in $(seq 50); do mountpoint -q "$mnt" && break; sleep 0.1; done

echo "files: $(find "$src" -type f | wc -l), $(du -sh "$src" | cut -f1); delay ${DELAY_MS} ms per open and per read; -j 2"
echo "io-threads  wall-s  cpu-s"
ref=""
for io in 0 2 8 32 128; do
    /usr/bin/time -f "%e %U %S" -o "$TMP/simfind-slowfs-time" \
        "$SIMFIND" -j 2 scan -q "$mnt" -t 0.8 --io-threads "$io" -o "$TMP/simfind-slowfs-$io.csv"
    read -r wall user sys < "$TMP/simfind-slowfs-time"
    printf '%10s  %6s  %5.2f\n' "$io" "$wall" "$(echo "$user + $sys" | bc)"
    if [ -z "$ref" ]; then ref=$TMP/simfind-slowfs-$io.csv
    elif ! cmp -s "$ref" "$TMP/simfind-slowfs-$io.csv"; then
        echo "DIFFERS: --io-threads $io" >&2; exit 1; fi
done

echo "index (a fresh index each time):"
echo "io-threads  wall-s"
for io in 0 32; do
    rm -f "$TMP/simfind-slowfs-$io.db"
    /usr/bin/time -f "%e" -o "$TMP/simfind-slowfs-time" \
        "$SIMFIND" -j 2 index -q "$mnt" --db "$TMP/simfind-slowfs-$io.db" --io-threads "$io"
    printf '%10s  %6s\n' "$io" "$(cat "$TMP/simfind-slowfs-time")"
done
