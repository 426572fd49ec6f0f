//! Memory bounds that must hold whatever the corpus (docs/RELIABILITY.md,
//! "Memory and cost bounds"), checked structurally: the binary runs under an
//! address-space limit (`ulimit -v`) that the bounded code fits in with a
//! wide margin and the unbounded one cannot.

mod util;

use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary with `args` under `ulimit -v` of `limit_kb`.
fn run_limited(limit_kb: u64, args: &[&str]) -> Output {
    let mut cmd = Command::new("sh");
    // One malloc arena: glibc reserves 64 MB of address space per extra
    // arena, which would make the limit measure threads, not data.
    cmd.env("MALLOC_ARENA_MAX", "1")
        .arg("-c")
        .arg(format!("ulimit -v {limit_kb} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_simfind"))
        .args(args);
    cmd.output().expect("sh runs")
}

fn copies(dir: &Path, n: usize) {
    let text = "the quick brown fox jumps over the lazy dog and keeps running ".repeat(16);
    for i in 0..n {
        std::fs::write(dir.join(format!("f{i:05}.txt")), &text).unwrap();
    }
}

/// 4,000 copies of one file are 8·10⁶ pairs: held as rows (48 bytes each,
/// plus the grouping graph's 16 per pair) they need over 500 MB, which the
/// old expansion allocated even for groups or `--limit 10`. Held per content
/// the whole run fits in 150 MB of address space (about 8 MB resident).
#[test]
fn identical_files_are_grouped_and_listed_without_n_squared_memory() {
    let dir = tempfile::tempdir().unwrap();
    copies(dir.path(), 4000);
    let root = dir.path().to_str().unwrap();
    let base = ["--threads", "1", "scan", "-q", root];
    let clusters = run_limited(150_000, &[&base[..], &["--format", "clusters"]].concat());
    assert!(clusters.status.success(), "{}", util::stderr(&clusters));
    assert_eq!(
        util::stdout(&clusters).lines().count(),
        4001,
        "header + one group of 4,000"
    );
    let removable = run_limited(150_000, &[&base[..], &["--list-removable"]].concat());
    assert!(removable.status.success(), "{}", util::stderr(&removable));
    assert_eq!(util::stdout(&removable).lines().count(), 3999);
    let limited = run_limited(150_000, &[&base[..], &["--limit", "10"]].concat());
    assert!(limited.status.success(), "{}", util::stderr(&limited));
    let rows = util::pair_paths(&limited.stdout);
    assert_eq!(rows.len(), 10);
    assert!(
        rows.iter().all(|(a, _)| a.ends_with("f00000.txt")),
        "sorted by (a, b)"
    );
    // Counted, not listed: 4000·3999/2 pairs in the summary.
    let summary = run_limited(150_000, &["--threads", "1", "scan", root, "--limit", "1"]);
    assert!(summary.status.success(), "{}", util::stderr(&summary));
    assert!(
        util::stderr(&summary).contains("--limit: wrote 1 of 7998000 pairs"),
        "{}",
        util::stderr(&summary)
    );
}
