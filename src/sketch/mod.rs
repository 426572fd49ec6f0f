//! Sketches: a document's shingle hashes → a MinHash signature (MMDS 3.3).
//!
//! Role: the "sign" stage. Inputs: 64-bit shingle hashes (a set for
//! [`minhash`], any stream with repeats for [`oph`]) and the recipe's
//! signature length and seed. Outputs: `n` 32-bit values per document, such
//! that two documents' signatures agree in each position with probability
//! (close to) the Jaccard similarity of their shingle sets.
//!
//! Invariants: a signature depends only on the set of hashes, the seed and
//! the sketch kind, never on the order of the hashes, the CPU or the SIMD
//! variant that computed it ([`crate::simd`]; each variant is tested bit for
//! bit against its scalar reference); signatures of different kinds or seeds
//! are not comparable. Pure: no file system, no printing.
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
