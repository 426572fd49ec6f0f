//! The types that cross stages: what a scan reports about each document and
//! each similar pair. One definition of each, used by the pipeline, the index,
//! clustering and the binary's writers.

use std::path::Path;
use std::time::SystemTime;

pub mod nearest;
mod pairs;
pub use pairs::{ContentId, DocPairs, Iter as DocPairsIter};

/// What became of one walked file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocStatus {
    /// Read and shingled (possibly to an empty set: see `shingles`).
    Read,
    /// Looked binary and was skipped.
    Binary,
    /// Could not be read, or changed while read; a warning was reported.
    Failed,
}

/// One walked file. Its index in `ScanOutcome::documents` is its id.
///
/// One is kept per file until the output is written (a million of them in
/// a scan of a million files), so it is kept small: 48 bytes plus the path,
/// allocated at its exact length.
#[derive(Clone, Debug)]
pub struct Document {
    pub path: Box<Path>,
    pub size: u64,
    pub modified: Option<SystemTime>,
    /// Number of distinct shingles (0 unless read), exact for every document
    /// of a reported pair. For other documents of an LSH scan with exact
    /// verification it may be an upper bound (see `Keep::Signature`), zero
    /// exactly when the set is empty. A set of 2³² hashes would take 32 GiB
    /// while signing, so a `u32` holds any count a scan reaches.
    pub shingles: u32,
    pub status: DocStatus,
}

/// Two documents (`a < b`, ids) whose similarity reached the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimilarPair {
    pub a: u32,
    pub b: u32,
    /// Exact Jaccard similarity, or the signature estimate with
    /// `Verification::Signature`.
    pub similarity: f64,
    /// Fraction of agreeing MinHash values; `None` with the exact method,
    /// which computes no signatures.
    pub estimate: Option<f64>,
    /// Size of the intersection of the shingle sets, when verified exactly.
    pub shared: Option<usize>,
}

impl SimilarPair {
    /// Two byte-identical files: similar at 1.0 by their content hash alone,
    /// with no signature or set compared (`a` and `b` are filled in where it
    /// is used).
    pub const IDENTICAL: SimilarPair = SimilarPair {
        a: 0,
        b: 0,
        similarity: 1.0,
        estimate: None,
        shared: None,
    };
}
