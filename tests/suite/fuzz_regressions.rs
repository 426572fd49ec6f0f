//! Replays every kept fuzz input — the seed corpus `fuzz/corpus/<target>/`
//! and the crash reproducers `fuzz/regressions/<target>/` — through the
//! property its target checks (`fuzz/src/props.rs`, included here so that
//! both run the same code), on stable with every `cargo test`, and then
//! fuzzes each property for a bounded number of rounds with inputs mutated
//! from that corpus (`mutate`).
//!
//! The mutation rounds are blind, not coverage-guided: the guided fuzzer is
//! `fuzz/run.sh` (cargo-fuzz, nightly), whose instrumented build takes longer
//! than all of CI (docs/RELIABILITY.md, "Fuzzing and Miri"). These rounds
//! reuse the test build, so CI fuzzes every target on every submission in
//! seconds: `.ci/run` runs this module again for a few seconds a target
//! with a seed taken from the commit. A failure names the target, the seed and the
//! round, and writes the input under `target/fuzz-failures/` to be kept in
//! `fuzz/regressions/<target>/`.

use std::path::Path;

use crate::{actions, exchange_input, inputs, props};

type Property = fn(&[u8]);

/// The files of `dir` (none if it does not exist), sorted.
fn inputs(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .map(|e| e.expect("a readable directory").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Every input of `target` through `property`; a failure names the file.
fn replay(target: &str, property: Property) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let corpus = inputs(&root.join("corpus").join(target));
    assert!(
        !corpus.is_empty(),
        "fuzz/corpus/{target}/ has no seed inputs: the replay would check nothing"
    );
    let regressions = inputs(&root.join("regressions").join(target));
    let mut failed = Vec::new();
    for file in corpus.iter().chain(&regressions) {
        let data = std::fs::read(file).expect("a readable input");
        if std::panic::catch_unwind(|| property(&data)).is_err() {
            failed.push(file.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: these inputs fail: {failed:#?}"
    );
    mutate(target, property, &corpus);
}

/// How long each target is fuzzed: `SIMFIND_FUZZ_SECONDS` (CI's step) runs
/// rounds until that many seconds have passed, since the targets' costs
/// differ a thousandfold (an SQLite index against a string); otherwise
/// `SIMFIND_FUZZ_ROUNDS` rounds, or a few dozen, so that a plain
/// `cargo test` stays quick and does the same work on every machine.
fn budget() -> (u64, Option<std::time::Duration>) {
    let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    match number("SIMFIND_FUZZ_SECONDS") {
        Some(seconds) => (
            number("SIMFIND_FUZZ_ROUNDS").unwrap_or(u64::MAX),
            Some(std::time::Duration::from_secs(seconds)),
        ),
        None => (number("SIMFIND_FUZZ_ROUNDS").unwrap_or(48), None),
    }
}

/// The run's seed: `SIMFIND_FUZZ_SEED` (hexadecimal, e.g. a commit), or 0.
fn seed() -> u64 {
    std::env::var("SIMFIND_FUZZ_SEED")
        .ok()
        .and_then(|v| u64::from_str_radix(v.get(..16).unwrap_or(&v), 16).ok())
        .unwrap_or(0)
}

/// xorshift64*: the mutations' choices, reproducible from the seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, target: &str) -> Rng {
        // FNV-1a of the target's name, so that targets differ under one seed.
        let mut state = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
        for b in target.bytes() {
            state = (state ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(state | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `bound` (0 when `bound` is 0).
    fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            0
        } else {
            (self.next() % bound as u64) as usize
        }
    }
}

/// Bytes the parsers treat specially: delimiters, quotes, line ends, the
/// ends of integer ranges, markup and PDF syntax.
const INTERESTING: &[u8] = b"\0\xff\x7f\x80\n\r\t\",;{}[]<>%/\\ 0-.";

/// One input grown from the corpus by a stack of 1 to 8 havoc mutations
/// (bit flips, bytes set, inserted, deleted, duplicated, and splices from
/// another input), at most twice the largest seed or 64 KiB.
fn mutated(rng: &mut Rng, corpus: &[Vec<u8>], cap: usize) -> Vec<u8> {
    let mut data = corpus[rng.below(corpus.len())].clone();
    for _ in 0..1 + rng.below(8) {
        let len = data.len();
        match rng.below(8) {
            0 if len > 0 => {
                let at = rng.below(len);
                data[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                data[at] = rng.next() as u8;
            }
            2 if len > 0 => {
                let at = rng.below(len);
                data[at] = INTERESTING[rng.below(INTERESTING.len())];
            }
            3 => {
                let at = rng.below(len + 1);
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                data.splice(at..at, bytes);
            }
            4 if len > 1 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(len / 4 + 1));
                data.drain(at..at + n);
            }
            5 if len > 0 => {
                let from = rng.below(len);
                let n = 1 + rng.below((len - from).min(256));
                let chunk = data[from..from + n].to_vec();
                let at = rng.below(len + 1);
                data.splice(at..at, chunk);
            }
            6 => {
                let other = &corpus[rng.below(corpus.len())];
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            _ => {
                let other = &corpus[rng.below(corpus.len())];
                if other.is_empty() || len == 0 {
                    continue;
                }
                let from = rng.below(other.len());
                let n = 1 + rng.below((other.len() - from).min(64));
                let at = rng.below(len);
                let end = (at + n).min(len);
                data.splice(at..end, other[from..from + (end - at)].iter().copied());
            }
        }
        data.truncate(cap);
    }
    data
}

/// `rounds()` mutated inputs through `property`; the first that fails is
/// written to `target/fuzz-failures/` and named with the seed and round.
fn mutate(target: &str, property: Property, corpus_files: &[std::path::PathBuf]) {
    let corpus: Vec<Vec<u8>> = corpus_files
        .iter()
        .map(|file| std::fs::read(file).expect("a readable input"))
        .collect();
    let cap = corpus
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .saturating_mul(2)
        .max(64 << 10);
    let seed = seed();
    let mut rng = Rng::new(seed, target);
    let (rounds, seconds) = budget();
    let started = std::time::Instant::now();
    for round in 0..rounds {
        if seconds.is_some_and(|limit| started.elapsed() >= limit) {
            break;
        }
        let data = mutated(&mut rng, &corpus, cap);
        if std::panic::catch_unwind(|| property(&data)).is_err() {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
            std::fs::create_dir_all(&dir).expect("a folder for the failing input");
            let file = dir.join(format!("{target}-{seed:016x}-{round}"));
            std::fs::write(&file, &data).expect("the failing input written");
            panic!(
                "{target}: a mutated input fails (SIMFIND_FUZZ_SEED={seed:016x}, round {round}); \
                 it is {}: keep it in fuzz/regressions/{target}/ once fixed",
                file.display()
            );
        }
    }
}

#[test]
fn normalize() {
    replay("normalize", props::normalize);
}

#[test]
fn shingle() {
    replay("shingle", props::shingle);
}

#[test]
fn chunked() {
    replay("chunked", props::chunked);
}

#[test]
fn stopwords() {
    replay("stopwords", props::stopwords);
}

#[test]
fn size() {
    replay("size", props::size);
}

#[test]
fn writers() {
    replay("writers", props::writers);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "SQLite is C and the index is a file: Miri runs neither"
)]
fn index() {
    replay("index", props::index);
}

#[test]
fn records() {
    replay("records", inputs::records);
}

#[test]
fn vectors() {
    replay("vectors", inputs::vectors);
}

#[test]
fn csv_recovery() {
    replay("csv_recovery", inputs::csv_recovery);
}

#[test]
fn bits_header() {
    replay("bits_header", inputs::bits_header);
}

#[test]
#[cfg_attr(miri, ignore = "Parquet files on disk: Miri runs no file system")]
fn exchange() {
    replay("exchange", exchange_input::exchange);
}

#[test]
fn journal() {
    replay("journal", actions::journal);
}

#[test]
fn from_list() {
    replay("from_list", actions::from_list);
}

#[test]
fn plan() {
    replay("plan", actions::plan);
}

#[test]
fn explain() {
    replay("explain", inputs::explain);
}

/// Each exchange reproducer, damaged as its bytes say, given to the binary's
/// `verify` and `group`: a result or exit 2 naming a file, never a panic
/// (the parquet crate panicked on a footer giving a column chunk a negative
/// offset, found by `fuzz/run.sh 120 exchange`).
#[test]
#[cfg_attr(miri, ignore = "runs the binary")]
fn damaged_exchange_files_are_refused_by_verify_and_group() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let reproducers = inputs(&root.join("regressions").join("exchange"));
    assert!(!reproducers.is_empty(), "no exchange reproducer kept");
    for file in reproducers {
        let data = std::fs::read(&file).expect("a readable input");
        let dir = tempfile::tempdir().expect("a temporary directory");
        if exchange_input::damaged_exchange(&data, dir.path()).is_none() {
            continue;
        }
        for command in ["verify", "group"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_simfind"))
                .current_dir(dir.path())
                .args([
                    command,
                    "--pairs",
                    "pairs.parquet",
                    "--docs",
                    ".",
                    "-t",
                    "0.1",
                ])
                .output()
                .expect("simfind runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!err.contains("panicked"), "{command} {file:?}: {err}");
            assert!(
                matches!(out.status.code(), Some(0..=2)),
                "{command} {file:?}: {:?} {err}",
                out.status
            );
            if out.status.code() == Some(2) {
                assert!(err.contains(".parquet"), "{command} {file:?}: {err}");
            }
        }
    }
}

#[test]
fn extract_pdf() {
    replay("extract_pdf", inputs::extract_pdf);
}

#[test]
fn extract_office() {
    replay("extract_office", inputs::extract_office);
}

#[test]
fn extract_html() {
    replay("extract_html", inputs::extract_html);
}

#[test]
fn extract_mail() {
    replay("extract_mail", inputs::extract_mail);
}

#[test]
fn extract_rtf() {
    replay("extract_rtf", inputs::extract_rtf);
}

#[test]
fn extract_text() {
    replay("extract_text", inputs::extract_text);
}
