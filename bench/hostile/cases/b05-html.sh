## B5. --format html with hostile names and content
part N5. || return 0
# dcmd.py PAGE: the dedupe command a report suggests.
cat > dcmd.py <<'PY'
import json, sys
p = open(sys.argv[1], encoding="utf-8").read()
s = p.index('id="data">') + len('id="data">')
print(json.loads(p[s:p.index("</script>", s)])["dedupe_command"])
PY
# N5.1: names and contents built to break out of the page: only the page's
# own two script elements; inside them nothing that ends or opens one;
# outside them no tag, handler, ESC or NUL of the data; valid UTF-8 without a
# raw U+2028.
python3 - <<'PY'
import os
base = open("c1/a.txt", "rb").read()
names = [b"<script>alert(1).txt", b'"><img src=x onerror=alert(1)>.txt', b"<!--c.txt",
         b"esc\x1b[31m.txt", "ls\u2028ep.txt".encode(), b"bad\xff\xfe.txt", b"new\nline.txt",
         b"`javascript:alert(1)`.txt"]
os.makedirs(b"h51/sub<svg onload=alert(1)>", exist_ok=True)
bad = b"</script><!--<svg onload=alert(1)>\0\x1b[31m" + "\u2028".encode()
for i, n in enumerate(names):
    # After the first 8 KiB, so that the NUL does not make it binary.
    open(b"h51/" + n, "wb").write(base[: 9000 + i] + bad + base[9000 + i :])
open(b"h51/sub<svg onload=alert(1)>/inner.txt", "wb").write(base + bad)
PY
cat > html51.py <<'PY'
import json, re, sys
raw = open(sys.argv[1], "rb").read()
page = raw.decode("utf-8")  # valid UTF-8, or this raises
assert "\u2028" not in page and "\x1b" not in page and "\0" not in page
scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, re.S)
assert len(scripts) == 2 and page.count("<script") == 2, page.count("<script")
for body in scripts:
    low = body.lower()
    assert "</scr" not in low and "<!--" not in low and "<script" not in low
def outside(page):
    return re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.S).lower()
# The page's own markup (two icons are <svg>) is that of a harmless report.
plain = outside(open(sys.argv[2], encoding="utf-8").read())
for bad in ("onerror", "onload", "<img", "<svg", "javascript:"):
    assert outside(page).count(bad) == plain.count(bad), bad
data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1))
assert "onerror" in json.dumps(data)  # the names are there, as data
PY
check N5.1 0 '' -- "\$SF scan -q h51 -t 0.5 --format html -o rep51.html && \$SF scan -q c1 --format html -o plain51.html && python3 html51.py rep51.html plain51.html"
# N5.2: roots that are shell syntax come back quoted: pasted, the command
# is the dry run it says, and runs nothing else.
mkdir -p 'r $(touch PWNED); x' "q'uote" && cp c1/a.txt 'r $(touch PWNED); x/' && cp c1/a.txt "q'uote/"
check N5.2 0 '' -- "\$SF scan -q 'r \$(touch PWNED); x' \"q'uote\" --format html -o rep52.html && python3 dcmd.py rep52.html > n52.cmd && cat n52.cmd >&2 && \$SF scan -q --list-removable -0 'r \$(touch PWNED); x' \"q'uote\" > simfind-removal.nul && PATH=$scratch/bin:\$PATH sh -c \"\$(cat n52.cmd)\" > /dev/null && test ! -e PWNED && test -e \"q'uote/a.txt\" && test -e 'r \$(touch PWNED); x/a.txt'"
mkdir -- --remove w && cp c1/a.txt -- --remove/a.txt && cp c1/a.txt w/b.txt
"$bin" scan -q --format html -o rep6.html -- --remove w && "$bin" scan -q --list-removable -0 -- --remove w > simfind-removal.nul
python3 dcmd.py rep6.html > n53.cmd
# N5.3: a file scan's page suggests no command with roots (a root named
# --remove could be read as an option): only the plan's, whose roots are
# absolute inside the plan file (tests/suite/report_html.rs applies it).
check N5.3 0 '' -- "test -z \"\$(cat n53.cmd)\" && grep -q 'dedupe --apply simfind-plan.jsonl' rep6.html && test -e w/b.txt && test -e --remove/a.txt"
check N5.4 0 '' -- "\$SF scan -q c1 --format html | head -1 | grep -qi '<!doctype html>'"
