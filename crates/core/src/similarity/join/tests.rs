//! Tests of the exact join: the prefix-filter bounds and the join against
//! brute force.

use super::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

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
            let union = (x.len() + y.len()) as u32 - inter;
            let pair = JoinPair {
                a: a as u32,
                b: b as u32,
                intersection: inter,
                union,
            };
            if pair.jaccard() >= t {
                out.push(pair);
            }
        }
    }
    out
}

fn join(sets: &[Vec<u64>], t: f64) -> Vec<JoinPair> {
    all_pairs(sets, t).unwrap().pairs
}

fn set(v: &[u64]) -> Vec<u64> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn finds_the_mmds_example_pair() {
    // Two sets sharing 3 of 5 tokens: Jaccard 3/5 = 0.6.
    let sets = vec![set(&[1, 2, 3, 4]), set(&[2, 3, 4, 5]), set(&[7, 8])];
    let pairs = join(&sets, 0.6);
    assert_eq!(
        pairs,
        vec![JoinPair {
            a: 0,
            b: 1,
            intersection: 3,
            union: 5
        }]
    );
    assert_eq!(pairs[0].jaccard(), 0.6);
    assert!(join(&sets, 0.61).is_empty());
}

#[test]
fn rejects_thresholds_outside_zero_one() {
    let sets = vec![set(&[1])];
    for t in [0.0, -0.1, 1.0000001, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(all_pairs(&sets, t), Err(JoinError::Threshold(_))),
            "t={t}"
        );
    }
    assert!(all_pairs(&sets, 1.0).is_ok());
    assert!(all_pairs(&sets, f64::MIN_POSITIVE).is_ok());
}

#[test]
fn empty_sets_never_pair_even_with_each_other() {
    let sets = vec![vec![], vec![], set(&[1]), vec![], set(&[1])];
    assert_eq!(
        join(&sets, 1.0),
        vec![JoinPair {
            a: 2,
            b: 4,
            intersection: 1,
            union: 1
        }]
    );
    assert_eq!(join(&sets, 1e-9), join(&sets, 1.0));
    assert!(join(&Vec::<Vec<u64>>::new(), 0.5).is_empty());
}

#[test]
fn threshold_one_finds_exactly_the_identical_sets() {
    let sets = vec![
        set(&[1, 2, 3]),
        set(&[1, 2]),
        set(&[1, 2, 3]),
        set(&[1, 2]),
        set(&[1, 2, 3, 4]),
        set(&[1, 2, 3]),
    ];
    let got: Vec<(u32, u32)> = join(&sets, 1.0).iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(got, vec![(0, 2), (0, 5), (1, 3), (2, 5)]);
    assert_eq!(join(&sets, 1.0), brute_force(&sets, 1.0));
}

#[test]
fn tiny_threshold_pairs_every_sets_sharing_one_token() {
    // Big sets sharing a single token: Jaccard 1/199.
    let a: Vec<u64> = (0..100).collect();
    let b: Vec<u64> = (99..199).collect();
    let c: Vec<u64> = (1000..1100).collect();
    let sets = vec![a, b, c];
    assert_eq!(
        join(&sets, 1e-6),
        vec![JoinPair {
            a: 0,
            b: 1,
            intersection: 1,
            union: 199
        }]
    );
    assert_eq!(join(&sets, 1.0 / 199.0).len(), 1);
    assert!(join(&sets, 1.0 / 198.0).is_empty());
}

#[test]
fn singleton_sets() {
    let sets = vec![set(&[5]), set(&[6]), set(&[5]), set(&[5, 6])];
    // {5},{5} = 1; {5},{5,6} = 0.5; {6},{5,6} = 0.5.
    assert_eq!(join(&sets, 0.5), brute_force(&sets, 0.5));
    assert_eq!(join(&sets, 0.5).len(), 4);
    assert_eq!(join(&sets, 0.51).len(), 1);
}

