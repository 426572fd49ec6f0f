//! Scan's banding policy: which bands × rows `simfind scan` uses, and when a
//! threshold given with them deserves a warning.
//!
//! Role: the decisions scan makes on top of [`crate::lsh::scurve`]'s maths.
//! `--threshold` alone gets [`scan_shape`]'s choice (scurve's [`tune`](scurve::tune)
//! with [`SCAN_FN_WEIGHT`] and [`SCAN_FP_WEIGHT`] within the default signature
//! length); a threshold far from the steep part of a given curve gets
//! [`steep_part_warning`]. `simfind tune` shows the same choice with the same
//! weights by default, so what it prints is what scan uses.
//!
//! Inputs: bands, rows and a threshold as the user gave them. Outputs: a shape,
//! or a warning as a string for the caller to print. Pure: no I/O, no printing.
//!
//! Invariants: a tuned shape has at most as many hashes as the default shape
//! passed in, so tuning never costs more hashing; no warning searches more than
//! [`MAX_HASHES`] hashes.

use super::scurve::{self, Tuning};

/// Scan's bands when neither `--bands` nor `--threshold` alone decides them.
pub const DEFAULT_BANDS: usize = 20;
/// Scan's rows per band, likewise: 20 × 5 = 100 hashes per document.
pub const DEFAULT_ROWS: usize = 5;

/// Largest signature searched shape by shape (`simfind tune --hashes`, and the
/// suggestion of [`steep_part_warning`]): trying every shape costs O(N log N)
/// integrals, about a second at this size.
pub const MAX_HASHES: usize = 4096;

/// Weights `scan` gives [`scurve::tune`] when it chooses bands and rows itself.
/// scan verifies every candidate exactly, so a false candidate costs a
/// verification while a missed pair is lost: misses weigh more. Since exact
/// verification rules most false candidates out by their signatures, unread,
/// a false candidate costs little: weight 64's shapes (33×3, 20×5, 14×7, 9×11
/// at T = 0.5, 0.7, 0.8, 0.9) cost the same CPU as weight 16's on both
/// ground-truth corpora and reach recall ≥ 0.994 where 16's reached 0.987
/// (docs/TUNING.md, "Revisited after the signature rule-out").
pub const SCAN_FN_WEIGHT: f64 = 64.0;
pub const SCAN_FP_WEIGHT: f64 = 1.0;

/// `scan`'s bands and rows, and whether `tune` chose them.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanShape {
    pub bands: usize,
    pub rows: usize,
    /// Set when `--threshold` came without `--bands`/`--rows`.
    pub tuned: Option<Tuning>,
}

/// `scan`'s shape from what the user gave (issue #3): `--threshold` without
/// `--bands`/`--rows` gets tune's choice within the default signature length
/// (`defaults.0 × defaults.1` hashes, so tuning never costs more hashing);
/// anything else keeps the given values and the defaults for the rest. An
/// invalid threshold is left for the caller to reject.
pub fn scan_shape(
    bands: Option<usize>,
    rows: Option<usize>,
    threshold: Option<f64>,
    defaults: (usize, usize),
) -> ScanShape {
    match (bands, rows, threshold) {
        (None, None, Some(t)) if t > 0.0 && t <= 1.0 => {
            let tuning = scurve::tune(t, defaults.0 * defaults.1, SCAN_FN_WEIGHT, SCAN_FP_WEIGHT);
            ScanShape {
                bands: tuning.bands,
                rows: tuning.rows,
                tuned: Some(tuning),
            }
        }
        _ => ScanShape {
            bands: bands.unwrap_or(defaults.0),
            rows: rows.unwrap_or(defaults.1),
            tuned: None,
        },
    }
}

/// Recall at `T` below which scan warns that most pairs near `T` will be missed.
const LOW_RECALL: f64 = 0.25;
/// Candidate probability at `T − 0.1` above which scan warns that pairs well below
/// `T` will flood verification.
const HIGH_FALSE_CANDIDATES: f64 = 0.9;

