//! Hostile cases of the reliability review (../shared/reviews/reliability.md)
//! tried against the subcommands that came after it (records, vectors, the
//! exchange, explain, fingerprint, score, validate, probe), through the real
//! binary: a closed stdout, a FIFO as an input, a header without a newline.
//! docs/RELIABILITY.md, "Hostile cases of the later inputs", lists every case
//! tried with its command and result.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::{root, stderr, stdout, write};

/// `simfind ARGS` through bash, with `redirect` applied to it (`>&-`), in
/// `dir`; at most 120 s (`timeout`: a hang is exit 124, not a stuck suite).
fn bash_in(dir: &Path, args: &[&str], redirect: &str) -> Output {
    Command::new("bash")
        .current_dir(dir)
        .arg("-c")
        .arg(format!("timeout 120 \"$0\" \"$@\" {redirect}"))
        .arg(env!("CARGO_BIN_EXE_simfind"))
        .args(args)
        .output()
        .expect("bash runs")
}

/// Every subcommand whose data goes to stdout alone (no `-o`), with
/// arguments that make it print.
fn stdout_only_commands(data: &str) -> Vec<Vec<String>> {
    let a = format!("{data}/mmds/er-a.csv");
    let b = format!("{data}/mmds/er-b.csv");
    let fig = format!("{data}/mmds/fig3-2.txt");
    let text = root().join("README.md").display().to_string();
    [
        vec!["compare", &text, &text],
        vec!["explain", &text, &text],
        vec!["tune", "-t", "0.8"],
        vec!["minhash", "--matrix", &fig, "--hash", "x+1 mod 5"],
        vec!["probe", "abc"],
        vec!["fingerprint"],
        vec!["score", &a, &b, "--fields", "name"],
        vec![
            "validate",
            "--random",
            "45",
            "--perfect",
            "10",
            "--observed",
            "20",
        ],
    ]
    .iter()
    .map(|args| args.iter().map(|s| s.to_string()).collect())
    .collect()
}

#[test]
fn a_closed_stdout_is_an_error_before_any_work_for_every_stdout_only_command() {
    let data = root().join("tests/data").display().to_string();
    for args in stdout_only_commands(&data) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let open = bash_in(&root(), &args, ">/dev/null");
        assert_eq!(open.status.code(), Some(0), "{args:?}: {}", stderr(&open));
        let closed = bash_in(&root(), &args, ">&-");
        let err = stderr(&closed);
        assert_eq!(closed.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("standard output is closed, so the output would be lost"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn score_reads_a_fifo_once_and_scores_it_as_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = root().join("tests/data/mmds/er-a.csv");
    let b = std::fs::read(root().join("tests/data/mmds/er-b.csv")).unwrap();
    write(dir.path(), "b.csv", &b);
    let args = |b: &str| {
        vec![
            "score".to_string(),
            a.display().to_string(),
            b.to_string(),
            "--fields".into(),
            "name,address,phone".into(),
        ]
    };
    let file_args = args("b.csv");
    let file_args: Vec<&str> = file_args.iter().map(String::as_str).collect();
    let from_file = bash_in(dir.path(), &file_args, "");
    assert_eq!(from_file.status.code(), Some(0), "{}", stderr(&from_file));
    assert!(stdout(&from_file).lines().count() > 1);

    let fifo = dir.path().join("b.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // The writer opens the FIFO once and writes the file: a second open by
    // the reader would wait for a writer forever (exit 124 under timeout).
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, b).unwrap())
    };
    let fifo_args = args("b.fifo");
    let fifo_args: Vec<&str> = fifo_args.iter().map(String::as_str).collect();
    let from_fifo = bash_in(dir.path(), &fifo_args, "");
    writer.join().unwrap();
    assert_eq!(from_fifo.status.code(), Some(0), "{}", stderr(&from_fifo));
    assert_eq!(stdout(&from_fifo), stdout(&from_file));
}

#[test]
fn score_refuses_a_header_without_a_newline_beyond_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    // 20 MB of one header line and no newline: beyond the cap of 16 MiB.
    write(dir.path(), "huge.csv", &vec![b'x'; 20_000_000]);
    let a = root()
        .join("tests/data/mmds/er-a.csv")
        .display()
        .to_string();
    let out = bash_in(
        dir.path(),
        &["score", &a, "huge.csv", "--fields", "name"],
        "",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("huge.csv:1: the header is longer than the cap of 16777216 bytes"),
        "{err}"
    );
    assert_eq!(stdout(&out), "");
}
