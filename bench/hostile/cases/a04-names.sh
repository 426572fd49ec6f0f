## A4. Hostile names
mkdir -p names && for n in $'bad\xff\xfe.txt' 'a,b.txt' $'line\nbreak.txt' $'cr\r.txt' '=HYPERLINK("x").txt' 'q"uote.txt'; do
  cp c1/a.txt "names/$n"; done
check 4.1 0 '' -- "\$SF --threads 1 scan -q names | python3 -c 'import csv,sys; rows=list(csv.reader(sys.stdin)); assert len(rows)==16, len(rows)'"
check 4.5 0 '' -- "test \$(\$SF scan -q names --list-removable -0 | tr -cd '\\0' | wc -c) -eq 5"
check 4.6 2 'contains a newline' -- "\$SF scan -q names --list-removable"
mkdir -- -rf && cp c1/a.txt c1/b.txt -- -rf/
check 4.7 0 '' -- "\$SF scan -q -- -rf"

