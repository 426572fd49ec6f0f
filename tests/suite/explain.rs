//! `simfind explain A B` through the real binary: the terminal view (plain
//! and coloured), the JSON offsets against the files' bytes, the Jaccard
//! against `compare`'s, bad and missing files, the size bound.

use std::path::Path;

use crate::util::{self, letter_words, run, stderr, stdout, write};
use serde_json::Value;
use simfind::text::normalize::{Normalization, normalize};

const A: &[u8] = b"Title\r\n\tThe Quick brown fox jumps over the lazy dog.\r\n";
const B: &[u8] = b"the quick brown fox jumps over the LAZY cat.";

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the needle is there")
}

fn pair(dir: &Path) -> (String, String) {
    let a = write(dir, "a.txt", A);
    let b = write(dir, "b.txt", B);
    (
        a.to_string_lossy().into_owned(),
        b.to_string_lossy().into_owned(),
    )
}

#[test]
fn terminal_view_names_passages_by_byte_offsets_of_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path());
    let out = run(&["explain", &a, &b, "--view", "passages"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        !text.contains('\x1b'),
        "no colour when not a terminal:\n{text}"
    );
    // The shared passage: from "The Quick" (after CRLF and a tab) to the
    // space before the edit, in A; from the start to the same place in B.
    let passage = format!(
        "= a {}..{}  b 0..{}  ",
        find(A, b"The Quick"),
        find(A, b"dog"),
        find(B, b"cat")
    );
    assert!(text.contains(&passage), "{passage:?} in\n{text}");
    assert!(
        text.contains("  │ The Quick brown fox jumps over the lazy \n"),
        "{text}"
    );
    // Only in A: the title, and the end with its CRLF shown escaped.
    assert!(
        text.contains(&format!("- a 0..{}\n  │ Title\n", find(A, b"\r\n"))),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "- a {}..{}\n  │ dog.\\r\\n\n",
            find(A, b"dog"),
            A.len()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("+ b {}..{}\n  │ cat.\n", find(B, b"cat"), B.len())),
        "{text}"
    );
}

#[test]
fn colour_always_and_never() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path());
    let coloured = run(&["explain", &a, &b, "--view", "passages", "--color", "always"]);
    let text = stdout(&coloured);
    // The passage in green, the parts only in A in red, only in B in cyan.
    assert!(text.contains("\x1b[32mThe Quick brown"), "{text:?}");
    assert!(text.contains("\x1b[31mTitle"), "{text:?}");
    assert!(text.contains("\x1b[36mcat."), "{text:?}");
    // NO_COLOR does not override the flag (no-color.org).
    let flagged = util::simfind()
        .args(["explain", &a, &b, "--view", "passages", "--color", "always"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(flagged.stdout, coloured.stdout);
    let never = run(&["explain", &a, &b, "--view", "passages", "--color", "never"]);
    assert!(!stdout(&never).contains('\x1b'));
    // Without colour, the same text.
    let plain = run(&["explain", &a, &b, "--view", "passages"]);
    assert_eq!(never.stdout, plain.stdout);
    // The diff view: removed words red, added cyan, and the same text
    // without colour as with --color never.
    let diff = stdout(&run(&["explain", &a, &b, "--color", "always"]));
    assert!(diff.contains("\x1b[31mdog."), "{diff:?}");
    assert!(diff.contains("\x1b[36mcat."), "{diff:?}");
    let never = run(&["explain", &a, &b, "--color", "never"]);
    assert!(!stdout(&never).contains('\x1b'));
    assert_eq!(never.stdout, run(&["explain", &a, &b]).stdout);
}

/// `--color auto` on a terminal (util-linux `script` gives the binary a
/// pty): coloured, unless NO_COLOR is set.
#[test]
fn colour_auto_follows_the_terminal_and_no_color() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(dir.path());
    let on_terminal = |no_color: Option<&str>| {
        let command = format!(
            "{} explain {a} {b} --view passages",
            env!("CARGO_BIN_EXE_simfind"),
        );
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &command, "/dev/null"]);
        cmd.env_remove("NO_COLOR");
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        let out = cmd.output().expect("script (util-linux) runs");
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    assert!(on_terminal(None).contains("\x1b[32m"));
    assert!(!on_terminal(Some("1")).contains('\x1b'));
    // An empty NO_COLOR counts as unset.
    assert!(on_terminal(Some("")).contains("\x1b[32m"));
}

