//! Scan's banding policy: which bands × rows `simfind scan` uses, and when a
//! threshold given with them deserves a warning.
//!
//! Role: the decisions scan makes on top of [`crate::lsh::scurve`]'s maths.
//! `--threshold` alone gets [`scan_shape`]'s choice: among the shapes within the
//! default signature length that find a pair at `T` with probability at least
//! `--min-recall` (banding and the signature rule-out together, see
//! [`miss_at`]), the one scurve's weighted cost ([`SCAN_FN_WEIGHT`],
//! [`SCAN_FP_WEIGHT`]) prefers. A threshold far from the steep part
//! of a given curve gets [`steep_part_warning`]. `simfind tune` shows the same
//! choice by default, so what it prints is what scan uses.
//!
//! Inputs: bands, rows and a threshold as the user gave them. Outputs: a shape
//! (or [`OutOfReach`]), or a [`SteepPartWarning`] for the caller to word and
//! print. Pure: no I/O, no printing; the texts name parameters, not flags.
//!
//! Invariants: a tuned shape meets `--min-recall` at `T`, rule-out included;
//! it has at most as many hashes as the default shape passed in unless that
//! would take fewer than [`MIN_TUNED_ROWS`] rows per band; no search goes
//! beyond [`MAX_HASHES`] hashes.

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

/// Share of banding's own misses at the threshold that exact verification's
/// signature rule-out may add (`pipeline::pairs`): at most 1 % more pairs at
/// the threshold go unreported than banding alone would lose.
pub const RULE_OUT_SHARE: f64 = 0.01;

/// `--min-recall`'s default: a pair at exactly `T` is missed with probability at
/// most 0.001 ("every pair ≥ T" should mean it: `docs/TUNING.md`, "A recall floor").
pub const DEFAULT_MIN_RECALL: f64 = 0.999;

/// Probability that scan misses a pair of similarity `s` with `bands × rows`
/// and the threshold's rule-out: banding's `(1 − s^r)^b` plus at most
/// [`RULE_OUT_SHARE`] of it (a union bound; the rule-out's share at `s > T` is
/// smaller still). Capped at 1.
pub fn miss_at(s: f64, bands: usize, rows: usize) -> f64 {
    ((1.0 + RULE_OUT_SHARE) * scurve::miss_probability(s, bands, rows)).min(1.0)
}

/// Expected number of pairs of similarity ≥ T that a scan missed, given the
/// similarities of the pairs it found: each pair found at `s` stands for
/// `1 / (1 − miss(s))` pairs there (a Horvitz–Thompson estimate), so
/// `Σ miss(s) / (1 − miss(s))` were likely lost. It says nothing of pairs in a
/// range where none was found, and a found pair whose miss probability is
/// (near) 1 is counted at a 10⁶ cap rather than infinity.
pub fn likely_missed(
    similarities: impl IntoIterator<Item = f64>,
    bands: usize,
    rows: usize,
) -> f64 {
    similarities
        .into_iter()
        .map(|s| {
            let q = miss_at(s, bands, rows).min(1.0 - 1e-6);
            q / (1.0 - q)
        })
        .sum()
}

/// `scan`'s bands and rows, and whether `tune` chose them.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanShape {
    pub bands: usize,
    pub rows: usize,
    /// Set when `--threshold` came without `--bands`/`--rows`.
    pub tuned: Option<Tuning>,
}

/// The weighted choice for `threshold` within `max_hashes` among the shapes
/// that miss a pair at the threshold with probability at most
/// `1 − min_recall`, rule-out included ([`miss_at`]). What `scan -t T` and
/// `simfind tune -t T` use. Requires `0 < threshold ≤ 1`, `max_hashes ≥ 1` and
/// `0 < min_recall < 1`.
pub fn recall_floor_tuning(
    threshold: f64,
    max_hashes: usize,
    min_recall: f64,
) -> Result<Tuning, scurve::Unreachable> {
    let banding_miss = (1.0 - min_recall) / (1.0 + RULE_OUT_SHARE);
    scurve::tune_with_floor(
        threshold,
        max_hashes,
        SCAN_FN_WEIGHT,
        SCAN_FP_WEIGHT,
        banding_miss,
    )
}

