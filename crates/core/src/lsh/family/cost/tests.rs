use super::*;
use crate::lsh::family;

/// A sample of pairs all at one distance predicts `pairs · P(candidate)` at
/// that distance.
#[test]
fn candidates_are_the_curve_at_the_sampled_distances() {
    let got = expected_candidates(Metric::Cosine, &[90.0; 10], 1_000_000, 15, 12);
    let p = 1.0 - (1.0 - 0.5f64.powi(12)).powi(15);
    assert!((got - p * 1e6).abs() < 1e-6, "{got}");
    // Half the sample at 0° (always candidates), half at 180° (never).
    let got = expected_candidates(Metric::Cosine, &[0.0, 180.0], 1000, 4, 3);
    assert!((got - 500.0).abs() < 1e-9, "{got}");
}

/// 100,000 points whose random pairs are at 90° (the planted set of
/// bench/families_vs.sh) at cosine 0.97: the S-curve's choice within 200
/// values (15 × 12) makes millions of candidates; the priced choice longer
/// bands, far fewer candidates, a lower predicted total, and still the recall.
#[test]
fn far_pairs_want_longer_bands() {
    let t = 0.97f64.acos().to_degrees();
    let work = Work {
        points: 100_000,
        dim: 64,
        pairs: 100_000 * 99_999 / 2,
    };
    let sample = vec![90.0; 64];
    let old = family::tune(Metric::Cosine, t, 200, 0.999).unwrap();
    let old_candidates =
        expected_candidates(Metric::Cosine, &sample, work.pairs, old.bands, old.rows);
    let old_cost = lsh_cost(Metric::Cosine, work, old.bands, old.rows, old_candidates);
    let new = cheapest(Metric::Cosine, t, &sample, work, 0.999).unwrap();
    assert!(new.recall >= 0.999, "{new:?}");
    assert!(new.rows > old.rows, "{new:?} vs {old:?}");
    assert!(
        new.candidates * 10.0 < old_candidates,
        "{new:?} vs {old_candidates}"
    );
    assert!(new.cost < old_cost);
    // Every other banding that reaches the recall costs at least as much.
    let p = Metric::Cosine.collision_probability(t);
    for rows in 1..40 {
        for bands in 1..400 {
            if bands * rows <= MAX_HASHES && candidate_probability(p, bands, rows) >= 0.999 {
                let c = expected_candidates(Metric::Cosine, &sample, work.pairs, bands, rows);
                assert!(lsh_cost(Metric::Cosine, work, bands, rows, c) >= new.cost);
            }
        }
    }
    // Measuring every pair costs far more at this size.
    assert!(exact_cost(Metric::Cosine, work) > 10.0 * new.cost);
}

/// Pairs crowding near the threshold make candidates whatever the bands: the
/// priced choice then signs less than one for far pairs.
#[test]
fn near_pairs_want_fewer_values() {
    let t = 0.95f64.acos().to_degrees();
    let work = Work {
        points: 5000,
        dim: 256,
        pairs: 5000 * 4999 / 2,
    };
    let near = cheapest(Metric::Cosine, t, &[t * 1.2; 64], work, 0.999).unwrap();
    let far = cheapest(Metric::Cosine, t, &[90.0; 64], work, 0.999).unwrap();
    assert!(
        near.bands * near.rows < far.bands * far.rows,
        "{near:?} {far:?}"
    );
}

#[test]
fn euclidean_width_is_chosen_among_the_multiples() {
    let work = Work {
        points: 100_000,
        dim: 64,
        pairs: 100_000 * 99_999 / 2,
    };
    // Random pairs of 64-dimensional standard normals are about √128 ≈ 11.3 apart.
    let sample = vec![11.3; 64];
    let best = cheapest_width(2.0, &sample, work, 0.999).unwrap();
    assert!(WIDTHS.iter().any(|w| (w * 2.0 - best.width).abs() < 1e-12));
    for w in WIDTHS {
        let scaled: Vec<f64> = sample.iter().map(|d| d / (w * 2.0)).collect();
        if let Some(p) = cheapest(Metric::Euclidean, 1.0 / w, &scaled, work, 0.999) {
            assert!(p.cost >= best.cost);
        }
    }
    let recall = Metric::Euclidean.probability(
        2.0 / best.width,
        &crate::lsh::scurve::banded(best.bands, best.rows),
    );
    assert!(recall >= 0.999);
}

#[test]
fn bits_cost_words_not_components() {
    let work = Work {
        points: 1000,
        dim: 256,
        pairs: 1000 * 999 / 2,
    };
    assert_eq!(
        exact_cost(Metric::Hamming { bits: 256 }, work),
        work.pairs as f64 * (4.0 * EXACT_WORD + EXACT_PAIR)
    );
    let best = cheapest(
        Metric::Hamming { bits: 256 },
        8.0,
        &[128.0; 16],
        work,
        0.999,
    )
    .unwrap();
    assert!(best.recall >= 0.999);
}
