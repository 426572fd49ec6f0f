## B7. stdin
part N7. || return 0
"$bin" index -q c1 --db q7.db
# Under a 2 GB address-space limit, so that a reader without a cap cannot
# take the machine's memory in the seconds it is given.
MAXRSS_KB=500000 LIMIT=20 check N7.1 '1|2' '' -- "ulimit -v 2000000; \$SF query -q - --db q7.db < /dev/zero"
MAXRSS_KB=500000 LIMIT=20 check N7.2 '1|2' '' -- "ulimit -v 2000000; \$SF index --db q7b.db --add - --name zero.txt < /dev/zero"
check N7.3 0 'looks binary' -- "head -c 100000 /dev/urandom | \$SF query - --db q7.db"
check N7.4 0 'shorter than one shingle' -- "\$SF query - --db q7.db < /dev/null 2> e74; rc=\$?; cat e74 >&2; \$SF query -q - --db q7.db <&- >/dev/null && exit \$rc"
check N7.5 2 'only once' -- "\$SF query -q - - --db q7.db < /dev/null"

check N7.6 2 'not a regular file' -- "\$SF compare /dev/stdin c1/a.txt < /dev/zero"
