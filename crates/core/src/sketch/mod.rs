//! Sketches: a document's features → a row of `u32` values whose agreement
//! estimates a similarity (MMDS 3.3, 3.6–3.7).
//!
//! Role: the "sign" stage. Inputs: 64-bit shingle hashes (a set for
//! [`minhash`], any stream with repeats for [`oph`]), weighted bags, vectors
//! or bit strings, and the recipe's signature length and seed. Outputs: `n`
//! 32-bit values per document or point, such that two rows agree in each
//! position with a probability given by their similarity (for MinHash, close
//! to the Jaccard similarity of their shingle sets).
//!
//! Invariants: a signature depends only on the features, the seed and
//! the sketch kind, never on the order of the hashes, the CPU or the SIMD
//! variant that computed it ([`crate::simd`]; each variant is tested bit for
//! bit against its scalar reference); signatures of different kinds or seeds
//! are not comparable. Pure: no file system, no printing.
//!
//! [`Family`] is the one interface of every family — MinHash (classic, OPH,
//! block), ICWS, SimHash, hyperplanes, p-stable projections, bit sampling:
//! [`Features`] in, a row of `u32` out, the estimate of two rows, the
//! probability one position agrees, and the [`Measure`] it estimates.
//! [`AnyFamily`] is the closed set, dispatched by one macro. The vector and
//! weighted runs sign and estimate through it; the S-curve and tuning speak
//! its [`Measure`] through `lsh::family::Metric`.
//!
//! [`Sketcher`] is MinHash's fast path, which the file scan, the index and
//! the records run use: signing a set, a streaming [`SketchBuilder`] for a
//! document's window hashes, and whether a signature's positions are
//! independent samples. [`AnySketcher`] is its closed set ([`SketchKind`]),
//! one `match` per call: callers dispatch once per file or per batch, never
//! per hash. Every [`Sketcher`] is a [`Family`] too (`minhash_family!`).
//!
//! A new family is one file here (a type implementing [`Family`]), one variant
//! in [`AnyFamily`], and its [`Measure`] if it is a new one
//! (`docs/ARCHITECTURE.md`, "How to add a sketch family").

pub(crate) mod any;
pub(crate) mod bit_sampling;
pub(crate) mod block;
pub(crate) mod classic;
pub(crate) mod family;
pub(crate) mod hyperplane;
pub(crate) mod icws;
#[doc(hidden)]
pub mod minhash;
pub(crate) mod one_permutation;
#[doc(hidden)]
pub mod oph;
pub(crate) mod pstable;
pub mod simhash;
pub mod textbook;

pub use bit_sampling::estimate_distance;
pub use family::Gaussian;
pub use hyperplane::estimate_cosine;
pub use icws::{DRAW_CACHE_BYTES, DrawCache};
pub use minhash::kernel::Variant as MinHashKernel;
pub use minhash::{MinHasher, SplitMix64, estimate};
pub use oph::Sketch;
pub use oph::kernel::Variant as OphKernel;

use std::fmt;
use std::str::FromStr;

pub use any::AnyFamily;
pub use bit_sampling::BitSampling;
pub use block::Block;
pub use classic::Classic;
pub use hyperplane::Hyperplanes;
pub use icws::Icws;
pub use one_permutation::OnePermutation;
pub use pstable::PStable;
pub use simhash::SimHash;

use crate::measure::Measure;

