//! Records (`sign --input csv`) through the DuckDB and Spark band joins.

use crate::util::exchange::{ab, ok, path_str, python, script, sign_shards};
use crate::util::{self, run, stderr, stdout};

/// bench/gen_records.py's people (fixed seed) signed in each of `shards`
/// shard counts with `options` (the record options given to both sign and
/// scan), joined by `engine`: exactly the pairs and groups of `scan --input
/// csv --method lsh` with the same recipe, byte for byte.
fn people_through_an_engine(engine: &[&str], shards: &[u32], options: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let generated = tmp.path().join("gen");
    ok(&python()
        .arg(util::root().join("bench/gen_records.py"))
        .arg(&generated)
        .args(["--people", "2000", "--seed", "11"])
        .output()
        .unwrap());
    let people = generated.join("people.csv");
    let mut recipe = vec!["-b", "20", "-r", "5", "--seed", "42"];
    recipe.extend_from_slice(options);
    let mut scan = vec![
        "scan",
        "--input",
        "csv",
        path_str(&people),
        "--method",
        "lsh",
    ];
    scan.extend_from_slice(&recipe);
    let expected = run(&scan);
    ok(&expected);
    assert!(ab(&expected.stdout).len() > 500, "{}", stderr(&expected));
    let mut clusters = scan.clone();
    clusters.extend_from_slice(&["--format", "clusters", "--cluster", "connected"]);
    let expected_groups = run(&clusters);
    ok(&expected_groups);
    for &shards in shards {
        let signed = tmp.path().join(format!("signed{shards}"));
        sign_shards("csv", &[&people], &signed, shards, &recipe);
        let joined = tmp.path().join(format!("joined{shards}"));
        ok(&python()
            .args(engine)
            .arg(&signed)
            .arg(&joined)
            .arg("--exact-pairs")
            .output()
            .unwrap());
        let pairs = joined.join("pairs");
        let verify = run(&[
            "verify",
            "--pairs",
            path_str(&pairs),
            "--docs",
            path_str(&signed),
        ]);
        ok(&verify);
        assert_eq!(stdout(&verify), stdout(&expected), "{shards} shards");
        let group = run(&[
            "group",
            "--pairs",
            path_str(&pairs),
            "--docs",
            path_str(&signed),
            "--cluster",
            "connected",
        ]);
        ok(&group);
        assert_eq!(group.stdout, expected_groups.stdout, "{shards} shards");
    }
}

fn duckdb() -> [String; 5] {
    [
        path_str(&script("simfind_lsh_duckdb.py")).to_string(),
        "--threads".into(),
        "2".into(),
        "--memory-limit".into(),
        "1GB".into(),
    ]
}

pub(crate) fn duckdb_band_join_of_signed_records_gives_exactly_the_scan_pairs() {
    let engine = duckdb();
    let engine: Vec<&str> = engine.iter().map(String::as_str).collect();
    people_through_an_engine(&engine, &[2, 3], &[]);
}

/// Records signed per field, weighted, with two fields left out of the
/// candidates: the bands of the others, verified by the same weighted score
/// (its per-field columns included).
pub(crate) fn duckdb_band_join_of_records_signed_per_field_gives_exactly_the_scan_pairs() {
    let engine = duckdb();
    let engine: Vec<&str> = engine.iter().map(String::as_str).collect();
    let options = [
        "--per-field",
        "--weights",
        "3,3,2,1,1",
        "--candidate-fields",
        "first,last,street",
    ];
    people_through_an_engine(&engine, &[3], &options);
}

/// The Spark job on records (one local session, 2 cores, 4 partitions).
pub(crate) fn spark_band_join_of_signed_records_gives_exactly_the_scan_pairs() {
    let script = script("simfind_lsh.py");
    let engine = [
        path_str(&script),
        "--master",
        "local[2]",
        "--partitions",
        "4",
    ];
    people_through_an_engine(&engine, &[2], &[]);
}
