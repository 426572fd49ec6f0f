//! The index's unit tests: shared fixtures here, one file per topic under
//! `tests/`.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use super::*;

fn params() -> Params {
    Params {
        shingle_kind: "char".into(),
        k: 5,
        normalisation: "utf8-lossy,lowercase,collapse-whitespace,trim".into(),
        n: 8,
        bands: 4,
        rows: 2,
        seed: 42,
        minhash: "classic".into(),
        stop_words: String::new(),
        include_binary: false,
        extraction: "none".into(),
    }
}

fn opts() -> OpenOptions {
    OpenOptions {
        busy_timeout: Duration::from_secs(10),
    }
}

/// A deterministic document whose values all derive from `i` (and `generation`, so
/// that a changed version of the same path differs in every field).
fn doc_for(p: &Params, path: impl Into<PathBuf>, i: u64, generation: u64) -> IndexedDoc {
    let mix = |x: u64| x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ generation;
    IndexedDoc {
        path: path.into(),
        stat: FileStat {
            size: i * 100 + generation,
            mtime_ns: 1_700_000_000_000_000_000 + i as i64 * 1000 + generation as i64,
            dev: Some(2049),
            inode: Some(1000 + i),
        },
        content_hash: (u128::from(mix(i)) << 64) | u128::from(generation),
        binary: false,
        not_compared: None,
        shingle_count: i + generation + 1,
        signature: (0..p.n)
            .map(|j| mix(i * 1000 + u64::from(j)) as u32)
            .collect(),
        band_keys: (0..p.bands)
            .map(|b| mix(i * 7919 + u64::from(b) + generation))
            .collect(),
    }
}

fn doc(path: &str, i: u64) -> IndexedDoc {
    doc_for(&params(), path, i, 0)
}

fn stored(doc: &IndexedDoc, id: RowId) -> StoredDoc {
    StoredDoc {
        id,
        path: doc.path.clone(),
        stat: doc.stat,
        content_hash: doc.content_hash,
        binary: doc.binary,
        not_compared: doc.not_compared.clone(),
        shingle_count: doc.shingle_count,
        signature: doc.signature.clone(),
    }
}

/// `(path, hash, signature, band keys)` of every document: the whole observable
/// state of an index, for before/after comparisons.
type Snapshot = Vec<(PathBuf, u128, Vec<u32>, Vec<u64>)>;

fn snapshot(index: &Index) -> Snapshot {
    index
        .documents()
        .unwrap()
        .into_iter()
        .map(|d| {
            let keys = index.band_keys(d.id).unwrap();
            (d.path, d.content_hash, d.signature, keys)
        })
        .collect()
}

fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("index.sqlite")
}

mod corruption;
mod format;
#[cfg(unix)]
mod kill;
mod locking;
#[cfg(unix)]
mod lookup;
mod snapshot;
mod storage;
mod tail;
