//! Containment by LSH, after LSH Ensemble (E. Zhu, F. Nargesian, K. Q. Pu,
//! R. J. Miller, "LSH Ensemble: Internet-Scale Domain Search", VLDB 2016):
//! sets partitioned by size, MinHash bands chosen per pair of partitions so
//! that a pair contained at ≥ t collides with probability ≥ the recall
//! floor, and every candidate verified exactly (precision 1.0).
//!
//! Why partitions: containment is no Jaccard similarity, but it bounds one.
//! If `C(A, B) = |A ∩ B| / |A| ≥ t` then
//! `J(A, B) = |A ∩ B| / (|A| + |B| − |A ∩ B|) ≥ t·|A| / (|A| + |B| − t·|A|)`,
//! which falls as `|B| / |A|` grows. Over one whole corpus the bound is
//! useless (a small A in a huge B has a tiny Jaccard); within a block of
//! A's of size ≥ `a` against B's of size ≤ `u` it is the Jaccard threshold
//! `s* = t·a / (a + u − t·a)`, and a banding meeting the recall floor at
//! `s*` meets it for every pair of the block. Blocks whose `s*` no banding
//! of the signature reaches are compared pair by pair instead (exact), so
//! the floor holds everywhere.
//!
//! Inputs: sets as strictly increasing `&[u64]`, a threshold in (0, 1], a
//! recall floor, a signature length and a seed. Output: the pairs (as
//! [`crate::similarity::contained_pairs`] writes them),
//! and the counts of candidates and of blocks compared exhaustively. Pure;
//! parallel over sets when signing.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use super::{Banding, band_keys};
use crate::similarity::ContainedPair;
use crate::similarity::intersection_size;
use crate::sketch::MinHasher;

/// MinHash values per set: enough for rows up to 32 and bands up to 256.
pub const ENSEMBLE_HASHES: usize = 256;

/// Size partitions (equal counts of sets, sorted by size).
pub const PARTITIONS: usize = 16;

/// What [`contained_pairs_lsh`] found, and the work it did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnsembleOutcome {
    /// Pairs with one set contained in the other at ≥ t, ordered by `(a, b)`.
    pub pairs: Vec<ContainedPair>,
    /// Distinct candidate pairs verified.
    pub candidates: u64,
    /// Blocks: pairs of size partitions, the smaller sets' and the larger's.
    pub blocks: u64,
    /// Of those, the blocks whose bound no banding reaches, compared pair
    /// by pair.
    pub exhaustive_blocks: u64,
}

/// The banding of `hashes` values that keeps `1 − (1 − s^r)^b ≥ min_recall`
/// with the most rows (fewest false candidates); `None` when even one-row
/// bands miss the floor.
pub fn banding_for(s: f64, min_recall: f64, hashes: usize) -> Option<Banding> {
    (1..=hashes.min(32)).rev().find_map(|rows| {
        let bands = hashes / rows;
        let p = 1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32);
        (bands > 0 && p >= min_recall).then_some(Banding { bands, rows })
    })
}

