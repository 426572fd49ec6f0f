//! Classic MinHash as a [`Sketcher`]: `n` independent hash functions, each
//! position the minimum of one of them over the set ([`MinHasher`]).
//!
//! Inputs: distinct shingle hashes (a set, or batches of what a repeat filter
//! let through). Output: an `n`-value signature. Invariant: batches merged by
//! a minimum per position give the signature of their union, so a stream of
//! batches signs what one call over all of them signs.

use super::minhash::{self, MinHasher};
use super::{SketchBuilder, Sketcher};

/// The classic family: a [`MinHasher`] of the signature's length.
#[derive(Clone, Debug)]
pub struct Classic {
    hasher: MinHasher,
}

impl Classic {
    /// `n` hash functions drawn from `seed`.
    pub fn new(n: usize, seed: u64) -> Self {
        Classic {
            hasher: MinHasher::new(n, seed),
        }
    }
}

/// A classic signature under construction. The first batch is signed
/// straight into the row; each later one into a scratch row merged in by a
/// minimum per position (the minimum over the whole stream).
pub struct ClassicBuilder<'a> {
    hasher: &'a MinHasher,
    row: &'a mut [u32],
    batch_row: &'a mut Vec<u32>,
    started: bool,
}

impl SketchBuilder for ClassicBuilder<'_> {
    #[inline]
    fn add_batch(&mut self, values: &[u64]) {
        if values.is_empty() {
            return;
        }
        if !self.started {
            self.hasher.sign_into(values, self.row);
            self.started = true;
            return;
        }
        self.batch_row.resize(self.row.len(), u32::MAX);
        self.hasher.sign_into(values, self.batch_row);
        for (r, &b) in self.row.iter_mut().zip(self.batch_row.iter()) {
            *r = (*r).min(b);
        }
    }

    fn finish(self) {}
}

impl Sketcher for Classic {
    type Builder<'a> = ClassicBuilder<'a>;

    fn signature_len(&self) -> usize {
        self.hasher.len()
    }

    #[inline]
    fn sign_into(&self, set: &[u64], out: &mut [u32]) {
        self.hasher.sign_into(set, out);
    }

    /// `n` hash evaluations per value: repeats are worth dropping first.
    fn takes_repeats(&self) -> bool {
        false
    }

    fn builder<'a>(&'a self, out: &'a mut [u32], scratch: &'a mut Vec<u32>) -> ClassicBuilder<'a> {
        out.fill(u32::MAX);
        ClassicBuilder {
            hasher: &self.hasher,
            row: out,
            batch_row: scratch,
            started: false,
        }
    }

    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        minhash::estimate(a, b)
    }
}
