//! Replays every kept fuzz input — the seed corpus `fuzz/corpus/<target>/`
//! and the crash reproducers `fuzz/regressions/<target>/` — through the
//! property its target checks (`fuzz/src/props.rs`, included here so that
//! both run the same code), on stable with every `cargo test`. Fuzzing
//! itself is `fuzz/run.sh` (nightly, not part of the tests).

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
