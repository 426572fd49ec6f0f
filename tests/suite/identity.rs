//! Identity made explicit (issues #34 item 4, #36 point 1): byte-identical
//! files pair at 1.0 whatever their type, `-t 1` means byte-identical, and
//! `dedupe --remove` deletes only what undo can re-create unless
//! `--allow-near` is given. Each test failed before that change.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Output;

use crate::util::*;

/// Some paragraphs of prose, long enough for many shingles.
fn prose() -> String {
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!(
            "The keeper of lighthouse number {i} climbed the stairs at dusk and lit the lamp \
             that warned the ships away from the rocks below the cliff.\n"
        ));
    }
    text
}

/// A file that looks binary (a NUL byte early), `n` bytes, `seed` varying it.
fn binary(magic: &[u8], n: usize, seed: u8) -> Vec<u8> {
    let mut bytes = magic.to_vec();
    bytes.push(0);
    let mut x = seed as u32 + 1;
    while bytes.len() < n {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        bytes.push((x >> 16) as u8);
    }
    bytes
}

/// The `a,b` of each CSV pair line with its similarity, paths relative to `r/`.
fn pairs(out: &Output) -> Vec<(String, String, String)> {
    stdout(out)
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let rel = |p: &str| p.trim_start_matches("r/").to_string();
            (rel(f[0]), rel(f[1]), f[2].to_string())
        })
        .collect()
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
const PDF: &[u8] =
    b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 900 /Filter /FlateDecode >>\nstream\n";

/// Two identical PNGs, a PNG of the same size with other bytes, two
/// identical PDFs and a lone PDF.
fn pictures(dir: &Path) {
    write(dir, "r/photos/a.png", &binary(PNG, 3000, 1));
    write(dir, "r/photos/a-copy.png", &binary(PNG, 3000, 1));
    write(dir, "r/photos/b.png", &binary(PNG, 3000, 2));
    write(dir, "r/office/tasn1.pdf", &binary(PDF, 5000, 3));
    write(dir, "r/office/tasn1-copy.pdf", &binary(PDF, 5000, 3));
    write(dir, "r/office/other.pdf", &binary(PDF, 4000, 4));
}

