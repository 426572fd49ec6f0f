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
