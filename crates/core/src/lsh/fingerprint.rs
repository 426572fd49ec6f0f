//! The grid-square family for fingerprints (MMDS 3.8.4–3.8.5).
//!
//! A fingerprint is the set of grid squares holding a minutia. A function of
//! the family is three squares; it says "yes" to two fingerprints when both
//! have minutiae in all three (it puts every print with all three in "its"
//! bucket). Example 3.22 takes the OR of 1,024 such functions (a pair is a
//! candidate of the group when some function says yes), then the AND of two
//! such groups (a candidate of every group).
//!
//! [`Model`] is the chapter's arithmetic: with probability `p` of a minutia in
//! a square and `q` that a print of the same finger has it too, one function
//! says yes to prints of one finger with probability p³q³ and to prints of
//! different fingers with p⁶. [`candidates`] is the family applied to sets
//! through its buckets, [`brute_force`] the definition pair by pair (the
//! oracle of the tests). Pure: no file system, no printing.

use crate::sketch::SplitMix64;

/// One function of the family: three distinct grid squares.
pub type Function = [u32; 3];

/// `groups` groups of `per_group` functions, each three distinct squares of
/// `0..grid` drawn uniformly from `seed`. `grid` must be at least 3.
pub fn draw(grid: u32, per_group: usize, groups: usize, seed: u64) -> Vec<Vec<Function>> {
    assert!(grid >= 3, "a function needs three distinct squares");
    let mut rng = SplitMix64(seed);
    // Uniform in 0..n by rejection: no modulo bias, and the same on every platform.
    let mut below = |n: u32| -> u32 {
        let n = u64::from(n);
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = rng.next_u64();
            if x < zone {
                return (x % n) as u32;
            }
        }
    };
    (0..groups)
        .map(|_| {
            (0..per_group)
                .map(|_| {
                    let a = below(grid);
                    let mut b = below(grid);
                    while b == a {
                        b = below(grid);
                    }
                    let mut c = below(grid);
                    while c == a || c == b {
                        c = below(grid);
                    }
                    let mut f = [a, b, c];
                    f.sort_unstable();
                    f
                })
                .collect()
        })
        .collect()
}

/// Whether a sorted set of squares has a minutia in each of `f`'s squares.
pub fn in_bucket(f: &Function, print: &[u32]) -> bool {
    f.iter().all(|s| print.binary_search(s).is_ok())
}

