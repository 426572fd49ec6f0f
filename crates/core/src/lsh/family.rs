//! S-curves of every family against its own distance (MMDS 3.6–3.7): one
//! function's collision probability `p(d)` — `1 − d` for MinHash at Jaccard
//! distance `d`, `1 − θ/180` for hyperplanes at angle θ, the p-stable formula
//! at `d` bucket widths, `1 − h/bits` for bit sampling — raised through the same
//! AND/OR stages as [`super::scurve`]. Tuning works on `p(threshold)`: a band
//! of `r` rows and `b` bands give `1 − (1 − p^r)^b` whatever the family.
//! [`cost`] prices a banding by the work it makes on a sample of the data's
//! pairs (scan's choice for points).

use super::Banding;
use super::scurve::{self, Stage, Tuning, Unreachable};
use crate::measure::Measure;
use crate::sketch::BitSampling;
use crate::sketch::{bit_sampling, hyperplane, pstable};

pub mod cost;

/// The distance axis of a [`Measure`]'s S-curve: the measure, in the unit
/// its family counts distance in (bucket widths for L2, bits out of a known
/// length for Hamming). Not a second list of measures: [`Metric::measure`]
/// says which one it draws, and [`Metric::of`] is the only way from a
/// measure to an axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// Jaccard distance `1 − J` (MinHash).
    Jaccard,
    /// The angle in degrees, 0–180 (random hyperplanes).
    Cosine,
    /// L2 distance in units of the bucket width `a` (p-stable projections).
    Euclidean,
    /// Hamming distance in bits, of strings of `bits` bits (bit sampling).
    Hamming { bits: usize },
}

impl Metric {
    /// The axis of `measure`; `bits` is the strings' length (Hamming only).
    /// Weighted Jaccard is drawn on the Jaccard axis: its family (ICWS)
    /// agrees with probability its similarity, as MinHash does.
    pub fn of(measure: Measure, bits: usize) -> Metric {
        match measure {
            // Containment's sets are signed by MinHash too; its search bands
            // nothing yet (the exact join), so no curve speaks of it.
            Measure::Jaccard | Measure::WeightedJaccard | Measure::Containment => Metric::Jaccard,
            Measure::Cosine => Metric::Cosine,
            Measure::L2 => Metric::Euclidean,
            Measure::Hamming => Metric::Hamming { bits },
        }
    }

    /// The measure whose S-curve this axis draws.
    pub fn measure(self) -> Measure {
        match self {
            Metric::Jaccard => Measure::Jaccard,
            Metric::Cosine => Measure::Cosine,
            Metric::Euclidean => Measure::L2,
            Metric::Hamming { .. } => Measure::Hamming,
        }
    }

    /// The name on the command line and in output: the measure's.
    pub fn name(self) -> &'static str {
        self.measure().name()
    }

    /// What the distance axis counts.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Jaccard => "Jaccard distance",
            Metric::Cosine => "angle in degrees",
            Metric::Euclidean => "distance in bucket widths a",
            Metric::Hamming { .. } => "Hamming distance in bits",
        }
    }

    /// The largest distance the axis shows (Euclidean has none; 4a is where
    /// one projection's probability is below 0.1).
    pub fn max_distance(self) -> f64 {
        match self {
            Metric::Jaccard => 1.0,
            Metric::Cosine => 180.0,
            Metric::Euclidean => 4.0,
            Metric::Hamming { bits } => bits as f64,
        }
    }

    /// P(one function agrees) for two items at `distance`.
    pub fn collision_probability(self, distance: f64) -> f64 {
        match self {
            Metric::Jaccard => (1.0 - distance).clamp(0.0, 1.0),
            Metric::Cosine => hyperplane::collision_probability(distance),
            Metric::Euclidean => pstable::collision_probability(distance),
            Metric::Hamming { bits } => bit_sampling::collision_probability(distance, bits),
        }
    }

    /// P(candidate) at `distance` after `stages`.
    pub fn probability(self, distance: f64, stages: &[Stage]) -> f64 {
        scurve::amplify(self.collision_probability(distance), stages)
    }

    /// `(d1, d2, p1, p2)` after `stages`: every family's `p` falls with the
    /// distance, so the values at `d1` and `d2` are the bounds.
    pub fn sensitivity(self, d1: f64, d2: f64, stages: &[Stage]) -> scurve::Sensitivity {
        scurve::Sensitivity {
            d1,
            d2,
            p1: self.probability(d1, stages),
            p2: self.probability(d2, stages),
        }
    }
}

