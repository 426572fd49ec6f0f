## B4. explain
part N4. || return 0
: > e1.txt
check N4.1 0 'shorter than one shingle' -- "\$SF explain e1.txt e1.txt"
head -c 100000 /dev/urandom > r1.bin; cp r1.bin r2.bin
check N4.4 0 '' -- "\$SF explain r1.bin r2.bin >/dev/null"