/// Squares two sorted prints share.
pub fn shared(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The pairs `(i, j)`, `i < j`, of `prints` (each a sorted set of squares)
/// that every group puts in a common bucket: for each function the prints in
/// its bucket, the pairs within it united over the group, intersected over
/// the groups. Sorted.
pub fn candidates(prints: &[Vec<u32>], groups: &[Vec<Function>]) -> Vec<(u32, u32)> {
    let mut result: Option<Vec<(u32, u32)>> = None;
    for group in groups {
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for f in group {
            let bucket: Vec<u32> = (0..prints.len() as u32)
                .filter(|&i| in_bucket(f, &prints[i as usize]))
                .collect();
            for (k, &i) in bucket.iter().enumerate() {
                pairs.extend(bucket[k + 1..].iter().map(|&j| (i, j)));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        result = Some(match result {
            None => pairs,
            Some(before) => before
                .into_iter()
                .filter(|p| pairs.binary_search(p).is_ok())
                .collect(),
        });
    }
    result.unwrap_or_default()
}

/// The definition, pair by pair: `(i, j)` is a candidate when in every group
/// some function has all three squares in both prints.
pub fn brute_force(prints: &[Vec<u32>], groups: &[Vec<Function>]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..prints.len() {
        for j in i + 1..prints.len() {
            let yes = groups.iter().all(|group| {
                group
                    .iter()
                    .any(|f| in_bucket(f, &prints[i]) && in_bucket(f, &prints[j]))
            });
            if yes {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

/// Example 3.22's model: `minutia` is the probability of a minutia in a
/// square, `same` that a print of the same finger has one where the first
/// has; `per_group` functions OR-ed, `groups` such ORs AND-ed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    pub minutia: f64,
    pub same: f64,
    pub per_group: u32,
    pub groups: u32,
}

/// What [`Model::probabilities`] gives, for prints of the same finger and of
/// different fingers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probabilities {
    /// p³: one print has minutiae in the three squares.
    pub three: f64,
    /// q³: the other print of the same finger has them too.
    pub three_again: f64,
    /// p³q³: one function says yes to prints of one finger.
    pub one_same: f64,
    /// p⁶: one function says yes to prints of different fingers.
    pub one_different: f64,
    /// 1 − (1 − p³q³)^per_group: the OR of a group, same finger.
    pub or_same: f64,
    /// 1 − (1 − p⁶)^per_group: the OR of a group, different fingers.
    pub or_different: f64,
    /// or_same^groups: the AND of the groups, same finger.
    pub and_same: f64,
    /// or_different^groups: the AND of the groups, different fingers.
    pub and_different: f64,
}

impl Model {
    pub fn probabilities(&self) -> Probabilities {
        let three = self.minutia.powi(3);
        let three_again = self.same.powi(3);
        let one_same = three * three_again;
        let one_different = three * three;
        let or = |p: f64| 1.0 - (1.0 - p).powf(f64::from(self.per_group));
        let or_same = or(one_same);
        let or_different = or(one_different);
        Probabilities {
            three,
            three_again,
            one_same,
            one_different,
            or_same,
            or_different,
            and_same: or_same.powf(f64::from(self.groups)),
            and_different: or_different.powf(f64::from(self.groups)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Example 3.22's numbers as the text prints them (rounded), and the
    /// exact AND that the text's 0.00397 (= 0.063²) rounds away.
    #[test]
    fn example_3_22() {
        let p = Model {
            minutia: 0.2,
            same: 0.8,
            per_group: 1024,
            groups: 2,
        }
        .probabilities();
        assert!((p.three - 0.008).abs() < 1e-12);
        assert!((p.three_again - 0.512).abs() < 1e-12);
        assert!((p.one_same - 0.004096).abs() < 1e-12);
        assert!((p.one_different - 0.000064).abs() < 1e-12);
        assert!((p.or_same - 0.985).abs() < 5e-4);
        assert!((p.or_different - 0.063).abs() < 5e-4);
        assert!((p.and_same - 0.970).abs() < 5e-4);
        assert!((p.and_different - 0.063f64.powi(2)).abs() > 5e-5);
        assert!((p.and_different - p.or_different * p.or_different).abs() < 1e-15);
    }

    #[test]
    fn functions_are_three_distinct_squares_and_seeded() {
        let a = draw(5, 200, 2, 9);
        assert_eq!(a, draw(5, 200, 2, 9));
        assert_ne!(a, draw(5, 200, 2, 10));
        assert_eq!(a.len(), 2);
        for f in a.iter().flatten() {
            assert!(f[0] < f[1] && f[1] < f[2] && f[2] < 5, "{f:?}");
        }
        // All C(5, 3) = 10 triples turn up among 400 draws.
        let mut seen: Vec<Function> = a.into_iter().flatten().collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 10);
    }

    /// The buckets find exactly the pairs of the definition.
    #[test]
    fn buckets_equal_brute_force() {
        let mut rng = SplitMix64(3);
        let grid = 40;
        let prints: Vec<Vec<u32>> = (0..60)
            .map(|_| {
                (0..grid)
                    .filter(|_| rng.next_u64() % 100 < 35)
                    .collect::<Vec<u32>>()
            })
            .collect();
        for (per_group, groups) in [(1, 1), (30, 1), (30, 2), (5, 3)] {
            let functions = draw(grid, per_group, groups, 11);
            let fast = candidates(&prints, &functions);
            assert_eq!(
                fast,
                brute_force(&prints, &functions),
                "{per_group}×{groups}"
            );
            // One group of 30 functions finds pairs (each shares a triple
            // with probability about 1 − (1 − 0.35⁶)^30 ≈ 5%, over 1,770 pairs).
            if (per_group, groups) == (30, 1) {
                assert!(!fast.is_empty(), "{per_group}×{groups}");
            }
        }
    }
}
