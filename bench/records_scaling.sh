#!/usr/bin/env bash
# Time per doubling of a record scan on the generated benchmark
# (bench/gen_records.py): for each number of people, the records, the
# candidates, the pairs, wall and CPU seconds and peak RSS of one scan, and
# each row's ratio to the row before (the cost of doubling the records).
#
#   SIMFIND=target/release-tests/simfind bash bench/records_scaling.sh 5556 11112 22224
#   ARGS="--model fellegi-sunter --block last --block zip" MODE=link bash bench/records_scaling.sh …
#
# MODE=dedupe (default) scans people.csv, MODE=link links link_a.csv with
# link_b.csv. POOLS=realistic generates with gen_records.py --pools
# realistic (pools that grow with the people, under
# target/records-bench/N-realistic), where candidates stop growing as n². 10 M records to dedupe are 5,555,556 people (about 20 minutes
# of generating and 600 MB of CSV under target/records-bench):
#   SIMFIND=… bash bench/records_scaling.sh 555556 1111112 2222224 5555556
set -euo pipefail
cd "$(dirname "$0")/.."
SIMFIND=${SIMFIND:-target/release-tests/simfind}
mode=${MODE:-dedupe}
read -r -a args <<< "${ARGS:-}"
echo "| records | candidates | pairs | wall s | CPU s | peak RSS | CPU × (2× records) |"
echo "|--:|--:|--:|--:|--:|--:|--:|"
prev_cpu= prev_n=
for people in "$@"; do
    dir=target/records-bench/$people
    [ "${POOLS:-small}" = small ] || dir=$dir-$POOLS
    [ -f "$dir/link_truth.csv" ] || python3 bench/gen_records.py "$dir" --people "$people" \
        --pools "${POOLS:-small}"
    if [ "$mode" = link ]; then
        inputs=(--link "$dir/link_a.csv" "$dir/link_b.csv")
        n=$(( $(wc -l < "$dir/link_a.csv") + $(wc -l < "$dir/link_b.csv") - 2 ))
    else
        inputs=("$dir/people.csv")
        n=$(( $(wc -l < "$dir/people.csv") - 1 ))
    fi
    err=$(mktemp)
    /usr/bin/time -o "$err.time" -f "%e %U %S %M" "$SIMFIND" scan --input csv "${inputs[@]}" \
        "${args[@]}" -o /dev/null 2> "$err" || [ $? -eq 1 ]
    read -r wall user sys kb < <(tail -1 "$err.time")
    cpu=$(echo "$user + $sys" | bc)
    cands=$(grep -o '[0-9]* candidates' "$err" | tail -1 | cut -d' ' -f1)
    pairs=$(grep -oE '[0-9]+ pairs (with|≥)' "$err" | tail -1 | cut -d' ' -f1)
    step=
    if [ -n "$prev_cpu" ]; then
        # Normalised to an exact doubling of the records.
        step=$(python3 -c "import math; print(f'{math.pow($cpu / max($prev_cpu, 0.01), math.log(2) / math.log($n / $prev_n)):.2f}')")
    fi
    echo "| $n | $cands | $pairs | $wall | $cpu | $((kb / 1024)) MB | $step |"
    prev_cpu=$cpu prev_n=$n
    rm -f "$err" "$err.time"
done
