//! `sign --input vectors|bits`: the vector families through the exchange
//! path, checked against `scan --input vectors|bits` with the same query;
//! points changed between sign and verify; shards of different kinds of
//! input (vectors, bit strings, files, records signed whole or per field)
//! refused.

use std::path::Path;

use crate::util::exchange::{
    ab, all_pairs, bit_strings, ok, path_str, sign, sign_points, vectors, write_pairs,
};
use crate::util::{self, run, stderr, write};

#[test]
fn signing_and_verifying_points_do_not_depend_on_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let points = vectors(tmp.path());
    let (one, two) = (tmp.path().join("j1"), tmp.path().join("j2"));
    for (dir, j) in [(&one, "1"), (&two, "2")] {
        ok(&sign(
            &[&points],
            dir,
            &["--input", "vectors", "-t", "0.9", "-j", j],
        ));
    }
    let (a, b) = (
        simfind::exchange::read_docs(&one).unwrap(),
        simfind::exchange::read_docs(&two).unwrap(),
    );
    assert_eq!(a.key_kind, "vector");
    assert_eq!(a.docs.len(), 375, "every point once, the header left out");
    assert_eq!(a.docs, b.docs);
    assert_eq!(a.signatures, b.signatures);
    // Hyperplanes write the side of each plane: 0 or 1.
    assert!(a.signatures.iter().all(|&v| v <= 1));
    assert!(a.signatures.contains(&1) && a.signatures.contains(&0));
    let pairs = tmp.path().join("pairs.parquet");
    write_pairs(&pairs, &all_pairs(&one));
    let verify = |j: &str| {
        run(&[
            "verify",
            "-j",
            j,
            "--pairs",
            path_str(&pairs),
            "--docs",
            path_str(&one),
        ])
    };
    let (x, y) = (verify("1"), verify("2"));
    ok(&x);
    assert!(ab(&x.stdout).len() > 75, "{}", stderr(&x));
    assert_eq!(x.stdout, y.stdout);
}

/// Every pair as the engine's candidates, then a point given other values
/// and another renamed: both named by file and line, their pairs left out,
/// the others verified, exit 1.
#[test]
fn a_changed_point_is_named_by_file_and_line_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let bits = bit_strings(tmp.path());
    let signed = tmp.path().join("signed");
    sign_points("bits", &bits, &signed, 2, &["--radius", "6"]);
    let ex = simfind::exchange::read_docs(&signed).unwrap();
    let lines: Vec<u64> = ex
        .docs
        .iter()
        .map(|d| d.origin.as_ref().unwrap().line)
        .collect();
    assert_eq!(lines, (1..=400).collect::<Vec<u64>>(), "numbered by line");
    let offset = ex.docs[1].origin.as_ref().unwrap().offset;
    let text = std::fs::read_to_string(&bits).unwrap();
    assert_eq!(offset as usize, text.find("s0-near").unwrap());
    let pairs = tmp.path().join("pairs.parquet");
    write_pairs(&pairs, &all_pairs(&signed));
    let verify = || {
        run(&[
            "verify",
            "--pairs",
            path_str(&pairs),
            "--docs",
            path_str(&signed),
        ])
    };
    let before = verify();
    ok(&before);
    assert!(ab(&before.stdout).contains(&("s0".into(), "s0-near".into())));
    // Line 1 (s0) gets one bit flipped; line 2 (s0-near) another id.
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let last = lines[0].pop().unwrap();
    lines[0].push(if last == '0' { '1' } else { '0' });
    lines[1] = lines[1].replacen("s0-near", "s0-xxxx", 1);
    std::fs::write(&bits, lines.join("\n") + "\n").unwrap();
    let after = verify();
    assert_eq!(after.status.code(), Some(1), "{}", stderr(&after));
    let err = stderr(&after);
    let name = path_str(&bits);
    assert!(
        err.contains(&format!("{name}:1:")) && err.contains("other values"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{name}:2:")) && err.contains("point 's0-xxxx' there now"),
        "{err}"
    );
    let changed = ["s0", "s0-near"];
    let kept: Vec<_> = ab(&before.stdout)
        .into_iter()
        .filter(|(a, b)| !changed.contains(&a.as_str()) && !changed.contains(&b.as_str()))
        .collect();
    assert!(!kept.is_empty());
    assert_eq!(ab(&after.stdout), kept);
}

