//! Distance measures of MMDS 3.5 between two documents.
//!
//! **Inputs**: a document's shingles either as a *set* — a strictly increasing
//! `&[u64]` of shingle hashes, as produced for the Jaccard join — or as a
//! *count vector* — `&[(u64, u32)]`, `(shingle hash, occurrences)` strictly
//! increasing by hash, every count ≥ 1 (see [`count_vector`]). A set is the
//! 0/1 vector of the same shingles. For edit distance, the documents' text as
//! `&[char]`.
//!
//! **Outputs**, each a pure function (MMDS section in brackets):
//! - Jaccard similarity and Jaccard distance `1 − J` of the sets (3.5.3);
//! - cosine similarity of the count vectors and the cosine distance, the angle
//!   between them in degrees, 0–90 for count vectors (3.5.4);
//! - Euclidean L2, Manhattan L1 and L∞ distances of the count vectors (3.5.2);
//! - Hamming distance of the 0/1 vectors, `|A Δ B|` (3.5.6);
//! - edit distance of the texts (3.5.5). MMDS defines it with **insertions and
//!   deletions only** ([`indel_distance`], `|x| + |y| − 2·LCS(x, y)`; its
//!   example `abcde`/`acfdeg` is 3); the common **Levenshtein** distance also
//!   allows substitutions ([`levenshtein_distance`]; never larger than the
//!   indel distance). Both count Unicode scalar values.
//!
//! Undefined values are `None`, not NaN: Jaccard of two empty sets, cosine
//! when either vector is zero. Edit distances take a `max_cells` budget
//! (`n·m` after stripping the common prefix and suffix) and return `None`
//! rather than run longer; memory is `O(min(n, m))`.

use std::cmp::Ordering;
use std::collections::HashMap;

/// Count vector of a list of shingle hashes (any order, repeats counted).
pub fn count_vector(mut hashes: Vec<u64>) -> Vec<(u64, u32)> {
    hashes.sort_unstable();
    hashes
        .chunk_by(|a, b| a == b)
        .map(|run| (run[0], u32::try_from(run.len()).unwrap_or(u32::MAX)))
        .collect()
}

/// `|A ∩ B|` of two strictly increasing sets (the one definition, in
/// [`super::sets`]).
pub use super::sets::intersection_size;

/// Jaccard similarity `|A ∩ B| / |A ∪ B|`, computed as the exact join does
/// (`f64` division of the two counts); `None` when both sets are empty.
pub fn jaccard(a: &[u64], b: &[u64]) -> Option<f64> {
    let common = intersection_size(a, b);
    let union = a.len() + b.len() - common;
    (union > 0).then(|| super::sets::ratio(common, union))
}

/// Jaccard distance `1 − J(A, B)`; `None` when both sets are empty.
pub fn jaccard_distance(a: &[u64], b: &[u64]) -> Option<f64> {
    jaccard(a, b).map(|j| 1.0 - j)
}

/// Hamming distance of the sets' 0/1 vectors: the shingles in exactly one.
pub fn hamming(a: &[u64], b: &[u64]) -> usize {
    a.len() + b.len() - 2 * intersection_size(a, b)
}

/// Every measure of two count vectors, from one merge of the two.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VectorMeasures {
    /// Cosine similarity, in `[0, 1]`; `None` if either vector is zero.
    pub cosine: Option<f64>,
    /// Cosine distance: the angle in degrees, in `[0, 90]`; `None` as above.
    pub angle_degrees: Option<f64>,
    /// Euclidean (L2) distance.
    pub euclidean: f64,
    /// Manhattan (L1) distance, `Σ |aᵢ − bᵢ|`.
    pub manhattan: u64,
    /// L∞ distance, `max |aᵢ − bᵢ|`.
    pub linf: u64,
    /// Hamming distance of the 0/1 vectors (the support sets).
    pub hamming: u64,
}

