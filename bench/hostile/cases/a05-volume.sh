## A5. Volume and content shapes
part 5. || return 0
mk_id10k
if heavy 5.1; then
  MAXRSS_KB=100000 LIMIT=300 check 5.1 0 '' -- "test \$(\$SF --threads 1 scan -q id10k | wc -l) -eq 49995001"
fi
MAXRSS_KB=100000 check 5.2 0 '' -- "test \$(\$SF --threads 1 scan -q id10k --format clusters | wc -l) -eq 10001"
MAXRSS_KB=100000 check 5.3 0 '' -- "test \$(\$SF --threads 1 scan -q id10k --list-removable | wc -l) -eq 9999 && test \$(\$SF --threads 1 scan -q id10k --list-removable --method lsh | wc -l) -eq 9999"
mkdir -p empty && for i in $(seq 1 300); do : > "empty/$i.txt"; done
check 5.4 0 'shorter than one shingle' -- "\$SF scan empty"
# tiny: 50,000 distinct files of a few words (heavy: making them takes
# minutes on a loaded disk): auto gives the exact join up for LSH, so its
# output is LSH's.
if heavy 5.5; then
python3 - <<'PY'
import os, random
os.makedirs("tiny")
rng = random.Random(5)
words = open("c1/a.txt").read().split()
for i in range(50000):
    open(f"tiny/{i}.txt", "w").write(" ".join(rng.choice(words) for _ in range(12)) + f" {i}\n")
PY
MAXRSS_KB=200000 check 5.5 0 '' -- "diff <(\$SF --threads 1 scan -q tiny) <(\$SF --threads 1 scan -q tiny --method lsh 2>/dev/null) >/dev/null"
MAXRSS_KB=200000 check 5.6 0 '' -- "\$SF --threads 1 scan -q tiny --method lsh > o56.csv"
rm -rf tiny
else
  skip 5.6 "heavy (--heavy)"
fi
if heavy 5.7; then
  # g1: 1 GiB of one repeated line and a small file; then its 100-line twin.
  mkdir -p g1 && python3 -c "
import sys
line = b'the same line of words again and again, with nothing new in it\n'
with open('g1/big.txt', 'wb') as f:
    block = line * (1 << 14)
    for _ in range((1 << 30) // len(block)): f.write(block)" && cp c1/c.txt g1/small.txt
  MAXRSS_KB=100000 LIMIT=300 check 5.7 0 '' -- "\$SF --threads 1 scan -q g1 >/dev/null"
  head -100 g1/big.txt > g1/twin.txt
  MAXRSS_KB=100000 LIMIT=300 check 5.8 0 '' -- "\$SF --threads 1 scan -q g1 | grep -q '^g1/big.txt,g1/twin.txt,1.000000'"
  rm -rf g1
else
  skip 5.8 "heavy (--heavy)"
fi
# 5.9: one 100 MB line without whitespace, and a copy: bounded memory.
mkdir -p l1 && head -c 75000000 /dev/urandom | base64 -w0 > l1/one.txt && cp c1/a.txt l1/
MAXRSS_KB=100000 LIMIT=120 check 5.9 0 '' -- "\$SF --threads 1 scan -q l1 >/dev/null"
if heavy 5.10; then
  # l2: two 40 MB whitespace-free near-duplicates; --verify-memory bounds it.
  mkdir -p l2 && head -c 30000000 /dev/urandom | base64 -w0 > l2/x.txt && { head -c 39000000 l2/x.txt; head -c 1000000 /dev/urandom | base64 -w0; } > l2/y.txt
  MAXRSS_KB=100000 LIMIT=300 check 5.10 0 '' -- "\$SF --threads 1 scan -q l2 --verify-memory 16M | grep -q '^l2/x.txt,l2/y.txt,'"
  rm -rf l2
fi
if heavy 5.11; then
  # l4: 100 MB of base64 in 76-column lines and a near copy, verified by
  # signature under a 64 MB cap.
  mkdir -p l4 && head -c 75000000 /dev/urandom | base64 > l4/x.txt && { cat l4/x.txt; head -c 1000000 /dev/urandom | base64; } > l4/y.txt
  MAXRSS_KB=150000 LIMIT=300 check 5.11 0 '' -- "\$SF --threads 1 scan -q l4 --verify signature --verify-memory 64M | grep -q '^l4/x.txt,l4/y.txt,'"
  rm -rf l4
fi
mkdir -p bin5 && head -c 20000 /dev/urandom > bin5/x.bin && printf 'a\0b' >> bin5/x.bin && cp c1/a.txt bin5/
check 5.12 0 'looks binary' -- "\$SF scan -v bin5"
# 5.13: invalid UTF-8 in a text is read lossily and still pairs with it.
mkdir -p u13 && cp c1/a.txt u13/ && python3 -c "
b = open('c1/a.txt', 'rb').read(); open('u13/bad.txt', 'wb').write(b[:5000] + b'\xff\xfe\xc3' + b[5000:])"
check 5.13 0 '' -- "\$SF scan -q u13 | grep -q '^u13/a.txt,u13/bad.txt,0.9'"
# 5.14: UTF-16LE without a BOM is decoded (docs/FORMATS.md; the review's
# binary verdict predates it): it pairs at 1.0 with its UTF-8 original.
mkdir -p u14 && cp c1/a.txt u14/ && iconv -f UTF-8 -t UTF-16LE c1/a.txt > u14/u1.txt
check 5.14 0 '' -- "\$SF scan -q u14 | grep -q '^u14/a.txt,u14/u1.txt,1.000000'"
# 5.15: a NUL after the first 8 KiB is text, at byte 8191 binary.
mkdir -p u15 && python3 -c "
b = open('c1/a.txt', 'rb').read(); open('u15/late.txt', 'wb').write(b[:9000] + b'\0' + b[9000:])
open('u15/at8191.txt', 'wb').write(b[:8191] + b'\0' + b[8191:])" && cp c1/a.txt u15/
check 5.15 0 'at8191.txt: looks binary' -- "\$SF scan -v u15 2> e515 > o515.csv; rc=\$?; cat e515 >&2; ! grep -q 'late.txt: looks binary' e515 && grep -q '^u15/a.txt,u15/late.txt,' o515.csv && exit \$rc"
check 5.16 2 'at most 256' -- "\$SF scan -q c1 --k 1000"
# 5.17: /proc: no hang, each unreadable entry a warning.
LIMIT=30 check 5.17 '0|1' '' -- "\$SF scan -q /proc/sys/kernel >/dev/null && \$SF scan -q /proc/self/ > /dev/null; \$SF scan -q /proc/self/ >/dev/null"
