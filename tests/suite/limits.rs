//! The memory budget (#14 item 4): before a stage whose memory is known is
//! allocated, its size is compared with what the limits leave (here the
//! address-space limit, `ulimit -v`), and a stage that cannot fit ends the
//! run with exit 2 and a message that names the stage, the limit and the
//! options that lower it: no SIGABRT, no output, no temporary file.

use crate::util;
use std::process::{Command, Output};

/// Runs the binary with `args` under `ulimit -v` of `limit_kb`, in `dir`.
fn run_limited(dir: &std::path::Path, limit_kb: u64, args: &[&str]) -> Output {
    Command::new("sh")
        // One malloc arena: glibc reserves 64 MB of address space per extra
        // arena, which would make the limit measure threads, not data.
        .env("MALLOC_ARENA_MAX", "1")
        .current_dir(dir)
        .arg("-c")
        .arg(format!("ulimit -v {limit_kb} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_simfind"))
        .args(args)
        .output()
        .expect("sh runs")
}

/// 1,000 small files whose signatures, at 500 bands × 100 rows, are 200 MB
/// of matrix: beyond the 150 MB of address space the runs below get (a run
/// on them otherwise needs about 20 MB).
fn files(dir: &std::path::Path) -> std::path::PathBuf {
    let files = dir.join("files");
    std::fs::create_dir(&files).unwrap();
    for i in 0..1000 {
        let text = format!("file number {i} with some words that repeat {}", i * 7919);
        std::fs::write(files.join(format!("f{i:04}.txt")), text).unwrap();
    }
    files
}

#[test]
fn a_stage_beyond_the_address_space_limit_fails_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let files = files(dir.path());
    let root = files.to_str().unwrap();
    let out = dir.path().join("out.csv");
    let db = dir.path().join("x.db");
    let big = ["--bands", "500", "--rows", "100"];
    let runs: [Vec<&str>; 2] = [
        [
            &["--threads", "1", "scan", "-q", root, "--method", "lsh"][..],
            &big,
            &["-o", out.to_str().unwrap()],
        ]
        .concat(),
        [
            &["--threads", "1", "index", "-q", root][..],
            &big,
            &["--db", db.to_str().unwrap()],
        ]
        .concat(),
    ];
    for args in &runs {
        let run = run_limited(dir.path(), 150_000, args);
        let err = util::stderr(&run);
        assert_eq!(
            run.status.code(),
            Some(2),
            "{args:?}: {:?} {err}",
            run.status
        );
        assert!(
            err.contains("out of memory: the signature matrix needs")
                && err.contains("MiB the address-space limit (ulimit -v) leaves")
                && err.contains("fewer --bands or --rows"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("memory allocation of"), "{err}");
        assert!(util::stdout(&run).is_empty());
    }
    assert!(!out.exists(), "no output file");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "files" && n != "x.db")
        .collect();
    assert!(left.is_empty(), "nothing left beside the inputs: {left:?}");
    // The same runs with room to spare succeed: the budget is not a limit
    // of its own.
    let small = run_limited(dir.path(), 4_000_000, &runs[0]);
    assert_eq!(small.status.code(), Some(0), "{}", util::stderr(&small));
}
