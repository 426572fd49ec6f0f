//! `sign --input jsonl|csv|tsv|sets`: records through the exchange path,
//! checked against `scan --input KIND` with the same recipe; records
//! changed between sign and verify, pairs naming unknown ids, and the
//! refusals of what sign cannot do with records.

use std::path::Path;

use crate::util::exchange::{ok, path_str, sign_shards, write_pairs};
use crate::util::{self, run, stderr, write};

/// JSON Lines records: texts with near-copies (a few words changed), an
/// exact copy under another id, a record too short to shingle, unrelated
/// records.
fn jsonl(dir: &Path) -> std::path::PathBuf {
    let mut lines = String::new();
    for i in 0..10u64 {
        let text = util::prose(i, 60);
        lines.push_str(&format!("{{\"id\": \"r{i}\", \"text\": \"{text}\"}}\n"));
        if i % 3 == 0 {
            let near = format!("{} lantern bridge", &text[..text.len() - 12]);
            lines.push_str(&format!(
                "{{\"id\": \"r{i}-near\", \"text\": \"{near}\"}}\n"
            ));
        }
    }
    lines.push_str(&format!(
        "{{\"id\": \"copy\", \"text\": \"{}\"}}\n",
        util::prose(1, 60)
    ));
    lines.push_str("{\"id\": \"tiny\", \"text\": \"hi\"}\n");
    write(dir, "recs.jsonl", lines.as_bytes())
}

/// Every pair of signed records (with a signature), as doc_ids.
fn all_pairs(signed: &Path) -> Vec<(i64, i64)> {
    crate::util::exchange::all_pairs(signed)
}

/// (a, b, similarity) of a pairs CSV.
fn scored(bytes: &[u8]) -> Vec<(String, String, String)> {
    crate::util::exchange::data_rows(bytes)
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect()
}

#[test]
fn verify_of_every_record_pair_gives_the_exact_scan_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    let input = jsonl(tmp.path());
    let signed = tmp.path().join("signed");
    sign_shards("jsonl", &[&input], &signed, 3, &[]);
    let ex = simfind::exchange::read_docs(&signed).unwrap();
    assert_eq!(ex.key_kind, "record");
    assert_eq!(ex.docs.len(), 16, "every record once over the shards");
    // Numbered as a scan numbers records: by line.
    let lines: Vec<u64> = ex
        .docs
        .iter()
        .map(|d| d.origin.as_ref().unwrap().line)
        .collect();
    assert_eq!(lines, (1..=16).collect::<Vec<u64>>());
    let pairs = tmp.path().join("pairs/all.parquet");
    write_pairs(&pairs, &all_pairs(&signed));
    let verify = run(&[
        "verify",
        "--pairs",
        path_str(&pairs),
        "--docs",
        path_str(&signed),
        "-t",
        "0.3",
    ]);
    ok(&verify);
    let scan = run(&[
        "scan",
        "--input",
        "jsonl",
        path_str(&input),
        "--method",
        "exact",
        "-t",
        "0.3",
    ]);
    ok(&scan);
    let got = scored(&verify.stdout);
    assert!(got.len() >= 4, "near-copies and the copy pair: {got:?}");
    assert!(
        got.iter()
            .any(|(a, b, s)| a == "r1" && b == "copy" && s == "1.000000")
    );
    assert_eq!(got, scored(&scan.stdout));
}

#[test]
fn sets_records_verify_as_scan_scores_them() {
    let tmp = tempfile::tempdir().unwrap();
    let mut lines = String::new();
    for i in 0..30u32 {
        let tokens: Vec<String> = (0..20).map(|t| format!("t{}", (i / 2) * 100 + t)).collect();
        let mut tokens = tokens.join(" ");
        if i % 2 == 1 {
            tokens.push_str(" extra-token");
        }
        lines.push_str(&format!("s{i}\t{tokens}\n"));
    }
    let input = write(tmp.path(), "sets.tsv", lines.as_bytes());
    let signed = tmp.path().join("signed");
    sign_shards("sets", &[&input], &signed, 2, &[]);
    let pairs = tmp.path().join("pairs/all.parquet");
    write_pairs(&pairs, &all_pairs(&signed));
    let verify = run(&[
        "verify",
        "--pairs",
        path_str(&pairs),
        "--docs",
        path_str(&signed),
        "-t",
        "0.5",
    ]);
    ok(&verify);
    let scan = run(&[
        "scan",
        "--input",
        "sets",
        path_str(&input),
        "--method",
        "exact",
        "-t",
        "0.5",
    ]);
    ok(&scan);
    let got = scored(&verify.stdout);
    assert_eq!(
        got.len(),
        15,
        "each record and its copy with one more token"
    );
    assert_eq!(got, scored(&scan.stdout));
}

