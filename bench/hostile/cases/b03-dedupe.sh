## B3. dedupe and undo
part N3. || return 0
mk_t() { mkdir -p "$1/sub"; for g in 1 2; do text $((g + 10)) 600 > "$1/g$g-a.txt"; cp "$1/g$g-a.txt" "$1/sub/g$g-b.txt"; cp "$1/g$g-a.txt" "$1/g$g-c.txt"; done; }
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum); }
# tsum.sh DIR: the same sum, for the commands of the cases.
echo 'cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum' > tsum.sh
mk_t t1; sum1=$(tree_sum t1)
check N3.1 0 'dry run' -- "\$SF dedupe t1 && test \"\$(cd t1 && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum)\" = '$sum1'"
check N3.2 0 '' -- "\$SF dedupe -q t1 --move-to q1 --journal j1.jsonl && test \$(find t1 -type f | wc -l) = 2 && test \$(find q1 -type f | wc -l) = 4"
check N3.3 0 '' -- "\$SF undo -q j1.jsonl && test \"\$(cd t1 && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum)\" = '$sum1'"
check N3.4 0 'already in place' -- "\$SF undo j1.jsonl && test \"\$(sh tsum.sh t1)\" = '$sum1'"
# N3.5: undo after the user edited a moved file and re-created another's
# path: neither is overwritten, both named, the rest restored.
mk_t t5; "$bin" dedupe -q t5 --move-to q5 --journal j5.jsonl >/dev/null 2>&1
echo "USER EDIT" >> q5/*/t5/g1-c.txt; echo NEW > t5/g2-c.txt
check N3.5 1 'changed since it was moved there' -- "\$SF undo j5.jsonl 2> e35; rc=\$?; cat e35 >&2; grep -q 'something appeared since' e35 && grep -qx NEW t5/g2-c.txt && grep -q 'USER EDIT' q5/*/t5/g1-c.txt && test -e t5/sub/g1-b.txt && test -e t5/sub/g2-b.txt && exit \$rc"
# N3.6: a journal cut at half: what it records is undone, with a warning.
mk_t t6; sum6=$(tree_sum t6); "$bin" dedupe -q t6 --move-to q6 --journal j6.jsonl >/dev/null 2>&1
truncate -s $(($(stat -c %s j6.jsonl) / 2)) j6.jsonl
check N3.6 0 'cut short' -- "\$SF undo j6.jsonl"
check N3.7 2 'not a simfind journal' -- "echo '{\"x\":1}' > foreign.jsonl; \$SF undo foreign.jsonl"
LIMIT=10 check N3.8 2 "" -- "\$SF undo /dev/zero"
mk_t t9; "$bin" dedupe -q t9 --move-to q9 --journal j9.jsonl >/dev/null 2>&1
python3 -c "
b = open('j9.jsonl', 'rb').read().split(b'\\n')
b[1] = bytes(len(b[1]))
open('j9.jsonl', 'wb').write(b'\\n'.join(b))"
check N3.9 1 'j9.jsonl:2:' -- "\$SF undo -q j9.jsonl"
assert N3.9b "[ \$(find t9 -type f | wc -l) -ge 5 ]" "the actions after the damaged line are undone"
# N3.10-N3.14: dedupe stopped between two actions (--pause-at 2: two done,
# the third's intent journalled): killed, or interrupted, then undone; the
# tree is as before, with nothing left in a quarantine.
for v in 10:--move-to=q310 12:--remove 13:--link 14:--move-to=q314; do
  mk_t "t3${v%%:*}"
done
sum310=$(tree_sum t310)
kill_case() { # ID TREE ACTION SIGNAL EXIT
  check "$1" "$5" '' -- "$paused 'kill -$4 \$PID' \$SF dedupe -q $2 $3 -t 1 --journal j-$1.jsonl --pause-at 2; rc=\$?; \$SF undo -q j-$1.jsonl && test \"\$(sh tsum.sh $2)\" = '$sum310' && test \$(find $2 -type f -links +1 | wc -l) = 0 && exit \$rc"
}
kill_case N3.10 t310 "--move-to q310" KILL 137
if mounted tq 50m; then
  mk_t t311
  kill_case N3.11 t311 "--move-to tq/q" KILL 137
else
  skip N3.11 "cannot mount a tmpfs here"
fi
kill_case N3.12 t312 --remove KILL 137
kill_case N3.13 t313 --link KILL 137
kill_case N3.14 t314 "--move-to q314" INT 130
# N3.15: --move-to onto a full 64 KiB tmpfs (journal there too): stops
# with the reason, and undo brings everything back.
mkdir -p t315/d && for i in $(seq 1 20); do cp c1/a.txt "t315/d/$i.txt"; done; sum315=$(tree_sum t315)
if mounted full315 64k; then
  check N3.15 2 'No space left on device' -- "\$SF dedupe -q t315 --move-to full315/q --journal full315/j.jsonl -t 1; rc=\$?; \$SF undo -q full315/j.jsonl; test \"\$(sh tsum.sh t315)\" = '$sum315' && exit \$rc"
