//! The Python face: the `simfind` package that `scripts/setup-engines.sh`
//! builds from crates/py and installs into `target/engines/venv` imports,
//! carries the crate's version, and measures what `simfind compare` measures
//! for the same files and options.

use std::collections::HashMap;
use std::process::Command;

use crate::util::*;

/// What the test asks of Python, one answer a line: the version, Jaccard of
/// two files (char and word shingles, as bytes and as str), the size of the
/// first file's shingle set, Jaccard of two texts too short for a shingle,
/// and the messages of the errors for a bad `k` and a bad `shingle`.
const SCRIPT: &str = r#"
import sys
import simfind

a, b = (open(path, "rb").read() for path in sys.argv[1:3])
print("version", simfind.__version__)
print("char", f"{simfind.jaccard(a, b):.6f}")
print("char_str", f"{simfind.jaccard(a.decode(), b.decode()):.6f}")
print("word", f"{simfind.jaccard(a, b, shingle='word', k=3):.6f}")
print("shingles_a", len(simfind.shingles(a)))
print("short", simfind.jaccard("abc", "abd"))
for name, kwargs in [("k", {"k": 0}), ("shingle", {"shingle": "line"})]:
    try:
        simfind.jaccard(a, b, **kwargs)
        print(name, "accepted")
    except ValueError as error:
        print(name, error)
"#;

/// The version in crates/py/Cargo.toml's `[package]`, which `__version__` is.
fn package_version() -> String {
    let manifest = std::fs::read_to_string(root().join("crates/py/Cargo.toml")).unwrap();
    manifest
        .lines()
        .skip_while(|line| line.trim() != "[package]")
        .find_map(|line| line.strip_prefix("version = "))
        .map(|v| v.trim_matches('"').to_owned())
        .expect("crates/py/Cargo.toml has a [package] version")
}

/// `compare`'s rows as `measure → value`.
fn compare(args: &[&str]) -> HashMap<String, String> {
    let out = run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    reader
        .records()
        .map(|r| r.unwrap())
        .map(|r| (r[0].to_string(), r[1].to_string()))
        .collect()
}

#[test]
#[cfg_attr(
    no_python_package,
    ignore = "needs the Python package: bash scripts/setup-engines.sh"
)]
fn the_python_package_imports_and_agrees_with_compare() {
    let (a, b) = (
        "testdata/news/lighthouse.txt",
        "testdata/news/lighthouse-edited.txt",
    );
    let out = Command::new(root().join("target/engines/venv/bin/python"))
        .current_dir(root())
        .args(["-c", SCRIPT, a, b])
        .output()
        .expect("the venv's python runs");
    assert!(out.status.success(), "python: {}", stderr(&out));
    assert!(
        out.stderr.is_empty(),
        "the module printed: {}",
        stderr(&out)
    );
    let answers: HashMap<String, String> = stdout(&out)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();

    assert_eq!(answers["version"], package_version());
    let chars = compare(&["compare", a, b]);
    assert_eq!(answers["char"], chars["jaccard"]);
    assert_eq!(answers["char_str"], chars["jaccard"]);
    assert_eq!(answers["shingles_a"], chars["shingles_a"]);
    let words = compare(&["compare", a, b, "--shingle", "word", "-k", "3"]);
    assert_eq!(answers["word"], words["jaccard"]);
    // A near-duplicate pair, so that agreeing is not agreeing on 0 or 1.
    assert_ne!(chars["jaccard"], words["jaccard"]);
    assert_eq!(answers["short"], "None", "Jaccard of two empty sets");

    assert_eq!(answers["k"], "k must be between 1 and 256, got 0");
    assert!(
        answers["shingle"].starts_with("shingle must be one of char, word"),
        "{}",
        answers["shingle"]
    );
}

/// Prints `simfind.dedupe`'s pairs of the JSON Lines file argv[1] (its
/// `text` fields, in order) as `a,b,similarity` rows, the options given as
/// one JSON object in argv[2].
const DEDUPE: &str = r#"
import json, sys
import simfind

texts = [json.loads(line)["text"] for line in open(sys.argv[1], encoding="utf-8")]
pairs = simfind.dedupe(texts, **json.loads(sys.argv[2])).pairs
for a, b, s in zip(*(pairs.column(c).to_pylist() for c in ("left", "right", "similarity"))):
    print(f"{a},{b},{s:.6f}")
"#;