/// A warning when a given threshold lies far from the steep part of the given
/// curve: below it (`P(T) < 0.25`: most pairs near `T` are missed) or above it
/// (`P(T − 0.1) > 0.9`: pairs 0.1 below `T` nearly all become candidates, so most
/// candidates are verified only to be discarded). Suggests tune's choice for the
/// same signature length.
pub fn steep_part_warning(bands: usize, rows: usize, threshold: f64) -> Option<String> {
    if bands == 0 || rows == 0 || !(threshold > 0.0 && threshold <= 1.0) {
        return None;
    }
    let suggest = || {
        // Searching every shape of a huge signature would delay the scan itself.
        let hashes = bands * rows;
        if hashes > MAX_HASHES {
            return format!(
                "`simfind tune --threshold {threshold}` suggests shapes of up to {MAX_HASHES} hashes"
            );
        }
        let t = scurve::tune(threshold, hashes, SCAN_FN_WEIGHT, SCAN_FP_WEIGHT);
        format!(
            "`simfind tune --threshold {threshold} --hashes {}` suggests {} bands × {} rows \
             (or give --threshold alone and scan will use it)",
            bands * rows,
            t.bands,
            t.rows
        )
    };
    let steep = scurve::threshold(bands, rows);
    let at_t = scurve::candidate_probability(threshold, bands, rows);
    if at_t < LOW_RECALL {
        return Some(format!(
            "--threshold {threshold} lies below the steep part of the {bands}×{rows} S-curve (steepest near {steep:.3}): \
             a pair of similarity {threshold} becomes a candidate with probability only {at_t:.3}, so most pairs near \
             the threshold will be missed; {}",
            suggest()
        ));
    }
    let below = threshold - 0.1;
    let at_below = scurve::candidate_probability(below, bands, rows);
    if below > 0.0 && at_below > HIGH_FALSE_CANDIDATES {
        return Some(format!(
            "--threshold {threshold} lies above the steep part of the {bands}×{rows} S-curve (steepest near {steep:.3}): \
             pairs of similarity {below:.2} already become candidates with probability {at_below:.3}, so most \
             candidates will be pairs below the threshold (exact verification re-reads and discards them; with \
             --verify signature some are reported); {}",
            suggest()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_alone_is_tuned_within_the_default_signature() {
        let shape = scan_shape(None, None, Some(0.8), (20, 5));
        let expected = scurve::tune(0.8, 100, SCAN_FN_WEIGHT, SCAN_FP_WEIGHT);
        assert_eq!((shape.bands, shape.rows), (expected.bands, expected.rows));
        assert!(shape.bands * shape.rows <= 100);
        assert_eq!(shape.tuned, Some(expected));
    }

    #[test]
    fn given_shapes_are_kept() {
        for (b, r, t) in [
            (Some(7), Some(3), Some(0.8)),
            (Some(7), None, Some(0.8)),
            (None, Some(3), None),
            (None, None, None),
        ] {
            let shape = scan_shape(b, r, t, (20, 5));
            assert_eq!((shape.bands, shape.rows), (b.unwrap_or(20), r.unwrap_or(5)));
            assert_eq!(shape.tuned, None);
        }
        // An invalid threshold is not tuned (scan rejects it next).
        assert_eq!(scan_shape(None, None, Some(1.5), (20, 5)).tuned, None);
    }

    #[test]
    fn warns_only_far_from_the_steep_part() {
        // 20×5: P(0.5) = 0.470, P(0.7) = 0.975 (MMDS), P(0.4) = 0.186, P(0.6) = 0.802.
        assert_eq!(steep_part_warning(20, 5, 0.5), None);
        assert_eq!(
            steep_part_warning(20, 5, 0.7),
            None,
            "P(0.6) = 0.80 is not a flood"
        );
        let low = steep_part_warning(20, 5, 0.4).unwrap();
        assert!(
            low.contains("below the steep part") && low.contains("0.186"),
            "{low}"
        );
        let high = steep_part_warning(20, 5, 0.8).unwrap();
        assert!(
            high.contains("above the steep part") && high.contains("0.975"),
            "{high}"
        );
        let tuned = scurve::tune(0.8, 100, SCAN_FN_WEIGHT, SCAN_FP_WEIGHT);
        let suggestion = format!("suggests {} bands × {} rows", tuned.bands, tuned.rows);
        assert!(high.contains(&suggestion), "{high}");
        assert_ne!(
            (tuned.bands, tuned.rows),
            (20, 5),
            "tune moves away from 20×5"
        );
        // A signature too long to search still gets a warning, without a search.
        let huge = steep_part_warning(1000, 10, 0.2).unwrap();
        assert!(
            huge.contains("below the steep part") && huge.contains("up to 4096 hashes"),
            "{huge}"
        );
    }
}