fn json(args: &[&str]) -> Value {
    let out = run(args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.ends_with(b"}\n"));
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

fn range(v: &Value) -> std::ops::Range<usize> {
    v[0].as_u64().unwrap() as usize..v[1].as_u64().unwrap() as usize
}

fn compare_jaccard(args: &[&str]) -> String {
    let out = run(&[&["compare"], args].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .find_map(|l| l.strip_prefix("jaccard,"))
        .expect("a jaccard row")
        .to_string()
}

/// Offsets are bytes of the files: each passage's two ranges normalise to
/// the same text, with CRLF, tabs, case and invalid UTF-8 in the files; the
/// passages and only-A tile A.
#[test]
fn json_offsets_are_bytes_of_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let a_bytes = [
        &b"Intro\tline\r\n"[..],
        "Ünïcode ÄRGER ".as_bytes(),
        &b"\xFF\xFE and THE   Rest of\r\nthe shared text, which goes on for a while.\r\nEnd A"[..],
    ]
    .concat();
    let b_bytes = [
        &b"Other intro. "[..],
        "ünïcode ärger ".as_bytes(),
        &b"\xFF\xFE and the rest of the shared TEXT, which goes on for a while. End B"[..],
    ]
    .concat();
    let a = write(dir.path(), "a.txt", &a_bytes);
    let b = write(dir.path(), "b.txt", &b_bytes);
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for kind in [
        &["--shingle", "char"][..],
        &["--shingle", "word", "-k", "2"],
    ] {
        let doc = json(&[&["explain", a, b, "--format", "json"], kind].concat());
        assert_eq!(doc["a"]["path"], a);
        assert_eq!(doc["a"]["bytes"], a_bytes.len());
        let shared = doc["shared"].as_array().unwrap();
        assert!(!shared.is_empty());
        let mut tiles = Vec::new();
        let mut longest = String::new();
        for s in shared {
            let (ra, rb) = (range(&s["a"]), range(&s["b"]));
            let ta = normalize(&a_bytes[ra.clone()], Normalization::default());
            let tb = normalize(&b_bytes[rb.clone()], Normalization::default());
            if kind[1] == "char" {
                assert_eq!(ta, tb, "{s}");
            } else {
                let words = |t: &str| {
                    t.split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                };
                assert_eq!(words(&ta), words(&tb), "{s}");
            }
            if ta.len() > longest.len() {
                longest = ta;
            }
            tiles.push(ra);
        }
        assert!(
            longest.contains(
                "ärger \u{FFFD}\u{FFFD} and the rest of the shared text, which goes on for a while"
            ),
            "{longest:?}"
        );
        tiles.extend(doc["only_a"].as_array().unwrap().iter().map(range));
        tiles.sort_by_key(|r| r.start);
        let mut at = 0;
        for t in tiles {
            assert_eq!(t.start, at, "A is tiled");
            at = t.end;
        }
        assert_eq!(at, a_bytes.len());
        // The Jaccard is compare's, digit for digit.
        let jaccard = doc["jaccard"].as_f64().unwrap();
        assert_eq!(
            format!("{jaccard:.6}"),
            compare_jaccard(&[&[a, b][..], kind].concat())
        );
        let shares: f64 = shared.iter().map(|s| s["share"].as_f64().unwrap()).sum();
        assert!((shares - jaccard).abs() < 1e-9);
    }
}

/// The same Jaccard as `compare` on the test corpus, for every shingle kind.
#[test]
fn jaccard_equals_compare_for_every_shingle_kind() {
    let a = "testdata/news/lighthouse.txt";
    let b = "testdata/news/lighthouse-edited.txt";
    for kind in [
        &["--shingle", "char"][..],
        &["--shingle", "char", "-k", "9", "--keep-case"],
        &["--shingle", "word"],
        &["--shingle", "stopword", "--keep-whitespace"],
    ] {
        let doc = json(&[&["explain", a, b, "--format", "json"], kind].concat());
        let expected = compare_jaccard(&[&[a, b][..], kind].concat());
        assert_eq!(
            format!("{:.6}", doc["jaccard"].as_f64().unwrap()),
            expected,
            "{kind:?}"
        );
        let text = stdout(&run(&[&["explain", a, b], kind].concat()));
        assert!(text.contains(&format!("jaccard {expected} ")), "{text}");
    }
}

#[test]
fn missing_file_and_directory_are_usage_errors_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = pair(dir.path());
    let missing = dir.path().join("nope.txt");
    let missing = missing.to_str().unwrap();
    for (args, named) in [
        (vec!["explain", &a, missing], missing),
        (vec!["explain", missing, &a], missing),
        (
            vec!["explain", &a, dir.path().to_str().unwrap()],
            dir.path().to_str().unwrap(),
        ),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        assert!(err.starts_with("simfind: error: cannot read "), "{err}");
        assert!(err.contains(named), "{err}");
    }
}

