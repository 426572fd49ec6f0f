use super::*;

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

#[test]
fn equals_sort_dedup_including_zero_and_growth() {
    let mut input: Vec<u64> = (0..5000u64)
        .map(|i| (i % 1700).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    input.push(0);
    input.push(0);
    let mut set = DistinctSet::default();
    set.reset(10); // far too small: must grow several times
    input.iter().for_each(|&h| set.insert(h));
    let mut got = Vec::new();
    set.drain_into(&mut got);
    let mut expected = input.clone();
    expected.sort_unstable();
    expected.dedup();
    assert_eq!(set.len(), expected.len());
    assert_eq!(sorted(got), expected);
}

#[test]
fn reset_forgets_previous_document() {
    let mut set = DistinctSet::default();
    set.reset(4);
    [1, 2, 3].iter().for_each(|&h| set.insert(h));
    set.reset(4);
    set.insert(2);
    let mut got = Vec::new();
    set.drain_into(&mut got);
    assert_eq!(got, vec![2]);
    set.reset(0);
    assert!(set.is_empty());
}

#[test]
fn reused_table_gives_the_same_sets_as_a_fresh_one() {
    // Large, small, large again, and a document that outgrows its hint
    // inside the kept table: each must equal a fresh set's answer, and
    // the slots beyond the table in use must stay zero.
    let doc = |n: u64, salt: u64| -> Vec<u64> {
        (0..n)
            .map(|i| (i % (n / 2 + 1) + salt).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect()
    };
    let docs = [
        doc(20_000, 1),
        doc(30, 2),
        doc(9_000, 3),
        doc(0, 4),
        doc(5, 5),
    ];
    let mut reused = DistinctSet::default();
    for (d, hint) in docs.iter().zip([20_000, 30, 10, 0, 5]) {
        reused.reset(hint);
        d.iter().for_each(|&h| reused.insert(h));
        let mut fresh = DistinctSet::default();
        fresh.reset(hint);
        d.iter().for_each(|&h| fresh.insert(h));
        let (mut got, mut want) = (Vec::new(), Vec::new());
        reused.drain_into(&mut got);
        fresh.drain_into(&mut want);
        assert_eq!(got, want);
        assert!(reused.slots[reused.active..].iter().all(|&s| s == 0));
    }
    assert!(reused.slots.len() >= 32_768, "the largest table is kept");
}

#[test]
fn colliding_low_bits_are_kept_apart() {
    // Same low 20 bits: every insert probes the same home slot.
    let values: Vec<u64> = (1..200u64).map(|i| i << 40 | 0xABCDE).collect();
    let mut set = DistinctSet::default();
    set.reset(values.len());
    values.iter().chain(&values).for_each(|&h| set.insert(h));
    let mut got = Vec::new();
    set.drain_into(&mut got);
    assert_eq!(sorted(got), values);
}

fn filtered(expected: usize, input: &[u64], filter: &mut RepeatFilter) -> Vec<u64> {
    let mut out = vec![7; 3]; // stale content must not survive
    filter.filter_into(expected, &mut out, |passing| {
        input.iter().for_each(|&h| passing.offer(h))
    });
    out
}

#[test]
fn repeat_filter_keeps_every_value_and_drops_repeats_that_stay_in_their_slot() {
    let distinct: Vec<u64> = (0..3000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5EED)
        .chain([0])
        .collect();
    // Each value three times, the repeats right after the first: nothing
    // can evict a value from its slot in between, so exactly the set
    // passes, 0 (whose slot starts out holding 1) once; the edge case
    // below has 1 too (its slot starts out holding 0).
    let input: Vec<u64> = distinct.iter().flat_map(|&h| [h, h, h]).collect();
    let mut filter = RepeatFilter::default();
    let got = filtered(distinct.len(), &input, &mut filter);
    assert_eq!(got, distinct);
    let edge = [0, 0, 1, 1, 0, 1024, 1024, 0, 1, 2048];
    assert_eq!(filtered(0, &edge, &mut filter), [0, 1, 1024, 0, 2048]);
}

#[test]
fn repeat_filter_output_has_the_input_set_whatever_the_table_size() {
    // Far more distinct values than the smallest table: repeats may pass,
    // first occurrences never drop, and nothing else appears.
    let input: Vec<u64> = (0..200_000u64)
        .map(|i| (i * 7919 % 40_000).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let mut filter = RepeatFilter::default();
    for expected in [0, 10, 40_000, usize::MAX] {
        let got = filtered(expected, &input, &mut filter);
        assert!(got.len() <= input.len());
        let mut want = input.clone();
        want.sort_unstable();
        want.dedup();
        let mut set = got.clone();
        set.sort_unstable();
        set.dedup();
        assert_eq!(set, want, "expected {expected}");
        if expected == 40_000 {
            // 64 Ki slots for 40,000 values: most repeats are caught.
            assert!(got.len() < 2 * want.len(), "{} passed", got.len());
        }
    }
    assert!(filtered(0, &[], &mut filter).is_empty());
}

/// Draining mid-stream hands out, in pieces, exactly what one filtering
/// of the whole stream passes (the large-file path relies on it).
#[test]
fn draining_passes_what_one_filtering_passes() {
    let input: Vec<u64> = (0..50_000u64)
        .map(|i| (i * 7919 % 9_000).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let mut filter = RepeatFilter::default();
    let whole = filtered(9_000, &input, &mut filter);
    for every in [1, 7, 1000, 100_000] {
        let mut pieces = Vec::new();
        let mut out = Vec::new();
        filter.filter_into(9_000, &mut out, |passing| {
            for (i, &h) in input.iter().enumerate() {
                passing.offer(h);
                if i % every == 0 {
                    let before = passing.passed();
                    passing.drain(|v| {
                        assert_eq!(v.len(), before);
                        pieces.extend_from_slice(v);
                    });
                    assert_eq!(passing.passed(), 0);
                }
            }
            passing.drain(|v| pieces.extend_from_slice(v));
        });
        assert!(out.is_empty(), "drained: nothing left behind");
        assert_eq!(pieces, whole, "drained every {every}");
    }
    assert_eq!(RepeatFilter::slots_for(9_000), 32_768);
    assert_eq!(RepeatFilter::slots_for(0), MIN_SLOTS);
    assert_eq!(RepeatFilter::slots_for(1 << 40), RepeatFilter::MAX_SLOTS);
}

/// Offering in blocks of any size, mixed with single offers and drains,
/// passes exactly what offering one value at a time passes.
#[test]
fn block_offers_pass_what_single_offers_pass() {
    let input: Vec<u64> = (0..30_000u64)
        .map(|i| (i * 7919 % 5_000).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .chain([0, 0, 5, 0])
        .collect();
    let mut filter = RepeatFilter::default();
    for expected in [0, 5_000, usize::MAX] {
        let whole = filtered(expected, &input, &mut filter);
        for size in [1, 3, 64, 1000, 40_000] {
            let mut out = vec![9; 5];
            let mut drained = Vec::new();
            filter.filter_into(expected, &mut out, |passing| {
                for (i, block) in input.chunks(size).enumerate() {
                    match i % 3 {
                        0 => passing.offer_block(block),
                        1 => block.iter().for_each(|&h| passing.offer(h)),
                        _ => {
                            passing.offer_block(block);
                            passing.drain(|v| drained.extend_from_slice(v));
                        }
                    }
                }
            });
            drained.extend_from_slice(&out);
            assert_eq!(drained, whole, "expected {expected}, blocks of {size}");
        }
    }
}

fn sorted_by(sorter: &mut HashSorter, values: &[u64]) -> Vec<u64> {
    let mut v = values.to_vec();
    sorter.sort(&mut v);
    v
}

/// Uniform pseudo-random hashes, as XXH3 gives (SplitMix64's finaliser).
fn uniform(n: usize, seed: u64) -> Vec<u64> {
    (0..n as u64)
        .map(|i| {
            let mut z = (i + seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

#[test]
fn hash_sorter_sorts_large_uniform_vectors_and_reuses_its_memory() {
    let mut sorter = HashSorter::default();
    // Each input repeats a fifth of its values, as the repeat filter lets
    // some through.
    for (n, seed) in [(1_000_000, 1), (300, 2), (70_000, 3), (1_000_000, 4)] {
        let mut input = uniform(n, seed);
        input.extend_from_within(..n / 5);
        assert_eq!(sorted_by(&mut sorter, &input), sorted(input));
    }
    // Once warm, sorting a vector no larger than before allocates
    // nothing: the two buffers only trade places (an odd number of
    // passes leaves them swapped). 500,000 values take three passes,
    // 2,000 two.
    for n in [500_000, 2_000] {
        let mut v = uniform(n, 5);
        let ptrs = |v: &Vec<u64>, s: &HashSorter| {
            let mut p = [v.as_ptr(), s.scratch.as_ptr()];
            p.sort();
            (p, s.counts.as_ptr())
        };
        let before = ptrs(&v, &sorter);
        sorter.sort(&mut v);
        assert_eq!(ptrs(&v, &sorter), before);
        assert!(v.is_sorted());
    }
}

#[test]
fn hash_sorter_clustered_input_falls_back_and_stays_exact() {
    // Half the values in one narrow cluster, half spread over all of u64:
    // the cluster shares one radix key, so its values stay in random
    // order and the insertion sort would need ~n²/4 moves.
    let mut input = uniform(2000, 6);
    input.extend(uniform(2000, 7).iter().map(|v| 1 << 40 | v >> 50));
    input.extend([0, u64::MAX, 0, u64::MAX]);
    let mut sorter = HashSorter::default();
    assert_eq!(sorted_by(&mut sorter, &input), sorted(input));
}

#[test]
fn finishing_falls_back_only_past_n_moves() {
    // One value n - 1 places out: exactly n - 1 moves, no fallback.
    let mut v: Vec<u64> = (1..1000).chain([0]).collect();
    assert!(!finish_nearly_sorted(&mut v));
    assert!(v.is_sorted());
    // Reversed: n² / 2 inversions, the budget runs out.
    let mut v: Vec<u64> = (0..1000).rev().collect();
    assert!(finish_nearly_sorted(&mut v));
    assert_eq!(v, (0..1000).collect::<Vec<_>>());
}

#[test]
fn hash_sorter_all_equal_and_tiny_inputs() {
    let mut sorter = HashSorter::default();
    for v in [vec![], vec![7], vec![u64::MAX; 5000], vec![0; 300]] {
        assert_eq!(sorted_by(&mut sorter, &v), v);
    }
}

fn sorted_distinct(values: &[u64]) -> Vec<u64> {
    let mut v = sorted(values.to_vec());
    v.dedup();
    v
}

#[test]
fn sorted_distinct_of_large_inputs_with_repeats_equals_sort_and_dedup() {
    let mut sorter = HashSorter::default();
    // A fifth of the values repeated, as the repeat filter lets some through;
    // one input repeats every value, one has a repeat far out of place.
    for (n, seed) in [(1_000_000, 1), (300, 2), (70_000, 3), (100, 4)] {
        let mut input = uniform(n, seed);
        input.extend_from_within(..n / 5);
        if seed == 3 {
            input.extend_from_within(..);
            input.push(input[17]);
        }
        let mut values = input.clone();
        let got = sorter.sorted_distinct(&mut values);
        assert_eq!(got, sorted_distinct(&input), "n = {n}");
    }
}

#[test]
fn finishing_with_dedup_falls_back_past_n_moves_and_stays_exact() {
    // A value n - 1 places out, then a repeat of it out of place too.
    let mut v: Vec<u64> = (1..1000).chain([0, 500, 0, 999]).collect();
    finish_distinct(&mut v);
    assert_eq!(v, (0..1000).collect::<Vec<_>>());
    // Reversed, with every value twice: the budget runs out.
    let mut v: Vec<u64> = (0..1000).rev().flat_map(|x| [x, x]).collect();
    finish_distinct(&mut v);
    assert_eq!(v, (0..1000).collect::<Vec<_>>());
}

#[test]
fn the_repeat_filter_overwrites_what_its_output_held_before() {
    // The output vector is reused without being cleared: a longer old
    // content must not leak into a shorter new one.
    let mut filter = RepeatFilter::default();
    let mut out: Vec<u64> = (100..5000).collect();
    filter.filter_into(16, &mut out, |p| {
        p.offer_block(&[7, 8, 7, 9]);
    });
    assert_eq!(out, [7, 8, 9]);
}

use proptest::prelude::*;

/// Vectors of every shape: `bits` random low bits above a `base` (0 bits:
/// all equal; 64: uniform; in between: small ranges, many duplicates,
/// possibly wrapping around `u64::MAX`).
fn shaped() -> impl Strategy<Value = Vec<u64>> {
    (
        prop::collection::vec(any::<u64>(), 0..=2000),
        0u32..=64,
        any::<u64>(),
    )
        .prop_map(|(raw, bits, base)| {
            raw.into_iter()
                .map(|x| base.wrapping_add(x.checked_shr(64 - bits).unwrap_or(0)))
                .collect()
        })
}

proptest! {
    // A fixed seed and no regression file: a failure reproduces on any clone.
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xD157_5EED),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]
    #[test]
    fn hash_sorter_equals_sort_unstable(values in prop::collection::vec(any::<u64>(), 0..=2000)) {
        let mut sorter = HashSorter::default();
        prop_assert_eq!(sorted_by(&mut sorter, &values), sorted(values));
    }

    #[test]
    fn hash_sorter_equals_sort_unstable_on_any_shape(
        a in shaped(),
        b in shaped(),
    ) {
        // One sorter for both: the second sort starts from the first's
        // scratch and counters.
        let mut sorter = HashSorter::default();
        prop_assert_eq!(sorted_by(&mut sorter, &a), sorted(a));
        prop_assert_eq!(sorted_by(&mut sorter, &b), sorted(b));
    }

    #[test]
    fn sorted_distinct_equals_sort_and_dedup_on_any_shape(
        a in shaped(),
        b in shaped(),
    ) {
        let mut sorter = HashSorter::default();
        for input in [a, b] {
            let mut values = input.clone();
            prop_assert_eq!(sorter.sorted_distinct(&mut values), sorted_distinct(&input));
        }
    }
}
