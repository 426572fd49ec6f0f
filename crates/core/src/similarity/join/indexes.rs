//! The textbook's own exact joins (MMDS 3.9.3–3.9.6), selectable beside the
//! default AllPairs/PPJoin join of the parent module, so that the chapter's
//! claims about how each refinement cuts the comparisons can be measured on a
//! real corpus — and each returns exactly the pairs the default join does.
//!
//! Every variant works on the same strings (3.9.2): the sets re-coded as ranks
//! of one global order, rarest first (the box "A Better Ordering for
//! Symbols"), taken in order of length (ties by id). A string `s` is only
//! compared with strings `t` before it (the many-many scheme of 3.9.4: probe,
//! then add), so `Lt ≤ Ls`, and every variant applies the length filter of
//! 3.9.3 (`Lt ≥ J·Ls`):
//!
//! * [`ExactIndex::Length`] (3.9.3): no index; `s` is compared with every
//!   earlier string the length filter lets through.
//! * [`ExactIndex::Prefix`] (3.9.4): a bucket per symbol holding every string
//!   whose first `p = ⌊(1 − J)·L⌋ + 1` symbols contain it; `s` looks in the
//!   buckets of its own prefix.
//! * [`ExactIndex::Position`] (3.9.5): buckets `(x, j)`; at prefix position
//!   `i`, `s` looks only in `(x, j)` with `(Ls − i + 1)/(Ls + j − 1) ≥ J`.
//! * [`ExactIndex::Suffix`] (3.9.6): buckets `(x, j, q)`, `q` the suffix
//!   length `Lt − j`; with `p = Ls − i`, `s` looks only in the buckets with
//!   `(1 + min(p, q)) / (i + j − 1 + max(p, q)) ≥ J` — the chapter's two
//!   cases (`q + 1` over `Ls + j − 1` when `p ≥ q`, `Ls − i + 1` over
//!   `i + j − 1 + q` when `p < q`) in one formula.
//!
//! Each distinct string found in the buckets looked into is a candidate and
//! is compared in full (a merge that stops once the rest cannot reach the
//! overlap needed). The bucket bounds hold for the pair's first common
//! symbol, which lies in both prefixes, so no pair ≥ J is missed; and every
//! bound is the `f64` predicate that decides the output, evaluated at
//! integers (division is monotone), so no rounding can drop a pair either.

use std::str::FromStr;

use rayon::prelude::*;

use super::{
    Join, JoinError, JoinPair, JoinStats, PROGRESS_EVERY, RankedSets, Work, join_ranked,
    min_partner_size, overlap_at_least, probe_prefix_len, required_overlap, size_order,
};

/// Which exact join `scan --method exact` runs (`--exact-index`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ExactIndex {
    /// AllPairs/PPJoin: shorter index prefixes and the positional bound of
    /// every common prefix symbol (the parent module); the fastest.
    #[default]
    PpJoin,
    /// The length filter of 3.9.3 alone.
    Length,
    /// The symbol index of 3.9.4.
    Prefix,
    /// The (symbol, position) index of 3.9.5.
    Position,
    /// The (symbol, position, suffix length) index of 3.9.6.
    Suffix,
}

impl ExactIndex {
    /// Every variant, in the order of the chapter.
    pub const ALL: [ExactIndex; 5] = [
        ExactIndex::PpJoin,
        ExactIndex::Length,
        ExactIndex::Prefix,
        ExactIndex::Position,
        ExactIndex::Suffix,
    ];

    /// The `--exact-index` value.
    pub fn name(self) -> &'static str {
        match self {
            ExactIndex::PpJoin => "ppjoin",
            ExactIndex::Length => "length",
            ExactIndex::Prefix => "prefix",
            ExactIndex::Position => "position",
            ExactIndex::Suffix => "suffix",
        }
    }
}

/// A name that is none of [`ExactIndex::ALL`]'s (quoted in the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownExactIndex(pub String);

impl std::fmt::Display for UnknownExactIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = ExactIndex::ALL.iter().map(|v| v.name()).collect();
        write!(
            f,
            "unknown exact index {:?}; one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownExactIndex {}

impl FromStr for ExactIndex {
    type Err = UnknownExactIndex;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ExactIndex::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownExactIndex(s.to_string()))
    }
}

