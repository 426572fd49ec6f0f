//! Random hyperplanes (MMDS 3.7.2–3.7.3): the cosine family. Each value of a
//! row is the side of one random hyperplane through the origin that the
//! vector lies on (1 if `v·n > 0`, else 0).
//!
//! The normals are Gaussian, so their directions are uniform on the sphere and
//! two vectors at angle θ fall on different sides of one with probability
//! exactly θ/180: the family is `(d1, d2, (180 − d1)/180, (180 − d2)/180)`-
//! sensitive in degrees. (MMDS's ±1 "sketch" normals approximate this; they
//! are not uniform in direction.) Memory: `n × d × 4` bytes of normals.

use super::family::{Gaussian, VectorSketcher, dot_lanes};

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
pub fn collision_probability(degrees: f64) -> f64 {
    (1.0 - degrees / 180.0).clamp(0.0, 1.0)
}

impl VectorSketcher for Hyperplanes {
    type Item = [f32];

    fn signature_len(&self) -> usize {
        self.normals.len().checked_div(self.dim).unwrap_or(0)
    }

    fn sign_into(&self, item: &[f32], out: &mut [u32]) {
        debug_assert_eq!(item.len(), self.dim);
        for (value, normal) in out.iter_mut().zip(self.normals.chunks_exact(self.dim)) {
            *value = u32::from(dot_lanes(item, normal) > 0.0);
        }
    }

    fn collision_probability(&self, degrees: f64) -> f64 {
        collision_probability(degrees)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::vectors::{angle_degrees, cosine};

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
            planes.sign_into(&a, &mut sa);
            planes.sign_into(&b, &mut sb);
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
}
