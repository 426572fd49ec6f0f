## A8. The index
part 8. || return 0
check 8.1 0 '' -- "\$SF index -q c1 --db i8.db && test \$(sqlite3 i8.db 'select count(*) from documents') = 3"
# ix: 4,000 files of 600 words, a tenth of them near-copies. State A is its
# index as built (A.db); then 1,000 files are appended to, 200 deleted and
# 200 added (state B). digest DB: (path, size, mtime, hash) of every
# document, whatever the ids.
python3 - <<'PY'
import os, random
rng = random.Random(8)
words = open("c1/a.txt").read().split()
for i in range(4000):
    d = f"ix/{i % 40:02}"
    os.makedirs(d, exist_ok=True)
    if i % 10 == 9:
        base = open(f"ix/{(i - 1) % 40:02}/{i - 1}.txt").read().split()
        base[rng.randrange(len(base))] = "EDITED"
        text = " ".join(base)
    else:
        text = " ".join(rng.choice(words) for _ in range(600))
    open(f"{d}/{i}.txt", "w").write(text + "\n")
    # In 2001: no mtime is racy (as recent as the index run).
    os.utime(f"{d}/{i}.txt", (1e9, 1e9))
PY
digest() { sqlite3 "$1" "select hex(path), size, mtime_ns, hex(content_hash) from documents order by path" | md5sum | cut -d' ' -f1; }
"$bin" --threads 1 index -q ix --db A.db 2>/dev/null
python3 - <<'PY'
import os, random
rng = random.Random(9)
for i in range(0, 1000):
    open(f"ix/{i % 40:02}/{i}.txt", "a").write("appended words at the end\n")
for i in range(1000, 1200):
    os.remove(f"ix/{i % 40:02}/{i}.txt")
for i in range(4000, 4200):
    open(f"ix/{i % 40:02}/{i}.txt", "w").write(" ".join(rng.choice(["alpha", "beta", "gamma", "delta", "epsilon"]) for _ in range(600)) + "\n")
for i in list(range(0, 1000)) + list(range(4000, 4200)):
    os.utime(f"ix/{i % 40:02}/{i}.txt", (1.1e9, 1.1e9))
