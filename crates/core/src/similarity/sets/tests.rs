//! Tests of the sorted-set algebra: every merge kernel against the textbook
//! merge, the early-exit bound, Jaccard and the overlap bound.

use super::*;

/// Every kernel's early-exit answer for `need`, given the true `shared`.
fn every_kernel_agrees(
    a: &[u64],
    b: &[u64],
    need: usize,
    shared: usize,
) -> Result<(), proptest::test_runner::TestCaseError> {
    for kernel in kernels() {
        proptest::prop_assert_eq!(
            intersection_at_least_with(kernel, a, b, need),
            (shared >= need).then_some(shared),
            "{}",
            kernel.name()
        );
    }
    Ok(())
}

/// Every merge kernel this CPU runs (the SIMD ones are tested only where
/// the CPU has them, and the others are named once on stderr; the scalar one
/// everywhere).
fn kernels() -> Vec<MergeKernel> {
    static KERNELS: OnceLock<Vec<MergeKernel>> = OnceLock::new();
    KERNELS
        .get_or_init(|| {
            let mut kernels = Vec::new();
            simd::for_each_supported::<MergeKernel>(|k| kernels.push(k));
            kernels
        })
        .clone()
}

/// Sets of every length 0..=40 (across the SIMD block sizes 4 and 8 and
/// their multiples) in shapes that exercise the block advance: heavy
/// overlap at every offset, disjoint ranges either side, fine and coarse
/// interleaving, pseudo-random subsets, and the same near `u64::MAX`
/// (values the kernels compare as signed lanes). `need` runs around the
/// answer, where an early exit would show.
#[test]
fn every_kernel_equals_the_textbook_merge_on_small_sets() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let kernels = kernels();
    let mut checked = 0usize;
    for la in 0..=40u64 {
        for lb in 0..=40u64 {
            let mask = random();
            let shapes: Vec<(Vec<u64>, Vec<u64>)> = vec![
                // Overlapping ranges at several offsets, from identical
                // to just touching.
                ((0..la).collect(), (0..lb).collect()),
                ((0..la).collect(), (la / 2..la / 2 + lb).collect()),
                ((3..3 + la).collect(), (0..lb).collect()),
                ((0..la).collect(), (la.saturating_sub(1)..la + lb).collect()),
                // Disjoint, `b` after `a` and before it.
                ((0..la).collect(), (la..la + lb).collect()),
                ((100..100 + la).collect(), (0..lb).collect()),
                // Interleaved: evens and odds (nothing shared), and
                // multiples of 2 and of 3 (every sixth shared).
                (
                    (0..la).map(|x| 2 * x).collect(),
                    (0..lb).map(|x| 2 * x + 1).collect(),
                ),
                (
                    (0..la).map(|x| 2 * x).collect(),
                    (0..lb).map(|x| 3 * x).collect(),
                ),
                // Pseudo-random subsets of a small universe.
                (
                    (0..64)
                        .filter(|x| mask >> x & 1 == 1)
                        .take(la as usize)
                        .collect(),
                    (0..64)
                        .filter(|x| (mask >> x) & 3 != 0)
                        .take(lb as usize)
                        .collect(),
                ),
            ];
            for (a, b) in shapes {
                let high =
                    |s: &[u64]| -> Vec<u64> { s.iter().map(|&x| u64::MAX - 200 + x).collect() };
                let (ha, hb) = (high(&a), high(&b));
                for (a, b) in [(&a, &b), (&b, &a), (&ha, &hb)] {
                    let shared = merge_reference(a, b);
                    for need in [0, shared.saturating_sub(1), shared, shared + 1, shared + 9] {
                        for &kernel in &kernels {
                            assert_eq!(
                                intersection_at_least_with(kernel, a, b, need),
                                (shared >= need).then_some(shared),
                                "{} a {a:?} b {b:?} need {need}",
                                kernel.name()
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked >= 41 * 41 * 9 * 3 * 5, "{checked}");
}

#[test]
fn best_kernel_is_supported() {
    assert!(MergeKernel::best().supported());
    #[cfg(target_arch = "x86_64")]
    if simd::features().avx512f && simd::features().popcnt {
        assert_eq!(MergeKernel::best(), MergeKernel::Avx512);
    }
}

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
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xB7A1_C4F3),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]

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
        every_kernel_agrees(&a, &b, need, shared)?;
    }

    /// Near-copies, as verification sees them: two samples of one set
    /// of hash-like values, each keeping most of it, and `need` within
    /// a few of the answer (where an early exit would be wrong).
    #[test]
    fn every_kernel_equals_the_textbook_merge_on_near_copies(
        base in proptest::collection::btree_set(proptest::num::u64::ANY, 0..600),
        keep in proptest::collection::vec((0u8..100, 0u8..100), 600),
        keep_percent in 50u8..=100,
        delta in -3isize..=3,
    ) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (&x, &(ka, kb)) in base.iter().zip(&keep) {
            if ka < keep_percent { a.push(x) }
            if kb < keep_percent { b.push(x) }
        }
        let shared = merge_reference(&a, &b);
        let need = shared.saturating_add_signed(delta);
        every_kernel_agrees(&a, &b, need, shared)?;
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
fn the_bound_rejects_disjoint_sets_and_keeps_identical_ones() {
    // Disjoint halves: after the first check nothing can reach `need`, so
    // the merge gives up there (the answer is what this test can see).
    let a: Vec<u64> = (0..10_000).map(|x| 2 * x).collect();
    let b: Vec<u64> = (0..10_000).map(|x| 2 * x + 1).collect();
    for kernel in kernels() {
        let at_least = |a: &[u64], b: &[u64], need| intersection_at_least_with(kernel, a, b, need);
        assert_eq!(at_least(&a, &b, 9_000), None);
        assert_eq!(at_least(&a, &b, 0), Some(0));
        assert_eq!(at_least(&a, &a, 10_000), Some(10_000));
        assert_eq!(at_least(&a, &a, 10_001), None);
    }
}

#[test]
fn jaccard_of_known_sets() {
    assert_eq!(jaccard(&[1, 2, 3, 4], &[3, 4, 5]), 2.0 / 5.0);
    assert_eq!(jaccard(&[1, 2], &[1, 2]), 1.0);
    assert_eq!(jaccard(&[], &[]), 0.0);
    assert_eq!(jaccard(&[1], &[]), 0.0);
}
