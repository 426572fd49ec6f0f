//! The textbook's indexes: the chapter's worked numbers (MMDS 3.9.3–3.9.6),
//! and every variant against brute force and against PPJoin.

use super::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Letters as tokens, so the chapter's strings can be written as it does.
fn letters(s: &str) -> Vec<u64> {
    let mut v: Vec<u64> = s.bytes().map(u64::from).collect();
    v.sort_unstable();
    v
}

/// The oracle: every pair, intersected by merging.
fn brute_force(sets: &[Vec<u64>], t: f64) -> Vec<JoinPair> {
    let mut out = Vec::new();
    for a in 0..sets.len() {
        for b in a + 1..sets.len() {
            let (x, y) = (&sets[a], &sets[b]);
            if x.is_empty() || y.is_empty() {
                continue;
            }
            let inter = x.iter().filter(|v| y.binary_search(v).is_ok()).count() as u32;
            let pair = JoinPair {
                a: a as u32,
                b: b as u32,
                intersection: inter,
                union: (x.len() + y.len()) as u32 - inter,
            };
            if pair.jaccard() >= t {
                out.push(pair);
            }
        }
    }
    out
}

#[test]
fn names_round_trip() {
    for v in ExactIndex::ALL {
        assert_eq!(v.name().parse::<ExactIndex>(), Ok(v));
    }
    assert!("pyramid".parse::<ExactIndex>().is_err());
}

/// Example 3.25: at J = 0.9 a string of length 9 is compared with lengths up
/// to 10, one of length 8 only with length 8.
#[test]
fn length_filter_of_example_3_25() {
    assert_eq!(length_bounds(9, 0.9).1, 10);
    assert_eq!(length_bounds(8, 0.9).1, 8);
    // And from below: 9 reaches 0.9 with 10 (9/10), 8 does not with 9.
    assert_eq!(length_bounds(10, 0.9).0, 9);
    assert_eq!(length_bounds(9, 0.9).0, 9);
}

/// Example 3.26: at J = 0.9, lengths up to 9 are indexed under one symbol,
/// 10–19 under two, 20–29 under three — where `(1 − 0.9)·10` in `f64` is
/// 0.9999…, so a float floor would say one.
#[test]
fn prefix_lengths_of_example_3_26() {
    for len in 1..=59u32 {
        assert_eq!(prefix_length(len, 0.9), len / 10 + 1, "length {len}");
    }
    assert_eq!(prefix_length(0, 0.9), 0);
    // Example 3.29: at J = 0.8 a string of length 10 has 3 prefix positions.
    assert_eq!(prefix_length(10, 0.8), 3);
}

/// Example 3.27: s = acdefghijk at J = 0.9 looks in (a, 1), (a, 2) and
/// (c, 1) only: j ≤ 2.11 from i = 1, j ≤ 1 from i = 2.
#[test]
fn position_bounds_of_example_3_27() {
    assert_eq!(position_limit(10, 1, 0.9), 2);
    assert_eq!(position_limit(10, 2, 0.9), 1);
}

/// Example 3.29 and Fig. 3.15: the buckets (i, j, q) of s = acdefghijk at
/// J = 0.8, the pyramid as the figure draws it (the text's case p < q for
/// i = 2 says no solutions, but (c, 1, 9) is one: 9/11 ≥ 0.8).
#[test]
fn suffix_pyramid_of_fig_3_15() {
    let figure: &[(u32, u32, u32, u32)] = &[
        // (i, j, lowest q, highest q)
        (1, 1, 7, 11),
        (1, 2, 8, 10),
        (1, 3, 9, 9),
        (2, 1, 7, 9),
        (2, 2, 8, 8),
        (3, 1, 7, 7),
    ];
    let mut got = Vec::new();
    for i in 1..=prefix_length(10, 0.8) {
        for j in 1..=position_limit(10, i, 0.8) {
            let (lo, hi) = suffix_range(10, i, j, 0.8).expect("a bucket in reach");
            got.push((i, j, lo, hi));
        }
        assert_eq!(
            suffix_range(10, i, position_limit(10, i, 0.8) + 1, 0.8),
            None
        );
    }
    assert_eq!(got, figure);
    let buckets: u32 = got.iter().map(|&(_, _, lo, hi)| hi - lo + 1).sum();
    assert_eq!(buckets, 14);
    // Example 3.28: at J = 0.9 the string is indexed under (a, 1, 9) and
    // (c, 2, 8): two prefix positions, suffix lengths 10 − i.
    assert_eq!(prefix_length(10, 0.9), 2);
}