#[test]
fn filter_lengths_at_the_boundaries() {
    // T = 1: a partner must be the same size; one token of prefix suffices.
    assert_eq!(min_partner_size(7, 1.0), 7);
    assert_eq!(probe_prefix_len(7, 1.0), 1);
    assert_eq!(index_prefix_len(7, 1.0), 1);
    assert_eq!(required_overlap(7, 7, 1.0), 7);
    // Tiny T: any partner of size ≥ 1, whole set is prefix.
    assert_eq!(min_partner_size(7, 1e-9), 1);
    assert_eq!(probe_prefix_len(7, 1e-9), 7);
    assert_eq!(index_prefix_len(7, 1e-9), 7);
    assert_eq!(required_overlap(7, 3, 1e-9), 1);
    // Size 1.
    for t in [1e-9, 0.5, 1.0] {
        assert_eq!(probe_prefix_len(1, t), 1);
        assert_eq!(index_prefix_len(1, t), 1);
        assert_eq!(required_overlap(1, 1, t), 1);
    }
    // T = 0.8, |x| = 10: |y| ≥ 8, probe 10 − 8 + 1 = 3 tokens; an
    // equal-sized partner needs overlap ⌈1.6/1.8·10⌉ = 9, so index 2.
    assert_eq!(min_partner_size(10, 0.8), 8);
    assert_eq!(probe_prefix_len(10, 0.8), 3);
    assert_eq!(index_prefix_len(10, 0.8), 2);
    assert_eq!(required_overlap(10, 8, 0.8), 8);
    assert_eq!(required_overlap(10, 10, 0.8), 9);
    // Impossible pair: overlap beyond the smaller set.
    assert_eq!(required_overlap(10, 7, 0.8), 8);
}

/// Each filter bound must equal the least integer at which the exact
/// predicate holds — checked exhaustively against a linear scan, over
/// thresholds whose products with sizes round awkwardly in f64.
#[test]
fn filter_bounds_are_exact_despite_float_rounding() {
    let thresholds = [
        0.1,
        0.3,
        1.0 / 3.0,
        0.5,
        0.55,
        0.6,
        2.0 / 3.0,
        0.7,
        0.8,
        0.85,
        0.9,
        0.95,
        0.99,
        1.0,
    ];
    for &t in &thresholds {
        for sx in 1..200u32 {
            let linear = (1..=sx).find(|&s| s as f64 / sx as f64 >= t).unwrap();
            assert_eq!(min_partner_size(sx, t), linear, "t={t} sx={sx}");
            let linear = (1..=sx).find(|&o| jaccard_reaches(o, sx, sx, t)).unwrap();
            assert_eq!(index_prefix_len(sx, t), sx - linear + 1, "t={t} sx={sx}");
            for sy in (1..=sx).step_by(7) {
                let linear = (0..=sy)
                    .find(|&o| jaccard_reaches(o, sx, sy, t))
                    .unwrap_or(sy + 1);
                assert_eq!(required_overlap(sx, sy, t), linear, "t={t} sx={sx} sy={sy}");
            }
        }
    }
}

#[test]
fn float_guess_that_overshoots_is_corrected() {
    // 0.07 · 100 = 7.000000000000001 in f64, so ⌈T·|x|⌉ computed naively is
    // 8; but 7/100 = 0.07 exactly, so a partner of size 7 does qualify.
    assert!(std::hint::black_box(0.07) * 100.0 > 7.0);
    assert_eq!(min_partner_size(100, 0.07), 7);
    let x: Vec<u64> = (0..100).collect();
    let y: Vec<u64> = (0..7).collect();
    assert_eq!(
        join(&[x, y], 0.07),
        vec![JoinPair {
            a: 0,
            b: 1,
            intersection: 7,
            union: 100
        }]
    );
}

#[test]
fn position_filter_prunes_but_never_loses_pairs() {
    // Sets sharing only their rarest tokens: the prefix matches, the
    // rest cannot reach T.
    let mut sets = Vec::new();
    for k in 0..20u64 {
        let mut s: Vec<u64> = (0..10).map(|i| 1000 * k + i).collect();
        s.push(5_000_000); // shared by all: the most frequent token
        sets.push(set(&s));
    }
    sets.push(set(&[1000, 1001, 1002, 5_000_000]));
    let got = all_pairs(&sets, 0.3).unwrap();
    assert_eq!(got.pairs, brute_force(&sets, 0.3));
    assert_eq!(got.pairs.len(), 1);
}

