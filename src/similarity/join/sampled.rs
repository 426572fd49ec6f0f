//! The join's cost, predicted from a sample of its probes before it is paid.
//!
//! `--method auto` chooses the join before any file is read, from sizes alone
//! (`pipeline::plan`). What the join then costs depends on how many index
//! entries each probe meets and how many candidates it merges, which sizes
//! cannot tell: many tiny files of one vocabulary at a low threshold make
//! every probe meet thousands of entries. So once the index is built, every
//! [`STRIDE`]-th set in size order probes it first; the sample's work,
//! times [`STRIDE`] and weighted by the measured cost of each unit
//! ([`Prediction::seconds`]), predicts the whole probe. A caller with a
//! cheaper way can then take the sets back ([`Abandoned`]) instead of paying.
//! A large join is looked at first through every [`FIRST_STRIDE`]-th set
//! alone: a join far dearer than the way out (the case that matters) shows
//! it there at an eighth of the sample's cost.
//!
//! The sample is deterministic (fixed positions in size order) and its pairs
//! are kept, so the prediction never changes the join's output, only whether
//! it runs to the end.

use rayon::prelude::*;

use super::{
    GiveUp, JoinPair, PrefixIndex, RankedSets, Scratch, Work, merge_until_unreachable, probe,
    required_overlap,
};

/// One set in this many probes in the sample: 1/64 of the probe's cost.
pub const STRIDE: usize = 64;

/// Sets below which the join is not sampled: too few to extrapolate from.
const MIN_SETS: usize = 16 * STRIDE;

/// One set in this many in the first look (a subset of the sample's).
pub const FIRST_STRIDE: usize = 8 * STRIDE;

// CPU nanoseconds per unit of probe work, fitted (least squares on relative
// error) to the probe's CPU time on documents and on many tiny files at
// thresholds 0.3–0.9 (docs/PERFORMANCE.md, "When auto gives up the exact
// join"). Equal tokens merge nearly free; the fit leaves them at zero.
/// Per binary-search step into an index list (mostly cache misses).
const NS_PER_LOOKUP: f64 = 10.0;
/// Per index entry scanned: a random access into the per-thread counters.
const NS_PER_HIT: f64 = 6.5;
/// Per distinct earlier set met: its first touch and the pass over the touched.
const NS_PER_TOUCHED: f64 = 175.0;
/// Per candidate verified: the jump into the other set.
const NS_PER_CANDIDATE: f64 = 500.0;
/// Per pair of equal tokens stepped over together by a merge.
const NS_PER_MATCHED: f64 = 0.5;
/// Per token stepped over alone by a merge (an unpredictable branch).
const NS_PER_UNMATCHED: f64 = 2.0;

pub(super) fn worth_sampling(sets: usize) -> bool {
    sets >= MIN_SETS
}

pub(super) fn is_sampled(x: usize) -> bool {
    x % STRIDE == STRIDE - 1
}

/// The join's probe work predicted from its sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Sets probed in the sample.
    pub sampled: u64,
    /// One set in this many was probed: [`STRIDE`], or [`FIRST_STRIDE`] for
    /// the first look, whose prediction is the rougher.
    pub stride: u64,
    /// Non-empty sets in the join.
    pub sets: u64,
    /// Tokens of all the sets.
    pub tokens: u64,
    /// The sample's work.
    pub work: Work,
    /// Pairs the sample found.
    pub pairs: u64,
}

impl Prediction {
    /// How many sets each sampled one stands for.
    fn scale(&self) -> f64 {
        if self.sampled == 0 {
            0.0
        } else {
            self.sets as f64 / self.sampled as f64
        }
    }

    /// CPU seconds of the whole probe (the sample included).
    pub fn seconds(&self) -> f64 {
        let w = &self.work;
        let unmatched = w.merged.saturating_sub(2 * w.matched);
        let ns = w.lookups as f64 * NS_PER_LOOKUP
            + w.hits as f64 * NS_PER_HIT
            + w.touched as f64 * NS_PER_TOUCHED
            + w.verified as f64 * NS_PER_CANDIDATE
            + w.matched as f64 * NS_PER_MATCHED
            + unmatched as f64 * NS_PER_UNMATCHED;
        ns * 1e-9 * self.scale()
    }

    /// Pairs the whole join would find.
    pub fn pairs(&self) -> f64 {
        self.pairs as f64 * self.scale()
    }

    /// Mean tokens per set.
    pub fn mean_set(&self) -> f64 {
        self.tokens as f64 / self.sets.max(1) as f64
    }

    /// CPU seconds of merging two sets of the mean size that share little:
    /// what verifying a candidate that is no pair costs, wherever it came
    /// from.
    pub fn seconds_per_dissimilar_merge(&self) -> f64 {
        (NS_PER_CANDIDATE + 2.0 * self.mean_set() * NS_PER_UNMATCHED) * 1e-9
    }
}