/// Computes [`VectorMeasures`] of two count vectors.
pub fn vector_measures(a: &[(u64, u32)], b: &[(u64, u32)]) -> VectorMeasures {
    debug_assert!(is_count_vector(a) && is_count_vector(b));
    // Integer sums are exact; u128 cannot overflow for any real document
    // (a count is < 2^32, so a square is < 2^64, and there are < 2^64 terms).
    #[derive(Default)]
    struct Sums {
        dot: u128,
        norm_a: u128,
        norm_b: u128,
        squared: u128,
        manhattan: u64,
        linf: u64,
        hamming: u64,
    }
    impl Sums {
        fn add(&mut self, x: u64, y: u64) {
            self.dot += (x * y) as u128;
            self.norm_a += (x * x) as u128;
            self.norm_b += (y * y) as u128;
            let diff = x.abs_diff(y);
            self.squared += (diff * diff) as u128;
            self.manhattan += diff;
            self.linf = self.linf.max(diff);
            self.hamming += u64::from(x == 0 || y == 0);
        }
    }
    let mut sums = Sums::default();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let order = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.cmp(&y.0),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match order {
            Ordering::Less => {
                sums.add(a[i].1 as u64, 0);
                i += 1;
            }
            Ordering::Greater => {
                sums.add(0, b[j].1 as u64);
                j += 1;
            }
            Ordering::Equal => {
                sums.add(a[i].1 as u64, b[j].1 as u64);
                i += 1;
                j += 1;
            }
        }
    }
    let Sums {
        dot,
        norm_a,
        norm_b,
        squared,
        manhattan,
        linf,
        hamming,
    } = sums;
    let cosine = (norm_a > 0 && norm_b > 0).then(|| {
        if squared == 0 {
            // Equal vectors: exactly 1, whatever sqrt's rounding would say.
            1.0
        } else {
            (dot as f64 / ((norm_a as f64).sqrt() * (norm_b as f64).sqrt())).clamp(0.0, 1.0)
        }
    });
    VectorMeasures {
        cosine,
        angle_degrees: cosine.map(|c| c.acos().to_degrees()),
        euclidean: (squared as f64).sqrt(),
        manhattan,
        linf,
        hamming,
    }
}

fn is_count_vector(v: &[(u64, u32)]) -> bool {
    v.windows(2).all(|w| w[0].0 < w[1].0) && v.iter().all(|&(_, c)| c > 0)
}

/// Strips the common prefix and suffix, which never change an edit distance.
fn strip_common<'a>(a: &'a [char], b: &'a [char]) -> (&'a [char], &'a [char]) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (&a[..a.len() - suffix], &b[..b.len() - suffix])
}

fn within_budget(a: &[char], b: &[char], max_cells: u64) -> bool {
    (a.len() as u128) * (b.len() as u128) <= max_cells as u128
}

/// MMDS's edit distance (3.5.5): the fewest single-character insertions and
/// deletions turning `a` into `b`, `|a| + |b| − 2·LCS(a, b)`. `None` if the
/// part left after stripping the common prefix and suffix has more than
/// `max_cells` DP cells (`n·m`); the LCS is computed bit-parallel
/// (Allison & Dix 1986, Hyyrö 2004), 64 cells per word operation, in
/// `O(min(n, m) / 64)` words per distinct character of the shorter text.
pub fn indel_distance(a: &[char], b: &[char], max_cells: u64) -> Option<usize> {
    let (a, b) = strip_common(a, b);
    if !within_budget(a, b, max_cells) {
        return None;
    }
    let (pattern, text) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let lcs = lcs_length(pattern, text);
    Some(a.len() + b.len() - 2 * lcs)
}

/// Length of the longest common subsequence, bit-parallel over `pattern`.
fn lcs_length(pattern: &[char], text: &[char]) -> usize {
    if pattern.is_empty() {
        return 0;
    }
    let words = pattern.len().div_ceil(64);
    let mut masks: HashMap<char, Vec<u64>> = HashMap::new();
    for (k, &c) in pattern.iter().enumerate() {
        masks.entry(c).or_insert_with(|| vec![0; words])[k / 64] |= 1 << (k % 64);
    }
    // Bit k of `v` is 0 where row k of the LCS DP steps up; the LCS length
    // is the number of 0 bits among the pattern's.
    let mut v = vec![u64::MAX; words];
    for c in text {
        let Some(m) = masks.get(c) else { continue };
        // v = (v + (v & m)) | (v & !m), with the addition carried across words.
        let mut carry = 0u64;
        for (vw, &mw) in v.iter_mut().zip(m) {
            let u = *vw & mw;
            let (sum, c1) = vw.overflowing_add(u);
            let (sum, c2) = sum.overflowing_add(carry);
            carry = (c1 || c2) as u64;
            *vw = sum | (*vw & !mw);
        }
    }
    let tail = pattern.len() % 64;
    v.iter()
        .enumerate()
        .map(|(w, &x)| {
            let live = if w + 1 == words && tail != 0 {
                x | !((1u64 << tail) - 1)
            } else {
                x
            };
            live.count_zeros() as usize
        })
        .sum()
}