/// A recall floor that no banding within the default signature length
/// reaches at the threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct OutOfReach {
    pub min_recall: f64,
    pub threshold: f64,
    /// The signature length searched.
    pub hashes: usize,
    /// The best recall any shape of that length reaches.
    pub best: scurve::Unreachable,
}

impl std::fmt::Display for OutOfReach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "min_recall {} at threshold {} is out of reach within {} hashes ({}, less the \
             signature rule-out's 1 %); lower min_recall, or use the exact method",
            self.min_recall, self.threshold, self.hashes, self.best
        )
    }
}

impl std::error::Error for OutOfReach {}

/// Fewest rows per band scan's tuning settles for. Within 100 hashes the
/// floor forces two-row bands below T ≈ 0.6, which make every pair above ~0.2
/// a candidate: on the shared corpora at T = 0.5, 25 × 2 took 1.6–2× the CPU
/// and 120–144 MB against 33 × 3's 28–64 MB, while 52 × 3 (156 hashes) met the
/// same floor at +12–21 % CPU and 35–78 MB (docs/TUNING.md, "A recall floor").
pub const MIN_TUNED_ROWS: usize = 3;

/// Scan's tuning for `threshold` (`docs/TUNING.md`, "A recall floor"): [`recall_floor_tuning`] within
/// `default_hashes`, or, when that needs fewer than [`MIN_TUNED_ROWS`] rows,
/// within the smallest signature (≤ [`MAX_HASHES`]) where a shape of
/// [`MIN_TUNED_ROWS`] rows meets the floor. An error names the best reachable
/// recall when no shape within `default_hashes` meets it.
pub fn scan_tuning(
    threshold: f64,
    default_hashes: usize,
    min_recall: f64,
) -> Result<Tuning, OutOfReach> {
    let tuning =
        recall_floor_tuning(threshold, default_hashes, min_recall).map_err(|best| OutOfReach {
            min_recall,
            threshold,
            hashes: default_hashes,
            best,
        })?;
    if tuning.rows >= MIN_TUNED_ROWS {
        return Ok(tuning);
    }
    let rows = MIN_TUNED_ROWS;
    let wider = (1..=MAX_HASHES / rows)
        .find(|&bands| miss_at(threshold, bands, rows) <= 1.0 - min_recall)
        .and_then(|bands| recall_floor_tuning(threshold, bands * rows, min_recall).ok())
        .filter(|wider| wider.rows >= MIN_TUNED_ROWS);
    Ok(wider.unwrap_or(tuning))
}

/// `scan`'s shape from what the user gave (issues #3, #21): `--threshold`
/// without `--bands`/`--rows` gets [`scan_tuning`] (within the default
/// signature length `defaults.0 × defaults.1` unless that forces two-row
/// bands); anything else keeps the given values and the defaults for
/// the rest. An invalid threshold is left for the caller to reject; a floor no
/// shape reaches is an error naming the best reachable recall.
pub fn scan_shape(
    bands: Option<usize>,
    rows: Option<usize>,
    threshold: Option<f64>,
    min_recall: f64,
    defaults: (usize, usize),
) -> Result<ScanShape, OutOfReach> {
    match (bands, rows, threshold) {
        (None, None, Some(t)) if t > 0.0 && t <= 1.0 => {
            let tuning = scan_tuning(t, defaults.0 * defaults.1, min_recall)?;
            Ok(ScanShape {
                bands: tuning.bands,
                rows: tuning.rows,
                tuned: Some(tuning),
            })
        }
        _ => Ok(ScanShape {
            bands: bands.unwrap_or(defaults.0),
            rows: rows.unwrap_or(defaults.1),
            tuned: None,
        }),
    }
}

