use super::*;
use crate::similarity::vectors::{cosine, euclidean, hamming_bits};
use crate::sketch::SplitMix64;
use proptest::prelude::*;

/// The oracle: every pair, measured in f64 by the functions LSH verifies by.
fn naive(
    n: usize,
    link: Option<usize>,
    measure: impl Fn(usize, usize) -> Option<f64>,
) -> Vec<(u32, u32, f64)> {
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if link.is_some_and(|s| !(a < s && s <= b)) {
                continue;
            }
            if let Some(v) = measure(a, b) {
                out.push((a as u32, b as u32, v));
            }
        }
    }
    out
}

fn naive_cosine(values: &[f32], dim: usize, t: f64, link: Option<usize>) -> Vec<(u32, u32, f64)> {
    let n = values.len() / dim;
    let row = |i: usize| &values[i * dim..(i + 1) * dim];
    naive(n, link, |a, b| cosine(row(a), row(b)).filter(|&c| c >= t))
}

fn naive_l2(values: &[f32], dim: usize, r: f64, link: Option<usize>) -> Vec<(u32, u32, f64)> {
    let n = values.len() / dim;
    let row = |i: usize| &values[i * dim..(i + 1) * dim];
    naive(n, link, |a, b| {
        Some(euclidean(row(a), row(b))).filter(|&d| d <= r)
    })
}

fn uniform(rng: &mut SplitMix64) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
}

/// Near copies (small noise) of a few random centres, with negative
/// components, zero rows and exact duplicates mixed in: a set with pairs on
/// both sides of any threshold.
fn clustered(seed: u64, n: usize, dim: usize, noise: f32) -> Vec<f32> {
    let mut rng = SplitMix64(seed);
    let centres: Vec<Vec<f32>> = (0..5)
        .map(|_| (0..dim).map(|_| uniform(&mut rng)).collect())
        .collect();
    let mut out = Vec::with_capacity(n * dim);
    for i in 0..n {
        match i % 11 {
            3 => out.extend(std::iter::repeat_n(0.0, dim)),
            7 if i > 0 => {
                let prev = out[(i - 1) * dim..i * dim].to_vec();
                out.extend(prev);
            }
            _ => {
                let c = &centres[rng.next_u64() as usize % centres.len()];
                out.extend(c.iter().map(|&x| x + noise * uniform(&mut rng)));
            }
        }
    }
    out
}

#[test]
fn cosine_equals_the_naive_loop_at_many_thresholds() {
    for (seed, n, dim) in [
        (1, 300, 3),
        (2, 260, 64),
        (3, 140, 300),
        (4, 600, 17),
        (14, 1300, 5),
    ] {
        let values = clustered(seed, n, dim, 0.3);
        for t in [-0.5, 0.0, 0.8, 0.95, 0.99, 1.0] {
            let want = naive_cosine(&values, dim, t, None);
            let got = cosine_pairs(&values, dim, n, t, None);
            assert_eq!(got.pairs, want, "seed {seed} dim {dim} t {t}");
            assert_eq!(got.scored, pair_count(n, None));
        }
        // Across a split only, as --link asks.
        let want = naive_cosine(&values, dim, 0.9, Some(n / 3));
        assert_eq!(cosine_pairs(&values, dim, n, 0.9, Some(n / 3)).pairs, want);
    }
}

/// A threshold equal to some pair's f64 cosine keeps that pair: the screen's
/// margin must cover the f32 rounding of exactly such a pair.
#[test]
fn pairs_exactly_at_the_threshold_are_kept() {
    for (seed, dim) in [(5, 8), (6, 256), (7, 1000)] {
        let n = 200;
        let values = clustered(seed, n, dim, 0.05);
        let row = |i: usize| &values[i * dim..(i + 1) * dim];
        let mut rng = SplitMix64(seed);
        for _ in 0..20 {
            let (a, b) = (rng.next_u64() as usize % n, rng.next_u64() as usize % n);
            let Some(t) = cosine(row(a), row(b)) else {
                continue;
            };
            if a == b {
                continue;
            }
            let got = cosine_pairs(&values, dim, n, t, None);
            let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
            assert!(
                got.pairs.iter().any(|&(x, y, _)| (x, y) == (lo, hi)),
                "pair ({lo}, {hi}) at its own cosine {t}"
            );
            assert_eq!(got.pairs, naive_cosine(&values, dim, t, None));
            let r = euclidean(row(a), row(b));
            let got = euclidean_pairs(&values, dim, n, r, None);
            assert!(got.pairs.iter().any(|&(x, y, _)| (x, y) == (lo, hi)));
            assert_eq!(got.pairs, naive_l2(&values, dim, r, None));
        }
    }
}

