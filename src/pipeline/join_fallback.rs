//! `--method auto`'s way out of an exact join that turned out dear: MinHash
//! and LSH over the join's sets, still in memory, verified exactly.
//!
//! `auto` picks the join from sizes alone; the join's sampled probes can
//! show, once its index is built, that it would cost far more than LSH (many
//! tiny files of one vocabulary at a low threshold: thousands of index
//! entries per probe). The sets are then in memory already, re-coded as
//! ranks (a bijection of the tokens: every Jaccard similarity is the same),
//! so nothing is read again: each set is signed with the recipe's sketch,
//! banded with its banding, and each candidate verified by merging the two
//! sets with the join's own predicate. The result is what `--method lsh`
//! finds, pairs missed by the banding aside (the ranks hash differently from
//! the shingles, so which borderline pairs the banding misses can differ).

use rayon::prelude::*;

use super::{ScanConfig, ScanStats};
use crate::lsh;
use crate::progress::{Reporter, Stage};
use crate::similarity::join::{Abandoned, JoinPair};
use crate::sketch::Sketcher;

/// The pairs of `abandoned`'s sets with Jaccard ≥ `config.threshold` among
/// the LSH candidates of the recipe's sketch and banding, as input indices
/// sorted by `(a, b)`.
pub(super) fn lsh_in_memory(
    abandoned: &Abandoned,
    config: &ScanConfig,
    stats: &mut ScanStats,
    reporter: &dyn Reporter,
) -> Vec<JoinPair> {
    let banding = config.recipe.banding;
    let sketcher = config.recipe.sketcher();
    let n = banding.signature_len();
    let sets = abandoned.len();

    reporter.begin(Stage::Sign, Some(sets as u64));
    let mut signatures = vec![0u32; sets * n];
    signatures
        .par_chunks_mut(n)
        .enumerate()
        .for_each_init(Vec::new, |tokens, (k, out)| {
            // Ranks are small consecutive integers; a sketch may read a
            // token's bits directly (OPH bins by them), so they are spread
            // over 64 bits first, by a bijection that keeps them distinct.
            tokens.clear();
            tokens.extend(abandoned.set(k).iter().map(|&r| spread(r)));
            sketcher.sign_into(tokens, out);
            if k % 1024 == 1023 {
                reporter.advance(1024);
            }
        });
    reporter.end(Stage::Sign);

    reporter.begin(Stage::Band, None);
    let candidates = lsh::candidate_pairs(&signatures, banding);
    reporter.end(Stage::Band);
    stats.candidates = candidates.len() as u64;
    // As on LSH's own path: a candidate whose signatures agree too little is
    // no pair but with the probability that path allows.
    let candidates = super::rule_out::rule_out_by_signature(candidates, &signatures, config, stats);
    drop(signatures);

    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let pairs = abandoned.verify(&candidates, config.threshold);
    reporter.end(Stage::Verify);
    pairs
}

/// SplitMix64's finaliser: a bijection of `u64` that spreads consecutive
/// integers over all bits.
fn spread(rank: u32) -> u64 {
    let mut z = (rank as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spreading_keeps_ranks_distinct_and_uses_the_high_bits() {
        let spread: Vec<u64> = (0..10_000u32).map(spread).collect();
        let mut sorted = spread.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), spread.len());
        // OPH bins by the top bits: consecutive ranks must not share them.
        let top: std::collections::HashSet<u64> = spread.iter().map(|v| v >> 56).collect();
        assert!(top.len() > 200, "{} distinct top bytes", top.len());
    }
}