/// Per-field signing with 1 and 2 threads writes the same; every pair as
/// the candidates is scored as `scan --per-field --method exact` scores it,
/// finding the same pairs.
#[test]
fn records_signed_per_field_verify_as_scan_scores_them() {
    let tmp = tempfile::tempdir().unwrap();
    let mut table = String::from("id,name,street,city\n");
    for i in 0..40u64 {
        let name = util::prose(i, 2);
        let street = util::prose(100 + i / 2, 3);
        let city = ["Springfield", "Shelbyville", ""][(i % 3) as usize];
        table.push_str(&format!("r{i},{name},{street},{city}\n"));
    }
    let input = write(tmp.path(), "t.csv", table.as_bytes());
    // Every field a candidate: then scan's exact join finds every pair
    // whose weighted mean reaches t (a mean ≥ t has a field ≥ t).
    let options = ["--per-field", "--weights", "2,1,1"];
    let (one, two) = (tmp.path().join("j1"), tmp.path().join("j2"));
    let mut j1 = options.to_vec();
    j1.extend(["-j", "1"]);
    let mut j2 = options.to_vec();
    j2.extend(["-j", "2"]);
    sign_shards("csv", &[&input], &one, 2, &j1);
    sign_shards("csv", &[&input], &two, 2, &j2);
    let (a, b) = (
        simfind::exchange::read_docs(&one).unwrap(),
        simfind::exchange::read_docs(&two).unwrap(),
    );
    assert_eq!(a.docs, b.docs);
    assert_eq!(a.signatures, b.signatures);
    assert_eq!(a.signature_len, 3 * 100, "three fields of 20 × 5 values");
    let pairs = tmp.path().join("pairs/all.parquet");
    write_pairs(&pairs, &all_pairs(&one));
    let verify = |j: &str| {
        run(&[
            "verify",
            "--pairs",
            path_str(&pairs),
            "--docs",
            path_str(&one),
            "-t",
            "0.3",
            "-j",
            j,
        ])
    };
    let got = verify("1");
    ok(&got);
    assert_eq!(got.stdout, verify("2").stdout);
    let mut scan = vec![
        "scan",
        "--input",
        "csv",
        path_str(&input),
        "--method",
        "exact",
        "-t",
        "0.3",
    ];
    scan.extend_from_slice(&options);
    let expected = run(&scan);
    ok(&expected);
    let rows = scored(&got.stdout);
    assert!(rows.len() >= 20, "the pairs on one street: {rows:?}");
    assert_eq!(rows, scored(&expected.stdout));
    // The per-field columns too (after the estimate and shingle columns).
    let fields = |bytes: &[u8]| -> Vec<Vec<String>> {
        crate::util::exchange::data_rows(bytes)
            .into_iter()
            .map(|r| r[7..].to_vec())
            .collect()
    };
    assert_eq!(fields(&got.stdout), fields(&expected.stdout));
}

#[test]
fn a_record_changed_after_signing_is_named_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let input = jsonl(tmp.path());
    let signed = tmp.path().join("signed");
    sign_shards("jsonl", &[&input], &signed, 2, &[]);
    let pairs = tmp.path().join("pairs/all.parquet");
    write_pairs(&pairs, &all_pairs(&signed));
    let verify = |threads: &str| {
        run(&[
            "verify",
            "--pairs",
            path_str(&pairs),
            "--docs",
            path_str(&signed),
            "-t",
            "0.3",
            "-j",
            threads,
        ])
    };
    let before = verify("2");
    ok(&before);
    // Line 1 (r0) gets another text of the same length (offsets unchanged);
    // line 2 (r0-near) another id.
    let text = std::fs::read_to_string(&input).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let at = lines[0].find("\"text\": \"").unwrap() + 9;
    let other = if &lines[0][at..at + 1] == "Z" {
        "Y"
    } else {
        "Z"
    };
    lines[0].replace_range(at..at + 1, other);
    lines[1] = lines[1].replacen("r0-near", "r0-xxxx", 1);
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let after = verify("1");
    assert_eq!(after.status.code(), Some(1), "{}", stderr(&after));
    let err = stderr(&after);
    let name = path_str(&input);
    assert!(
        err.contains(&format!("{name}:1:")) && err.contains("another text"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{name}:2:")) && err.contains("record 'r0-xxxx' there now"),
        "{err}"
    );
    // The other records' pairs are still verified.
    let kept: Vec<_> = scored(&before.stdout)
        .into_iter()
        .filter(|(a, b, _)| {
            !["r0", "r0-near"].contains(&a.as_str()) && !["r0", "r0-near"].contains(&b.as_str())
        })
        .collect();
    assert!(!kept.is_empty());
    assert_eq!(scored(&after.stdout), kept);
    assert_eq!(
        verify("2").stdout,
        after.stdout,
        "-j 1 and -j 2 write the same"
    );

    // A file gone: every record of it named by the file, nothing verified.
    std::fs::remove_file(&input).unwrap();
    let gone = verify("2");
    assert_eq!(gone.status.code(), Some(1), "{}", stderr(&gone));
    assert!(stderr(&gone).contains(name), "{}", stderr(&gone));
    assert_eq!(util::pair_paths(&gone.stdout).len(), 0);
}

