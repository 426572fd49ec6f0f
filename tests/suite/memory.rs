//! Memory bounds that must hold whatever the corpus (docs/RELIABILITY.md,
//! "Memory and cost bounds"), checked structurally: the binary runs under an
//! address-space limit (`ulimit -v`) that the bounded code fits in with a
//! wide margin and the unbounded one cannot.

use crate::util;
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

/// `len` bytes of base64-like text in 76-column lines from a fixed-seed
/// xorshift: nearly every 5-character window differs, so the shingle set has
/// about `len` values (8 bytes each), and newlines let a large file be read
/// in chunks.
fn random_text(len: usize, seed: u64) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state = seed | 1;
    (0..len)
        .map(|i| {
            if i % 77 == 76 {
                return b'\n';
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ALPHABET[(state >> 58) as usize]
        })
        .collect()
}

/// The address space every run here is given beyond its files: what a run on
/// a few small files fits in (about 20 MB) with room for the thread, the
/// binary and glibc's arena, as the test above gives whole runs.
const BASE_KB: u64 = 50_000;
const MB: usize = 1 << 20;

/// `--verify signature` needs each file's exact distinct count. It used to
/// build the whole sorted set of a large file (and its text): for a file of
/// `F` bytes and ~`F` distinct shingles, at least 8·F bytes of set. Counted a
/// part of the hash space at a time within `--verify-memory`, it holds the
/// mapping (`F`) and a few times the cap: 50 MB + F + 4·cap is well below
/// 8·F here, so the old path cannot fit and the bounded one does.
#[test]
fn signature_verification_counts_a_large_file_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let f = 16 * MB;
    let cap = 4 * MB;
    std::fs::write(dir.path().join("big.txt"), random_text(f, 7)).unwrap();
    let limit_kb = BASE_KB + ((f + 4 * cap) / 1024) as u64;
    assert!(
        limit_kb * 1024 < 8 * f as u64,
        "the old path's set alone exceeds it"
    );
    let root = dir.path().to_str().unwrap();
    let out = run_limited(
        limit_kb,
        &[
            "--threads",
            "1",
            "scan",
            "-q",
            root,
            "--verify",
            "signature",
            "--verify-memory",
            "4M",
            "--format",
            "jsonl",
        ],
    );
    assert!(
        out.status.success(),
        "{:?} {}",
        out.status,
        util::stderr(&out)
    );
}

/// One pair of near-duplicate large files under exact verification: the two
/// sets (~8·F bytes each) used to be loaded whole whatever `--verify-memory`
/// said. Verified in passes over parts of the hash space, the run holds the
/// mappings and a few times the cap, and reports the pair with the same
/// counts as an unlimited run.
#[test]
fn verify_memory_bounds_one_pair_of_huge_sets() {
    let dir = tempfile::tempdir().unwrap();
    let f = 8 * MB;
    let cap = 4 * MB;
    let text = random_text(f, 11);
    let mut other = text.clone();
    other[f / 2] = if other[f / 2] == b'A' { b'B' } else { b'A' };
    std::fs::write(dir.path().join("a.txt"), &text).unwrap();
    std::fs::write(dir.path().join("b.txt"), &other).unwrap();
    let limit_kb = BASE_KB + ((2 * f + 4 * cap) / 1024) as u64;
    assert!(
        limit_kb * 1024 < 2 * 8 * f as u64,
        "the two sets alone exceed it"
    );
    let root = dir.path().to_str().unwrap();
    let args = ["--threads", "1", "scan", "-v", root, "--method", "lsh"];
    let limited = run_limited(limit_kb, &[&args[..], &["--verify-memory", "4M"]].concat());
    assert!(
        limited.status.success(),
        "{:?} {}",
        limited.status,
        util::stderr(&limited)
    );
    assert!(
        util::stderr(&limited).contains("passes over parts of the hash space"),
        "{}",
        util::stderr(&limited)
    );
    let free = util::run(&args);
    assert!(free.status.success(), "{}", util::stderr(&free));
    assert_eq!(util::stdout(&limited), util::stdout(&free));
    assert_eq!(util::pair_paths(&free.stdout).len(), 1);
}

