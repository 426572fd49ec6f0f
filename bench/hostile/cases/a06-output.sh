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

