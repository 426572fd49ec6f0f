//! `simfind scan --minhash oph` end to end: one-permutation hashing must find
//! the same near-duplicates as classic MinHash. With exact verification
//! precision is 1.0 by construction; OPH's estimate is unbiased with variance
//! close to classic MinHash's (src/sketch/oph.rs tests), so at 20 bands × 5 rows a pair
//! of similarity 0.8 still becomes a candidate with probability ≈ 0.9996 and the
//! recall bound of tests/recall.rs (≥ 0.98) applies unchanged.

use std::collections::HashSet;

use crate::util::*;

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn oph_recall_and_precision_on_debian_docs() {
    let files = shared_data("debian-docs").join("files");
    let prefix = format!("{}/", files.display());
    let out = run(&[
        "scan",
        files.to_str().unwrap(),
        "-q",
        "--minhash",
        "oph",
        "--threshold",
        "0.8",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let found: HashSet<(String, String)> = pair_paths(&out.stdout)
        .into_iter()
        .map(|(a, b)| (a[prefix.len()..].to_string(), b[prefix.len()..].to_string()))
        .collect();
    let mut reader =
        csv::Reader::from_path(shared_data("debian-docs").join("truth_char5.csv")).unwrap();
    let expected: HashSet<(String, String)> = reader
        .records()
        .map(|r| r.unwrap())
        .filter(|r| r[2].parse::<f64>().unwrap() >= 0.8)
        .map(|r| (r[0].to_string(), r[1].to_string()))
        .collect();
    assert!(expected.len() > 500, "truth file read");
    let true_positives = found.intersection(&expected).count();
    let recall = true_positives as f64 / expected.len() as f64;
    assert_eq!(
        true_positives,
        found.len(),
        "OPH scan reported a false positive"
    );
    assert!(recall >= 0.98, "recall {recall}");
}

#[test]
fn minhash_rejects_unknown_kernel() {
    let out = run(&["scan", "testdata", "--minhash", "fast"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--minhash"), "{}", stderr(&out));
}
