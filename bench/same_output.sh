#!/usr/bin/env bash
# Runs two simfind binaries over the same jobs and compares every output byte
# for byte: the proof that a refactor changed no behaviour. Jobs cover scan
# (classic and oph, char and word shingles, exact and lsh methods, signature
# verification, pairs CSV / JSONL / groups / clusters / removable list,
# records of tests/records-data), the
# index (`index`, `scan --db`, `query`), `compare`, `curve` and `tune`, and every
# subcommand's --help.
#   bench/same_output.sh OLD_BINARY NEW_BINARY [CORPUS_DIR ...]
# Corpora default to ../shared/data/{debian-docs,django-docs}/files and testdata/.
# Prints one line per job and exits 1 if any output differs.
set -uo pipefail
old=$1 new=$2; shift 2
corpora=("$@")
if [ ${#corpora[@]} -eq 0 ]; then
  corpora=(testdata)
  for c in debian-docs django-docs; do
    [ -d "../shared/data/$c/files" ] && corpora+=("../shared/data/$c/files")
  done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# run NAME ARGS...: runs both binaries with ARGS (the token OUT is replaced by a
# per-binary output file, the token DB by a per-binary index) and compares stdout, OUT and
# the exit code. stderr is compared with timings removed.
run() {
  local name=$1; shift
  for which in old new; do
    local bin=$old; [ "$which" = new ] && bin=$new
    local args=()
    for a in "$@"; do
      case $a in
        OUT) a=$tmp/$which.out ;;
        DB) a=$tmp/$which.db ;;
      esac
      args+=("$a")
    done
    rm -f "$tmp/$which.out"
    "$bin" "${args[@]}" >"$tmp/$which.stdout" 2>"$tmp/$which.stderr" </dev/null
    echo $? >"$tmp/$which.code"
    # Times, rates and index file names differ from run to run.
    sed -E -e 's/[0-9.]+ (s|ms|µs)\b/T/g' -e 's/\([0-9.]+ [KMG]?B\/s\)/(R)/g' \
      -e "s#$tmp/$which#TMP#g" "$tmp/$which.stderr" >"$tmp/$which.err"
    [ -f "$tmp/$which.out" ] || : >"$tmp/$which.out"
  done
  local what=""
  cmp -s "$tmp/old.stdout" "$tmp/new.stdout" || what+=" stdout"
  cmp -s "$tmp/old.out" "$tmp/new.out" || what+=" -o"
  cmp -s "$tmp/old.code" "$tmp/new.code" || what+=" exit-code"
  cmp -s "$tmp/old.err" "$tmp/new.err" || what+=" stderr"
  if [ -n "$what" ]; then
    echo "DIFFERS:$what  $name"
    [ "${what# stderr}" = "" ] || fail=1
    diff <(head -c 2000 "$tmp/old.err") <(head -c 2000 "$tmp/new.err") | head -8
  else
    echo "same  $name"
  fi
}

for cmd in "" scan compare index query curve tune; do
  run "help $cmd" $cmd --help
done
run "curve" curve -b 20 -r 5
run "curve csv" curve -b 20 -r 5 --format csv
run "tune" tune -t 0.8
run "compare" compare testdata/$(ls testdata | head -1) testdata/$(ls testdata | tail -1)
r=tests/records-data
run "records csv" scan --input csv $r/people.csv --k 3 -t 0.5 -o OUT
run "records csv oph" scan --input csv $r/people.csv --k 3 -t 0.5 --minhash oph -o OUT
run "records csv signature" scan --input csv $r/people.csv --k 3 -t 0.5 --verify signature -o OUT
run "records csv link" scan --input csv --link $r/link_a.csv $r/link_b.csv --k 3 -t 0.5 -o OUT
run "records csv per-field" scan --input csv $r/people.csv --per-field --k 3 -t 0.5 -o OUT
run "records csv exact" scan --input csv $r/people.csv --method exact --k 3 -t 0.5 -o OUT

for corpus in "${corpora[@]}"; do
  c=$(basename "$(dirname "$corpus")")/$(basename "$corpus")
  run "$c lsh classic char" scan -q "$corpus" -b 20 -r 5 -t 0.8 -o OUT
  run "$c lsh oph char" scan -q "$corpus" -b 20 -r 5 -t 0.8 --minhash oph -o OUT
  run "$c lsh classic word" scan -q "$corpus" --shingle word --k 3 -b 20 -r 5 -t 0.5 -o OUT
  run "$c lsh oph word" scan -q "$corpus" --shingle word --k 3 -t 0.7 --minhash oph -o OUT
  run "$c exact char" scan -q "$corpus" --method exact -t 0.8 -o OUT
  run "$c exact word" scan -q "$corpus" --method exact --shingle word -t 0.5 -o OUT
  run "$c auto -t" scan "$corpus" -t 0.8 -o OUT
  run "$c signature verify" scan -q "$corpus" -b 20 -r 5 -t 0.8 --verify signature -o OUT
  run "$c jsonl" scan -q "$corpus" -t 0.8 --format jsonl
  run "$c jsonl groups" scan -q "$corpus" -t 0.8 --format jsonl --cluster connected
  run "$c clusters" scan -q "$corpus" -t 0.9 --format clusters --keep newest
  run "$c removable" scan -q "$corpus" -t 0.9 --list-removable
  run "$c stopword" scan -q "$corpus" --shingle stopword -t 0.6 -o OUT
  run "$c reference" scan -q "$corpus" --reference "$corpus/$(ls "$corpus" | head -1)" -t 0.8 --format clusters
  run "$c index" index "$corpus" --db DB
  run "$c scan --db" scan -q "$corpus" --db DB -t 0.8 -o OUT
  first=$(find "$corpus" -type f | sort | head -1)
  run "$c query" query --db DB "$first" -t 0.3
done
exit $fail
