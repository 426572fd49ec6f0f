//! `query --exact` through the prefix index (`index --exact-prefix T`, MMDS
//! 3.9.4–3.9.5): its rows are the brute force's — the exact scan
//! (`scan --method exact`, every pair verified by the all-pairs join) of the
//! corpus with the query document, restricted to the pairs with the query —
//! before and after an incremental update (a file changed, one added, one
//! removed, one added by `--add`), and an index of a format before the
//! prefix index (version 2) is read as it is and upgraded when written.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::util::{self, args, csv_rows, run_os, stderr, write};

/// Words of a text of `words` words drawn from a vocabulary of 400, distinct
/// per `seed` (so that unrelated texts share few 5-shingles).
fn text(seed: u64, words: usize) -> Vec<String> {
    let mut rng = util::XorShift64::seeded(seed);
    (0..words).map(|_| format!("w{}", rng.below(400))).collect()
}

/// `base` with every `every`-th word replaced: near copies over the whole
/// range of similarities as `every` goes from 2 to 40.
fn edited(base: &[String], every: usize, seed: u64) -> String {
    base.iter()
        .enumerate()
        .map(|(i, w)| {
            if i % every == 0 {
                format!("x{seed}_{i}")
            } else {
                w.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn old_file(path: &Path) {
    // Out of the racy window: the next update trusts its stored signature.
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// Three families of near copies at many distances, and loners.
fn corpus(dir: &Path) {
    for family in 0..3u64 {
        let base = text(family, 300);
        write(
            dir,
            &format!("f{family}/base.txt"),
            base.join(" ").as_bytes(),
        );
        for every in [2usize, 3, 4, 6, 9, 15, 40] {
            let p = write(
                dir,
                &format!("f{family}/e{every}.txt"),
                edited(&base, every, family).as_bytes(),
            );
            old_file(&p);
        }
        old_file(&dir.join(format!("f{family}/base.txt")));
    }
    for loner in 0..4u64 {
        let p = write(
            dir,
            &format!("loner{loner}.txt"),
            text(100 + loner, 250).join(" ").as_bytes(),
        );
        old_file(&p);
    }
}

/// (other document, similarity, shared) of every row, and the number of
/// candidates the summary line names.
type Rows = BTreeSet<(String, String, String)>;

fn query(db: &Path, q: &Path, t: f64) -> (Rows, u64, String) {
    let out = run_os(args![
        "query",
        q,
        "--db",
        db,
        "--exact",
        "-t",
        t.to_string()
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let rows = csv_rows(&out.stdout)
        .iter()
        .map(|r| {
            let s = |i: usize| String::from_utf8_lossy(&r[i]).into_owned();
            (s(1), s(2), s(6))
        })
        .filter(|(b, _, _)| Path::new(b) != q)
        .collect();
    let candidates = err
        .split(" candidate")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a candidate count in {err}"));
    (rows, candidates, err)
}

/// The exact scan's pairs of `q` with the documents under `roots[0]` (the
/// indexed ones), as the same (other, similarity, shared).
fn brute_force(roots: &[&Path], q: &Path, t: f64) -> Rows {
    let indexed = roots[0].to_string_lossy().into_owned();
    let mut cmd = util::simfind();
    cmd.arg("scan").args(roots);
    cmd.args(["--method", "exact", "-q", "-t"])
        .arg(t.to_string());
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let q = q.to_string_lossy();
    csv_rows(&out.stdout)
        .iter()
        .filter_map(|r| {
            let s = |i: usize| String::from_utf8_lossy(&r[i]).into_owned();
            let (a, b) = (s(0), s(1));
            let other = if a == q {
                b
            } else if b == q {
                a
            } else {
                return None;
            };
            other.starts_with(&indexed).then(|| (other, s(2), s(6)))
        })
        .collect()
}

fn index(roots: &[&Path], db: &Path, extra: &[&str]) -> String {
    let out = util::simfind()
        .arg("index")
        .args(roots)
        .arg("--db")
        .arg(db)
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

const THRESHOLDS: [f64; 4] = [0.3, 0.5, 0.7, 0.9];

/// Every query of `queries` at every threshold from `from` (the prefix
/// index's): the rows equal the brute force's and the lookup said it used
/// the prefix index. Returns the candidates it verified, summed.
fn check(db: &Path, roots: &[&Path], queries: &[PathBuf], from: f64) -> u64 {
    let mut candidates = 0;
    for q in queries {
        for t in THRESHOLDS.into_iter().filter(|t| *t >= from) {
            let (rows, c, err) = query(db, q, t);
            assert!(err.contains("through the prefix index"), "{err}");
            assert_eq!(rows, brute_force(roots, q, t), "{} at {t}", q.display());
            candidates += c;
        }
    }
    candidates
}

#[test]
fn exact_queries_through_the_prefix_index_equal_the_brute_force_after_updates() {
    let dir = tempfile::tempdir().unwrap();
    let (docs, outside) = (dir.path().join("docs"), dir.path().join("q"));
    corpus(&docs);
    let db = dir.path().join("i.simfind");
    index(&[&docs], &db, &["--exact-prefix", "0.3"]);
    // One indexed document of each family, and one from outside near f1.
    let outsider = write(&outside, "new.txt", edited(&text(1, 300), 5, 77).as_bytes());
    let mut queries: Vec<PathBuf> = (0..3).map(|f| docs.join(format!("f{f}/e4.txt"))).collect();
    queries.push(outsider.clone());
    let roots = [docs.as_path(), outside.as_path()];
    let through_prefix = check(&db, &roots, &queries, 0.3);

    // The same lookups by the length filter alone read more documents: the
    // probe prunes (and the comparison above is not vacuous).
    let plain = dir.path().join("plain.simfind");
    index(&[&docs], &plain, &[]);
    let mut by_length = 0;
    for q in &queries {
        for t in THRESHOLDS {
            let (rows, c, err) = query(&plain, q, t);
            assert!(err.contains("every document of a size"), "{err}");
            assert_eq!(rows, brute_force(&roots, q, t));
            by_length += c;
        }
    }
    assert!(
        through_prefix < by_length,
        "{through_prefix} candidates through the prefix index, {by_length} by length"
    );

    // An update: a loner becomes a near copy of the outsider's family (so
    // only its new prefix can find it), a new near copy appears, a member
    // of family 0 goes, and one more comes by --add.
    write(&docs, "loner0.txt", edited(&text(1, 300), 7, 5).as_bytes());
    write(
        &docs,
        "f1/late.txt",
        edited(&text(1, 300), 11, 6).as_bytes(),
    );
    std::fs::remove_file(docs.join("f0/e3.txt")).unwrap();
    let summary = index(&[&docs], &db, &[]);
    assert!(
        summary.contains("1 added, 1 changed, 1 removed"),
        "{summary}"
    );
    let added = write(
        &docs,
        "f2/added.txt",
        edited(&text(2, 300), 8, 9).as_bytes(),
    );
    let out = run_os(args!["index", "--db", db, "--add", added]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    queries.push(docs.join("loner0.txt"));
    check(&db, &roots, &queries, 0.3);
    let (rows, _, _) = query(&db, &outsider, 0.3);
    for found in ["loner0.txt", "f1/late.txt"] {
        let path = docs.join(found).to_string_lossy().into_owned();
        assert!(rows.iter().any(|r| r.0 == path), "{found} in {rows:?}");
    }
    let (rows, _, _) = query(&db, &docs.join("f2/e4.txt"), 0.3);
    let path = added.to_string_lossy().into_owned();
    assert!(rows.iter().any(|r| r.0 == path), "{rows:?}");

    // Below the prefix index's threshold the length filter answers, as exactly.
    let (rows, _, err) = query(&db, &outsider, 0.2);
    assert!(err.contains("every document of a size"), "{err}");
    assert_eq!(rows, brute_force(&roots, &outsider, 0.2));
}

/// Another threshold re-reads every file once and then serves lookups at
/// it; a later update without the option keeps it.
#[test]
fn another_prefix_threshold_rebuilds_the_prefix_index() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    corpus(&docs);
    let db = dir.path().join("i.simfind");
    index(&[&docs], &db, &["--exact-prefix", "0.8"]);
    let q = docs.join("f0/e6.txt");
    let (_, _, err) = query(&db, &q, 0.5);
    assert!(err.contains("every document of a size"), "{err}");
    let summary = index(&[&docs], &db, &["--exact-prefix", "0.5"]);
    assert!(summary.contains("0 unchanged (not read)"), "{summary}");
    let summary = index(&[&docs], &db, &[]);
    assert!(!summary.contains(" 0 unchanged (not read)"), "{summary}");
    assert!(check(&db, &[&docs], &[q], 0.5) > 0);
}

/// Format version 2 (before the prefix index): read as it is by a lookup
/// (exact by the length filter), upgraded in place by the next update, and
/// a prefix index added to it like to any index. Version 1 stays refused,
/// naming the file and the command that rebuilds it.
#[test]
fn an_index_of_the_previous_format_is_read_then_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    corpus(&docs);
    let db = dir.path().join("i.simfind");
    index(&[&docs], &db, &[]);
    let downgrade = |version: i64| {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(util::TO_FORMAT_5).unwrap();
        conn.execute_batch(&format!(
            "DROP TABLE IF EXISTS prefix_tokens; DROP TABLE IF EXISTS prefix_order; \
             PRAGMA user_version = {version}; \
             UPDATE params SET value = '{version}' WHERE name = 'format_version';"
        ))
        .unwrap();
    };
    let version = || -> i64 {
        rusqlite::Connection::open(&db)
            .unwrap()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap()
    };
    downgrade(2);
    let q = docs.join("f1/e9.txt");
    let (rows, _, err) = query(&db, &q, 0.4);
    assert!(err.contains("every document of a size"), "{err}");
    assert_eq!(rows, brute_force(&[&docs], &q, 0.4));
    assert_eq!(version(), 2, "a lookup does not write");
    index(&[&docs], &db, &[]);
    assert_eq!(version(), i64::from(simfind::index::FORMAT_VERSION));
    index(&[&docs], &db, &["--exact-prefix", "0.4"]);
    check(&db, &[&docs], std::slice::from_ref(&q), 0.4);

    downgrade(1);
    let out = run_os(args!["query", q, "--db", db, "--exact"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let name = db.to_string_lossy();
    assert!(
        err.contains(&*name) && err.contains("older") && err.contains("simfind index"),
        "{err}"
    );
}

#[test]
fn the_prefix_threshold_is_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.simfind");
    for bad in ["0", "1.5", "x"] {
        let out = run_os(args![
            "index",
            "testdata",
            "--db",
            db,
            "--exact-prefix",
            bad
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains("--exact-prefix"), "{}", stderr(&out));
        assert!(!db.exists());
    }
    let out = run_os(args![
        "index",
        "--db",
        db,
        "--add",
        "testdata/news/bakery.txt",
        "--exact-prefix",
        "0.5"
    ]);
    assert_eq!(out.status.code(), Some(2));
}
