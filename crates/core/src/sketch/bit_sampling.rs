//! Bit sampling (MMDS 3.7.1): the Hamming family. Each value of a row is one
//! bit of the string, at a position drawn at random (with repeats); two strings
//! of length `d` at Hamming distance `h` agree in it with probability `1 − h/d`.
//!
//! [`BitSampling::consecutive`] instead takes the first positions in order:
//! the pigeonhole banding (`lsh::family::pigeonhole`) is built on it.

use super::family::Gaussian;
use super::hyperplane::agreeing;
use super::{Family, Features, wrong_features};
use crate::measure::Measure;
use crate::similarity::vectors::bit;

/// Positions sampled from bit strings of `len` bits.
#[derive(Clone, Debug)]
pub struct BitSampling {
    len: usize,
    positions: Vec<u32>,
}

impl BitSampling {
    /// `n` positions drawn uniformly (with repeats) from `0..len`.
    pub fn random(len: usize, n: usize, seed: u64) -> Self {
        assert!(len > 0, "bit strings of length 0");
        let mut g = Gaussian::new(seed);
        let positions = (0..n).map(|_| (g.next_u64() % len as u64) as u32).collect();
        BitSampling { len, positions }
    }

    /// The first `n` positions in order, `n ≤ len`: disjoint runs of bits,
    /// so that bands of them split a string into pieces.
    pub fn consecutive(len: usize, n: usize) -> Self {
        assert!(n <= len, "{n} positions of {len}-bit strings");
        BitSampling {
            len,
            positions: (0..n as u32).collect(),
        }
    }
}

/// P(one sampled bit agrees) for strings of `len` bits at Hamming distance `h`.
pub(crate) fn collision_probability(h: f64, len: usize) -> f64 {
    (1.0 - h / len as f64).clamp(0.0, 1.0)
}

/// The Hamming distance between strings of `len` bits that `n` sampled bits
/// agreeing in `agree` estimate: `len·(1 − agree/n)` (`--verify
/// signature`), unbiased, with standard error `len·√(p(1 − p)/n)` for
/// p = 1 − h/len.
pub fn estimate_distance(agree: usize, n: usize, len: usize) -> f64 {
    if n == 0 {
        return 0.0;
    }
    len as f64 * (1.0 - agree as f64 / n as f64)
}

impl BitSampling {
    /// Writes the row of `item` (a packed string of the family's length)
    /// into `out`.
    pub fn sign(&self, item: &[u64], out: &mut [u32]) {
        for (value, &p) in out.iter_mut().zip(&self.positions) {
            *value = u32::from(bit(item, p as usize));
        }
    }
}

impl Family for BitSampling {
    fn signature_len(&self) -> usize {
        self.positions.len()
    }

    fn sign_into(&self, features: Features<'_>, out: &mut [u32]) {
        match features {
            Features::Bits(item) => self.sign(item, out),
            other => wrong_features("bit sampling", &other),
        }
    }

    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        estimate_distance(agreeing(a, b), a.len(), self.len)
    }

    fn collision_probability(&self, h: f64) -> f64 {
        collision_probability(h, self.len)
    }

    fn measure(&self) -> Measure {
        Measure::Hamming
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_positions_agree_at_one_minus_h_over_d() {
        let n = 4000;
        let sampling = BitSampling::random(100, n, 5);
        let a = [u64::MAX, 0];
        let b = [u64::MAX ^ 0xFFFF_FFFF, 0]; // 32 of 100 bits differ
        let (mut sa, mut sb) = (vec![0; n], vec![0; n]);
        sampling.sign(&a, &mut sa);
        sampling.sign(&b, &mut sb);
        let agree = sa.iter().zip(&sb).filter(|(x, y)| x == y).count() as f64;
        let p = collision_probability(32.0, 100);
        let sigma = (n as f64 * p * (1.0 - p)).sqrt();
        assert!((agree - n as f64 * p).abs() <= 5.0 * sigma, "{agree}");
    }

    /// --verify signature's estimate from 2,000 sampled bits (seed 9) of
    /// 256-bit strings at 8–96 bits apart: within 5σ, σ = 256·√(p(1 − p)/n).
    #[test]
    fn estimated_distance_within_binomial_margin() {
        let n = 2000;
        let len = 256;
        let sampling = BitSampling::random(len, n, 9);
        assert_eq!(estimate_distance(n, n, len), 0.0);
        assert_eq!(estimate_distance(0, n, len), 256.0);
        for h in [8usize, 20, 48, 96] {
            let a = [0u64; 4];
            let mut b = [0u64; 4];
            // Every third bit from 1 on, h of them.
            for k in 0..h {
                let i = (1 + 3 * k) % len;
                b[i / 64] |= 1 << (i % 64);
            }
            let (mut sa, mut sb) = (vec![0; n], vec![0; n]);
            sampling.sign(&a, &mut sa);
            sampling.sign(&b, &mut sb);
            let agree = sa.iter().zip(&sb).filter(|(x, y)| x == y).count();
            let p = collision_probability(h as f64, len);
            let sigma = len as f64 * (p * (1.0 - p) / n as f64).sqrt();
            let estimated = estimate_distance(agree, n, len);
            assert!(
                (estimated - h as f64).abs() <= 5.0 * sigma,
                "{h}: estimated {estimated}"
            );
        }
    }
}