/// The reliability review's case 5.10 as it was left: two near-duplicate
/// files with no whitespace at all (base64 without line breaks) were each
/// one chunk, so every reload held the file's text and its shingled piece
/// (3 × F beside the mapping) whatever `--verify-memory` said. Cut between
/// any two tight characters, the pair verifies within the mappings, the cap
/// and a few chunks; the row is the one the whole-file path gives.
#[test]
fn a_whitespace_free_pair_verifies_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let f = 24 * MB;
    let cap = 4 * MB;
    let text: Vec<u8> = random_text(f + f / 76, 13)
        .into_iter()
        .filter(|&b| b != b'\n')
        .take(f)
        .collect();
    assert!(!text.iter().any(|b| b.is_ascii_whitespace()));
    let mut other = text.clone();
    other[f / 2] = if other[f / 2] == b'A' { b'B' } else { b'A' };
    std::fs::write(dir.path().join("a.txt"), &text).unwrap();
    std::fs::write(dir.path().join("b.txt"), &other).unwrap();
    let limit_kb = BASE_KB + ((2 * f + 4 * cap) / 1024) as u64;
    assert!(
        limit_kb * 1024 < 4 * f as u64 + (BASE_KB * 1024 / 2),
        "a file held whole (mapping, text, piece) and the other's mapping exceed it"
    );
    let root = dir.path().to_str().unwrap();
    let args = ["--threads", "1", "scan", "-v", root, "--method", "lsh"];
    let limited = run_limited(limit_kb, &[&args[..], &["--verify-memory", "4M"]].concat());
    assert!(
        limited.status.success(),
        "{:?} {}",
        limited.status,
        util::stderr(&limited)
    );
    let whole = util::run(&[&args[..], &["--chunked-min-size", "1G"]].concat());
    assert!(whole.status.success(), "{}", util::stderr(&whole));
    assert_eq!(util::stdout(&limited), util::stdout(&whole));
    assert_eq!(util::pair_paths(&whole.stdout).len(), 1);
}

/// A predictable large allocation that does not fit ends the run with our
/// message (what needed how much, which options lower it) and exit 2: no
/// SIGABRT, no std `memory allocation of N bytes failed` line, no output
/// file. 1,000 files × 500 × 100 signature values are 200 MB of matrix,
/// beyond the 150 MB the run is given; the rest of the run needs ~20 MB.
#[test]
fn a_signature_matrix_too_large_ends_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    for i in 0..1000 {
        let text = format!("file number {i} with some words that repeat {}", i * 7919);
        std::fs::write(files.join(format!("f{i:04}.txt")), text).unwrap();
    }
    let output = dir.path().join("out.csv");
    let (root, out) = (files.to_str().unwrap(), output.to_str().unwrap());
    let scan = [
        "--threads",
        "1",
        "scan",
        "-q",
        root,
        "--method",
        "lsh",
        "--bands",
        "500",
        "--rows",
        "100",
        "-o",
        out,
    ];
    let index = [
        "--threads",
        "1",
        "index",
        "-q",
        root,
        "--bands",
        "500",
        "--rows",
        "100",
        "--db",
    ];
    let db = dir.path().join("x.db");
    for args in [&scan[..], &[&index[..], &[db.to_str().unwrap()]].concat()] {
        let run = run_limited(150_000, args);
        let err = util::stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("out of memory: the signature matrix needs")
                && err.contains("fewer --bands or --rows"),
            "{err}"
        );
        assert!(!err.contains("memory allocation of"), "{err}");
        assert!(util::stdout(&run).is_empty());
    }
    assert!(!output.exists(), "no output file");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".simfind-"))
        .collect();
    assert!(left.is_empty(), "no temporary file: {left:?}");
}
