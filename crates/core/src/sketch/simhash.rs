//! SimHash (Charikar 2002): a document's features → one 64-bit fingerprint,
//! whose bit `i` is the sign of the weighted sum of ±1 (bit `i` of each
//! feature's hash: 1 counts +weight, 0 counts −weight). Two documents'
//! fingerprints differ in about `64·θ/180` bits for the angle θ between their
//! weighted feature vectors: SimHash is 64 random hyperplanes
//! ([`super::hyperplane`]) with ±1 normals drawn by hashing, so only
//! the fingerprint is stored. Near-duplicates are pairs within a few bits,
//! found by the pigeonhole bands of `lsh::family::pigeonhole`.
//!
//! Features are shingle hashes, weighted by [`Weights`]: each distinct
//! shingle once (the set, text-dedup's definition and the default), or by its
//! count in the document (a term-frequency vector, where repeated passages —
//! boilerplate — weigh more).

use super::hyperplane::{self, agreeing};
use super::{Family, Features, wrong_features};
use crate::measure::Measure;
use crate::similarity::vectors::angle_degrees;

/// How a document's shingles weigh in its fingerprint (`--simhash-weights`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Weights {
    /// Each distinct shingle weight 1.
    #[default]
    Set,
    /// Each shingle by its number of occurrences.
    Counts,
}

/// `(hash, weight)` features of a document's shingle hashes.
pub fn features(hashes: Vec<u64>, weights: Weights) -> Vec<(u64, u32)> {
    let mut counts = crate::similarity::measures::count_vector(hashes);
    if weights == Weights::Set {
        for (_, w) in &mut counts {
            *w = 1;
        }
    }
    counts
}