#[test]
fn token_table_counts_any_values() {
    let values: Vec<u64> = [0, 1, u64::MAX, u64::MAX - 1, 1 << 63]
        .into_iter()
        .chain((0..5000).map(|i| i * i * 7))
        .chain((0..3000).map(|i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .collect();
    for shard_bits in [0, 3] {
        let mut tables: Vec<TokenTable> = (0..1 << shard_bits)
            .map(|_| TokenTable::new(shard_bits))
            .collect();
        let mut expected = std::collections::HashMap::new();
        for (n, &v) in values.iter().enumerate() {
            for _ in 0..=(n % 3) {
                tables[TokenTable::shard_of(v, shard_bits) as usize].increment(v);
                *expected.entry(v).or_insert(0u32) += 1;
            }
        }
        let got: std::collections::HashMap<u64, u32> = tables
            .iter()
            .flat_map(|t| t.entries())
            .map(|(c, v)| (v, c))
            .collect();
        assert_eq!(got, expected);
        for &v in &values {
            let table = &mut tables[TokenTable::shard_of(v, shard_bits) as usize];
            table.set(v, (v % 1000) as u32);
            assert_eq!(table.get(v), (v % 1000) as u32);
        }
    }
}

#[test]
fn output_is_the_same_for_any_thread_count() {
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let sets: Vec<Vec<u64>> = (0..300)
        .map(|_| {
            let len = rng.random_range(0..40);
            set(&(0..len)
                .map(|_| rng.random_range(0..60u64))
                .collect::<Vec<_>>())
        })
        .collect();
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| all_pairs(&sets, 0.4).unwrap())
    };
    let one = run(1);
    assert!(!one.pairs.is_empty());
    assert_eq!(one, run(3));
    assert_eq!(one.pairs, brute_force(&sets, 0.4));
}

/// Random small corpora over a small alphabet (so sets overlap a lot),
/// including near-copies, compared with the brute-force oracle.
#[test]
fn matches_brute_force_on_random_corpora() {
    let threshold = prop_oneof![
        Just(1.0),
        Just(0.5),
        Just(2.0 / 3.0),
        Just(0.8),
        Just(0.9),
        Just(1e-9),
        (1u32..=20).prop_map(|k| k as f64 / 20.0),
        (1e-3f64..=1.0),
    ];
    let corpus = near_copy_corpus();
    let config = Config {
        cases: 2000,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[42; 32]));
    runner
        .run(&(corpus, threshold), |(sets, t)| {
            let expected = brute_force(&sets, t);
            prop_assert_eq!(join(&sets, t), expected.clone());
            // The owned variant re-codes in place and frees as it goes:
            // same pairs, same stats.
            let borrowed = all_pairs(&sets, t).unwrap();
            let owned = all_pairs_owned(sets, t).unwrap();
            prop_assert_eq!(&owned.pairs, &expected);
            prop_assert_eq!(owned.stats, borrowed.stats);
            Ok(())
        })
        .unwrap();
}

/// The progress of the join: batches that add up to the non-empty sets,
/// against the same total every time (the progress bar's sets done / total).
#[test]
fn progress_counts_every_nonempty_set_once() {
    for n in [0usize, 1, 255, 256, 257, 1000] {
        let sets: Vec<Vec<u64>> = (0..n)
            .map(|i| {
                if i % 7 == 3 {
                    Vec::new()
                } else {
                    (i as u64..i as u64 + 5).collect()
                }
            })
            .collect();
        let nonempty = sets.iter().filter(|s| !s.is_empty()).count() as u64;
        let done = std::sync::atomic::AtomicU64::new(0);
        let totals = std::sync::Mutex::new(std::collections::BTreeSet::new());
        let join = all_pairs_owned_with_progress(sets.clone(), 0.5, &|d, total| {
            done.fetch_add(d, std::sync::atomic::Ordering::Relaxed);
            totals.lock().unwrap().insert(total);
        })
        .unwrap();
        assert_eq!(done.into_inner(), nonempty, "n = {n}");
        let totals = totals.into_inner().unwrap();
        assert!(totals.len() <= 1 && totals.iter().all(|&t| t == nonempty));
        assert_eq!(join.pairs, all_pairs(&sets, 0.5).unwrap().pairs);
    }
}

/// Up to 14 random sets of tokens below 40, then up to 10 near-copies (a
/// set copied with one token added or removed), so that thresholds near 1
/// have pairs to find.
pub(super) fn near_copy_corpus() -> impl Strategy<Value = Vec<Vec<u64>>> {
    let base = prop::collection::vec(prop::collection::btree_set(0u64..40, 0..25), 0..14);
    (
        base,
        prop::collection::vec(
            (any::<prop::sample::Index>(), 0u64..40, any::<bool>()),
            0..10,
        ),
    )
        .prop_map(|(sets, edits)| {
            let mut sets: Vec<Vec<u64>> =
                sets.into_iter().map(|s| s.into_iter().collect()).collect();
            // Near-copies: copy a set and add or remove one token.
            for (which, token, add) in edits {
                if sets.is_empty() {
                    break;
                }
                let mut copy = sets[which.index(sets.len())].clone();
                if add {
                    copy.push(token);
                } else {
                    copy.retain(|&v| v != token);
                }
                sets.push(set(&copy));
            }
            sets
        })
}
