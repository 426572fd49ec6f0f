//! A tiny harness for running the real `simfind` binary in tests, and the
//! seeded generators and corpora the tests share: a module of both test
//! binaries (`tests/suite/`, `tests/engines/`), not a test crate of its own.
//! Tests that read the shared corpora carry
//! `#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]` (see
//! `build.rs`).
#![allow(dead_code)]

pub mod exchange;
pub mod report;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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

/// [`run`] with arguments that are not all strings (paths): see [`args!`].
pub fn run_os(args: &[&OsStr]) -> Output {
    simfind().args(args).output().expect("simfind runs")
}

/// `args!["query", path, "-t", t.to_string()]`: strings, paths and owned
/// strings as one `&[&OsStr]`, for [`run_os`].
#[allow(unused_macros)]
macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new(&$a)),*][..] };
}
// Not every binary (or every module of one) uses it.
#[allow(unused_imports)]
pub(crate) use args;

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
    let mut rng = XorShift64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..words)
        .map(|_| VOCAB[rng.below(VOCAB.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// `n` words of random letters, distinct per `seed`: unlike [`prose`], two
/// seeds share almost no 5-shingles, so the similarity of two texts made of
/// them is set by how many words they share.
pub fn letter_words(seed: u64, n: usize) -> Vec<String> {
    let mut rng = XorShift64::seeded(seed);
    (0..n)
        .map(|_| {
            // The length from the state as it stands, before the letters step it.
            let len = 3 + (rng.0 % 6) as usize;
            (0..len)
                .map(|_| (b'a' + rng.below(26) as u8) as char)
                .collect()
        })
        .collect()
}

/// Runs of words joined by spaces, as a file's bytes.
pub fn words_text(parts: &[&[String]]) -> Vec<u8> {
    parts.concat().join(" ").into_bytes()
}

/// `simfind ARGS` run inside `dir` (so paths are short and relative), with
/// `stdin` fed in.
/// `simfind ARGS` run in `dir` with no input, its output captured.
pub fn sim_in(dir: &Path, args: &[&str]) -> Output {
    simfind()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("simfind runs")
}

/// The exit code of a run that exited (not killed by a signal).
pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exited")
}

pub fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = simfind()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("simfind runs");
    // A run refused before it reads its input closes the pipe first: what
    // was not taken is not the test's concern, the output is.
    match child.stdin.take().unwrap().write_all(stdin) {
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    }
    child.wait_with_output().unwrap()
}

/// The twelve words [`near_copy_texts`] writes with.
pub const NEAR_COPY_WORDS: [&str; 12] = [
    "apple", "brook", "cedar", "delta", "ember", "fjord", "grove", "haven", "inlet", "jolly",
    "knoll", "lumen",
];

/// `count` short texts of [`NEAR_COPY_WORDS`], each ending in its own
/// ` n{i}`, every 10th (i % 10 == 1) a near-copy of the one before with one
/// word changed to `zephyr`: records with a known share of similar pairs.
pub fn near_copy_texts(count: usize) -> Vec<String> {
    let words = NEAR_COPY_WORDS;
    let mut texts: Vec<String> = Vec::with_capacity(count);
    for i in 0..count {
        let text = match texts.last() {
            Some(previous) if i % 10 == 1 => previous.replacen(words[i % 12], "zephyr", 1),
            _ => {
                (0..12)
                    .map(|w| words[(i * 7 + w * w * 3 + i / 12) % 12])
                    .collect::<Vec<_>>()
                    .join(" ")
                    + &format!(" n{i}")
            }
        };
        texts.push(text);
    }
    texts
}

/// SplitMix64, the generator of the vector tests' data: seeded, so every run
/// makes the same points, and independent of simfind's own generators, so
/// that a change to those cannot change what the tests are given.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1]: never 0, so that its logarithm is finite.
    pub fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [−1, 1).
    pub fn signed(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// Standard normal (Box–Muller, one of the pair).
    pub fn gauss(&mut self) -> f64 {
        (-2.0 * self.uniform().ln()).sqrt() * (std::f64::consts::TAU * self.uniform()).cos()
    }
}

/// Marsaglia's xorshift64 (shifts 13, 7, 17), the generator of [`prose`]
/// and of the record, print and word tests' data. The state must not be 0.
pub struct XorShift64(pub u64);

impl XorShift64 {
    /// The generator of `seed`: distinct seeds (0 among them) start far
    /// apart, and the state is never 0.
    pub fn seeded(seed: u64) -> Self {
        XorShift64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// In 0..n (modulo: slightly uneven, which test data does not mind).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// SQL that turns a version 6 index whose lookup tail is empty (what
/// `index` leaves) into the version 5 layout of its band keys: one
/// `band_keys` row per key and its lookup index. The tests of older
/// formats then set the version marks they need.
pub const TO_FORMAT_5: &str = "
CREATE TABLE band_keys (
    doc  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    band INTEGER NOT NULL,
    key  INTEGER NOT NULL,
    PRIMARY KEY (doc, band)
) WITHOUT ROWID;
CREATE INDEX band_keys_lookup ON band_keys(band, key);
INSERT INTO band_keys (doc, band, key) SELECT doc, band, key FROM band_lookup;
DROP TABLE band_lookup; DROP TABLE doc_keys; DROP TABLE lookup_tail;
UPDATE params SET value = '5' WHERE name = 'format_version';
PRAGMA user_version = 5;
";
