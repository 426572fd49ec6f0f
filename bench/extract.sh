#!/usr/bin/env bash
# Extraction speed (issue #34): simfind's scan of a mixed folder of office
# documents against the standard extractors alone on the same files
# (`pdftotext` of poppler-utils for PDF, `pandoc -t plain` for the rest).
# The documents are made from real text (the debian-docs corpus's man pages)
# by real producers: pandoc (docx, odt, html, epub), LibreOffice (pdf from
# the docx) and Python's email package (eml, base64). Hot page cache; the
# figures are CPU seconds (user + sys) and wall seconds of each whole step,
# so ratios within one run are what to read (2 noisy cores).
#
#   bash bench/extract.sh [DOCS_PER_FORMAT] [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-60}
WORK=${2:-${TMPDIR:-/tmp}/simfind-extract-bench}
SRC=../shared/data/debian-docs/files
BIN=${SIMFIND:-target/release/simfind}
[ -x "$BIN" ] || cargo build --release --bin simfind >&2

make_corpus() {
    rm -rf "$WORK" && mkdir -p "$WORK"/{txt,docx,odt,html,epub,pdf,eml}
    find "$SRC" -type f -size +4k -size -60k | LC_ALL=C sort | awk -v n="$N" 'NR <= n' > "$WORK/list"
    local i=0
    while read -r f; do
        i=$((i + 1))
        # Man pages rendered to text: overstrike and form feeds out, so every
        # producer reads the same plain text.
        sed 's/.\x08//g; s/\x0c//g' "$f" | iconv -f UTF-8 -t UTF-8 -c > "$WORK/txt/$i.txt"
        for fmt in docx odt html epub; do
            pandoc --from markdown --to "$fmt" --standalone --metadata title="doc $i" \
                -o "$WORK/$fmt/$i.$fmt" "$WORK/txt/$i.txt"
        done
    done < "$WORK/list"
    soffice -env:UserInstallation=file://$WORK/.profile --headless --norestore \
        --convert-to pdf --outdir "$WORK/pdf" "$WORK"/docx/*.docx >/dev/null 2>&1
    python3 - "$WORK" <<'PY'
import sys, os, email.message, email.policy
work = sys.argv[1]
for name in os.listdir(f"{work}/txt"):
    m = email.message.EmailMessage(policy=email.policy.SMTP)
    m["From"] = "a@example.org"; m["To"] = "b@example.org"; m["Subject"] = name
    m["Date"] = "Sat, 28 Nov 2026 10:00:00 +0000"; m["Message-ID"] = f"<{name}@example.org>"
    m.set_content(open(f"{work}/txt/{name}", encoding="utf-8").read(), cte="base64")
    open(f"{work}/eml/{name[:-4]}.eml", "wb").write(m.as_bytes())
PY
    rm -rf "$WORK/txt"
}
[ -f "$WORK/list" ] && [ "$(wc -l < "$WORK/list")" -eq "$N" ] || make_corpus

# CPU (user+sys) and wall seconds of a command, best of 3 by wall time.
measure() {
    local best_wall=999999 best_cpu=0 times
    times=$(mktemp)
    for _ in 1 2 3; do
        /usr/bin/time -f '%e %U %S' -o "$times" "$@" >/dev/null 2>&1 || true
        read -r wall user sys < "$times"
        if awk -v w="$wall" -v b="$best_wall" 'BEGIN { exit !(w < b) }'; then
            best_wall=$wall
            best_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
        fi
    done
    rm -f "$times"
    echo "$best_wall $best_cpu"
}

printf '%-6s %5s %9s | %-26s | %-26s\n' format files MB "simfind wall / CPU (MB/s)" "standard tool wall / CPU"
total_std=0
for fmt in pdf docx odt html epub eml; do
    files=$(ls "$WORK/$fmt" | wc -l)
    mb=$(du -sb "$WORK/$fmt" | awk '{printf "%.2f", $1 / 1e6}')
    read -r sw sc <<< "$(measure "$BIN" scan "$WORK/$fmt" -t 0.9 -j 2 -q)"
    case $fmt in
        pdf) read -r tw tc <<< "$(measure sh -c "for f in '$WORK'/pdf/*.pdf; do pdftotext \"\$f\" - ; done")" ;;
        eml) tw=-; tc=- ;;
        *) read -r tw tc <<< "$(measure sh -c "for f in '$WORK'/$fmt/*; do pandoc -t plain \"\$f\"; done")" ;;
    esac
    [ "$tw" != - ] && total_std=$(awk "BEGIN{print $total_std + $tw}")
    printf '%-6s %5d %9s | %6.2f s / %6.2f s (%5.1f) | %s s / %s s\n' "$fmt" "$files" "$mb" "$sw" "$sc" \
        "$(awk "BEGIN{print $mb / ($sw > 0 ? $sw : 0.001)}")" "$tw" "$tc"
done
read -r aw ac <<< "$(measure "$BIN" scan "$WORK" -t 0.9 -j 2 -q)"
read -r nw nc <<< "$(measure "$BIN" scan "$WORK" -t 0.9 -j 2 -q --extract none)"
echo "whole folder: simfind ${aw} s wall / ${ac} s CPU; standard tools one after another ${total_std} s wall; simfind --extract none ${nw} s / ${nc} s"