else
  skip N3.15 "cannot mount a tmpfs here"
fi
# N3.16-N3.19: the tree changes while dedupe waits before its first action.
mk_t t316
check N3.16 1 'its kept copy .*g2-a.txt: its size changed' -- "$paused 'echo APPENDED >> t316/g1-c.txt; echo EDIT >> t316/g2-a.txt' \$SF dedupe -q t316 --remove -t 1 --journal j316.jsonl --pause-at 0 2> e316; rc=\$?; cat e316 >&2; grep -q 'g1-c.txt: skipped: its size changed since the scan' e316 && test -e t316/g1-c.txt && test -e t316/g2-c.txt && test -e t316/sub/g2-b.txt && exit \$rc"
mk_t t317
check N3.17 1 'a symlink is never followed' -- "$paused 'rm t317/g1-a.txt; ln -s g1-c.txt t317/g1-a.txt' \$SF dedupe -q t317 --remove -t 1 --journal j317.jsonl --pause-at 0; rc=\$?; test -f t317/g1-c.txt && test -f t317/sub/g1-b.txt && exit \$rc"
mk_t t318; mkdir -p out318 && cp t318/g1-a.txt out318/same.txt
check N3.18 1 'a symlink is never followed' -- "$paused 'rm t318/g1-c.txt; ln -s $scratch/out318/same.txt t318/g1-c.txt' \$SF dedupe -q t318 --remove -t 1 --journal j318.jsonl --pause-at 0; rc=\$?; test -f out318/same.txt && test -L t318/g1-c.txt && exit \$rc"
mk_t t319; mkdir -p victim319 && cp t319/sub/* victim319/
check N3.19 1 'now resolves to' -- "$paused 'mv t319/sub t319/sub.real; ln -s $scratch/victim319 t319/sub' \$SF dedupe -q t319 --remove -t 1 --journal j319.jsonl --pause-at 0; rc=\$?; test \$(ls victim319 | wc -l) = 2 && exit \$rc"
# N3.20: between a dry run and the act, a copy replaced by a link to a file
# outside: neither followed nor removed.
mk_t t320; mkdir -p out320 && cp t320/g1-a.txt out320/secret.txt
check N3.20 0 '' -- "\$SF dedupe -q t320 -t 1 >/dev/null && rm t320/sub/g1-b.txt && ln -s $scratch/out320/secret.txt t320/sub/g1-b.txt && \$SF dedupe -q t320 --remove -t 1 --journal j320.jsonl >/dev/null && test -L t320/sub/g1-b.txt && test -f out320/secret.txt && test ! -e t320/g1-c.txt"
mk_t t322; mkdir -p q322link && ln -s t322 qlink
check N3.22 2 'overlap' -- "\$SF dedupe -q t322 --move-to t322/q; test \$? = 2 || exit 9; \$SF dedupe -q t322 --move-to qlink/q"
# N3.23: the destination taken (placed in the run's quarantine directory
# while dedupe waits before its second action): skipped, nothing overwritten.
mk_t t323
check N3.23 1 'already exists; nothing is overwritten' -- "$paused 'd=\$(ls q323); mkdir -p q323/\$d/t323/sub; echo PLACED > q323/\$d/t323/sub/g1-b.txt' \$SF dedupe -q t323 --move-to q323 -t 1 --journal j323.jsonl --pause-at 1; rc=\$?; grep -qx PLACED q323/*/t323/sub/g1-b.txt && test -f t323/sub/g1-b.txt && exit \$rc"
mk_t t324; echo OLD > j324.jsonl
check N3.24 2 'exists' -- "\$SF dedupe -q t324 --move-to q324 --journal j324.jsonl; rc=\$?; grep -qx OLD j324.jsonl && test ! -e q324 && exit \$rc"
# N3.25: --reflink where the file system cannot: each named, nothing changed
# (0 where it can).
mk_t t325; sum325=$(tree_sum t325)
check N3.25 '0|1' '' -- "\$SF dedupe -q t325 --reflink -t 1 --journal j325.jsonl; rc=\$?; test \"\$(sh tsum.sh t325)\" = '$sum325' && exit \$rc"
mk_t t326; sumpw=$(md5sum < /etc/passwd)
printf '/etc/passwd\0t326/g1-a.txt\0t326/../t326/g1-c.txt\0' > list326.nul
check N3.26 1 'does not find it removable' -- "\$SF dedupe -q t326 --from-list list326.nul --remove -t 1 --journal j326.jsonl; rc=\$?; test \"\$(md5sum < /etc/passwd)\" = '$sumpw' && test -e t326/g1-a.txt && exit \$rc"
cp -r names n327; sum327=$(tree_sum n327)
check N3.27 0 '' -- "\$SF dedupe -q n327 --move-to q327 -t 1 --journal j327.jsonl && test \$(find n327 -type f | wc -l) = 1 && \$SF undo -q j327.jsonl && test \"\$(sh tsum.sh n327)\" = '$sum327'"
# N3.28: one tree under three spellings, or with its bind mount: the same
# file under two names is never its own copy.
mkdir -p t328 && cp c1/a.txt t328/only.txt; sum328=$(tree_sum t328)
check N3.28 0 'removed 0 files' -- "\$SF dedupe t328 ./t328 $scratch/t328/ --remove -t 1 --journal j328.jsonl > /dev/null && test \"\$(sh tsum.sh t328)\" = '$sum328'"
if [ "$(id -u)" = 0 ] && mkdir -p t328b && mount --bind t328 t328b 2>/dev/null; then
  mounts+=("$scratch/t328b")
  check N3.28b 0 'removed 0 files' -- "\$SF dedupe t328 t328b --remove -t 1 --journal j328b.jsonl > /dev/null && test \"\$(sh tsum.sh t328)\" = '$sum328'"