/// [`super::all_pairs`] with the chosen index: the same pairs whatever it is.
pub fn all_pairs_by<S: AsRef<[u64]> + Sync>(
    sets: &[S],
    threshold: f64,
    index: ExactIndex,
) -> Result<Join, JoinError> {
    let order = size_order(sets, threshold)?;
    let ranked = RankedSets::build(sets, &order)?;
    Ok(match index {
        ExactIndex::PpJoin => join_ranked(ranked, &order, sets.len(), threshold, &|_| {}),
        _ => textbook_join(ranked, &order, sets.len(), threshold, index, &|_| {}),
    })
}

/// [`super::all_pairs_owned_with_progress`] with the chosen index.
pub fn all_pairs_owned_by(
    sets: Vec<Vec<u64>>,
    threshold: f64,
    index: ExactIndex,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Join, JoinError> {
    let order = size_order(&sets, threshold)?;
    let documents = sets.len();
    let ranked = RankedSets::build_owned(sets, &order, false)?;
    let total = order.len() as u64;
    let progress = |done| progress(done, total);
    Ok(match index {
        ExactIndex::PpJoin => join_ranked(ranked, &order, documents, threshold, &progress),
        _ => textbook_join(ranked, &order, documents, threshold, index, &progress),
    })
}

/// Smallest `v` in `lo..=hi` for which the monotone (false…true) `holds` is
/// true, or `None`.
fn first_true(lo: u64, hi: u64, holds: impl Fn(u64) -> bool) -> Option<u64> {
    if lo > hi || !holds(hi) {
        return None;
    }
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) { hi = mid } else { lo = mid + 1 }
    }
    Some(lo)
}

/// Largest `v` in `lo..=hi` for which the monotone (true…false) `holds` is
/// true, or `None`.
fn last_true(lo: u64, hi: u64, holds: impl Fn(u64) -> bool) -> Option<u64> {
    if lo > hi || !holds(lo) {
        return None;
    }
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if holds(mid) { lo = mid } else { hi = mid - 1 }
    }
    Some(lo)
}

/// `a / b ≥ t` as the output predicate evaluates it.
fn reaches(a: u64, b: u64, t: f64) -> bool {
    a as f64 / b as f64 >= t
}

/// A bound on how far the bounds below need to look: no string longer than
/// `len / t` (plus rounding slack) can reach `t` with one of length `len`.
fn far(len: u64, t: f64) -> u64 {
    ((len as f64 / t).ceil() + 2.0).min(u32::MAX as f64) as u64
}

/// The prefix length of 3.9.4, `p = ⌊(1 − J)·L⌋ + 1` (0 for an empty string).
pub fn prefix_length(len: u32, t: f64) -> u32 {
    if len == 0 {
        0
    } else {
        probe_prefix_len(len, t)
    }
}

/// The lengths a string of length `len` must be compared with (3.9.3): the
/// least `Lt` with `Lt/len ≥ J` and the most with `len/Lt ≥ J`.
pub fn length_bounds(len: u32, t: f64) -> (u32, u32) {
    let len = len as u64;
    let min = first_true(0, len, |l| reaches(l, len, t)).unwrap_or(len);
    let max = last_true(len, far(len, t), |l| reaches(len, l, t)).unwrap_or(len);
    (min as u32, max as u32)
}

/// The largest bucket position `j` (1-based) a probe of length `len` looks at
/// from its prefix position `i` (1-based) in the position index of 3.9.5:
/// `(len − i + 1)/(len + j − 1) ≥ J`; 0 if none.
pub fn position_limit(len: u32, i: u32, t: f64) -> u32 {
    let (len, i) = (len as u64, i as u64);
    if i == 0 || i > len {
        return 0;
    }
    last_true(1, far(len, t), |j| reaches(len - i + 1, len + j - 1, t)).unwrap_or(0) as u32
}

/// The suffix lengths `q` of the buckets `(x, j, q)` a probe of length `len`
/// looks at from its prefix position `i` for bucket position `j` (all
/// 1-based) in the index of 3.9.6, as an inclusive range, or `None`.
pub fn suffix_range(len: u32, i: u32, j: u32, t: f64) -> Option<(u32, u32)> {
    let (len, i, j) = (len as u64, i as u64, j as u64);
    if i == 0 || i > len || j == 0 {
        return None;
    }
    let p = len - i;
    let holds = |q: u64| reaches(1 + p.min(q), i + j - 1 + p.max(q), t);
    let lo = first_true(0, p, holds)?;
    let hi = last_true(p, far(len, t), holds)?;
    Some((lo as u32, hi as u32))
}

