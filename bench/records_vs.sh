#!/usr/bin/env bash
# simfind against recordlinkage and Splink (DuckDB) on the generated
# record-linkage benchmark (bench/gen_records.py): candidates, recall,
# precision, F1, wall and CPU seconds and peak RSS in one run, dedupe and
# link. The Python packages go into their own venv, target/bench-venv
# (bench/requirements.txt), never into the test venv.
#
#   bash bench/records_vs.sh [PEOPLE...]     # default 10000 people (~18,000 records)
#   SIMFIND=path/to/simfind bash bench/records_vs.sh 2778 5556
#   MODES=dedupe ONLY=per-field,fs bash bench/records_vs.sh 5556
#
# gen_records.py --people P writes about 1.8·P records to dedupe (people.csv)
# and P × 1.1·P to link (link_a.csv, link_b.csv): 2778 and 5556 people give
# the 5 k and 10 k record files. SIMFIND names a built binary; without it
# the tests' profile (release-tests, what the developers' target already
# holds) is built, not a second, release, build of everything.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- 10000
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import splink, recordlinkage' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'recordlinkage>=0.16' 'splink>=5' 'duckdb>=1.0'
fi
if [ -z "${SIMFIND:-}" ]; then
    cargo build --profile release-tests -q --bin simfind
    SIMFIND=target/release-tests/simfind
fi
only=()
[ -n "${ONLY:-}" ] && only=(--only "$ONLY")
for people in "$@"; do
    dir=target/records-bench/$people
    python3 bench/gen_records.py "$dir" --people "$people"
    for mode in ${MODES:-dedupe link}; do
        link=()
        [ "$mode" = link ] && link=(--link)
        "$venv/bin/python" bench/records_vs.py "$dir" "$SIMFIND" "${link[@]}" "${only[@]}"
    done
done
