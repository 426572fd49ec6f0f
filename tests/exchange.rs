//! The exchange path (issue #17): `simfind sign` → Parquet → a band join in
//! Spark or DuckDB (spark/) → `simfind verify --pairs` / `group --pairs`,
//! checked against `simfind scan --method lsh` with the same recipe; the
//! files read by pyarrow, DuckDB and Spark; and the refusals of bad input.
//! Tests that need Python packages are ignored where `scripts/setup-engines.sh`
//! has not run (build.rs).

mod util;

#[path = "exchange/families.rs"]
mod families;
#[path = "exchange/records.rs"]
mod records;
#[path = "exchange/split.rs"]
mod split;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use simfind::exchange::{self, Shard};
use util::{prose, root, run, shared_data, simfind, stderr, write};

/// A corpus with near-copies, an identical copy, a short file, a binary
/// file and unrelated files, in nested directories.
fn corpus(dir: &Path) {
    for i in 0..12u64 {
        let text = prose(i, 300);
        write(dir, &format!("d{}/doc{i}.txt", i % 3), text.as_bytes());
        if i % 4 == 0 {
            // A near-copy: the same text with a few words changed at the end.
            let near = format!("{} lantern bridge candle", &text[..text.len() - 20]);
            write(dir, &format!("near/doc{i}-edited.txt"), near.as_bytes());
        }
    }
    write(dir, "copy/doc1.txt", prose(1, 300).as_bytes());
    write(dir, "short.txt", b"hi");
    write(dir, "blob.bin", b"\0\x01\x02binary");
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}\nstderr: {}",
        out.status,
        stderr(out)
    );
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn sign(roots: &[&Path], out: &Path, extra: &[&str]) -> Output {
    let mut cmd = simfind();
    cmd.arg("sign");
    cmd.args(roots).arg("--out").arg(out).args(extra);
    cmd.output().unwrap()
}

/// Writes a pairs Parquet file (`a`, `b`) as an engine would.
fn write_pairs(path: &Path, pairs: &[(i64, i64)]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from_iter_values(pairs.iter().map(|p| p.0))),
            Arc::new(Int64Array::from_iter_values(pairs.iter().map(|p| p.1))),
        ],
    )
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// The data rows of any CSV output (its header dropped unchecked: the
/// families' and per-field outputs have columns of their own).
fn data_rows(bytes: &[u8]) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .from_reader(bytes)
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

/// The (a, b) columns of every row.
fn ab(bytes: &[u8]) -> Vec<(String, String)> {
    data_rows(bytes)
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect()
}

/// Every pair of documents with a signature: candidates that leave the
/// decision wholly to verification.
fn all_pairs(signed: &Path) -> Vec<(i64, i64)> {
    let ex = exchange::read_docs(signed).unwrap();
    let ids: Vec<i64> = ex
        .docs
        .iter()
        .filter(|d| d.shingles > 0)
        .map(|d| d.doc_id)
        .collect();
    let mut pairs = Vec::new();
    for (i, &a) in ids.iter().enumerate() {
        for &b in &ids[i + 1..] {
            pairs.push((a, b));
        }
    }
    pairs
}

#[test]
fn shards_split_the_walk_into_disjoint_parts_of_one_numbering() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let whole = tmp.path().join("whole");
    ok(&sign(&[&files], &whole, &[]));
    let sharded = tmp.path().join("sharded");
    for i in 0..3 {
        ok(&sign(&[&files], &sharded, &["--shard", &format!("{i}/3")]));
    }
    let whole = exchange::read_docs(&whole).unwrap();
    let sharded = exchange::read_docs(&sharded).unwrap();
    // The binary file is left out, everything else once.
    assert_eq!(whole.docs.len(), 12 + 3 + 1 + 1);
    let paths = |ex: &exchange::Exchange| -> Vec<Vec<u8>> {
        ex.docs.iter().map(|d| d.path.clone()).collect()
    };
    assert_eq!(paths(&whole), paths(&sharded));
    let n = whole.params.n as usize;
    for (i, (a, b)) in whole.docs.iter().zip(&sharded.docs).enumerate() {
        assert_eq!((a.hash, a.shingles, a.size), (b.hash, b.shingles, b.size));
        if a.shingles > 0 {
            let row = |ex: &exchange::Exchange| ex.signatures[i * n..][..n].to_vec();
            assert_eq!(row(&whole), row(&sharded), "{:?}", a.path);
        }
        // Every shard holds some documents, and each id names its shard.
        let shard = (b.doc_id >> exchange::LOCAL_BITS) as u32;
        let relative = &b.path[files.as_os_str().len() + 1..];
        assert!(
            Shard {
                index: shard,
                count: 3
            }
            .holds(relative)
        );
    }
    for i in 0..3i64 {
        assert!(
            sharded.docs.iter().any(|d| d.doc_id >> 40 == i),
            "shard {i} empty"
        );
    }
    // The short file has a docs row and no signature.
    let short = whole
        .docs
        .iter()
        .find(|d| d.path.ends_with(b"short.txt"))
        .unwrap();
    assert_eq!(short.shingles, 0);
}

