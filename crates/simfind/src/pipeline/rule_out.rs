//! LSH's candidates whose signatures agree too little to be a pair at the
//! threshold, dropped before any set is made again: shared by the scan's LSH
//! path (`pairs`) and the exact join's way out (`join_fallback`).

use rayon::prelude::*;

use super::{ScanConfig, ScanStats};
use crate::lsh::{Banding, scurve};
use crate::similarity::verify;
use crate::sketch::Sketcher;

/// The share of LSH's own misses at the threshold that [`rule_out_by_signature`]
/// may add: at most 1 % more pairs at the threshold go unreported than banding
/// alone would lose (with 20 × 5 at t = 0.8, a 3.6·10⁻⁶ chance per pair).
/// Defined in `lsh::tune`, whose recall floor counts it.
const RULE_OUT_SHARE: f64 = crate::lsh::tune::RULE_OUT_SHARE;

/// Drops the candidates whose signatures agree in fewer positions than
/// [`verify::agreements_needed`] allows for a pair at the threshold, with a
/// miss probability of [`RULE_OUT_SHARE`] × LSH's own miss probability there
/// (`(1 − t^r)^b`). Banding makes candidates of pairs well below the
/// threshold (20 × 5 already takes most pairs at 0.6); reading both files
/// only to reject such a pair was most of exact verification's cost. Every
/// pair reported is still verified exactly.
///
/// The bound needs positions that are independent samples: a signature with a
/// repeated value (OPH bins filled by densification, or a rare 32-bit
/// collision) is not, and its pairs are always verified.
pub(super) fn rule_out_by_signature(
    mut candidates: Vec<(u32, u32)>,
    matrix: &[u32],
    config: &ScanConfig,
    stats: &mut ScanStats,
) -> Vec<(u32, u32)> {
    let Banding { bands, rows } = config.recipe.banding;
    let n = config.recipe.banding.signature_len();
    let miss = RULE_OUT_SHARE * scurve::miss_probability(config.threshold, bands, rows);
    let needed = verify::agreements_needed(n, config.threshold, miss);
    if needed == 0 {
        return candidates;
    }
    let signature = |i: u32| &matrix[i as usize * n..][..n];
    let sketcher = config.recipe.sketcher();
    let involved = verify::involved_documents(&candidates);
    let samples: Vec<bool> = involved
        .par_iter()
        .map_init(Vec::new, |scratch, &d| {
            sketcher.positions_independent(signature(d), scratch)
        })
        .collect();
    let sampled = |d: u32| samples[involved.binary_search(&d).expect("an involved document")];
    let before = candidates.len();
    candidates.retain(|&(a, b)| {
        let agree = signature(a)
            .iter()
            .zip(signature(b))
            .filter(|(x, y)| x == y)
            .count();
        agree >= needed || !sampled(a) || !sampled(b)
    });
    stats.ruled_out = (before - candidates.len()) as u64;
    candidates
}
