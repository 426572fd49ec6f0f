//! Points (`sign --input vectors|bits`) through DuckDB's band join, and
//! the engines' refusal of points mixed with files.

use std::path::Path;

use crate::util::exchange::{
    ab, bit_strings, ok, path_str, python, script, sign, sign_points, vectors,
};
use crate::util::{self, run, stderr, stdout, write};

/// Signed in 2 and 3 shards, joined by DuckDB, verified and grouped: byte
/// for byte the pairs and groups of `scan --input KIND` with the same query
/// (cosine, Euclidean and Hamming).
pub(crate) fn duckdb_band_join_of_signed_points_gives_exactly_the_scan_pairs() {
    let tmp = tempfile::tempdir().unwrap();
    let points = vectors(tmp.path());
    let bits = bit_strings(tmp.path());
    let cases: [(&str, &Path, &[&str], usize); 3] = [
        ("vectors", &points, &["-t", "0.98"], 60),
        (
            "vectors",
            &points,
            &["--metric", "euclidean", "--radius", "0.15"],
            60,
        ),
        ("bits", &bits, &["--radius", "4"], 50),
    ];
    for (kind, input, query, at_least) in cases {
        let mut scan = vec!["scan", "--input", kind, path_str(input)];
        scan.extend_from_slice(query);
        let expected = run(&scan);
        ok(&expected);
        let found = ab(&expected.stdout).len();
        assert!(found >= at_least, "{query:?}: {found} pairs");
        let mut clusters = scan.clone();
        clusters.extend_from_slice(&["--format", "clusters", "--cluster", "connected"]);
        let expected_groups = run(&clusters);
        ok(&expected_groups);
        for shards in [2, 3] {
            let name = format!("{kind}{}{shards}", query.len());
            let signed = tmp.path().join(format!("signed-{name}"));
            sign_points(kind, input, &signed, shards, query);
            let joined = tmp.path().join(format!("joined-{name}"));
            ok(&python()
                .arg(script("simfind_lsh_duckdb.py"))
                .arg(&signed)
                .arg(&joined)
                .args(["--exact-pairs", "--threads", "2", "--memory-limit", "1GB"])
                .output()
                .unwrap());
            let pairs = joined.join("pairs");
            let verify = |cmd: &str, extra: &[&str]| {
                let mut args = vec![
                    cmd,
                    "--pairs",
                    path_str(&pairs),
                    "--docs",
                    path_str(&signed),
                ];
                args.extend_from_slice(extra);
                run(&args)
            };
            let verified = verify("verify", &[]);
            ok(&verified);
            assert_eq!(stdout(&verified), stdout(&expected), "{query:?}, {shards}");
            let grouped = verify("group", &["--cluster", "connected"]);
            ok(&grouped);
            assert_eq!(
                grouped.stdout, expected_groups.stdout,
                "{query:?}, {shards}"
            );
        }
    }
}

/// The engine scripts refuse the same mixes, by the metadata they compare
/// beside the recipe (`simfind.key`, `simfind.family.*`, …).
pub(crate) fn the_engines_refuse_points_mixed_with_files() {
    let tmp = tempfile::tempdir().unwrap();
    let points = vectors(tmp.path());
    let files = tmp.path().join("files");
    write(&files, "a.txt", util::prose(1, 200).as_bytes());
    let signed = tmp.path().join("signed");
    let shard = ["--shard", "0/2", "-b", "20", "-r", "5"];
    let mut first = vec!["--input", "vectors", "-t", "0.9"];
    first.extend_from_slice(&shard);
    ok(&sign(&[&points], &signed, &first));
    ok(&sign(&[&files], &signed, &["--shard", "1/2"]));
    let out = python()
        .arg(script("simfind_lsh_duckdb.py"))
        .arg(&signed)
        .arg(tmp.path().join("joined"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("another recipe or input")
            && err.contains("simfind.key")
            && err.contains("simfind.family.metric"),
        "{err}"
    );
    assert!(!tmp.path().join("joined").exists());
}
