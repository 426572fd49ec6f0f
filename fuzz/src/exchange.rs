//! The property of the `exchange` fuzz target: the Parquet files of the
//! Spark/DuckDB exchange, damaged, read back by `simfind::exchange`. A module
//! of its own, compiled only with the fuzz crate's `parquet` feature, so that
//! the other targets' instrumented build leaves arrow and parquet out
//! (`scripts/fuzz.sh`). `tests/suite/fuzz_regressions.rs` includes it as the
//! other property files.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use simfind::text::normalize::Normalization;
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};

/// The undamaged exchange every `exchange` input starts from: two
/// documents' `docs` and `signatures` (shard 0/1, written by simfind's own
/// writer) and an engine's `pairs` file naming both, as (relative path,
/// bytes) sorted by path, and the (doc_id, path) of each document. Kept in
/// memory: the directory it was written in is gone.
type Base = (Vec<(PathBuf, Vec<u8>)>, Vec<(i64, Vec<u8>)>);

fn exchange_base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        use simfind::exchange::{DocRecord, KeyKind, ShardWriter};
        let dir = tempfile::tempdir().expect("a temporary directory");
        let recipe = simfind::recipe::Recipe {
            normalization: Normalization::default(),
            shingler: Shingler::new(ShingleKind::Char, 3, StopWords::default()),
            sketch: simfind::sketch::SketchKind::Classic,
            seed: 1,
            banding: simfind::lsh::Banding { bands: 2, rows: 2 },
            include_binary: false,
        };
        let params = simfind::index::Params::of(&recipe);
        let shard = "0/1".parse().expect("a shard");
        let mut writer =
            ShardWriter::create(dir.path(), shard, &params, KeyKind::Path).expect("a writer");
        let mut ids = Vec::new();
        for (path, text) in [("a.txt", "the cat sat on the mat"), ("b.txt", "")] {
            let set = recipe.set_of(text.as_bytes());
            let (signature, _) = recipe.sign(&set);
            let id = writer
                .add(DocRecord {
                    key: path.as_bytes(),
                    size: text.len() as u64,
                    modified: Some(std::time::UNIX_EPOCH),
                    hash: xxhash_rust::xxh3::xxh3_128(text.as_bytes()),
                    shingles: set.len() as u64,
                    signature: (!set.is_empty()).then_some(&signature[..]),
                })
                .expect("a row");
            ids.push((id, path.as_bytes().to_vec()));
        }
        writer.finish().expect("written");
        write_pairs(&dir.path().join("pairs.parquet"), ids[0].0, ids[1].0);
        let files = files_under(dir.path())
            .into_iter()
            .map(|f| {
                let bytes = std::fs::read(dir.path().join(&f)).expect("read");
                (f, bytes)
            })
            .collect();
        (files, ids)
    })
}

/// An engine's pairs file: one row `(a, b)`.
fn write_pairs(path: &Path, a: i64, b: i64) {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch};
    let batch = RecordBatch::try_from_iter([
        (
            "a",
            std::sync::Arc::new(Int64Array::from(vec![a])) as ArrayRef,
        ),
        (
            "b",
            std::sync::Arc::new(Int64Array::from(vec![b])) as ArrayRef,
        ),
    ])
    .expect("a batch");
    let file = std::fs::File::create(path).expect("a pairs file");
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).expect("a writer");
    writer.write(&batch).expect("a row group");
    writer.close().expect("closed");
}

/// The files of a directory tree, relative, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).expect("below").to_path_buf())
        .collect();
    out.sort();
    out
}

/// `exchange`: one of the exchange's Parquet files (docs, signatures, an
/// engine's pairs) truncated and overwritten anywhere is read by
/// `read_docs` and `read_pairs` with a result or an error, never a panic,
/// an abort or an allocation beyond the fuzzer's limit; undamaged, they
/// read back what was written.
pub fn exchange(data: &[u8]) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let Some(damaged) = damaged_exchange(data, dir.path()) else {
        return;
    };
    let ids = &exchange_base().1;
    let docs = simfind::exchange::read_docs(dir.path());
    if !damaged {
        let docs = docs.as_ref().expect("an undamaged exchange reads");
        let read: Vec<(i64, Vec<u8>)> = docs
            .docs
            .iter()
            .map(|d| (d.doc_id, d.path.clone()))
            .collect();
        assert_eq!(&read, ids);
    }
    if let Ok(docs) = &docs {
        let pairs = simfind::exchange::read_pairs(&dir.path().join("pairs.parquet"), docs);
        if !damaged {
            assert_eq!(pairs.expect("undamaged pairs read"), vec![(0, 1)]);
        }
    }
}

/// Writes the exchange files (`docs/`, `signatures/`, `pairs.parquet`)
/// into `dir` with one of them damaged as `data` says; whether it was
/// (`None`: `data` is empty). What the `exchange` target reads, and what
/// `tests/suite/fuzz_regressions.rs` gives the binary's `verify`.
pub fn damaged_exchange(data: &[u8], dir: &Path) -> Option<bool> {
    let [which, cut @ ..] = data else {
        return None;
    };
    let (files, _) = exchange_base();
    let which = usize::from(*which) % files.len();
    for (f, bytes) in files {
        let to = dir.join(f);
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("made");
        std::fs::write(&to, bytes).expect("written");
    }
    let (target, original) = &files[which];
    let mut bytes = original.clone();
    // Two bytes: where to truncate (top bit set: nowhere); then (offset,
    // value) edits of three bytes each, counted from the end of the file
    // when the offset's top bit is set (Parquet keeps its footer there).
    let mut rest = cut;
    if let [hi, lo, tail @ ..] = rest {
        if hi & 0x80 == 0 {
            let at = usize::from(u16::from_be_bytes([*hi, *lo]));
            bytes.truncate(at % (bytes.len() + 1));
        }
        rest = tail;
    }
    while let [hi, lo, value, tail @ ..] = rest {
        rest = tail;
        let at = usize::from(u16::from_be_bytes([*hi & 0x7F, *lo]));
        if bytes.is_empty() {
            break;
        }
        let i = if hi & 0x80 != 0 {
            bytes.len() - 1 - at % bytes.len()
        } else {
            at % bytes.len()
        };
        bytes[i] = *value;
    }
    std::fs::write(dir.join(target), &bytes).expect("written");
    Some(bytes != *original)
}
