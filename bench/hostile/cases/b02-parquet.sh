## B2. sign / verify / group with Parquet shards
part N2. || return 0
# The engine's join is spark/simfind_lsh_duckdb.py, with pyarrow and duckdb
# (the venv scripts/setup-engines.sh makes, or any python3 that has both).
py=""
for p in "$repo/target/engines/venv/bin/python" python3; do
  "$p" -c 'import pyarrow, duckdb' 2>/dev/null && { py=$p; break; }
done
join() { "$py" "$repo/spark/simfind_lsh_duckdb.py" "$1" "$2" --exact-pairs >/dev/null 2>&1; }
if [ -n "$py" ] && [ -d "$D" ]; then
  # share: two copies of D's copyright files, 50 of the second edited.
  mkdir -p share && cp -r "$D/copyright" share/c1 && cp -r "$D/copyright" share/c2
  for f in $(ls share/c2 | head -50); do echo "an edit" >> "share/c2/$f"; done
  "$bin" sign -q share --out sig && join sig joined
  "$bin" scan -q share --method lsh > share-lsh.csv 2>/dev/null
  "$bin" group -q --pairs joined/pairs --docs sig --list-removable > share-rm.txt 2>/dev/null
  # group's removable list is scan's (same pairs, same keep rule), and long:
  # 1,292 files in about 360 groups (a count, not a tuned constant: the
  # exact list is scan's).
  "$bin" scan -q share --method lsh --list-removable > share-scan-rm.txt 2>/dev/null
  check N2.1 0 '' -- "\$SF verify -q --pairs joined/pairs --docs sig | cmp - share-lsh.csv && \$SF group -q --pairs joined/pairs --docs sig --list-removable | cmp - share-scan-rm.txt && test \$(wc -l < share-scan-rm.txt) -gt 800"
  # damaged NAME DIR: copies sig (or joined) to DIR for a damage; then
  # either a refusal naming the damaged file (exit 2, no output) or, where
  # the bytes hit what is not read, the undamaged output, for verify and group.
  cat > damaged.sh <<'SH'
target=$1
test -s share-lsh.csv && test -s share-rm.txt || exit 9
for c in verify group; do
  a=(--pairs "${PAIRS:-joined/pairs}" --docs "${DOCS:-sig}")
  [ $c = group ] && a+=(--list-removable)
  $SF $c -q "${a[@]}" > oD.txt 2> eD.txt; rc=$?
  if [ $rc = 2 ]; then grep -qF "$target" eD.txt && test ! -s oD.txt
  elif [ $rc = 0 ]; then cmp -s oD.txt "$([ $c = verify ] && echo share-lsh.csv || echo share-rm.txt)"
  else false; fi || { echo "$c on $target: exit $rc" >&2; cat eD.txt >&2; exit 9; }
  grep -q panicked eD.txt && exit 9
done
exit 0
SH
  dam() { # ID DIR FILE PYTHON (with f open on FILE, n its size)
    rm -rf "d-$1"; cp -r "$2" "d-$1"
    python3 -c "
import os, random
rng = random.Random(26); p = 'd-$1/$3'; n = os.path.getsize(p); f = open(p, 'r+b')
$4"
  }
  dam N2.2 sig docs/shard-00000-of-00001.parquet "f.truncate(n // 2)"
  check N2.2 0 '' -- "DOCS=d-N2.2 . ./damaged.sh d-N2.2/docs/shard-00000-of-00001.parquet; grep -q 'not a readable Parquet file' eD.txt"
  dam N2.3 sig docs/shard-00000-of-00001.parquet "f.seek(n - 4); f.write(b'XXXX')"
  check N2.3 0 '' -- "DOCS=d-N2.3 . ./damaged.sh d-N2.3/docs/shard-00000-of-00001.parquet; grep -q 'not a readable Parquet file' eD.txt"
  dam N2.4 sig signatures/shard-00000-of-00001.parquet "f.seek(n // 2); f.write(os.urandom(4096))"
  check N2.4 0 '' -- "DOCS=d-N2.4 . ./damaged.sh d-N2.4/signatures/shard-00000-of-00001.parquet"
  check N2.5 0 '' -- "cp -r joined d-N2.5a && truncate -s 2000 d-N2.5a/pairs/part-0.parquet && PAIRS=d-N2.5a/pairs . ./damaged.sh d-N2.5a/pairs/part-0.parquet && cp -r joined d-N2.5b && python3 -c \"
