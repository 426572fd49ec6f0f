//! The exchange path through the engines (spark/): pyarrow and DuckDB read
//! what `simfind sign` writes, the DuckDB and Spark band joins give exactly
//! the pairs and groups of `simfind scan`, and the engines refuse shards that
//! do not belong together. What needs no engine is `tests/suite/exchange.rs`.

pub(crate) mod families;
pub(crate) mod records;

use std::path::Path;

use crate::util::exchange::{check_split, corpus, ok, path_str, python, script, sign};
use crate::util::{self, run, shared_data, stderr};

pub(crate) fn pyarrow_and_duckdb_read_the_contract_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let signed = tmp.path().join("signed");
    ok(&sign(
        &[&files],
        &signed,
        &["--shard", "0/1", "-b", "4", "-r", "3"],
    ));
    let code = r#"
import sys, json, pyarrow.parquet as pq, duckdb
d = sys.argv[1]
out = {}
for t in ("docs", "signatures", "bands"):
    f = pq.ParquetFile(f"{d}/{t}/shard-00000-of-00001.parquet")
    out[t] = {
        "types": {fld.name: str(fld.type) for fld in f.schema_arrow},
        "rows": f.metadata.num_rows,
        "meta": {k.decode(): v.decode() for k, v in f.metadata.metadata.items() if k.startswith(b"simfind.")},
    }
