## B5. --format html with hostile names and content
part N5. || return 0
mkdir -- --remove w && cp c1/a.txt -- --remove/a.txt && cp c1/a.txt w/b.txt
"$bin" scan -q --format html -o rep6.html -- --remove w && "$bin" scan -q --list-removable -0 -- --remove w > simfind-removal.nul
python3 -c "
import json
p = open('rep6.html').read()
s = p.index('id=\"data\">') + len('id=\"data\">')
print(json.loads(p[s:p.index('</script>', s)])['dedupe_command'])" > n53.cmd
check N5.3 0 '' -- "PATH=$scratch/bin:\$PATH sh -c \"\$(cat n53.cmd)\" >/dev/null && test -e w/b.txt && test -e --remove/a.txt"
