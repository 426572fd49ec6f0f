//! Verification of candidate pairs (MMDS 3.4.1, step 3): candidates in, the
//! pairs whose similarity reaches the threshold out, so that LSH's false
//! positives never reach the output.
//!
//! Exact verification needs both documents' shingle sets, which are not kept in
//! memory after signing (memory grows with the number of documents, not their
//! bytes). [`verify_exact`] therefore re-creates sets through a caller-supplied
//! loader, under a memory budget: the documents involved are cut, in id order,
//! into blocks whose sets fit in half the budget; pairs are grouped by the
//! blocks of their two documents and processed block pair by block pair. When
//! everything fits in one block (the common case), every document is loaded
//! exactly once.

use rayon::prelude::*;

/// Size of the intersection of two sorted, deduplicated sets.
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    intersection_at_least(a, b, 0).expect("every intersection has at least 0 elements")
}

/// Steps of the merge between two checks of the early-exit bound.
const CHECK_EVERY: usize = 128;

/// The size of the intersection of two sorted, deduplicated sets if it is at
/// least `need`, else `None` — as soon as the elements left cannot make up
/// the difference (the positional bound of MMDS 3.9.7, applied while merging).
/// A candidate far below the threshold is rejected after a fraction of its
/// merge.
///
/// The merge is branch-free (compare, then advance either side by a 0/1
/// step): whether the smaller element is in `a` or `b` is a coin toss the
/// branch predictor loses half the time on real sets.
pub fn intersection_at_least(a: &[u64], b: &[u64], need: usize) -> Option<usize> {
    let (mut i, mut j, mut shared) = (0usize, 0usize, 0usize);
    while i < a.len() && j < b.len() {
        for _ in 0..CHECK_EVERY {
            let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) else {
                break;
            };
            shared += usize::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        if shared + (a.len() - i).min(b.len() - j) < need {
            return None;
        }
    }
    (shared >= need).then_some(shared)
}

/// The least intersection two sets of sizes `la` and `lb` can have when their
/// Jaccard similarity is at least `threshold`, rounded down by one element so
/// that floating-point rounding never rejects a pair [`ratio`] would accept
/// (the final decision is always `ratio(…) >= threshold`).
pub fn overlap_needed(la: usize, lb: usize, threshold: f64) -> usize {
    // J = o / (la + lb − o) ≥ t  ⟺  o ≥ t (la + lb) / (1 + t)
    let exact = threshold * (la + lb) as f64 / (1.0 + threshold);
    (exact.ceil() as usize).saturating_sub(1)
}

/// Jaccard similarity `|A ∩ B| / |A ∪ B|` of two sorted, deduplicated sets;
/// 0 when both are empty (two empty documents are not "identical").
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let shared = intersection_size(a, b);
    ratio(shared, a.len() + b.len() - shared)
}

/// `shared / union` as the f64 the ground truth uses, 0 for an empty union.
pub fn ratio(shared: usize, union: usize) -> f64 {
    if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    }
}

/// A verified pair of documents (indices as given to [`verify_exact`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VerifiedPair {
    pub a: u32,
    pub b: u32,
    pub shared: usize,
    pub similarity: f64,
}

/// What [`verify_exact`] found: the pairs at or above the threshold (sorted by
/// `(a, b)`) and the documents whose sets could not be loaded (their pairs are
/// dropped).
pub struct ExactVerification<E> {
    pub pairs: Vec<VerifiedPair>,
    pub failures: Vec<(u32, E)>,
}