import os; p = 'd-N2.5b/pairs/part-0.parquet'; f = open(p, 'r+b'); f.seek(os.path.getsize(p) // 3); f.write(os.urandom(2048))\" && PAIRS=d-N2.5b/pairs . ./damaged.sh d-N2.5b/pairs/part-0.parquet"
  # N2.6: 16 random bytes at 6 offsets of each file (docs, signatures,
  # bands, pairs), one damage per run.
  check N2.6 0 '' -- "for t in docs signatures bands; do for i in 0 1 2 3 4 5; do rm -rf d26; cp -r sig d26; python3 -c \"
import os, random; rng = random.Random(\$i); p = 'd26/\$t/shard-00000-of-00001.parquet'; n = os.path.getsize(p); f = open(p, 'r+b'); f.seek(rng.randrange(n - 16)); f.write(os.urandom(16))\"; DOCS=d26 . ./damaged.sh d26/\$t/shard-00000-of-00001.parquet || exit 9; done; done; for i in 0 1 2 3 4 5; do rm -rf j26; cp -r joined j26; python3 -c \"
import os, random; rng = random.Random(\$i); p = 'j26/pairs/part-0.parquet'; n = os.path.getsize(p); f = open(p, 'r+b'); f.seek(rng.randrange(n - 16)); f.write(os.urandom(16))\"; PAIRS=j26/pairs . ./damaged.sh j26/pairs/part-0.parquet || exit 9; done"
  # N2.7-N2.9: shards of two recipes, one of two shards, one shard twice.
  "$bin" sign -q share --out sig2 --shard 0/2 && "$bin" sign -q share --out sig2 --shard 1/2 && join sig2 joined2
  mkdir -p sigmix && cp -r sig2/* sigmix/ && rm sigmix/*/shard-00001-of-00002.parquet && "$bin" sign -q share --out sigmix --shard 1/2 -k 7
  check N2.7 2 'made with another recipe' -- "\$SF verify -q --pairs joined2/pairs --docs sigmix"
  mkdir -p sighalf && cp -r sig2/* sighalf/ && rm sighalf/*/shard-00001-of-00002.parquet
  check N2.8 2 'which no docs file has' -- "\$SF verify -q --pairs joined2/pairs --docs sighalf"
  mkdir -p sigdup && cp -r sig2/* sigdup/ && for d in docs signatures bands; do cp sigdup/$d/shard-00000-of-00002.parquet sigdup/$d/shard-00001-of-00002.parquet; done
  check N2.9 2 'appears twice' -- "\$SF verify -q --pairs joined2/pairs --docs sigdup"
  # N2.10: pairs joined from another signing run whose ids are in range.
  mkdir -p other && cp -r "$D/copyright" other/c1 && cp -r "$D/copyright" other/c2 && cp -r "$D/copyright" other/c3 \
    && "$bin" sign -q other --out sigother && join sigother joinedother
  check N2.10 2 '' -- "\$SF verify -q --pairs joinedother/pairs --docs sig > o210.csv; rc=\$?; test ! -s o210.csv && exit \$rc"
  # N2.11: after signing, a file appended to, one deleted, one replaced by a
  # link to an identical file outside: each named, the rest verified.
  cp -r share share2 && "$bin" sign -q share2 --out sig211 && join sig211 j211
  echo APPENDED >> share2/c1/adduser.txt; rm share2/c1/apt.txt; cp share2/c1/bash.txt outside/bash.txt && rm share2/c1/bash.txt && ln -s "$scratch/outside/bash.txt" share2/c1/bash.txt
  check N2.11 1 'changed into a symbolic link' -- "\$SF verify -q --pairs j211/pairs --docs sig211 > o211.csv 2> e211; rc=\$?; cat e211 >&2; grep -q 'adduser.txt: changed during the run' e211 && grep -q 'apt.txt: no such file' e211 && ! grep -q 'share2/c1/bash.txt,' o211.csv && test \$(wc -l < o211.csv) -gt 9000 && exit \$rc"
else
  for id in N2.1 N2.2 N2.3 N2.4 N2.5 N2.6 N2.7 N2.8 N2.9 N2.10 N2.11; do
    skip $id "needs python3 with pyarrow and duckdb (scripts/setup-engines.sh) and ../shared/data/debian-docs"
  done
fi
covered N2.12 exchange/records.rs a_record_changed_after_signing_is_named_and_the_run_goes_on
# N2.13: sign killed once it writes into its output: no shard is left. As
# `simfind sign --help` promises, a kill can leave only .-prefixed .tmp
# files (named temporaries, unlike the unnamed ones of -o), which no reader
# takes; the detail counts them.
mkdir -p sigk
check N2.13 137 '' -- "$during sigk 'kill -KILL \$PID' \$SF --threads 1 sign -q ${D:-c1} id300 c1 --out sigk; rc=\$?; echo \"\$(find sigk -type f -name '.*.tmp' | wc -l) .tmp files left\" >&2; test -z \"\$(find sigk -type f ! -name '.*.tmp')\" && exit \$rc"
check N2.14 0 '' -- "(umask 022; \$SF sign -q c1 --out sig14) && test -n \"\$(find sig14 -name '*.parquet')\" && test -z \"\$(find sig14 -name '*.parquet' ! -perm -0644)\""
