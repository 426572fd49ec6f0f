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
//!
//! A large join is looked at first through a thinned copy of itself, before
//! its tokens are ranked: every [`THIN`]-th set in size order, ranked,
//! indexed and probed among themselves ([`look_thinned`]). Ranking and
//! indexing every set cost more than LSH's whole run on the joins worth
//! giving up, and a probe of the thinned copy meets each earlier set with
//! probability 1/[`THIN`], so its work, scaled back, predicts the whole join
//! for 1/[`THIN`] of the ranking. A join given up there hands back the input's
//! own sets, so the way out signs exactly what `--method lsh` signs.
//!
//! The sample is deterministic (fixed positions in size order) and its pairs
//! are kept, so the prediction never changes the join's output, only whether
//! it runs to the end.

use rayon::prelude::*;

use super::{
    GiveUp, JoinError, JoinPair, PrefixIndex, RankedSets, Scratch, Work, merge_until_unreachable,
    probe, required_overlap,
};

/// One set in this many probes in the sample: 1/64 of the probe's cost.
pub(super) const STRIDE: usize = 64;

/// Sets below which the join is not sampled: too few to extrapolate from.
const MIN_SETS: usize = 16 * STRIDE;

/// The thinned look keeps one set in this many: the ranking and the index
/// it builds cost 1/`THIN` of the whole join's, each probe meets 1/`THIN` of
/// what it would.
pub(super) const THIN: usize = 8;

/// One set of the thinned copy in this many probes: the look probes as many
/// sets as the sample ([`THIN`] · `THIN_STRIDE` = [`STRIDE`]), each meeting
/// 1/[`THIN`] of the entries, so it costs 1/([`THIN`] · [`STRIDE`]) of the
/// probe.
const THIN_STRIDE: usize = STRIDE / THIN;

/// Sets from which a join is looked at thinned first: the thinned copy then
/// holds [`MIN_SETS`] sets, enough to be sampled itself.
const MIN_THINNED: usize = THIN * MIN_SETS;

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

pub(super) fn worth_thinning(sets: usize) -> bool {
    sets >= MIN_THINNED
}

