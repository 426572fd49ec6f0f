## B3. dedupe and undo
part N3. || return 0
mk_t() { mkdir -p "$1/sub"; for g in 1 2; do text $((g + 10)) 600 > "$1/g$g-a.txt"; cp "$1/g$g-a.txt" "$1/sub/g$g-b.txt"; cp "$1/g$g-a.txt" "$1/g$g-c.txt"; done; }
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum); }
mk_t t1; sum1=$(tree_sum t1)
check N3.1 0 'dry run' -- "\$SF dedupe t1 && test \"\$(cd t1 && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum)\" = '$sum1'"
check N3.2 0 '' -- "\$SF dedupe -q t1 --move-to q1 --journal j1.jsonl"
check N3.3 0 '' -- "\$SF undo -q j1.jsonl && test \"\$(cd t1 && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum)\" = '$sum1'"
check N3.7 2 'not a simfind journal' -- "echo '{\"x\":1}' > foreign.jsonl; \$SF undo foreign.jsonl"
LIMIT=10 check N3.8 2 "" -- "\$SF undo /dev/zero"
mk_t t9; "$bin" dedupe -q t9 --move-to q9 --journal j9.jsonl >/dev/null 2>&1
python3 -c "
b = open('j9.jsonl', 'rb').read().split(b'\\n')
b[1] = bytes(len(b[1]))
open('j9.jsonl', 'wb').write(b'\\n'.join(b))"
check N3.9 1 'j9.jsonl:2:' -- "\$SF undo -q j9.jsonl"
assert N3.9b "[ \$(find t9 -type f | wc -l) -ge 5 ]" "the actions after the damaged line are undone"
if [ "$(id -u)" = 0 ]; then
  mk_t t29; chown 65534:65534 t29/g1-c.txt; chmod 600 t29/g1-c.txt
  check N3.29 0 '' -- "\$SF dedupe -q t29 --remove -t 1 --journal j29.jsonl && \$SF undo -q j29.jsonl && test \"\$(stat -c '%a %u' t29/g1-c.txt)\" = '600 65534'"
else
  skip N3.29 "needs root"
fi
if [ "$heavy" = 1 ] && [ -d "$D" ]; then
  lost=0
  for trial in 1 2 3; do
    rm -rf k26; mkdir -p k26; cp -r "$D/copyright" k26/c1; cp -r "$D/copyright" k26/c2; touch -d 2024-01-02 k26/c2/*
    before=$(cat k26/c1/* | md5sum)
    "$bin" dedupe -q k26 --remove --keep first -t 1 --journal "a$trial.jsonl" 2>/dev/null &
    "$bin" dedupe -q k26 --remove --keep newest -t 1 --journal "b$trial.jsonl" 2>/dev/null &
    wait
    for f in k26/c1/*; do n=$(basename "$f"); [ -e "k26/c1/$n" ] || [ -e "k26/c2/$n" ] || lost=$((lost + 1)); done
    for f in "$D"/copyright/*; do n=$(basename "$f"); [ -e "k26/c1/$n" ] || [ -e "k26/c2/$n" ] || lost=$((lost + 1)); done
  done
  assert N3.21 "[ $lost -eq 0 ]" "3 trials of two concurrent --remove runs: $lost contents lost"
else
  skip N3.21 "heavy (--heavy) and needs ../shared/data/debian-docs"
fi

