//! The true measures of real vectors and bit strings (MMDS 3.5.2–3.5.4): what
//! every candidate of a vector family is verified by, and what `compare`
//! prints for two vectors or two bit strings.
//!
//! Vectors are `f32` components of any sign; every sum is accumulated in `f64`
//! in index order, so a measure does not depend on the CPU, the thread or the
//! order pairs are verified in. Bit strings are packed 64 to a `u64` word,
//! bit `i` of the string at bit `i % 64` of word `i / 64`; bits past the
//! string's length are zero.
//!
//! [`all_pairs`]: every pair of a point set measured (the exact method).

pub mod all_pairs;

/// `Σ aᵢ·bᵢ`, in `f64`. The slices have the same length.
pub fn dot(a: &[f32], b: &[f32]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, &y)| f64::from(x) * f64::from(y))
        .sum()
}

/// The cosine of the angle between `a` and `b`, in `[-1, 1]` (negative
/// components make negative cosines); `None` when either vector is zero,
/// whose angle to anything is undefined.
pub fn cosine(a: &[f32], b: &[f32]) -> Option<f64> {
    cosine_with_norms(a, b, dot(a, a), dot(b, b))
}

/// [`cosine`] with `dot(a, a)` and `dot(b, b)` already known (the same
/// value, bit for bit, without summing the norms again for every pair).
pub fn cosine_with_norms(a: &[f32], b: &[f32], na: f64, nb: f64) -> Option<f64> {
    if na == 0.0 || nb == 0.0 {
        return None;
    }
    Some((dot(a, b) / (na.sqrt() * nb.sqrt())).clamp(-1.0, 1.0))
}

/// The cosine distance of MMDS 3.5.4: the angle, in degrees in `[0, 180]`,
/// whose cosine is `cosine`.
pub fn angle_degrees(cosine: f64) -> f64 {
    cosine.clamp(-1.0, 1.0).acos().to_degrees()
}

/// The `Lp` distance `(Σ |aᵢ − bᵢ|^p)^(1/p)` for `p ≥ 1`; `p = ∞` is the L∞
/// distance `max |aᵢ − bᵢ|`.
pub fn lp_distance(a: &[f32], b: &[f32], p: f64) -> f64 {
    debug_assert!(p >= 1.0, "Lp needs p ≥ 1, got {p}");
    let diffs = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).abs());
    if p.is_infinite() {
        diffs.fold(0.0, f64::max)
    } else if p == 1.0 {
        diffs.sum()
    } else if p == 2.0 {
        diffs.map(|d| d * d).sum::<f64>().sqrt()
    } else {
        diffs.map(|d| d.powf(p)).sum::<f64>().powf(1.0 / p)
    }
}

/// The Euclidean (L2) distance.
pub fn euclidean(a: &[f32], b: &[f32]) -> f64 {
    lp_distance(a, b, 2.0)
}

/// The Hamming distance of two packed bit strings of the same length: the
/// positions where they differ.
pub fn hamming_bits(a: &[u64], b: &[u64]) -> u32 {
    debug_assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// Bit `i` of a packed bit string.
pub fn bit(words: &[u64], i: usize) -> bool {
    words[i / 64] >> (i % 64) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_with_negative_components() {
        // MMDS Example 3.13: [1, 2, −1] and [2, 1, 1]: dot 3, norms √6, √6.
        let (x, y) = ([1.0, 2.0, -1.0], [2.0, 1.0, 1.0]);
        let c = cosine(&x, &y).unwrap();
        assert!((c - 0.5).abs() < 1e-12);
        assert!((angle_degrees(c) - 60.0).abs() < 1e-9);
        // Opposite vectors: cosine −1, 180°.
        assert!((cosine(&[1.0, -2.0], &[-1.0, 2.0]).unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(angle_degrees(-1.0), 180.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn lp_norms_of_mmds_example_3_13() {
        // [0, 0] and [3, 4]: L1 7, L2 5, L∞ 4; L3 = (27 + 64)^(1/3).
        let (a, b) = ([0.0, 0.0], [3.0, 4.0]);
        assert_eq!(lp_distance(&a, &b, 1.0), 7.0);
        assert_eq!(euclidean(&a, &b), 5.0);
        assert_eq!(lp_distance(&a, &b, f64::INFINITY), 4.0);
        assert!((lp_distance(&a, &b, 3.0) - 91f64.powf(1.0 / 3.0)).abs() < 1e-12);
        // Negative components: |−1 − 2| = 3.
        assert_eq!(lp_distance(&[-1.0], &[2.0], 1.0), 3.0);
    }

    #[test]
    fn hamming_of_packed_bits() {
        // 10101 and 11110 differ at positions 1, 2 and 4 (MMDS 3.5.6's kind of example).
        let pack = |s: &str| {
            let mut w = 0u64;
            for (i, c) in s.chars().enumerate() {
                if c == '1' {
                    w |= 1 << i;
                }
            }
            vec![w]
        };
        assert_eq!(hamming_bits(&pack("10101"), &pack("11110")), 3);
        assert!(bit(&pack("01"), 1) && !bit(&pack("01"), 0));
        let long_a = vec![u64::MAX, 0];
        let long_b = vec![0, 1];
        assert_eq!(hamming_bits(&long_a, &long_b), 65);
    }
}