/// Section 3.9.5's opening pair: s = acdefghijk and t = bcdefghijk share c
/// in both prefixes, so the symbol index compares them; the position index
/// does not (c is second in both: 9/11 < 0.9). At 0.8 all find the pair.
#[test]
fn position_index_skips_the_pair_of_3_9_5() {
    let sets = vec![letters("acdefghijk"), letters("bcdefghijk")];
    let verified = |index, t| all_pairs_by(&sets, t, index).unwrap().stats.verified;
    assert_eq!(verified(ExactIndex::Length, 0.9), 1);
    assert_eq!(verified(ExactIndex::Prefix, 0.9), 1);
    assert_eq!(verified(ExactIndex::Position, 0.9), 0);
    assert_eq!(verified(ExactIndex::Suffix, 0.9), 0);
    for index in ExactIndex::ALL {
        assert!(all_pairs_by(&sets, 0.9, index).unwrap().pairs.is_empty());
        let pairs = all_pairs_by(&sets, 0.8, index).unwrap().pairs;
        assert_eq!(
            (pairs.len(), pairs[0].intersection, pairs[0].union),
            (1, 9, 11)
        );
    }
}

/// Every variant returns the brute-force pairs; the candidates compared
/// shrink with each refinement (length ⊇ prefix ⊇ position ⊇ suffix, since
/// each looks into a subset of the previous one's buckets); the owned form
/// gives the same result.
#[test]
fn every_index_matches_brute_force() {
    let threshold = prop_oneof![
        Just(1.0),
        Just(0.5),
        Just(0.8),
        Just(0.9),
        Just(1e-9),
        (1u32..=20).prop_map(|k| k as f64 / 20.0),
        (1e-3f64..=1.0),
    ];
    let corpus = super::super::tests::near_copy_corpus();
    let config = Config {
        cases: 1000,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[20; 32]));
    runner
        .run(&(corpus, threshold), |(sets, t)| {
            let expected = brute_force(&sets, t);
            let mut verified = Vec::new();
            for index in ExactIndex::ALL {
                let join = all_pairs_by(&sets, t, index).unwrap();
                prop_assert_eq!(&join.pairs, &expected, "{}", index.name());
                let owned = all_pairs_owned_by(sets.clone(), t, index, &|_, _| {}).unwrap();
                prop_assert_eq!(&owned.stats, &join.stats);
                prop_assert_eq!(&owned.pairs, &expected);
                verified.push(join.stats.verified);
            }
            // [ppjoin, length, prefix, position, suffix]
            prop_assert!(verified[1] >= verified[2], "{verified:?}");
            prop_assert!(verified[2] >= verified[3], "{verified:?}");
            prop_assert!(verified[3] >= verified[4], "{verified:?}");
            Ok(())
        })
        .unwrap();
}

/// The join's bucket count per (i, j) is the chapter's q-range, cut to the
/// lengths compared: uncut, Fig. 3.15's 14 buckets; cut to strings no longer
/// than s (the many-many join's earlier strings), the buckets with
/// j + q > 10 go.
#[test]
fn pyramid_counts_match_the_ranges() {
    let count = |longest: u32| -> u64 {
        (1..=3u32)
            .map(|i| {
                let reach = Pyramid::new(10, i, 0.8);
                (1..=position_limit(10, i, 0.8))
                    .map(|j| reach.buckets(j, 0, longest))
                    .sum::<u64>()
            })
            .sum()
    };
    assert_eq!(count(u32::MAX), 14);
    // (q, j) with j + q ≤ 10: i = 1 keeps (7,1) (8,1) (8,2) (9,1); i = 2
    // the same four; i = 3 keeps (7,1).
    assert_eq!(count(10), 9);
    for i in 1..=3u32 {
        let reach = Pyramid::new(10, i, 0.8);
        for j in 1..=position_limit(10, i, 0.8) {
            let (lo, hi) = suffix_range(10, i, j, 0.8).unwrap();
            assert_eq!(reach.buckets(j, 0, u32::MAX), (hi - lo + 1) as u64);
            for q in 0..20 {
                assert_eq!(
                    reach.holds(j, q),
                    (lo..=hi).contains(&q),
                    "i {i} j {j} q {q}"
                );
            }
        }
    }
}

/// The closed form of the pyramid's bucket count equals the enumeration,
/// bucket column by bucket column, over lengths, thresholds (ties such as
/// 8/10 included) and the length cuts of the many-many join.
#[test]
fn pyramid_bucket_sums_equal_the_enumeration() {
    for len in [1u32, 2, 3, 7, 10, 11, 29, 64, 101, 333] {
        for t in [0.05, 0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 0.95, 1.0] {
            let p = prefix_length(len, t);
            let floors = PyramidFloors::new(len, p, t);
            for i in 1..=p {
                let reach = Pyramid::new(len, i, t);
                let jmax = position_limit(len, i, t).min(p);
                for shortest in [0, 1, len / 2, min_partner_size(len, t), len] {
                    for longest in [len, len + 5, u32::MAX / 4] {
                        let expected: u64 = (1..=jmax)
                            .map(|j| reach.buckets(j, shortest, longest))
                            .sum();
                        assert_eq!(
                            floors.buckets(&reach, jmax, shortest, longest),
                            expected,
                            "len {len} t {t} i {i} shortest {shortest} longest {longest}"
                        );
                    }
                }
            }
        }
    }
}
