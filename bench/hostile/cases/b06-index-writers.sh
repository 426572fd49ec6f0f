## B6. The index under concurrent writers and kill -9
part N6. || return 0
# r61..r64: four roots of 100 files; i6: 1,500 files, indexed with a prefix
# index (state A), then 500 of them appended to (state B).
python3 - <<'PY'
import os, random
rng = random.Random(6)
words = open("c1/a.txt").read().split()
for r in range(1, 5):
    os.makedirs(f"r6{r}")
    for i in range(100):
        open(f"r6{r}/{i}.txt", "w").write(" ".join(rng.choice(words) for _ in range(300)) + "\n")
os.makedirs("i6")
for i in range(1500):
    open(f"i6/{i}.txt", "w").write(" ".join(rng.choice(words) for _ in range(400)) + "\n")
    os.utime(f"i6/{i}.txt", (1e9, 1e9))
PY
# N6.1: four writers at once, each with its own root: the first succeeds;
# each later one would remove all the documents of the one before and is
# refused by the --max-delete guard (exit 2, nothing changed; since the
# review); the database is intact and holds one root whole.
check N6.1 0 '' -- "for r in 1 2 3 4; do \$SF index -q r6\$r --db m61.db 2>> e61 & done; ok=0; for r in 1 2 3 4; do wait -n; c=\$?; [ \$c = 0 ] && ok=\$((ok + 1)); [ \$c = 0 ] || [ \$c = 2 ] || exit 9; done; test \$ok -ge 1 && test \$(grep -c 'error:' e61) = \$((4 - ok)) && test \$(grep -c 'update refused, nothing was changed' e61) = \$((4 - ok)) && test \"\$(sqlite3 m61.db 'pragma integrity_check')\" = ok && sqlite3 m61.db 'select path from documents' | sed 's,/.*,,' | sort | uniq -c | awk '{n++; c=\$1} END {exit !(n == 1 && c == 100)}'"
pdigest="select (select count(*) from prefix_tokens), (select group_concat(hex(path) || size, ',') from (select path, size from documents order by path))"
"$bin" --threads 1 index -q i6 --db p62a.db --exact-prefix 0.5 2>/dev/null
python3 -c "
import os
for i in range(500):
    open(f'i6/{i}.txt', 'a').write('appended words\n'); os.utime(f'i6/{i}.txt', (1.1e9, 1.1e9))"
cp p62a.db p62.db; "$bin" --threads 1 index -q i6 --db p62b.db --exact-prefix 0.5 2>/dev/null
sA=$(sqlite3 p62a.db "$pdigest" | md5sum); sB=$(sqlite3 p62b.db "$pdigest" | md5sum)
# N6.2: kill -9 during the update of an index with a prefix index: intact,
# exactly A or B (documents and prefix rows), and query --exact works.
check N6.2 '137|0' '' -- "$during p62.db 'sleep 0.2; kill -KILL \$PID' \$SF --threads 1 index -q i6 --db p62.db --exact-prefix 0.5; rc=\$?; test \"\$(sqlite3 p62.db 'pragma integrity_check')\" = ok && s=\$(sqlite3 p62.db \"$pdigest\" | md5sum) && { test \"\$s\" = '$sA' || test \"\$s\" = '$sB'; } && \$SF query -q --exact i6/7.txt --db p62.db -t 0.5 > /dev/null 2>&1; q=\$?; test \$q -le 1 && exit \$rc"
# N6.3: the writer stopped (SIGSTOP) while it holds the write lock: a second
# writer with --wait 2 gives up naming the lock, a query answers from the
# committed state; continued, the first finishes and the index is intact.
cp p62a.db p63.db
cat > n63.sh <<'SH'
i=0
while sqlite3 p63.db 'begin immediate; rollback' 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 3000 ] && { echo "the lock was never seen" >&2; exit 0; }
done
kill -STOP "$PID"
$SF index -q i6 --db p63.db --wait 2 2>> e63; echo "second $?" >> e63
$SF query -q i6/7.txt --db p63.db > /dev/null 2>&1; echo "query $?" >> e63
kill -CONT "$PID"
SH
check N6.3 0 'locked by another simfind process' -- "touch i6/1*.txt; : > e63; $during p63.db 'sh n63.sh' \$SF --threads 1 index -q i6 --db p63.db --exact-prefix 0.5; rc=\$?; cat e63 >&2; grep -qx 'second 2' e63 && grep -Eqx 'query [01]' e63 && test \"\$(sqlite3 p63.db 'pragma integrity_check')\" = ok && exit \$rc"
# N6.4: a name given with --add - --name is stored as given, even outside
# every root (a note: query --exact then opens that path).
check N6.4 0 '' -- "\$SF index -q --db n64.db --add - --name ../../outside/fake.txt < c1/a.txt && sqlite3 n64.db 'select path from documents' | grep -q 'outside/fake.txt'"
