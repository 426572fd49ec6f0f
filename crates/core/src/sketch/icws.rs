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

use crate::measure::Measure;
use crate::sketch::SplitMix64;
use crate::sketch::{Family, Features, wrong_features};

/// One sample: the element chosen and its quantised weight index t.
pub(crate) type Sample = (u64, i64);

/// n samples of ICWS from a seed.
#[derive(Clone, Debug)]
pub struct Icws {
    /// Each sample's key: the first draw of its seed's generator, mixed
    /// with an element to seed that element's draws.
    keys: Vec<u64>,
}

/// The most a [`DrawCache`] built by simfind holds: 64 MiB, 21,845
/// elements of 128 samples (24 bytes a sample). Past it, elements are drawn
/// as they are signed.
pub const DRAW_CACHE_BYTES: usize = 64 << 20;

/// One sample's draws of one element: r ~ Gamma(2, 1), ln c (c ~ Gamma(2, 1))
/// and β ~ Uniform(0, 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Draw {
    pub r: f64,
    pub ln_c: f64,
    pub beta: f64,
}

/// The draws of chosen elements, drawn once ([`Icws::token_draws`]) and read
/// by every set that has them ([`Icws::sign_cached`]): an element shared by
/// many sets costs its draws and logarithms once instead of once a set.
/// Elements not in it are drawn as [`Icws::sign`] draws them, so a cache of
/// any size gives the same samples; its caller bounds it
/// ([`Icws::draw_bytes`] an element).
#[derive(Clone, Debug, Default)]
pub struct DrawCache {
    draws: hashbrown::HashMap<u64, Box<[Draw]>>,
}

impl DrawCache {
    /// A cache of the given elements' draws.
    pub fn from_draws(draws: impl IntoIterator<Item = (u64, Box<[Draw]>)>) -> DrawCache {
        DrawCache {
            draws: draws.into_iter().collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.draws.len()
    }

    pub fn is_empty(&self) -> bool {
        self.draws.is_empty()
    }
}

/// A uniform draw in (0, 1): never 0, so logarithms stay finite.
fn open_unit(rng: &mut SplitMix64) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// Gamma(2, 1) as the sum of two unit exponentials (signing takes the
/// product's logarithm only when it needs it).
#[cfg(test)]
fn gamma2(rng: &mut SplitMix64) -> f64 {
    -(open_unit(rng) * open_unit(rng)).ln()
}

/// ⌊x⌋, equal to `f64::floor`: the baseline x86-64 target has no rounding
/// instruction, and `floor` is a library call there (6 % of ICWS signing
/// under callgrind, docs/PERFORMANCE.md). Beyond ±2⁶² (and for NaN) the
/// library's.
#[inline]
fn floor(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= 4.6e18 {
        return x.floor();
    }
    let truncated = x as i64 as f64;
    if truncated > x {
        truncated - 1.0
    } else {
        truncated
    }
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

    /// The draws of `element` in the sample of `key`: the products q and p
    /// of the two uniforms whose −ln are r and c ~ Gamma(2, 1), and β.
    #[inline]
    fn draws(key: u64, element: u64) -> (f64, f64, f64) {
        let mut rng = SplitMix64(key ^ element);
        // One more step decorrelates elements that differ in few bits.
        rng.next_u64();
        let q = open_unit(&mut rng) * open_unit(&mut rng);
        let p = open_unit(&mut rng) * open_unit(&mut rng);
        let beta = open_unit(&mut rng);
        (q, p, beta)
    }

    /// The signature of a weighted set (element, weight); elements with a
    /// weight that is not a positive finite number are left out. `None` when
    /// none is left. Elements must be distinct.
    pub fn sign(&self, weights: &[(u64, f64)]) -> Option<Vec<Sample>> {
        self.sign_cached(weights, &DrawCache::default())
    }

    /// [`Icws::sign`], taking the draws of the elements `cache` holds from it
    /// instead of drawing them: the same samples, bit for bit (the cached
    /// r and ln c are the values the draws give; tests:
    /// `the_cache_changes_nothing`).
    pub fn sign_cached(&self, weights: &[(u64, f64)], cache: &DrawCache) -> Option<Vec<Sample>> {
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
            match cache.draws.get(&k) {
                Some(draws) => {
                    for (best, draw) in best.iter_mut().zip(draws.iter()) {
                        // ln a = ln c − r (t − β) − r ≥ ln c − ln w − r, as
                        // r (t − β) ≤ ln w: most elements lose on that bound
                        // without the division (margin as below).
                        let low = draw.ln_c - ln_w - draw.r;
                        let size = draw.ln_c.abs() + ln_w.abs() + draw.r + best.0.abs();
                        if low > best.0 + 1e-6 * size {
                            continue;
                        }
                        let t = floor(ln_w / draw.r + draw.beta);
                        let ln_a = draw.ln_c - draw.r * (t - draw.beta) - draw.r;
                        if ln_a < best.0 || (ln_a == best.0 && k < best.1) {
                            *best = (ln_a, k, t as i64);
                        }
                    }
                }
                None => {
                    for (best, &key) in best.iter_mut().zip(&self.keys) {
                        Self::step(best, key, k, ln_w);
                    }
                }
            }
        }
        Some(best.into_iter().map(|(_, k, t)| (k, t)).collect())
    }