/// The candidate state of one probing thread: `seen[y]` is the probe that
/// last found `y` (plus one), so each candidate is compared once per probe.
struct Seen {
    stamp: Vec<u32>,
    found: Vec<u32>,
}

/// Steps 2–6 of the parent module with the textbook's index.
fn textbook_join(
    ranked: RankedSets,
    order: &[u32],
    documents: usize,
    t: f64,
    index: ExactIndex,
    progress: &(dyn Fn(u64) + Sync),
) -> Join {
    let n = order.len();
    let sizes: Vec<u32> = (0..n).map(|k| ranked.len(k)).collect();
    let buckets = Buckets::build(&ranked, &sizes, t, index);
    let per_doc: Vec<(Vec<JoinPair>, [u64; 3])> = (0..n)
        .into_par_iter()
        .map_init(
            || Seen {
                stamp: vec![0; n],
                found: Vec::new(),
            },
            |seen, x| {
                let mut counts = [0u64; 3];
                let found = probe(&ranked, &sizes, &buckets, order, t, x, seen, &mut counts);
                if x % PROGRESS_EVERY == PROGRESS_EVERY - 1 {
                    progress(PROGRESS_EVERY as u64);
                }
                (found, counts)
            },
        )
        .collect();
    if !n.is_multiple_of(PROGRESS_EVERY) {
        progress((n % PROGRESS_EVERY) as u64);
    }
    let mut stats = JoinStats {
        documents: documents as u64,
        nonempty: n as u64,
        tokens: ranked.tokens.len() as u64,
        distinct_tokens: ranked.distinct as u64,
        index_entries: buckets.entries.len() as u64,
        ..JoinStats::default()
    };
    let mut pairs = Vec::with_capacity(per_doc.iter().map(|p| p.0.len()).sum());
    for (found, [hits, verified, lookups]) in per_doc {
        pairs.extend(found);
        stats.probe_hits += hits;
        stats.verified += verified;
        stats.lookups += lookups;
    }
    pairs.par_sort_unstable();
    Join { pairs, stats }
}

/// The index of one variant in CSR form by symbol (rank): each symbol's
/// entries are `(position, string)`, sorted by string for [`ExactIndex::Prefix`]
/// and by `(position, string)` for the others — which, strings being in
/// length order, is also `(position, suffix length, string)` order.
struct Buckets {
    index: ExactIndex,
    entries: Vec<(u32, u32)>,
    starts: Vec<usize>,
}

impl Buckets {
    fn build(ranked: &RankedSets, sizes: &[u32], t: f64, index: ExactIndex) -> Self {
        if index == ExactIndex::Length {
            return Buckets {
                index,
                entries: Vec::new(),
                starts: Vec::new(),
            };
        }
        let prefix = |k: usize| &ranked.set(k)[..prefix_length(sizes[k], t) as usize];
        let mut starts = vec![0usize; ranked.distinct + 1];
        for k in 0..sizes.len() {
            for &r in prefix(k) {
                starts[r as usize + 1] += 1;
            }
        }
        for r in 0..ranked.distinct {
            starts[r + 1] += starts[r];
        }
        let mut fill = starts.clone();
        let mut entries = vec![(0u32, 0u32); starts[ranked.distinct]];
        for k in 0..sizes.len() {
            for (j, &r) in prefix(k).iter().enumerate() {
                entries[fill[r as usize]] = (j as u32, k as u32);
                fill[r as usize] += 1;
            }
        }
        if index != ExactIndex::Prefix {
            // Filled in string order, so a stable sort by position keeps
            // (position, string) order.
            for r in 0..ranked.distinct {
                entries[starts[r]..starts[r + 1]].sort_by_key(|e| e.0);
            }
        }
        Buckets {
            index,
            entries,
            starts,
        }
    }

    fn list(&self, rank: u32) -> &[(u32, u32)] {
        &self.entries[self.starts[rank as usize]..self.starts[rank as usize + 1]]
    }
}

