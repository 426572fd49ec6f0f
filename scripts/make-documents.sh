#!/usr/bin/env bash
# Makes the office-document corpus the extraction tests read (issue #34):
# the same texts as real producers write them, and the bad inputs a file
# share holds. Producers: pandoc (docx, odt, html, epub, rtf), LibreOffice
# (PDF with a text layer, from the docx), qpdf (encrypted PDFs), iconv
# (UTF-16), and Python's standard library (e-mail as quoted-printable and
# base64 MIME, PNG images, a damaged docx and a zip bomb made from real
# files). `scripts/setup-engines.sh` installs the tools.
#
#   bash scripts/make-documents.sh OUT_DIR
#
# Layout of OUT_DIR (every path is what a test names):
#   same/       lighthouse.txt and the same text as .docx .odt .pdf .html
#               .epub .rtf -qp.eml -b64.eml -utf16.txt -utf16le-nobom.txt
#   edited/     lighthouse.docx and lighthouse-edited.docx, with the .txt
#               sources they were made from
#   identical/  two byte-identical PNGs and two byte-identical PDFs
#   bad/        encrypted.pdf (user password), scanned.pdf (an image only),
#               damaged.docx, bomb.docx, open.pdf (empty user password),
#               cut.docx and cut.odt (the first half of each: a copy cut
#               short, without the zip's central directory), garbage.pdf
#               (lighthouse.pdf with its fonts' Unicode maps taken out by
#               qpdf: a text layer of glyph numbers)
#   long/       log.txt (one line) and log.pdf: that line on each of
#               10,000 pages (LibreOffice's page, repeated by qpdf)
#   mislabelled/ lighthouse.txt, and its docx named report.doc, its PDF
#               named notes.txt, its HTML named page.pdf
#   pages/      two-pages.pdf (lighthouse.txt, a page break, bakery.txt)
#               and bakery.txt
# Writes OUT_DIR/.done last, so a half-made corpus is never taken as whole.
set -euo pipefail
out=${1:?usage: make-documents.sh OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/testdata/news
for tool in pandoc soffice qpdf fix-qdf iconv python3; do
    command -v "$tool" >/dev/null || { echo "make-documents: $tool is missing (scripts/setup-engines.sh installs it)" >&2; exit 3; }
done
rm -rf "$out"
mkdir -p "$out"/{same,edited,identical,bad,pages,long,mislabelled}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# LibreOffice wants a writable profile of its own (two runs at once would
# share ~/.config otherwise).
lo=(soffice -env:UserInstallation=file://$work/profile --headless --norestore)

# The same text in every format.
cp "$src/lighthouse.txt" "$out/same/lighthouse.txt"
for fmt in docx odt html epub rtf; do
    pandoc --from markdown --to "$fmt" --standalone --metadata title=Lighthouse \
        -o "$out/same/lighthouse.$fmt" "$src/lighthouse.txt"
done
"${lo[@]}" --convert-to pdf --outdir "$work" "$out/same/lighthouse.docx" >/dev/null 2>&1
mv "$work/lighthouse.pdf" "$out/same/lighthouse.pdf"
# Two pages: a docx page break (pandoc's raw OOXML) that LibreOffice keeps.
{
    cat "$src/lighthouse.txt"
    printf '\n\n```{=openxml}\n<w:p><w:r><w:br w:type="page"/></w:r></w:p>\n```\n\n'
    cat "$src/bakery.txt"
} >"$work/two-pages.md"
pandoc --from markdown --to docx -o "$work/two-pages.docx" "$work/two-pages.md"
"${lo[@]}" --convert-to pdf --outdir "$work" "$work/two-pages.docx" >/dev/null 2>&1
mv "$work/two-pages.pdf" "$out/pages/two-pages.pdf"
cp "$src/bakery.txt" "$out/pages/bakery.txt"
iconv -f UTF-8 -t UTF-16 "$src/lighthouse.txt" > "$out/same/lighthouse-utf16.txt"
iconv -f UTF-8 -t UTF-16LE "$src/lighthouse.txt" > "$out/same/lighthouse-utf16le-nobom.txt"
python3 - "$src/lighthouse.txt" "$out/same" <<'PY'
import sys, email.message, email.policy
text = open(sys.argv[1], encoding="utf-8").read()
for name, cte in (("lighthouse-qp.eml", "quoted-printable"), ("lighthouse-b64.eml", "base64")):
    m = email.message.EmailMessage(policy=email.policy.SMTP)
    m["From"] = "Archive <archive@example.org>"
    m["To"] = "Reader <reader@example.org>"
    m["Subject"] = "The Lighthouse Keepers"
    m["Date"] = "Sat, 28 Nov 2026 10:00:00 +0000"
    m["Message-ID"] = f"<{name}@example.org>"
    m.set_content(text, cte=cte)
    m.add_alternative("<html><body><p>" + text.replace("\n\n", "</p><p>") + "</p></body></html>", subtype="html", cte=cte)
    open(f"{sys.argv[2]}/{name}", "wb").write(m.as_bytes())
PY

# An edited document and its original.
cp "$src/lighthouse.txt" "$src/lighthouse-edited.txt" "$out/edited/"
for name in lighthouse lighthouse-edited; do
    pandoc --from markdown --to docx -o "$out/edited/$name.docx" "$src/$name.txt"
done

# Byte-identical copies without text.
python3 - "$out/identical" <<'PY'
import sys, struct, zlib
def png(width, height, seed):
    rows = b"".join(b"\x00" + bytes((x * seed + y) % 256 for x in range(width * 3)) for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
image = png(64, 48, 7)
for name in ("photo.png", "photo-copy.png"):
    open(f"{sys.argv[1]}/{name}", "wb").write(image)
open(f"{sys.argv[1]}/other.png", "wb").write(png(64, 48, 11))
PY
cp "$out/same/lighthouse.pdf" "$out/identical/report.pdf"
cp "$out/same/lighthouse.pdf" "$out/identical/report (1).pdf"

# Bad inputs.
qpdf --encrypt secret owner 256 -- "$out/same/lighthouse.pdf" "$out/bad/encrypted.pdf"
qpdf --encrypt "" owner 256 -- "$out/same/lighthouse.pdf" "$out/bad/open.pdf"
cp "$out/identical/photo.png" "$work/scan.png"
printf '![](%s)\n' "$work/scan.png" > "$work/scan.md"
pandoc --from markdown --to docx -o "$work/scanned.docx" "$work/scan.md"
"${lo[@]}" --convert-to pdf --outdir "$work" "$work/scanned.docx" >/dev/null 2>&1
mv "$work/scanned.pdf" "$out/bad/scanned.pdf"
python3 - "$out/same/lighthouse.docx" "$out/bad" <<'PY'
import sys, zipfile
source, bad = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(source) as z:
    parts = {n: z.read(n) for n in z.namelist()}
# Damaged: the body cut in the middle of an element.
damaged = dict(parts)
body = parts["word/document.xml"]
damaged["word/document.xml"] = body[: len(body) // 2]
with zipfile.ZipFile(f"{bad}/damaged.docx", "w", zipfile.ZIP_DEFLATED) as z:
    for n, data in damaged.items():
        z.writestr(n, data)
# A bomb: the body inflates to 300 MiB of one repeated run.
with zipfile.ZipFile(f"{bad}/bomb.docx", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for n, data in parts.items():
        if n != "word/document.xml":
            z.writestr(n, data)
    with z.open("word/document.xml", "w", force_zip64=True) as w:
        block = b"<w:t>a</w:t>" * (1 << 16)
        for _ in range((300 << 20) // len(block)):
            w.write(block)
PY
qpdf --qdf --object-streams=disable "$out/same/lighthouse.pdf" "$work/open.qdf"
sed 's#/ToUnicode [0-9]* 0 R##' "$work/open.qdf" > "$work/garbage.qdf"
fix-qdf "$work/garbage.qdf" > "$out/bad/garbage.pdf"
for fmt in docx odt; do
    whole="$out/same/lighthouse.$fmt"
    head -c $(( $(stat -c %s "$whole") / 2 )) "$whole" > "$out/bad/cut.$fmt"
done

# A long document: one line on each of 10,000 pages.
printf 'The keeper wrote one line in the log on every page of the year.\n' > "$out/long/log.txt"
pandoc --from markdown --to docx -o "$work/log.docx" "$out/long/log.txt"
"${lo[@]}" --convert-to pdf --outdir "$work" "$work/log.docx" >/dev/null 2>&1
qpdf --empty --pages $(for _ in $(seq 10000); do printf '%s ' "$work/log.pdf"; done) -- "$out/long/log.pdf"

# Names that do not say what the file is.
cp "$src/lighthouse.txt" "$out/mislabelled/lighthouse.txt"
cp "$out/same/lighthouse.docx" "$out/mislabelled/report.doc"
cp "$out/same/lighthouse.pdf" "$out/mislabelled/notes.txt"
cp "$out/same/lighthouse.html" "$out/mislabelled/page.pdf"
touch "$out/.done"
