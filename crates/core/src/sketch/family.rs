//! What the vector families (MMDS 3.6–3.7) share: Gaussian deviates from a
//! seed for the directions of [`super::hyperplane`] and [`super::pstable`],
//! and the fixed-order `f32` dot product they sign with. The families
//! themselves — hyperplanes (cosine), p-stable projections (Euclidean), bit
//! sampling (Hamming) and SimHash (documents, cosine) — implement
//! [`super::Family`] like every other sketch, and their rows are banded by the
//! same [`crate::lsh`] as MinHash.
//!
//! Invariants: a draw depends only on the seed and its place in the stream;
//! pure.

/// Standard normal deviates from a seed (Box–Muller over SplitMix64):
/// the directions of hyperplanes and projections.
pub struct Gaussian {
    rng: super::minhash::SplitMix64,
    spare: Option<f64>,
}

impl Gaussian {
    pub fn new(seed: u64) -> Self {
        Gaussian {
            rng: super::minhash::SplitMix64(seed),
            spare: None,
        }
    }

    /// A uniform deviate in `(0, 1]`.
    pub(crate) fn uniform(&mut self) -> f64 {
        ((self.rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// The next deviate. Not `Iterator::next`: the stream never ends, and
    /// an `Option` on every draw would be noise in the kernels.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let (u, v) = (self.uniform(), self.uniform());
        let radius = (-2.0 * u.ln()).sqrt();
        let angle = std::f64::consts::TAU * v;
        self.spare = Some(radius * angle.sin());
        radius * angle.cos()
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

/// `Σ aᵢ·bᵢ` in `f32` over eight fixed lanes: the order of the additions is
/// fixed (so the result is too) and the compiler can vectorise it. Signing
/// only; verification uses the `f64` sums of [`crate::similarity::vectors`].
pub(crate) fn dot_lanes(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    for (k, (x, y)) in ra.iter().zip(rb).enumerate() {
        lanes[k] += x * y;
    }
    ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5]))
        + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mean 0 and variance 1 within 5σ of their sampling error.
    #[test]
    fn gaussian_moments() {
        let mut g = Gaussian::new(3);
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| g.next()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| x * x).sum::<f64>() / n as f64;
        assert!(mean.abs() < 5.0 / (n as f64).sqrt(), "{mean}");
        // Var of x² is 2 for a standard normal.
        assert!((var - 1.0).abs() < 5.0 * (2.0 / n as f64).sqrt(), "{var}");
    }

    #[test]
    fn lanes_equal_a_plain_dot() {
        let a: Vec<f32> = (0..21).map(|i| i as f32 - 10.0).collect();
        let b: Vec<f32> = (0..21).map(|i| (i % 3) as f32).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(dot_lanes(&a, &b), plain);
    }
}