#[test]
fn euclidean_equals_the_naive_loop_whatever_the_scale() {
    for (seed, n, dim) in [(8, 300, 3), (9, 250, 64), (10, 150, 300)] {
        let base = clustered(seed, n, dim, 0.3);
        // Tiny, ordinary and huge magnitudes: the power-of-two scaling keeps
        // the f32 products finite and the margin holds at each.
        for scale in [1e-30f32, 1.0, 1e30] {
            let values: Vec<f32> = base.iter().map(|x| x * scale).collect();
            for r in [0.0, 0.1, 0.5, 1.0, 3.0] {
                let r = r * f64::from(scale);
                let want = naive_l2(&values, dim, r, None);
                let got = euclidean_pairs(&values, dim, n, r, None);
                assert_eq!(got.pairs, want, "seed {seed} scale {scale} r {r}");
            }
        }
        let want = naive_l2(&base, dim, 0.8, Some(n / 2));
        assert_eq!(euclidean_pairs(&base, dim, n, 0.8, Some(n / 2)).pairs, want);
    }
}

#[test]
fn zero_vectors_pair_with_nothing_by_cosine_but_by_distance() {
    // Rows [0, 0], [0, 0], [1, −1]: no angle to a zero row, so no cosine pair
    // even at −1; the two zero rows are at distance 0.
    let values = [0.0, 0.0, 0.0, 0.0, 1.0, -1.0];
    let got = cosine_pairs(&values, 2, 3, -1.0, None);
    assert!(got.pairs.is_empty(), "{got:?}");
    let got = euclidean_pairs(&values, 2, 3, 0.0, None);
    assert_eq!(got.pairs, vec![(0, 1, 0.0)]);
}

#[test]
fn hamming_equals_the_naive_loop() {
    let mut rng = SplitMix64(12);
    for per in [1usize, 3] {
        let n = 400;
        let centres: Vec<u64> = (0..8 * per).map(|_| rng.next_u64()).collect();
        let mut words = Vec::with_capacity(n * per);
        for _ in 0..n {
            let c = rng.next_u64() as usize % 8;
            for w in 0..per {
                let mut x = centres[c * per + w];
                for _ in 0..rng.next_u64() % 4 {
                    x ^= 1 << (rng.next_u64() % 64);
                }
                words.push(x);
            }
        }
        let row = |i: usize| &words[i * per..(i + 1) * per];
        for radius in [0, 2, 5, 64] {
            for link in [None, Some(150)] {
                let want = naive(n, link, |a, b| {
                    let h = hamming_bits(row(a), row(b));
                    (h <= radius).then_some(f64::from(h))
                });
                let got = hamming_pairs(&words, per, n, radius, link);
                assert_eq!(got.pairs, want, "per {per} radius {radius} link {link:?}");
                assert_eq!(got.scored, pair_count(n, link));
            }
        }
    }
}

/// The same pairs on one thread as on the default pool (and on two).
#[test]
fn threads_do_not_change_the_pairs() {
    // Three row blocks, several column blocks.
    let (n, dim) = (ROW_BLOCK * 2 + 300, 32);
    let values = clustered(13, n, dim, 0.2);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                (
                    cosine_pairs(&values, dim, n, 0.9, None),
                    euclidean_pairs(&values, dim, n, 1.0, None),
                )
            })
    };
    let one = run(1);
    assert!(!one.0.pairs.is_empty() && !one.1.pairs.is_empty());
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
}

#[test]
fn margins_are_the_derived_bounds() {
    // d·2⁻²⁴ dominates: 256 terms give about 3.1e-5, doubled.
    let m = cosine_margin(256);
    assert!(
        m > 2.0 * 256.0 / 16_777_216.0 && m < 2.0 * 262.0 / 16_777_216.0,
        "{m}"
    );
    assert!(cosine_margin(1000) > cosine_margin(10));
}

mod properties {
    use super::*;

    proptest! {
        // A fixed seed and no regression file: a failure reproduces on any clone.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0xA11_9A125),
            failure_persistence: None,
            cases: 64,
            ..proptest::test_runner::Config::default()
        })]
        /// Random small sets, components from a few values (so that equal
        /// rows, opposite rows and zero rows are common), thresholds anywhere.
        #[test]
        fn exact_equals_naive(
            dim in 1usize..12,
            raw in prop::collection::vec(-3i8..=3, 1..600),
            t in -1.0f64..=1.0,
            r in 0.0f64..6.0,
        ) {
            let n = raw.len() / dim;
            let values: Vec<f32> = raw[..n * dim].iter().map(|&x| f32::from(x) * 0.5).collect();
            prop_assert_eq!(cosine_pairs(&values, dim, n, t, None).pairs, naive_cosine(&values, dim, t, None));
            prop_assert_eq!(euclidean_pairs(&values, dim, n, r, None).pairs, naive_l2(&values, dim, r, None));
        }
    }
}