/// Runs `verify` on `signed` with `-o` and checks it fails with status 2,
/// a message containing every one of `needles`, and no output file.
fn refused(signed: &Path, needles: &[&str]) {
    let pairs = signed.parent().unwrap().join("none.parquet");
    write_pairs(&pairs, &[]);
    let out_file = signed.parent().unwrap().join("out.csv");
    let out = run(&[
        "verify",
        "--pairs",
        path_str(&pairs),
        "--docs",
        path_str(signed),
        "-o",
        path_str(&out_file),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for needle in needles {
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
    assert!(!out_file.exists(), "no output on a refusal");
}

#[test]
fn shards_of_different_kinds_of_input_are_refused_naming_both() {
    let tmp = tempfile::tempdir().unwrap();
    let points = vectors(tmp.path());
    let bits = bit_strings(tmp.path());
    let files = tmp.path().join("files");
    write(&files, "a.txt", util::prose(1, 200).as_bytes());
    let people = write(
        tmp.path(),
        "people.csv",
        b"id,first,last\n1,anna,smith\n2,anne,smith\n3,bob,jones\n",
    );
    let shard = |i: u32| format!("{i}/2");
    let case = |name: &str, first: &[&str], second: &[&str], needles: &[&str]| {
        let signed = tmp.path().join(name);
        let mut a = first.to_vec();
        a.extend(["--out", path_str(&signed), "--shard", "0/2"]);
        let mut b = second.to_vec();
        let s = shard(1);
        b.extend(["--out", path_str(&signed), "--shard", &s]);
        for args in [a, b] {
            let mut full = vec!["sign"];
            full.extend(args);
            ok(&run(&full));
        }
        refused(&signed, needles);
    };
    let (p, b, f, c) = (
        path_str(&points),
        path_str(&bits),
        path_str(&files),
        path_str(&people),
    );
    case(
        "vectors-and-files",
        &["--input", "vectors", p, "-t", "0.9"],
        &[f],
        &[
            "files signed by MinHash here",
            "vectors of 12 components signed by hyperplane (cosine ≥ 0.9)",
            "shard-00000-of-00002.parquet",
        ],
    );
    case(
        "vectors-and-bits",
        &["--input", "vectors", p, "-t", "0.9"],
        &["--input", "bits", b, "--radius", "3"],
        &["bit strings of 96 bits signed by bit_sampling (within 3 bits) here"],
    );
    case(
        "two-queries",
        &["--input", "vectors", p, "-t", "0.9"],
        &["--input", "vectors", p, "-t", "0.8", "-b", "10", "-r", "5"],
        &["cosine ≥ 0.8", "cosine ≥ 0.9"],
    );
    case(
        "whole-and-per-field",
        &["--input", "csv", c],
        &["--input", "csv", c, "--per-field"],
        &[
            "csv records signed per field (fields [\"first\",\"last\"]",
            "but csv records signed whole",
        ],
    );
}

#[test]
fn sign_refuses_what_it_cannot_do_with_points_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let points = vectors(tmp.path());
    let bits = bit_strings(tmp.path());
    let files = tmp.path().join("files");
    write(&files, "a.txt", b"some text");
    let out = tmp.path().join("signed");
    let (p, b) = (path_str(&points), path_str(&bits));
    for (args, needle) in [
        (vec!["--input", "vectors", p], "needs -t"),
        (
            vec!["--input", "vectors", p, "-t", "0.9", "--per-field"],
            "--per-field",
        ),
        (vec!["--input", "vectors", p, "-t", "0.9", "-"], "stdin"),
        (vec!["--input", "bits", b], "--radius"),
        (vec!["--input", "bits", b, "--radius", "96"], "not below"),
        (
            vec!["--input", "bits", b, "--radius", "3", "-t", "0.5"],
            "not -t",
        ),
        (
            vec!["--input", "vectors", p, "--metric", "hamming"],
            "--input bits",
        ),
        (
            vec![path_str(&files), "--sketch", "simhash"],
            "--input vectors|bits",
        ),
        (
            vec!["--input", "vectors", p, "--sketch", "simhash", "-t", "0.9"],
            "simhash",
        ),
        (
            vec![path_str(&files), "-t", "0.9"],
            "apply to sign --input vectors",
        ),
    ] {
        let mut full = vec!["sign", "--out", path_str(&out)];
        full.extend(args);
        let got = run(&full);
        assert_eq!(got.status.code(), Some(2), "{full:?}: {}", stderr(&got));
        assert!(stderr(&got).contains(needle), "{full:?}: {}", stderr(&got));
        assert!(!out.exists(), "{full:?} wrote {}", out.display());
    }
    // A bad row is named by file and line, before anything is written.
    let bad = write(tmp.path(), "bad.csv", b"a,1,2\nb,1,x\n");
    let got = run(&[
        "sign",
        "--out",
        path_str(&out),
        "--input",
        "vectors",
        "-t",
        "0.9",
        path_str(&bad),
    ]);
    assert_eq!(got.status.code(), Some(2));
    assert!(
        stderr(&got).contains(&format!("{}: line 2", path_str(&bad))),
        "{}",
        stderr(&got)
    );
    assert!(!out.exists());
}