/// Every unordered pair of `sets` with one contained in the other at ≥ `t`
/// that the bands find (each with probability ≥ `min_recall`, see the
/// module's documentation), verified exactly; with `link = Some(n)`, only
/// pairs across index `n`. Empty sets are never paired.
pub fn contained_pairs_lsh(
    sets: &[Vec<u64>],
    t: f64,
    min_recall: f64,
    (hashes, seed): (usize, u64),
    link: Option<u32>,
) -> EnsembleOutcome {
    assert!(t > 0.0 && t <= 1.0, "threshold {t} outside (0, 1]");
    let mut order: Vec<u32> = (0..sets.len() as u32)
        .filter(|&i| !sets[i as usize].is_empty())
        .collect();
    order.sort_by_key(|&i| (sets[i as usize].len(), i));
    let size = |i: u32| sets[i as usize].len();
    let per = order.len().div_ceil(PARTITIONS).max(1);
    let parts: Vec<&[u32]> = order.chunks(per).collect();
    let hasher = MinHasher::new(hashes, seed);
    let signatures: Vec<Vec<u32>> = sets
        .par_iter()
        .map(|set| {
            if set.is_empty() {
                Vec::new()
            } else {
                hasher.sign(set)
            }
        })
        .collect();
    let across = |x: u32, y: u32| match link {
        Some(split) => (x < split) != (y < split),
        None => true,
    };
    let mut candidates: HashSet<(u32, u32)> = HashSet::new();
    let mut exhaustive_blocks = 0;
    let blocks = (parts.len() * (parts.len() + 1) / 2) as u64;
    // A pair's smaller set is in partition q, its larger in p ≥ q: the
    // larger direction, what the threshold is held against, is the smaller
    // set's containment in the larger.
    for (q, small) in parts.iter().enumerate() {
        let a = size(small[0]);
        for large in &parts[q..] {
            let u = size(*large.last().unwrap());
            let ta = t * a as f64;
            let bound = ta / (a as f64 + u as f64 - ta);
            match banding_for(bound, min_recall, hashes) {
                Some(banding) => {
                    let mut buckets: HashMap<u64, Vec<u32>> = HashMap::new();
                    for &j in large.iter() {
                        for key in band_keys(&signatures[j as usize], banding) {
                            buckets.entry(key).or_default().push(j);
                        }
                    }
                    for &i in small.iter() {
                        for key in band_keys(&signatures[i as usize], banding) {
                            for &j in buckets.get(&key).into_iter().flatten() {
                                if i != j && across(i, j) {
                                    candidates.insert((i.min(j), i.max(j)));
                                }
                            }
                        }
                    }
                }
                None => {
                    exhaustive_blocks += 1;
                    for &i in small.iter() {
                        for &j in large.iter() {
                            if i != j && across(i, j) {
                                candidates.insert((i.min(j), i.max(j)));
                            }
                        }
                    }
                }
            }
        }
    }
    let mut candidates: Vec<(u32, u32)> = candidates.into_iter().collect();
    candidates.par_sort_unstable();
    let pairs = candidates
        .par_iter()
        .filter_map(|&(a, b)| {
            let (sa, sb) = (&sets[a as usize], &sets[b as usize]);
            let pair = ContainedPair::of(a, b, sa.len(), sb.len(), intersection_size(sa, sb));
            (pair.value() >= t).then_some(pair)
        })
        .collect();
    EnsembleOutcome {
        pairs,
        candidates: candidates.len() as u64,
        blocks,
        exhaustive_blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::contained_pairs;
    use crate::sketch::SplitMix64;

    #[test]
    fn the_banding_meets_the_floor_with_the_most_rows() {
        let b = banding_for(0.5, 0.9, 256).unwrap();
        let p = |b: Banding, s: f64| 1.0 - (1.0 - s.powi(b.rows as i32)).powi(b.bands as i32);
        assert!(p(b, 0.5) >= 0.9);
        let more = Banding {
            bands: 256 / (b.rows + 1),
            rows: b.rows + 1,
        };
        assert!(p(more, 0.5) < 0.9, "{b:?} has the most rows");
        assert_eq!(banding_for(1e-6, 0.9, 256), None);
    }

    /// Snippets of varied sizes cut from hosts of varied sizes (so pairs
    /// land in many blocks), among unrelated sets: every pair the bands
    /// report is a true pair (verified), and the share of the exact join's
    /// pairs found is at least the floor less a margin. Each pair is found
    /// with probability ≥ 0.9 independently of the others' bands only
    /// loosely (one signature per set), so the margin is wide: 4σ of a
    /// binomial over the pairs.
    #[test]
    fn finds_at_least_the_recall_floor_of_the_exact_pairs() {
        let mut rng = SplitMix64(2016);
        let mut sets: Vec<Vec<u64>> = Vec::new();
        let mut next = 0u64;
        for _ in 0..300 {
            let len = 20 + (rng.next_u64() % 400) as usize;
            let host: Vec<u64> = (0..len as u64).map(|x| next + x).collect();
            next += len as u64;
            let cut = 5 + (rng.next_u64() % (len as u64 / 2)) as usize;
            let start = (rng.next_u64() % (len - cut) as u64) as usize;
            let mut snippet = host[start..start + cut].to_vec();
            // One foreign element in four, at most: containment ≥ 0.75.
            for _ in 0..rng.next_u64() % (cut as u64 / 4 + 1) {
                snippet.push(u64::MAX - rng.next_u64() % 1_000_000);
            }
            snippet.sort_unstable();
            snippet.dedup();
            sets.push(host);
            sets.push(snippet);
        }
        sets.push(Vec::new());
        let t = 0.7;
        let exact = contained_pairs(&sets, t, None);
        assert!(exact.len() >= 300, "{}", exact.len());
        let found = contained_pairs_lsh(&sets, t, 0.9, (ENSEMBLE_HASHES, 7), None);
        let exact_set: HashSet<(u32, u32)> = exact.iter().map(|p| (p.a, p.b)).collect();
        for p in &found.pairs {
            assert!(exact_set.contains(&(p.a, p.b)), "a false pair {p:?}");
            assert!(exact.contains(p), "the values are the exact ones");
        }
        let n = exact.len() as f64;
        let margin = 4.0 * (0.9 * 0.1 / n).sqrt();
        let recall = found.pairs.len() as f64 / n;
        assert!(recall >= 0.9 - margin, "recall {recall} over {n} pairs");
        assert!(
            found.candidates < (sets.len() * sets.len() / 4) as u64,
            "the bands prune: {} candidates",
            found.candidates
        );
        // Linked: only pairs across the split, still a subset of the exact.
        let split = Some(sets.len() as u32 / 2);
        let linked = contained_pairs_lsh(&sets, t, 0.9, (ENSEMBLE_HASHES, 7), split);
        let exact_linked = contained_pairs(&sets, t, split);
        assert!(linked.pairs.iter().all(|p| exact_linked.contains(p)));
    }

    #[test]
    fn a_floor_of_one_is_exact() {
        // A floor of 1: each block is compared pair by pair, or banded so
        // that a miss is rarer than a double's resolution: the exact join's
        // answer.
        let mut rng = SplitMix64(5);
        let sets: Vec<Vec<u64>> = (0..60)
            .map(|_| {
                let mut s: Vec<u64> = (0..1 + rng.next_u64() % 30)
                    .map(|_| rng.next_u64() % 50)
                    .collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        let found = contained_pairs_lsh(&sets, 0.6, 1.0, (ENSEMBLE_HASHES, 1), None);
        assert_eq!(found.pairs, contained_pairs(&sets, 0.6, None));
    }
}
