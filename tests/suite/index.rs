//! The persistent index through the real binary: `index`, `scan --db`, `query`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime};

use crate::util::{self, args, csv_rows, run_os, simfind, stderr, write};

/// A text of `words` random words (3–8 letters), distinct per `seed`: unlike
/// `util::prose` it shares almost no shingles with other seeds' texts.
fn prose(seed: u64, words: usize) -> String {
    let mut rng = util::XorShift64::seeded(seed);
    let mut next = move || rng.next();
    (0..words)
        .map(|_| {
            let len = 3 + next() % 6;
            (0..len)
                .map(|_| (b'a' + (next() % 26) as u8) as char)
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A fixed time well in the past, so files are outside the "racy" window, plus
/// `seconds`: tests control modification times instead of racing the clock.
fn past(seconds: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000 + seconds)
}

fn set_mtime(path: &Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn put(dir: &Path, name: &str, text: &str, t: SystemTime) -> PathBuf {
    let p = write(dir, name, text.as_bytes());
    set_mtime(&p, t);
    p
}

/// `text` with every `every`-th word replaced: a near duplicate.
fn edited(text: &str, every: usize, marker: &str) -> String {
    text.split(' ')
        .enumerate()
        .map(|(i, w)| if i % every == 0 { marker } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Families of near duplicates plus loners, in two roots.
fn corpus(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("a"), dir.join("b"));
    for family in 0..6u64 {
        let base = prose(family, 400);
        put(&a, &format!("fam{family}/orig.txt"), &base, past(0));
        put(
            &a,
            &format!("fam{family}/edit1.txt"),
            &edited(&base, 9, "zebra"),
            past(0),
        );
        put(
            &b,
            &format!("fam{family}, copy.txt"),
            &edited(&base, 5, "yak"),
            past(0),
        );
    }
    for loner in 0..5u64 {
        put(
            &b,
            &format!("loner{loner}.txt"),
            &prose(100 + loner, 300),
            past(0),
        );
    }
    put(&a, "tiny.txt", "hi", past(0));
    put(&a, "same-as-orig0.txt", &prose(0, 400), past(0));
    write(&a, "blob.bin", b"\x00\x01binary\x00");
    set_mtime(&a.join("blob.bin"), past(0));
    (a, b)
}

/// A scan without an index, by LSH: what `scan --db` (LSH only) must reproduce.
fn fresh_scan(roots: &[&Path], extra: &[&str]) -> Vec<u8> {
    let out = simfind()
        .arg("scan")
        .args(roots)
        .args(extra)
        .args(["--method", "lsh"])
        .arg("-q")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out.stdout
}

fn db_scan(roots: &[&Path], db: &Path, extra: &[&str]) -> (Vec<u8>, String) {
    let out = simfind()
        .arg("scan")
        .args(roots)
        .args(extra)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    (out.stdout, err)
}

fn index(roots: &[&Path], db: &Path, extra: &[&str]) -> String {
    let out = simfind()
        .arg("index")
        .args(roots)
        .args(extra)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn scan_with_an_index_matches_a_fresh_scan_after_adds_changes_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let roots = [a.as_path(), b.as_path()];
    let db = dir.path().join("index.simfind");

    let log = index(&roots, &db, &[]);
    assert!(
        log.contains("26 files: 0 unchanged (not read), 26 signed"),
        "{log}"
    );
    let (out, log) = db_scan(&roots, &db, &[]);
    assert_eq!(out, fresh_scan(&roots, &[]));
    assert!(log.contains("26 unchanged (not read), 0 signed"), "{log}");
    assert!(
        csv_rows(&out).len() >= 7,
        "each family's edit and fam0's copy pair up"
    );

    // Add: a new family member and a loner. Change: one file to another family's
    // text (size changes), one to an edit of the same size (only mtime and
    // content change), one whose mtime alone changes. Delete: two files.
    put(
        &a,
        "fam1/edit2.txt",
        &edited(&prose(1, 400), 7, "owl"),
        past(100),
    );
    put(&b, "new-loner.txt", &prose(999, 350), past(100));
    put(
        &b,
        "loner0.txt",
        &edited(&prose(3, 400), 11, "ibis"),
        past(100),
    );
    let orig2 = prose(2, 400);
    // Every 40th letter shifted: a same-size edit.
    let same_size: String = orig2
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i % 40 == 0 && c != ' ' {
                if c == 'z' { 'a' } else { (c as u8 + 1) as char }
            } else {
                c
            }
        })
        .collect();
    assert_eq!(same_size.len(), orig2.len());
    put(&a, "fam2/orig.txt", &same_size, past(100));
    set_mtime(&a.join("fam3/orig.txt"), past(100));
    std::fs::remove_file(a.join("fam4/edit1.txt")).unwrap();
    std::fs::remove_file(b.join("loner1.txt")).unwrap();

    let (out, log) = db_scan(&roots, &db, &[]);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&fresh_scan(&roots, &[]))
    );
    assert!(
        log.contains("26 files: 21 unchanged (not read), 5 signed"),
        "{log}"
    );
    assert!(
        log.contains("index: 2 added, 3 changed, 2 removed"),
        "{log}"
    );

    // Nothing changed since: nothing is read, the output is still the same.
    let (again, log) = db_scan(&roots, &db, &[]);
    assert_eq!(again, out);
    assert!(log.contains("26 unchanged (not read), 0 signed"), "{log}");

    // An index kept inside a scanned root is not indexed itself.
    let inside = a.join("index.simfind");
    let log = index(&roots, &inside, &[]);
    assert!(
        log.contains("26 files: 0 unchanged (not read), 26 signed"),
        "{log}"
    );
    let log = index(&roots, &inside, &[]);
    assert!(
        log.contains("26 files: 26 unchanged (not read), 0 signed"),
        "{log}"
    );
    std::fs::remove_file(&inside).unwrap();

    // The report stage sees the same outcome: groups and JSON Lines agree too.
    for extra in [
        &["--format", "clusters"][..],
        &["--format", "jsonl", "--cluster", "connected"],
    ] {
        let (out, _) = db_scan(&roots, &db, extra);
        assert_eq!(out, fresh_scan(&roots, extra), "{extra:?}");
    }

    // Scanning one root only drops the other root's documents from the index.
    let (one, log) = db_scan(&[a.as_path()], &db, &[]);
    assert_eq!(one, fresh_scan(&[a.as_path()], &[]));
    assert!(
        log.contains("index: 0 added, 0 changed, 11 removed"),
        "{log}"
    );
}

