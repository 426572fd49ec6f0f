//! What a vector family's run is predicted to cost, in counts of work, and the
//! banding (and, for Euclidean, the bucket width) that costs least at a
//! required recall; and whether measuring every pair costs less still.
//!
//! LSH's work is signing (`n · b·r` values, each a `d`-term dot product for
//! hyperplanes and projections, one sampled bit for bit sampling), banding
//! (`n · b` keys) and the candidates (each made once and measured in `f64`).
//! The candidates are predicted from a sample of random pairs' distances: a
//! pair at distance `x` is a candidate with probability `1 − (1 − p(x)^r)^b`,
//! so their expected number is the number of pairs times the sample's mean
//! of that probability. The S-curve at the threshold alone (the old tuning)
//! ignores this: a set whose typical pair is far from the threshold wants
//! long bands, one whose pairs crowd near it short ones.
//!
//! The exact method's work is every pair's `d`-term product (blocked, in
//! `f32`, [`crate::similarity::vectors::all_pairs`]) or popcount.
//!
//! The unit is one multiply-add of the exact kernel's matrix product; the
//! other weights are ratios measured once on the reference machine
//! (docs/PERFORMANCE.md, "Families side by side", with the commands) and
//! fixed here, so that a choice depends on counts only and is the same on
//! every run and machine.

use super::Metric;
use crate::lsh::scurve::candidate_probability;

/// One `f32` multiply-add of signing (one hyperplane's or projection's dot
/// product, eight lanes), in units of the matrix product's.
pub const SIGN_MADD: f64 = 4.0;
/// One sampled bit of bit sampling.
pub const SIGN_BIT: f64 = 50.0;
/// One band key of one point: hashed, bucketed and sorted.
pub const BAND_KEY: f64 = 3000.0;
/// One candidate pair: emitted by its bucket, deduplicated, looked up.
pub const CANDIDATE: f64 = 500.0;
/// One component of one candidate's `f64` measure (sequential sums over two
/// rows fetched from anywhere in memory).
pub const VERIFY_COMPONENT: f64 = 60.0;
/// One 64-bit word of a candidate's Hamming distance.
pub const VERIFY_WORD: f64 = 50.0;
/// One pair of the exact method beyond its `d` multiply-adds or its words:
/// the screen's comparison (or the distance's) and the loop.
pub const EXACT_PAIR: f64 = 40.0;
/// One 64-bit word of the exact method's popcount.
pub const EXACT_WORD: f64 = 20.0;

/// The most values a point may be signed with, and the most bytes of the
/// `n × b·r` signature matrix (4 bytes a value) beyond [`FLOOR_HASHES`].
pub const MAX_HASHES: usize = 2048;
pub const MAX_SIGNATURE_BYTES: u64 = 1 << 30;
/// Values a point may always be signed with, whatever the byte cap says (the
/// S-curve tuning's own limit, which it never capped).
pub const FLOOR_HASHES: usize = 200;

/// Bucket widths tried for Euclidean, as multiples of the radius.
pub const WIDTHS: [f64; 8] = [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0];

/// The shape of the work: `n` points of `dim` components (or bit strings of
/// `dim` bits), `pairs` of them to consider (all, or those across --link).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    pub points: u64,
    pub dim: usize,
    pub pairs: u64,
}

/// A banding with its predicted cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Priced {
    pub bands: usize,
    pub rows: usize,
    /// Euclidean's bucket width (in the distances' unit); 0 for the others.
    pub width: f64,
    /// Expected candidate pairs.
    pub candidates: f64,
    /// Predicted work, in multiply-adds of the matrix product.
    pub cost: f64,
    /// P(a pair at the threshold is a candidate).
    pub recall: f64,
}

fn is_bits(metric: Metric) -> bool {
    matches!(metric, Metric::Hamming { .. })
}

/// The exact method's predicted work.
pub fn exact_cost(metric: Metric, work: Work) -> f64 {
    let per_pair = if is_bits(metric) {
        work.dim.div_ceil(64) as f64 * EXACT_WORD + EXACT_PAIR
    } else {
        work.dim as f64 + EXACT_PAIR
    };
    work.pairs as f64 * per_pair
}