/// Levenshtein distance: the fewest single-character insertions, deletions
/// and substitutions turning `a` into `b`. `None` past `max_cells` as for
/// [`indel_distance`]; classic DP, one row of `min(n, m) + 1` cells.
pub fn levenshtein_distance(a: &[char], b: &[char], max_cells: u64) -> Option<usize> {
    let (a, b) = strip_common(a, b);
    if !within_budget(a, b, max_cells) {
        return None;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut row: Vec<usize> = (0..=short.len()).collect();
    for (i, &lc) in long.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (k, &sc) in short.iter().enumerate() {
            let substitute = diagonal + usize::from(lc != sc);
            diagonal = row[k + 1];
            row[k + 1] = substitute.min(row[k] + 1).min(row[k + 1] + 1);
        }
    }
    Some(row[short.len()])
}

/// Damerau–Levenshtein distance (MMDS Exercise 3.5.8): the fewest
/// insertions, deletions, substitutions and transpositions of two adjacent
/// characters turning `a` into `b`, in the unrestricted form of Lowrance and
/// Wagner (1975), which is a distance measure (the triangle inequality of
/// Exercise 3.5.9 holds; the simpler "optimal string alignment" variant
/// breaks it: OSA(ca, abc) = 3, yet ca → ac → abc costs 2). `None` past
/// `max_cells` as for [`indel_distance`]; the DP keeps its whole table.
pub fn damerau_distance(a: &[char], b: &[char], max_cells: u64) -> Option<usize> {
    let (a, b) = strip_common(a, b);
    if !within_budget(a, b, max_cells) {
        return None;
    }
    let (n, m) = (a.len(), b.len());
    let infinity = n + m;
    let width = m + 2;
    let mut d = vec![0usize; (n + 2) * width];
    let at = |i: usize, j: usize| i * width + j;
    d[at(0, 0)] = infinity;
    for i in 0..=n {
        d[at(i + 1, 0)] = infinity;
        d[at(i + 1, 1)] = i;
    }
    for j in 0..=m {
        d[at(0, j + 1)] = infinity;
        d[at(1, j + 1)] = j;
    }
    // The last row in which each character of `a` was seen.
    let mut last_row: HashMap<char, usize> = HashMap::new();
    for i in 1..=n {
        let mut last_match_col = 0;
        for j in 1..=m {
            let i1 = last_row.get(&b[j - 1]).copied().unwrap_or(0);
            let j1 = last_match_col;
            let cost = if a[i - 1] == b[j - 1] {
                last_match_col = j;
                0
            } else {
                1
            };
            d[at(i + 1, j + 1)] = (d[at(i, j)] + cost)
                .min(d[at(i + 1, j)] + 1)
                .min(d[at(i, j + 1)] + 1)
                .min(d[at(i1, j1)] + (i - i1 - 1) + 1 + (j - j1 - 1));
        }
        last_row.insert(a[i - 1], i);
    }
    Some(d[at(n + 1, m + 1)])
}

/// The Jaccard similarity of two bags (multisets) as MMDS defines it in the
/// exercises of 3.1: an element counts in the intersection as often as in
/// the bag where it is rarer, and in the "union" as often as in both bags
/// together, so the value is at most 1/2 ({a,a,a,b} and {a,a,b,b,c}: 3/9).
/// Inputs are count vectors ([`count_vector`]); `None` for two empty bags.
pub fn bag_jaccard(a: &[(u64, u32)], b: &[(u64, u32)]) -> Option<f64> {
    let (min, _) = min_max_sums(a, b);
    let total: u64 = a.iter().chain(b).map(|&(_, c)| c as u64).sum();
    (total > 0).then(|| min as f64 / total as f64)
}

/// The weighted (generalised) Jaccard similarity `Σ min / Σ max` of two count
/// vectors: 1 for equal bags, and what datasketch's `WeightedMinHash`
/// estimates. `None` for two empty bags.
pub fn weighted_jaccard(a: &[(u64, u32)], b: &[(u64, u32)]) -> Option<f64> {
    let (min, max) = min_max_sums(a, b);
    (max > 0).then(|| min as f64 / max as f64)
}

