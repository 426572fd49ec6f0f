//! The exchange path (issue #17): `simfind sign` → Parquet → a band join in
//! Spark or DuckDB (spark/) → `simfind verify --pairs` / `group --pairs`,
//! checked against `simfind scan --method lsh` with the same recipe; the
//! files read by pyarrow, DuckDB and Spark; and the refusals of bad input.
//! The tests that run an engine (Python, DuckDB, Spark) are in the `engines`
//! test binary (`tests/engines/exchange.rs`); the helpers both share are
//! `tests/util/exchange.rs`.

mod families;
mod records;
mod split;

use std::path::Path;

use crate::util::exchange::{
    all_pairs, corpus, estimated_pairs, ok, path_str, sign, write_estimated_pairs, write_pairs,
};
use crate::util::{self, run, stderr};
use simfind::exchange::{self, Shard};

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

/// The reliability review's N2.14: every Parquet file of `sign` and `index
/// --export` was mode 0600 whatever the umask, so an engine or a `verify` run
/// as another user (a Spark executor on a shared file system) could not read
/// the shards. They get 0666 less the umask, as a shell redirection would.
#[test]
fn parquet_files_get_the_umask_s_mode() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let db = tmp.path().join("i.simfind");
    ok(&run(&["index", path_str(&files), "--db", path_str(&db)]));
    let bin = env!("CARGO_BIN_EXE_simfind");
    for (umask, mode) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let signed = tmp.path().join(format!("signed-{umask}"));
        let exported = tmp.path().join(format!("exported-{umask}"));
        let script = format!(
            "umask {umask} && \"$0\" sign -q \"$1\" --out \"$2\" && \"$0\" index -q --db \"$3\" --export \"$4\""
        );
        let out = std::process::Command::new("sh")
            .args(["-c", &script, bin])
            .args([&files, &signed, &db, &exported])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let mut seen = 0;
        for top in [&signed, &exported] {
            for table in std::fs::read_dir(top).unwrap() {
                for file in std::fs::read_dir(table.unwrap().path()).unwrap() {
                    let file = file.unwrap().path();
                    let got = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
                    assert_eq!(got, mode, "{} under umask {umask}", file.display());
                    seen += 1;
                }
            }
        }
        assert!(seen >= 4, "{seen} Parquet files");
    }
}

/// N2.10: pairs joined from another signing run, with doc_ids in range, were
/// verified against these documents without a word. The band join's
/// `estimate` is the agreement of the signatures it joined: `verify` and
/// `group` refuse pairs whose estimate is not that of the signatures given,
/// and take an engine's own pairs as before.
#[test]
fn pairs_joined_from_another_signing_run_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let signed = tmp.path().join("signed");
    let other = tmp.path().join("other");
    ok(&sign(&[&files], &signed, &[]));
    ok(&sign(&[&files], &other, &["--seed", "7"]));

    let own = tmp.path().join("own/pairs/part-0.parquet");
    write_estimated_pairs(&own, &estimated_pairs(&signed));
    let plain = tmp.path().join("plain/pairs/part-0.parquet");
    write_pairs(&plain, &all_pairs(&signed));
    let with_estimate = run(&[
        "verify",
        "--pairs",
        path_str(&own),
        "--docs",
        path_str(&signed),
    ]);
    ok(&with_estimate);
    let without = run(&[
        "verify",
        "--pairs",
        path_str(&plain),
        "--docs",
        path_str(&signed),
    ]);
    ok(&without);
    assert_eq!(with_estimate.stdout, without.stdout);
    assert!(with_estimate.stdout.len() > 20, "some pairs verified");

    let foreign = tmp.path().join("foreign/pairs/part-0.parquet");
    let pairs = estimated_pairs(&other);
    write_estimated_pairs(&foreign, &pairs);
    for verb in ["verify", "group"] {
        let out = run(&[
            verb,
            "--pairs",
            path_str(&foreign),
            "--docs",
            path_str(&signed),
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{verb}: {err}");
        assert!(err.contains("part-0.parquet"), "{verb}: {err}");
        assert!(err.contains("another signing run"), "{verb}: {err}");
        assert!(out.stdout.is_empty(), "{verb}: no rows on a refusal");
    }
}
