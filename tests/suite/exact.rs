//! The exact method (`scan --method exact`) and `simfind compare`, end to end.
//!
//! The exact join promises every pair with Jaccard ≥ t and nothing else, so
//! on the shared corpora its output must equal the ground truth restricted to
//! t — pair for pair, with the same similarity — not merely reach a recall.

use std::collections::BTreeMap;

use crate::util::*;

/// Truth rows with Jaccard ≥ t: (a, b) → Jaccard.
fn truth(corpus: &str, file: &str, threshold: f64) -> BTreeMap<(String, String), f64> {
    let mut reader = csv::Reader::from_path(shared_data(corpus).join(file)).expect("truth file");
    reader
        .records()
        .map(|r| r.unwrap())
        .map(|r| {
            (
                (r[0].to_string(), r[1].to_string()),
                r[2].parse::<f64>().unwrap(),
            )
        })
        .filter(|&(_, j)| j >= threshold)
        .collect()
}

/// Rows of `scan` output: (a, b) relative to `files/` → (similarity, shared).
type Found = BTreeMap<(String, String), (f64, String)>;

/// Runs `scan` on a shared corpus; returns its rows and its stderr.
fn scan(corpus: &str, args: &[&str]) -> (Found, String) {
    let files = shared_data(corpus).join("files");
    let prefix = format!("{}/", files.display());
    let mut all = vec!["scan", files.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = run(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let pairs = csv_rows(&out.stdout)
        .iter()
        .map(|r| {
            let s = |i: usize| String::from_utf8_lossy(&r[i]).into_owned();
            let key = (
                s(0)[prefix.len()..].to_string(),
                s(1)[prefix.len()..].to_string(),
            );
            (key, (s(2).parse::<f64>().unwrap(), s(6)))
        })
        .collect();
    (pairs, stderr(&out))
}

fn exact_matches_truth(threshold: &str) {
    let t: f64 = threshold.parse().unwrap();
    let expected = truth("debian-docs", "truth_char5.csv", t);
    assert!(expected.len() > 500, "truth file read");
    let (found, summary) = scan("debian-docs", &["--method", "exact", "-t", threshold]);
    assert!(summary.contains("method exact (as requested)"), "{summary}");
    let missing: Vec<_> = expected
        .keys()
        .filter(|k| !found.contains_key(*k))
        .take(5)
        .collect();
    let extra: Vec<_> = found
        .keys()
        .filter(|k| !expected.contains_key(*k))
        .take(5)
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, extra {extra:?}"
    );
    for (pair, &j) in &expected {
        let (similarity, shared) = &found[pair];
        // Six decimals in the CSV: within half a unit of the last place.
        assert!(
            (similarity - j).abs() <= 5e-7,
            "{pair:?}: {similarity} vs {j}"
        );
        assert!(!shared.is_empty(), "exact pairs report their intersection");
    }
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn exact_method_reproduces_debian_truth_at_0_8() {
    exact_matches_truth("0.8");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn exact_method_reproduces_debian_truth_at_0_9() {
    exact_matches_truth("0.9");
}

#[test]
fn exact_and_lsh_write_the_same_schema_and_agree_on_testdata() {
    let exact = run(&["scan", "testdata", "-q", "-t", "0.5", "--method", "exact"]);
    let lsh = run(&["scan", "testdata", "-q", "-t", "0.5", "--method", "lsh"]);
    assert_eq!(exact.status.code(), Some(0), "{}", stderr(&exact));
    assert_eq!(lsh.status.code(), Some(0), "{}", stderr(&lsh));
    // csv_rows checks the header, so both have the one schema.
    let (exact, lsh) = (csv_rows(&exact.stdout), csv_rows(&lsh.stdout));
    assert!(!exact.is_empty());
    // Exact finds everything LSH finds (LSH verifies exactly: no false
    // positives), with identical columns but the MinHash estimate, which the
    // exact method leaves empty.
    let strip = |r: &csv::ByteRecord| -> Vec<Vec<u8>> {
        [0, 1, 2, 4, 5, 6].iter().map(|&i| r[i].to_vec()).collect()
    };
    let exact_rows: Vec<_> = exact.iter().map(strip).collect();
    for row in lsh.iter().map(strip) {
        assert!(exact_rows.contains(&row), "{row:?}");
    }
    assert!(exact.iter().all(|r| r[3].is_empty()));
}

#[test]
fn exact_method_pairs_identical_files_and_short_ones_only_as_copies() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(7, 300);
    write(dir.path(), "a.txt", text.as_bytes());
    write(dir.path(), "b.txt", text.as_bytes());
    write(
        dir.path(),
        "c.txt",
        format!("{text} and one more ending").as_bytes(),
    );
    write(dir.path(), "d.txt", prose(8, 300).as_bytes());
    write(dir.path(), "e.txt", b"tiny");
    write(dir.path(), "f.txt", b"tiny");
    let out = run(&[
        "scan",
        dir.path().to_str().unwrap(),
        "--method",
        "exact",
        "-t",
        "0.9",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let names: Vec<(String, String)> = pair_paths(&out.stdout)
        .into_iter()
        .map(|(a, b)| (a[a.len() - 5..].to_string(), b[b.len() - 5..].to_string()))
        .collect();
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        names,
        vec![
            pair("a.txt", "b.txt"),
            pair("a.txt", "c.txt"),
            pair("b.txt", "c.txt"),
            pair("e.txt", "f.txt")
        ]
    );
    assert!(
        // a/b and e/f are identical contents; e and f, too short to shingle,
        // pair as byte-identical files.
        stderr(&out).contains("2 identical files"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn auto_says_which_method_it_chose_and_why() {
    // A small corpus: the join's sets fit in the memory LSH would need, and
    // at a low threshold it is the cheaper method (LSH's candidates multiply).
    let out = run(&["scan", "testdata", "-t", "0.3"]);
    assert_eq!(out.status.code(), Some(0));
    let summary = stderr(&out);
    assert!(
        summary.contains("method auto: exact (cost model"),
        "{summary}"
    );
    // At a high one, signing and verifying a few candidates costs less.
    let out = run(&["scan", "testdata", "-t", "0.95"]);
    assert!(
        stderr(&out).contains("method auto: lsh (cost model"),
        "{}",
        stderr(&out)
    );
    // A banding given by the user is only meaningful to LSH — when it meets
    // --min-recall (30 × 2 finds a pair at 0.3 with probability 0.94; issue #21:
    // below the floor, auto's cost model decides, see tests/curve_tune.rs).
    let out = run(&[
        "scan",
        "testdata",
        "-t",
        "0.3",
        "-b",
        "30",
        "-r",
        "2",
        "--min-recall",
        "0.9",
    ]);
    assert!(
        stderr(&out).contains("method auto: lsh (--bands/--rows given)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn exact_method_rejects_signature_verification() {
    let out = run(&[
        "scan",
        "testdata",
        "--method",
        "exact",
        "--verify",
        "signature",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--verify signature applies to LSH only"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

fn compare(a: &str, b: &str, extra: &[&str]) -> BTreeMap<String, String> {
    let mut args = vec!["compare", a, b];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    assert_eq!(reader.headers().unwrap(), vec!["measure", "value"]);
    reader
        .records()
        .map(|r| r.unwrap())
        .map(|r| (r[0].to_string(), r[1].to_string()))
        .collect()
}

#[test]
fn compare_reports_every_measure_consistently_with_scan() {
    let dir = tempfile::tempdir().unwrap();
    // MMDS 3.5.5's example, as whole files: with k = 1 the shingles are the
    // characters, so every measure can be worked out by hand.
    let a = write(dir.path(), "a", b"abcde");
    let b = write(dir.path(), "b", b"acfdeg");
    let m = compare(a.to_str().unwrap(), b.to_str().unwrap(), &["-k", "1"]);
    let expected = [
        ("shingles_a", "5"),
        ("shingles_b", "6"),
        ("shared", "4"),
        ("jaccard", "0.571429"),
        ("jaccard_distance", "0.428571"),
        ("cosine", "0.730297"),
        ("angle_degrees", "43.088723"),
        ("euclidean", "1.732051"),
        ("manhattan", "3"),
        ("linf", "1"),
        ("hamming", "3"),
        ("chars_a", "5"),
        ("chars_b", "6"),
        ("edit_distance", "3"),
        ("levenshtein", "3"),
    ];
    for (measure, value) in expected {
        assert_eq!(m[measure], value, "{measure}");
    }
    let estimate: f64 = m["minhash_estimate"].parse().unwrap();
    // 100 hashes; the estimate's standard deviation at J = 4/7 is 0.05.
    assert!((estimate - 4.0 / 7.0).abs() < 0.2, "{estimate}");
    assert_eq!(m.len(), 19);
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn compare_agrees_with_scan_on_a_real_pair() {
    let files = shared_data("debian-docs").join("files");
    let (a, b) = (
        files.join("common-licenses/BSD.txt"),
        files.join("copyright/libedit2.txt"),
    );
    let m = compare(a.to_str().unwrap(), b.to_str().unwrap(), &[]);
    let truth = truth("debian-docs", "truth_char5.csv", 0.5);
    let j = truth[&(
        "common-licenses/BSD.txt".to_string(),
        "copyright/libedit2.txt".to_string(),
    )];
    assert_eq!(m["jaccard"], format!("{j:.6}"));
    let (one, two): (f64, f64) = (
        m["jaccard"].parse().unwrap(),
        m["jaccard_distance"].parse().unwrap(),
    );
    assert!((one + two - 1.0).abs() < 2e-6);
}

#[test]
fn compare_leaves_undefined_and_over_limit_values_empty() {
    let dir = tempfile::tempdir().unwrap();
    let short = write(dir.path(), "short", b"ab");
    let long = write(dir.path(), "long", prose(1, 200).as_bytes());
    let m = compare(short.to_str().unwrap(), short.to_str().unwrap(), &[]);
    assert_eq!((m["jaccard"].as_str(), m["cosine"].as_str()), ("", ""));
    assert_eq!(m["edit_distance"], "0");
    let m = compare(
        short.to_str().unwrap(),
        long.to_str().unwrap(),
        &["--max-edit-cells", "10"],
    );
    assert_eq!(m["jaccard"], "0.000000");
    assert_eq!(
        (m["edit_distance"].as_str(), m["levenshtein"].as_str()),
        ("", "")
    );
}

#[test]
fn compare_fails_on_a_missing_file() {
    let out = run(&["compare", "testdata", "/nonexistent/simfind-test"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