/// Scrambles a feature hash with the seed (SplitMix64's finaliser), so that
/// another seed gives independent hyperplanes.
fn mix(hash: u64, seed: u64) -> u64 {
    let mut z = hash ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The 64-bit fingerprint of weighted features `(hash, weight)`; a bit whose
/// sum is 0 (and every bit of an empty document) is 0.
pub fn fingerprint(features: &[(u64, u32)], seed: u64) -> u64 {
    let mut sums = [0i64; 64];
    for &(hash, weight) in features {
        let h = mix(hash, seed);
        let w = i64::from(weight);
        for (i, sum) in sums.iter_mut().enumerate() {
            if h >> i & 1 == 1 {
                *sum += w;
            } else {
                *sum -= w;
            }
        }
    }
    sums.iter()
        .enumerate()
        .fold(0u64, |fp, (i, &s)| fp | (u64::from(s > 0) << i))
}

/// [`fingerprint`] of real weights: the same fingerprint for whole weights
/// (their sums are exact in `f64`), and what a `token:weight` bag signs.
pub fn fingerprint_weighted(features: &[(u64, f64)], seed: u64) -> u64 {
    let mut sums = [0f64; 64];
    for &(hash, weight) in features {
        let h = mix(hash, seed);
        for (i, sum) in sums.iter_mut().enumerate() {
            if h >> i & 1 == 1 {
                *sum += weight;
            } else {
                *sum -= weight;
            }
        }
    }
    sums.iter()
        .enumerate()
        .fold(0u64, |fp, (i, &s)| fp | (u64::from(s > 0.0) << i))
}

/// SimHash as a [`Family`]: a row of 64 values, bit `i` of the fingerprint
/// in value `i` (what `BitSampling::consecutive(64, 64)` reads from the
/// fingerprint, so the pigeonhole bands cut the same row).
#[derive(Clone, Copy, Debug)]
pub struct SimHash {
    seed: u64,
}

impl SimHash {
    pub fn new(seed: u64) -> Self {
        SimHash { seed }
    }
}

impl Family for SimHash {
    fn signature_len(&self) -> usize {
        64
    }

    /// A set weighs each distinct hash once ([`Weights::Set`]); a bag by its
    /// weights ([`Weights::Counts`] gives whole ones).
    fn sign_into(&self, features: Features<'_>, out: &mut [u32]) {
        let fp = match features {
            Features::Set(hashes) => {
                fingerprint(&self::features(hashes.to_vec(), Weights::Set), self.seed)
            }
            Features::Weighted(bag) => fingerprint_weighted(bag, self.seed),
            other => wrong_features("SimHash", &other),
        };
        for (i, value) in out.iter_mut().enumerate().take(64) {
            *value = (fp >> i & 1) as u32;
        }
    }

    fn estimate(&self, a: &[u32], b: &[u32]) -> f64 {
        hyperplane::estimate_cosine(agreeing(a, b), a.len())
    }

    /// One bit is one hyperplane with hashed ±1 normals: `1 − θ/180`, close
    /// for documents of many features (their sums are near-Gaussian).
    fn collision_probability(&self, cosine: f64) -> f64 {
        hyperplane::collision_probability(angle_degrees(cosine))
    }

    fn measure(&self) -> Measure {
        Measure::Cosine
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::SplitMix64;

    #[test]
    fn set_weights_ignore_repeats_and_counts_do_not() {
        let once = features(vec![1, 2, 3], Weights::Set);
        let repeated = features(vec![1, 1, 1, 1, 2, 3, 3], Weights::Set);
        assert_eq!(once, repeated);
        assert_eq!(once, vec![(1, 1), (2, 1), (3, 1)]);
        let counts = features(vec![1, 1, 1, 1, 2, 3, 3], Weights::Counts);
        assert_eq!(counts, vec![(1, 4), (2, 1), (3, 2)]);
        // Shingle 1 repeated outweighs 2 and 3 wherever their bits disagree
        // with its bits: the counted fingerprint is then 1's own bits there.
        let fp = fingerprint(&counts, 9);
        let (h1, h2, h3) = (mix(1, 9), mix(2, 9), mix(3, 9));
        for i in 0..64 {
            let bit = |h: u64| h >> i & 1 == 1;
            if bit(h2) != bit(h1) && bit(h3) != bit(h1) {
                assert_eq!(fp >> i & 1 == 1, bit(h1), "bit {i}");
            }
        }
        assert_ne!(fingerprint(&once, 9), fp);
    }

    #[test]
    fn identical_features_identical_fingerprints_and_weights_count() {
        let a = [(1u64, 1u32), (2, 1), (3, 1)];
        assert_eq!(fingerprint(&a, 7), fingerprint(&a, 7));
        assert_ne!(fingerprint(&a, 7), fingerprint(&a, 8));
        // One feature alone: the fingerprint is its mixed hash.
        assert_eq!(fingerprint(&[(5, 3)], 1), mix(5, 1));
        assert_eq!(fingerprint(&[], 1), 0);
    }

    /// Hamming distance of fingerprints against the angle of the feature
    /// vectors: each bit differs with probability θ/180 for hash-drawn ±1
    /// normals over many features (their sums are near-Gaussian), so over 300
    /// document pairs the mean differing bits lie within 5σ of 64·θ/180.
    #[test]
    fn differing_bits_track_the_angle() {
        let mut rng = SplitMix64(2);
        let (trials, shared, own) = (300, 600usize, 200usize);
        let mut differing = 0u64;
        for t in 0..trials {
            let common: Vec<(u64, u32)> = (0..shared).map(|_| (rng.next_u64(), 1)).collect();
            let mut a = common.clone();
            let mut b = common;
            a.extend((0..own).map(|_| (rng.next_u64(), 1)));
            b.extend((0..own).map(|_| (rng.next_u64(), 1)));
            differing += u64::from((fingerprint(&a, t) ^ fingerprint(&b, t)).count_ones());
        }
        let cos = shared as f64 / (shared + own) as f64;
        let p = cos.acos().to_degrees() / 180.0;
        let n = (trials * 64) as f64;
        let sigma = (n * p * (1.0 - p)).sqrt();
        assert!(
            (differing as f64 - n * p).abs() <= 5.0 * sigma,
            "{differing} vs {}",
            n * p
        );
    }
}
