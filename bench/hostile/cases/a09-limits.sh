## A9. Resource limits (on the debian-docs corpus D)
part 9. || return 0
if [ -d "$D" ]; then
  "$bin" --threads 1 scan -q "$D" > fullD.csv 2>/dev/null
  # limited V N T [ARGS]: a scan of D under ulimit -v V (KB) or -n N, T
  # threads; writes oL.csv and eL.
  cat > limited.sh <<'SH'
kind=$1 lim=$2 th=$3; shift 3
bash -c "ulimit -$kind $lim; exec \$0 --threads $th scan -q \"\$@\"" "$SF" "$D" "$@" > oL.csv 2> eL
SH
  # 9.1: under 400, 200 and 100 MB of address space (1 thread; 200 and 100
  # with 2), each run is the unlimited run's output or a clean out of memory
  # (exit 2), 4 times at 100 MB (8 with --heavy); never a file skipped for
  # a wrong reason (the review saw "file too large to read" under 100 MB).
  runs91=$([ "$heavy" = 1 ] && echo 8 || echo 4)
  check 9.1 0 '' -- "export D=$D; for r in 'v 400000 1' 'v 200000 1' 'v 200000 2' 'v 100000 2' \$(printf 'v_100000_1 %.0s' $(seq 1 $runs91)); do . ./limited.sh \${r//_/ }; rc=\$?; if [ \$rc = 0 ]; then cmp -s oL.csv fullD.csv; elif [ \$rc = 2 ]; then grep -q 'out of memory' eL && test ! -s oL.csv; else false; fi || { echo \"\$r: exit \$rc\" >&2; cat eL >&2; exit 9; }; echo \"\$r: \$rc\" >&2; done"
  check 9.2 2 'out of memory' -- "export D=$D; . ./limited.sh v 50000 1; test \$? = 2 && grep -q 'out of memory' eL || exit 9; . ./limited.sh v 70000 2; cat eL >&2; test ! -s oL.csv && exit 2"
  # 9.4: few descriptors: the same output.
  check 9.4 0 '' -- "export D=$D; for r in 'n 64 1' 'n 20 1' 'n 12 1' 'n 8 1' 'n 6 1' 'n 20 2' 'n 10 2'; do . ./limited.sh \$r; test \$? = 0 && cmp -s oL.csv fullD.csv || { echo \"\$r\" >&2; cat eL >&2; exit 9; }; done"
  # 9.5-9.7: too few: each file that cannot be opened is named, the rest
  # written, no panic.
  check 9.5 1 'Too many open files' -- "bash -c 'ulimit -n 6; exec \$0 scan -q \"\$1\" --method lsh -o x95.csv' \$SF $D; rc=\$?; test -s x95.csv && exit \$rc"
  check 9.6 1 'Too many open files' -- "bash -c 'ulimit -n 5; exec \$0 scan -q \"\$1\" -o x96.csv' \$SF $D; rc=\$?; test -s x96.csv && exit \$rc"
  check 9.7 1 'Too many open files' -- "bash -c 'ulimit -n 5; exec \$0 index -q \"\$1\" --db x97.db' \$SF $D; test \$? = 1 || exit 9; bash -c 'ulimit -n 5; exec \$0 scan -q \"\$1\" --db x97.db' \$SF $D > /dev/null"
else
  for id in 9.1 9.2 9.4 9.5 9.6 9.7; do skip $id "needs ../shared/data/debian-docs"; done
fi
# 9.3: 10,000 identical files, all 49,995,000 pairs, under 1 GB of address
# space and into -o: complete, no temporary left.
if heavy 9.3; then
  mk_id10k
  mkdir -p o93
  MAXRSS_KB=100000 LIMIT=300 check 9.3 0 '' -- "bash -c 'ulimit -v 1000000; exec \$0 --threads 1 scan -q id10k -o o93/x.csv' \$SF && test \$(wc -l < o93/x.csv) -eq 49995001 && test \$(ls -A o93 | wc -l) -eq 1"
fi