    /// One element's turn in one sample, drawing its values from the hash.
    #[inline]
    fn step(best: &mut (f64, u64, i64), key: u64, k: u64, ln_w: f64) {
        let (q, p, beta) = Self::draws(key, k);
        // a = c / (y e^r), compared through its logarithm
        //   ln a = ln c − r (t − β + 1),  r = −ln q,  c = −ln p.
        // Most elements lose, and two bounds certify it before the
        // logarithms they would need (δ = 10⁻⁶ of the terms' size is
        // far above the rounding of either side, so the samples are
        // those of the full computation, bit for bit; tests:
        // `pruning_changes_nothing`). Without any logarithm: since
        // r (t − β) ≤ ln w, −ln q ≤ 1/q − 1 and ln c ≥ 1 − 1/c ≥
        // 1 − 1/(1 − p),
        //   ln a ≥ 1 − 1/(1 − p) − ln w − (1 − q)/q.
        let (inv_c, r_above) = (1.0 / (1.0 - p), (1.0 - q) / q);
        let low = 1.0 - inv_c - ln_w - r_above;
        let size = 1.0 + inv_c + ln_w.abs() + r_above + best.0.abs();
        if low > best.0 + 1e-6 * size {
            return;
        }
        let r = -q.ln();
        let t = floor(ln_w / r + beta);
        let ln_y = r * (t - beta);
        // With r: the element wins when ln c < bound; c ≥ 1 − p and
        // e^bound ≤ 1 / (1 − bound) for bound ≤ 0, so (1 − p)(1 −
        // bound) > 1 + δ gives ln c > bound + ln(1 + δ).
        let bound = best.0 + ln_y + r;
        if bound <= 0.0 && (1.0 - p) * (1.0 - bound) > 1.0 + 1e-6 {
            return;
        }
        let ln_a = (-p.ln()).ln() - ln_y - r;
        if ln_a < best.0 || (ln_a == best.0 && k < best.1) {
            *best = (ln_a, k, t as i64);
        }
    }

    /// Bytes [`Icws::token_draws`] holds for one element.
    pub fn draw_bytes(&self) -> usize {
        self.keys.len() * std::mem::size_of::<Draw>()
    }

    /// Every sample's draws of `element`, with their logarithms taken: what
    /// a [`DrawCache`] holds for it (datasketch's generator holds the same
    /// r, ln c and β for every dimension).
    pub fn token_draws(&self, element: u64) -> Box<[Draw]> {
        self.keys
            .iter()
            .map(|&key| {
                let (q, p, beta) = Self::draws(key, element);
                Draw {
                    r: -q.ln(),
                    ln_c: (-p.ln()).ln(),
                    beta,
                }
            })
            .collect()
    }