docs = pq.read_table(f"{d}/docs").to_pylist()
out["paths"] = sorted(r["path"].decode() for r in docs)
out["short"] = [r["shingles"] for r in docs if r["path"].endswith(b"short.txt")]
con = duckdb.connect()
out["duck_bands"] = con.execute(f"SELECT count(*), count(DISTINCT doc_id), min(band), max(band) FROM read_parquet('{d}/bands/*.parquet')").fetchone()
out["duck_types"] = [r[1] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{d}/docs/*.parquet')").fetchall()]
out["duck_sig_len"] = con.execute(f"SELECT min(len(signature)), max(len(signature)) FROM read_parquet('{d}/signatures/*.parquet')").fetchone()
print(json.dumps(out))
"#;
    let out = python().arg("-c").arg(code).arg(&signed).output().unwrap();
    ok(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let types = &v["docs"]["types"];
    assert_eq!(types["doc_id"], "int64");
    assert_eq!(types["path"], "binary");
    assert_eq!(types["size"], "int64");
    assert_eq!(types["mtime"], "timestamp[us, tz=UTC]");
    assert_eq!(types["content_hash"], "binary");
    assert_eq!(types["shingles"], "int64");
    assert_eq!(
        v["signatures"]["types"]["signature"],
        "list<item: int32 not null>"
    );
    assert_eq!(v["bands"]["types"]["band"], "int16");
    assert_eq!(v["bands"]["types"]["key"], "int64");
    // 17 documents (no binary file), 16 with a signature, 4 bands each.
    assert_eq!(v["docs"]["rows"], 17);
    assert_eq!(v["signatures"]["rows"], 16);
    assert_eq!(v["bands"]["rows"], 64);
    assert_eq!(v["short"], serde_json::json!([0]));
    for t in ["docs", "signatures", "bands"] {
        let meta = &v[t]["meta"];
        assert_eq!(meta["simfind.table"], t);
        assert_eq!(meta["simfind.recipe.bands"], "4");
        assert_eq!(meta["simfind.recipe.rows"], "3");
        assert_eq!(meta["simfind.recipe.seed"], "42");
        assert_eq!(meta["simfind.recipe.shingle_kind"], "char");
        assert_eq!(meta["simfind.shard"], "0/1");
    }
    let mut expected: Vec<String> = walk(&files)
        .into_iter()
        .filter(|p| !p.ends_with("blob.bin"))
        .collect();
    expected.sort();
    assert_eq!(v["paths"], serde_json::json!(expected));
    assert_eq!(v["duck_bands"], serde_json::json!([64, 16, 0, 3]));
    assert_eq!(
        v["duck_types"],
        serde_json::json!([
            "BIGINT",
            "BLOB",
            "BIGINT",
            "TIMESTAMP WITH TIME ZONE",
            "BLOB",
            "BIGINT"
        ])
    );
    assert_eq!(v["duck_sig_len"], serde_json::json!([12, 12]));
}

/// Every file under `dir`, as the paths sign writes (root as given + relative).
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path.to_str().unwrap().to_string());
        }
    }
    out
}

/// debian-docs signed in 4 shards, joined by `engine`, verified and grouped:
/// exactly the pairs and groups of `scan --method lsh` with the same recipe.
fn whole_path_on_debian_docs(engine: &[&str]) {
    let corpus = shared_data("debian-docs/files");
    let corpus = corpus.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let signed = tmp.path().join("signed");
    let recipe = ["-b", "20", "-r", "5", "--seed", "42"];
    for i in 0..4 {
        let shard = format!("{i}/4");
        let mut args = vec![
            "sign",
            corpus,
            "--out",
            path_str(&signed),
            "--shard",
            &shard,
        ];
        args.extend_from_slice(&recipe);
        ok(&run(&args));
    }
    let joined = tmp.path().join("joined");
    let out = python()
        .args(engine)
        .arg(&signed)
        .arg(&joined)
        .arg("--exact-pairs")
        .output()
        .unwrap();
    ok(&out);
    let mut scan = vec!["scan", corpus, "--method", "lsh"];
    scan.extend_from_slice(&recipe);
    let expected = run(&scan);
    ok(&expected);
    let pairs = joined.join("pairs");
    let verify = run(&[
        "verify",
        "--pairs",
        path_str(&pairs),
        "--docs",
        path_str(&signed),
    ]);
    ok(&verify);
    let rows = util::pair_paths(&verify.stdout).len();
    assert!(rows > 1000, "{rows} pairs: the corpus has thousands");
    assert_eq!(util::stdout(&verify), util::stdout(&expected));
    let parts = check_split(&pairs, &joined.join("components"), &signed, 3);
    assert_eq!(parts, 3, "thousands of components over 3 parts");
    let mut clusters = scan.clone();
    clusters.extend_from_slice(&["--format", "clusters", "--cluster", "connected"]);
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
    assert_eq!(group.stdout, run(&clusters).stdout);
    // The engine's components are the connected components of its pairs:
    // every pair inside one component, labelled by its smallest doc_id.
    let check = r#"
import sys, pyarrow.parquet as pq
pairs = pq.read_table(sys.argv[1]).to_pylist()
comp = {r["doc_id"]: r["component"] for r in pq.read_table(sys.argv[2]).to_pylist()}
assert all(p["a"] < p["b"] for p in pairs)
assert all(comp[p["a"]] == comp[p["b"]] for p in pairs), "a pair across components"
assert all(c <= d and comp[c] == c for d, c in comp.items()), "label not the minimum"
assert len(comp) == len({x for p in pairs for x in (p["a"], p["b"])})
print(len(pairs), len(set(comp.values())))
"#;
    let out = python()
        .arg("-c")
        .arg(check)
        .arg(&pairs)
        .arg(joined.join("components"))
        .output()
        .unwrap();
    ok(&out);
}

pub(crate) fn duckdb_band_join_gives_exactly_the_scan_pairs_on_debian_docs() {
    let script = script("simfind_lsh_duckdb.py");
    whole_path_on_debian_docs(&[path_str(&script), "--memory-limit", "1GB", "--threads", "2"]);
}

pub(crate) fn spark_band_join_gives_exactly_the_scan_pairs_on_debian_docs() {
    let script = script("simfind_lsh.py");
    whole_path_on_debian_docs(&[
        path_str(&script),
        "--master",
        "local[2]",
        "--partitions",
        "4",
    ]);
}

pub(crate) fn the_engines_refuse_shards_of_another_recipe() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let signed = tmp.path().join("signed");
    ok(&sign(&[&files], &signed, &["--shard", "0/2"]));
    ok(&sign(&[&files], &signed, &["--shard", "1/2", "-k", "4"]));
    let out = python()
        .arg(script("simfind_lsh_duckdb.py"))
        .arg(&signed)
        .arg(tmp.path().join("joined"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("another recipe") && err.contains("simfind.recipe.k"),
        "{err}"
    );
    assert!(!tmp.path().join("joined").exists());
}
