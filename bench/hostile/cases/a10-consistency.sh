## A10. Security and consistency
part 10. || return 0
# 10.1: no link out of a root is followed without -L (also 2.4, 2.7).
check 10.1 0 '' -- "out=\$(\$SF scan -q c10 c2 names) || exit 9; printf '%s' \"\$out\" | grep -q '^c2/a.txt,c2/b.txt,' && ! printf '%s' \"\$out\" | grep -q 'outside\\|secret'"
# 10.2: every listed path is a root as given plus a relative path.
check 10.2 0 '' -- "\$SF scan -q names c1 ./c7/ --list-removable -0 | python3 -c '
import sys
ps = [p for p in sys.stdin.buffer.read().split(b\"\\0\") if p]
assert ps and all(p.split(b\"/\")[0] in (b\"names\", b\"c1\") or p.startswith(b\"./c7/\") for p in ps), ps
assert not any(b\"/../\" in p or b\"/./\" in p[2:] for p in ps), ps'"
# 10.3: --list-removable lists exactly the files --format clusters does not
# keep, for each --keep, on D's copyright files at -t 0.8.
if [ -d "$D" ]; then
  cat > same103.py <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
removable = {r["path"] for r in rows if r["kept"] == "false"}
listed = {p.decode() for p in open(sys.argv[2], "rb").read().split(b"\0") if p}
groups = {r["group"] for r in rows}
kept = {r["group"] for r in rows if r["kept"] == "true"}
assert removable == listed, (len(removable), len(listed))
assert groups == kept, "a group without a kept file"
assert listed, "nothing removable"
print(len(listed), file=sys.stderr)
PY
  check 10.3 0 '' -- "for k in first newest largest; do \$SF scan -q $D/copyright -t 0.8 --keep \$k --format clusters > g103.csv && \$SF scan -q $D/copyright -t 0.8 --keep \$k --list-removable -0 > l103.nul && python3 same103.py g103.csv l103.nul || exit 9; done"
else
  skip 10.3 "needs ../shared/data/debian-docs"
fi
check 10.4 0 '' -- "\$SF --threads 2 scan -q c1 names | grep -q '^c1/a.txt,c1/b.txt,' && diff <(\$SF --threads 1 scan -q c1 names) <(\$SF --threads 2 scan -q c1 names)"
check 10.5 3 '' -- "mkdir -p lone && text=\$(head -c 3000 c1/a.txt) && echo \"\$text\" > lone/x.txt && \$SF scan -q lone --exit-code"

# 10.6: compare on 20 MB near-duplicates (bounded memory) and on two
# unrelated texts, whose edit distance is skipped with a note.
python3 -c "
import random
r = random.Random(6); w = open('c1/a.txt').read().split()
t = ' '.join(r.choices(w, k=5300000))
open('g106a.txt', 'w').write(t)
open('g106b.txt', 'w').write(t[:8000000] + ' EDITED HERE ' + t[8000000:16000000] + t[16000100:])
open('u106a.txt', 'w').write(t[:270000])
r = random.Random(4); open('u106b.txt', 'w').write(' '.join(r.choice(['alpha', 'beta', 'gamma', 'delta', 'zeta', 'eta']) for _ in range(45000)))"
MAXRSS_KB=400000 check 10.6 0 'edit distances skipped' -- "\$SF compare g106a.txt g106b.txt | grep -q '^damerau,' && \$SF compare u106a.txt u106b.txt >/dev/null"
