//! A tiny harness for running the real `simfind` binary in tests: a module
//! (`tests/util/mod.rs`), not a test crate of its own. Tests that read the shared
//! corpora carry `#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]`
//! (see `build.rs`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The project root (where `testdata/` lives).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/data/<corpus>` beside the project.
pub fn shared_data(corpus: &str) -> PathBuf {
    root().join("..").join("shared").join("data").join(corpus)
}

/// A `simfind` command run from the project root.
pub fn simfind() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_simfind"));
    cmd.current_dir(root());
    cmd
}

pub fn run(args: &[&str]) -> Output {
    simfind().args(args).output().expect("simfind runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// CSV data rows of an output, as byte records (header checked and dropped).
pub fn csv_rows(bytes: &[u8]) -> Vec<csv::ByteRecord> {
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let header = reader.byte_headers().expect("header").clone();
    assert_eq!(
        header,
        csv::ByteRecord::from(vec![
            "a",
            "b",
            "similarity",
            "estimate",
            "shingles_a",
            "shingles_b",
            "shared"
        ])
    );
    reader
        .byte_records()
        .map(|r| r.expect("valid CSV row"))
        .collect()
}

/// The (a, b) paths of every row.
pub fn pair_paths(bytes: &[u8]) -> Vec<(String, String)> {
    csv_rows(bytes)
        .iter()
        .map(|r| {
            (
                String::from_utf8_lossy(&r[0]).into_owned(),
                String::from_utf8_lossy(&r[1]).into_owned(),
            )
        })
        .collect()
}

pub fn write(dir: &Path, name: &str, contents: &[u8]) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, contents).unwrap();
    path
}

/// A text long enough for many shingles, distinct per `seed`.
pub fn prose(seed: u64, words: usize) -> String {
    const VOCAB: &[&str] = &[
        "river", "stone", "lantern", "harbour", "winter", "copper", "meadow", "signal", "archive",
        "market", "garden", "engine", "letter", "bridge", "candle", "forest", "island", "mirror",
        "pocket", "thunder",
    ];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..words)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            VOCAB[(x % VOCAB.len() as u64) as usize]
        })
        .collect::<Vec<_>>()
        .join(" ")
}
