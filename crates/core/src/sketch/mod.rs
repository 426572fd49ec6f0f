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
//!
//! [`Sketcher`] is what a sketch family offers the rest of the program: its
//! signature length, signing a set, a streaming [`SketchBuilder`] for a
//! document's window hashes, the Jaccard estimate of two signatures, the
//! probability one position agrees, and whether a signature's positions are
//! independent samples. [`AnySketcher`] is the closed set of families
//! ([`SketchKind`]), implementing the trait by one `match` per call: callers
//! dispatch once per file or per batch, never per hash.
//!
//! A new family is one file here (a type implementing [`Sketcher`]), one
//! variant in [`SketchKind`] and [`AnySketcher`] (with its name), and its
//! measure in `similarity/` (`docs/ARCHITECTURE.md`, "How to add a sketch family").

pub mod bit_sampling;
pub mod block;
pub mod classic;
pub mod family;
pub mod hyperplane;
pub mod icws;
pub mod minhash;
pub mod one_permutation;
pub mod oph;
pub mod pstable;
pub mod simhash;
pub mod textbook;

use std::fmt;
use std::str::FromStr;

pub use block::Block;
pub use classic::Classic;
pub use family::VectorSketcher;
pub use one_permutation::OnePermutation;

/// Which sketch signs the documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SketchKind {
    /// `n` hash functions per shingle ([`crate::sketch::minhash`]).
    Classic,
    /// One-permutation hashing with optimal densification ([`crate::sketch::oph`]).
    Oph,
    /// Row-block MinHash: OPH's blocks left ∞ when empty, estimate a/(a+d)
    /// ([`crate::sketch::block`]).
    Block,
}

impl SketchKind {
    /// The name an index stores (`minhash` parameter).
    pub fn name(self) -> &'static str {
        match self {
            SketchKind::Classic => "classic",
            SketchKind::Oph => "oph",
            SketchKind::Block => "block",
        }
    }
}

/// A sketch name this simfind does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSketch(pub String);

impl fmt::Display for UnknownSketch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown MinHash kind {:?}", self.0)
    }
}

impl std::error::Error for UnknownSketch {}

impl FromStr for SketchKind {
    type Err = UnknownSketch;

    fn from_str(s: &str) -> Result<Self, UnknownSketch> {
        [SketchKind::Classic, SketchKind::Oph, SketchKind::Block]
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownSketch(s.to_string()))
    }
}

/// A signature under construction, fed batches of hashes.
pub trait SketchBuilder {
    /// Adds a batch of values (distinct or not, as [`Sketcher::takes_repeats`] says).
    fn add_batch(&mut self, values: &[u64]);
    /// Completes the signature in the row the builder was given.
    fn finish(self);
}

/// A sketch family: sets of 64-bit hashes → fixed-length `u32` signatures
/// whose agreement estimates Jaccard similarity.
pub trait Sketcher {
    type Builder<'a>: SketchBuilder
    where
        Self: 'a;

    /// Values per signature.
    fn signature_len(&self) -> usize;

    /// Writes the signature of a non-empty set of distinct hashes (any order)
    /// into `out`, whose length is [`Sketcher::signature_len`].
    fn sign_into(&self, set: &[u64], out: &mut [u32]);

    /// Whether the builder should get every window hash of a document
    /// (repeats cost less than removing them), or only what a repeat filter
    /// lets through (each value costs a lot; the builder merges batches).
    fn takes_repeats(&self) -> bool;

    /// A builder writing into `out` (filled here, so an empty builder leaves
    /// no stale values); `scratch` is a reusable per-thread buffer.
    fn builder<'a>(&'a self, out: &'a mut [u32], scratch: &'a mut Vec<u32>) -> Self::Builder<'a>;

    /// The estimate of the Jaccard similarity of the sets behind two signatures.
    fn estimate(&self, a: &[u32], b: &[u32]) -> f64;

    /// The probability that one position of two signatures agrees, for sets
    /// of Jaccard similarity `similarity` (what the S-curve raises to the
    /// rows of a band).
    fn collision_probability(&self, similarity: f64) -> f64 {
        similarity
    }

    /// Whether the positions of `signature` can be counted as independent
    /// samples (what [`crate::similarity::verify::agreements_needed`]
    /// assumes): no value repeats, i.e. every position holds a different
    /// element's minimum. OPH densification copies bins, so a small
    /// document's positions repeat; the check is made for every family.
    fn positions_independent(&self, signature: &[u32], scratch: &mut Vec<u32>) -> bool {
        scratch.clear();
        scratch.extend_from_slice(signature);
        scratch.sort_unstable();
        scratch.windows(2).all(|w| w[0] != w[1])
    }
}

/// Every sketch family, chosen at run time by [`SketchKind`].
#[derive(Clone, Debug)]
pub enum AnySketcher {
    Classic(Classic),
    Oph(OnePermutation),
    Block(Block),
}