/// The candidates of the `x`-th string among the strings before it, compared
/// in full; `counts` gains [entries found, candidates compared, bucket
/// lookups].
#[allow(clippy::too_many_arguments)]
fn probe(
    ranked: &RankedSets,
    sizes: &[u32],
    buckets: &Buckets,
    order: &[u32],
    t: f64,
    x: usize,
    seen: &mut Seen,
    counts: &mut [u64; 3],
) -> Vec<JoinPair> {
    let xs = ranked.set(x);
    let sx = sizes[x];
    let min_size = min_partner_size(sx, t);
    // The earlier strings the length filter lets through: `lo..x`.
    let lo = sizes[..x].partition_point(|&s| s < min_size) as u32;
    let stamp = x as u32 + 1;
    let add = |y: u32, seen: &mut Seen| {
        if seen.stamp[y as usize] != stamp {
            seen.stamp[y as usize] = stamp;
            seen.found.push(y);
        }
    };
    match buckets.index {
        ExactIndex::PpJoin => unreachable!("PPJoin runs in the parent module"),
        ExactIndex::Length => {
            counts[0] += x as u64 - lo as u64;
            for y in lo..x as u32 {
                add(y, seen);
            }
        }
        ExactIndex::Prefix => {
            for &r in &xs[..prefix_length(sx, t) as usize] {
                let list = buckets.list(r);
                let from = list.partition_point(|e| e.1 < lo);
                let to = list.partition_point(|e| (e.1 as usize) < x);
                counts[2] += 1;
                for e in list.get(from..to).unwrap_or(&[]) {
                    counts[0] += 1;
                    add(e.1, seen);
                }
            }
        }
        ExactIndex::Position | ExactIndex::Suffix => {
            let p = prefix_length(sx, t);
            let suffix = buckets.index == ExactIndex::Suffix;
            let floors = suffix.then(|| PyramidFloors::new(sx, p, t));
            for (i0, &r) in xs[..p as usize].iter().enumerate() {
                let i = i0 as u32 + 1;
                // An earlier string is no longer than `x`, so its prefix
                // positions are within `x`'s prefix length.
                let jmax = position_limit(sx, i, t).min(p);
                // Buckets (r, 1..=jmax) are the entries at positions below
                // `jmax`; with suffix lengths, only those whose (j, q) is in
                // the pyramid. Each entry is tested rather than each bucket
                // looked up: most buckets are empty.
                let list = buckets.list(r);
                let end = list.partition_point(|e| e.0 < jmax);
                let reach = Pyramid::new(sx, i, t);
                for &(pos, y) in &list[..end] {
                    if y < lo || y as usize >= x {
                        continue;
                    }
                    if suffix && !reach.holds(pos + 1, sizes[y as usize] - pos - 1) {
                        continue;
                    }
                    counts[0] += 1;
                    add(y, seen);
                }
                counts[2] += match &floors {
                    Some(floors) => floors.buckets(&reach, jmax, min_size, sx),
                    None => jmax as u64,
                };
            }
        }
    }

    let mut out = Vec::new();
    for y in seen.found.drain(..) {
        counts[1] += 1;
        let sy = sizes[y as usize];
        let need = required_overlap(sx, sy, t);
        if let Some(overlap) =
            overlap_at_least(xs, ranked.set(y as usize), 0, need, &mut Work::default())
        {
            let (a, b) = (
                order[x].min(order[y as usize]),
                order[x].max(order[y as usize]),
            );
            out.push(JoinPair {
                a,
                b,
                intersection: overlap,
                union: sx + sy - overlap,
            });
        }
    }
    out
}

/// The bucket test of 3.9.6 for prefix position `i` of a probe of length
/// `len`: bucket (x, j, q) is looked into when
/// `(1 + min(p, q)) / (i + j − 1 + max(p, q)) ≥ J`, `p = len − i`.
struct Pyramid {
    i: u64,
    p: u64,
    t: f64,
}

impl Pyramid {
    fn new(len: u32, i: u32, t: f64) -> Self {
        Pyramid {
            i: i as u64,
            p: (len - i) as u64,
            t,
        }
    }

    fn holds(&self, j: u32, q: u32) -> bool {
        let (j, q) = (j as u64, q as u64);
        reaches(1 + self.p.min(q), self.i + j - 1 + self.p.max(q), self.t)
    }

