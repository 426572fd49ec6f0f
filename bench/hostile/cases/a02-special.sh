## A2. Special files and symlinks
part 2. || return 0
check 2.1 0 'special|symlink' -- "\$SF --threads 1 scan c2"
check 2.2 '0|1' '' -- "\$SF scan -q -L c2"
check 2.3 2 'not a directory or a regular file' -- "\$SF scan c2/fifo"
check 2.4 0 '' -- "\$SF scan -q c10 | grep -v outside >/dev/null; ! \$SF scan -q c10 | grep -q secret"

mkdir -p c25 && cp c1/a.txt c1/b.txt c25/ && ln -s a.txt c25/a.lnk && ln -s nowhere c25/dangling && ln -s c25 rootlink
check 2.5 0 '2 symlinks not followed' -- "\$SF scan rootlink > o25.csv; rc=\$?; grep -q '^rootlink/a.txt,rootlink/b.txt,' o25.csv && exit \$rc"
# 2.6: b_file.txt replaced by a FIFO while the big file before it is being
# read (one thread, so in order): named, no hang, the pair of the rest kept.
mkdir -p r4 && head -c 30M /dev/urandom | base64 > r4/a_big.txt && cp c1/a.txt r4/b_file.txt && cp c1/a.txt r4/c.txt
check 2.6 1 'b_file.txt: not a regular file' -- "$during r4/a_big.txt 'rm r4/b_file.txt; mkfifo r4/b_file.txt' \$SF --threads 1 scan -q r4 -t 0.5 > o26.csv; rc=\$?; test -p r4/b_file.txt && exit \$rc"
# The link variant of 2.6, and 2.7 (a link to a secret outside the root):
# the symlink fault of tests/suite/faults.rs, at every read path.
covered 2.7 faults.rs scan_under_every_fault_names_the_file_and_keeps_the_rest
