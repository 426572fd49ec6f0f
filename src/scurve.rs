//! The LSH S-curve of MMDS 3.4.2: with `b` bands of `r` rows, two documents of
//! Jaccard similarity `s` become a candidate pair with probability
//! `1 - (1 - s^r)^b`; the curve is steepest near `(1/b)^(1/r)`.

/// Probability that two documents of similarity `s` share a bucket in at least
/// one of `bands` bands of `rows` rows.
pub fn candidate_probability(s: f64, bands: usize, rows: usize) -> f64 {
    let s = s.clamp(0.0, 1.0);
    // 1 - (1 - s^r)^b, written with ln_1p/exp_m1 so that tiny s^r keeps precision.
    let p_band = s.powi(rows as i32);
    if p_band >= 1.0 {
        return 1.0;
    }
    -((bands as f64) * (-p_band).ln_1p()).exp_m1()
}

/// The similarity at which the S-curve rises most steeply, approximately
/// `(1/b)^(1/r)` (MMDS 3.4.3).
pub fn threshold(bands: usize, rows: usize) -> f64 {
    (1.0 / bands as f64).powf(1.0 / rows as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mmds_table_for_20_bands_of_5_rows() {
        // MMDS Fig. 3.11 (rounded as printed there).
        for (s, p) in [
            (0.2, 0.006),
            (0.3, 0.047),
            (0.4, 0.186),
            (0.5, 0.470),
            (0.6, 0.802),
            (0.7, 0.975),
        ] {
            let got = candidate_probability(s, 20, 5);
            assert!((got - p).abs() < 0.0005, "s={s}: {got} vs {p}");
        }
        assert!((candidate_probability(0.8, 20, 5) - 0.9996).abs() < 0.00005);
    }

    #[test]
    fn threshold_of_20_by_5_is_about_half() {
        assert!((threshold(20, 5) - 0.5493).abs() < 1e-4);
    }

    #[test]
    fn curve_ends_are_exact() {
        assert_eq!(candidate_probability(0.0, 20, 5), 0.0);
        assert_eq!(candidate_probability(1.0, 20, 5), 1.0);
    }
}
