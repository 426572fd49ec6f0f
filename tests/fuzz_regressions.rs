//! Replays every kept fuzz input — the seed corpus `fuzz/corpus/<target>/`
//! and the crash reproducers `fuzz/regressions/<target>/` — through the
//! property its target checks (`fuzz/src/props.rs`, included here so that
//! both run the same code), on stable with every `cargo test`. Fuzzing
//! itself is `fuzz/run.sh` (nightly, not part of the tests).

#[path = "../fuzz/src/props.rs"]
mod props;

#[path = "../fuzz/src/inputs.rs"]
mod inputs;

use std::path::Path;

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
#[cfg_attr(miri, ignore = "Parquet files on disk: Miri runs no file system")]
fn exchange() {
    replay("exchange", inputs::exchange);
}

#[test]
fn explain() {
    replay("explain", inputs::explain);
}
