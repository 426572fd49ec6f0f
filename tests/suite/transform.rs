//! `--transform CMD`: the user's command makes a file's text (issue #34),
//! through the binary: files simfind cannot read become comparable, only
//! the files the globs name are given to it, a failing command names the
//! file and the run goes on, and a command stored in an index is run again
//! only when the user gives it again.

use crate::util::{code, pair_paths, prose, sim_in, stderr, write};
use std::path::Path;

/// A "word processor" file: the text's words between NUL-separated binary
/// runs, different in every copy (as a real .doc's metadata is), so that
/// without a command the files look binary and share nothing byte for byte.
fn binary_document(text: &str, noise: u8) -> Vec<u8> {
    let mut out = vec![0xD0, 0xCF, 0x11, 0xE0, 0, noise];
    for word in text.split(' ') {
        out.extend_from_slice(word.as_bytes());
        out.extend_from_slice(&[0, noise, noise.wrapping_mul(7), 0]);
    }
    out
}

/// The command that gets the text back out: binary bytes to spaces.
const DETEXT: &str = "tr -c 'a-z' ' '";

fn corpus(d: &Path) {
    let text = prose(41, 400);
    write(d, "old/report.doc", &binary_document(&text, 1));
    write(d, "new/REPORT.DOC", &binary_document(&text, 2));
    write(d, "notes.txt", prose(42, 400).as_bytes());
}

fn sorted_pairs(out: &std::process::Output) -> Vec<(String, String)> {
    let mut pairs: Vec<_> = pair_paths(&out.stdout)
        .into_iter()
        .map(|(a, b)| if a <= b { (a, b) } else { (b, a) })
        .collect();
    pairs.sort();
    pairs
}

#[test]
fn a_transform_makes_binary_documents_comparable() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    corpus(d);
    let without = sim_in(d, &["scan", ".", "-t", "0.9"]);
    assert_eq!(code(&without), 0, "{}", stderr(&without));
    assert!(
        sorted_pairs(&without).is_empty(),
        "binary files paired without a command"
    );

    for command in [DETEXT.to_string(), format!("{DETEXT} < {{}}")] {
        let with = sim_in(
            d,
            &[
                "scan",
                ".",
                "-t",
                "0.9",
                "--transform",
                &command,
                "--transform-glob",
                "*.doc",
            ],
        );
        assert_eq!(code(&with), 0, "{}", stderr(&with));
        assert_eq!(
            sorted_pairs(&with),
            vec![(
                "./new/REPORT.DOC".to_string(),
                "./old/report.doc".to_string()
            )],
            "{command}: {}",
            stderr(&with)
        );
    }
}

#[test]
fn a_transform_failing_on_a_file_names_it_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    corpus(d);
    write(d, "copy.txt", prose(42, 400).as_bytes());
    // Fails on the .doc files only; the text files are not given to it.
    let out = sim_in(
        d,
        &[
            "scan",
            ".",
            "-v",
            "--transform",
            "echo 'cannot parse this' >&2; exit 4",
            "--transform-glob",
            "*.doc",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        sorted_pairs(&out),
        vec![("./copy.txt".to_string(), "./notes.txt".to_string())]
    );
    let err = stderr(&out);
    for file in ["./old/report.doc", "./new/REPORT.DOC"] {
        assert!(
            err.contains(&format!(
                "{file}: not compared: failed by --transform (the command exited with status 4: cannot parse this)"
            )),
            "{err}"
        );
    }
    assert!(err.contains("not paired: 2 failed by --transform"), "{err}");
}

#[test]
fn an_index_made_with_a_transform_is_queried_only_with_it_given_again() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    corpus(d);
    let made = sim_in(
        d,
        &[
            "index",
            "old",
            "--db",
            "i.db",
            "--transform",
            DETEXT,
            "--transform-glob",
            "*.doc",
        ],
    );
    assert_eq!(code(&made), 0, "{}", stderr(&made));

    let bare = sim_in(d, &["query", "--db", "i.db", "new/REPORT.DOC"]);
    assert_eq!(code(&bare), 2, "{}", stderr(&bare));
    let err = stderr(&bare);
    assert!(
        err.contains(&format!(
            "made by the command \"{DETEXT}\" for the files matching *.doc"
        )) && err.contains("give the same --transform")
            && !err.contains("rebuild"),
        "{err}"
    );
    let other = sim_in(
        d,
        &[
            "query",
            "--db",
            "i.db",
            "new/REPORT.DOC",
            "--transform",
            "cat",
            "--transform-glob",
            "*.doc",
        ],
    );
    assert_eq!(code(&other), 2, "{}", stderr(&other));

    let given = sim_in(
        d,
        &[
            "query",
            "--db",
            "i.db",
            "new/REPORT.DOC",
            "--transform",
            DETEXT,
            "--transform-glob",
            "*.doc",
        ],
    );
    assert_eq!(code(&given), 0, "{}", stderr(&given));
    let out = String::from_utf8_lossy(&given.stdout).to_string();
    assert!(out.contains("report.doc"), "{out}{}", stderr(&given));
}

#[test]
fn a_bad_transform_is_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    corpus(d);
    for args in [
        &["scan", ".", "--transform", " "][..],
        &[
            "scan",
            ".",
            "--transform",
            "cat",
            "--transform-glob",
            "[oops",
        ],
        &["scan", ".", "--transform-glob", "*.doc"],
    ] {
        let out = sim_in(d, args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&out).contains("--transform"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn binary_files_are_counted_by_kind_and_an_old_office_file_names_transform() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "a.png", b"\x89PNG\r\n\x1A\n\0\0\0\rIHDR\0\0\0\x01");
    write(d, "b.png", b"\x89PNG\r\n\x1A\n\0\0\0\rIHDR\0\0\0\x02");
    write(d, "c.gz", b"\x1F\x8B\x08\0\0\0\0\0\0\x03");
    write(d, "d.doc", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0\0\0");
    write(d, "e.bin", b"\0\x01\x02 no known signature");
    write(d, "f.txt", prose(7, 200).as_bytes());
    let out = sim_in(d, &["scan", ".", "-v"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "not paired: 1 binary (identical copies only), 1 archive file (identical copies only), \
             2 image files (identical copies only), 1 old Office file (identical copies only)"
        ),
        "{err}"
    );
    assert!(
        err.contains("./d.doc: not compared: old Office file (.doc, .xls, .ppt); --transform with a converter"),
        "{err}"
    );
    assert!(
        err.contains("./a.png: not compared: image file; --binary compares its bytes"),
        "{err}"
    );
    // --binary keeps its meaning: every file is read as bytes.
    let bytes = sim_in(d, &["scan", ".", "--binary"]);
    assert!(!stderr(&bytes).contains("image file"), "{}", stderr(&bytes));
}
