//! One probe of the join (steps 4–6 for one set): the index lists of its
//! prefix, the position filter, and the verifying merges, with the work they
//! did counted for [`super::Prediction`].

use std::cmp::Ordering;

use super::{
    JoinPair, PrefixIndex, RankedSets, min_partner_size, probe_prefix_len, required_overlap,
};

/// Marks a candidate that the position filter has ruled out.
const PRUNED: u32 = u32::MAX;

/// Per-thread candidate state, indexed by size-order position; only the
/// entries listed in `touched` are non-zero between probes.
pub(super) struct Scratch {
    common: Vec<u32>,
    need: Vec<u32>,
    last_x: Vec<u32>,
    last_y: Vec<u32>,
    touched: Vec<u32>,
}

impl Scratch {
    pub(super) fn new(n: usize) -> Self {
        Scratch {
            common: vec![0; n],
            need: vec![0; n],
            last_x: vec![0; n],
            last_y: vec![0; n],
            touched: Vec::new(),
        }
    }
}

/// The work of probes: what `probe` counts, and what [`super::Prediction`]
/// extrapolates from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Steps of the binary searches that find, for each prefix token, the
    /// part of its index list a probe scans (two searches per token).
    pub lookups: u64,
    /// Index entries scanned.
    pub hits: u64,
    /// Distinct earlier sets met in the index (pruned or not).
    pub touched: u64,
    /// Candidates verified.
    pub verified: u64,
    /// Tokens stepped over by the verifying merges.
    pub merged: u64,
    /// Of those, the pairs of equal tokens, stepped over together: a merge
    /// of near-copies is mostly such steps, which the branch predictor
    /// follows; the rest alternate unpredictably and cost several times more.
    pub matched: u64,
}

impl std::ops::AddAssign for Work {
    fn add_assign(&mut self, other: Work) {
        self.lookups += other.lookups;
        self.hits += other.hits;
        self.touched += other.touched;
        self.verified += other.verified;
        self.merged += other.merged;
        self.matched += other.matched;
    }
}

/// Finds the partners of the `x`-th set (size order) among the sets before it.
pub(super) fn probe(
    ranked: &RankedSets,
    index: &PrefixIndex,
    order: &[u32],
    t: f64,
    x: usize,
    s: &mut Scratch,
    found: &mut Vec<JoinPair>,
) -> Work {
    let xs = ranked.set(x);
    let sx = xs.len() as u32;
    let min_size = min_partner_size(sx, t);
    let mut hits = 0u64;
    let mut lookups = 0u64;
    for (i, &r) in xs[..probe_prefix_len(sx, t) as usize].iter().enumerate() {
        let list = index.postings(r);
        lookups += 2 * u64::from(usize::BITS - list.len().leading_zeros());
        // Lists are in size order: skip sets too small (length filter) and
        // stop at `x` itself (only earlier sets are compared).
        let from = list.partition_point(|p| ranked.len(p.set as usize) < min_size);
        let to = list.partition_point(|p| (p.set as usize) < x);
        for p in list.get(from..to).unwrap_or(&[]) {
            hits += 1;
            let y = p.set as usize;
            if s.common[y] == PRUNED {
                continue;
            }
            let sy = ranked.len(y);
            if s.common[y] == 0 {
                s.need[y] = required_overlap(sx, sy, t);
                s.touched.push(y as u32);
            }
            let (i, j) = (i as u32, p.position);
            let bound = s.common[y] + 1 + (sx - i - 1).min(sy - j - 1);
            if bound < s.need[y] {
                s.common[y] = PRUNED;
            } else {
                s.common[y] += 1;
                s.last_x[y] = i;
                s.last_y[y] = j;
            }
        }
    }

    let mut work = Work {
        lookups,
        hits,
        touched: s.touched.len() as u64,
        ..Work::default()
    };
    for &y in &s.touched {
        let y = y as usize;
        let common = std::mem::take(&mut s.common[y]);
        if common == PRUNED {
            continue;
        }
        work.verified += 1;
        let ys = ranked.set(y);
        let rest_x = &xs[s.last_x[y] as usize + 1..];
        let rest_y = &ys[s.last_y[y] as usize + 1..];
        if let Some(overlap) = overlap_at_least(rest_x, rest_y, common, s.need[y], &mut work) {
            let (a, b) = (order[x].min(order[y]), order[x].max(order[y]));
            found.push(JoinPair {
                a,
                b,
                intersection: overlap,
                union: sx + ranked.len(y) - overlap,
            });
        }
    }
    s.touched.clear();
    work
}

/// `common + |xs ∩ ys|` if it reaches `need`, else `None`, giving up as soon as
/// the tokens left cannot make up the difference. Both slices ascend. Adds
/// the tokens it stepped over, and the equal ones among them, to `work`.
pub(super) fn overlap_at_least(
    xs: &[u32],
    ys: &[u32],
    common: u32,
    need: u32,
    work: &mut Work,
) -> Option<u32> {
    let (i, j, overlap) = merge_until_unreachable(xs, ys, common, need);
    work.merged += (i + j) as u64;
    work.matched += u64::from(overlap - common);
    (overlap >= need).then_some(overlap)
}

/// The merge of [`overlap_at_least`]: `(i, j, overlap)` where it stopped.
pub(super) fn merge_until_unreachable<T: Ord>(
    xs: &[T],
    ys: &[T],
    common: u32,
    need: u32,
) -> (usize, usize, u32) {
    let (mut i, mut j, mut overlap) = (0usize, 0usize, common);
    while i < xs.len() && j < ys.len() {
        match xs[i].cmp(&ys[j]) {
            Ordering::Equal => {
                overlap += 1;
                i += 1;
                j += 1;
            }
            Ordering::Less => {
                i += 1;
                if overlap as usize + (xs.len() - i).min(ys.len() - j) < need as usize {
                    return (i, j, overlap);
                }
            }
            Ordering::Greater => {
                j += 1;
                if overlap as usize + (xs.len() - i).min(ys.len() - j) < need as usize {
                    return (i, j, overlap);
                }
            }
        }
    }
    (i, j, overlap)
}