#[test]
fn other_signing_options_work_with_their_own_index() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let roots = [a.as_path(), b.as_path()];
    let db = dir.path().join("words.simfind");
    let opts = [
        "--shingle",
        "stopword",
        "--k",
        "4",
        "--bands",
        "10",
        "--rows",
        "3",
        "--binary",
    ];
    index(&roots, &db, &opts);
    put(
        &a,
        "fam0/edit1.txt",
        &edited(&prose(0, 400), 4, "the"),
        past(50),
    );
    let (out, _) = db_scan(&roots, &db, &[&opts[..], &["--threshold", "0.3"]].concat());
    assert_eq!(
        out,
        fresh_scan(&roots, &[&opts[..], &["--threshold", "0.3"]].concat())
    );
}

#[test]
fn an_index_built_with_other_parameters_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = corpus(dir.path());
    let db = dir.path().join("index.simfind");
    index(&[&a], &db, &[]);
    let before = std::fs::read(&db).unwrap();
    for extra in [
        &["--k", "4"][..],
        &["--seed", "1"],
        &["--bands", "25", "--rows", "4"],
        &["--keep-case"],
    ] {
        for cmd in ["index", "scan"] {
            let out = simfind()
                .arg(cmd)
                .arg(&a)
                .arg("--db")
                .arg(&db)
                .args(extra)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{cmd} {extra:?}");
            let err = stderr(&out);
            assert!(err.contains("was built with other parameters"), "{err}");
            assert!(err.contains("rebuild it with `simfind index"), "{err}");
            assert!(out.stdout.is_empty());
        }
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_damaged_index_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = corpus(dir.path());
    let db = dir.path().join("index.simfind");
    index(&[&a], &db, &[]);
    let real = std::fs::read(&db).unwrap();
    let q = a.join("fam0/orig.txt");
    for damaged in [
        &b"garbage, not a database at all"[..],
        &real[..real.len() / 2],
        &real[..40],
    ] {
        std::fs::write(&db, damaged).unwrap();
        for args in [
            args!["index", a, "--db", db],
            args!["scan", a, "--db", db],
            args!["query", q, "--db", db],
        ] {
            let out = run_os(args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{err}");
            assert!(err.contains("is not a usable simfind index"), "{err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let missing = dir.path().join("nope.simfind");
    let out = run_os(args!["query", q, "--db", missing]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no index at"), "{}", stderr(&out));
}

#[test]
fn a_second_update_waits_then_fails_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = corpus(dir.path());
    let db = dir.path().join("index.simfind");
    index(&[&a], &db, &[]);
    // Another process's update in progress, from the outside: a write lock held
    // through SQLite itself.
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = run_os(args!["index", a, "--db", db, "--wait", "0.2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("locked by another simfind process"), "{err}");
    // Queries still read while the update is in progress.
    let q = a.join("fam0/orig.txt");
    let out = run_os(args!["query", q, "--db", db, "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    holder.execute_batch("COMMIT").unwrap();
    index(&[&a], &db, &[]);
}

/// `(path, content hash)` of every indexed document.
fn indexed(db: &Path) -> Vec<(PathBuf, u128)> {
    let index = simfind::index::Index::open_existing(db, Default::default()).unwrap();
    index.verify_integrity().unwrap();
    index
        .documents()
        .unwrap()
        .into_iter()
        .map(|d| (d.path, d.content_hash))
        .collect()
}

/// What the index must hold for `paths` as they are now.
fn expected(mut paths: Vec<PathBuf>) -> Vec<(PathBuf, u128)> {
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let hash = xxhash_rust::xxh3::xxh3_128(&std::fs::read(&p).unwrap());
            (p, hash)
        })
        .collect()
}

#[test]
fn an_index_killed_mid_update_is_the_old_or_the_new_state_never_a_mix() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    let lsh = ["--bands", "40", "--rows", "3"];
    let name = |i: u64| format!("{:02}/{i:05}.txt", i % 40);
    let paths: Vec<PathBuf> = (0..1500u64)
        .map(|i| put(&root, &name(i), &prose(i, 300), past(0)))
        .collect();
    let db = dir.path().join("index.simfind");
    index(&[&root], &db, &lsh);
    let old_state = indexed(&db);
    assert_eq!(old_state, expected(paths.clone()));
    let old_bytes = std::fs::read(&db).unwrap();
    // Change every file, so that the next update rewrites every document.
    for i in 0..1500u64 {
        put(&root, &name(i), &prose(i + 7, 300), past(10));
    }
    let new_state = expected(paths);

    let spawn = || {
        simfind()
            .arg("index")
            .arg(&root)
            .args(lsh)
            .arg("--db")
            .arg(&db)
            .arg("-q")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // How long a whole update takes here; the kills are spread over that span so
    // that they land in the walk, the signing, the writing and the commit.
    let started = std::time::Instant::now();
    assert!(spawn().wait().unwrap().success());
    let full = started.elapsed();
    assert_eq!(indexed(&db), new_state);

    let mut outcomes = Vec::new();
    for fraction in [0.2, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.2] {
        std::fs::write(&db, &old_bytes).unwrap();
        let delay = full.mul_f64(fraction);
        let mut child = spawn();
        std::thread::sleep(delay);
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // A journal left behind means the kill landed while the update was
        // writing the database file: the hardest case for recovery.
        let hot = db.with_extension("simfind-journal").exists();
        let state = indexed(&db);
        let which = if state == old_state {
            if hot {
                "old (rolled back a hot journal)"
            } else {
                "old"
            }
        } else if state == new_state {
            "new"
        } else {
            panic!("killed after {delay:?}: the index is a mix of both states");
        };
        outcomes.push((fraction, which));
    }
    eprintln!("full update {full:?}; kill outcomes: {outcomes:?}");
    // Whatever the kills left, the next update completes it.
    let (out, _) = db_scan(&[&root], &db, &lsh);
    assert_eq!(out, fresh_scan(&[&root], &lsh));
    assert_eq!(indexed(&db), new_state);
}

/// `(other path, similarity, estimate, shared)` of one match.
type Row = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);

#[test]
fn query_finds_what_a_fresh_scan_pairs_with_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let roots = [a.as_path(), b.as_path()];
    let db = dir.path().join("index.simfind");
    index(&roots, &db, &[]);
    // The index's banding: with --threshold alone, scan would let tune choose
    // another, and the estimates would differ.
    let scan = fresh_scan(
        &roots,
        &["--threshold", "0.3", "--bands", "20", "--rows", "5"],
    );

    let q = a.join("fam0/orig.txt");
    let out = run_os(args!["query", q, "--db", db, "--threshold", "0.3", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = csv_rows(&out.stdout);
    // Every row of the scan that involves q, seen from q's side.
    let qb = q.as_os_str().as_encoded_bytes();
    let mut want: Vec<Row> = csv_rows(&scan)
        .iter()
        .filter(|r| &r[0] == qb || &r[1] == qb)
        .map(|r| {
            let other = if &r[0] == qb { &r[1] } else { &r[0] };
            (other.to_vec(), r[2].to_vec(), r[3].to_vec(), r[6].to_vec())
        })
        .collect();
    // Plus itself, at 1.0.
    want.push((
        qb.to_vec(),
        b"1.000000".to_vec(),
        b"1.000000".to_vec(),
        rows[0][4].to_vec(),
    ));
    want.sort();
    let mut got: Vec<Row> = rows
        .iter()
        .map(|r| {
            assert_eq!(&r[0], qb);
            (r[1].to_vec(), r[2].to_vec(), r[3].to_vec(), r[6].to_vec())
        })
        .collect();
    // Most similar first.
    let sims: Vec<f64> = got
        .iter()
        .map(|g| std::str::from_utf8(&g.1).unwrap().parse().unwrap())
        .collect();
    assert!(sims.windows(2).all(|w| w[0] >= w[1]), "{sims:?}");
    got.sort();
    assert_eq!(got, want);
    assert!(got.len() >= 4, "orig, its copy, two edits");

    // --top and standard input.
    let text = std::fs::read(&q).unwrap();
    let mut child = simfind()
        .args(args!["query", "-", "--db", db, "--top", "2", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    let rows = csv_rows(&out.stdout);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| &r[0] == b"-" && &r[2] == b"1.000000"));

    // A document unlike anything indexed has no matches.
    let other = put(dir.path(), "unrelated.txt", &prose(5555, 300), past(0));
    let out = run_os(args!["query", other, "--db", db, "-q"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(csv_rows(&out.stdout).is_empty());
}

#[test]
fn query_refuses_a_candidate_that_changed_since_it_was_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = corpus(dir.path());
    let db = dir.path().join("index.simfind");
    index(&[&a], &db, &[]);
    let q = a.join("fam0/orig.txt");
    let stale = a.join("fam0/edit1.txt");
    put(&a, "fam0/edit1.txt", &prose(4242, 400), past(500));
    let out = run_os(args!["query", q, "--db", db, "-q"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{}: changed since it was indexed",
            stale.display()
        )),
        "{err}"
    );
    assert!(
        !util::pair_paths(&out.stdout)
            .iter()
            .any(|(_, b)| Path::new(b) == stale)
    );
}

#[test]
fn query_arguments_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.simfind");
    for (args, msg) in [
        (args!["query", "-", "-", "--db", db], "only once"),
        (
            args!["query", "x", "--db", db, "--threshold", "1.5"],
            "--threshold must be in (0, 1]",
        ),
        (args!["query", "x", "--db", db, "--top", "0"], "--top"),
        (args!["query", "x", "--db", db, "--wait=-1"], "--wait"),
    ] {
        let out = run_os(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(msg), "{args:?}: {}", stderr(&out));
    }
    assert!(!db.exists(), "no index is created by a failed query");
}

#[test]
fn an_index_serves_the_lsh_method_with_its_own_minhash_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let roots = [a.as_path(), b.as_path()];
    let db = dir.path().join("index.simfind");

    // The index holds signatures, not shingle sets: --method exact is refused
    // before any work (no index is created).
    let out = run_os(args!["scan", a, b, "--db", db, "--method", "exact"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--method exact") && err.contains("--db"),
        "{err}"
    );
    assert!(!db.exists());

    // An OPH index: auto resolves to LSH and says why; the output is a fresh
    // OPH scan's.
    index(&roots, &db, &["--minhash", "oph"]);
    let (out, log) = db_scan(&roots, &db, &["--minhash", "oph"]);
    assert!(log.contains("method auto: lsh (--db"), "{log}");
    let fresh = fresh_scan(&roots, &["--minhash", "oph"]);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&fresh)
    );
    assert_ne!(
        fresh,
        fresh_scan(&roots, &[]),
        "the kernels' estimates differ, so the test can tell them apart"
    );

    // The kernel is a parameter of the index: a classic scan is refused (without
    // --minhash the index's kernel is used).
    let (out, _) = db_scan(&roots, &db, &[]);
    assert_eq!(out, fresh);
    let out = run_os(args!["scan", a, b, "--db", db, "--minhash", "classic"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("(minhash: "), "{err}");

    // query signs with the stored kernel: its estimates are the OPH scan's.
    let q = a.join("fam0/orig.txt");
    let e = a.join("fam0/edit1.txt");
    let out = run_os(args!["query", q, "--db", db, "--threshold", "0.3", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (qb, eb) = (
        q.as_os_str().as_encoded_bytes(),
        e.as_os_str().as_encoded_bytes(),
    );
    let from_query = csv_rows(&out.stdout)
        .into_iter()
        .find(|r| &r[1] == eb)
        .expect("the edit is found")[3]
        .to_vec();
    let from_scan = csv_rows(&fresh)
        .into_iter()
        .find(|r| (&r[0] == qb && &r[1] == eb) || (&r[0] == eb && &r[1] == qb))
        .expect("the scan pairs them")[3]
        .to_vec();
    assert_eq!(from_query, from_scan);
}

/// `args` run as user nobody (`setpriv`), or `None` where `setpriv` is missing.
/// Tests run as root, which ignores file permissions.
fn as_nobody(args: &[&std::ffi::OsStr]) -> Option<Output> {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())?;
    let out = Command::new(setpriv)
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_simfind"))
        .args(args)
        .current_dir(util::root())
        .output()
        .expect("setpriv runs");
    Some(out)
}

/// Reliability case 8.16: `scan --db` on a write-protected index (file 444,
/// directory 555) failed with "attempt to write a readonly database" although
/// nothing had changed, while `query` worked. It now gives the same output as
/// with write access; an index that would need an update still refuses,
/// and the file is left as it was either way.
#[test]
fn scan_with_a_read_only_index_that_is_up_to_date_works_like_query() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = corpus(dir.path());
    let store = dir.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let db = store.join("index.simfind");
    index(&[&a], &db, &[]);
    let (expected, _) = db_scan(&[&a], &db, &["-q"]);
    let before = std::fs::read(&db).unwrap();
    let mode = |p: &Path, m| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    mode(dir.path(), 0o755).unwrap();
    mode(&store, 0o555).unwrap();
    mode(&db, 0o444).unwrap();
    let Some(out) = as_nobody(args!["scan", "-q", a, "--db", db]) else {
        println!("setpriv not found: cannot run as another user than root; skipped");
        return;
    };
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, expected);
    let out = as_nobody(args!["query", "-q", a.join("fam0/orig.txt"), "--db", db]).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    set_mtime(&a.join("fam1/orig.txt"), past(60));
    let out = as_nobody(args!["scan", "-q", a, "--db", db]).unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "simfind: error: index {}: attempt to write a readonly database\n",
            db.display()
        )
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert_eq!(
        std::fs::read_dir(&store).unwrap().count(),
        1,
        "no journal left"
    );
}

/// Reliability case 8.14: an index in a directory that does not exist was
/// SQLite's "unable to open database file" three times over.
#[test]
fn an_index_in_a_missing_directory_is_one_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = corpus(dir.path());
    let db = dir.path().join("no/such/dir/index.simfind");
    for command in ["index", "scan"] {
        let out = run_os(args![command, "-q", a, "--db", db]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_eq!(
            stderr(&out),
            format!(
                "simfind: error: cannot create index {}: {} is not a directory\n",
                db.display(),
                dir.path().join("no/such/dir").display()
            )
        );
    }
    assert!(!dir.path().join("no").exists());
}

/// Issue 15 item 5, the index in cron: recipe adoption, help, single
/// documents, exact query.
mod cron;
mod guard;

mod links;

mod threads;
