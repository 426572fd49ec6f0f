//! Sketches: shingle hashes → signatures. Pure: no file system, no printing.
pub mod minhash;
pub mod oph;

/// Which sketch signs the documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SketchKind {
    /// `n` hash functions per shingle ([`crate::sketch::minhash`]).
    Classic,
    /// One-permutation hashing with optimal densification ([`crate::sketch::oph`]).
    Oph,
}