/// The cheapest `(bands, rows)`, `b·r ≤ max_hashes`, finding items at
/// `distance` with probability ≥ `min_recall` ([`scurve::tune_min_recall`] at
/// `p(distance)`). The tuning's similarities are collision probabilities.
pub fn tune(
    metric: Metric,
    distance: f64,
    max_hashes: usize,
    min_recall: f64,
) -> Result<Tuning, Unreachable> {
    let p = metric.collision_probability(distance);
    if p <= 0.0 {
        return Err(Unreachable { best_recall: 0.0 });
    }
    scurve::tune_min_recall(p, max_hashes, min_recall)
}

/// Bands of bit sampling that find every pair of `len`-bit strings within
/// `radius` bits: `radius + 1` disjoint bands of `⌊len/(radius + 1)⌋`
/// consecutive positions. Two strings that differ in at most `radius` bits
/// differ in at most `radius` bands, so they share one: recall 1, the rule
/// SimHash deduplication uses over 64-bit fingerprints. `radius < len`.
pub fn pigeonhole(len: usize, radius: usize) -> (BitSampling, Banding) {
    assert!(radius < len, "radius {radius} of {len}-bit strings");
    let bands = radius + 1;
    let rows = len / bands;
    (
        BitSampling::consecutive(len, bands * rows),
        Banding { bands, rows },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsh::candidate_pairs;
    use crate::sketch::Family;

    /// MMDS 3.7.3: one hyperplane is (d1, d2, (180 − d1)/180, (180 − d2)/180)-
    /// sensitive; 3.7.4: a bucket width a is (a/2, 2a, ≥ 1/2, ≤ 1/3)-sensitive.
    #[test]
    fn mmds_sensitivities() {
        let one = scurve::banded(1, 1);
        let s = Metric::Cosine.sensitivity(45.0, 135.0, &one);
        assert!(
            (s.p1 - 0.75).abs() < 1e-12 && (s.p2 - 0.25).abs() < 1e-12,
            "{s:?}"
        );
        let s = Metric::Euclidean.sensitivity(0.5, 2.0, &one);
        assert!(s.p1 >= 0.5 && s.p2 <= 1.0 / 3.0);
        let s = Metric::Hamming { bits: 100 }.sensitivity(10.0, 40.0, &one);
        assert!((s.p1 - 0.9).abs() < 1e-12 && (s.p2 - 0.6).abs() < 1e-12);
        // AND/OR amplification acts on p as for MinHash: b=20, r=5 at p = 0.8.
        let at = Metric::Cosine.probability(36.0, &scurve::banded(20, 5));
        assert!((at - scurve::candidate_probability(0.8, 20, 5)).abs() < 1e-12);
    }

    #[test]
    fn axes_map_to_their_measures_and_back() {
        for m in [
            Measure::Jaccard,
            Measure::Cosine,
            Measure::L2,
            Measure::Hamming,
        ] {
            assert_eq!(Metric::of(m, 64).measure(), m);
        }
        assert_eq!(Metric::of(Measure::WeightedJaccard, 0), Metric::Jaccard);
        assert_eq!(Metric::Euclidean.name(), "euclidean");
        assert_eq!(Metric::Hamming { bits: 8 }.name(), "hamming");
    }

    #[test]
    fn tuning_meets_the_recall_at_the_threshold_distance() {
        for (metric, d) in [
            (Metric::Cosine, 25.0),
            (Metric::Euclidean, 0.5),
            (Metric::Hamming { bits: 64 }, 4.0),
        ] {
            let t = tune(metric, d, 200, 0.99).unwrap();
            let p = metric.probability(d, &scurve::banded(t.bands, t.rows));
            assert!(p >= 0.99 && t.bands * t.rows <= 200, "{metric:?} {t:?}");
        }
        assert!(tune(Metric::Hamming { bits: 8 }, 8.0, 100, 0.9).is_err());
    }

    #[test]
    fn pigeonhole_finds_every_pair_within_the_radius() {
        // Every 12-bit string against 0b0000_0000_0000 with up to 3 bits set
        // shares a band with it; with 4 bits spread one per band, it does not.
        let (sampling, banding) = pigeonhole(12, 3);
        assert_eq!(banding, Banding { bands: 4, rows: 3 });
        let n = sampling.signature_len();
        for word in 0u64..1 << 12 {
            let mut sigs = vec![0; 2 * n];
            sampling.sign(&[0], &mut sigs[..n]);
            sampling.sign(&[word], &mut sigs[n..]);
            let found = !candidate_pairs(&sigs, banding).is_empty();
            if word.count_ones() <= 3 {
                assert!(found, "{word:012b}");
            }
            if word == 0b1001_0010_0100 {
                assert!(!found);
            }
        }
    }
}
