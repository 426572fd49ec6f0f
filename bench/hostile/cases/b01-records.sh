## B1. Record and point inputs
part N1. || return 0
printf 'id,name,addr\n1,John Smith,1 Main St\n2,John Smith,1 Main St\n' > ok.csv
check N1.1 0 '' -- "test \$(\$SF scan -q --input csv ok.csv -t 0.3 | wc -l) -eq 2"
printf 'id,name,addr\n1,a,b\n2,a,b,c\n' > ragged.csv
check N1.2 2 'ragged.csv:3: 4 fields' -- "\$SF scan -q --input csv ragged.csv -t 0.3"
printf 'id,name,addr\n1,a,b\n2,a\n' > short.csv
check N1.3 2 'short.csv:3: 2 fields where the header has 3' -- "\$SF scan -q --input csv short.csv -t 0.3"
check N1.4 1 'ragged.csv:3' -- "\$SF scan -q --input csv ragged.csv -t 0.3 --skip-bad-rows"
printf 'id,text\n1,"the quick, ""brown""\nfox jumps"\n2,"the quick, ""brown""\nfox jumped"\n' > quotes.csv
check N1.5 0 '' -- "\$SF scan -q --input csv quotes.csv -t 0.3 | grep -q '^1,2,0.89'"
# An unterminated quote swallows what follows into its field: the row is
# named (as ragged, the parser cannot tell more), never a panic or a hang.
printf 'id,a,b\n1,"open quote,x\n2,y,z\n3,p,q\n' > unterminated.csv
check N1.6 2 'unterminated.csv:2' -- "\$SF scan -q --input csv unterminated.csv -t 0.3"
printf '\xef\xbb\xbfid,text\n1,the quick brown fox\n2,the quick brown fox\n' > bom.csv
check N1.7 0 '' -- "test \$(\$SF scan -q --input csv bom.csv -t 0.3 | wc -l) -eq 2"
printf 'id,text\r\n1,the quick brown fox\r\n2,the quick brown fox\r\n' > crlf.csv
printf 'id,text\n1,the quick brown fox\n2,the quick brown fox\n' > lf.csv
check N1.8 0 '' -- "\$SF scan -q --input csv crlf.csv -t 0.3 | grep -q '^1,2,1.000000' && cmp <(\$SF scan -q --input csv crlf.csv -t 0.3) <(\$SF scan -q --input csv lf.csv -t 0.3)"
printf 'id,text\n1,a\n1,b\n' > dupid.csv
check N1.9 2 "duplicate id '1'" -- "\$SF scan -q --input csv dupid.csv -t 0.3"
# N1.10: an empty id, a header only, an empty file are errors; a header
# without an id column numbers the rows (docs/RECORDS.md, "No id column").
printf 'id,text\n,the quick brown fox\n' > emptyid.csv; printf 'id,text\n' > hdronly.csv; : > empty.csv
printf 'key,name\n1,John Smith\n2,John Smith\n' > noid.csv
check N1.10 2 'no header row' -- "for f in 'emptyid.csv:missing id' 'hdronly.csv:no records' 'empty.csv:no header row'; do \$SF scan -q --input csv \${f%%:*} -t 0.3 2> e110; test \$? = 2 && grep -q \"\${f#*:}\" e110 || exit 9; done; \$SF scan -q --input csv noid.csv -t 0.3 | grep -q '^1,2,0.8' || exit 9; cat e110 >&2; exit 2"
printf 'id,text\n1,x\xff\n' > badutf8.csv
# Undeclared, such a file is read as the legacy 8-bit text it most likely is
# (#39, point 3); declared UTF-8, the bad byte is named with file and line.
check N1.11 2 'badutf8.csv:2: field 2: not valid UTF-8' -- "\$SF scan -q --input csv badutf8.csv -t 0.3 --encoding utf-8"
printf 'id,text\n1,the quick\0 brown fox\n2,the quick\0 brown fox\n' > nul.csv
check N1.12 0 '' -- "\$SF scan -q --input csv nul.csv -t 0.3 | grep -q '^1,2,1.0'"
printf 'id,name,name\n1,John Smith,x\n2,John Smith,x\n' > dupcol.csv
check N1.13 0 '' -- "\$SF scan -q --input csv dupcol.csv -t 0.3 | grep -q '^1,2,1.0'"
printf 'id\tname\n1\t"John\tSmith"\n2\tJohn Smith\n' > tsvq.tsv
check N1.14 0 '' -- "\$SF scan -q --input tsv tsvq.tsv -t 0.3 | grep -q '^1,2,1.0'"
# N1.15-N1.21: one line of 1 GB (gen1g.py MODE, written into a pipe between
# two rows that pair): stopped at the 16 MiB cap, or read past with
# --skip-bad-rows, in bounded memory.
cat > gen1g.py <<'PY'
import sys
mode = sys.argv[1]
out = sys.stdout.buffer
text = b"the quick brown fox jumps over the lazy dog"
chunk = b"word " * 200000
big = 1 << 30
try:
    if mode.startswith("jsonl"):
        out.write(b'{"id":"1","text":"' + text + b'"}\n{"id":"2","text":"')
        for _ in range(big // len(chunk)): out.write(chunk)
        if mode == "jsonl-noeol": sys.exit(0)
        out.write(b'"}\n{"id":"3","text":"' + text + b'"}\n')
    elif mode == "csv":
        out.write(b"id,text\n1," + text + b'\n2,"')
        for _ in range(big // len(chunk)): out.write(chunk.replace(b" ", b","))
        out.write(b'"\n3,' + text + b"\n")
    elif mode == "vectors":
        out.write(b"a,1,2,3\nb")
        for _ in range(big // len(chunk)): out.write(b",1" * 500000)
        out.write(b"\nc,1,2,3\n")
except BrokenPipeError:
    pass
PY
MAXRSS_KB=200000 LIMIT=60 check N1.15 2 'longer than the cap' -- "python3 gen1g.py jsonl | \$SF scan -q --input jsonl - -t 0.5"
MAXRSS_KB=200000 LIMIT=120 check N1.16 1 'longer than the cap' -- "python3 gen1g.py jsonl | \$SF scan -q --input jsonl - -t 0.5 --skip-bad-rows > o1g.csv; rc=\${PIPESTATUS[1]}; grep -q '^1,3,1.0' o1g.csv && exit \$rc"
MAXRSS_KB=200000 LIMIT=120 check N1.17 '2' 'longer than the cap' -- "python3 gen1g.py jsonl-noeol | \$SF scan -q --input jsonl - -t 0.5; test \$? = 2 || exit 9; python3 gen1g.py jsonl-noeol | \$SF scan -q --input jsonl - -t 0.5 --skip-bad-rows; test \$? = 1 && exit 2"
MAXRSS_KB=200000 LIMIT=60 check N1.18 2 'longer than the cap' -- "python3 gen1g.py csv | \$SF scan -q --input csv - -t 0.5"
MAXRSS_KB=200000 LIMIT=120 check N1.19 1 'longer than the cap' -- "python3 gen1g.py csv | \$SF scan -q --input csv - -t 0.5 --skip-bad-rows > o1g.csv; rc=\${PIPESTATUS[1]}; grep -q '^1,3,1.0' o1g.csv && exit \$rc"
python3 -c "
b='the quick brown fox jumps over the lazy dog'
open('longq.csv','w').write('id,text\n1,'+b+'\n2,\"'+'word,'*500+'\"\n3,'+b+'\n4,'+b+'\n')"
check N1.20 0 'longq.csv:3' -- "test \$(\$SF scan -q --input csv longq.csv -t 0.3 --max-line-length 1K --skip-bad-rows | wc -l) -eq 4"
MAXRSS_KB=200000 LIMIT=120 check N1.21 2 'longer than the cap' -- "python3 gen1g.py vectors | \$SF scan -q --input vectors - -t 0.5; test \$? = 2 || exit 9; python3 gen1g.py vectors | \$SF scan -q --input vectors - -t 0.5 --skip-bad-rows > o1g.csv; test \${PIPESTATUS[1]} = 1 && grep -q '^a,c,' o1g.csv && exit 2"
printf '{"id":12345678901234567890123,"text":"the quick brown fox"}\n{"id":12345678901234567890124,"text":"the quick brown fox"}\n' > bigid.jsonl
# Either kept exactly or refused by name; never rounded into a duplicate.
check N1.23 '0|2' '' -- "out=\$(\$SF scan -q --input jsonl bigid.jsonl -t 0.3 2>&1); rc=\$?; if [ \$rc = 0 ]; then echo \"\$out\" | grep -q 12345678901234567890123; else echo \"\$out\" | grep -q '64-bit integer' && exit 2; exit 9; fi"
printf '\xef\xbb\xbf{"id":"a","text":"the quick brown fox"}\n{"id":"b","text":"the quick brown fox"}\n' > bom.jsonl
check N1.24 '0|2' '' -- "out=\$(\$SF scan -q --input jsonl bom.jsonl -t 0.3 2>&1); rc=\$?; if [ \$rc = 0 ]; then echo \"\$out\" | grep -q '^a,b,1.0'; else echo \"\$out\" >&2; echo \"\$out\" | grep -Eq 'BOM\b|byte.order mark' && exit 2; exit 9; fi"
printf '{"id":"a","text":"the quick brown fox"}\r\n\r\n\n{"id":"b","text":"the quick brown fox"}' > crlf.jsonl
check N1.25 0 '' -- "\$SF scan -q --input jsonl crlf.jsonl -t 0.3 | grep -q '^a,b,1.0'"
# N1.26: declared UTF-8, a bad byte is named; undeclared, the line is read
# as legacy 8-bit text (#39).
printf '{"id":"a","text":"the quick \xff brown fox"}\n' > badutf8.jsonl
check N1.26 2 'badutf8.jsonl:1: not valid UTF-8' -- "\$SF scan -q --input jsonl badutf8.jsonl -t 0.3 >/dev/null || exit 9; \$SF scan -q --input jsonl badutf8.jsonl -t 0.3 --encoding utf-8"
python3 -c "
open('hugeid.jsonl', 'w').write('{\"id\":\"' + 'x' * 10000000 + '\",\"text\":\"the quick brown fox\"}\n{\"id\":\"b\",\"text\":\"the quick brown fox\"}\n')"
check N1.27 0 '' -- "test \$(\$SF scan -q --input jsonl hugeid.jsonl -t 0.3 | wc -c) -gt 10000000"
printf '{"id":"a","text":[1]}\n' > textnum.jsonl
check N1.22 2 "is not a string" -- "\$SF scan -q --input jsonl textnum.jsonl -t 0.3"
python3 -c "print('{\"id\":\"d\",\"text\":' + '['*100000 + ']'*100000 + '}')" > deep.jsonl
check N1.28 2 'recursion limit' -- "\$SF scan -q --input jsonl deep.jsonl -t 0.3"
printf '{"id":"a","text":"the quick \\ud800 brown"}\n' > sur.jsonl
check N1.29 2 'sur.jsonl:1: not JSON' -- "\$SF scan -q --input jsonl sur.jsonl -t 0.3"
check N1.30 2 'duplicate id' -- "\$SF scan -q --input jsonl - - -t 0.3 < crlf.jsonl 2> e130; test \$? = 2 && grep -q 'can be given once' e130 || exit 9; \$SF scan -q --input jsonl crlf.jsonl crlf.jsonl -t 0.3"
MAXRSS_KB=200000 LIMIT=20 check N1.31 2 'longer than the cap' -- "\$SF scan -q --input csv /dev/zero"
# A first line of random bytes is now and then short and valid UTF-8, and
# then it is line 1's JSON that is refused: either way line 1, with a reason.
check N1.32 2 '/dev/urandom:1: not (valid UTF-8|JSON)' -- "\$SF scan -q --input jsonl /dev/urandom --encoding utf-8"
printf 'a,1,2,NaN\n' > v_nan.csv
check N1.33 2 'not a finite number' -- "\$SF scan -q --input vectors v_nan.csv -t 0.9"
printf 'a\nb,1,2\n' > v_nocomp.csv; printf 'a,1,,3\n' > v_empty.csv
check N1.34 2 'component 2: "" is not a number' -- "\$SF scan -q --input vectors v_nocomp.csv -t 0.9 2> e134; test \$? = 2 && grep -q 'line 1: no components after the id' e134 || exit 9; \$SF scan -q --input vectors v_empty.csv -t 0.9"
printf 'a,1,2,3\nb,1,2\n' > v_mixed.csv
check N1.35 2 'line 2: 2 components where the rows before have 3' -- "\$SF scan -q --input vectors v_mixed.csv -t 0.9"
printf 'a,one,2\n' > v_nn.csv; printf 'a,0x10,2\n' > v_hex.csv; printf 'a,1,2\na,1,2\n' > v_dup.csv
check N1.36 2 'id "a" is also on line 1' -- "for f in 'v_nn.csv:\"one\" is not a number' 'v_hex.csv:\"0x10\" is not a number'; do \$SF scan -q --input vectors \${f%%:*} -t 0.9 2> e136; test \$? = 2 && grep -qF \"\${f#*:}\" e136 || exit 9; done; \$SF scan -q --input vectors v_dup.csv -t 0.9"
# N1.37: zero vectors have no cosine and never pair by it; by euclidean
# distance they pair at 0.
printf 'a,0,0\nb,0,0\nc,1,1\nd,1,1\n' > v_zero.csv
check N1.37 0 '' -- "test \"\$(\$SF scan -q --input vectors v_zero.csv -t 0.9 | tail -n +2 | cut -d, -f1,2)\" = c,d && \$SF scan -q --input vectors v_zero.csv --metric euclidean --radius 0.5 | grep -q '^a,b,euclidean,0.000000'"
printf '\xef\xbb\xbfa,1,2,3\nb,1,2,3\n' > v_bom.csv
check N1.38 '0|2' '' -- "out=\$(\$SF scan -q --input vectors v_bom.csv -t 0.9); rc=\$?; [ \$rc = 2 ] && exit 2; printf '%s' \"\$out\" | grep -q \$'\\xef\\xbb\\xbf' && exit 9; printf '%s' \"\$out\" | grep -q '^a,b,' || exit 9; exit \$rc"
printf 'id,x,y,z\r\n"a,1",1,2,3\r\n"b""q",1,2,3.0000001\r\nc,3e38,1e-300,1\r\n' > v_ok.csv
python3 -c "
import random
r = random.Random(39); v = [str(r.random()) for _ in range(200000)]
open('v_wide.csv', 'w').write('a,' + ','.join(v) + '\nb,' + ','.join(v) + '\n')"
check N1.39 0 '' -- "\$SF scan -q --input vectors v_ok.csv -t 0.9 | grep -q '^\"a,1\",\"b\"\"q\",cosine,1.000000' && \$SF scan -q --input vectors v_wide.csv -t 0.9 | grep -q '^a,b,cosine,1.000000'"
printf 'a,0101\nb,0102\n' > b2.csv; printf 'a,01010101\nb,0101\n' > b3.csv; printf 'a,01010101\nb,\n' > b4.csv
printf 'a,0xZZ\n' > b5.csv; printf 'a,0x\n' > b6.csv; printf 'a,0101\na,0101\n' > b7.csv
check N1.40 2 'is also on line 1' -- "for f in \"b2.csv:'2' is not a bit\" 'b3.csv:4 bits where the rows before have 8' 'b4.csv:an empty bit string' \"b5.csv:'Z' is not a hexadecimal digit\" 'b6.csv:without hexadecimal digits'; do \$SF scan -q --input bits \${f%%:*} --radius 2 2> e140; test \$? = 2 && grep -qF \"\${f#*:}\" e140 || { cat e140 >&2; exit 9; }; done; \$SF scan -q --input bits b7.csv --radius 2"
printf 'a,0101x101\nb,01010101\nc,01010101\n' > b_first.csv
check N1.41 '1|2' "b_first.csv.*(line 1|:1)" -- "\$SF scan -q --input bits b_first.csv --radius 1"
python3 -c "
import random
r = random.Random(1); s = ''.join(r.choice('01') for _ in range(1000000)); t = list(s)
for i in (5, 77): t[i] = '1' if s[i] == '0' else '0'
open('bbig.csv', 'w').write('a,' + s + '\nb,' + ''.join(t) + '\n')
open('bmix.csv', 'w').write('a,0xff\nb,11111110\n')"
check N1.42 0 '' -- "\$SF scan -q --input bits bbig.csv --radius 2 | grep -q '^a,b,hamming,2\$' && \$SF scan -q --input bits bmix.csv --radius 1 | grep -q '^a,b,hamming,1\$'"
printf 'a\tx y\n\ty\n' > s_bad.tsv
check N1.43 2 'missing id' -- "\$SF scan -q --input sets s_bad.tsv -t 0.3"

