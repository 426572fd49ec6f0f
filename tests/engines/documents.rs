//! Text extraction on documents made by real producers (issue #34):
//! `scripts/make-documents.sh`, run by `scripts/setup-engines.sh`, writes
//! the same text as pandoc's docx, odt, html, epub and rtf, LibreOffice's
//! PDF, Python's MIME e-mails (quoted-printable and base64) and iconv's
//! UTF-16, plus the bad inputs of a share (an encrypted PDF, a scanned one,
//! a damaged and a bombed docx). Scanned through the binary, as a user would.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::util::{code, csv_rows, root, sim_in, stderr, stdout};

fn documents() -> PathBuf {
    root().join("target/engines/documents")
}

/// Similarity of each pair of file names in a pairs CSV.
fn pairs(csv: &[u8]) -> HashMap<(String, String), f64> {
    let name = |field: &[u8]| {
        Path::new(std::str::from_utf8(field).unwrap())
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    csv_rows(csv)
        .iter()
        .map(|row| {
            let (a, b) = (name(&row[0]), name(&row[1]));
            let key = if a < b { (a, b) } else { (b, a) };
            let similarity = std::str::from_utf8(&row[2]).unwrap().parse().unwrap();
            (key, similarity)
        })
        .collect()
}

fn similarity(found: &HashMap<(String, String), f64>, a: &str, b: &str) -> Option<f64> {
    let key = if a < b { (a, b) } else { (b, a) };
    found.get(&(key.0.to_string(), key.1.to_string())).copied()
}

/// A copy of `documents()/sub` in a fresh directory (tests that act on files
/// never touch the made corpus).
fn copy_of(sub: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join(sub);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(documents().join(sub)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    (dir, to)
}

/// Every file of `dir` with its bytes, to compare after an action and undo.
fn contents_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

pub(crate) fn the_same_text_in_every_format_pairs_with_its_source_at_0_9() {
    let out = sim_in(&documents(), &["scan", "same", "-t", "0.9", "-k", "5"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let found = pairs(&out.stdout);
    let formats = [
        "lighthouse.docx",
        "lighthouse.odt",
        "lighthouse.pdf",
        "lighthouse.html",
        "lighthouse.epub",
        "lighthouse.rtf",
        "lighthouse-qp.eml",
        "lighthouse-b64.eml",
        "lighthouse-utf16.txt",
        "lighthouse-utf16le-nobom.txt",
    ];
    for file in formats {
        let s = similarity(&found, "lighthouse.txt", file);
        assert!(
            s.is_some_and(|s| s >= 0.9),
            "{file} against its source text: {s:?}\n{}",
            stdout(&out)
        );
    }
    // Nothing was skipped: every document had its text read.
    assert!(
        stderr(&out).contains("not paired: none;"),
        "{}",
        stderr(&out)
    );
}

pub(crate) fn files_are_read_by_their_content_whatever_their_name_or_length() {
    // A docx named .doc, a PDF named .txt, an HTML page named .pdf.
    let out = sim_in(&documents(), &["scan", "mislabelled", "-t", "0.9"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let found = pairs(&out.stdout);
    for file in ["report.doc", "notes.txt", "page.pdf"] {
        let s = similarity(&found, "lighthouse.txt", file);
        assert!(s.is_some_and(|s| s >= 0.9), "{file}: {s:?}");
    }
    // 10,000 pages of one line: read whole, within the budget, and the
    // same text as the line (only the shingles across page ends differ).
    let out = sim_in(&documents(), &["scan", "long", "-t", "0.9"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let s = similarity(&pairs(&out.stdout), "log.pdf", "log.txt");
    assert!(s.is_some_and(|s| s >= 0.9), "{s:?}\n{}", stderr(&out));
}

pub(crate) fn an_edited_docx_scores_within_0_05_of_its_source_texts() {
    let out = sim_in(
        &documents(),
        &["scan", "edited", "-t", "0.3", "--method", "exact"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let found = pairs(&out.stdout);
    let texts = similarity(&found, "lighthouse.txt", "lighthouse-edited.txt").unwrap();
    let docx = similarity(&found, "lighthouse.docx", "lighthouse-edited.docx").unwrap();
    assert!(
        (texts - docx).abs() <= 0.05,
        "texts {texts}, docx {docx}\n{}",
        stdout(&out)
    );
    // Compared as bytes (compressed XML), the two files score further from
    // their texts' similarity: extraction is what measures the edit.
    let raw = sim_in(
        &documents(),
        &[
            "scan",
            "edited",
            "-t",
            "0.3",
            "--method",
            "exact",
            "--extract",
            "none",
            "--binary",
        ],
    );
    let raw_docx = similarity(
        &pairs(&raw.stdout),
        "lighthouse.docx",
        "lighthouse-edited.docx",
    )
    .unwrap_or(0.0); // below -t: further still
    assert!(
        (raw_docx - texts).abs() > (docx - texts).abs(),
        "as bytes {raw_docx}, extracted {docx}, texts {texts}"
    );
}

pub(crate) fn identical_images_and_pdfs_pair_at_1_and_dedupe_links_and_undoes_them() {
    let out = sim_in(&documents(), &["scan", "identical", "-t", "1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let found = pairs(&out.stdout);
    assert_eq!(similarity(&found, "photo.png", "photo-copy.png"), Some(1.0));
    assert_eq!(
        similarity(&found, "report.pdf", "report (1).pdf"),
        Some(1.0)
    );
    assert_eq!(found.len(), 2, "{}", stdout(&out));

    let (dir, files) = copy_of("identical");
    let before = contents_of(&files);
    let dedupe = sim_in(
        dir.path(),
        &[
            "dedupe",
            "identical",
            "-t",
            "1",
            "--link",
            "--journal",
            "j.jsonl",
        ],
    );
    assert_eq!(code(&dedupe), 0, "{}", stderr(&dedupe));
    let inode = |name: &str| std::fs::metadata(files.join(name)).unwrap().ino();
    assert_eq!(inode("photo.png"), inode("photo-copy.png"));
    assert_eq!(inode("report.pdf"), inode("report (1).pdf"));
    assert_ne!(inode("photo.png"), inode("other.png"));

    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert_ne!(inode("photo.png"), inode("photo-copy.png"));
    for (path, bytes) in before {
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{}", path.display());
    }
}

pub(crate) fn bad_documents_are_named_with_their_reason_counted_and_the_run_goes_on() {
    let (dir, bad) = copy_of("bad");
    std::fs::copy(
        documents().join("same/lighthouse.txt"),
        bad.join("lighthouse.txt"),
    )
    .unwrap();
    let out = sim_in(
        dir.path(),
        &["scan", "bad", "-t", "0.9", "-v", "--summary-json", "s.json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    for (file, reason) in [
        ("encrypted.pdf", "encrypted PDF"),
        ("scanned.pdf", "PDF without a text layer (scanned?)"),
        ("damaged.docx", "damaged docx"),
        ("bomb.docx", "zip bomb"),
        ("cut.docx", "damaged docx"),
        ("cut.odt", "damaged odt"),
        ("garbage.pdf", "PDF with an unreadable text layer"),
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file} not named:\n{err}"));
        assert!(line.contains(reason), "{file}: {line}");
    }
    // A PDF protected only against editing (empty user password) is read.
    let found = pairs(&out.stdout);
    assert!(
        similarity(&found, "lighthouse.txt", "open.pdf").is_some_and(|s| s >= 0.9),
        "{}",
        stdout(&out)
    );
    let summary = err.lines().find(|l| l.contains("not paired")).unwrap();
    for counted in [
        "1 encrypted PDF (identical copies only)",
        "1 PDF without a text layer (scanned?) (identical copies only)",
        "3 damaged docx (identical copies only)",
        "1 damaged odt (identical copies only)",
        "1 PDF with an unreadable text layer (identical copies only)",
    ] {
        assert!(summary.contains(counted), "{counted}: {summary}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    let text = json.to_string();
    assert!(text.contains(r#""encrypted PDF":1"#), "{text}");
    assert!(text.contains(r#""damaged docx":3"#), "{text}");
}

pub(crate) fn dedupe_moves_the_original_documents_and_undo_brings_them_back() {
    let (dir, same) = copy_of("same");
    let before = contents_of(&same);
    let out = sim_in(
        dir.path(),
        &[
            "dedupe",
            "same",
            "-t",
            "0.9",
            "--move-to",
            "q",
            "--journal",
            "j.jsonl",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let left = std::fs::read_dir(&same).unwrap().count();
    assert_eq!(
        left,
        1,
        "one document of the group is kept: {}",
        stdout(&out)
    );
    // What was moved are the original files, byte for byte.
    let moved: usize = walkdir::WalkDir::new(dir.path().join("q"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .inspect(|e| {
            let bytes = std::fs::read(e.path()).unwrap();
            assert!(
                before.iter().any(|(_, b)| *b == bytes),
                "{} is not an original",
                e.path().display()
            );
        })
        .count();
    assert_eq!(moved, before.len() - 1);
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    for (path, bytes) in before {
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{}", path.display());
    }
}

pub(crate) fn explain_says_on_which_page_of_a_pdf_a_passage_is() {
    let dir = documents().join("pages");
    let pdf = dir.join("two-pages.pdf");
    let bakery = dir.join("bakery.txt");
    let out = sim_in(
        &dir,
        &[
            "explain",
            pdf.to_str().unwrap(),
            bakery.to_str().unwrap(),
            "--view",
            "passages",
            "--min-shingles",
            "50",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    // The bakery text is LibreOffice's second page; the lighthouse text,
    // only in the PDF, its first. The text file has no pages.
    let shared: Vec<&str> = text.lines().filter(|l| l.starts_with("= a ")).collect();
    assert!(!shared.is_empty(), "{text}");
    for line in &shared {
        assert!(
            line.contains(" (page 2)  b ") && !line.contains("(page 1)"),
            "{line}"
        );
        assert!(
            !line.split("  b ").nth(1).unwrap().contains("page"),
            "{line}"
        );
    }
    let only_a: Vec<&str> = text.lines().filter(|l| l.starts_with("- a ")).collect();
    assert!(only_a.iter().any(|l| l.ends_with(" (page 1)")), "{text}");

    // The word diff, explain's default view: with the PDF as a, a mark
    // where each of its pages starts, the lighthouse words (page 1, only in
    // the PDF) after the first and the bakery words (page 2) after the
    // second; with the PDF as b, its runs say their page.
    let diff = |a: &std::path::Path, b: &std::path::Path| {
        let out = sim_in(&dir, &["explain", a.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        stdout(&out)
    };
    let text = diff(&pdf, &bakery);
    let (one, two) = (
        text.find("── page 1 of a ──").expect(&text),
        text.find("── page 2 of a ──").expect(&text),
    );
    assert!(one < two, "{text}");
    let lighthouse = text.find("[-").expect(&text);
    assert!(one < lighthouse && lighthouse < two, "{text}");
    assert!(
        !text.contains(" of b)"),
        "the text file has no pages: {text}"
    );
    let text = diff(&bakery, &pdf);
    assert!(!text.contains("of a ──"), "{text}");
    let added = text.lines().find(|l| l.contains("+}")).expect(&text);
    assert!(added.contains("+} (page 1 of b)"), "{text}");
}
