## B1. Record and point inputs
part N1. || return 0
printf 'id,name,addr\n1,John Smith,1 Main St\n2,John Smith,1 Main St\n' > ok.csv
check N1.1 0 '' -- "test \$(\$SF scan -q --input csv ok.csv -t 0.3 | wc -l) -eq 2"
printf 'id,name,addr\n1,a,b\n2,a,b,c\n' > ragged.csv
check N1.2 2 'ragged.csv:3: 4 fields' -- "\$SF scan -q --input csv ragged.csv -t 0.3"
check N1.4 1 'ragged.csv:3' -- "\$SF scan -q --input csv ragged.csv -t 0.3 --skip-bad-rows"
printf '\xef\xbb\xbfid,text\n1,the quick brown fox\n2,the quick brown fox\n' > bom.csv
check N1.7 0 '' -- "test \$(\$SF scan -q --input csv bom.csv -t 0.3 | wc -l) -eq 2"
printf 'id,text\n1,a\n1,b\n' > dupid.csv
check N1.9 2 "duplicate id '1'" -- "\$SF scan -q --input csv dupid.csv -t 0.3"
printf 'id,text\n1,x\xff\n' > badutf8.csv
# Undeclared, such a file is read as the legacy 8-bit text it most likely is
# (#39, point 3); declared UTF-8, the bad byte is named with file and line.
check N1.11 2 'badutf8.csv:2: field 2: not valid UTF-8' -- "\$SF scan -q --input csv badutf8.csv -t 0.3 --encoding utf-8"
python3 -c "
b='the quick brown fox jumps over the lazy dog'
open('longq.csv','w').write('id,text\n1,'+b+'\n2,\"'+'word,'*500+'\"\n3,'+b+'\n4,'+b+'\n')"
check N1.20 0 'longq.csv:3' -- "test \$(\$SF scan -q --input csv longq.csv -t 0.3 --max-line-length 1K --skip-bad-rows | wc -l) -eq 4"
printf '{"id":12345678901234567890123,"text":"the quick brown fox"}\n{"id":12345678901234567890124,"text":"the quick brown fox"}\n' > bigid.jsonl
# Either kept exactly or refused by name; never rounded into a duplicate.
check N1.23 '0|2' '' -- "out=\$(\$SF scan -q --input jsonl bigid.jsonl -t 0.3 2>&1); rc=\$?; if [ \$rc = 0 ]; then echo \"\$out\" | grep -q 12345678901234567890123; else echo \"\$out\" | grep -q '64-bit integer' && exit 2; exit 9; fi"
printf '\xef\xbb\xbf{"id":"a","text":"the quick brown fox"}\n{"id":"b","text":"the quick brown fox"}\n' > bom.jsonl
check N1.24 '0|2' '' -- "out=\$(\$SF scan -q --input jsonl bom.jsonl -t 0.3 2>&1); rc=\$?; if [ \$rc = 0 ]; then echo \"\$out\" | grep -q '^a,b,1.0'; else echo \"\$out\" >&2; echo \"\$out\" | grep -Eq 'BOM\b|byte.order mark' && exit 2; exit 9; fi"
printf '{"id":"a","text":[1]}\n' > textnum.jsonl
check N1.22 2 "is not a string" -- "\$SF scan -q --input jsonl textnum.jsonl -t 0.3"
python3 -c "print('{\"id\":\"d\",\"text\":' + '['*100000 + ']'*100000 + '}')" > deep.jsonl
check N1.28 2 'recursion limit' -- "\$SF scan -q --input jsonl deep.jsonl -t 0.3"
printf 'a,1,2,NaN\n' > v_nan.csv
check N1.33 2 'not a finite number' -- "\$SF scan -q --input vectors v_nan.csv -t 0.9"
printf '\xef\xbb\xbfa,1,2,3\nb,1,2,3\n' > v_bom.csv
check N1.38 '0|2' '' -- "out=\$(\$SF scan -q --input vectors v_bom.csv -t 0.9); rc=\$?; [ \$rc = 2 ] && exit 2; printf '%s' \"\$out\" | grep -q \$'\\xef\\xbb\\xbf' && exit 9; exit \$rc"
printf 'a,0101x101\nb,01010101\nc,01010101\n' > b_first.csv
check N1.41 '1|2' "b_first.csv.*(line 1|:1)" -- "\$SF scan -q --input bits b_first.csv --radius 1"
printf 'a\tx y\n\ty\n' > s_bad.tsv
check N1.43 2 'missing id' -- "\$SF scan -q --input sets s_bad.tsv -t 0.3"

