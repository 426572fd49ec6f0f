//! Issue 15 item 5, "the index in cron", through the real binary: `scan --db`
//! and `index` adopt the index's recipe, `index --help` offers only what index
//! takes, `--add`/`--remove` of single documents, and `query --exact`/`--top`.

use super::*;
use crate::util;

/// Issue 15.5: `index DIR --db F` then `scan DIR --db F -t 0.8` failed with a
/// parameter mismatch; the index's recipe now stands for every option not given.
#[test]
fn scan_and_index_adopt_the_recipe_of_an_existing_index() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let roots = [a.as_path(), b.as_path()];
    let db = dir.path().join("index.simfind");
    let opts = [
        "--shingle",
        "word",
        "-k",
        "4",
        "--bands",
        "16",
        "--rows",
        "6",
        "--seed",
        "7",
        "--minhash",
        "oph",
        "--keep-case",
        "--binary",
    ];
    index(&roots, &db, &opts);
    // index again with no option: the index's, nothing re-signed.
    let err = index(&roots, &db, &[]);
    assert!(err.contains("0 signed"), "{err}");
    // --threshold alone: the index's bands and rows, not tune's, and said so.
    let (out, err) = db_scan(&roots, &db, &["--threshold", "0.3"]);
    assert_eq!(
        out,
        fresh_scan(&roots, &[&opts[..], &["--threshold", "0.3"]].concat())
    );
    assert!(err.contains("16×6 from the index"), "{err}");
    // No option at all: the S-curve threshold of the index's banding.
    let (out, _) = db_scan(&roots, &db, &[]);
    assert_eq!(out, fresh_scan(&roots, &opts));
    // Options given that agree with the index are fine.
    let (out, _) = db_scan(&roots, &db, &["--seed", "7", "-b", "16"]);
    assert_eq!(out, fresh_scan(&roots, &opts));
    // One that disagrees is an error naming both values; the index is untouched.
    let before = std::fs::read(&db).unwrap();
    for (extra, names) in [
        (
            &["--seed", "8"][..],
            "seed: index has 7, this run asks for 8",
        ),
        (
            &["--shingle", "char"],
            "shingle_kind: index has word, this run asks for char",
        ),
        (
            &["--minhash", "classic"],
            "minhash: index has oph, this run asks for classic",
        ),
        (&["-r", "5"], "rows: index has 6, this run asks for 5"),
    ] {
        for cmd in ["index", "scan"] {
            let out = simfind()
                .arg(cmd)
                .args(roots)
                .arg("--db")
                .arg(&db)
                .args(extra)
                .output()
                .unwrap();
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{cmd} {extra:?}: {err}");
            assert!(err.contains(names), "{cmd} {extra:?}: {err}");
            assert!(out.stdout.is_empty());
        }
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

/// `index --help` offered `--threshold` in the texts of --bands and --rows,
/// which index rejects; every option it lists must parse.
#[test]
fn index_help_offers_only_options_index_takes() {
    let out = run_os(args!["index", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(!help.contains("--threshold"), "{help}");
    assert!(
        help.contains("[default: the index's; for a new index, 20]"),
        "{help}"
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("r");
    put(&root, "x.txt", &prose(1, 50), past(0));
    let stop = put(dir.path(), "stop.txt", "the\nand\n", past(0));
    let jsonl = put(
        dir.path(),
        "r.jsonl",
        "{\"id\": \"a\", \"text\": \"some words\"}\n",
        past(0),
    );
    let table = put(dir.path(), "r.csv", "id,name\n1,Jane Doe\n", past(0));
    let pairs = put(dir.path(), "r.tsv", "a\tx\na\ty\n", past(0));
    // Every long option in the help, with a value where it takes one.
    let mut seen = 0;
    for line in help.lines() {
        let Some(start) = line.find("--") else {
            continue;
        };
        if !line.trim_start().starts_with('-') {
            continue;
        }
        let flag: String = line[start..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != ',')
            .collect();
        // A repeatable flag shows as `--verbose...`.
        let flag = flag.trim_end_matches("...").to_string();
        let value = line[start + flag.len()..].trim_start().starts_with('<');
        if [
            "--help",
            "--version",
            "--db",
            "--quiet",
            "--verbose", // conflicts with the -q every run here has
            "--add",
            "--name",
            "--remove",
            "--export", // writes Parquet instead of updating: tests/exchange.rs
        ]
        .contains(&flag.as_str())
        {
            continue;
        }
        let db = dir.path().join(format!("{seen}.simfind"));
        let mut cmd = simfind();
        // The record options, with files of records of their kind.
        let records: Option<(&str, &Path, &[&str])> = match flag.as_str() {
            "--input" => Some(("jsonl", &jsonl, &[])),
            "--id-field" => Some(("jsonl", &jsonl, &["--id-field", "id"])),
            "--text-field" => Some(("jsonl", &jsonl, &["--text-field", "text"])),
            "--skip-bad-rows" => Some(("jsonl", &jsonl, &["--skip-bad-rows"])),
            "--id-column" => Some(("csv", &table, &["--id-column", "id"])),
            "--columns" => Some(("csv", &table, &["--columns", "name"])),
            "--pairs" => Some(("sets", &pairs, &["--pairs"])),
            _ => None,
        };
        if let Some((kind, input, extra)) = records {
            cmd.args(["index", "--input", kind])
                .arg(input)
                .arg("--db")
                .arg(&db);
            let out = cmd.args(extra).arg("-q").output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{flag}: {}", stderr(&out));
            seen += 1;
            continue;
        }
        cmd.arg("index").arg(&root).arg("--db").arg(&db).arg("-q");
        match (flag.as_str(), value) {
            ("--shingle", _) => cmd.args(["--shingle", "stopword"]),
            ("--stopwords", _) => cmd
                .args(["--shingle", "stopword", "--stopwords"])
                .arg(&stop),
            ("--minhash", _) => cmd.args(["--minhash", "oph"]),
            ("--exact-prefix", _) => cmd.args(["--exact-prefix", "0.5"]),
            ("--include" | "--exclude", _) => cmd.args([flag.as_str(), "*.txt"]),
            ("--color", _) => cmd.args(["--color", "never"]),
            ("--extract", _) => cmd.args(["--extract", "pdf,html"]),
            ("--fold", _) => cmd.args(["--fold", "accents,punct"]),
            ("--transform", _) => cmd.args(["--transform", "cat"]),
            ("--transform-glob", _) => {
                cmd.args(["--transform", "cat", "--transform-glob", "*.txt"])
            }
            ("--summary-json", _) => cmd.arg(&flag).arg(dir.path().join(format!("{seen}.json"))),
            ("--files-from" | "--files0-from", _) => {
                let list = dir.path().join(format!("{seen}.list"));
                let sep = if flag == "--files0-from" { "\0" } else { "\n" };
                std::fs::write(&list, format!("{}{sep}", root.join("x.txt").display())).unwrap();
                cmd.arg(&flag).arg(list)
            }
            (_, true) => cmd.args([flag.as_str(), "3"]),
            (_, false) => cmd.arg(&flag),
        };
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", stderr(&out));
        seen += 1;
    }
    assert!(seen >= 15, "{seen} options tried");
}

/// The rows of `scan --method exact -t T` that involve `q`, seen from `q`'s
/// side: (other path, similarity, shared), plus `q` itself at 1.0.
fn exact_scan_rows(
    roots: &[&Path],
    q: &Path,
    t: &str,
    shingles: u64,
) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let out = simfind()
        .arg("scan")
        .args(roots)
        .args(["--method", "exact", "-t", t, "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let qb = q.as_os_str().as_encoded_bytes();
    let mut want: Vec<_> = csv_rows(&out.stdout)
        .iter()
        .filter(|r| &r[0] == qb || &r[1] == qb)
        .map(|r| {
            let other = if &r[0] == qb { &r[1] } else { &r[0] };
            (other.to_vec(), r[2].to_vec(), r[6].to_vec())
        })
        .collect();
    want.push((
        qb.to_vec(),
        b"1.000000".to_vec(),
        shingles.to_string().into_bytes(),
    ));
    want.sort();
    want
}

/// `query --exact` (rows as (other, similarity, shared), in output order).
fn exact_query(q: &Path, db: &Path, extra: &[&str]) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let out = simfind()
        .arg("query")
        .arg(q)
        .arg("--db")
        .arg(db)
        .args(extra)
        .arg("-q")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    csv_rows(&out.stdout)
        .iter()
        .map(|r| (r[1].to_vec(), r[2].to_vec(), r[6].to_vec()))
        .collect()
}

/// Issue 15.5: query missed GPL-3 (J = 0.42) at -t 0.3, which the exact scan
/// finds; --exact verifies every document of a size that can reach T, and
/// --top N is the true N most similar.
#[test]
fn an_exact_query_finds_what_the_exact_scan_finds() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let roots = [a.as_path(), b.as_path()];
    // Half of fam0/orig.txt, then other words: J ≈ 1/3, which 20 × 5 bands
    // find with probability below 0.1.
    let base = prose(0, 400);
    let half: Vec<&str> = base.split(' ').take(200).collect();
    let far = format!("{} {}", half.join(" "), prose(777, 200));
    put(&b, "far.txt", &far, past(0));
    let db = dir.path().join("index.simfind");
    index(&roots, &db, &[]);
    let q = a.join("fam0/orig.txt");
    for t in ["0.3", "0.5", "0.8"] {
        let got = exact_query(&q, &db, &["--exact", "-t", t]);
        let sims: Vec<f64> = got
            .iter()
            .map(|g| std::str::from_utf8(&g.1).unwrap().parse().unwrap())
            .collect();
        assert!(sims.windows(2).all(|w| w[0] >= w[1]), "{sims:?}");
        let shingles = got[0].2.clone();
        let mut sorted = got.clone();
        sorted.sort();
        let shingles: u64 = std::str::from_utf8(&shingles).unwrap().parse().unwrap();
        assert_eq!(sorted, exact_scan_rows(&roots, &q, t, shingles), "t = {t}");
        // LSH alone misses the far edit at 0.3: the test can tell them apart.
        if t == "0.3" {
            let out = run_os(args!["query", q, "--db", db, "-t", t]);
            assert!(csv_rows(&out.stdout).len() < got.len());
            assert!(
                stderr(&out).contains("--exact finds every one"),
                "{}",
                stderr(&out)
            );
        }
        // --top N: the first N rows of the whole ranking.
        for n in [1, 2, 3, 5] {
            let top = exact_query(&q, &db, &["--top", &n.to_string(), "-t", t]);
            assert_eq!(top, got[..n.min(got.len())], "t = {t}, top {n}");
        }
    }
    // --exact needs exact verification.
    let out = run_os(args![
        "query",
        q,
        "--db",
        db,
        "--exact",
        "--verify",
        "signature"
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--verify signature"),
        "{}",
        stderr(&out)
    );
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn an_exact_query_on_debian_docs_finds_gpl_3_like_the_exact_scan() {
    let dir = tempfile::tempdir().unwrap();
    let docs = util::shared_data("debian-docs").join("files");
    let db = dir.path().join("dd.simfind");
    index(&[&docs], &db, &["-b", "16", "-r", "6", "-q"]);
    let q = docs.join("common-licenses/GPL-2.txt");
    let got = exact_query(&q, &db, &["--exact", "-t", "0.3"]);
    let gpl3 = docs.join("common-licenses/GPL-3.txt");
    assert!(
        got.iter()
            .any(|g| g.0 == gpl3.as_os_str().as_encoded_bytes()),
        "GPL-3 at 0.42"
    );
    let shingles: u64 = std::str::from_utf8(&got[0].2).unwrap().parse().unwrap();
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(sorted, exact_scan_rows(&[&docs], &q, "0.3", shingles));
    let top = exact_query(&q, &db, &["--top", "6", "-t", "0.3"]);
    assert_eq!(top, got[..6]);
}

/// Issue 15.5: one file or a standard-input document could not be added to an
/// index; `--add` stores it as a walk would, `--remove` forgets it, each in
/// one transaction.
#[test]
fn single_documents_are_added_and_removed_without_a_walk() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let roots = [a.as_path(), b.as_path()];
    let db = dir.path().join("index.simfind");
    index(&[&a], &db, &["-k", "4"]);
    // Every file of b, added one command at a time: the index then holds what
    // indexing both roots holds, and a walk finds nothing to re-read.
    let mut added: Vec<PathBuf> = std::fs::read_dir(&b)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    added.sort();
    for path in &added {
        let out = run_os(args!["index", "--db", db, "--add", path]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(stderr(&out).contains("1 added"), "{}", stderr(&out));
    }
    let both = dir.path().join("both.simfind");
    index(&roots, &both, &["-k", "4"]);
    assert_eq!(indexed(&db), indexed(&both));
    let rows = |db: &Path| {
        let index = simfind::index::Index::open_existing(db, Default::default()).unwrap();
        let docs = index.documents().unwrap();
        docs.into_iter()
            .map(|d| {
                let keys = index.band_keys(d.id).unwrap();
                (
                    d.path,
                    d.stat,
                    d.content_hash,
                    d.binary,
                    d.shingle_count,
                    d.signature,
                    keys,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&db), rows(&both));
    let (out, err) = db_scan(&roots, &db, &[]);
    assert!(err.contains("0 signed"), "{err}");
    assert_eq!(out, fresh_scan(&roots, &["-k", "4"]));

    // Standard input, under the name of the file it will be saved as.
    let text = edited(&prose(3, 400), 7, "kiwi");
    let saved = a.join("from-stdin.txt");
    let mut child = simfind()
        .args(args!["index", "--db", db, "--add", "-", "--name", saved])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    put(&a, "from-stdin.txt", &text, past(0));
    let q = a.join("fam3/orig.txt");
    let found = |db: &Path| {
        let out = run_os(args!["query", q, "--db", db, "--exact", "-t", "0.5", "-q"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        util::pair_paths(&out.stdout)
            .iter()
            .any(|(_, other)| Path::new(other) == saved)
    };
    assert!(found(&db));

    // --remove forgets it; a path not indexed is a warning naming it.
    let missing = a.join("never-indexed.txt");
    let out = run_os(args!["index", "--db", db, "--remove", saved, missing]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("1 removed"), "{err}");
    assert!(
        err.contains(&format!("{}: not in the index", missing.display())),
        "{err}"
    );
    assert!(!found(&db));

    // Usage errors before any work.
    for (args, msg) in [
        (args!["index", "--db", db, "--add", "-"], "--name"),
        (
            args!["index", "--db", db, "--add", "x", "--name", "y"],
            "--add -",
        ),
        (
            args!["index", a, "--db", db, "--add", "x"],
            "cannot be used with",
        ),
        (args!["index", "--db", db], "required"),
    ] {
        let out = run_os(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(msg), "{args:?}: {}", stderr(&out));
    }
}
