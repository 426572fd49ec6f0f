## B4. explain
part N4. || return 0
: > e1.txt
check N4.1 0 'shorter than one shingle' -- "\$SF explain e1.txt e1.txt"
head -c 100000 /dev/urandom > r1.bin; cp r1.bin r2.bin
check N4.4 0 '' -- "\$SF explain r1.bin r2.bin | grep -q 'jaccard 1.000000'"

check N4.2 0 '' -- "\$SF explain e1.txt c1/a.txt | grep -q 'jaccard 0.000000 (0 shared), minhash estimate undefined'"
printf 'abc' > s3a.txt; printf 'abd' > s3b.txt
check N4.3 0 'shorter than one shingle' -- "\$SF explain s3a.txt s3b.txt | grep -q 'jaccard undefined'"
python3 -c "
b = open('c1/a.txt', 'rb').read(); open('nul4.txt', 'wb').write(b[:7000] + b'\0' + b[7000:])"
iconv -f UTF-8 -t UTF-16LE c1/a.txt > u16a.txt && iconv -f UTF-8 -t UTF-16LE c1/c.txt > u16c.txt
check N4.5 0 '' -- "\$SF explain nul4.txt c1/a.txt | grep -q 'jaccard 0.99' && \$SF explain u16a.txt u16c.txt >/dev/null"
printf 'words at the start of the line and then some more of them\r\n\tred \033[31mtext\033[0m and\0 a nul\n' > ctrl.txt
{ cat ctrl.txt; echo more words; } > ctrl2.txt
check N4.6 0 '' -- "\$SF explain ctrl.txt ctrl2.txt > o46.txt && ! grep -q \$'\\033' o46.txt && ! grep -qP '\\x00' o46.txt && grep -qF '\\u{1b}[31m' o46.txt"
head -c 20000000 /dev/urandom | base64 > big47.txt
check N4.7 2 'over --max-size 16777216' -- "\$SF explain big47.txt c1/a.txt"
if heavy N4.8; then
  # Two 16 MB near-duplicates: about 25 bytes of memory per byte, as
  # documented.
  python3 -c "
import random
r = random.Random(48); w = open('c1/a.txt').read().split()
t = ' '.join(r.choices(w, k=3900000))[:16000000]
open('h48a.txt', 'w').write(t); open('h48b.txt', 'w').write(t[:8000000] + ' EDITED ' + t[8000000:])"
  MAXRSS_KB=1200000 LIMIT=300 check N4.8 0 '' -- "\$SF explain h48a.txt h48b.txt >/dev/null"
  rm -f h48a.txt h48b.txt
fi
