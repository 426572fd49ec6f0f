## A6. Output and signals
part 6. || return 0
check 6.1 2 'cannot create output file' -- "\$SF scan -q c1 -o nope/x.csv"
if [ -n "$NB" ]; then
  mkdir -p ro6 && chmod 555 ro6
  check 6.2 2 'Permission denied' -- "$NB \$SF scan -q c1 -o ro6/x.csv; rc=\$?; test -z \"\$(ls -A ro6)\" && exit \$rc"
  # 6.3: a target nobody may write in a directory nobody may not: the
  # atomic -o cannot create its temporary there, and says so.
  mkdir -p ro63 && echo PRECIOUS > ro63/t.csv && chown 65534 ro63/t.csv && chmod 555 ro63
  check 6.3 2 'Permission denied' -- "$NB \$SF scan -q c1 -o ro63/t.csv; rc=\$?; grep -qx PRECIOUS ro63/t.csv && test \$(ls -A ro63 | wc -l) -eq 1 && exit \$rc"
  # 6.4: over a 640 file of nobody's with a second hard link: replaced
  # atomically with its mode; the other link keeps the old bytes (a note).
  mkdir -p w64 && echo OLD > w64/owned.csv && chown 65534 w64/owned.csv && chmod 640 w64/owned.csv && ln w64/owned.csv w64/other.csv
  check 6.4 0 '' -- "\$SF scan -q c1 -o w64/owned.csv && test \"\$(stat -c %a w64/owned.csv)\" = 640 && head -1 w64/owned.csv | grep -q '^a,b,' && grep -qx OLD w64/other.csv"
else
  skip 6.2 "needs root and setpriv"; skip 6.3 "needs root and setpriv"; skip 6.4 "needs root and setpriv"
fi
echo PRECIOUS > existing.csv
check 6.5 2 '' -- "\$SF scan -q /nonexistent -o existing.csv; grep -qx PRECIOUS existing.csv && test \$(ls -A | grep -c '\\.tmp') -eq 0 && exit 2"
check 6.6 0 '' -- "\$SF scan -q c1 -o /dev/null && test -c /dev/null"
check 6.7 0 '' -- "test \$(\$SF scan -q c1 -o /dev/stdout | wc -l) -eq 4 && \$SF scan -q c1 -o /dev/stdout > o67.csv && test \$(wc -l < o67.csv) -eq 4"
printf 'line1 keep\nline2 keep\n' > log.csv
check 6.8 0 '' -- "\$SF scan -q c1 -o /dev/stdout >> log.csv && grep -q 'line1 keep' log.csv && grep -q 'line2 keep' log.csv && grep -q '^a,b,' log.csv"
check 6.9 0 '' -- "{ echo header; \$SF scan -q c1 -o /dev/stdout; echo trailer; } > grouped.csv && sed -n 1p grouped.csv | grep -qx header && sed -n 2p grouped.csv | grep -q '^a,b,' && tail -1 grouped.csv | grep -qx trailer && test \$(wc -l < grouped.csv) -eq 6"
check 6.10 0 '' -- "for o in '/proc/self/fd/1 >> f610' '/dev/fd/1 >> f610' '/dev/stderr 2>> f610'; do echo PRIOR > f610; eval \"\\\$SF scan -q c1 -o \$o\" && grep -qx PRIOR f610 && grep -q '^a,b,' f610 || exit 9; done"
mkfifo ff611
check 6.11 0 '' -- "cat ff611 > r611.csv & \$SF scan -q c1 -o ff611 && wait && test \$(wc -l < r611.csv) -eq 4 && test -p ff611"
check 6.12 2 'No space left on device' -- "\$SF scan -q c1 > /dev/full"
if mounted full 64k; then
  echo PRECIOUS > full/out.csv
  check 6.13 2 'No space left on device' -- "\$SF scan -q id300 -o full/out.csv; rc=\$?; grep -qx PRECIOUS full/out.csv && test \$(ls -A full | wc -l) -eq 1 && exit \$rc"
else
  skip 6.13 "cannot mount a tmpfs here"
fi
check 6.14 2 'standard output is closed' -- "\$SF scan -q c1 >&-"
mkdir -p odir
check 6.15 2 'is a directory' -- "\$SF scan -q c1 -o odir"
# 6.16-6.19: a signal once the run has its output open (a descriptor into
# sigout/): the target keeps its bytes and nothing else is left in sigout.
mkdir -p s2 && head -c 30M /dev/urandom | base64 > s2/big.txt && { cat s2/big.txt; echo more; } > s2/big2.txt
mkdir -p sigout
sig_case() { # ID SIGNAL EXIT STDERR_RE
  echo PRECIOUS > sigout/sig.csv
  check "$1" "$3" "$4" -- "$during sigout 'sleep 0.3; kill -$2 \$PID' \$SF --threads 1 scan -q s2 -o sigout/sig.csv; rc=\$?; grep -qx PRECIOUS sigout/sig.csv && test \$(ls -A sigout | wc -l) -eq 1 && exit \$rc"
}
sig_case 6.16 INT 130 'interrupted; no output written'
sig_case 6.17 TERM 130 'interrupted; no output written'
sig_case 6.18 HUP 130 'interrupted; no output written'
sig_case 6.19 KILL 137 ''
sig_case 6.19b QUIT 131 ''
sig_case 6.19c USR1 138 ''
# 6.20: a file-size limit below the output: named, target untouched.
mkdir -p fsz && echo PRECIOUS > fsz/t.csv
check 6.20 2 'File too large' -- "bash -c 'ulimit -f 1; exec \$0 scan -q id300 -o fsz/t.csv' \$SF; rc=\$?; grep -qx PRECIOUS fsz/t.csv && test \$(ls -A fsz | wc -l) -eq 1 && exit \$rc"
check 6.21 0 '' -- "\$SF scan -q c1 | head -1 >/dev/null"
check 6.22 2 'would overwrite the index' -- "\$SF index -q c1 --db same.db && \$SF scan -q c1 --db same.db -o same.db"
# 6.23: the output is an unnamed O_TMPFILE, linked in when complete.
if command -v strace >/dev/null; then
  mkdir -p st
  check 6.23 0 '' -- "strace -f -o st.trace -e trace=openat,linkat,renameat,renameat2 \$SF scan -q c1 -o st/out.csv && grep -q 'O_TMPFILE' st.trace && test \"\$(ls -A st)\" = out.csv"
else
  skip 6.23 "needs strace"
fi
# 6.24: -o through a symlink nobody planted in a sticky directory, run by
# root: as the shell's `>` does (fs.protected_symlinks decides; a note in
# the review). The verdict only asks for a clean exit either way.
if [ -n "$NB" ]; then
  mkdir -p sticky victim && chmod 1777 sticky && echo CONF > victim/important.conf
  $NB ln -s "$scratch/victim/important.conf" sticky/report.csv
  check 6.24 '0|2' '' -- "\$SF scan -q c1 -o sticky/report.csv"
else
  skip 6.24 "needs root and setpriv"
fi
