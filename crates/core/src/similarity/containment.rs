//! Containment `C(A, B) = |A ∩ B| / |A|`: how much of A lies inside B
//! (MMDS 3.1.1's "containment" of one set in another; datasketch's LSH
//! Ensemble searches by it). Not symmetric: a paragraph lies wholly inside
//! the article quoting it, the article only a little inside the paragraph.
//!
//! Inputs: sets as strictly increasing `&[u64]` (shingle hashes or numbered
//! tokens). Outputs: the measure ([`containment`]) and the exact join
//! ([`contained_pairs`]): every unordered pair in which one set is contained
//! in the other at ≥ t, found by a prefix filter and a size filter and then
//! verified exactly, so it reports exactly the pairs a brute force over all
//! pairs reports.
//!
//! The empty set: `C(∅, B) = 0`. An empty set has no element to be found in
//! B, and calling it contained in everything (the `0/0` read as 1) would pair
//! every empty document with every other one; a file shorter than one
//! shingle is likewise never paired by Jaccard. So an empty set is never in
//! a pair, whatever the threshold (which is > 0).
//!
//! Invariants: one division (`shared as f64 / |A| as f64`), used by the join,
//! `compare` and `explain` alike, so the same two sets print the same value;
//! the join's filters are derived from that same comparison, so they never
//! drop a pair the verification would keep. Pure; parallel over sets.

use rayon::prelude::*;

use super::sets::intersection_size;
use crate::text::ByHash;

/// `C(A, B) = |A ∩ B| / |A|` of two strictly increasing sets; 0 when A is
/// empty (see the module's documentation).
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    of_counts(intersection_size(a, b), a.len())
}

/// The containment of a set of `size` elements of which `shared` are in the
/// other set: the one division every caller goes through (the sets'
/// [`super::sets::ratio`], 0 over an empty set).
pub fn of_counts(shared: usize, size: usize) -> f64 {
    super::sets::ratio(shared, size)
}

/// The fewest shared elements that make a set of `size` elements contained
/// at ≥ `t` (`t` in (0, 1]), by the very comparison verification makes;
/// `size + 1` (unreachable) for the empty set.
pub(crate) fn min_shared(size: usize, t: f64) -> usize {
    if size == 0 {
        return 1;
    }
    let meets = |s: usize| of_counts(s, size) >= t;
    let mut s = ((t * size as f64).ceil() as usize).min(size);
    while s > 0 && meets(s - 1) {
        s -= 1;
    }
    while s <= size && !meets(s) {
        s += 1;
    }
    s
}

/// One pair of [`contained_pairs`]: `a < b` (the sets' indexes), both
/// directions' containment, and which reached the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContainedPair {
    pub a: u32,
    pub b: u32,
    /// `|A|`, `|B|` and `|A ∩ B|`.
    pub size_a: usize,
    pub size_b: usize,
    pub shared: usize,
    /// `C(A, B)`: how much of a is inside b.
    pub a_in_b: f64,
    /// `C(B, A)`: how much of b is inside a.
    pub b_in_a: f64,
}

impl ContainedPair {
    /// The pair of sets `a < b` with these sizes and intersection.
    pub fn of(a: u32, b: u32, size_a: usize, size_b: usize, shared: usize) -> ContainedPair {
        ContainedPair {
            a,
            b,
            size_a,
            size_b,
            shared,
            a_in_b: of_counts(shared, size_a),
            b_in_a: of_counts(shared, size_b),
        }
    }

    /// Which side is contained in the other at ≥ `t`: `a`, `b` or `both`
    /// (equal sets, or equal sizes).
    pub fn contained(&self, t: f64) -> &'static str {
        match (self.a_in_b >= t, self.b_in_a >= t) {
            (true, true) => "both",
            (true, false) => "a",
            _ => "b",
        }
    }

    /// The larger of the two directions: what the threshold is held against.
    pub fn value(&self) -> f64 {
        self.a_in_b.max(self.b_in_a)
    }
}