    /// Buckets (x, j, q) of the pyramid at position `j` that can hold a
    /// string of length `j + q` in `shortest..=longest`: the chapter's
    /// q-range cut to the lengths the join compares with (the oracle of
    /// [`PyramidFloors::buckets`], which the join uses).
    #[cfg(test)]
    fn buckets(&self, j: u32, shortest: u32, longest: u32) -> u64 {
        let p = self.p as u32;
        // `holds` rises with q up to p and falls after it: the range's ends
        // from a float guess corrected by exact steps.
        let guess_lo = (self.t * (self.i + j as u64 - 1 + self.p) as f64).ceil() - 1.0;
        let lo = super::smallest_satisfying(guess_lo, p, |q| self.holds(j, q));
        if lo > p {
            return 0;
        }
        let span = longest.saturating_sub(j).saturating_sub(p);
        let guess_out =
            ((self.p + 1) as f64 / self.t).floor() - (self.i + j as u64 - 1 + self.p) as f64 + 1.0;
        let out = super::smallest_satisfying(guess_out, span, |d| !self.holds(j, p + d));
        let hi = p + out - 1;
        let lo = lo.max(shortest.saturating_sub(j));
        let hi = hi.min(longest.saturating_sub(j));
        if hi < lo { 0 } else { (hi - lo + 1) as u64 }
    }
}

/// The pyramid's bucket count summed over `j` without enumerating the
/// buckets: counting them one `(j, q)` range at a time was `O(p²)` per
/// string, a minute of CPU on django-docs at 0.8 for a statistic
/// (docs/PERFORMANCE.md). The q-range of bucket column `j` is
/// `[max(lo(j), shortest − j), min(M − i + 1, longest) − j]`, where
/// `lo(j)`, the least `q` with `(1 + q)/(len + j − 1) ≥ J`, depends on `j`
/// alone (so its prefix sums are made once per string), and `M`, the
/// largest denominator `(1 + p)` reaches `J` over, on `i` alone. The width
/// `A + 1 − j − lo(j)` falls as `j` rises and is cut at the constant
/// `A + 1 − shortest`: a plateau, then an arithmetic series minus `lo`'s
/// prefix sums.
struct PyramidFloors {
    /// `sums[j] = lo(1) + … + lo(j)`.
    sums: Vec<u64>,
    lo: Vec<u32>,
}

impl PyramidFloors {
    fn new(len: u32, p: u32, t: f64) -> Self {
        let mut lo = vec![0u32; p as usize + 1];
        let mut sums = vec![0u64; p as usize + 1];
        let mut q = 0u64;
        for j in 1..=p as u64 {
            let d = len as u64 + j - 1;
            // lo(j) does not fall as j rises: step up from lo(j − 1).
            while !reaches(1 + q, d, t) && q <= len as u64 {
                q += 1;
            }
            lo[j as usize] = q.min(u32::MAX as u64) as u32;
            sums[j as usize] = sums[j as usize - 1] + q;
        }
        PyramidFloors { sums, lo }
    }

    /// What `(1..=jmax).map(|j| reach.buckets(j, shortest, longest)).sum()`
    /// gives, for `jmax` ≤ the string's prefix length.
    fn buckets(&self, reach: &Pyramid, jmax: u32, shortest: u32, longest: u32) -> u64 {
        if jmax == 0 {
            return 0;
        }
        let top = 1 + reach.p;
        let m = last_true(top, far(top, reach.t) + reach.i, |d| {
            reaches(top, d, reach.t)
        })
        .unwrap_or(top);
        let a = ((m + 1).saturating_sub(reach.i) as i64).min(longest as i64);
        let width = |j: u32| a + 1 - j as i64 - self.lo[j as usize] as i64;
        let cap = a + 1 - shortest as i64;
        if cap <= 0 {
            return 0;
        }
        // Falling: the last j at the cap, then the last with any width.
        let plateau = last_true(1, jmax as u64, |j| width(j as u32) >= cap).unwrap_or(0);
        let end = last_true(1, jmax as u64, |j| width(j as u32) > 0).unwrap_or(0);
        let mut total = plateau as i64 * cap;
        if end > plateau {
            let (from, to) = (plateau as i64 + 1, end as i64);
            let n = to - from + 1;
            let series = n * (a + 1) - (from + to) * n / 2;
            let floors = (self.sums[to as usize] - self.sums[from as usize - 1]) as i64;
            total += series - floors;
        }
        total.max(0) as u64
    }
}

#[cfg(test)]
mod tests;