/// The weighted Jaccard similarity `Σ min / Σ max` of two weighted sets,
/// `(element, weight)` strictly increasing by element, every weight finite
/// and > 0 (what `scan --sketch icws` verifies by). `None` when both are
/// empty. Sums run in element order, so the value is the same however the
/// sets were read.
pub fn weighted_jaccard_of(a: &[(u64, f64)], b: &[(u64, f64)]) -> Option<f64> {
    let (mut i, mut j, mut min, mut max) = (0, 0, 0.0f64, 0.0f64);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            Ordering::Less => {
                max += a[i].1;
                i += 1;
            }
            Ordering::Greater => {
                max += b[j].1;
                j += 1;
            }
            Ordering::Equal => {
                min += a[i].1.min(b[j].1);
                max += a[i].1.max(b[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    max += a[i..].iter().chain(&b[j..]).map(|&(_, w)| w).sum::<f64>();
    (max > 0.0).then(|| min / max)
}

/// `(Σ min(a_i, b_i), Σ max(a_i, b_i))` over two sorted count vectors.
fn min_max_sums(a: &[(u64, u32)], b: &[(u64, u32)]) -> (u64, u64) {
    let (mut i, mut j, mut min, mut max) = (0, 0, 0u64, 0u64);
    while i < a.len() || j < b.len() {
        let ka = a.get(i).map_or(u64::MAX, |x| x.0);
        let kb = b.get(j).map_or(u64::MAX, |x| x.0);
        if i < a.len() && (j == b.len() || ka < kb) {
            max += a[i].1 as u64;
            i += 1;
        } else if j < b.len() && (i == a.len() || kb < ka) {
            max += b[j].1 as u64;
            j += 1;
        } else {
            min += a[i].1.min(b[j].1) as u64;
            max += a[i].1.max(b[j].1) as u64;
            i += 1;
            j += 1;
        }
    }
    (min, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn indel(a: &str, b: &str) -> usize {
        indel_distance(&chars(a), &chars(b), u64::MAX).unwrap()
    }

    fn lev(a: &str, b: &str) -> usize {
        levenshtein_distance(&chars(a), &chars(b), u64::MAX).unwrap()
    }

    #[test]
    fn mmds_edit_distance_example() {
        // MMDS 3.5.5: abcde → acfdeg by deleting b, inserting f after c and g
        // after e; LCS is acde, so 5 + 6 − 2·4 = 3.
        assert_eq!(indel("abcde", "acfdeg"), 3);
        assert_eq!(lev("abcde", "acfdeg"), 3);
    }

    #[test]
    fn substitution_costs_one_in_levenshtein_two_in_indel() {
        assert_eq!(indel("kitten", "sitting"), 5);
        assert_eq!(lev("kitten", "sitting"), 3);
        assert_eq!(indel("a", "b"), 2);
        assert_eq!(lev("a", "b"), 1);
    }

    #[test]
    fn edit_distance_edge_cases() {
        assert_eq!(indel("", ""), 0);
        assert_eq!(indel("", "abc"), 3);
        assert_eq!(lev("abc", ""), 3);
        assert_eq!(indel("same", "same"), 0);
        // Unicode scalar values, not bytes.
        assert_eq!(indel("naïve", "naive"), 2);
        assert_eq!(lev("naïve", "naive"), 1);
    }

    #[test]
    fn edit_distance_respects_the_budget_after_stripping() {
        let a: Vec<char> = "x".repeat(1000).chars().collect();
        let mut b = a.clone();
        b[500] = 'y';
        // Common prefix and suffix leave 1×1 cells.
        assert_eq!(indel_distance(&a, &b, 1), Some(2));
        assert_eq!(levenshtein_distance(&a, &b, 1), Some(1));
        let c: Vec<char> = "z".repeat(10).chars().collect();
        assert_eq!(indel_distance(&a, &c, 9_999), None);
        assert_eq!(indel_distance(&a, &c, 10_000), Some(1010));
        assert_eq!(levenshtein_distance(&a, &c, 9_999), None);
    }

    /// Full-matrix DPs, the textbook definitions.
    fn naive(a: &[char], b: &[char], substitution: usize) -> usize {
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        d[0] = (0..=b.len()).collect();
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let diagonal = if a[i - 1] == b[j - 1] {
                    d[i - 1][j - 1]
                } else {
                    d[i - 1][j - 1] + substitution
                };
                d[i][j] = diagonal.min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
            }
        }
        d[a.len()][b.len()]
    }

    #[test]
    fn edit_distances_match_the_textbook_dp() {
        // Long strings cross the 64-bit word boundaries of the bit-parallel LCS.
        let text =
            || prop::collection::vec(prop::sample::select(vec!['a', 'b', 'c', 'é', ' ']), 0..200);
        let config = Config {
            cases: 300,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[3; 32]));
        runner
            .run(&(text(), text()), |(a, b)| {
                // Substitution cost 2 = a deletion plus an insertion.
                prop_assert_eq!(indel_distance(&a, &b, u64::MAX).unwrap(), naive(&a, &b, 2));
                prop_assert_eq!(
                    levenshtein_distance(&a, &b, u64::MAX).unwrap(),
                    naive(&a, &b, 1)
                );
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn jaccard_and_hamming_of_sets() {
        // The Jaccard definition (the seed's notes on sets): two shared of five
        // elements in all, 2/5.
        let (a, b) = ([1, 2, 3, 4], [3, 4, 5]);
        assert_eq!(jaccard(&a, &b), Some(0.4));
        assert_eq!(jaccard_distance(&a, &b), Some(0.6));
        assert_eq!(hamming(&a, &b), 3);
        assert_eq!(jaccard(&a, &a), Some(1.0));
        assert_eq!(jaccard(&a, &[]), Some(0.0));
        assert_eq!(jaccard(&[], &[]), None);
        assert_eq!(hamming(&[], &[]), 0);
    }

    #[test]
    fn mmds_hamming_example() {
        // MMDS 3.5.6: 10101 and 11110 differ in 3 components. As sets of the
        // positions of 1s: {0,2,4} and {0,1,2,3}.
        assert_eq!(hamming(&[0, 2, 4], &[0, 1, 2, 3]), 3);
        let v = |s: &[u64]| s.iter().map(|&k| (k, 1)).collect::<Vec<_>>();
        assert_eq!(
            vector_measures(&v(&[0, 2, 4]), &v(&[0, 1, 2, 3])).hamming,
            3
        );
    }

    #[test]
    fn mmds_euclidean_example() {
        // MMDS 3.5.2: (2,7) and (6,4): L2 = 5, L1 = 7, L∞ = 4.
        let (x, y) = ([(0, 2), (1, 7)], [(0, 6), (1, 4)]);
        let m = vector_measures(&x, &y);
        assert_eq!(m.euclidean, 5.0);
        assert_eq!(m.manhattan, 7);
        assert_eq!(m.linf, 4);
    }

    #[test]
    fn mmds_cosine_example() {
        // MMDS 3.5.4: [1,2,-1] and [2,1,1] have cosine 1/2, angle 60°. Count
        // vectors are non-negative, so use [1,2,0]·[2,1,1] = 4 over √5·√6.
        let (x, y) = ([(0, 1), (1, 2)], [(0, 2), (1, 1), (2, 1)]);
        let m = vector_measures(&x, &y);
        let expected = 4.0 / (5f64.sqrt() * 6f64.sqrt());
        assert!((m.cosine.unwrap() - expected).abs() < 1e-15);
        assert!((m.angle_degrees.unwrap() - expected.acos().to_degrees()).abs() < 1e-12);
        // Orthogonal: 90°; identical: exactly 0°.
        let z = vector_measures(&[(0, 3)], &[(1, 5)]);
        assert_eq!((z.cosine, z.angle_degrees), (Some(0.0), Some(90.0)));
        let same = [(7, 3), (9, 1), (12, 7)];
        assert_eq!(vector_measures(&same, &same).angle_degrees, Some(0.0));
        // Scaled copies point the same way.
        let doubled: Vec<(u64, u32)> = same.iter().map(|&(k, c)| (k, 2 * c)).collect();
        assert!(vector_measures(&same, &doubled).angle_degrees.unwrap() < 1e-6);
    }

    #[test]
    fn zero_vectors_have_no_angle() {
        let m = vector_measures(&[], &[(1, 2)]);
        assert_eq!((m.cosine, m.angle_degrees), (None, None));
        assert_eq!(
            (m.euclidean, m.manhattan, m.linf, m.hamming),
            (2.0, 2, 2, 1)
        );
        let m = vector_measures(&[], &[]);
        assert_eq!(
            (m.euclidean, m.manhattan, m.linf, m.hamming),
            (0.0, 0, 0, 0)
        );
    }

    #[test]
    fn count_vector_counts_repeats() {
        assert_eq!(
            count_vector(vec![5, 1, 5, 3, 5]),
            vec![(1, 1), (3, 1), (5, 3)]
        );
        assert!(count_vector(vec![]).is_empty());
    }

    #[test]
    fn measures_are_symmetric_and_agree_with_sets() {
        let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[9; 32]);
        for _ in 0..200 {
            let mut draw = || {
                count_vector(
                    (0..rng.random_range(0..30))
                        .map(|_| rng.random_range(0..20u64))
                        .collect(),
                )
            };
            let (a, b) = (draw(), draw());
            let (ma, mb) = (vector_measures(&a, &b), vector_measures(&b, &a));
            assert_eq!(ma, mb);
            let keys = |v: &[(u64, u32)]| v.iter().map(|p| p.0).collect::<Vec<_>>();
            assert_eq!(ma.hamming as usize, hamming(&keys(&a), &keys(&b)));
            assert!(
                ma.linf as f64 <= ma.euclidean + 1e-9 && ma.euclidean <= ma.manhattan as f64 + 1e-9
            );
        }
    }

    fn dl(a: &str, b: &str) -> usize {
        damerau_distance(&chars(a), &chars(b), u64::MAX).unwrap()
    }

    /// Oracle: breadth-first search over every string reachable by the four
    /// operations over the two strings' alphabet (small strings only).
    fn dl_by_search(a: &str, b: &str) -> usize {
        let alphabet: Vec<char> = {
            let mut v: Vec<char> = a.chars().chain(b.chars()).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let limit = a.chars().count().max(b.chars().count()) + 1;
        let mut seen = std::collections::HashSet::from([chars(a)]);
        let mut frontier = vec![chars(a)];
        for steps in 0.. {
            if frontier.iter().any(|s| s == &chars(b)) {
                return steps;
            }
            let mut next = Vec::new();
            for s in &frontier {
                let mut moves: Vec<Vec<char>> = Vec::new();
                for k in 0..=s.len() {
                    for &c in &alphabet {
                        let mut t = s.clone();
                        t.insert(k, c);
                        moves.push(t);
                        if k < s.len() {
                            let mut t = s.clone();
                            t[k] = c;
                            moves.push(t);
                        }
                    }
                    if k < s.len() {
                        let mut t = s.clone();
                        t.remove(k);
                        moves.push(t);
                    }
                    if k + 1 < s.len() {
                        let mut t = s.clone();
                        t.swap(k, k + 1);
                        moves.push(t);
                    }
                }
                for t in moves {
                    if t.len() <= limit && seen.insert(t.clone()) {
                        next.push(t);
                    }
                }
            }
            frontier = next;
        }
        unreachable!()
    }

    #[test]
    fn damerau_counts_an_adjacent_swap_once_and_matches_search() {
        assert_eq!(dl("abcde", "abdce"), 1);
        assert_eq!(lev("abcde", "abdce"), 2);
        // Unrestricted: an insertion between the swapped pair (OSA says 3).
        assert_eq!(dl("ca", "abc"), 2);
        assert_eq!(dl("abcde", "acfdeg"), 3);
        for (a, b) in [
            ("ab", "ba"),
            ("abc", "ca"),
            ("abcd", "badc"),
            ("aab", "bba"),
            ("", "ab"),
            ("abc", "cab"),
        ] {
            assert_eq!(dl(a, b), dl_by_search(a, b), "{a} {b}");
        }
        assert_eq!(damerau_distance(&chars("abcd"), &chars("dcba"), 3), None);
    }

    #[test]
    fn bag_jaccard_follows_the_chapter_and_weighted_jaccard_is_min_over_max() {
        // {a,a,a,b} and {a,a,b,b,c}: intersection {a,a,b}, "union" all 9.
        let a = [(1, 3), (2, 1)];
        let b = [(1, 2), (2, 2), (3, 1)];
        assert_eq!(bag_jaccard(&a, &b), Some(3.0 / 9.0));
        assert_eq!(weighted_jaccard(&a, &b), Some(3.0 / 6.0));
        assert_eq!(bag_jaccard(&a, &a), Some(0.5));
        assert_eq!(weighted_jaccard(&a, &a), Some(1.0));
        assert_eq!(weighted_jaccard(&[], &[]), None);
        // With every count 1 the weighted form is the set Jaccard.
        let x = [(1, 1), (2, 1), (5, 1)];
        let y = [(2, 1), (5, 1), (7, 1)];
        assert_eq!(weighted_jaccard(&x, &y), jaccard(&[1, 2, 5], &[2, 5, 7]));
    }
}
