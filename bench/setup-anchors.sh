#!/usr/bin/env bash
# The anchors' venv (datasketch, rensa, gaoya, ...: the tools bench/compare.py
# and ../shared/anchors/bench.sh time simfind against), built beside the build
# from ../shared/anchors/requirements.txt instead of by hand in $HOME, so a
# fresh machine measures the same thing. Only benchmarks use it: never the
# tests' venv (target/engines/venv) nor bench/requirements.txt's
# (target/bench-venv), whose pins differ.
#
#   bash bench/setup-anchors.sh        # prints the venv's python on stdout
#
# Idempotent: with the requirements unchanged since the last install (a copy
# is kept as a stamp) it only prints the path. The shared directory is found
# as compare.py finds it: SIMFIND_SHARED, else the first `shared/` holding
# `anchors/` beside the repository or one of its parents.
set -euo pipefail
cd "$(dirname "$0")/.."

shared=${SIMFIND_SHARED:-}
if [ -z "$shared" ]; then
    d=$PWD
    while [ "$d" != / ]; do
        d=$(dirname "$d")
        if [ -d "$d/shared/anchors" ]; then shared=$d/shared; break; fi
    done
fi
req=${shared:+$shared/anchors/requirements.txt}
if [ -z "$req" ] || [ ! -f "$req" ]; then
    echo "setup-anchors: ../shared/anchors/requirements.txt not found beside the project (set SIMFIND_SHARED)" >&2
    exit 1
fi

venv=$PWD/target/anchors-venv
stamp=$venv/requirements.installed
if ! cmp -s "$req" "$stamp" 2>/dev/null || [ ! -x "$venv/bin/python" ]; then
    echo "setup-anchors: venv at $venv from $req" >&2
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
    cp "$req" "$stamp"
fi
echo "$venv/bin/python"
