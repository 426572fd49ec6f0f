//! The command-line conventions of issue #19 that every subcommand shares:
//! `-q` and `-v` everywhere (`-vv` more), `--color` and NO_COLOR, one
//! `simfind: error:` prefix for clap's usage errors and ours (exit 2).

use crate::util::*;

/// A command line of each subcommand that succeeds on testdata, built
/// against an index in `dir`.
fn each_subcommand(dir: &std::path::Path) -> Vec<Vec<String>> {
    let db = dir.join("t.simfind").to_str().unwrap().to_string();
    let out = run(&["index", "testdata", "--db", &db, "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let svg = dir.join("c.svg").to_str().unwrap().to_string();
    [
        vec!["scan", "testdata"],
        vec!["index", "testdata", "--db", &db],
        vec!["query", "testdata/news/lighthouse.txt", "--db", &db],
        vec![
            "compare",
            "testdata/misc/tiny.txt",
            "testdata/misc/empty.txt",
        ],
        vec!["curve", "-b", "20", "-r", "5", "--svg", &svg],
        vec!["tune", "-t", "0.8"],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(String::from).collect())
    .collect()
}

#[test]
fn every_subcommand_takes_q_and_v() {
    let dir = tempfile::tempdir().unwrap();
    for args in each_subcommand(dir.path()) {
        let loud = simfind().args(&args).output().unwrap();
        let quiet = simfind().args(&args).arg("-q").output().unwrap();
        let verbose = simfind().args(&args).arg("-v").output().unwrap();
        for (out, flag) in [(&loud, ""), (&quiet, "-q"), (&verbose, "-v")] {
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args:?} {flag}: {}",
                stderr(out)
            );
        }
        assert_eq!(
            quiet.stdout, loud.stdout,
            "{args:?}: -q changes only stderr"
        );
        assert_eq!(
            verbose.stdout, loud.stdout,
            "{args:?}: -v changes only stderr"
        );
        assert!(quiet.stderr.is_empty(), "{args:?} -q: {}", stderr(&quiet));
        if args[0] != "tune" {
            assert!(
                !loud.stderr.is_empty(),
                "{args:?} says something without -q"
            );
        }
    }
}

#[test]
fn vv_adds_the_seconds_of_each_stage() {
    let v = run(&["scan", "testdata", "-v"]);
    let vv = run(&["scan", "testdata", "-vv"]);
    assert_eq!(v.stdout, vv.stdout);
    assert!(stderr(&v).contains("simfind: note: "), "{}", stderr(&v));
    assert!(!stderr(&v).contains("simfind: stage "));
    assert!(
        stderr(&vv).contains("simfind: stage 2/4 Reading and signing: "),
        "{}",
        stderr(&vv)
    );
    let both = run(&["scan", "testdata", "-q", "-v"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn one_error_prefix_for_usage_errors_and_ours() {
    for args in [
        vec!["scna", "testdata"],
        vec!["scan", "testdata", "--no-such-flag"],
        vec!["scan", "testdata", "-t", "abc"],
        vec!["scan", "/nonexistent"],
        vec!["curve", "-b", "20", "-b", "5", "-r", "5"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        assert!(err.starts_with("simfind: error: "), "{args:?}: {err}");
        assert_eq!(err.matches("error:").count(), 1, "{args:?}: {err}");
    }
    // Help and version are not errors.
    let help = run(&["scan", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).starts_with("Find near-duplicate files"));
}

#[test]
fn color_follows_the_flag_and_no_color() {
    let red = "\u{1b}[";
    let never = run(&["--color", "never", "scan", "/nonexistent"]);
    assert!(!stderr(&never).contains(red));
    let always = run(&["scan", "/nonexistent", "--color=always"]);
    assert!(
        stderr(&always).starts_with("simfind: \u{1b}["),
        "{}",
        stderr(&always)
    );
    // Not a terminal: auto is plain.
    let auto = run(&["scan", "/nonexistent"]);
    assert!(!stderr(&auto).contains(red));
    // A command-line flag wins over NO_COLOR (no-color.org).
    let flag_wins = simfind()
        .args(["scan", "/nonexistent", "--color", "always"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(stderr(&flag_wins).contains(red));
    // Usage errors too.
    let usage = run(&["--color", "always", "scna"]);
    assert!(
        stderr(&usage).starts_with("simfind: \u{1b}["),
        "{}",
        stderr(&usage)
    );
    let bad = run(&["--color", "sometimes", "scan", "testdata"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `-j/--threads` only where it does something: scan, index, query, tune and
/// dedupe take it (before or after the subcommand, with the same output);
/// curve and compare refuse it.
#[test]
fn threads_only_where_they_do_something() {
    let before = run(&["-j", "2", "scan", "testdata", "-q"]);
    let after = run(&["scan", "testdata", "-q", "--threads", "2"]);
    assert_eq!(before.status.code(), Some(0));
    assert_eq!(before.stdout, after.stdout);
    for args in [
        vec!["-j", "2", "curve", "-b", "20", "-r", "5"],
        vec![
            "compare",
            "-j",
            "1",
            "testdata/misc/tiny.txt",
            "testdata/misc/empty.txt",
        ],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let tune_one = run(&["-j", "1", "tune", "-t", "0.8"]);
    let tune_two = run(&["tune", "-t", "0.8", "-j", "2"]);
    assert_eq!(tune_one.status.code(), Some(0), "{}", stderr(&tune_one));
    assert_eq!(tune_one.stdout, tune_two.stdout);
    let dedupe = run(&["dedupe", "testdata", "-q", "-j", "1"]);
    assert_eq!(dedupe.status.code(), Some(0), "{}", stderr(&dedupe));
    for sub in ["curve", "compare"] {
        let help = stdout(&run(&[sub, "--help"]));
        assert!(!help.contains("--threads"), "{sub} --help lists --threads");
    }
    for sub in ["scan", "index", "query", "tune", "dedupe"] {
        let help = stdout(&run(&[sub, "--help"]));
        assert!(help.contains("--threads"), "{sub} --help lacks --threads");
    }
}

/// `--bands` without `--rows` (or the reverse) takes the other's default in
/// curve as it does in scan (20 bands, 5 rows).
#[test]
fn bands_without_rows_mean_the_same_in_scan_and_curve() {
    let curve = |args: &[&str]| {
        let out = run(&[&["curve"][..], args].concat());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        out.stdout
    };
    assert_eq!(curve(&["-b", "10"]), curve(&["-b", "10", "-r", "5"]));
    assert_eq!(curve(&["-r", "7"]), curve(&["-b", "20", "-r", "7"]));
    let scan = |args: &[&str]| {
        let out = run(&[
            &[
                "scan",
                "testdata",
                "--summary-json",
                "-",
                "-o",
                "/dev/null",
                "-q",
            ][..],
            args,
        ]
        .concat());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            summary["lsh"]["bands"].as_u64().unwrap(),
            summary["lsh"]["rows"].as_u64().unwrap(),
        )
    };
    assert_eq!(scan(&["-b", "10"]), (10, 5));
    assert_eq!(scan(&["-r", "7"]), (20, 7));
}
