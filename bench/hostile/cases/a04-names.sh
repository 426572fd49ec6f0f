## A4. Hostile names
part 4. || return 0
# names.py FORMAT < output: the paths of the output, decoded as written
# (CSV with surrogateescape, JSON with its *_bytes arrays), are exactly the
# six names on disk; exits non-zero otherwise.
cat > names.py <<'PY'
import csv, io, json, os, sys
fmt = sys.argv[1]
disk = {os.path.join(b"names", n) for n in os.listdir(b"names")}
raw = sys.stdin.buffer.read()
seen = []
if fmt in ("pairs", "clusters"):
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8", "surrogateescape"), newline="")))
    cols = [0, 1] if fmt == "pairs" else [1]
    assert len(rows) == (16 if fmt == "pairs" else 7), len(rows)
    seen = [os.fsencode(r[c]) for r in rows[1:] for c in cols]
else:
    lines = raw.decode().splitlines()
    for line in lines:
        o = json.loads(line)
        items = [(o, "a"), (o, "b")] if fmt == "jsonl" else [(f, "path") for f in o["files"]]
        for d, k in items:
            seen.append(bytes(d[k + "_bytes"]) if k + "_bytes" in d else d[k].encode())
    assert len(lines) == (15 if fmt == "jsonl" else 1), len(lines)
assert set(seen) == disk, (set(seen) ^ disk)
PY
check 4.1 0 '' -- "\$SF --threads 1 scan -q names | python3 names.py pairs"
check 4.2 0 '' -- "\$SF --threads 1 scan -q names --format clusters | python3 names.py clusters"
check 4.3 0 '' -- "\$SF --threads 1 scan -q names --format jsonl | python3 names.py jsonl"
check 4.4 0 '' -- "\$SF --threads 1 scan -q names --format jsonl --cluster center | python3 names.py groups"
check 4.5 0 '' -- "test \$(\$SF scan -q names --list-removable -0 | tr -cd '\\0' | wc -c) -eq 5"
check 4.6 2 'contains a newline' -- "\$SF scan -q names --list-removable"
mkdir -- -rf && cp c1/a.txt c1/b.txt -- -rf/
check 4.7 0 '' -- "\$SF scan -q -- -rf | grep -q '^-rf/a.txt,-rf/b.txt,'"
# 4.8: a root's spelling is kept in every path.
check 4.8 0 '' -- "for r in c1/ c1// ./c1/./; do \$SF scan -q \"\$r\" | sed -n 2p | grep -qF \"\${r}a.txt,\${r}b.txt,\" || exit 9; done"
# 4.9: the index, scan --db and query with these names: scan --db as the
# LSH scan, and a query of the name with a newline finds the 6 (itself included).
check 4.9 0 '' -- "\$SF index -q names --db h.db && diff <(\$SF scan -q names --db h.db) <(\$SF scan -q names --method lsh) && test \$(\$SF query -q \$'names/line\\nbreak.txt' --db h.db | python3 -c 'import csv,sys; print(len(list(csv.reader(sys.stdin))))') -eq 7"