PY
sumA=$(digest A.db)
"$bin" --threads 1 index -q ix --db B.db 2>/dev/null; sumB=$(digest B.db)
"$bin" --threads 1 scan -q ix --method lsh > freshB.csv 2>/dev/null
covered 8.2 index.rs an_index_killed_mid_update_is_the_old_or_the_new_state_never_a_mix
# 8.3: SIGINT during the A->B update: exit 130 (or 0 if it had finished),
# the database intact and exactly A or B.
cp A.db u83.db
check 8.3 '130|0' '' -- "test $sumA != $sumB || exit 9; $during u83.db 'sleep 0.3; kill -INT \$PID' \$SF --threads 1 index -q ix --db u83.db; rc=\$?; test \"\$(sqlite3 u83.db 'pragma integrity_check')\" = ok && d=\$(sqlite3 u83.db 'select hex(path), size, mtime_ns, hex(content_hash) from documents order by path' | md5sum | cut -d' ' -f1) && { test \$d = $sumA || test \$d = $sumB; } && echo \"state \$([ \$d = $sumA ] && echo A || echo B)\" >&2 && exit \$rc"
# 8.4: two writers at once with the default --wait: both succeed, B.
cp A.db u84.db
check 8.4 0 '' -- "test $sumA != $sumB || exit 9; \$SF index -q ix --db u84.db & \$SF index -q ix --db u84.db; r2=\$?; wait \$!; r1=\$?; test \$r1\$r2 = 00 && test \$(sqlite3 u84.db 'select hex(path), size, mtime_ns, hex(content_hash) from documents order by path' | md5sum | cut -d' ' -f1) = $sumB"
covered 8.5 index.rs a_second_update_waits_then_fails_with_a_clear_message
# 8.6: queries during the update answer (0, or 1 with a "changed since it
# was indexed" warning), never fail.
cp A.db u86.db
check 8.6 0 '' -- "$during u86.db 'for i in 1 2 3 4 5 6; do \$SF query -q ix/00/0.txt ix/01/1.txt --db u86.db >/dev/null 2>>e86; echo \$? >> q86; sleep 0.1; done' \$SF --threads 1 index -q ix --db u86.db && ! grep -qv '^[01]\$' q86"
# 8.7: two scan --db and an index at once: both scans write B's pairs.
cp A.db u87.db
check 8.7 0 '' -- "test -s freshB.csv || exit 9; \$SF index -q ix --db u87.db & p=\$!; \$SF scan -q ix --db u87.db > s87a.csv & q=\$!; \$SF scan -q ix --db u87.db > s87b.csv; r=\$?; wait \$p && wait \$q && test \$r = 0 && cmp s87a.csv freshB.csv && cmp s87b.csv freshB.csv"
printf 'not a database' > bad.db
check 8.8 2 'not a usable simfind index|not an SQLite database|not a database' -- "\$SF query -q c1/a.txt --db bad.db"
# 8.9-8.11: damaged pages. A query either refuses the index (exit 2, nothing
# on stdout) or answers exactly what the intact index answers.
"$bin" query -q ix/0[0-4]/*0.txt --db B.db > q89ok.csv 2>/dev/null
damaged() { # ID DB PYTHON-DAMAGE
  cp B.db "$2" && python3 -c "
import os, random
rng = random.Random(89); f = open('$2', 'r+b'); n = os.path.getsize('$2') // 4096
$3"
  check "$1" '0|1|2' '' -- "test \$(wc -l < q89ok.csv) -gt 1 || exit 9; \$SF query -q ix/0[0-4]/*0.txt --db $2 > o\$\$.csv; rc=\$?; if [ \$rc = 2 ]; then test ! -s o\$\$.csv; else cmp o\$\$.csv q89ok.csv; fi && exit \$rc"
}
damaged 8.9 d89.db "
for p in rng.sample(range(n // 4, 3 * n // 4), 50): f.seek(p * 4096); f.write(os.urandom(4096))"
damaged 8.10 d810.db "
for p in rng.sample(range(1, n), 200): f.seek(p * 4096); f.write(bytes(4096))"
damaged 8.11 d811.db "
f.seek((n - 1) * 4096); f.write(os.urandom(4096))"
# 8.12: rows edited by hand: a precise refusal or a self-healing run.
sql812=("update documents set signature = x'0102' where id = 7"
  "update documents set signature = 'text' where id = 7"
  "pragma user_version = 99"
  "delete from params where name = 'seed'"
  "update params set value = '100000' where name = 'k'"
  "update documents set size = -1 where id = 7"
  "drop table band_keys")
for i in "${!sql812[@]}"; do cp B.db "e812-$i.db" && sqlite3 "e812-$i.db" "${sql812[$i]}"; done
check 8.12 0 '' -- "for i in \$(seq 0 $((${#sql812[@]} - 1))); do for c in 'query -q ix/00/0.txt' 'scan -q ix'; do \$SF \$c --db e812-\$i.db > /dev/null 2> e812; rc=\$?; echo \$rc >> rc812; { [ \$rc = 0 ] || { [ \$rc = 2 ] && grep -q 'error:' e812; }; } && ! grep -q panicked e812 || { echo \"e812-\$i \$c: \$rc\" >&2; cat e812 >&2; exit 9; }; done; done; grep -qx 2 rc812"
covered 8.13 index.rs an_index_built_with_other_parameters_is_refused_and_left_alone
check 8.14 2 'no index at' -- "\$SF query -q c1/a.txt --db nonexistent.db"
# 8.15: a hot journal (a writer that died mid-transaction) in a directory
# nobody may write: the query names the read-only database.
if [ -n "$NB" ]; then
  mkdir -p rodb && cp B.db rodb/i.db && python3 -c "
import os, sqlite3
c = sqlite3.connect('rodb/i.db', isolation_level=None)
c.execute('pragma cache_size = 1'); c.execute('begin')
c.execute('update documents set size = size + 1')
os._exit(0)" ; chmod 444 rodb/i.db; chmod 555 rodb
  check 8.15 2 'readonly database|read-only' -- "ls rodb | grep -q journal || { echo 'no hot journal' >&2; exit 9; }; $NB \$SF query -q ix/00/0.txt --db rodb/i.db"
else
  skip 8.15 "needs root and setpriv"
fi
covered 8.16 index.rs scan_with_a_read_only_index_that_is_up_to_date_works_like_query
check 8.17 0 '' -- "mkdir -p self && cp c1/a.txt self/ && cd self && \$SF index -q . --db ./self.db && \$SF index -q . --db ./self.db && \$SF query -q a.txt --db self.db | grep -v self.db >/dev/null"
if mounted full818 64k; then
  check 8.18 2 'database or disk is full|No space left' -- "\$SF index -q ix --db full818/i.db"
else
  skip 8.18 "cannot mount a tmpfs here"
fi
MAXRSS_KB=500000 LIMIT=20 check 8.19 '1|2' '' -- "ulimit -v 2000000; yes | \$SF query -q - --db B.db"
# 8.20: mtimes far in the past and future: groups and the index work.
mkdir -p m820 && for d in 1901-06-01 1970-01-01 @-1 2262-04-11 2400-01-01; do
  cp c1/a.txt "m820/${d#@}.txt" && touch -d "$d" "m820/${d#@}.txt"; done
check 8.20 0 '' -- "\$SF scan -q m820 --format clusters --keep newest > o820.csv && grep -q ',1901-' o820.csv && \$SF scan -q m820 --format clusters --keep oldest >/dev/null && \$SF index -q m820 --db m820.db && \$SF index -q m820 --db m820.db"
# 8.21: the index keeps signatures, not text.
mkdir -p t821 && { cat c1/a.txt; echo 'a sentence nobody else writes: quixotic zebras juggle'; } > t821/x.txt
check 8.21 0 '' -- "\$SF index -q t821 --db t821.db && test \$(sqlite3 t821.db 'select count(*) from documents') = 1 && ! strings t821.db | grep -q 'quixotic zebras'"