/// Every unordered pair of `sets` in which one set is contained in the other
/// at ≥ `t` (`t` in (0, 1]), ordered by `(a, b)`, with `a < b`. With `link =
/// Some(n)`, only pairs of one set below `n` and one at or above it.
///
/// A pair is reported when one direction reaches `t`; the smaller set's
/// containment in the larger is never below the other direction (same
/// numerator, smaller denominator), so each pair is sought from its smaller
/// side only (ties by index), which keeps a large set's long prefix from
/// probing every smaller set.
///
/// Candidates (A as the contained side): in one global order of elements
/// (rarest first, ties by value), if `|A ∩ B| ≥ s = min_shared(|A|, t)` then
/// B holds one of A's first `|A| − s + 1` elements (else at most `s − 1` of
/// A's elements are in B). So probing the postings of A's prefix with every
/// set at least as large as A finds every pair (`|B| ≥ |A|` is the size
/// filter, stronger than containment's own `|B| ≥ s`); each candidate
/// is then verified by exact intersection. The postings list every set
/// holding an element (B is probed whole, not by its prefix: containment
/// bounds only A's share), but only for the elements of some prefix: no
/// other element is ever probed.
pub fn contained_pairs(sets: &[Vec<u64>], t: f64, link: Option<u32>) -> Vec<ContainedPair> {
    assert!(t > 0.0 && t <= 1.0, "threshold {t} outside (0, 1]");
    let n = sets.len();
    // Elements are hashes (shingles, tokens) or small numbers: the identity
    // hasher of word hashes serves, and is far cheaper than SipHash.
    let mut frequency: ByHash<u32> = ByHash::default();
    for set in sets {
        for &x in set {
            *frequency.entry(x).or_insert(0) += 1;
        }
    }
    // Each set's prefix: its first |A| − s + 1 elements, rarest first.
    let prefixes: Vec<Vec<u64>> = sets
        .par_iter()
        .map(|a| {
            let need = min_shared(a.len(), t);
            if a.is_empty() || need > a.len() {
                return Vec::new();
            }
            // Each element's frequency looked up once, not per comparison.
            let mut ordered: Vec<(u32, u64)> = a.iter().map(|x| (frequency[x], *x)).collect();
            let len = a.len() - need + 1;
            if len < ordered.len() {
                ordered.select_nth_unstable(len - 1);
                ordered.truncate(len);
            }
            ordered.into_iter().map(|(_, x)| x).collect()
        })
        .collect();
    let mut postings: ByHash<Vec<u32>> = prefixes
        .iter()
        .flatten()
        .map(|&x| (x, Vec::new()))
        .collect();
    for (id, set) in sets.iter().enumerate() {
        for x in set {
            if let Some(list) = postings.get_mut(x) {
                list.push(id as u32);
            }
        }
    }
    let across = |x: u32, y: u32| match link {
        Some(split) => (x < split) != (y < split),
        None => true,
    };
    let mut found: Vec<(u32, u32)> = (0..n)
        .into_par_iter()
        .map_init(
            || vec![false; n],
            |seen, i| {
                let a = &sets[i];
                let need = min_shared(a.len(), t);
                let mut candidates = Vec::new();
                for x in &prefixes[i] {
                    for &j in &postings[x] {
                        let ju = j as usize;
                        // From the smaller side only (ties by index): its
                        // containment in the larger is the larger of the
                        // two directions, the one held against t.
                        let smaller_first = (sets[ju].len(), ju) > (a.len(), i);
                        if !smaller_first || seen[ju] || !across(i as u32, j) {
                            continue;
                        }
                        seen[ju] = true;
                        candidates.push(j);
                    }
                }
                let mut pairs = Vec::new();
                for &j in &candidates {
                    seen[j as usize] = false;
                    if intersection_size(a, &sets[j as usize]) >= need {
                        let i = i as u32;
                        pairs.push((i.min(j), i.max(j)));
                    }
                }
                pairs
            },
        )
        .flatten()
        .collect();
    found.par_sort_unstable();
    found.dedup();
    found
        .into_par_iter()
        .map(|(a, b)| {
            let (sa, sb) = (&sets[a as usize], &sets[b as usize]);
            ContainedPair::of(a, b, sa.len(), sb.len(), intersection_size(sa, sb))
        })
        .collect()
}

