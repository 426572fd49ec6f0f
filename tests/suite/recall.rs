//! Recall and precision of `simfind scan` against the exact ground truth in
//! `../shared/data` (every pair with Jaccard ≥ 0.5 under the same shingle
//! definition as simfind's defaults).
//!
//! With 20 bands × 5 rows the S-curve gives a pair of similarity 0.8 a
//! probability 0.9996 of becoming a candidate, so the expected recall at
//! t = 0.8 is above 0.999; the issue asks for ≥ 0.98. Exact verification must
//! make precision exactly 1.0.

use std::collections::HashSet;

use crate::util::*;

fn truth(corpus: &str, file: &str, threshold: f64) -> HashSet<(String, String)> {
    let mut reader = csv::Reader::from_path(shared_data(corpus).join(file)).expect("truth file");
    reader
        .records()
        .map(|r| r.unwrap())
        .filter(|r| r[2].parse::<f64>().unwrap() >= threshold)
        .map(|r| (r[0].to_string(), r[1].to_string()))
        .collect()
}

fn check(corpus: &str, shingle: &str, k: &str, truth_file: &str) {
    let files = shared_data(corpus).join("files");
    let prefix = format!("{}/", files.display());
    let out = run(&[
        "scan",
        files.to_str().unwrap(),
        "-q",
        "--shingle",
        shingle,
        "--k",
        k,
        "--bands",
        "20",
        "--rows",
        "5",
        "--threshold",
        "0.8",
        // LSH's recall is what is measured here; auto might pick the exact join.
        "--method",
        "lsh",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let found: HashSet<(String, String)> = pair_paths(&out.stdout)
        .into_iter()
        .map(|(a, b)| (a[prefix.len()..].to_string(), b[prefix.len()..].to_string()))
        .collect();
    let expected = truth(corpus, truth_file, 0.8);
    let true_positives = found.intersection(&expected).count();
    let precision = true_positives as f64 / found.len() as f64;
    let recall = true_positives as f64 / expected.len() as f64;
    eprintln!(
        "{corpus} {shingle}{k}: {} found, {} true, precision {precision:.4}, recall {recall:.4}",
        found.len(),
        expected.len()
    );
    assert!(expected.len() > 500, "truth file read");
    assert_eq!(
        precision,
        1.0,
        "{:?}",
        found.difference(&expected).take(5).collect::<Vec<_>>()
    );
    assert!(recall >= 0.98, "recall {recall}");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn debian_docs_char5() {
    check("debian-docs", "char", "5", "truth_char5.csv");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn debian_docs_word3() {
    check("debian-docs", "word", "3", "truth_word3.csv");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn django_docs_char5() {
    check("django-docs", "char", "5", "truth_char5.csv");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn django_docs_word3() {
    check("django-docs", "word", "3", "truth_word3.csv");
}

/// Issue #21: with `--threshold` alone (bands, rows and method left to scan),
/// every pair ≥ T is found: recall ≥ 0.999 and precision 1.0 against the
/// exact truth, for char 5- and word 3-shingles at T = 0.5, 0.7, 0.8, 0.9.
/// Before, 14 × 7 at 0.8 reached 0.995 on debian-docs.
fn check_defaults(corpus: &str, shingle: &str, k: &str, truth_file: &str) {
    let files = shared_data(corpus).join("files");
    let prefix = format!("{}/", files.display());
    for t in ["0.5", "0.7", "0.8", "0.9"] {
        let out = run(&[
            "scan",
            files.to_str().unwrap(),
            "--shingle",
            shingle,
            "--k",
            k,
            "-t",
            t,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let found: HashSet<(String, String)> = pair_paths(&out.stdout)
            .into_iter()
            .map(|(a, b)| (a[prefix.len()..].to_string(), b[prefix.len()..].to_string()))
            .collect();
        let expected = truth(corpus, truth_file, t.parse().unwrap());
        let true_positives = found.intersection(&expected).count();
        let precision = true_positives as f64 / found.len().max(1) as f64;
        let recall = true_positives as f64 / expected.len() as f64;
        let summary = stderr(&out);
        eprintln!(
            "{corpus} {shingle}{k} t={t}: {} found, {} true, precision {precision:.4}, recall {recall:.4}\n{summary}",
            found.len(),
            expected.len()
        );
        assert!(expected.len() > 500, "truth file read");
        assert_eq!(precision, 1.0, "t={t}");
        assert!(recall >= 0.999, "t={t}: recall {recall}");
        if summary.contains("chosen by tune") {
            assert!(
                summary.contains("is found with probability ≥ 0.999"),
                "{summary}"
            );
        }
    }
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn defaults_find_every_pair_debian_docs_char5() {
    check_defaults("debian-docs", "char", "5", "truth_char5.csv");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn defaults_find_every_pair_debian_docs_word3() {
    check_defaults("debian-docs", "word", "3", "truth_word3.csv");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn defaults_find_every_pair_django_docs_char5() {
    check_defaults("django-docs", "char", "5", "truth_char5.csv");
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn defaults_find_every_pair_django_docs_word3() {
    check_defaults("django-docs", "word", "3", "truth_word3.csv");
}
