//! What the report tests of both binaries write and read: `scan --format
//! html` to a file, the same scan's CSV, the report's data blob, and a corpus
//! whose names and contents try to inject markup or script.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{prose, simfind, write};

/// Runs `scan ROOT ARGS --format html -o DIR/report.html`; returns the page.
pub fn report(dir: &Path, root_dir: &Path, args: &[&str]) -> (PathBuf, String) {
    let out = dir.join("report.html");
    let run = simfind()
        .arg("scan")
        .arg(root_dir)
        .args(args)
        .args(["--format", "html", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.code() == Some(0) || run.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.stdout.is_empty(), "the report goes to -o only");
    let page = std::fs::read_to_string(&out).unwrap();
    (out, page)
}

/// `scan ROOT ARGS EXTRA` stdout.
pub fn scan(root_dir: &Path, args: &[&str], extra: &[&str]) -> Vec<u8> {
    let run = simfind()
        .arg("scan")
        .arg(root_dir)
        .args(args)
        .args(extra)
        .output()
        .unwrap();
    assert!(run.status.code() == Some(0) || run.status.code() == Some(1));
    run.stdout
}

/// The JSON blob of a report, parsed.
pub fn data(page: &str) -> Value {
    let start = page
        .find(r#"<script type="application/json" id="data">"#)
        .expect("data blob")
        + r#"<script type="application/json" id="data">"#.len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).expect("the blob is JSON")
}

/// (group id, path bytes) of every row of the groups CSV.
pub fn csv_groups(csv: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut reader = csv::ReaderBuilder::new().from_reader(csv);
    reader
        .byte_records()
        .map(|r| {
            let r = r.unwrap();
            (String::from_utf8_lossy(&r[0]).into_owned(), r[1].to_vec())
        })
        .collect()
}

/// A corpus whose names and contents try to inject markup or script.
pub fn hostile_corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("hostile");
    let text = prose(7, 400);
    let html = format!(
        "<script>document.body.dataset.pwned='content'</script>{text}<img src=x onerror=document.body.dataset.pwned=3>"
    );
    write(&corpus, "plain.txt", html.as_bytes());
    // A path holding `</script>`: a directory `<script>…<` and a file `script>.txt`.
    write(
        &corpus,
        "<script>document.body.dataset.pwned=1</script>.txt",
        html.as_bytes(),
    );
    write(
        &corpus,
        "<img src=x onerror=document.body.dataset.pwned=2>.txt",
        html.as_bytes(),
    );
    write(&corpus, "line\u{2028}sep\u{2029}.txt", html.as_bytes());
    write(&corpus, "a&amp;b<!--c.txt", html.as_bytes());
    std::fs::write(
        corpus.join(OsStr::from_bytes(b"caf\xe9 latin-1.txt")),
        html.as_bytes(),
    )
    .unwrap();
    corpus
}