impl AnySketcher {
    /// A `kind` sketcher making signatures of `n` values from `seed`.
    pub fn new(kind: SketchKind, n: usize, seed: u64) -> Self {
        match kind {
            SketchKind::Classic => AnySketcher::Classic(Classic::new(n, seed)),
            SketchKind::Oph => AnySketcher::Oph(OnePermutation::new(n, seed)),
            SketchKind::Block => AnySketcher::Block(Block::new(n, seed)),
        }
    }

    pub fn kind(&self) -> SketchKind {
        match self {
            AnySketcher::Classic(_) => SketchKind::Classic,
            AnySketcher::Oph(_) => SketchKind::Oph,
            AnySketcher::Block(_) => SketchKind::Block,
        }
    }
}

/// [`AnySketcher`]'s builder: one `match` per batch.
pub enum AnyBuilder<'a> {
    Classic(classic::ClassicBuilder<'a>),
    Oph(oph::Sketch<'a>),
    Block(block::BlockBuilder<'a>),
}

impl SketchBuilder for AnyBuilder<'_> {
    #[inline]
    fn add_batch(&mut self, values: &[u64]) {
        match self {
            AnyBuilder::Classic(b) => b.add_batch(values),
            AnyBuilder::Oph(b) => SketchBuilder::add_batch(b, values),
            AnyBuilder::Block(b) => b.add_batch(values),
        }
    }

    fn finish(self) {
        match self {
            AnyBuilder::Classic(b) => b.finish(),
            AnyBuilder::Oph(b) => SketchBuilder::finish(b),
            AnyBuilder::Block(b) => b.finish(),
        }
    }
}

impl Sketcher for AnySketcher {
    type Builder<'a> = AnyBuilder<'a>;

    fn signature_len(&self) -> usize {
        match self {
            AnySketcher::Classic(s) => s.signature_len(),
            AnySketcher::Oph(s) => s.signature_len(),
            AnySketcher::Block(s) => s.signature_len(),
        }
    }

    fn sign_into(&self, set: &[u64], out: &mut [u32]) {
        match self {
            AnySketcher::Classic(s) => s.sign_into(set, out),
            AnySketcher::Oph(s) => s.sign_into(set, out),
            AnySketcher::Block(s) => s.sign_into(set, out),
        }
    }

    fn takes_repeats(&self) -> bool {
        match self {
            AnySketcher::Classic(s) => s.takes_repeats(),
            AnySketcher::Oph(s) => s.takes_repeats(),
            AnySketcher::Block(s) => s.takes_repeats(),
        }
    }

    fn builder<'a>(&'a self, out: &'a mut [u32], scratch: &'a mut Vec<u32>) -> AnyBuilder<'a> {
        match self {
            AnySketcher::Classic(s) => AnyBuilder::Classic(s.builder(out, scratch)),
            AnySketcher::Oph(s) => AnyBuilder::Oph(s.builder(out, scratch)),
            AnySketcher::Block(s) => AnyBuilder::Block(s.builder(out, scratch)),
        }
    }

    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        match self {
            AnySketcher::Classic(s) => s.estimate(a, b),
            AnySketcher::Oph(s) => s.estimate(a, b),
            AnySketcher::Block(s) => s.estimate(a, b),
        }
    }

    fn collision_probability(&self, similarity: f64) -> f64 {
        match self {
            AnySketcher::Classic(s) => s.collision_probability(similarity),
            AnySketcher::Oph(s) => s.collision_probability(similarity),
            AnySketcher::Block(s) => s.collision_probability(similarity),
        }
    }

    fn positions_independent(&self, signature: &[u32], scratch: &mut Vec<u32>) -> bool {
        match self {
            AnySketcher::Classic(s) => s.positions_independent(signature, scratch),
            AnySketcher::Oph(s) => s.positions_independent(signature, scratch),
            AnySketcher::Block(s) => s.positions_independent(signature, scratch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in [SketchKind::Classic, SketchKind::Oph, SketchKind::Block] {
            assert_eq!(kind.name().parse::<SketchKind>(), Ok(kind));
            assert_eq!(AnySketcher::new(kind, 8, 1).kind(), kind);
        }
        assert_eq!(
            "bottom-k".parse::<SketchKind>().unwrap_err().to_string(),
            "unknown MinHash kind \"bottom-k\""
        );
    }

    /// Batches fed to a builder sign what one call over their union signs.
    #[test]
    fn builders_equal_one_call() {
        let values: Vec<u64> = (0..5000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5eed)
            .collect();
        for kind in [SketchKind::Classic, SketchKind::Oph] {
            let sketcher = AnySketcher::new(kind, 64, 7);
            let mut whole = vec![0; 64];
            sketcher.sign_into(&values, &mut whole);
            let mut streamed = vec![0; 64];
            let mut scratch = Vec::new();
            let mut builder = sketcher.builder(&mut streamed, &mut scratch);
            for batch in values.chunks(700) {
                builder.add_batch(batch);
                builder.add_batch(&[]);
            }
            builder.finish();
            assert_eq!(streamed, whole, "{kind:?}");
            assert_eq!(sketcher.estimate(&streamed, &whole), 1.0);
            assert!(sketcher.positions_independent(&whole, &mut scratch));
        }
    }
}
