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

