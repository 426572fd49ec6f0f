//! Weighted MinHash by Improved Consistent Weighted Sampling (Ioffe 2010,
//! "Improved Consistent Sampling, Weighted Minhash and L1 Sketching"; the
//! algorithm of datasketch's `WeightedMinHashGenerator`).
//!
//! A weighted set (a bag of shingle counts, or `token:weight`) maps each
//! element k to a weight S_k > 0. Each of the n samples draws, for every
//! element, r_k, c_k ~ Gamma(2, 1) and β_k ~ Uniform(0, 1) — functions of the
//! element, the sample and the seed only, so two sets see the same draws — and
//! keeps the element k* minimising a_k = c_k / (y_k e^{r_k}), where
//! t_k = ⌊ln S_k / r_k + β_k⌋ and y_k = e^{r_k (t_k − β_k)}. The sample is the
//! pair (k*, t_{k*}). Two sets' samples are equal with probability exactly
//! their weighted Jaccard similarity Σ_k min(S_k, T_k) / Σ_k max(S_k, T_k), so
//! the fraction of equal pairs estimates it without bias.
//!
//! Pure: no file system, no printing. `compare --icws` signs two bags of
//! shingle counts; `scan --sketch icws` weighted sets or bags of shingles
//! (`pipeline::weighted`; docs/MMDS.md).

use crate::sketch::minhash::SplitMix64;

/// One sample: the element chosen and its quantised weight index t.
pub type Sample = (u64, i64);

/// n samples of ICWS from a seed.
#[derive(Clone, Debug)]
pub struct Icws {
    /// Each sample's key: the first draw of its seed's generator, mixed
    /// with an element to seed that element's draws.
    keys: Vec<u64>,
}

/// A uniform draw in (0, 1): never 0, so logarithms stay finite.
fn open_unit(rng: &mut SplitMix64) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// Gamma(2, 1) as the sum of two unit exponentials.
fn gamma2(rng: &mut SplitMix64) -> f64 {
    -(open_unit(rng) * open_unit(rng)).ln()
}

impl Icws {
    pub fn new(samples: usize, seed: u64) -> Self {
        let keys = (0..samples)
            .map(|i| SplitMix64(seed ^ (i as u64).wrapping_mul(0xA076_1D64_78BD_642F)).next_u64())
            .collect();
        Icws { keys }
    }

    pub fn samples(&self) -> usize {
        self.keys.len()
    }

    /// The draws (r, c, β) of `element` in the sample of `key`.
    #[inline]
    fn draws(key: u64, element: u64) -> (f64, f64, f64) {
        let mut rng = SplitMix64(key ^ element);
        // One more step decorrelates elements that differ in few bits.
        rng.next_u64();
        let r = gamma2(&mut rng);
        let c = gamma2(&mut rng);
        let beta = open_unit(&mut rng);
        (r, c, beta)
    }

    /// The signature of a weighted set (element, weight); elements with a
    /// weight that is not a positive finite number are left out. `None` when
    /// none is left. Elements must be distinct.
    pub fn sign(&self, weights: &[(u64, f64)]) -> Option<Vec<Sample>> {
        let kept: Vec<(u64, f64)> = weights
            .iter()
            .copied()
            .filter(|&(_, w)| w.is_finite() && w > 0.0)
            .collect();
        if kept.is_empty() {
            return None;
        }
        // Element by element, every sample's running minimum: ln w is taken
        // once an element, and the samples' minima stay in cache.
        let mut best = vec![(f64::INFINITY, 0u64, 0i64); self.keys.len()];
        for &(k, w) in &kept {
            let ln_w = w.ln();
            for (best, &key) in best.iter_mut().zip(&self.keys) {
                let (r, c, beta) = Self::draws(key, k);
                let t = (ln_w / r + beta).floor();
                let ln_y = r * (t - beta);
                // a = c / (y e^r), compared through its logarithm.
                let ln_a = c.ln() - ln_y - r;
                if ln_a < best.0 || (ln_a == best.0 && k < best.1) {
                    *best = (ln_a, k, t as i64);
                }
            }
        }
        Some(best.into_iter().map(|(_, k, t)| (k, t)).collect())
    }

    /// The fraction of equal samples: the weighted Jaccard estimate.
    pub fn estimate(a: &[Sample], b: &[Sample]) -> f64 {
        assert_eq!(a.len(), b.len(), "signatures of one sketch");
        if a.is_empty() {
            return 0.0;
        }
        let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
        equal as f64 / a.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Σ min / Σ max, by definition.
    fn weighted_jaccard(a: &[(u64, f64)], b: &[(u64, f64)]) -> f64 {
        let weight = |set: &[(u64, f64)], k: u64| {
            set.iter()
                .find(|&&(x, _)| x == k)
                .map(|&(_, w)| w)
                .unwrap_or(0.0)
        };
        let mut keys: Vec<u64> = a.iter().chain(b).map(|&(k, _)| k).collect();
        keys.sort_unstable();
        keys.dedup();
        let (mut min, mut max) = (0.0, 0.0);
        for k in keys {
            let (x, y) = (weight(a, k), weight(b, k));
            min += x.min(y);
            max += x.max(y);
        }
        min / max
    }

    /// Each sample agrees with probability J_w, independently: the fraction
    /// of N agreeing samples lies within 4.5 standard deviations
    /// (√(J(1−J)/N)) of J_w, for integer counts and fractional weights.
    #[test]
    fn unbiased_within_binomial_margins() {
        type Bag<'a> = &'a [(u64, f64)];
        let cases: [(Bag, Bag); 4] = [
            (&[(1, 3.0), (2, 1.0)], &[(1, 2.0), (2, 2.0), (3, 1.0)]),
            (&[(10, 0.5), (11, 7.25), (12, 1.0)], &[(11, 3.5), (12, 4.0)]),
            (&[(5, 1.0)], &[(5, 100.0)]),
            (&[(1, 1.0), (2, 1.0), (3, 1.0)], &[(1, 1.0), (4, 1.0)]),
        ];
        let n = 20_000;
        let icws = Icws::new(n, 7);
        for (a, b) in cases {
            let truth = weighted_jaccard(a, b);
            let estimate = Icws::estimate(&icws.sign(a).unwrap(), &icws.sign(b).unwrap());
            let sigma = (truth * (1.0 - truth) / n as f64).sqrt();
            assert!(
                (estimate - truth).abs() <= 4.5 * sigma,
                "{a:?} {b:?}: {estimate} against {truth} (σ {sigma})"
            );
        }
    }

    #[test]
    fn a_signature_depends_on_the_set_only() {
        let icws = Icws::new(64, 3);
        let a = [(1, 2.0), (9, 0.5), (4, 3.0)];
        let b = [(4, 3.0), (1, 2.0), (9, 0.5), (7, 0.0), (8, f64::NAN)];
        assert_eq!(icws.sign(&a), icws.sign(&b));
        assert_eq!(
            Icws::estimate(&icws.sign(&a).unwrap(), &icws.sign(&b).unwrap()),
            1.0
        );
        assert_ne!(icws.sign(&a), Icws::new(64, 4).sign(&a));
        assert_eq!(icws.sign(&[(1, 0.0)]), None);
        // Disjoint sets share no sample.
        let c = [(2, 2.0), (3, 1.0)];
        assert_eq!(
            Icws::estimate(&icws.sign(&a).unwrap(), &icws.sign(&c).unwrap()),
            0.0
        );
    }
}
