## A1. Permissions
part 1. || return 0
# p1: c1 plus a mode-000 directory and a mode-000 file, both copies of a.txt.
mkdir -p p1/locked && cp c1/* p1/ && cp c1/a.txt p1/locked/ && cp c1/a.txt p1/secret.txt
chmod -R a+rX p1 2>/dev/null; chmod 000 p1/locked p1/secret.txt
if [ "$(id -u)" = 0 ]; then
  # Root reads them all: a.txt, b.txt, locked/a.txt and secret.txt pair.
  check 1.1 0 '' -- "\$SF --threads 1 scan -q p1 > o11.csv && grep -q '^p1/a.txt,p1/secret.txt,1.0' o11.csv && grep -q '^p1/a.txt,p1/locked/a.txt,1.0' o11.csv"
else
  skip 1.1 "needs root"
fi
if [ -n "$NB" ]; then
  check 1.2 1 'Permission denied|permission denied' -- "$NB \$SF --threads 1 scan -q p1"
  check 1.3 1 'Permission denied|permission denied' -- "$NB \$SF scan -q p1/locked"
  check 1.4 1 '' -- "$NB \$SF scan -q p1/locked --exit-code"
  mkdir -p ro && chmod 555 ro
  check 1.5 2 'cannot create output file' -- "$NB \$SF scan -q c1 -o ro/out.csv; rc=\$?; test ! -e ro/out.csv && exit \$rc"
else
  skip 1.2 "needs root and setpriv"; skip 1.3 "needs root and setpriv"
  skip 1.4 "needs root and setpriv"; skip 1.5 "needs root and setpriv"
fi
# 1.6: a copy of a.txt 25 directories of 200 characters deep (beyond
# PATH_MAX), a.txt and b.txt at the top: the deep file is named, the shallow
# pair written.
mkdir -p deep && cp c1/a.txt c1/b.txt deep/ && (cd deep && for i in $(seq 1 25); do
  n=$(printf "d%02d%0198d" "$i" 0); mkdir "$n" && cd "$n" || exit; done; cp "$scratch/c1/a.txt" .)
check 1.6 1 'File name too long' -- "\$SF --threads 1 scan -q deep > o16.csv; rc=\$?; grep -q '^deep/a.txt,deep/b.txt,' o16.csv && exit \$rc"
# 1.7: a file made unreadable after the walk and readable again: the fault
# points of tests/suite/faults.rs (the chmod fault, as nobody or by EACCES).
covered 1.7 faults.rs scan_under_every_fault_names_the_file_and_keeps_the_rest
