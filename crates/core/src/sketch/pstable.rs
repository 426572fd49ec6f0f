//! Projections into buckets (MMDS 3.7.4–3.7.5; Datar et al.'s 2-stable LSH):
//! the Euclidean family. Each value of a row is `⌊(v·g + o) / a⌋`, the bucket of
//! the vector's projection on a Gaussian direction `g`, shifted by a random
//! offset `o ∈ [0, a)`, for bucket width `a`.
//!
//! The projection of the difference of two points at distance `c` is normal
//! with standard deviation `c`, so one value agrees with probability
//! [`collision_probability`] of `c/a` in any dimension: 0.6096 at `a/2` and
//! 0.1954 at `2a`, within MMDS's bounds (≥ 1/2, ≤ 1/3) for its random lines.
//! Memory: `n × d × 4` bytes of directions.

use super::family::{Gaussian, dot_lanes};
use super::hyperplane::agreeing;
use super::{Family, Features, wrong_features};
use crate::measure::Measure;

/// `n` Gaussian projections in `d` dimensions, cut into buckets of `width`.
#[derive(Clone, Debug)]
pub struct PStable {
    dim: usize,
    width: f64,
    directions: Vec<f32>,
    offsets: Vec<f64>,
}

impl PStable {
    /// `width` is positive and finite.
    pub fn new(dim: usize, n: usize, width: f64, seed: u64) -> Self {
        assert!(width > 0.0 && width.is_finite(), "bucket width {width}");
        let mut g = Gaussian::new(seed);
        let directions = (0..dim * n).map(|_| g.next() as f32).collect();
        let offsets = (0..n).map(|_| (1.0 - g.uniform()) * width).collect();
        PStable {
            dim,
            width,
            directions,
            offsets,
        }
    }
}

/// P(one projection puts two points at distance `c·a` in one bucket of width
/// `a`) as a function of `c` (Datar et al. 2004, the Gaussian case):
/// `1 − 2Φ(−1/c) − (2c/√(2π))·(1 − e^(−1/(2c²)))`.
pub(crate) fn collision_probability(c: f64) -> f64 {
    if c <= 0.0 {
        return 1.0;
    }
    if !c.is_finite() {
        return 0.0;
    }
    let t = 1.0 / c;
    let p = 1.0
        - 2.0 * normal_cdf(-t)
        - 2.0 / ((2.0 * std::f64::consts::PI).sqrt() * t) * (1.0 - (-t * t / 2.0).exp());
    p.clamp(0.0, 1.0)
}

/// Φ(x), the standard normal distribution function, from [`erfc`].
fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function, relative error below 1.2 × 10⁻⁷
/// (Numerical Recipes' Chebyshev fit): the 4–7 decimals curves print.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

impl PStable {
    /// Writes the row of `item` (a vector of the projections' dimension)
    /// into `out`.
    pub fn sign(&self, item: &[f32], out: &mut [u32]) {
        debug_assert_eq!(item.len(), self.dim);
        for ((value, direction), offset) in out
            .iter_mut()
            .zip(self.directions.chunks_exact(self.dim))
            .zip(&self.offsets)
        {
            let bucket = ((f64::from(dot_lanes(item, direction)) + offset) / self.width).floor();
            // Buckets 2^32 apart share a value: for any real width and data, the
            // projections span far fewer buckets than that.
            *value = bucket as i64 as u32;
        }
    }
}

impl Family for PStable {
    fn signature_len(&self) -> usize {
        self.offsets.len()
    }

    fn sign_into(&self, features: Features<'_>, out: &mut [u32]) {
        match features {
            Features::Vector(item) => self.sign(item, out),
            other => wrong_features("p-stable projections", &other),
        }
    }

    /// The distance whose collision probability is the rows' agreement rate
    /// (the formula inverted by bisection; it falls with the distance): 0
    /// when every position agrees, infinite when none does.
    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        if a.is_empty() {
            return 0.0;
        }
        let rate = agreeing(a, b) as f64 / a.len() as f64;
        estimate_widths(rate) * self.width
    }

    fn collision_probability(&self, distance: f64) -> f64 {
        collision_probability(distance / self.width)
    }

    fn measure(&self) -> Measure {
        Measure::L2
    }
}

/// The distance in bucket widths at which one projection agrees with
/// probability `rate`.
fn estimate_widths(rate: f64) -> f64 {
    if rate >= 1.0 {
        return 0.0;
    }
    if rate <= 0.0 {
        return f64::INFINITY;
    }
    let mut high = 1.0;
    while collision_probability(high) > rate {
        high *= 2.0;
    }
    let mut low = 0.0;
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if collision_probability(mid) > rate {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::vectors::euclidean;

    #[test]
    fn erfc_matches_known_values() {
        // erfc(0) = 1, erfc(1) = 0.157299207, erfc(2) = 0.004677735, erfc(−1) = 1.842700793.
        for (x, want) in [
            (0.0, 1.0),
            (1.0, 0.157_299_207),
            (2.0, 0.004_677_735),
            (-1.0, 1.842_700_793),
        ] {
            assert!((erfc(x) - want).abs() < 2e-7 * want.max(1e-3), "erfc({x})");
        }
    }

    /// MMDS 3.7.4: bucket width a is (a/2, 2a, ≥ 1/2, ≤ 1/3)-sensitive.
    #[test]
    fn within_mmds_bounds_at_half_and_twice_the_width() {
        let (p1, p2) = (collision_probability(0.5), collision_probability(2.0));
        assert!(p1 >= 0.5 && p2 <= 1.0 / 3.0, "{p1} {p2}");
        assert!((p1 - 0.6096).abs() < 1e-4 && (p2 - 0.1954).abs() < 1e-4);
        // Decreasing in the distance.
        let ps: Vec<f64> = (0..40)
            .map(|k| collision_probability(k as f64 / 10.0))
            .collect();
        assert!(ps.windows(2).all(|w| w[0] > w[1]));
    }

    /// Agreement rate of 4,000 projections against the formula (5σ).
    #[test]
    fn agreement_follows_the_formula() {
        let n = 4000;
        let width = 2.0;
        let family = PStable::new(4, n, width, 9);
        for (a, b) in [
            ([0.0f32, 0.0, 0.0, 0.0], [0.6, -0.8, 0.0, 0.0]),
            ([1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 3.0, 0.0]),
            ([-5.0, 0.0, 2.0, 1.0], [-4.0, 1.0, 2.0, 1.5]),
        ] {
            let (mut sa, mut sb) = (vec![0; n], vec![0; n]);
            family.sign(&a, &mut sa);
            family.sign(&b, &mut sb);
            let agree = sa.iter().zip(&sb).filter(|(x, y)| x == y).count() as f64;
            let p = collision_probability(euclidean(&a, &b) / width);
            let sigma = (n as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (agree - n as f64 * p).abs() <= 5.0 * sigma + 1.0,
                "{agree} vs {p}"
            );
        }
    }
}
