//! `--method auto`'s way out of an exact join that turned out dear: MinHash
//! and LSH over the join's sets, still in memory, verified exactly.
//!
//! `auto` picks the join from sizes alone; the join's thinned look or its
//! sampled probes can show that it would cost far more than LSH (many tiny
//! files of one vocabulary at a low threshold: thousands of index entries
//! per probe). The sets are then in memory already, so nothing is read
//! again: each set's shingles are signed with the recipe's sketch (the
//! values `--method lsh` signs, so the signatures are its own), banded with
//! its banding, ruled out by signature as there, and each candidate verified
//! by merging the two sets with the join's own predicate. The pairs, and the
//! estimates beside them, are exactly those of `--method lsh`.

use rayon::prelude::*;

use super::{ScanConfig, ScanStats};
use crate::lsh;
use crate::model::SimilarPair;
use crate::progress::{Reporter, Stage};
use crate::similarity::Abandoned;
use crate::similarity::sets;
use crate::sketch::Sketcher;

/// The pairs of `abandoned`'s sets with Jaccard ≥ `config.threshold` among
/// the LSH candidates of the recipe's sketch and banding, as input indices
/// sorted by `(a, b)`, each with its signatures' estimate as LSH reports it.
pub(super) fn lsh_in_memory(
    abandoned: &Abandoned,
    config: &ScanConfig,
    stats: &mut ScanStats,
    reporter: &dyn Reporter,
) -> Vec<SimilarPair> {
    let banding = config.recipe.banding;
    let sketcher = config.recipe.sketcher();
    let n = banding.signature_len();
    let sets = abandoned.len();

    reporter.begin(Stage::Sign, Some(sets as u64));
    let mut signatures = vec![0u32; sets * n];
    signatures
        .par_chunks_mut(n)
        .enumerate()
        .for_each_init(Vec::new, |scratch, (k, out)| {
            sketcher.sign_into(abandoned.tokens(k, scratch), out);
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
    // The estimates of the few candidates left, by input index, so that the
    // signatures go before verification as on LSH's own path.
    let signature = |k: u32| &signatures[k as usize * n..][..n];
    let mut estimates: Vec<((u32, u32), f64)> = candidates
        .par_iter()
        .map(|&(x, y)| {
            let (a, b) = (
                abandoned.document(x as usize),
                abandoned.document(y as usize),
            );
            let estimate = sketcher.estimate(signature(x), signature(y));
            ((a.min(b), a.max(b)), estimate)
        })
        .collect();
    estimates.par_sort_unstable_by_key(|e| e.0);
    drop(signatures);

    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let pairs = abandoned.verify(&candidates, config.threshold);
    reporter.end(Stage::Verify);
    pairs
        .into_iter()
        .map(|p| {
            let at = estimates
                .binary_search_by_key(&(p.a, p.b), |e| e.0)
                .expect("a verified pair is a candidate");
            SimilarPair {
                a: p.a,
                b: p.b,
                similarity: sets::ratio(p.intersection as usize, p.union as usize),
                estimate: Some(estimates[at].1),
                shared: Some(p.intersection as usize),
            }
        })
        .collect()
}
