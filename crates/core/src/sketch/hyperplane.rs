//! Random hyperplanes (MMDS 3.7.2–3.7.3): the cosine family. Each value of a
//! row is the side of one random hyperplane through the origin that the
//! vector lies on (1 if `v·n > 0`, else 0).
//!
//! The normals are Gaussian, so their directions are uniform on the sphere and
//! two vectors at angle θ fall on different sides of one with probability
//! exactly θ/180: the family is `(d1, d2, (180 − d1)/180, (180 − d2)/180)`-
//! sensitive in degrees. (MMDS's ±1 "sketch" normals approximate this; they
//! are not uniform in direction.) Memory: `n × d × 4` bytes of normals.

use super::family::{Gaussian, dot_lanes};
use super::{Family, Features, wrong_features};
use crate::measure::Measure;
use crate::similarity::vectors::angle_degrees;

/// `n` random hyperplanes in `d` dimensions.
#[derive(Clone, Debug)]
pub struct Hyperplanes {
    dim: usize,
    normals: Vec<f32>,
}

impl Hyperplanes {
    pub fn new(dim: usize, n: usize, seed: u64) -> Self {
        let mut g = Gaussian::new(seed);
        let normals = (0..dim * n).map(|_| g.next() as f32).collect();
        Hyperplanes { dim, normals }
    }
}

/// P(one hyperplane does not separate two vectors at `degrees`) = 1 − θ/180.
pub(crate) fn collision_probability(degrees: f64) -> f64 {
    (1.0 - degrees / 180.0).clamp(0.0, 1.0)
}

/// The cosine two rows of `n` hyperplanes agreeing in `agree` values
/// estimate: θ ≈ π·(1 − agree/n), cos θ (`--verify signature`). Its standard
/// error in θ is π·√(p(1 − p)/n) for p = 1 − θ/π.
pub fn estimate_cosine(agree: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    (std::f64::consts::PI * (1.0 - agree as f64 / n as f64)).cos()
}

impl Hyperplanes {
    /// Writes the row of `item` (a vector of the planes' dimension) into `out`.
    pub fn sign(&self, item: &[f32], out: &mut [u32]) {
        debug_assert_eq!(item.len(), self.dim);
        for (value, normal) in out.iter_mut().zip(self.normals.chunks_exact(self.dim)) {
            *value = u32::from(dot_lanes(item, normal) > 0.0);
        }
    }
}

impl Family for Hyperplanes {
    fn signature_len(&self) -> usize {
        self.normals.len().checked_div(self.dim).unwrap_or(0)
    }

    fn sign_into(&self, features: Features<'_>, out: &mut [u32]) {
        match features {
            Features::Vector(item) => self.sign(item, out),
            other => wrong_features("hyperplanes", &other),
        }
    }

    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        estimate_cosine(agreeing(a, b), a.len())
    }

    fn collision_probability(&self, cosine: f64) -> f64 {
        collision_probability(angle_degrees(cosine))
    }

    fn measure(&self) -> Measure {
        Measure::Cosine
    }
}

/// The positions in which two rows agree.
pub(crate) fn agreeing(a: &[u32], b: &[u32]) -> usize {
    assert_eq!(a.len(), b.len(), "rows of one family");
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::vectors::cosine;

    /// Agreement rate of 4,000 hyperplanes against 1 − θ/180 (5σ of a binomial).
    #[test]
    fn agreement_is_one_minus_angle_over_180() {
        let n = 4000;
        let planes = Hyperplanes::new(5, n, 11);
        let pairs: [([f32; 5], [f32; 5]); 3] = [
            ([1.0, 2.0, -1.0, 0.5, 0.0], [2.0, 1.0, 1.0, 0.5, -3.0]),
            ([1.0, 0.0, 0.0, 0.0, 0.0], [-1.0, 0.1, 0.0, 0.0, 0.0]),
            ([3.0, -2.0, 1.0, 4.0, 1.0], [3.0, -2.0, 1.5, 4.0, 1.0]),
        ];
        for (a, b) in pairs {
            let (mut sa, mut sb) = (vec![0; n], vec![0; n]);
            planes.sign(&a, &mut sa);
            planes.sign(&b, &mut sb);
            let agree = sa.iter().zip(&sb).filter(|(x, y)| x == y).count() as f64;
            let p = collision_probability(angle_degrees(cosine(&a, &b).unwrap()));
            let sigma = (n as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (agree - n as f64 * p).abs() <= 5.0 * sigma + 1.0,
                "{agree} vs {p}"
            );
        }
    }

    #[test]
    fn mmds_sensitivity_at_45_and_135_degrees() {
        assert_eq!(collision_probability(45.0), 0.75);
        assert_eq!(collision_probability(135.0), 0.25);
        assert_eq!(collision_probability(0.0), 1.0);
        assert_eq!(collision_probability(180.0), 0.0);
    }

    /// --verify signature's estimate over 2,000 hyperplanes (seed 3) for
    /// vectors at 10°–80°: the estimated angle lies within 5σ of the true one,
    /// σ = π·√(p(1 − p)/n) from the binomial agreement count.
    #[test]
    fn estimated_cosine_within_binomial_margin() {
        let n = 2000;
        let planes = Hyperplanes::new(8, n, 3);
        assert_eq!(estimate_cosine(n, n), 1.0);
        assert!((estimate_cosine(0, n) + 1.0).abs() < 1e-12);
        assert!(estimate_cosine(n / 2, n).abs() < 1e-12);
        for degrees in [10.0f64, 25.0, 45.0, 60.0, 80.0] {
            let theta = degrees.to_radians();
            let a = [1.0f32, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
            let b = [
                theta.cos() as f32,
                theta.sin() as f32,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ];
            let (mut sa, mut sb) = (vec![0; n], vec![0; n]);
            planes.sign(&a, &mut sa);
            planes.sign(&b, &mut sb);
            let agree = sa.iter().zip(&sb).filter(|(x, y)| x == y).count();
            let estimated = estimate_cosine(agree, n).clamp(-1.0, 1.0).acos();
            let p = 1.0 - theta / std::f64::consts::PI;
            let sigma = std::f64::consts::PI * (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (estimated - theta).abs() <= 5.0 * sigma,
                "{degrees}°: estimated {}°",
                estimated.to_degrees()
            );
        }
    }
}
