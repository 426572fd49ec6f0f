//! Row-block MinHash (`--minhash block`): the "Speeding up Minhashing"
//! construction of the lecture notes on MMDS 3.3, as a [`Sketcher`].
//!
//! The lecture cuts the `m` rows of the characteristic matrix into `m/m̄`
//! blocks of `m̄` rows and applies one hash function to every block, so one
//! function yields `m/m̄` minhashes; a block in which a column has no 1 keeps
//! ∞, and two columns are compared by `a/(a+d)`: `a` blocks agree, `d`
//! disagree (∞ against a value disagrees), blocks where both are ∞ are
//! skipped. Over hashed shingles the rows are the 2⁶⁴ hash values: each one
//! is mixed once, its high bits pick its block (so blocks are a random
//! partition of the rows, which the lecture allows: "the chosen m̄ rows need
//! not be the first"), its low bits rank it within the block. Here `m/m̄` is
//! the signature length `n` and `m̄ = 2⁶⁴/n`.
//!
//! This is one-permutation hashing (Li, Owen, Zhang, NIPS 2012) *before*
//! densification, with their estimator `N_mat / (n − N_emp)`: the kernel is
//! [`super::oph`]'s bin update, and [`super::oph::Sketch::finish`]'s
//! densification is left out, so empty blocks stay [`EMPTY`] (∞). For sets
//! much larger than `n` no block is empty and the estimate is OPH's; for small
//! sets the estimate rests on fewer blocks (variance and bias measured in
//! docs/PERFORMANCE.md, "Row-block MinHash"). Band keys of an all-∞ band
//! agree, so small documents meet as candidates more often than their
//! similarity says: verification removes them, at some cost.
//!
//! Inputs: shingle hashes, repeats allowed. Output: `n` values, `EMPTY` for an
//! empty block. Pure.

use super::oph;
use super::{SketchBuilder, Sketcher};

/// ∞: the value of a block no element of the set falls into.
pub(crate) const EMPTY: u32 = oph::EMPTY;

/// The row-block family: `n` blocks, one hash function from `seed`.
#[derive(Clone, Debug)]
pub struct Block {
    n: usize,
    seed: u64,
}

impl Block {
    pub fn new(n: usize, seed: u64) -> Self {
        Block { n, seed }
    }
}

/// A block signature under construction: OPH's bins, never densified.
pub struct BlockBuilder<'a>(oph::Sketch<'a>);

impl SketchBuilder for BlockBuilder<'_> {
    #[inline]
    fn add_batch(&mut self, values: &[u64]) {
        self.0.add_batch(values);
    }

    /// Empty blocks keep ∞: nothing to do.
    fn finish(self) {}
}

/// The lecture's estimator: `a / (a + d)` over the positions where the two
/// signatures are not both ∞; 0 when every position is ∞ in both (two empty
/// sets, which the pipeline never compares).
pub(crate) fn estimate(x: &[u32], y: &[u32]) -> f64 {
    let (mut a, mut d) = (0usize, 0usize);
    for (&u, &v) in x.iter().zip(y) {
        if u == v {
            if u != EMPTY {
                a += 1;
            }
        } else {
            d += 1;
        }
    }
    if a + d == 0 {
        0.0
    } else {
        a as f64 / (a + d) as f64
    }
}

impl Sketcher for Block {
    type Builder<'a> = BlockBuilder<'a>;

    fn signature_len(&self) -> usize {
        self.n
    }

    fn sign_into(&self, set: &[u64], out: &mut [u32]) {
        let mut sketch = oph::Sketch::new(self.seed, out);
        sketch.add_batch(set);
    }

    /// One block update per value, as for OPH.
    fn takes_repeats(&self) -> bool {
        true
    }

    fn builder<'a>(&'a self, out: &'a mut [u32], _scratch: &'a mut Vec<u32>) -> BlockBuilder<'a> {
        BlockBuilder(oph::Sketch::new(self.seed, out))
    }

    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        estimate(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::textbook;

    fn elements(start: u64, count: u64) -> Vec<u64> {
        (start..start + count)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xB10C)
            .collect()
    }

    /// The block signature is OPH's before densification: every non-empty
    /// block equals OPH's value there, and OPH fills exactly the empty ones.
    #[test]
    fn blocks_are_oph_bins_before_densification() {
        let set = elements(0, 40);
        let mut blocks = vec![0; 128];
        Block::new(128, 9).sign_into(&set, &mut blocks);
        let mut oph_sig = vec![0; 128];
        oph::sign(&set, 9, &mut oph_sig);
        let empty = blocks.iter().filter(|&&v| v == EMPTY).count();
        // 40 elements in 128 blocks: at least 88 blocks are empty.
        assert!(empty >= 88, "{empty}");
        for (b, o) in blocks.iter().zip(&oph_sig) {
            assert!(*b == EMPTY || b == o);
            assert_ne!(*o, EMPTY);
        }
    }

    /// The estimator against the textbook's counts on hand-made signatures.
    #[test]
    fn estimate_is_a_over_a_plus_d_skipping_both_infinite() {
        let x = [EMPTY, 5, 7, EMPTY, 1];
        let y = [EMPTY, 5, 8, 3, 1];
        // a = 2 (5, 1), d = 2 (7/8, ∞/3), the first position skipped.
        assert_eq!(estimate(&x, &y), 0.5);
        let opt = |s: &[u32]| {
            s.iter()
                .map(|&v| (v != EMPTY).then_some(v as u64))
                .collect::<Vec<_>>()
        };
        assert_eq!(textbook::agreement(&opt(&x), &opt(&y)), (2, 2));
        assert_eq!(estimate(&[EMPTY; 3], &[EMPTY; 3]), 0.0);
    }

    /// Streamed batches sign what one call signs.
    #[test]
    fn builder_equals_one_call() {
        let set = elements(100, 3000);
        let sketcher = Block::new(64, 3);
        let mut whole = vec![0; 64];
        sketcher.sign_into(&set, &mut whole);
        let mut streamed = vec![0; 64];
        let mut scratch = Vec::new();
        let mut builder = sketcher.builder(&mut streamed, &mut scratch);
        for batch in set.chunks(333) {
            builder.add_batch(batch);
        }
        builder.finish();
        assert_eq!(streamed, whole);
    }

    /// Mean of the estimate over 400 seeds for J = 1/3 on sets large enough
    /// that no block is empty, and on small sets where most are: within
    /// 4 standard errors of J (the binomial bound J(1−J)/n per trial, times
    /// 2 for the fewer effective blocks of small sets).
    #[test]
    fn estimate_is_close_to_jaccard_with_fixed_seeds() {
        for (common, only, n) in [(1000u64, 1000u64, 64usize), (10, 10, 64)] {
            let a = elements(0, common + only);
            let b: Vec<u64> = elements(0, common)
                .into_iter()
                .chain(elements(1 << 40, only))
                .collect();
            let j = common as f64 / (common + 2 * only) as f64;
            let trials = 400;
            let mut sum = 0.0;
            for seed in 0..trials {
                let s = Block::new(n, seed);
                let (mut x, mut y) = (vec![0; n], vec![0; n]);
                s.sign_into(&a, &mut x);
                s.sign_into(&b, &mut y);
                sum += s.estimate(&x, &y);
            }
            let mean = sum / trials as f64;
            let effective = n.min((common + 2 * only) as usize) as f64;
            let se = (2.0 * j * (1.0 - j) / effective / trials as f64).sqrt();
            assert!(
                (mean - j).abs() < 4.0 * se,
                "n={n} |A∪B|={}: {mean} vs {j}",
                common + 2 * only
            );
        }
    }
}