/// Verifies `pairs` (`a < b`) by exact Jaccard similarity ≥ `threshold`.
///
/// `set_bytes(d)` estimates the memory of document `d`'s set (used only to cut
/// blocks); `load(d)` produces its sorted, deduplicated set. Loading runs in
/// parallel; no more than about `memory_budget` bytes of sets are held at once
/// (a single set larger than half the budget is still loaded on its own).
pub fn verify_exact<E, L>(
    pairs: &[(u32, u32)],
    threshold: f64,
    memory_budget: usize,
    set_bytes: impl Fn(u32) -> usize,
    load: L,
) -> ExactVerification<E>
where
    E: Send,
    L: Fn(u32) -> Result<Vec<u64>, E> + Sync,
{
    let mut docs: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    docs.sort_unstable();
    docs.dedup();

    // Cut the documents into blocks that each fit in half the budget.
    let half_budget = (memory_budget / 2).max(1);
    let mut block_of = std::collections::HashMap::with_capacity(docs.len());
    let mut blocks: Vec<Vec<u32>> = vec![Vec::new()];
    let mut used = 0usize;
    for &d in &docs {
        let size = set_bytes(d);
        let current = blocks.last_mut().expect("at least one block");
        if !current.is_empty() && used + size > half_budget {
            blocks.push(Vec::new());
            used = 0;
        }
        used += size;
        blocks.last_mut().expect("at least one block").push(d);
        block_of.insert(d, blocks.len() - 1);
    }

    let mut by_blocks: Vec<(usize, usize, u32, u32)> = pairs
        .iter()
        .map(|&(a, b)| (block_of[&a], block_of[&b], a, b))
        .collect();
    by_blocks.sort_unstable();

    let mut verified = Vec::new();
    let mut failures: Vec<(u32, E)> = Vec::new();
    let mut failed: std::collections::HashSet<u32> = Default::default();
    let load_block = |block: &[u32]| -> Vec<(u32, Result<Vec<u64>, E>)> {
        block.par_iter().map(|&d| (d, load(d))).collect()
    };

    for left_group in by_blocks.chunk_by(|x, y| x.0 == y.0) {
        let left_block = left_group[0].0;
        let mut left = std::collections::HashMap::new();
        for (d, result) in load_block(&blocks[left_block]) {
            match result {
                Ok(set) => {
                    left.insert(d, set);
                }
                Err(e) => {
                    if failed.insert(d) {
                        failures.push((d, e));
                    }
                }
            }
        }
        for group in left_group.chunk_by(|x, y| x.1 == y.1) {
            let right_block = group[0].1;
            let mut right_storage = std::collections::HashMap::new();
            if right_block != left_block {
                for (d, result) in load_block(&blocks[right_block]) {
                    match result {
                        Ok(set) => {
                            right_storage.insert(d, set);
                        }
                        Err(e) => {
                            if failed.insert(d) {
                                failures.push((d, e));
                            }
                        }
                    }
                }
            }
            let right = if right_block == left_block {
                &left
            } else {
                &right_storage
            };
            let found: Vec<VerifiedPair> = group
                .par_iter()
                .filter_map(|&(_, _, a, b)| {
                    let (sa, sb) = (left.get(&a)?, right.get(&b)?);
                    let need = overlap_needed(sa.len(), sb.len(), threshold);
                    let shared = intersection_at_least(sa, sb, need)?;
                    let similarity = ratio(shared, sa.len() + sb.len() - shared);
                    (similarity >= threshold).then_some(VerifiedPair {
                        a,
                        b,
                        shared,
                        similarity,
                    })
                })
                .collect();
            verified.extend(found);
        }
    }
    verified.sort_unstable_by_key(|p| (p.a, p.b));
    failures.sort_unstable_by_key(|f| f.0);
    ExactVerification {
        pairs: verified,
        failures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The textbook merge, as the oracle for the branch-free one.
    fn merge_reference(a: &[u64], b: &[u64]) -> usize {
        let (mut i, mut j, mut shared) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        shared
    }

    fn sorted_set(v: Vec<u64>) -> Vec<u64> {
        let mut v = v;
        v.sort_unstable();
        v.dedup();
        v
    }

    proptest::proptest! {
        #[test]
        fn branch_free_merge_equals_the_textbook_one(
            a in proptest::collection::vec(0u64..3000, 0..1500),
            b in proptest::collection::vec(0u64..3000, 0..1500),
            need in 0usize..1200,
        ) {
            let (a, b) = (sorted_set(a), sorted_set(b));
            let shared = merge_reference(&a, &b);
            proptest::prop_assert_eq!(intersection_size(&a, &b), shared);
            proptest::prop_assert_eq!(
                intersection_at_least(&a, &b, need),
                (shared >= need).then_some(shared)
            );
        }

        #[test]
        fn overlap_needed_never_rejects_a_pair_at_the_threshold(
            la in 1usize..100_000,
            lb in 1usize..100_000,
            t in 0.01f64..=1.0,
        ) {
            // Every overlap whose ratio reaches t is at least overlap_needed.
            let need = overlap_needed(la, lb, t);
            for o in need.saturating_sub(2)..=la.min(lb).min(need + 2) {
                if ratio(o, la + lb - o) >= t {
                    proptest::prop_assert!(o >= need, "o {} need {}", o, need);
                }
            }
        }
    }

    #[test]
    fn far_below_the_bound_the_merge_stops_early() {
        // Disjoint halves: after the first check nothing can reach `need`.
        let a: Vec<u64> = (0..10_000).map(|x| 2 * x).collect();
        let b: Vec<u64> = (0..10_000).map(|x| 2 * x + 1).collect();
        assert_eq!(intersection_at_least(&a, &b, 9_000), None);
        assert_eq!(intersection_at_least(&a, &b, 0), Some(0));
        assert_eq!(intersection_at_least(&a, &a, 10_000), Some(10_000));
    }

    #[test]
    fn jaccard_of_known_sets() {
        assert_eq!(jaccard(&[1, 2, 3, 4], &[3, 4, 5]), 2.0 / 5.0);
        assert_eq!(jaccard(&[1, 2], &[1, 2]), 1.0);
        assert_eq!(jaccard(&[], &[]), 0.0);
        assert_eq!(jaccard(&[1], &[]), 0.0);
    }

    fn corpus() -> Vec<Vec<u64>> {
        vec![
            (0..100).collect(),
            (10..110).collect(),  // J with 0 = 90/110
            (0..100).collect(),   // identical to 0
            (500..600).collect(), // unrelated
        ]
    }

    #[test]
    fn keeps_pairs_at_or_above_threshold() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2)];
        let out = verify_exact(
            &pairs,
            90.0 / 110.0,
            1 << 20,
            |_| 800,
            |d| Ok::<_, ()>(sets[d as usize].clone()),
        );
        let got: Vec<(u32, u32, usize)> = out.pairs.iter().map(|p| (p.a, p.b, p.shared)).collect();
        assert_eq!(got, vec![(0, 1, 90), (0, 2, 100), (1, 2, 90)]);
    }

    #[test]
    fn loads_each_document_once_when_the_budget_allows() {
        let sets = corpus();
        let loads = AtomicUsize::new(0);
        let pairs = [(0, 1), (0, 2), (1, 2), (2, 3)];
        verify_exact(
            &pairs,
            0.5,
            1 << 20,
            |_| 800,
            |d| {
                loads.fetch_add(1, Ordering::Relaxed);
                Ok::<_, ()>(sets[d as usize].clone())
            },
        );
        assert_eq!(loads.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn tiny_budget_gives_the_same_answer() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        let load = |d: u32| Ok::<_, ()>(sets[d as usize].clone());
        let roomy = verify_exact(&pairs, 0.5, 1 << 20, |_| 800, load);
        let tight = verify_exact(&pairs, 0.5, 1000, |_| 800, load);
        assert_eq!(roomy.pairs, tight.pairs);
    }

    #[test]
    fn failed_loads_drop_their_pairs_and_are_reported_once() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (1, 2)];
        let out = verify_exact(
            &pairs,
            0.5,
            1 << 20,
            |_| 800,
            |d| {
                if d == 1 {
                    Err("gone")
                } else {
                    Ok(sets[d as usize].clone())
                }
            },
        );
        assert_eq!(
            out.pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(),
            vec![(0, 2)]
        );
        assert_eq!(out.failures, vec![(1, "gone")]);
    }
}
