//! The recipe: how a document becomes a set, a signature and band keys.
//!
//! Role: the one description of the signing setup (normalisation, shingling,
//! sketch, banding, and whether binary-looking files are signed). `scan`,
//! `index`, `scan --db`, `query` and `compare` all sign through it, so two
//! documents signed by any of them under one recipe are comparable.
//!
//! Invariants: `banding.signature_len()` is the signature length of `sketch`;
//! the same recipe and bytes give the same set and signature on every machine.

use crate::lsh::Banding;
use crate::sketch::SketchKind;
use crate::text::normalize::Normalization;
use crate::text::shingle::Shingler;

/// Everything that decides a document's shingle set and signature.
#[derive(Clone, Debug)]
pub struct Recipe {
    pub normalization: Normalization,
    pub shingler: Shingler,
    /// The sketch family and kernel that signs the sets.
    pub sketch: SketchKind,
    /// Seed of the sketch's hash functions.
    pub seed: u64,
    /// b bands × r rows; the signature has b·r values.
    pub banding: Banding,
    /// Also shingle files that look binary (NUL in the first block).
    pub include_binary: bool,
}