#[test]
fn signing_does_not_depend_on_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let (one, two) = (tmp.path().join("j1"), tmp.path().join("j2"));
    ok(&sign(&[&files], &one, &["-j", "1", "--shard", "1/2"]));
    ok(&sign(&[&files], &two, &["-j", "2", "--shard", "1/2"]));
    let (one, two) = (
        exchange::read_docs(&one).unwrap(),
        exchange::read_docs(&two).unwrap(),
    );
    assert_eq!(one.docs, two.docs);
    assert_eq!(one.signatures, two.signatures);
}

#[test]
fn verify_of_every_pair_gives_the_scan_pairs_and_group_its_groups() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let signed = tmp.path().join("signed");
    for i in 0..2 {
        ok(&sign(&[&files], &signed, &["--shard", &format!("{i}/2")]));
    }
    let pairs = tmp.path().join("engine/pairs/part-0.parquet");
    write_pairs(&pairs, &all_pairs(&signed));
    let pairs_dir = pairs.parent().unwrap();
    // The recipe sign used (its defaults), given in full: -t alone would
    // let tune choose another banding.
    let scan = |extra: &[&str]| {
        let mut args = vec![
            "scan",
            path_str(&files),
            "--method",
            "lsh",
            "-b",
            "20",
            "-r",
            "5",
            "-t",
            "0.8",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let verify = |cmd: &str, extra: &[&str]| {
        let mut args = vec![
            cmd,
            "--pairs",
            path_str(pairs_dir),
            "--docs",
            path_str(&signed),
            "-t",
            "0.8",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let (expected, got) = (scan(&[]), verify("verify", &[]));
    ok(&expected);
    ok(&got);
    assert_eq!(util::stdout(&got), util::stdout(&expected));
    // The three near-copies and the identical copy, nothing else: every
    // other pair of the corpus is near 0.55, far below 0.8.
    assert_eq!(util::pair_paths(&got.stdout).len(), 4);
    for format in [&["--format", "jsonl"][..], &["--format", "tsv"]] {
        assert_eq!(verify("verify", format).stdout, scan(format).stdout);
    }
    let grouped = verify("group", &["--keep", "newest"]);
    ok(&grouped);
    assert_eq!(
        grouped.stdout,
        scan(&["--format", "clusters", "--keep", "newest"]).stdout
    );
    assert_eq!(
        verify("group", &["--list-removable"]).stdout,
        scan(&["--list-removable"]).stdout
    );
    assert_eq!(
        verify("group", &["--format", "jsonl"]).stdout,
        scan(&["--format", "jsonl", "--cluster", "center"]).stdout
    );
}

/// The groups of an HTML report's data blob: each group's paths, in order.
fn html_groups(page: &str) -> Vec<Vec<String>> {
    let tag = r#"<script type="application/json" id="data">"#;
    let start = page.find(tag).expect("data blob") + tag.len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: serde_json::Value = serde_json::from_str(&page[start..end]).unwrap();
    data["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g.as_array()
                .unwrap()
                .iter()
                .map(|m| m["p"].as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

/// Regression (issue 33): `verify`/`group --format html` wrote nothing and
/// exited 2 ("the HTML report needs the run's facts"); the report is now
/// written with the groups `scan --format html` finds, at the removal
/// default (-t 0.9) unless -t is given.
#[test]
fn verify_and_group_write_the_html_report_of_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let signed = tmp.path().join("signed");
    ok(&sign(&[&files], &signed, &[]));
    let pairs = tmp.path().join("pairs.parquet");
    write_pairs(&pairs, &all_pairs(&signed));
    let report = tmp.path().join("report.html");
    let scanned = tmp.path().join("scan.html");
    for threshold in [None, Some("0.8")] {
        let t: Vec<&str> = threshold.map(|t| vec!["-t", t]).unwrap_or_default();
        let mut args = vec![
            "scan",
            path_str(&files),
            "--method",
            "lsh",
            "-b",
            "20",
            "-r",
            "5",
        ];
        // The removal default, given: -t alone would let tune choose a banding.
        args.extend(if t.is_empty() {
            vec!["-t", "0.9"]
        } else {
            t.clone()
        });
        args.extend(["--format", "html", "-o", path_str(&scanned)]);
        ok(&run(&args));
        let expected = html_groups(&std::fs::read_to_string(&scanned).unwrap());
        assert!(!expected.is_empty());
        for cmd in ["verify", "group"] {
            let _ = std::fs::remove_file(&report);
            let mut args = vec![
                cmd,
                "--pairs",
                path_str(&pairs),
                "--docs",
                path_str(&signed),
            ];
            args.extend(&t);
            args.extend(["--format", "html", "-o", path_str(&report)]);
            let out = run(&args);
            ok(&out);
            let page = std::fs::read_to_string(&report).unwrap();
            assert!(page.starts_with("<!DOCTYPE html>"));
            assert_eq!(html_groups(&page), expected, "{cmd} {t:?}");
            let t_value = threshold.map_or(0.9, |t| t.parse::<f64>().unwrap());
            let err = stderr(&out);
            assert!(
                err.contains(&format!("≥ {t_value:.3}")),
                "{cmd} {t:?}: {err}"
            );
        }
    }
}

#[test]
fn verify_with_one_and_two_threads_writes_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let signed = tmp.path().join("signed");
    ok(&sign(&[&files], &signed, &[]));
    let pairs = tmp.path().join("pairs.parquet");
    write_pairs(&pairs, &all_pairs(&signed));
    let verify = |j: &str| {
        run(&[
            "verify",
            "-j",
            j,
            "--pairs",
            path_str(&pairs),
            "--docs",
            path_str(&signed),
        ])
    };
    let (one, two) = (verify("1"), verify("2"));
    ok(&one);
    assert!(!one.stdout.is_empty());
    assert_eq!(one.stdout, two.stdout);
}

/// Runs `verify` with `-o` and checks it fails with status 2, a message
/// containing every one of `needles`, and no output file.
fn refused(pairs: &Path, signed: &Path, needles: &[&str]) {
    let out_file = signed.parent().unwrap().join("out.csv");
    let out = run(&[
        "verify",
        "--pairs",
        path_str(pairs),
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
fn bad_exchange_files_are_refused_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let signed = tmp.path().join("signed");
    ok(&sign(&[&files], &signed, &["--shard", "0/2"]));
    let pairs = tmp.path().join("pairs.parquet");
    write_pairs(&pairs, &all_pairs(&signed));

    // Pairs naming an id no docs file has.
    let bad_pairs = tmp.path().join("bad-pairs.parquet");
    write_pairs(&bad_pairs, &[(0, 99_999)]);
    refused(&bad_pairs, &signed, &["bad-pairs.parquet", "doc_id 99999"]);
    // A missing pairs directory.
    refused(&tmp.path().join("nowhere"), &signed, &["nowhere"]);

    // A shard of another recipe.
    ok(&sign(
        &[&files],
        &signed,
        &["--shard", "1/2", "--seed", "7"],
    ));
    refused(
        &pairs,
        &signed,
        &["shard-00001-of-00002.parquet", "another recipe", "seed"],
    );
    ok(&sign(&[&files], &signed, &["--shard", "1/2"]));

    // One shard's files copied under another name: every doc_id twice.
    let docs = signed.join("docs");
    for table in exchange::TABLES {
        let dir = signed.join(table);
        std::fs::copy(
            dir.join("shard-00000-of-00002.parquet"),
            dir.join("shard-00000-copy.parquet"),
        )
        .unwrap();
    }
    refused(&pairs, &signed, &["appears twice"]);
    for table in exchange::TABLES {
        std::fs::remove_file(signed.join(table).join("shard-00000-copy.parquet")).unwrap();
    }

    // A truncated docs file.
    let shard = docs.join("shard-00000-of-00002.parquet");
    let bytes = std::fs::read(&shard).unwrap();
    std::fs::write(&shard, &bytes[..bytes.len() - 10]).unwrap();
    refused(
        &pairs,
        &signed,
        &[
            "shard-00000-of-00002.parquet",
            "not a readable Parquet file",
        ],
    );
    // A missing one (its signatures still there).
    std::fs::remove_file(&shard).unwrap();
    refused(&pairs, &signed, &["different shards"]);
    // No docs at all.
    refused(&pairs, &tmp.path().join("files"), &["docs"]);
}

#[test]
fn sign_refuses_bad_arguments_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    for bad in ["3/3", "1/0", "x"] {
        let out = sign(&[&files], &tmp.path().join("o"), &["--shard", bad]);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains("--shard"), "{}", stderr(&out));
    }
    // An output inside a root would be signed by the next shard.
    let out = sign(&[&files], &files.join("sig"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("inside the root"), "{}", stderr(&out));
    assert!(!tmp.path().join("o").exists());
}

#[test]
fn index_export_writes_what_sign_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let db = tmp.path().join("i.simfind");
    ok(&run(&["index", path_str(&files), "--db", path_str(&db)]));
    let exported = tmp.path().join("exported");
    ok(&run(&[
        "index",
        "--db",
        path_str(&db),
        "--export",
        path_str(&exported),
    ]));
    let signed = tmp.path().join("signed");
    ok(&sign(&[&files], &signed, &[]));
    let (a, b) = (
        exchange::read_docs(&exported).unwrap(),
        exchange::read_docs(&signed).unwrap(),
    );
    assert_eq!(a.params, b.params);
    assert_eq!(a.docs.len(), b.docs.len());
    for (x, y) in a.docs.iter().zip(&b.docs) {
        assert_eq!(
            (&x.path, x.hash, x.shingles, x.size, x.doc_id),
            (&y.path, y.hash, y.shingles, y.size, y.doc_id)
        );
    }
    assert_eq!(a.signatures, b.signatures);
}

// ---- the engines ----

fn python() -> Command {
    Command::new(root().join("target/engines/venv/bin/python"))
}

fn script(name: &str) -> PathBuf {
    root().join("spark").join(name)
}

#[test]
#[cfg_attr(
    no_python_engines,
    ignore = "needs the Python engines: bash scripts/setup-engines.sh"
)]
fn pyarrow_and_duckdb_read_the_contract_unchanged() {
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
    let parts = split::check_split(&pairs, &joined.join("components"), &signed, 3);
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

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
#[cfg_attr(
    no_python_engines,
    ignore = "needs the Python engines: bash scripts/setup-engines.sh"
)]
fn duckdb_band_join_gives_exactly_the_scan_pairs_on_debian_docs() {
    let script = script("simfind_lsh_duckdb.py");
    whole_path_on_debian_docs(&[path_str(&script), "--memory-limit", "1GB", "--threads", "2"]);
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
#[cfg_attr(
    no_python_engines,
    ignore = "needs the Python engines: bash scripts/setup-engines.sh"
)]
fn spark_band_join_gives_exactly_the_scan_pairs_on_debian_docs() {
    let script = script("simfind_lsh.py");
    whole_path_on_debian_docs(&[
        path_str(&script),
        "--master",
        "local[2]",
        "--partitions",
        "4",
    ]);
}

#[test]
#[cfg_attr(
    no_python_engines,
    ignore = "needs the Python engines: bash scripts/setup-engines.sh"
)]
fn the_engines_refuse_shards_of_another_recipe() {
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