/// Probes the sample (after a first look when the join is large), asking
/// `give_up` of each prediction; returns the sample's pairs and prediction,
/// or the prediction `give_up` accepted.
pub(super) fn probe_sample(
    ranked: &RankedSets,
    index: &PrefixIndex,
    order: &[u32],
    t: f64,
    give_up: GiveUp<'_>,
) -> Result<(Vec<JoinPair>, Prediction), Prediction> {
    let n = order.len();
    let mut prediction = Prediction {
        sampled: 0,
        stride: STRIDE as u64,
        sets: n as u64,
        tokens: ranked.tokens.len() as u64,
        work: Work::default(),
        pairs: 0,
    };
    let first_look = n >= MIN_SETS * (FIRST_STRIDE / STRIDE);
    let in_first_look = |x: usize| first_look && x % FIRST_STRIDE == FIRST_STRIDE - 1;
    let mut pairs = Vec::new();
    if first_look {
        let (found, work, sampled) = probe_at(ranked, index, order, t, &in_first_look);
        let first = Prediction {
            sampled,
            stride: FIRST_STRIDE as u64,
            work,
            pairs: found.len() as u64,
            ..prediction
        };
        if give_up(&first) {
            return Err(first);
        }
        prediction = Prediction {
            stride: STRIDE as u64,
            ..first
        };
        pairs = found;
    }
    let rest = |x: usize| is_sampled(x) && !in_first_look(x);
    let (found, work, sampled) = probe_at(ranked, index, order, t, &rest);
    prediction.sampled += sampled;
    prediction.work += work;
    prediction.pairs += found.len() as u64;
    pairs.extend(found);
    if give_up(&prediction) {
        Err(prediction)
    } else {
        Ok((pairs, prediction))
    }
}

/// Probes the sets at the positions `chosen`; returns their pairs, their
/// work and how many were probed.
fn probe_at(
    ranked: &RankedSets,
    index: &PrefixIndex,
    order: &[u32],
    t: f64,
    chosen: &(dyn Fn(usize) -> bool + Sync),
) -> (Vec<JoinPair>, Work, u64) {
    let n = order.len();
    let positions: Vec<usize> = (0..n).filter(|&x| chosen(x)).collect();
    let per_set: Vec<(Vec<JoinPair>, Work)> = positions
        .par_iter()
        .map_init(
            || Scratch::new(n),
            |scratch, &x| {
                let mut found = Vec::new();
                let work = probe(ranked, index, order, t, x, scratch, &mut found);
                (found, work)
            },
        )
        .collect();
    let mut work = Work::default();
    let mut pairs = Vec::new();
    for (found, w) in per_set {
        work += w;
        pairs.extend(found);
    }
    (pairs, work, positions.len() as u64)
}

/// A join given up on: its sets, re-coded as ranks (a bijection of the
/// tokens, so every Jaccard similarity is unchanged) and in size order, for
/// the caller to find the pairs another way, and why it was given up.
pub struct Abandoned {
    ranked: RankedSets,
    order: Vec<u32>,
    pub prediction: Prediction,
}

impl Abandoned {
    pub(super) fn new(ranked: RankedSets, order: Vec<u32>, prediction: Prediction) -> Self {
        Abandoned {
            ranked,
            order,
            prediction,
        }
    }

    /// Non-empty sets (empty ones never pair and are not held).
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The `k`-th set in size order, as ascending ranks.
    pub fn set(&self, k: usize) -> &[u32] {
        self.ranked.set(k)
    }

    /// The input index of the `k`-th set.
    pub fn document(&self, k: usize) -> u32 {
        self.order[k]
    }

    /// The pairs among `candidates` (size-order positions) with Jaccard ≥
    /// `t`, decided by the join's own predicate, as input indices sorted by
    /// `(a, b)`.
    pub fn verify(&self, candidates: &[(u32, u32)], t: f64) -> Vec<JoinPair> {
        let mut pairs: Vec<JoinPair> = candidates
            .par_iter()
            .filter_map(|&(x, y)| {
                let (xs, ys) = (self.set(x as usize), self.set(y as usize));
                let (sx, sy) = (xs.len() as u32, ys.len() as u32);
                let need = required_overlap(sx, sy, t);
                let (_, _, overlap) = merge_until_unreachable(xs, ys, 0, need);
                (overlap >= need).then(|| {
                    let (a, b) = (self.order[x as usize], self.order[y as usize]);
                    JoinPair {
                        a: a.min(b),
                        b: a.max(b),
                        intersection: overlap,
                        union: sx + sy - overlap,
                    }
                })
            })
            .collect();
        pairs.par_sort_unstable();
        pairs
    }
}

#[cfg(test)]
mod tests;
