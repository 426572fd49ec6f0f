#!/usr/bin/env bash
# The hostile-input matrix of the reliability review
# (../shared/reviews/reliability.md) as a script: each case builds what it
# needs in a scratch directory, runs one command under a time limit and
# checks the verdict the review (or issue #38, for the cases it found
# defective) asks for: the exit code, no panic or abort, the key phrase of
# the message, no partial or temporary output, and a memory bound where the
# case is about memory. One line per case, `ID  ok|DEFECT|skip  why`, then
# the counts; `--markdown FILE` also writes them as a table. The cases are
# in cases/, one file per part of the review, sourced in order; a case that
# a test of tests/suite/ holds better (a signal at a chosen instant, a fault
# point) is a `test` row naming that test, which must exist.
#
#   bench/hostile/run.sh [--bin PATH] [--only PREFIX,...] [--heavy] [--markdown FILE]
#
# --bin     the binary under test (default: target/release/simfind, built if
#           missing)
# --only    run the cases whose id starts with one of the prefixes (1., N1., …)
# --heavy   also the cases with large files or many runs (minutes each)
# Exits 1 if any case is a DEFECT. Cases that need what this machine lacks
# (root, setpriv, mount, a corpus, pyarrow and duckdb for the engine join)
# are `skip` with the reason.
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
# during PATH ACTION CMD...: ACTION while CMD holds PATH open (during.py).
during="python3 $repo/bench/hostile/during.py"
# paused ACTION CMD...: ACTION while `dedupe --pause-at N` waits (paused.py).
paused="python3 $repo/bench/hostile/paused.py"
scratch=$(mktemp -d)
# Traversable by others, for the cases run as nobody.
chmod 755 "$scratch"
cleanup() {
  local m
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  chmod -R u+rwx "$scratch" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
cd "$scratch"
D=$repo/../shared/data/debian-docs/files
results=()
defects=0

# The binary also as `simfind` on a PATH, for the commands simfind
# suggests (they name it so).
mkdir -p "$scratch/bin" && ln -s "$bin" "$scratch/bin/simfind"

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
  local code=99 tries=0
  # The command gets only stdin, stdout and stderr (the limits of A9 count
  # descriptors; the harness's own, such as the case file being read, are
  # not the command's).
  local closefds='for f in /proc/self/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done;'
  # 99 is during.py's "the command ended before the instant": nothing was
  # done to it, so the case runs again, up to 3 times.
  while [ "$code" -eq 99 ] && [ "$tries" -lt 3 ]; do
    tries=$((tries + 1))
    /usr/bin/time -f %M -o "$scratch/.rss" timeout -s KILL "${LIMIT:-60}" \
      bash -c "$closefds export SF=$bin; $cmd" >"$scratch/.out" 2>"$scratch/.err"
    code=$?
  done
  local rss
  rss=$(tail -1 "$scratch/.rss" 2>/dev/null | grep -Eo '^[0-9]+$' || echo 0)
  if [ "$code" -eq 99 ]; then
    record "$id" skip "the race missed its window 3 times: $cmd"
  elif [ "$code" -eq 137 ] && [[ "|$exits|" != *"|137|"* ]]; then
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

# part PREFIX: whether --only asks for any case of the part whose ids start
# with PREFIX (`1.`, `N3.`); a case file returns at once otherwise, so that
# its inputs are not built for nothing.
part() {
  [ -z "$only" ] && return 0
  local p
  IFS=, read -ra ps <<<"$only"
  for p in "${ps[@]}"; do [[ "$p" == "$1"* || "$1" == "$p"* ]] && return 0; done
  return 1
}

# covered ID FILE TEST: the case is held by the test TEST of
# tests/suite/FILE; a `test` row, or a DEFECT if no such test is there.
covered() {
  wanted "$1" || return 0
  if grep -q "^fn $3()" "$repo/tests/suite/$2"; then
    record "$1" test "tests/suite/$2: $3"
  else
    record "$1" DEFECT "no test $3 in tests/suite/$2"
  fi
}

# heavy ID: true with --heavy; otherwise records ID as skipped.
heavy() { [ "$heavy" = 1 ] && return 0; skip "$1" "heavy (--heavy)"; return 1; }

# mounted DIR SIZE: a fresh tmpfs of SIZE at DIR (unmounted at exit), or
# false where mounting is not allowed.
mounts=()
mounted() {
  mkdir -p "$1" && mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null || return 1
  mounts+=("$scratch/$1")
}

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
# c2: special files and links of every kind beside a pair; c10: a link to
# a directory outside the root; names: six copies of a.txt under hostile
# names; c7: c1 with c.txt in a subdirectory; id300: 300 identical files
# (44,850 pairs, an output of 2.6 MB).
mkdir -p c2 && cp c1/a.txt c1/b.txt c2/ && mkfifo c2/fifo && ln -s /dev/zero c2/zero.lnk \
  && ln -s /dev/urandom c2/rand.lnk && ln -s .. c2/up && ln -s self c2/self && ln -s nowhere c2/dangling
mkdir -p outside && echo "secret outside the root" > outside/secret.txt && mkdir -p c10 && cp c1/a.txt c10/ \
  && ln -s ../outside c10/outlink
mkdir -p names && for n in $'bad\xff\xfe.txt' 'a,b.txt' $'line\nbreak.txt' $'cr\r.txt' '=HYPERLINK("x").txt' 'q"uote.txt'; do
  cp c1/a.txt "names/$n"; done
mkdir -p c7/sub && cp c1/a.txt c1/b.txt c7/ && cp c1/c.txt c7/sub/
mkdir -p id300 && for i in $(seq 1 300); do cp c1/c.txt "id300/$i.txt"; done
# id10k: 10,000 identical 995-byte files, made by the first case that needs it.
mk_id10k() {
  [ -d id10k ] || python3 - <<'PY'
import os
os.makedirs("id10k")
body = (open("c1/a.txt").read()[:995]).encode()
for i in range(10000):
    open(f"id10k/{i}.txt", "wb").write(body)
PY
}
NB=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  NB="setpriv --reuid 65534 --regid 65534 --clear-groups"
fi

for part in "$repo"/bench/hostile/cases/*.sh; do
  started=$SECONDS
  # shellcheck source=/dev/null
  . "$part"
  echo "($(basename "$part" .sh): $((SECONDS - started)) s)" >&2
done

cd "$repo"
ok=$(printf '%s\n' "${results[@]}" | awk -F'\t' '$2=="ok"' | wc -l)
sk=$(printf '%s\n' "${results[@]}" | awk -F'\t' '$2=="skip"' | wc -l)
te=$(printf '%s\n' "${results[@]}" | awk -F'\t' '$2=="test"' | wc -l)
echo "hostile matrix: ${#results[@]} cases, $ok ok, $defects DEFECT, $te held by tests, $sk skipped ($($bin -V))"
if [ -n "$markdown" ]; then
  {
    echo "| case | verdict | detail |"
    echo "|---|---|---|"
    printf '%s\n' "${results[@]}" | awk -F'\t' '{gsub(/\|/, "\\|", $3); printf "| %s | %s | %s |\n", $1, $2, $3}'
  } > "$markdown"
fi
[ "$defects" -eq 0 ]