/// LSH's predicted work for `bands × rows` and `candidates` expected pairs.
pub fn lsh_cost(metric: Metric, work: Work, bands: usize, rows: usize, candidates: f64) -> f64 {
    let (sign, verify) = if is_bits(metric) {
        (SIGN_BIT, work.dim.div_ceil(64) as f64 * VERIFY_WORD)
    } else {
        (
            work.dim as f64 * SIGN_MADD,
            work.dim as f64 * VERIFY_COMPONENT,
        )
    };
    let n = work.points as f64;
    n * (bands * rows) as f64 * sign
        + n * bands as f64 * BAND_KEY
        + candidates * (CANDIDATE + verify)
}

/// Expected candidates among `pairs` for a sample of pairs at `distances`
/// (in the metric's unit).
pub fn expected_candidates(
    metric: Metric,
    distances: &[f64],
    pairs: u64,
    bands: usize,
    rows: usize,
) -> f64 {
    if distances.is_empty() {
        return 0.0;
    }
    let mean = distances
        .iter()
        .map(|&x| candidate_probability(metric.collision_probability(x), bands, rows))
        .sum::<f64>()
        / distances.len() as f64;
    mean * pairs as f64
}

/// The cheapest banding finding a pair at `threshold` (a distance in the
/// metric's unit) with probability ≥ `min_recall`: for each band length `r`
/// the fewest bands that reach it (more bands only add work), priced with
/// the candidates the sample predicts. `None` when no banding within
/// [`MAX_HASHES`] (and the signature's byte cap) reaches the recall.
pub fn cheapest(
    metric: Metric,
    threshold: f64,
    distances: &[f64],
    work: Work,
    min_recall: f64,
) -> Option<Priced> {
    let p = metric.collision_probability(threshold);
    if p <= 0.0 {
        return None;
    }
    // The byte cap never leaves fewer than the S-curve tuning's 200 values.
    let by_bytes = (MAX_SIGNATURE_BYTES / 4 / work.points.max(1)) as usize;
    let max_hashes = MAX_HASHES.min(by_bytes.max(FLOOR_HASHES));
    let mut best: Option<Priced> = None;
    for rows in 1..=max_hashes {
        let band = p.powi(rows as i32);
        let bands = if band >= 1.0 {
            1
        } else {
            let b = ((1.0 - min_recall).ln() / (1.0 - band).ln()).ceil();
            if !b.is_finite() || b < 1.0 {
                1
            } else if b > max_hashes as f64 {
                break;
            } else {
                b as usize
            }
        };
        // b(r)·r never falls as r grows, so neither does signing's work:
        // past the cap, or past the best total, no longer band can win.
        if bands * rows > max_hashes
            || best.is_some_and(|b| lsh_cost(metric, work, bands, rows, 0.0) >= b.cost)
        {
            break;
        }
        let recall = candidate_probability(p, bands, rows);
        if recall < min_recall {
            continue;
        }
        let candidates = expected_candidates(metric, distances, work.pairs, bands, rows);
        let cost = lsh_cost(metric, work, bands, rows, candidates);
        if best.is_none_or(|b| cost < b.cost) {
            best = Some(Priced {
                bands,
                rows,
                width: 0.0,
                candidates,
                cost,
                recall,
            });
        }
    }
    best
}

/// Euclidean: [`cheapest`] at each width of [`WIDTHS`] × `radius`, the
/// cheapest of all (`distances` are L2 distances).
pub fn cheapest_width(
    radius: f64,
    distances: &[f64],
    work: Work,
    min_recall: f64,
) -> Option<Priced> {
    let mut best: Option<Priced> = None;
    for w in WIDTHS {
        let width = w * radius;
        let scaled: Vec<f64> = distances.iter().map(|d| d / width).collect();
        if let Some(mut p) = cheapest(Metric::Euclidean, radius / width, &scaled, work, min_recall)
        {
            p.width = width;
            if best.is_none_or(|b| p.cost < b.cost) {
                best = Some(p);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests;
