#!/usr/bin/env bash
# The hostile-input matrix of the reliability review
# (../shared/reviews/reliability.md) as a script: each case builds what it
# needs in a scratch directory, runs one command under a time limit and
# checks the verdict the review (or issue #38, for the cases it found
# defective) asks for: the exit code, no panic or abort, the key phrase of
# the message, no partial or temporary output, and a memory bound where the
# case is about memory. One line per case, `ID  ok|DEFECT|skip  why`, then
# the counts; `--markdown FILE` also writes them as a table.
#
#   bench/hostile/run.sh [--bin PATH] [--only PREFIX,...] [--heavy] [--markdown FILE]
#
# --bin     the binary under test (default: target/release/simfind, built if
#           missing)
# --only    run the cases whose id starts with one of the prefixes (1., N1., …)
# --heavy   also the cases with large files or many runs (minutes each)
# Exits 1 if any case is a DEFECT. Cases that need what this machine lacks
# (root, setpriv, a corpus) are `skip` with the reason.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
bin=""
only=""
heavy=0
markdown=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --heavy) heavy=1; shift ;;
    --markdown) markdown=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  bin=$repo/target/release/simfind
  [ -x "$bin" ] || cargo build --release --locked >&2 || exit 2
fi
bin=$(realpath "$bin")
scratch=$(mktemp -d)
# Traversable by others, for the cases run as nobody.
chmod 755 "$scratch"
trap 'chmod -R u+rwx "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
cd "$scratch"
D=$repo/../shared/data/debian-docs
results=()
defects=0

SF() { "$bin" "$@"; }
export -f SF 2>/dev/null || true

# record ID VERDICT WHY
record() {
  printf '%-7s %-6s %s\n' "$1" "$2" "$3"
  results+=("$1"$'\t'"$2"$'\t'"$3")
  [ "$2" = DEFECT ] && defects=$((defects + 1))
  return 0
}

wanted() {
  [ -z "$only" ] && return 0
  local p
  IFS=, read -ra ps <<<"$only"
  for p in "${ps[@]}"; do [[ "$1" == "$p"* ]] && return 0; done
  return 1
}

# check ID EXITS STDERR_RE -- COMMAND...: runs COMMAND (a shell string, with
# $SF the binary) with a 60 s limit and its peak RSS measured; the case is ok
# when the exit code is one of EXITS (`0`, `1|2`), nothing panicked and, if
# STDERR_RE is not empty, stderr matches it (extended regex). MAXRSS_KB (an
# environment variable for this call) bounds the peak RSS.
check() {
  local id=$1 exits=$2 re=$3
  shift 4
  wanted "$id" || return 0
  local cmd=$*
  /usr/bin/time -f %M -o "$scratch/.rss" timeout -s KILL "${LIMIT:-60}" \
    bash -c "SF=$bin; $cmd" >"$scratch/.out" 2>"$scratch/.err"
  local code=$?
  local rss
  rss=$(tail -1 "$scratch/.rss" 2>/dev/null | grep -Eo '^[0-9]+$' || echo 0)
  if [ "$code" -eq 137 ] && [ "$exits" != 137 ]; then
    record "$id" DEFECT "killed after ${LIMIT:-60} s (or by a signal): $cmd"
  elif grep -q "panicked at\|RUST_BACKTRACE" "$scratch/.err" || [ "$code" -eq 101 ] || [ "$code" -eq 134 ]; then
    record "$id" DEFECT "panic or abort (exit $code): $(grep -m1 panicked "$scratch/.err")"
  elif ! [[ "|$exits|" == *"|$code|"* ]]; then
    record "$id" DEFECT "exit $code, expected $exits: $(head -c 200 "$scratch/.err" | tr '\n' ' ')"
  elif [ -n "$re" ] && ! grep -Eq -- "$re" "$scratch/.err"; then
    record "$id" DEFECT "stderr lacks /$re/: $(head -c 200 "$scratch/.err" | tr '\n' ' ')"
  elif [ -n "${MAXRSS_KB:-}" ] && [ "$rss" -gt "$MAXRSS_KB" ]; then
    record "$id" DEFECT "peak RSS ${rss} KB over ${MAXRSS_KB} KB"
  else
    record "$id" ok "exit $code, ${rss} KB${re:+, /$re/}"
  fi
}

# assert ID CONDITION WHY: a case whose verdict is a shell test after its
# commands (run by the caller).
assert() {
  wanted "$1" || return 0
  if eval "$2"; then record "$1" ok "$3"; else record "$1" DEFECT "$3 (failed: $2)"; fi
}