else
  skip N3.28b "cannot bind-mount here"
fi
if [ "$(id -u)" = 0 ]; then
  mk_t t29; chown 65534:65534 t29/g1-c.txt; chmod 600 t29/g1-c.txt
  check N3.29 0 '' -- "\$SF dedupe -q t29 --remove -t 1 --journal j29.jsonl && test ! -e t29/g1-c.txt && \$SF undo -q j29.jsonl && test \"\$(stat -c '%a %u' t29/g1-c.txt)\" = '600 65534'"
else
  skip N3.29 "needs root"
fi
# N3.30: --link with the kept copy on another file system: refused per
# file (cross-device), nothing lost.
if mounted tq330 10m; then
  mk_t t330 && mkdir -p tq330/t330 && cp t330/g1-a.txt tq330/t330/g1-a.txt && rm t330/g1-a.txt; sum330=$(tree_sum t330)
  check N3.30 '0|1' '' -- "\$SF dedupe -q tq330/t330 t330 --link -t 1 --journal j330.jsonl 2> e330; rc=\$?; cat e330 >&2; test \"\$(sh tsum.sh t330)\" = '$sum330' && test -f tq330/t330/g1-a.txt && exit \$rc"
else
  skip N3.30 "cannot mount a tmpfs here"
fi
# N3.31: --remove at the default threshold: the note that removed
# near-duplicates cannot be undone; a near-duplicate with text of its own
# (beyond --max-unique) is held back.
mk_t t331; { cat t331/g1-a.txt; echo "and a few words of its own at the end"; } > t331/g1-near.txt
check N3.31 0 'removed near-duplicates are gone' -- "\$SF dedupe t331 --remove --journal j331.jsonl 2> e331 >/dev/null; rc=\$?; cat e331 >&2; grep -q 'held back: .*g1-near.txt' e331 && test -f t331/g1-near.txt && exit \$rc"
if [ "$heavy" = 1 ] && [ -d "$D" ]; then
  # Two runs with opposite --keep over two copies of D's copyright files
  # (the second a day newer), 3 times: every distinct content must still
  # have a copy. By content, not name: some of those files are identical to
  # others under another name, and one of them may rightly go.
  (cd "$D/copyright" && md5sum -- * | cut -d' ' -f1 | sort -u) > k26.want
  lost=0
  for trial in 1 2 3; do
    rm -rf k26; mkdir -p k26; cp -r "$D/copyright" k26/c1; cp -r "$D/copyright" k26/c2; touch -d 2024-01-02 k26/c2/*
    "$bin" dedupe -q k26 --remove --keep first -t 1 --journal "a$trial.jsonl" >/dev/null 2>&1 &
    "$bin" dedupe -q k26 --remove --keep newest -t 1 --journal "b$trial.jsonl" >/dev/null 2>&1 &
    wait
    n=$(comm -23 k26.want <(find k26 -type f -exec md5sum {} + | cut -d' ' -f1 | sort -u) | wc -l)
    lost=$((lost + n))
  done
  assert N3.21 "[ $lost -eq 0 ]" "3 trials of two concurrent --remove runs: $lost contents lost"
else
  skip N3.21 "heavy (--heavy) and needs ../shared/data/debian-docs"
fi