/// For a given banding: the recall a pair at `threshold` can count on
/// (`1 − miss_at`) when it is below `min_recall`, `None` when the banding meets
/// the floor. `scan` uses it under `--method auto` to prefer the exact join
/// where it fits, and to warn where it does not.
pub fn recall_below_floor(
    bands: usize,
    rows: usize,
    threshold: f64,
    min_recall: f64,
) -> Option<f64> {
    if bands == 0 || rows == 0 || !(threshold > 0.0 && threshold <= 1.0) {
        return None;
    }
    let recall = 1.0 - miss_at(threshold, bands, rows);
    (recall < min_recall).then_some(recall)
}

/// Recall at `T` below which scan warns that most pairs near `T` will be missed.
const LOW_RECALL: f64 = 0.25;
/// Candidate probability at `T − 0.1` above which scan warns that pairs well below
/// `T` will flood verification.
const HIGH_FALSE_CANDIDATES: f64 = 0.9;

/// Which side of a curve's steep part a threshold lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `P(T)` is low: most pairs near `T` are missed.
    Below,
    /// `P(T − 0.1)` is high: most candidates are pairs below `T`.
    Above,
}

/// What `tune` would choose instead, for the same threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Suggestion {
    /// Scan's own choice for the threshold alone ([`scan_tuning`]).
    ScansChoice { bands: usize, rows: usize },
    /// The signature is too long to search: shapes up to [`MAX_HASHES`].
    UpToMaxHashes,
    /// The weighted choice ([`SCAN_FN_WEIGHT`]) within the same signature
    /// length.
    SameLength {
        hashes: usize,
        bands: usize,
        rows: usize,
    },
}

/// A given threshold far from the steep part of the given curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteepPartWarning {
    pub side: Side,
    pub threshold: f64,
    pub bands: usize,
    pub rows: usize,
    /// Where the curve is steepest.
    pub steep: f64,
    /// The similarity looked at: `T` below the steep part, `T − 0.1` above.
    pub at: f64,
    /// Its candidate probability.
    pub probability: f64,
    pub suggestion: Suggestion,
}

impl std::fmt::Display for Suggestion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Suggestion::ScansChoice { bands, rows } => write!(
                f,
                "tuning suggests {bands} bands × {rows} rows (or give the threshold alone \
                 and scan will use it)"
            ),
            Suggestion::UpToMaxHashes => {
                write!(f, "tuning suggests shapes of up to {MAX_HASHES} hashes")
            }
            Suggestion::SameLength {
                hashes,
                bands,
                rows,
            } => write!(
                f,
                "tuning within {hashes} hashes at fn_weight {SCAN_FN_WEIGHT} suggests \
                 {bands} bands × {rows} rows"
            ),
        }
    }
}

impl std::fmt::Display for SteepPartWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let SteepPartWarning {
            threshold,
            bands,
            rows,
            steep,
            at,
            probability,
            ..
        } = *self;
        match self.side {
            Side::Below => write!(
                f,
                "threshold {threshold} lies below the steep part of the {bands}×{rows} S-curve \
                 (steepest near {steep:.3}): a pair of similarity {threshold} becomes a candidate \
                 with probability only {probability:.3}, so most pairs near the threshold will be \
                 missed; {}",
                self.suggestion
            ),
            Side::Above => write!(
                f,
                "threshold {threshold} lies above the steep part of the {bands}×{rows} S-curve \
                 (steepest near {steep:.3}): pairs of similarity {at:.2} already become candidates \
                 with probability {probability:.3}, so most candidates will be pairs below the \
                 threshold (exact verification re-reads and discards them; verification by \
                 signature reports some); {}",
                self.suggestion
            ),
        }
    }
}