/// Every pair by the definition, over all `n(n − 1)/2` pairs: the oracle the
/// join is tested against.
#[cfg(test)]
pub(crate) fn brute_force(sets: &[Vec<u64>], t: f64, link: Option<u32>) -> Vec<ContainedPair> {
    let mut pairs = Vec::new();
    for a in 0..sets.len() {
        for b in a + 1..sets.len() {
            if let Some(split) = link
                && ((a as u32) < split) == ((b as u32) < split)
            {
                continue;
            }
            let (sa, sb) = (&sets[a], &sets[b]);
            if containment(sa, sb) >= t || containment(sb, sa) >= t {
                pairs.push(ContainedPair::of(
                    a as u32,
                    b as u32,
                    sa.len(),
                    sb.len(),
                    intersection_size(sa, sb),
                ));
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::SplitMix64;

    fn set(xs: &[u64]) -> Vec<u64> {
        let mut v = xs.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn is_the_share_of_a_inside_b_and_not_symmetric() {
        let a = set(&[1, 2, 3, 4]);
        let b = set(&[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(containment(&a, &b), 1.0);
        assert_eq!(containment(&b, &a), 0.5);
        assert_eq!(containment(&set(&[1, 9]), &b), 0.5);
        assert_eq!(containment(&a, &a), 1.0);
    }

    #[test]
    fn the_empty_set_is_contained_in_nothing_and_never_paired() {
        let b = set(&[1, 2, 3]);
        assert_eq!(containment(&[], &b), 0.0);
        assert_eq!(containment(&[], &[]), 0.0);
        assert_eq!(containment(&b, &[]), 0.0);
        let sets = vec![Vec::new(), b.clone(), Vec::new(), b];
        let pairs = contained_pairs(&sets, 0.01, None);
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].a, pairs[0].b), (1, 3));
        assert_eq!(pairs, brute_force(&sets, 0.01, None));
    }

    #[test]
    fn min_shared_agrees_with_the_division() {
        for size in 1..200usize {
            for t in [0.01, 0.1, 0.3, 1.0 / 3.0, 0.5, 0.7, 0.8, 0.9, 0.99, 1.0] {
                let s = min_shared(size, t);
                assert!(s >= 1 && s <= size, "{size} {t} {s}");
                assert!(of_counts(s, size) >= t);
                assert!(of_counts(s - 1, size) < t);
            }
        }
    }

    #[test]
    fn direction_names_the_contained_side() {
        let p = ContainedPair::of(0, 1, 4, 8, 4);
        assert_eq!((p.a_in_b, p.b_in_a), (1.0, 0.5));
        assert_eq!(p.contained(0.8), "a");
        assert_eq!(p.value(), 1.0);
        let q = ContainedPair::of(0, 1, 8, 4, 4);
        assert_eq!(q.contained(0.8), "b");
        assert_eq!(ContainedPair::of(0, 1, 4, 4, 4).contained(0.8), "both");
    }

    /// Snippets cut from larger sets, their hosts, and unrelated sets, all
    /// drawing from one small vocabulary so that chance overlaps land on
    /// both sides of every threshold: the join must equal the brute force.
    #[test]
    fn finds_exactly_the_brute_force_pairs() {
        let mut rng = SplitMix64(37);
        let mut sets: Vec<Vec<u64>> = Vec::new();
        for _ in 0..120 {
            let len = 1 + (rng.next_u64() % 60) as usize;
            let host: Vec<u64> = (0..len).map(|_| rng.next_u64() % 400).collect();
            let cut = 1 + (rng.next_u64() % len as u64) as usize;
            let mut snippet: Vec<u64> = host[..cut].to_vec();
            // A few elements from outside the host: containment below 1.
            for _ in 0..rng.next_u64() % 3 {
                snippet.push(rng.next_u64() % 400);
            }
            sets.push(set(&host));
            sets.push(set(&snippet));
        }
        sets.push(Vec::new());
        for t in [0.2, 0.5, 0.75, 0.9, 1.0] {
            let want = brute_force(&sets, t, None);
            assert!(!want.is_empty());
            assert_eq!(contained_pairs(&sets, t, None), want, "t = {t}");
            let split = Some(sets.len() as u32 / 2);
            assert_eq!(
                contained_pairs(&sets, t, split),
                brute_force(&sets, t, split),
                "t = {t}, linked"
            );
        }
    }
}
