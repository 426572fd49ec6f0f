//! One-permutation hashing with optimal densification as a [`Sketcher`]
//! ([`super::oph`]): one hash per value picks a bin and a value, empty bins
//! borrow from others at the end.
//!
//! Inputs: shingle hashes, repeats allowed (a bin's minimum does not change
//! when a value comes twice). Output: an `n`-bin signature. Invariant: the
//! streaming builder gives, bit for bit, what [`super::oph::sign`] gives over
//! the same values.

use super::oph;
use super::{SketchBuilder, Sketcher, minhash};

/// The OPH family: `n` bins from `seed`.
#[derive(Clone, Debug)]
pub struct OnePermutation {
    n: usize,
    seed: u64,
}

impl OnePermutation {
    pub fn new(n: usize, seed: u64) -> Self {
        OnePermutation { n, seed }
    }
}

impl<'a> SketchBuilder for oph::Sketch<'a> {
    #[inline]
    fn add_batch(&mut self, values: &[u64]) {
        oph::Sketch::add_batch(self, values);
    }

    fn finish(self) {
        oph::Sketch::finish(self);
    }
}

impl Sketcher for OnePermutation {
    type Builder<'a> = oph::Sketch<'a>;

    fn signature_len(&self) -> usize {
        self.n
    }

    #[inline]
    fn sign_into(&self, set: &[u64], out: &mut [u32]) {
        oph::sign(set, self.seed, out);
    }

    /// One bin update per value: cheaper than any dedup would be.
    fn takes_repeats(&self) -> bool {
        true
    }

    fn builder<'a>(&'a self, out: &'a mut [u32], _scratch: &'a mut Vec<u32>) -> oph::Sketch<'a> {
        oph::Sketch::new(self.seed, out)
    }

    /// The fraction of agreeing bins, as for classic signatures (and what
    /// `query` and `compare` have always reported for OPH).
    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        minhash::estimate(a, b)
    }
}