/// The texts of testdata (whole files and their paragraphs, so that there
/// are near copies and unrelated texts), as JSON Lines records `id`, `text`;
/// ids are positions, as `dedupe` reports them.
fn testdata_jsonl(dir: &std::path::Path) -> std::path::PathBuf {
    let mut texts = Vec::new();
    for sub in ["news", "web"] {
        let mut paths: Vec<_> = std::fs::read_dir(root().join("testdata").join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for path in paths {
            let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
            texts.extend(
                text.split("\n\n")
                    .filter(|p| !p.trim().is_empty())
                    .map(str::to_owned),
            );
            texts.push(text);
        }
    }
    let path = dir.join("texts.jsonl");
    let lines: String = texts
        .iter()
        .enumerate()
        .map(|(i, text)| serde_json::json!({"id": i.to_string(), "text": text}).to_string() + "\n")
        .collect();
    std::fs::write(&path, lines).unwrap();
    path
}

#[test]
#[cfg_attr(
    no_python_package,
    ignore = "needs the Python package: bash scripts/setup-engines.sh"
)]
fn python_dedupe_finds_the_pairs_scan_finds() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = testdata_jsonl(dir.path());
    let jsonl = jsonl.to_str().unwrap();
    let runs: [(&[&str], &str); 3] = [
        (&["-t", "0.3"], r#"{"threshold": 0.3}"#),
        (
            &["-t", "0.2", "--shingle", "word", "-k", "2"],
            r#"{"threshold": 0.2, "shingle": "word", "k": 2}"#,
        ),
        (
            &["-t", "0.5", "--method", "lsh", "--seed", "7"],
            r#"{"threshold": 0.5, "method": "lsh", "seed": 7, "threads": 1}"#,
        ),
    ];
    for (flags, options) in runs {
        let cli = run(&[&["scan", "--input", "jsonl", jsonl, "-q"][..], flags].concat());
        assert_eq!(cli.status.code(), Some(0), "{flags:?}: {}", stderr(&cli));
        let expected: Vec<String> = stdout(&cli)
            .lines()
            .skip(1)
            .map(|row| row.splitn(4, ',').take(3).collect::<Vec<_>>().join(","))
            .collect();
        assert!(!expected.is_empty(), "{flags:?}: the corpus has pairs");
        let out = Command::new(root().join("target/engines/venv/bin/python"))
            .args(["-c", DEDUPE, jsonl, options])
            .output()
            .expect("the venv's python runs");
        assert!(out.status.success(), "python: {}", stderr(&out));
        assert!(
            out.stderr.is_empty(),
            "the module printed: {}",
            stderr(&out)
        );
        let got: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
        assert_eq!(got, expected, "{flags:?}");
    }
}

/// Bad input to `dedupe`, one case a line: the exception's type and message,
/// or what the call returned.
const BAD_INPUT: &str = r#"
import simfind
import pyarrow as pa

cases = [
    ("item", lambda: simfind.dedupe(["a text", 3])),
    ("none", lambda: simfind.dedupe(["a text", None])),
    ("single", lambda: simfind.dedupe("a text")),
    ("threshold", lambda: simfind.dedupe(["a"], threshold=1.5)),
    ("k", lambda: simfind.dedupe(["a"], k=0)),
    ("method", lambda: simfind.dedupe(["a"], method="fast")),
    ("verify", lambda: simfind.dedupe(["a"], verify="maybe")),
    ("threads", lambda: simfind.dedupe(["a"], threads=0)),
    ("column", lambda: simfind.dedupe(pa.table({"body": ["a"]}), column="text")),
    ("table", lambda: simfind.dedupe(pa.table({"body": ["a"]}))),
    ("empty", lambda: simfind.dedupe([]).pairs.num_rows),
    ("bytes", lambda: simfind.dedupe([b"\xff\xfe same text here", b"\xff\xfe same text here"]).pairs.num_rows),
    ("arrow", lambda: simfind.dedupe(pa.table({"t": ["one text", "one text"]}), column="t").pairs.num_rows),
    ("iterator", lambda: simfind.dedupe(iter(["one text", "one text"])).pairs.num_rows),
    ("keep", lambda: simfind.dedupe(["one text", "another", "one text"]).keep.to_pylist()),
    ("groups", lambda: simfind.dedupe(["one text", "another", "one text"]).groups.to_pylist()),
    ("cluster", lambda: simfind.dedupe(["a"], cluster="star")),
]
for name, call in cases:
    try:
        print(name, "returned", call())
    except Exception as error:
        print(name, type(error).__name__, error)
"#;

#[test]
#[cfg_attr(
    no_python_package,
    ignore = "needs the Python package: bash scripts/setup-engines.sh"
)]
fn python_dedupe_refuses_bad_input_with_named_errors() {
    let out = Command::new(root().join("target/engines/venv/bin/python"))
        .args(["-c", BAD_INPUT])
        .output()
        .expect("the venv's python runs");
    assert!(out.status.success(), "python: {}", stderr(&out));
    let answers: HashMap<String, String> = stdout(&out)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
    let expect = [
        ("item", "TypeError texts[1] must be str or bytes, not int"),
        (
            "none",
            "TypeError texts[1] must be str or bytes, not NoneType",
        ),
        (
            "threshold",
            "ValueError threshold must be in (0, 1], got 1.5",
        ),
        ("k", "ValueError k must be in 1..=256, got 0"),
        ("threads", "ValueError threads must be at least 1, got 0"),
        ("empty", "returned 0"),
        ("bytes", "returned 1"),
        ("arrow", "returned 1"),
        ("iterator", "returned 1"),
        ("keep", "returned [True, True, False]"),
        ("groups", "returned [0, None, 0]"),
    ];
    for (name, answer) in expect {
        assert_eq!(answers[name], answer, "{name}");
    }
    for name in ["single", "table"] {
        assert!(
            answers[name].starts_with("TypeError"),
            "{name}: {}",
            answers[name]
        );
    }
    for name in ["method", "verify", "cluster"] {
        assert!(
            answers[name].starts_with("ValueError"),
            "{name}: {}",
            answers[name]
        );
    }
    assert!(
        answers["column"].starts_with("KeyError"),
        "{}",
        answers["column"]
    );
}
