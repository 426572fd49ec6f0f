//! `--metric containment`: `compare` and `explain` print both directions of
//! `C(A, B) = |A ∩ B| / |A|`; `scan` finds every pair one inside the other
//! at ≥ t by the exact join. Checked against a brute force written here
//! (generated sets, SplitMix64) and against `compare` as the oracle of the
//! files of testdata; the refusals name what to do instead.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::{SplitMix64, code, root, run, run_os, sim_in, stderr, stdout, write};

/// The measure rows of a `compare` output, by name.
fn measures(out: &std::process::Output) -> BTreeMap<String, String> {
    assert!(out.status.success(), "{}", stderr(out));
    stdout(out)
        .lines()
        .skip(1)
        .map(|line| {
            let (k, v) = line.split_once(',').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

/// The first paragraph of testdata's lighthouse article: a snippet of it.
fn lighthouse() -> (String, String) {
    let host = std::fs::read_to_string(root().join("testdata/news/lighthouse.txt")).unwrap();
    let snippet = host.split("\n\n").nth(1).unwrap().to_owned();
    (host, snippet)
}

#[test]
fn compare_prints_both_directions_after_jaccard_distance() {
    let dir = tempfile::tempdir().unwrap();
    let (host, snippet) = lighthouse();
    write(dir.path(), "host.txt", host.as_bytes());
    write(dir.path(), "snippet.txt", snippet.as_bytes());
    let out = sim_in(
        dir.path(),
        &[
            "compare",
            "snippet.txt",
            "host.txt",
            "--metric",
            "containment",
        ],
    );
    let text = stdout(&out);
    let names: Vec<&str> = text.lines().map(|l| l.split(',').next().unwrap()).collect();
    let at = names.iter().position(|n| *n == "jaccard_distance").unwrap();
    assert_eq!(
        names[at + 1..at + 3],
        ["containment_a_in_b", "containment_b_in_a"]
    );
    let m = measures(&out);
    assert_eq!(m["containment_a_in_b"], "1.000000");
    let (a, b, shared): (f64, f64, f64) = (
        m["shingles_a"].parse().unwrap(),
        m["shingles_b"].parse().unwrap(),
        m["shared"].parse().unwrap(),
    );
    assert_eq!(shared, a, "the whole snippet is in its host");
    assert_eq!(m["containment_b_in_a"], format!("{:.6}", shared / b));
    assert!(shared / b < 0.5);
    // Without --metric the table is today's: no containment rows.
    let plain = sim_in(dir.path(), &["compare", "snippet.txt", "host.txt"]);
    assert!(!stdout(&plain).contains("containment"));
    assert_eq!(
        stdout(&plain).lines().count() + 2,
        text.lines().count(),
        "two rows more, nothing else"
    );
}

#[test]
fn compare_of_sets_and_the_empty_set() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "sets.tsv",
        b"small\tx y z\nlarge\tx y z w\nnone\t\n",
    );
    let m = measures(&sim_in(
        dir.path(),
        &[
            "compare",
            "--input",
            "sets",
            "sets.tsv",
            "small",
            "large",
            "--metric",
            "containment",
        ],
    ));
    assert_eq!(m["containment_a_in_b"], "1.000000");
    assert_eq!(m["containment_b_in_a"], "0.750000");
    // C(∅, B) = 0, and C(B, ∅) = 0: the empty set is inside nothing.
    let m = measures(&sim_in(
        dir.path(),
        &[
            "compare",
            "--input",
            "sets",
            "sets.tsv",
            "none",
            "large",
            "--metric",
            "containment",
            "-q",
        ],
    ));
    assert_eq!(m["containment_a_in_b"], "0.000000");
    assert_eq!(m["containment_b_in_a"], "0.000000");
}

#[test]
fn compare_and_explain_refuse_what_has_no_containment() {
    let out = run(&[
        "compare",
        "--vector",
        "1,2",
        "--vector",
        "2,1",
        "--metric",
        "containment",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(
            "--metric containment compares sets of shingles or tokens: it does not apply to \
             --input vectors"
        ),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        "compare",
        "--bits",
        "01",
        "--bits",
        "11",
        "--metric",
        "containment",
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--input bits"), "{}", stderr(&out));
    let out = run(&[
        "compare",
        "testdata/news/lighthouse.txt",
        "testdata/news/bakery.txt",
        "--metric",
        "cosine",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("invalid value 'cosine'"),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        "explain",
        "testdata/news/lighthouse.txt",
        "testdata/news/bakery.txt",
        "--metric",
        "hamming",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("[possible values: jaccard, containment]"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn explain_shows_how_much_of_each_is_inside_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let (host, snippet) = lighthouse();
    write(dir.path(), "host.txt", host.as_bytes());
    write(dir.path(), "snippet.txt", snippet.as_bytes());
    let compared = measures(&sim_in(
        dir.path(),
        &[
            "compare",
            "snippet.txt",
            "host.txt",
            "--metric",
            "containment",
        ],
    ));
    let out = sim_in(
        dir.path(),
        &[
            "explain",
            "snippet.txt",
            "host.txt",
            "--metric",
            "containment",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let line = stdout(&out)
        .lines()
        .find(|l| l.starts_with("containment: "))
        .unwrap()
        .to_owned();
    assert_eq!(
        line,
        format!(
            "containment: a in b 1.000000 ({s} of a's {s}), b in a {} ({s} of b's {})",
            compared["containment_b_in_a"],
            compared["shingles_b"],
            s = compared["shared"],
        )
    );
    let json = sim_in(
        dir.path(),
        &[
            "explain",
            "snippet.txt",
            "host.txt",
            "--metric",
            "containment",
            "--format",
            "json",
        ],
    );
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["containment"]["a_in_b"], 1.0);
    let b_in_a = doc["containment"]["b_in_a"].as_f64().unwrap();
    assert_eq!(format!("{b_in_a:.6}"), compared["containment_b_in_a"]);
    // Without --metric: no line, no key.
    let plain = sim_in(
        dir.path(),
        &["explain", "snippet.txt", "host.txt", "--view", "passages"],
    );
    assert!(!stdout(&plain).contains("containment"));
}

/// `query --metric containment` over an index of files: the documents that
/// hold the query (`contained` a) and those it holds (`contained` b), with
/// `compare`'s values; `--top 1` the one that holds the most of it; the
/// empty set and an empty index answer nothing.
#[test]
fn query_by_containment_labels_both_directions() {
    let dir = tempfile::tempdir().unwrap();
    let (host, snippet) = lighthouse();
    let bakery = std::fs::read(root().join("testdata/news/bakery.txt")).unwrap();
    write(dir.path(), "corpus/host.txt", host.as_bytes());
    write(dir.path(), "corpus/para.txt", snippet.as_bytes());
    write(dir.path(), "corpus/bakery.txt", &bakery);
    write(dir.path(), "q/snippet.txt", snippet.as_bytes());
    write(dir.path(), "q/host.txt", host.as_bytes());
    write(dir.path(), "q/tiny.txt", b"hi");
    let out = sim_in(dir.path(), &["index", "corpus", "--db", "i.simfind", "-q"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let query = |args: &[&str]| {
        let mut all = vec![
            "query",
            "--db",
            "i.simfind",
            "--metric",
            "containment",
            "-q",
        ];
        all.extend_from_slice(args);
        let out = sim_in(dir.path(), &all);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        stdout(&out)
    };
    let text = query(&["q/snippet.txt"]);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("a,b,a_in_b,b_in_a,contained,size_a,size_b,shared")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // para.txt is the snippet itself; the host holds the whole snippet.
    // Both hold all of it: ranked then by how much of them it holds.
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(
        rows[0][..5],
        [
            "q/snippet.txt",
            "corpus/para.txt",
            "1.000000",
            "1.000000",
            "both"
        ]
    );
    assert_eq!(rows[1][..2], ["q/snippet.txt", "corpus/host.txt"]);
    assert_eq!(rows[1][2], "1.000000");
    assert_eq!(rows[1][4], "a");
    let oracle = measures(&sim_in(
        dir.path(),
        &[
            "compare",
            "q/snippet.txt",
            "corpus/host.txt",
            "--metric",
            "containment",
        ],
    ));
    assert_eq!(rows[1][3], oracle["containment_b_in_a"]);
    // From the host: the paragraph is inside it (contained b).
    let text = query(&["q/host.txt", "-t", "0.95"]);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0][1], "corpus/host.txt");
    assert_eq!(
        (rows[1][1], rows[1][3], rows[1][4]),
        ("corpus/para.txt", "1.000000", "b")
    );
    // --top 1: the document holding the most of the query.
    let text = query(&["q/snippet.txt", "--top", "1"]);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("q/snippet.txt,corpus/para.txt,1.000000"));
    // The empty set (shorter than one shingle) is inside nothing.
    let out = sim_in(
        dir.path(),
        &[
            "query",
            "--db",
            "i.simfind",
            "--metric",
            "containment",
            "q/tiny.txt",
        ],
    );
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out).lines().count(), 1);
    assert!(stderr(&out).contains("empty set"), "{}", stderr(&out));
    // An empty index: the header alone.
    std::fs::create_dir(dir.path().join("none")).unwrap();
    let out = sim_in(dir.path(), &["index", "none", "--db", "e.simfind", "-q"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = sim_in(
        dir.path(),
        &[
            "query",
            "--db",
            "e.simfind",
            "--metric",
            "containment",
            "q/host.txt",
            "-q",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 1);
    // Refused: signature verification, --top 0.
    for args in [&["--verify", "signature"][..], &["--top", "0"]] {
        let mut all = vec![
            "query",
            "--db",
            "i.simfind",
            "--metric",
            "containment",
            "q/host.txt",
        ];
        all.extend_from_slice(args);
        assert_eq!(code(&sim_in(dir.path(), &all)), 2, "{args:?}");
    }
}

/// `scan --metric containment`: against brute force on generated sets, against
/// `compare` on testdata and debian-docs, LSH Ensemble's recall floor, and
/// the refusals.
mod scan;