#[test]
fn pairs_naming_unknown_record_ids_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let input = jsonl(tmp.path());
    let signed = tmp.path().join("signed");
    sign_shards("jsonl", &[&input], &signed, 1, &[]);
    let pairs = tmp.path().join("pairs/bad.parquet");
    write_pairs(&pairs, &[(0, 1), (0, 999)]);
    let out = tmp.path().join("out.csv");
    let verify = run(&[
        "verify",
        "--pairs",
        path_str(&pairs),
        "--docs",
        path_str(&signed),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(verify.status.code(), Some(2));
    assert!(
        stderr(&verify).contains("doc_id 999"),
        "{}",
        stderr(&verify)
    );
    assert!(!out.exists(), "no output file");
    // Files and records are both refused where they do not apply.
    let good = tmp.path().join("pairs/good.parquet");
    write_pairs(&good, &[(0, 1)]);
    let removable = run(&[
        "group",
        "--pairs",
        path_str(&good),
        "--docs",
        path_str(&signed),
        "--list-removable",
    ]);
    assert_eq!(removable.status.code(), Some(2));
    assert!(
        stderr(&removable).contains("records, not files"),
        "{}",
        stderr(&removable)
    );
}

#[test]
fn sign_refuses_what_it_cannot_do_with_records_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let input = jsonl(tmp.path());
    let csv = write(tmp.path(), "t.csv", b"id,name\n1,anna\n2,anne\n");
    let out = tmp.path().join("signed");
    for (args, needle) in [
        (
            vec![
                "--input",
                "csv",
                path_str(&csv),
                "--per-field",
                "--weights",
                "1,2",
            ],
            "--weights gives 2 weights for 1 fields",
        ),
        (
            vec![
                "--input",
                "csv",
                path_str(&csv),
                "--per-field",
                "--candidate-fields",
                "city",
            ],
            "--candidate-fields names 'city'",
        ),
        (
            vec!["--input", "sets", path_str(&input), "--per-field"],
            "--per-field does not apply",
        ),
        (vec!["--input", "jsonl", path_str(&input), "-"], "stdin"),
        (
            vec![
                "--input",
                "jsonl",
                path_str(&input),
                path_str(&input),
                "--link",
            ],
            "--link",
        ),
        (
            vec!["--input", "sets", path_str(&input), "-k", "3"],
            "whole tokens",
        ),
    ] {
        let mut full = vec!["sign", "--out", path_str(&out)];
        full.extend(args);
        let got = run(&full);
        assert_eq!(got.status.code(), Some(2), "{full:?}");
        assert!(stderr(&got).contains(needle), "{full:?}: {}", stderr(&got));
        assert!(!out.exists(), "{full:?} wrote {}", out.display());
    }
    // A bad row is named by file and line, before anything is written.
    let bad = write(
        tmp.path(),
        "bad.jsonl",
        b"{\"id\": \"a\", \"text\": \"x\"}\nnot json\n",
    );
    let got = run(&[
        "sign",
        "--out",
        path_str(&out),
        "--input",
        "jsonl",
        path_str(&bad),
    ]);
    assert_eq!(got.status.code(), Some(2));
    assert!(
        stderr(&got).contains(&format!("{}:2", path_str(&bad))),
        "{}",
        stderr(&got)
    );
    assert!(!out.exists());
}