/// A warning when a given threshold lies far from the steep part of the given
/// curve: below it (`P(T) < 0.25`: most pairs near `T` are missed) or above it
/// (`P(T − 0.1) > 0.9`: pairs 0.1 below `T` nearly all become candidates, so most
/// candidates are verified only to be discarded). Suggests tune's choice for the
/// same signature length.
pub fn steep_part_warning(bands: usize, rows: usize, threshold: f64) -> Option<SteepPartWarning> {
    if bands == 0 || rows == 0 || !(threshold > 0.0 && threshold <= 1.0) {
        return None;
    }
    // Asked at most once: both the check and the suggestion below need it,
    // and each search over every shape delays the scan's start.
    let choice = std::cell::OnceCell::new();
    let scans_choice = || {
        choice
            .get_or_init(|| {
                scan_tuning(threshold, DEFAULT_BANDS * DEFAULT_ROWS, DEFAULT_MIN_RECALL).ok()
            })
            .clone()
    };
    let suggest = || {
        if let Some(t) = scans_choice() {
            return Suggestion::ScansChoice {
                bands: t.bands,
                rows: t.rows,
            };
        }
        // Searching every shape of a huge signature would delay the scan itself.
        let hashes = bands * rows;
        if hashes > MAX_HASHES {
            return Suggestion::UpToMaxHashes;
        }
        let t = scurve::tune(threshold, hashes, SCAN_FN_WEIGHT, SCAN_FP_WEIGHT);
        Suggestion::SameLength {
            hashes,
            bands: t.bands,
            rows: t.rows,
        }
    };
    let steep = scurve::threshold(bands, rows);
    let warning = |side, at, probability| SteepPartWarning {
        side,
        threshold,
        bands,
        rows,
        steep,
        at,
        probability,
        suggestion: suggest(),
    };
    let at_t = scurve::candidate_probability(threshold, bands, rows);
    if at_t < LOW_RECALL {
        return Some(warning(Side::Below, threshold, at_t));
    }
    let below = threshold - 0.1;
    let at_below = scurve::candidate_probability(below, bands, rows);
    // Scan's own recall-floor choice is not worth a warning: its false
    // candidates are the price of the floor.
    let is_scans_choice = || scans_choice().is_some_and(|t| (t.bands, t.rows) == (bands, rows));
    if below > 0.0 && at_below > HIGH_FALSE_CANDIDATES && !is_scans_choice() {
        return Some(warning(Side::Above, below, at_below));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_alone_is_tuned_within_the_default_signature() {
        let shape = scan_shape(None, None, Some(0.8), DEFAULT_MIN_RECALL, (20, 5)).unwrap();
        let expected = recall_floor_tuning(0.8, 100, DEFAULT_MIN_RECALL).unwrap();
        assert_eq!(scan_tuning(0.8, 100, DEFAULT_MIN_RECALL).unwrap(), expected);
        assert_eq!((shape.bands, shape.rows), (expected.bands, expected.rows));
        assert!(shape.bands * shape.rows <= 100);
        assert_eq!(shape.tuned, Some(expected));
    }

    #[test]
    fn tuned_shapes_meet_the_recall_floor_rule_out_included() {
        // Issue #21: before, 14 × 7 at 0.8 missed a pair at 0.8 with probability 0.037.
        for t in [0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0] {
            for floor in [0.9, 0.99, DEFAULT_MIN_RECALL] {
                let shape = scan_shape(None, None, Some(t), floor, (20, 5)).unwrap();
                let miss = miss_at(t, shape.bands, shape.rows);
                assert!(
                    miss <= 1.0 - floor + 1e-15,
                    "t={t} floor={floor}: {shape:?} misses {miss}"
                );
                assert_eq!(recall_below_floor(shape.bands, shape.rows, t, floor), None);
                assert!(shape.bands * shape.rows <= 100 || shape.rows >= MIN_TUNED_ROWS);
            }
        }
        // At 0.5 the floor takes 2 rows within 100 hashes (25 × 2); scan widens
        // the signature to the first 3-row shape that meets it instead: 52 × 3,
        // since (1 − 0.125)^51 = 1.1e-3 > 0.999e-3 / 1.01 ≥ 0.875^52 = 9.6e-4.
        assert_eq!(
            recall_floor_tuning(0.5, 100, DEFAULT_MIN_RECALL)
                .unwrap()
                .rows,
            2
        );
        let wide = scan_shape(None, None, Some(0.5), DEFAULT_MIN_RECALL, (20, 5)).unwrap();
        assert_eq!((wide.bands, wide.rows), (52, 3));
        // Out of reach: 100 one-row bands miss a pair at 0.05 with 0.95^100 = 0.006.
        let err = scan_shape(None, None, Some(0.05), DEFAULT_MIN_RECALL, (20, 5)).unwrap_err();
        assert_eq!(err.hashes, 100);
        assert!(
            err.to_string().contains("out of reach within 100 hashes"),
            "{err}"
        );
    }

    #[test]
    fn low_recall_bandings_are_reported_with_their_recall() {
        // 20 × 5 at 0.5: P = 0.470, so recall ≥ 1 − 1.01 × 0.530 = 0.4647.
        let recall = recall_below_floor(20, 5, 0.5, DEFAULT_MIN_RECALL).unwrap();
        assert!((recall - (1.0 - 1.01 * 0.5298)).abs() < 1e-3, "{recall}");
        // 20 × 5 at 0.8 misses 3.6e-4 × 1.01: within the floor.
        assert_eq!(recall_below_floor(20, 5, 0.8, DEFAULT_MIN_RECALL), None);
    }

    #[test]
    fn likely_missed_weighs_each_found_pair_by_its_miss_odds() {
        // 20 × 5: a pair found at 0.5 had P = 0.4702, so it stands for 1/P pairs.
        let q = miss_at(0.5, 20, 5);
        let one = likely_missed([0.5], 20, 5);
        assert!((one - q / (1.0 - q)).abs() < 1e-12);
        assert!(likely_missed([1.0, 1.0], 20, 5) == 0.0);
        assert!(likely_missed([0.5, 0.9], 20, 5) > one);
        assert_eq!(likely_missed(std::iter::empty(), 20, 5), 0.0);
    }

    #[test]
    fn given_shapes_are_kept() {
        for (b, r, t) in [
            (Some(7), Some(3), Some(0.8)),
            (Some(7), None, Some(0.8)),
            (None, Some(3), None),
            (None, None, None),
        ] {
            let shape = scan_shape(b, r, t, DEFAULT_MIN_RECALL, (20, 5)).unwrap();
            assert_eq!((shape.bands, shape.rows), (b.unwrap_or(20), r.unwrap_or(5)));
            assert_eq!(shape.tuned, None);
        }
        // An invalid threshold is not tuned (scan rejects it next).
        assert_eq!(
            scan_shape(None, None, Some(1.5), DEFAULT_MIN_RECALL, (20, 5))
                .unwrap()
                .tuned,
            None
        );
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
        let low = steep_part_warning(20, 5, 0.4).unwrap().to_string();
        assert!(
            low.contains("below the steep part") && low.contains("0.186"),
            "{low}"
        );
        let high = steep_part_warning(20, 5, 0.8).unwrap().to_string();
        assert!(
            high.contains("above the steep part") && high.contains("0.975"),
            "{high}"
        );
        let tuned = scan_tuning(0.8, 100, DEFAULT_MIN_RECALL).unwrap();
        let suggestion = format!("suggests {} bands × {} rows", tuned.bands, tuned.rows);
        assert!(high.contains(&suggestion), "{high}");
        assert_ne!(
            (tuned.bands, tuned.rows),
            (20, 5),
            "tune moves away from 20×5"
        );
        // Scan's own recall-floor choice (18 × 5 at 0.8, P(0.7) = 0.964) is not
        // warned about: its false candidates are the floor's price.
        assert_eq!((tuned.bands, tuned.rows), (18, 5));
        assert_eq!(steep_part_warning(18, 5, 0.8), None);
        // A huge signature gets scan's choice too, found without searching it.
        let huge = steep_part_warning(1000, 10, 0.2).unwrap().to_string();
        let wide = scan_tuning(0.2, 100, DEFAULT_MIN_RECALL).unwrap();
        assert!(
            huge.contains("below the steep part")
                && huge.contains(&format!(
                    "suggests {} bands × {} rows",
                    wide.bands, wide.rows
                )),
            "{huge}"
        );
    }
}
