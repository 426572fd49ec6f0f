//! `--io-threads`: files read ahead by a pool of reader threads give the same
//! output, warnings and exit status as files read by the signing workers.

use std::path::Path;

use crate::util::{prose, simfind, stderr, write};

/// A corpus of near-duplicate pairs, identical copies, files too short to
/// pair, a binary file, files past the mapping threshold (not read ahead) and
/// a link to a file outside the root (not followed without -L).
fn corpus(dir: &Path) {
    for i in 0..150u64 {
        let text = prose(i, 120);
        write(dir, &format!("d{}/f{i:03}.txt", i % 7), text.as_bytes());
        if i % 5 == 0 {
            let edited = text.replacen("river", "canal", 2);
            write(
                dir,
                &format!("d{}/near{i:03}.txt", i % 3),
                edited.as_bytes(),
            );
        }
        if i % 11 == 0 {
            write(dir, &format!("copies/c{i:03}.txt"), text.as_bytes());
        }
    }
    write(dir, "short.txt", b"abc");
    write(dir, "binary.dat", b"\0\x01\x02 not text");
    let big = prose(1000, 300_000);
    write(dir, "big/a.txt", big.as_bytes());
    write(
        dir,
        "big/b.txt",
        big.replacen("stone", "slate", 50).as_bytes(),
    );
    #[cfg(unix)]
    {
        let outside = dir.parent().unwrap().join("outside.txt");
        std::fs::write(&outside, prose(1, 120)).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("link.txt")).unwrap();
    }
}

fn scan(dir: &Path, threads: &str, io_threads: &str, extra: &[&str]) -> (i32, Vec<u8>, String) {
    let out = simfind()
        .args(["-j", threads, "scan", "-q"])
        .arg(dir)
        .args(["--io-threads", io_threads])
        .args(extra)
        .output()
        .expect("simfind runs");
    let warnings = stderr(&out);
    (out.status.code().unwrap_or(-1), out.stdout, warnings)
}

#[test]
fn reading_ahead_changes_nothing_in_the_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("corpus");
    corpus(&dir);
    for extra in [
        &["-t", "0.8"][..],
        &["--method", "exact", "-t", "0.7"],
        &["--verify", "signature", "-t", "0.8"],
        &["--format", "clusters", "-t", "0.8"],
    ] {
        let (code, want, warnings) = scan(&dir, "1", "0", extra);
        assert_eq!(code, 0, "{extra:?}: {warnings}");
        assert!(want.len() > 1000, "{extra:?}: the corpus has pairs");
        for (threads, io) in [("1", "1"), ("2", "3"), ("2", "64")] {
            let got = scan(&dir, threads, io, extra);
            assert_eq!(
                (got.0, &got.1, &got.2),
                (code, &want, &warnings),
                "{extra:?}, -j {threads} --io-threads {io}"
            );
        }
    }
}

#[test]
fn io_threads_beyond_the_bound_is_a_usage_error() {
    let out = simfind()
        .args(["scan", "testdata", "--io-threads", "5000"])
        .output()
        .unwrap();
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(message.contains("--io-threads"), "{message}");
    assert!(out.stdout.is_empty());
}

#[test]
fn an_index_built_reading_ahead_is_the_same_index() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("corpus");
    corpus(&dir);
    let mut answers = Vec::new();
    for io in ["0", "5"] {
        let db = tmp.path().join(format!("index-{io}.db"));
        let built = simfind()
            .args(["index", "-q"])
            .arg(&dir)
            .arg("--db")
            .arg(&db)
            .args(["--io-threads", io])
            .output()
            .unwrap();
        assert_eq!(built.status.code(), Some(0), "{}", stderr(&built));
        // Everything stored is what a scan of the index reports; none of it
        // is read again (nothing changed).
        let scanned = simfind()
            .args(["scan", "-q", "-t", "0.7", "-b", "20", "-r", "5"])
            .arg(&dir)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(scanned.status.code(), Some(0), "{}", stderr(&scanned));
        answers.push(scanned.stdout);
    }
    assert!(answers[0].len() > 1000);
    assert_eq!(answers[0], answers[1]);
}