    /// One sample as a band value: (k, t) mixed into 32 bits. Equal samples
    /// give equal values; unequal ones collide with probability 2⁻³².
    pub fn band_value(&(k, t): &Sample) -> u32 {
        let mut mix = SplitMix64(k ^ (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        (mix.next_u64() >> 32) as u32
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

/// ICWS as a [`Family`]: each sample's [`Icws::band_value`], the row
/// weighted runs band. A set signs as a bag of weight-1 elements (its
/// weighted Jaccard is its Jaccard); a bag with no positive weight signs as
/// every value `u32::MAX` (runs leave such bags out).
impl Family for Icws {
    fn signature_len(&self) -> usize {
        self.samples()
    }

    fn sign_into(&self, features: Features<'_>, out: &mut [u32]) {
        let samples = match features {
            Features::Weighted(bag) => self.sign(bag),
            Features::Set(set) => {
                let bag: Vec<(u64, f64)> = set.iter().map(|&k| (k, 1.0)).collect();
                self.sign(&bag)
            }
            other => wrong_features("ICWS", &other),
        };
        match samples {
            Some(samples) => {
                for (value, sample) in out.iter_mut().zip(&samples) {
                    *value = Icws::band_value(sample);
                }
            }
            None => out.fill(u32::MAX),
        }
    }

    /// The fraction of equal values (of equal samples, but for the 2⁻³²
    /// collisions of [`Icws::band_value`]).
    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        crate::sketch::estimate(a, b)
    }

    fn collision_probability(&self, similarity: f64) -> f64 {
        similarity.clamp(0.0, 1.0)
    }

    fn measure(&self) -> Measure {
        Measure::WeightedJaccard
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

    /// The signature as first written: every draw, every logarithm, the
    /// library floor, sample by sample.
    fn sign_reference(icws: &Icws, weights: &[(u64, f64)]) -> Vec<Sample> {
        icws.keys
            .iter()
            .map(|&key| {
                let mut best = (f64::INFINITY, 0u64, 0i64);
                for &(k, w) in weights {
                    let mut rng = SplitMix64(key ^ k);
                    rng.next_u64();
                    let r = gamma2(&mut rng);
                    let c = gamma2(&mut rng);
                    let beta = open_unit(&mut rng);
                    let t = (w.ln() / r + beta).floor();
                    let ln_a = c.ln() - r * (t - beta) - r;
                    if ln_a < best.0 || (ln_a == best.0 && k < best.1) {
                        best = (ln_a, k, t as i64);
                    }
                }
                (best.1, best.2)
            })
            .collect()
    }

    /// Bags of 1–3,000 elements with weights from 10⁻³⁰⁰ to 10³⁰⁰: the
    /// pruned signing gives the reference's samples exactly.
    #[test]
    fn pruning_changes_nothing() {
        let mut rng = SplitMix64(9);
        let icws = Icws::new(64, 17);
        for size in [1usize, 2, 5, 40, 3000] {
            for scale in [1e-300, 1e-3, 1.0, 7.5, 1e6, 1e300] {
                let bag: Vec<(u64, f64)> = (0..size)
                    .map(|_| (rng.next_u64(), scale * (0.01 + 4.0 * open_unit(&mut rng))))
                    .collect();
                assert_eq!(
                    icws.sign(&bag).unwrap(),
                    sign_reference(&icws, &bag),
                    "{size} × {scale}"
                );
            }
        }
    }

    /// Signing with any part of the elements' draws cached gives the
    /// reference's samples exactly, at every weight scale.
    #[test]
    fn the_cache_changes_nothing() {
        let mut rng = SplitMix64(11);
        let icws = Icws::new(64, 23);
        for size in [1usize, 2, 5, 40, 3000] {
            for scale in [1e-300, 1e-3, 1.0, 7.5, 1e6, 1e300] {
                let bag: Vec<(u64, f64)> = (0..size)
                    .map(|_| (rng.next_u64(), scale * (0.01 + 4.0 * open_unit(&mut rng))))
                    .collect();
                // All, every other one, none.
                for every in [1, 2, usize::MAX] {
                    let cache = DrawCache::from_draws(
                        bag.iter()
                            .step_by(every.min(size.max(1)))
                            .take(if every == usize::MAX { 0 } else { size })
                            .map(|&(k, _)| (k, icws.token_draws(k))),
                    );
                    assert_eq!(
                        icws.sign_cached(&bag, &cache).unwrap(),
                        sign_reference(&icws, &bag),
                        "{size} × {scale}, every {every}"
                    );
                }
            }
        }
    }

    #[test]
    fn floor_is_the_library_floor() {
        for x in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999_999,
            -2.000_001,
            1e15 + 0.5,
            -1e15 - 0.5,
            1e19,
            f64::INFINITY,
        ] {
            assert_eq!(floor(x), x.floor(), "{x}");
        }
        let mut rng = SplitMix64(5);
        for _ in 0..100_000 {
            let x = (open_unit(&mut rng) - 0.5) * 1e6;
            assert_eq!(floor(x), x.floor(), "{x}");
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