/// A file over --max-size is refused before it is read: exit 2, the path
/// and the bound named, nothing on stdout.
#[test]
fn a_file_over_the_size_bound_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = write(dir.path(), "big.txt", util::prose(7, 600).as_bytes());
    let (a, _) = pair(dir.path());
    let big = big.to_str().unwrap();
    let size = std::fs::metadata(big).unwrap().len();
    assert!(size > 2048);
    let out = run(&["explain", &a, big, "--max-size", "2K"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{big} is {size} bytes, over --max-size 2048")),
        "{err}"
    );
    // Under the bound it is explained.
    let out = run(&["explain", &a, big, "--max-size", "1M"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Bytes that are not text, and files shorter than one shingle: explained,
/// with the undefined Jaccard said so.
#[test]
fn binary_and_tiny_files() {
    let dir = tempfile::tempdir().unwrap();
    let bin: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    let a = write(dir.path(), "a.bin", &bin);
    let b = write(dir.path(), "b.bin", &bin[100..]);
    let doc = json(&[
        "explain",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(doc["jaccard"].as_f64().unwrap() > 0.9);
    let tiny = write(dir.path(), "tiny.txt", b"abc");
    let out = run(&["explain", tiny.to_str().unwrap(), tiny.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("jaccard undefined"));
    assert!(stderr(&out).contains("Jaccard is undefined"));
}

/// Records (#18: "every input kind that has text"): two records of a JSON
/// Lines or CSV file explained by id, their offsets bytes of the record's text
/// (the fields joined by one space, as scan shingles it), and the Jaccard the
/// one scan reports for the pair.
#[test]
fn two_records_are_explained_by_id_with_the_scan_jaccard() {
    let dir = tempfile::tempdir().unwrap();
    let base = "the lighthouse keeper climbed the stairs every evening to light the lamp";
    let edited = "the lighthouse keeper climbed the old stairs every night to light the lamp";
    let jsonl = write(
        dir.path(),
        "docs.jsonl",
        format!(
            "{{\"id\":\"a1\",\"text\":\"{base}\"}}\n{{\"id\":\"x\",\"text\":\"unrelated words here\"}}\n{{\"id\":\"b2\",\"text\":\"{edited}\"}}\n"
        )
        .as_bytes(),
    );
    let jsonl = jsonl.to_str().unwrap();
    let doc = json(&[
        "explain", "--input", "jsonl", jsonl, "a1", "b2", "--format", "json",
    ]);
    assert_eq!(doc["a"]["id"], "a1", "{doc}");
    assert_eq!(doc["b"]["id"], "b2", "{doc}");
    for span in doc["shared"].as_array().unwrap() {
        let (a, b) = (range(&span["a"]), range(&span["b"]));
        assert_eq!(&base.as_bytes()[a], &edited.as_bytes()[b], "{span}");
    }
    let scan = run(&[
        "scan", "--input", "jsonl", jsonl, "--method", "exact", "-t", "0.1", "-q",
    ]);
    let rows = stdout(&scan);
    let row = rows.lines().find(|l| l.starts_with("a1,b2,")).expect(&rows);
    let scan_jaccard: f64 = row.split(',').nth(2).unwrap().parse().unwrap();
    let jaccard = doc["jaccard"].as_f64().unwrap();
    assert!((jaccard - scan_jaccard).abs() < 1e-6, "{jaccard} vs {row}");

    let csv = write(
        dir.path(),
        "people.csv",
        format!("id,name,note\n1,Ann Lee,\"{base}\"\n2,Ann Lee,\"{edited}\"\n").as_bytes(),
    );
    let out = run(&[
        "explain",
        "--input",
        "csv",
        csv.to_str().unwrap(),
        "1",
        "2",
        "--color",
        "never",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("people.csv#1") && text.contains("people.csv#2"),
        "{text}"
    );

    let missing = run(&["explain", "--input", "jsonl", jsonl, "a1", "nope"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("no record with id \"nope\""),
        "{}",
        stderr(&missing)
    );
    let no_id = run(&["explain", "--input", "jsonl", jsonl, "a1"]);
    assert_eq!(no_id.status.code(), Some(2), "{}", stderr(&no_id));
}

/// Issue 36, point 8: the default text view is a word diff people read.
/// Ten word edits are ten edits, each shown inline, the identical text
/// between them folded.
#[test]
fn ten_word_edits_show_as_ten_edits() {
    let dir = tempfile::tempdir().unwrap();
    let base = letter_words(11, 1200).join(" ");
    let mut edited: Vec<String> = base.split(' ').map(str::to_string).collect();
    for k in 0..10 {
        edited[40 + 110 * k] = format!("EDIT{k}");
    }
    let a = write(dir.path(), "a.txt", base.as_bytes());
    let b = write(dir.path(), "b.txt", edited.join(" ").as_bytes());
    let out = run(&["explain", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(": 10 edits, 0 moved blocks; 1190 of a's 1200 words in place"),
        "{text}"
    );
    assert_eq!(text.matches("[-").count(), 10, "{text}");
    assert_eq!(text.matches("{+").count(), 10, "{text}");
    for k in 0..10 {
        assert!(text.contains(&format!("{{+EDIT{k}+}}")), "{text}");
    }
    assert!(text.contains("identical words …\n"), "{text}");
    // The figures on top: both containments and what only each side has.
    let head: Vec<&str> = text.lines().take(5).collect();
    assert!(head[3].starts_with("containment: a in b 0."), "{text}");
    assert!(head[4].starts_with("only in a: "), "{text}");
    assert!(text.lines().count() < 40, "{text}");
}

/// A 0.91 pair (a paragraph added, a few words changed, a paragraph moved)
/// reads as a handful of lines, not hundreds of fragments; the moved
/// paragraph is shown once.
#[test]
fn a_near_pair_is_a_short_diff_with_its_moved_block_once() {
    let dir = tempfile::tempdir().unwrap();
    let paragraphs: Vec<String> = (0..8)
        .map(|i| letter_words(100 + i, 150).join(" "))
        .collect();
    let a_text = paragraphs.join("\n\n");
    let mut b_paras = paragraphs.clone();
    let moved = b_paras.remove(2);
    b_paras.insert(6, moved.clone());
    b_paras.insert(4, letter_words(999, 60).join(" "));
    let mut words: Vec<String> = b_paras[0].split(' ').map(str::to_string).collect();
    words[10] = "changed".into();
    words[90] = "altered".into();
    b_paras[0] = words.join(" ");
    let b_text = b_paras.join("\n\n");
    let a = write(dir.path(), "a.txt", a_text.as_bytes());
    let b = write(dir.path(), "b.txt", b_text.as_bytes());
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let doc = json(&["explain", a, b, "--format", "json"]);
    let jaccard = doc["jaccard"].as_f64().unwrap();
    assert!((0.85..0.97).contains(&jaccard), "{jaccard}");
    let text = stdout(&run(&["explain", a, b]));
    assert!(text.contains(", 1 moved block;"), "{text}");
    assert!(text.contains("{~block 1 moved here: "), "{text}");
    assert_eq!(
        text.matches("[~block 1 (150 words) moved~]").count(),
        1,
        "{text}"
    );
    // The moved paragraph's text appears once.
    let first_words: String = moved.split(' ').take(8).collect::<Vec<_>>().join(" ");
    assert_eq!(text.matches(&first_words).count(), 1, "{text}");
    assert!(
        text.lines().count() < 40,
        "{} lines:\n{text}",
        text.lines().count()
    );
}
