## B8. Memory where it matters (peak RSS)
part N8. || return 0
if heavy N8.1; then
  # id30k: 30,000 identical 995-byte files.
  python3 - <<'PY'
import os
os.makedirs("id30k")
body = (open("c1/a.txt").read()[:995]).encode()
for i in range(30000):
    open(f"id30k/{i}.txt", "wb").write(body)
PY
  MAXRSS_KB=100000 LIMIT=300 check N8.1 0 '' -- "test \$(\$SF --threads 1 scan -q id30k --list-removable | wc -l) -eq 29999"
  MAXRSS_KB=100000 LIMIT=300 check N8.2 0 '' -- "test \$(\$SF --threads 1 scan -q id30k --format clusters | wc -l) -eq 30001 && test \$(\$SF --threads 1 scan -q id30k --format jsonl --cluster center | wc -l) -eq 1 && \$SF --threads 1 dedupe -q id30k -t 1 > /dev/null"
  rm -rf id30k
else
  skip N8.2 "heavy (--heavy)"
fi
if heavy N8.3; then
  # hl: one 1 GiB line of words (no newline) and its 20 MB prefix.
  mkdir -p hl && python3 -c "
import random
r = random.Random(83); w = open('c1/a.txt').read().split()
block = ' '.join(r.choices(w, k=200000)).encode() + b' '
with open('hl/big.txt', 'wb') as f:
    for _ in range((1 << 30) // len(block)): f.write(block)" && head -c 20000000 hl/big.txt > hl/prefix.txt
  MAXRSS_KB=100000 LIMIT=600 check N8.3 0 '' -- "\$SF --threads 1 scan -q hl | grep -q '^hl/big.txt,hl/prefix.txt,'"
  rm -rf hl
fi