/// The join's probe work predicted from its sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Sets probed in the sample.
    pub sampled: u64,
    /// Each probe met the sets of a copy thinned to one in this many:
    /// `THIN` for the thinned look (whose prediction is the rougher: it
    /// sees 1/`THIN` of the pairs the sample would), 1 for the sample.
    pub thinned: u64,
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
        // A probe's binary searches do not depend on how many sets it meets;
        // all else is met set by set, so a thinned copy saw 1/`thinned` of it.
        let per_probe = w.lookups as f64 * NS_PER_LOOKUP;
        let per_set_met = w.hits as f64 * NS_PER_HIT
            + w.touched as f64 * NS_PER_TOUCHED
            + w.verified as f64 * NS_PER_CANDIDATE
            + w.matched as f64 * NS_PER_MATCHED
            + unmatched as f64 * NS_PER_UNMATCHED;
        (per_probe + per_set_met * self.thinned as f64) * 1e-9 * self.scale()
    }

    /// Pairs the whole join would find.
    pub fn pairs(&self) -> f64 {
        self.pairs as f64 * self.scale() * self.thinned as f64
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

/// Probes the sample, asking `give_up` of its prediction; returns the
/// sample's pairs and prediction, or the prediction `give_up` accepted.
pub(super) fn probe_sample(
    ranked: &RankedSets,
    index: &PrefixIndex,
    order: &[u32],
    t: f64,
    give_up: GiveUp<'_>,
) -> Result<(Vec<JoinPair>, Prediction), Prediction> {
    let (pairs, work, sampled) = probe_at(ranked, index, order, t, &is_sampled);
    let prediction = Prediction {
        sampled,
        thinned: 1,
        sets: order.len() as u64,
        tokens: ranked.tokens.len() as u64,
        work,
        pairs: pairs.len() as u64,
    };
    if give_up(&prediction) {
        Err(prediction)
    } else {
        Ok((pairs, prediction))
    }
}

/// The join of `sets` (non-empty ones in size order: `order`) predicted from
/// a copy thinned to every [`THIN`]-th set, ranked and indexed on its own and
/// sampled like the join itself. Reads the sets, keeps nothing.
pub(super) fn look_thinned(
    sets: &[Vec<u64>],
    order: &[u32],
    t: f64,
) -> Result<Prediction, JoinError> {
    let thinned: Vec<u32> = order.iter().skip(THIN - 1).step_by(THIN).copied().collect();
    let ranked = RankedSets::build(sets, &thinned)?;
    let index = PrefixIndex::build(&ranked, t);
    let chosen = |x: usize| x % THIN_STRIDE == THIN_STRIDE - 1;
    let (pairs, work, sampled) = probe_at(&ranked, &index, &thinned, t, &chosen);
    Ok(Prediction {
        sampled,
        thinned: THIN as u64,
        sets: order.len() as u64,
        tokens: order.iter().map(|&i| sets[i as usize].len() as u64).sum(),
        work,
        pairs: pairs.len() as u64,
    })
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

/// A join given up on: its non-empty sets in size order, for the caller to
/// find the pairs another way, and why it was given up.
pub struct Abandoned {
    held: Held,
    order: Vec<u32>,
    pub prediction: Prediction,
}

/// The sets of a given-up join as the join held them when it stopped.
enum Held {
    /// Given up before ranking (the thinned look): the input's sets, by
    /// input index.
    Input(Vec<Vec<u64>>),
    /// Given up after ranking (the sample): re-coded as ranks, in size order,
    /// with the input token of each rank.
    Ranked(RankedSets),
}

/// One set of a given-up join, ascending.
#[derive(Clone, Copy, Debug)]
pub enum HeldSet<'a> {
    /// The input's own tokens.
    Tokens(&'a [u64]),
    /// Ranks of the join's rarest-first order: a bijection of the tokens, so
    /// every Jaccard similarity between ranked sets is the tokens' own.
    Ranks(&'a [u32]),
}

impl HeldSet<'_> {
    pub fn len(&self) -> usize {
        match self {
            HeldSet::Tokens(tokens) => tokens.len(),
            HeldSet::Ranks(ranks) => ranks.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Abandoned {
    pub(super) fn ranked(ranked: RankedSets, order: Vec<u32>, prediction: Prediction) -> Self {
        Abandoned {
            held: Held::Ranked(ranked),
            order,
            prediction,
        }
    }

    pub(super) fn unranked(sets: Vec<Vec<u64>>, order: Vec<u32>, prediction: Prediction) -> Self {
        Abandoned {
            held: Held::Input(sets),
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

    /// The `k`-th set in size order.
    pub fn set(&self, k: usize) -> HeldSet<'_> {
        match &self.held {
            Held::Input(sets) => HeldSet::Tokens(&sets[self.order[k] as usize]),
            Held::Ranked(ranked) => HeldSet::Ranks(ranked.set(k)),
        }
    }

    /// The `k`-th set in size order as the input's tokens (in no particular
    /// order when it was ranked), written to `scratch` if it has to be.
    pub fn tokens<'s>(&'s self, k: usize, scratch: &'s mut Vec<u64>) -> &'s [u64] {
        match &self.held {
            Held::Input(sets) => &sets[self.order[k] as usize],
            Held::Ranked(ranked) => {
                debug_assert_eq!(ranked.token_of_rank.len(), ranked.distinct);
                scratch.clear();
                scratch.extend(
                    ranked
                        .set(k)
                        .iter()
                        .map(|&r| ranked.token_of_rank[r as usize]),
                );
                scratch
            }
        }
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
                let overlap = match (xs, ys) {
                    (HeldSet::Tokens(xs), HeldSet::Tokens(ys)) => {
                        merge_until_unreachable(xs, ys, 0, need).2
                    }
                    (HeldSet::Ranks(xs), HeldSet::Ranks(ys)) => {
                        merge_until_unreachable(xs, ys, 0, need).2
                    }
                    _ => unreachable!("a join's sets are held one way"),
                };
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