/// What a family signs: the features of one document or point. Each family
/// takes the kinds its [`Family::sign_into`] names; any other is a caller's
/// bug, and panics.
#[derive(Clone, Copy, Debug)]
pub enum Features<'a> {
    /// Distinct 64-bit hashes (shingles, tokens), any order, non-empty.
    Set(&'a [u64]),
    /// Distinct elements with their weights (a bag of counts, `token:weight`).
    Weighted(&'a [(u64, f64)]),
    /// A real vector of the family's dimension.
    Vector(&'a [f32]),
    /// A bit string of the family's length, packed in 64-bit words, bit `i`
    /// at `words[i / 64] >> (i % 64)`.
    Bits(&'a [u64]),
}

impl Features<'_> {
    /// The kind's name, for the message of a mismatch.
    pub fn kind(&self) -> &'static str {
        match self {
            Features::Set(_) => "a set",
            Features::Weighted(_) => "a weighted bag",
            Features::Vector(_) => "a vector",
            Features::Bits(_) => "a bit string",
        }
    }
}

/// A locality-sensitive family: features → a row of `u32` values, two rows
/// agreeing in each position with [`Family::collision_probability`] of the
/// two inputs' [`Family::measure`]. What the S-curve, the tuner, `--verify
/// signature` and the banding of every run build on.
pub trait Family {
    /// Values per row.
    fn signature_len(&self) -> usize;

    /// Writes the row of `features` into `out` (`signature_len` values).
    /// Panics when the family does not sign that kind of features.
    fn sign_into(&self, features: Features<'_>, out: &mut [u32]);

    /// The estimate of the measure from two rows of this family.
    fn estimate(&self, a: &[u32], b: &[u32]) -> f64;

    /// The probability that one position of two rows agrees, for inputs at
    /// `value` of the measure (a similarity or a distance, as
    /// [`Measure::larger_is_more_similar`] says; distances in the measure's
    /// own unit, not the family's).
    fn collision_probability(&self, value: f64) -> f64;

    /// The measure the rows estimate.
    fn measure(&self) -> Measure;
}

/// The panic of a family given features it does not sign.
#[track_caller]
pub(crate) fn wrong_features(family: &str, features: &Features<'_>) -> ! {
    panic!("{family} does not sign {}", features.kind())
}

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
    /// samples (what [`crate::similarity::agreements_needed`]
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

/// The MinHash families are [`Family`] through their [`Sketcher`]: sets only,
/// the Jaccard measure.
macro_rules! minhash_family {
    ($($ty:ty => $name:literal),* $(,)?) => {$(
        impl Family for $ty {
            fn signature_len(&self) -> usize {
                Sketcher::signature_len(self)
            }

            fn sign_into(&self, features: Features<'_>, out: &mut [u32]) {
                match features {
                    Features::Set(set) => Sketcher::sign_into(self, set, out),
                    other => wrong_features($name, &other),
                }
            }

            fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
                Sketcher::estimate(self, a, b)
            }

            fn collision_probability(&self, similarity: f64) -> f64 {
                Sketcher::collision_probability(self, similarity)
            }

            fn measure(&self) -> Measure {
                Measure::Jaccard
            }
        }
    )*};
}

minhash_family!(
    Classic => "classic MinHash",
    OnePermutation => "one-permutation MinHash",
    Block => "block MinHash",
    AnySketcher => "MinHash",
);

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
            AnySketcher::Classic(s) => Sketcher::signature_len(s),
            AnySketcher::Oph(s) => Sketcher::signature_len(s),
            AnySketcher::Block(s) => Sketcher::signature_len(s),
        }
    }

    fn sign_into(&self, set: &[u64], out: &mut [u32]) {
        match self {
            AnySketcher::Classic(s) => Sketcher::sign_into(s, set, out),
            AnySketcher::Oph(s) => Sketcher::sign_into(s, set, out),
            AnySketcher::Block(s) => Sketcher::sign_into(s, set, out),
        }
    }

    fn takes_repeats(&self) -> bool {
        match self {
            AnySketcher::Classic(s) => Sketcher::takes_repeats(s),
            AnySketcher::Oph(s) => Sketcher::takes_repeats(s),
            AnySketcher::Block(s) => Sketcher::takes_repeats(s),
        }
    }

    fn builder<'a>(&'a self, out: &'a mut [u32], scratch: &'a mut Vec<u32>) -> AnyBuilder<'a> {
        match self {
            AnySketcher::Classic(s) => AnyBuilder::Classic(Sketcher::builder(s, out, scratch)),
            AnySketcher::Oph(s) => AnyBuilder::Oph(Sketcher::builder(s, out, scratch)),
            AnySketcher::Block(s) => AnyBuilder::Block(Sketcher::builder(s, out, scratch)),
        }
    }

    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        match self {
            AnySketcher::Classic(s) => Sketcher::estimate(s, a, b),
            AnySketcher::Oph(s) => Sketcher::estimate(s, a, b),
            AnySketcher::Block(s) => Sketcher::estimate(s, a, b),
        }
    }

    fn collision_probability(&self, similarity: f64) -> f64 {
        match self {
            AnySketcher::Classic(s) => Sketcher::collision_probability(s, similarity),
            AnySketcher::Oph(s) => Sketcher::collision_probability(s, similarity),
            AnySketcher::Block(s) => Sketcher::collision_probability(s, similarity),
        }
    }

    fn positions_independent(&self, signature: &[u32], scratch: &mut Vec<u32>) -> bool {
        match self {
            AnySketcher::Classic(s) => Sketcher::positions_independent(s, signature, scratch),
            AnySketcher::Oph(s) => Sketcher::positions_independent(s, signature, scratch),
            AnySketcher::Block(s) => Sketcher::positions_independent(s, signature, scratch),
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
            Sketcher::sign_into(&sketcher, &values, &mut whole);
            let mut streamed = vec![0; 64];
            let mut scratch = Vec::new();
            let mut builder = sketcher.builder(&mut streamed, &mut scratch);
            for batch in values.chunks(700) {
                builder.add_batch(batch);
                builder.add_batch(&[]);
            }
            builder.finish();
            assert_eq!(streamed, whole, "{kind:?}");
            assert_eq!(Sketcher::estimate(&sketcher, &streamed, &whole), 1.0);
            assert!(sketcher.positions_independent(&whole, &mut scratch));
        }
    }
}