#[test]
fn identical_pngs_and_pdfs_pair_at_one() {
    let dir = tempfile::tempdir().unwrap();
    pictures(dir.path());
    for t in ["1", "0.5"] {
        let out = sim_in(dir.path(), &["scan", "r", "-t", t]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(
            pairs(&out),
            [
                (
                    "office/tasn1-copy.pdf".into(),
                    "office/tasn1.pdf".into(),
                    "1.000000".into()
                ),
                (
                    "photos/a-copy.png".into(),
                    "photos/a.png".into(),
                    "1.000000".into()
                ),
            ],
            "{}",
            stdout(&out)
        );
        // The ones left alone are still named, and why: the PNGs as images,
        // these PDFs (a header and noise) as PDFs without readable text.
        assert!(
            stderr(&out).contains("3 image files (identical copies only)"),
            "{}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("3 damaged PDF (identical copies only)"),
            "{}",
            stderr(&out)
        );
    }
    // The default keep policy, original, keeps the name without a copy
    // marker: the copies go, not the originals they sort before.
    let listed = sim_in(dir.path(), &["scan", "r", "-t", "1", "--list-removable"]);
    assert_eq!(
        stdout(&listed),
        "r/office/tasn1-copy.pdf\nr/photos/a-copy.png\n",
        "{}",
        stderr(&listed)
    );
}

#[test]
fn dedupe_t1_links_identical_binaries_and_undo_restores_them() {
    let dir = tempfile::tempdir().unwrap();
    pictures(dir.path());
    let root = dir.path().join("r");
    let before: Vec<Vec<u8>> = ["photos/a.png", "photos/a-copy.png", "office/tasn1.pdf"]
        .iter()
        .map(|p| std::fs::read(root.join(p)).unwrap())
        .collect();
    let dry = sim_in(dir.path(), &["dedupe", "r", "-t", "1", "--link", "-n"]);
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    assert!(
        stdout(&dry)
            .lines()
            .all(|l| l.ends_with("\tidentical\tnot in kept: 0 %\tkept because: no copy marker")),
        "{}",
        stdout(&dry)
    );
    assert_eq!(stdout(&dry).lines().count(), 2, "{}", stdout(&dry));

    let out = sim_in(
        dir.path(),
        &["dedupe", "r", "-t", "1", "--link", "--journal", "j.jsonl"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let ino = |p: &str| std::fs::metadata(root.join(p)).unwrap().ino();
    assert_eq!(ino("photos/a.png"), ino("photos/a-copy.png"));
    assert_eq!(ino("office/tasn1.pdf"), ino("office/tasn1-copy.pdf"));
    assert_ne!(ino("photos/a.png"), ino("photos/b.png"));

    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert_ne!(ino("photos/a.png"), ino("photos/a-copy.png"));
    assert_ne!(ino("office/tasn1.pdf"), ino("office/tasn1-copy.pdf"));
    let after: Vec<Vec<u8>> = ["photos/a.png", "photos/a-copy.png", "office/tasn1.pdf"]
        .iter()
        .map(|p| std::fs::read(root.join(p)).unwrap())
        .collect();
    assert_eq!(before, after);
}

/// The copies `-t 1` used to call identical: equal once normalised only.
fn normalised_copies(dir: &Path) -> String {
    let text = prose();
    write(dir, "r/a.txt", text.as_bytes());
    write(dir, "r/b-crlf.txt", text.replace('\n', "\r\n").as_bytes());
    write(dir, "r/c-upper.txt", text.to_uppercase().as_bytes());
    write(dir, "r/d-reflowed.txt", text.replace('\n', " ").as_bytes());
    write(dir, "r/e-copy.txt", text.as_bytes());
    text
}

#[test]
fn t1_never_removes_a_crlf_upper_case_or_reflowed_copy() {
    let dir = tempfile::tempdir().unwrap();
    let text = normalised_copies(dir.path());
    let root = dir.path().join("r");

    let scan = sim_in(dir.path(), &["scan", "r", "-t", "1", "--list-removable"]);
    assert_eq!(stdout(&scan), "r/e-copy.txt\n", "{}", stderr(&scan));
    // Normalised equality, asked for by name, is still there.
    let same_text = sim_in(dir.path(), &["scan", "r", "-t", "1", "--same-text", "-q"]);
    assert_eq!(pairs(&same_text).len(), 10, "{}", stdout(&same_text));

    let out = sim_in(
        dir.path(),
        &["dedupe", "r", "-t", "1", "--remove", "--journal", "j.jsonl"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!root.join("e-copy.txt").exists());
    for name in ["a.txt", "b-crlf.txt", "c-upper.txt", "d-reflowed.txt"] {
        assert!(root.join(name).exists(), "{name}: {}", stderr(&out));
    }
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert_eq!(
        std::fs::read(root.join("e-copy.txt")).unwrap(),
        text.as_bytes()
    );
}

#[test]
fn remove_skips_near_duplicates_unless_allowed_by_name() {
    let dir = tempfile::tempdir().unwrap();
    normalised_copies(dir.path());
    let root = dir.path().join("r");
    let near = prose().replace("rocks", "reefs");
    write(dir.path(), "r/f-near.txt", near.as_bytes());

    // The dry run says which are byte-identical.
    // --max-unique 1: f-near.txt has a word of its own, which would hold it
    // back (tests/suite/unique.rs); here it stands for any near-duplicate.
    let dry = sim_in(
        dir.path(),
        &[
            "dedupe",
            "r",
            "-t",
            "0.5",
            "--same-text",
            "--max-unique",
            "1",
        ],
    );
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    let lines: Vec<String> = stdout(&dry).lines().map(String::from).collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("e-copy.txt") && l.contains("\tidentical\t")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("f-near.txt") && l.contains("\tnear\t")),
        "{lines:?}"
    );

    let out = sim_in(
        dir.path(),
        &[
            "dedupe",
            "r",
            "-t",
            "0.5",
            "--max-unique",
            "1",
            "--remove",
            "--journal",
            "j.jsonl",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("f-near.txt: skipped: not byte-identical")
            && stderr(&out).contains("--allow-near"),
        "{}",
        stderr(&out)
    );
    assert!(root.join("f-near.txt").exists() && !root.join("e-copy.txt").exists());

    let allowed = sim_in(
        dir.path(),
        &[
            "dedupe",
            "r",
            "-t",
            "0.5",
            "--max-unique",
            "1",
            "--remove",
            "--allow-near",
            "--journal",
            "k.jsonl",
        ],
    );
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
    assert!(!root.join("f-near.txt").exists());

    let refused = sim_in(dir.path(), &["dedupe", "r", "--link", "--allow-near"]);
    assert_eq!(code(&refused), 2, "{}", stderr(&refused));
}

/// Each JSON line of `out` parsed.
fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn jsonl_pairs_and_groups_say_which_files_are_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    normalised_copies(dir.path());
    write(dir.path(), "r/x.png", &binary(PNG, 3000, 1));
    write(dir.path(), "r/y.png", &binary(PNG, 3000, 1));

    // Similarity 1 does not tell a CRLF copy from a copy; `identical` does.
    let out = sim_in(
        dir.path(),
        &[
            "scan",
            "r",
            "-t",
            "1",
            "--same-text",
            "--format",
            "jsonl",
            "-q",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut seen = Vec::new();
    for v in json_lines(&out) {
        let name = |k: &str| v[k].as_str().unwrap().trim_start_matches("r/").to_string();
        seen.push((name("a"), name("b"), v["identical"].as_bool().unwrap()));
    }
    assert!(
        seen.contains(&("a.txt".into(), "e-copy.txt".into(), true)),
        "{seen:?}"
    );
    assert!(
        seen.contains(&("a.txt".into(), "b-crlf.txt".into(), false)),
        "{seen:?}"
    );
    assert!(
        seen.contains(&("x.png".into(), "y.png".into(), true)),
        "{seen:?}"
    );
    assert_eq!(seen.iter().filter(|p| p.2).count(), 2, "{seen:?}");

    // A group member against its representative; null for the representative.
    let out = sim_in(
        dir.path(),
        &[
            "scan",
            "r",
            "-t",
            "1",
            "--same-text",
            "--format",
            "jsonl",
            "--cluster",
            "center",
            "-q",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut members = Vec::new();
    for v in json_lines(&out) {
        for f in v["files"].as_array().unwrap() {
            let path = f["path"]
                .as_str()
                .unwrap()
                .trim_start_matches("r/")
                .to_string();
            members.push((
                path,
                f["representative"].as_bool().unwrap(),
                f["identical"].clone(),
            ));
        }
    }
    for (path, representative, identical) in &members {
        let expected = match (representative, path.as_str()) {
            (true, _) => serde_json::Value::Null,
            (false, "e-copy.txt" | "y.png") => true.into(),
            (false, _) => false.into(),
        };
        assert_eq!(identical, &expected, "{path}: {members:?}");
    }
}

#[test]
fn t1_with_isolate_still_pairs_copies_across_roots() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose();
    write(dir.path(), "one/a.txt", text.as_bytes());
    write(dir.path(), "two/a.txt", text.as_bytes());
    write(
        dir.path(),
        "two/b-crlf.txt",
        text.replace('\n', "\r\n").as_bytes(),
    );
    let out = sim_in(
        dir.path(),
        &["scan", "one", "two", "--isolate", "-t", "1", "-q"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        pair_paths(&out.stdout),
        [("one/a.txt".into(), "two/a.txt".into())]
    );

    let dry = sim_in(
        dir.path(),
        &["dedupe", "one", "two", "--isolate", "-t", "1"],
    );
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    assert_eq!(stdout(&dry).lines().count(), 1, "{}", stdout(&dry));
    assert!(
        stdout(&dry).contains("\tidentical\tnot in kept: 0 %\tkept because: "),
        "{}",
        stdout(&dry)
    );
}

/// A docx cut short: the local headers of its first entries, with no
/// central directory after them (a copy or download that stopped early).
fn cut_docx() -> Vec<u8> {
    let mut bytes = Vec::new();
    for (name, data) in [
        ("[Content_Types].xml", &b"<Types/>"[..]),
        ("word/document.xml", b"<w:document><w:body><w:p>"),
    ] {
        bytes.extend_from_slice(b"PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00");
        bytes.extend_from_slice(&[0; 4]); // crc-32, not checked before the directory
        bytes.extend_from_slice(&(data.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(data.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(name.len() as u16).to_le_bytes());
        bytes.extend_from_slice(&[0, 0]);
        bytes.extend_from_slice(name.as_bytes());
        bytes.extend_from_slice(data);
    }
    bytes
}

/// Issue #34 point 5 for the index: `index` says what it did not compare,
/// by reason, and keeps the reason, so that `scan --db` names it for a file
/// it does not read again (both said "binary", or nothing, before).
#[test]
fn the_index_names_what_it_did_not_compare_and_keeps_why() {
    let dir = tempfile::tempdir().unwrap();
    pictures(dir.path());
    write(dir.path(), "r/office/report.docx", &cut_docx());
    // Outside the index's window of untrusted modification times, so the
    // second run does not read them again.
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for entry in walkdir::WalkDir::new(dir.path().join("r")) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let file = std::fs::File::options()
                .append(true)
                .open(entry.path())
                .unwrap();
            file.set_modified(past).unwrap();
        }
    }
    let reasons = [
        "1 damaged docx (identical copies only)",
        "3 damaged PDF (identical copies only)",
        "3 image files (identical copies only)",
    ];
    let out = sim_in(
        dir.path(),
        &[
            "index",
            "r",
            "--db",
            "i.db",
            "-v",
            "--summary-json",
            "s.json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    let line = err.lines().find(|l| l.contains("index: 7 added")).unwrap();
    for reason in reasons {
        assert!(line.contains(reason), "{reason}: {line}");
    }
    assert!(
        err.contains("r/office/report.docx: not compared: damaged docx (cut short"),
        "{err}"
    );
    let json = std::fs::read_to_string(dir.path().join("s.json")).unwrap();
    assert!(json.contains(r#""damaged docx":1"#), "{json}");

    let out = sim_in(dir.path(), &["scan", "r", "--db", "i.db", "-t", "1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("7 unchanged (not read)"), "{err}");
    let line = err.lines().find(|l| l.contains("not paired")).unwrap();
    for reason in reasons {
        assert!(line.contains(reason), "{reason}: {line}");
    }
    assert!(!line.contains("binary"), "{line}");
    assert_eq!(pairs(&out).len(), 2, "{}", stdout(&out));
}