skip() { wanted "$1" && record "$1" skip "$2"; return 0; }

text() { python3 - "$@" <<'EOF'
import random, sys
seed, words = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
vocab = [w for w in "the of and a to in is was that for on are with as his they at be this from have or by one had not but what all were when we there can an your which their said if do will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know".split()]
print(" ".join(rng.choice(vocab) for _ in range(words)))
EOF
}

# c1: a.txt, its copy b.txt, c.txt its shortened copy.
mkdir -p c1 && text 1 4000 > c1/a.txt && cp c1/a.txt c1/b.txt && head -c 15000 c1/a.txt > c1/c.txt
NB=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  NB="setpriv --reuid 65534 --regid 65534 --clear-groups"
fi

## A1. Permissions
if [ -n "$NB" ]; then
  mkdir -p p1/locked && cp c1/* p1/ && cp c1/a.txt p1/locked/ && cp c1/a.txt p1/secret.txt
  chmod 000 p1/locked p1/secret.txt; chmod -R a+rX p1 2>/dev/null; chmod 000 p1/locked p1/secret.txt
  check 1.2 1 'Permission denied|permission denied' -- "$NB \$SF --threads 1 scan -q p1"
  check 1.3 1 'Permission denied|permission denied' -- "$NB \$SF scan -q p1/locked"
  check 1.4 1 '' -- "$NB \$SF scan -q p1/locked --exit-code"
  mkdir -p ro && chmod 555 ro
  check 1.5 2 'cannot create output file' -- "$NB \$SF scan -q c1 -o ro/out.csv; rc=\$?; test ! -e ro/out.csv && exit \$rc"
else
  skip 1.2 "needs root and setpriv"; skip 1.3 "needs root and setpriv"
  skip 1.4 "needs root and setpriv"; skip 1.5 "needs root and setpriv"
fi

## A2. Special files and symlinks
mkdir -p c2 && cp c1/a.txt c1/b.txt c2/ && mkfifo c2/fifo && ln -s /dev/zero c2/zero.lnk \
  && ln -s /dev/urandom c2/rand.lnk && ln -s .. c2/up && ln -s self c2/self && ln -s nowhere c2/dangling
check 2.1 0 'special|symlink' -- "\$SF --threads 1 scan c2"
check 2.2 '0|1' '' -- "\$SF scan -q -L c2"
check 2.3 2 'not a directory or a regular file' -- "\$SF scan c2/fifo"
mkdir -p outside && echo "secret outside the root" > outside/secret.txt && mkdir -p c10 && cp c1/a.txt c10/ \
  && ln -s ../outside c10/outlink
check 2.4 0 '' -- "\$SF scan -q c10 | grep -v outside >/dev/null; ! \$SF scan -q c10 | grep -q secret"

## A4. Hostile names
mkdir -p names && for n in $'bad\xff\xfe.txt' 'a,b.txt' $'line\nbreak.txt' $'cr\r.txt' '=HYPERLINK("x").txt' 'q"uote.txt'; do
  cp c1/a.txt "names/$n"; done
check 4.1 0 '' -- "\$SF --threads 1 scan -q names | python3 -c 'import csv,sys; rows=list(csv.reader(sys.stdin)); assert len(rows)==16, len(rows)'"
check 4.5 0 '' -- "test \$(\$SF scan -q names --list-removable -0 | tr -cd '\\0' | wc -c) -eq 5"
check 4.6 2 'contains a newline' -- "\$SF scan -q names --list-removable"
mkdir -- -rf && cp c1/a.txt c1/b.txt -- -rf/
check 4.7 0 '' -- "\$SF scan -q -- -rf"

## A5. Volume and content shapes
mkdir -p empty && for i in $(seq 1 300); do : > "empty/$i.txt"; done
check 5.4 0 'shorter than one shingle' -- "\$SF scan empty"
mkdir -p bin5 && head -c 20000 /dev/urandom > bin5/x.bin && printf 'a\0b' >> bin5/x.bin && cp c1/a.txt bin5/
check 5.12 0 'looks binary' -- "\$SF scan -v bin5"
check 5.16 2 'at most 256' -- "\$SF scan -q c1 --k 1000"
if [ "$heavy" = 1 ]; then
  mkdir -p id && for i in $(seq 1 3000); do cp c1/c.txt "id/$i.txt"; done
  MAXRSS_KB=100000 check 5.3 0 '' -- "\$SF --threads 1 scan -q id --list-removable | wc -l | grep -qx 2999"
else
  skip 5.3 "heavy (--heavy)"
fi

## A6. Output and signals
check 6.1 2 'cannot create output file' -- "\$SF scan -q c1 -o nope/x.csv"
echo PRECIOUS > existing.csv
check 6.5 2 '' -- "\$SF scan -q /nonexistent -o existing.csv; grep -qx PRECIOUS existing.csv && test \$(ls -A | grep -c '\\.tmp') -eq 0 && exit 2"
check 6.6 0 '' -- "\$SF scan -q c1 -o /dev/null && test -c /dev/null"
printf 'line1 keep\nline2 keep\n' > log.csv
check 6.8 0 '' -- "\$SF scan -q c1 -o /dev/stdout >> log.csv && grep -q 'line1 keep' log.csv && grep -q 'line2 keep' log.csv"
check 6.12 2 'No space left on device' -- "\$SF scan -q c1 > /dev/full"
check 6.14 2 'standard output is closed' -- "\$SF scan -q c1 >&-"
mkdir -p odir
check 6.15 2 'is a directory' -- "\$SF scan -q c1 -o odir"
check 6.21 0 '' -- "\$SF scan -q c1 | head -1 >/dev/null"
check 6.22 2 'would overwrite the index' -- "\$SF index -q c1 --db same.db && \$SF scan -q c1 --db same.db -o same.db"

## A7. Bad arguments
check 7.1 2 'at least 1' -- "\$SF scan -q c1 --bands 0"
check 7.2 2 'at most 65536' -- "\$SF scan -q c1 --bands 100000 --rows 100000"
check 7.3 2 'at least 1' -- "\$SF scan -q c1 --k 0"
check 7.4 2 'must be in \(0, 1\]' -- "\$SF scan -q c1 -t 1.5"
check 7.4b 2 'must be in \(0, 1\]' -- "\$SF scan -q c1 -t NaN"
check 7.7 2 '' -- "\$SF scan -q c1 --threads 100000"
check 7.8 2 'No such file or directory' -- "\$SF scan -q /nonexistent"
check 7.9 0 '' -- "test \$(\$SF scan -q c1 c1 ./c1/ | wc -l) -eq 4"
check 7.11 2 '' -- "\$SF scan -q c1 --min-size 10X"

## A8. The index
check 8.1 0 '' -- "\$SF index -q c1 --db i8.db"
printf 'not a database' > bad.db
check 8.8 2 'not a usable simfind index|not an SQLite database|not a database' -- "\$SF query -q c1/a.txt --db bad.db"
check 8.14 2 'no index at' -- "\$SF query -q c1/a.txt --db nonexistent.db"
check 8.17 0 '' -- "mkdir -p self && cp c1/a.txt self/ && cd self && \$SF index -q . --db ./self.db && \$SF index -q . --db ./self.db && \$SF query -q a.txt --db self.db | grep -v self.db >/dev/null"

## A10. Consistency
check 10.4 0 '' -- "diff <(\$SF --threads 1 scan -q c1 names) <(\$SF --threads 2 scan -q c1 names)"
check 10.5 3 '' -- "mkdir -p lone && text=\$(head -c 3000 c1/a.txt) && echo \"\$text\" > lone/x.txt && \$SF scan -q lone --exit-code"

## B1. Record and point inputs
printf 'id,name,addr\n1,John Smith,1 Main St\n2,John Smith,1 Main St\n' > ok.csv
check N1.1 0 '' -- "test \$(\$SF scan -q --input csv ok.csv -t 0.3 | wc -l) -eq 2"
printf 'id,name,addr\n1,a,b\n2,a,b,c\n' > ragged.csv
check N1.2 2 'ragged.csv:3: 4 fields' -- "\$SF scan -q --input csv ragged.csv -t 0.3"
check N1.4 1 'ragged.csv:3' -- "\$SF scan -q --input csv ragged.csv -t 0.3 --skip-bad-rows"
printf '\xef\xbb\xbfid,text\n1,the quick brown fox\n2,the quick brown fox\n' > bom.csv
check N1.7 0 '' -- "test \$(\$SF scan -q --input csv bom.csv -t 0.3 | wc -l) -eq 2"
printf 'id,text\n1,a\n1,b\n' > dupid.csv
check N1.9 2 "duplicate id '1'" -- "\$SF scan -q --input csv dupid.csv -t 0.3"
printf 'id,text\n1,x\xff\n' > badutf8.csv
# Undeclared, such a file is read as the legacy 8-bit text it most likely is
# (#39, point 3); declared UTF-8, the bad byte is named with file and line.
check N1.11 2 'badutf8.csv:2: field 2: not valid UTF-8' -- "\$SF scan -q --input csv badutf8.csv -t 0.3 --encoding utf-8"
python3 -c "
b='the quick brown fox jumps over the lazy dog'
open('longq.csv','w').write('id,text\n1,'+b+'\n2,\"'+'word,'*500+'\"\n3,'+b+'\n4,'+b+'\n')"
check N1.20 0 'longq.csv:3' -- "test \$(\$SF scan -q --input csv longq.csv -t 0.3 --max-line-length 1K --skip-bad-rows | wc -l) -eq 4"
printf '{"id":12345678901234567890123,"text":"the quick brown fox"}\n{"id":12345678901234567890124,"text":"the quick brown fox"}\n' > bigid.jsonl
# Either kept exactly or refused by name; never rounded into a duplicate.
check N1.23 '0|2' '' -- "out=\$(\$SF scan -q --input jsonl bigid.jsonl -t 0.3 2>&1); rc=\$?; if [ \$rc = 0 ]; then echo \"\$out\" | grep -q 12345678901234567890123; else echo \"\$out\" | grep -q '64-bit integer' && exit 2; exit 9; fi"
printf '\xef\xbb\xbf{"id":"a","text":"the quick brown fox"}\n{"id":"b","text":"the quick brown fox"}\n' > bom.jsonl
check N1.24 '0|2' '' -- "out=\$(\$SF scan -q --input jsonl bom.jsonl -t 0.3 2>&1); rc=\$?; if [ \$rc = 0 ]; then echo \"\$out\" | grep -q '^a,b,1.0'; else echo \"\$out\" >&2; echo \"\$out\" | grep -Eq 'BOM\b|byte.order mark' && exit 2; exit 9; fi"
printf '{"id":"a","text":[1]}\n' > textnum.jsonl
check N1.22 2 "is not a string" -- "\$SF scan -q --input jsonl textnum.jsonl -t 0.3"
python3 -c "print('{\"id\":\"d\",\"text\":' + '['*100000 + ']'*100000 + '}')" > deep.jsonl
check N1.28 2 'recursion limit' -- "\$SF scan -q --input jsonl deep.jsonl -t 0.3"
printf 'a,1,2,NaN\n' > v_nan.csv
check N1.33 2 'not a finite number' -- "\$SF scan -q --input vectors v_nan.csv -t 0.9"
printf '\xef\xbb\xbfa,1,2,3\nb,1,2,3\n' > v_bom.csv
check N1.38 '0|2' '' -- "out=\$(\$SF scan -q --input vectors v_bom.csv -t 0.9); rc=\$?; [ \$rc = 2 ] && exit 2; printf '%s' \"\$out\" | grep -q \$'\\xef\\xbb\\xbf' && exit 9; exit \$rc"
printf 'a,0101x101\nb,01010101\nc,01010101\n' > b_first.csv
check N1.41 '1|2' "b_first.csv.*(line 1|:1)" -- "\$SF scan -q --input bits b_first.csv --radius 1"
printf 'a\tx y\n\ty\n' > s_bad.tsv
check N1.43 2 'missing id' -- "\$SF scan -q --input sets s_bad.tsv -t 0.3"

## B3. dedupe and undo
mk_t() { mkdir -p "$1/sub"; for g in 1 2; do text $((g + 10)) 600 > "$1/g$g-a.txt"; cp "$1/g$g-a.txt" "$1/sub/g$g-b.txt"; cp "$1/g$g-a.txt" "$1/g$g-c.txt"; done; }
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum); }
mk_t t1; sum1=$(tree_sum t1)
check N3.1 0 'dry run' -- "\$SF dedupe t1 && test \"\$(cd t1 && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum)\" = '$sum1'"
check N3.2 0 '' -- "\$SF dedupe -q t1 --move-to q1 --journal j1.jsonl"
check N3.3 0 '' -- "\$SF undo -q j1.jsonl && test \"\$(cd t1 && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum)\" = '$sum1'"
check N3.7 2 'not a simfind journal' -- "echo '{\"x\":1}' > foreign.jsonl; \$SF undo foreign.jsonl"
LIMIT=10 check N3.8 2 "" -- "\$SF undo /dev/zero"
mk_t t9; "$bin" dedupe -q t9 --move-to q9 --journal j9.jsonl >/dev/null 2>&1
python3 -c "
b = open('j9.jsonl', 'rb').read().split(b'\\n')
b[1] = bytes(len(b[1]))
open('j9.jsonl', 'wb').write(b'\\n'.join(b))"
check N3.9 1 'j9.jsonl:2:' -- "\$SF undo -q j9.jsonl"
assert N3.9b "[ \$(find t9 -type f | wc -l) -ge 5 ]" "the actions after the damaged line are undone"
if [ "$(id -u)" = 0 ]; then
  mk_t t29; chown 65534:65534 t29/g1-c.txt; chmod 600 t29/g1-c.txt
  check N3.29 0 '' -- "\$SF dedupe -q t29 --remove -t 1 --journal j29.jsonl && \$SF undo -q j29.jsonl && test \"\$(stat -c '%a %u' t29/g1-c.txt)\" = '600 65534'"
else
  skip N3.29 "needs root"
fi
mkdir -- --remove w && cp c1/a.txt -- --remove/a.txt && cp c1/a.txt w/b.txt
"$bin" scan -q --format html -o rep6.html -- --remove w && "$bin" scan -q --list-removable -0 -- --remove w > simfind-removal.nul
python3 -c "
import json
p = open('rep6.html').read()
s = p.index('id=\"data\">') + len('id=\"data\">')
print(json.loads(p[s:p.index('</script>', s)])['dedupe_command'])" > n53.cmd
check N5.3 0 '' -- "PATH=\$(dirname \$SF):\$PATH sh -c \"\$(cat n53.cmd)\" >/dev/null && test -e w/b.txt && test -e --remove/a.txt"

## B2. Parquet
check N2.14 0 '' -- "(umask 022; \$SF sign -q c1 --out sig) && test -z \"\$(find sig -name '*.parquet' ! -perm -0644)\""

## B4. explain
: > e1.txt
check N4.1 0 'shorter than one shingle' -- "\$SF explain e1.txt e1.txt"
head -c 100000 /dev/urandom > r1.bin; cp r1.bin r2.bin
check N4.4 0 '' -- "\$SF explain r1.bin r2.bin >/dev/null"
check N7.6 2 'not a regular file' -- "\$SF compare /dev/stdin c1/a.txt < /dev/zero"

## B7. stdin
"$bin" index -q c1 --db q7.db
# Under a 2 GB address-space limit, so that a reader without a cap cannot
# take the machine's memory in the seconds it is given.
MAXRSS_KB=500000 LIMIT=20 check N7.1 '1|2' '' -- "ulimit -v 2000000; \$SF query -q - --db q7.db < /dev/zero"
MAXRSS_KB=500000 LIMIT=20 check N7.2 '1|2' '' -- "ulimit -v 2000000; \$SF index --db q7b.db --add - --name zero.txt < /dev/zero"
check N7.3 0 'looks binary' -- "head -c 100000 /dev/urandom | \$SF query - --db q7.db"
check N7.5 2 'only once' -- "\$SF query -q - - --db q7.db < /dev/null"

## C. Concurrency (N3.21: two removals at once)
if [ "$heavy" = 1 ] && [ -d "$D" ]; then
  lost=0
  for trial in 1 2 3; do
    rm -rf k26; mkdir -p k26; cp -r "$D/copyright" k26/c1; cp -r "$D/copyright" k26/c2; touch -d 2024-01-02 k26/c2/*
    before=$(cat k26/c1/* | md5sum)
    "$bin" dedupe -q k26 --remove --keep first -t 1 --journal "a$trial.jsonl" 2>/dev/null &
    "$bin" dedupe -q k26 --remove --keep newest -t 1 --journal "b$trial.jsonl" 2>/dev/null &
    wait
    for f in k26/c1/*; do n=$(basename "$f"); [ -e "k26/c1/$n" ] || [ -e "k26/c2/$n" ] || lost=$((lost + 1)); done
    for f in "$D"/copyright/*; do n=$(basename "$f"); [ -e "k26/c1/$n" ] || [ -e "k26/c2/$n" ] || lost=$((lost + 1)); done
  done
  assert N3.21 "[ $lost -eq 0 ]" "3 trials of two concurrent --remove runs: $lost contents lost"
else
  skip N3.21 "heavy (--heavy) and needs ../shared/data/debian-docs"
fi

cd "$repo"
ok=$(printf '%s\n' "${results[@]}" | awk -F'\t' '$2=="ok"' | wc -l)
sk=$(printf '%s\n' "${results[@]}" | awk -F'\t' '$2=="skip"' | wc -l)
echo "hostile matrix: ${#results[@]} cases, $ok ok, $defects DEFECT, $sk skipped ($($bin -V))"
if [ -n "$markdown" ]; then
  {
    echo "| case | verdict | detail |"
    echo "|---|---|---|"
    printf '%s\n' "${results[@]}" | awk -F'\t' '{gsub(/\|/, "\\|", $3); printf "| %s | %s | %s |\n", $1, $2, $3}'
  } > "$markdown"
fi
[ "$defects" -eq 0 ]
