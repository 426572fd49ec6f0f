//! `simfind tune`: choose bands and rows for a similarity threshold.

use std::io::Write;

use anyhow::bail;
use simfind::lsh::scurve::{self, Tuning};

use super::values;
use crate::app::exit;

/// MinHash values per document that `tune` may spend when --hashes is not given:
/// scan's default signature length, so that `simfind tune --threshold T` shows
/// exactly what `simfind scan --threshold T` will use.
pub const DEFAULT_HASHES: usize = super::scan::DEFAULT_BANDS * super::scan::DEFAULT_ROWS;

const AFTER_HELP: &str = "EXAMPLES:
  simfind tune --threshold 0.8
  simfind tune --threshold 0.5 --hashes 200 --fn-weight 4
  simfind tune --threshold 0.7 --min-recall 0.95 --format csv

EXIT STATUS:
  0    success
  2    usage error (nothing printed on stdout)";

/// Choose bands and rows (b·r ≤ --hashes) for pairs of Jaccard similarity ≥ T.
///
/// By default the choice minimises fn-weight × (false-negative area) + fp-weight ×
/// (false-positive area): the areas between the S-curve P(s) = 1 - (1 - s^r)^b
/// and the ideal step at T, ∫_T^1 (1 - P) (pairs above T that are missed) and
/// ∫_0^T P (pairs below T that become candidates and cost a verification), by
/// numerical integration. Raise --fn-weight to miss fewer pairs, --fp-weight to
/// verify fewer candidates. The defaults are the ones `simfind scan --threshold T`
/// uses when it picks bands and rows itself: its 100-hash signature, and misses
/// weighted above false candidates because scan verifies every candidate exactly.
///
/// With --min-recall R, the choice is instead the shape whose P(T) is at least R
/// with the fewest false candidates (smallest false-positive area; fewer hashes
/// break ties).
///
/// Prints the choice, the expected recall at T, T+0.05 and T+0.1, and the
/// probability that pairs at T-0.1 and T-0.2 become candidates.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Target Jaccard similarity T, in (0, 1].
    #[arg(long, short = 't', value_name = "T", value_parser = values::unit_open_closed)]
    pub threshold: f64,
    /// At most this many MinHash values per document (b·r ≤ N).
    #[arg(long, short = 'n', value_name = "N", default_value_t = DEFAULT_HASHES, value_parser = values::count)]
    pub hashes: usize,
    /// Weight of the false-negative area (missed pairs), ≥ 0; the default is scan's.
    #[arg(long, value_name = "W", default_value_t = SCAN_FN_WEIGHT, value_parser = values::weight, allow_negative_numbers = true, conflicts_with = "min_recall")]
    pub fn_weight: f64,
    /// Weight of the false-positive area (false candidates), ≥ 0.
    #[arg(long, value_name = "W", default_value_t = SCAN_FP_WEIGHT, value_parser = values::weight, allow_negative_numbers = true, conflicts_with = "min_recall")]
    pub fp_weight: f64,
    /// Instead of weighing the areas, require P(T) ≥ R, R in (0, 1].
    #[arg(long, value_name = "R", value_parser = values::unit_open_closed)]
    pub min_recall: Option<f64>,
    /// Output format: `text` or `csv` (one header line, one row).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Csv,
}

/// Largest --hashes accepted: trying every shape costs O(N log N) integrals,
/// about a second at this size.
pub const MAX_HASHES: usize = 4096;

pub fn run(args: Args) -> anyhow::Result<i32> {
    if args.hashes > MAX_HASHES {
        bail!(
            "--hashes {} is more than {MAX_HASHES}: trying every shape would take too long",
            args.hashes
        );
    }
    let tuning = match args.min_recall {
        Some(r) => scurve::tune_min_recall(args.threshold, args.hashes, r).map_err(|e| {
            anyhow::anyhow!(
                "no b·r ≤ {} reaches P({}) ≥ {r}: {e}; raise --hashes or lower --min-recall",
                args.hashes,
                args.threshold
            )
        })?,
        None => {
            if args.fn_weight == 0.0 && args.fp_weight == 0.0 {
                bail!("--fn-weight and --fp-weight are both 0: at least one must be positive");
            }
            scurve::tune(args.threshold, args.hashes, args.fn_weight, args.fp_weight)
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.format {
        Format::Text => write_text(&mut out, &tuning, &args)?,
        Format::Csv => write_csv(&mut out, &tuning)?,
    }
    out.flush()?;
    Ok(exit::OK)
}

/// `T`, `T + 0.05`, `T - 0.1` … as a label relative to the target.
fn offset_label(similarity: f64, target: f64) -> String {
    let d = similarity - target;
    if d.abs() < 1e-9 {
        "T".into()
    } else if d > 0.0 {
        format!("T+{:.2}", d)
    } else {
        format!("T-{:.2}", -d)
    }
}

fn write_text(out: &mut impl Write, t: &Tuning, args: &Args) -> anyhow::Result<()> {
    writeln!(
        out,
        "bands {}  rows {}  ({} of {} hashes)",
        t.bands,
        t.rows,
        t.hashes(),
        args.hashes
    )?;
    writeln!(out, "target threshold T          {:.4}", t.target)?;
    writeln!(
        out,
        "curve threshold (1/b)^(1/r) {:.4}",
        t.curve_threshold()
    )?;
    match args.min_recall {
        Some(r) => writeln!(
            out,
            "chosen for                  P(T) >= {r}, fewest false candidates"
        )?,
        None => writeln!(
            out,
            "chosen for                  min {} x FN area + {} x FP area = {:.6}",
            args.fn_weight,
            args.fp_weight,
            t.cost(args.fn_weight, args.fp_weight)
        )?,
    }
    writeln!(out, "false-negative area         {:.6}", t.fn_area)?;
    writeln!(out, "false-positive area         {:.6}", t.fp_area)?;
    writeln!(
        out,
        "expected recall (probability a pair becomes a candidate):"
    )?;
    for p in &t.recall {
        let label = format!(
            "{} = {:.2}",
            offset_label(p.similarity, t.target),
            p.similarity
        );
        writeln!(out, "  at {label:<14} {:.4}", p.probability)?;
    }
    writeln!(
        out,
        "false candidates (probability a pair below T becomes a candidate):"
    )?;
    for p in &t.false_candidates {
        let label = format!(
            "{} = {:.2}",
            offset_label(p.similarity, t.target),
            p.similarity
        );
        writeln!(out, "  at {label:<14} {:.4}", p.probability)?;
    }
    Ok(())
}

fn write_csv(out: &mut impl Write, t: &Tuning) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "bands",
        "rows",
        "hashes",
        "threshold",
        "curve_threshold",
        "fn_area",
        "fp_area",
        "p_t",
        "p_t_plus_0.05",
        "p_t_plus_0.1",
        "p_t_minus_0.1",
        "p_t_minus_0.2",
    ])?;
    // Points outside [0, 1] are left empty so the schema stays fixed.
    let prob = |points: &[scurve::AtSimilarity], i: usize| {
        points
            .get(i)
            .map_or(String::new(), |p| format!("{:.6}", p.probability))
    };
    w.write_record([
        t.bands.to_string(),
        t.rows.to_string(),
        t.hashes().to_string(),
        format!("{:.4}", t.target),
        format!("{:.6}", t.curve_threshold()),
        format!("{:.8}", t.fn_area),
        format!("{:.8}", t.fp_area),
        prob(&t.recall, 0),
        prob(&t.recall, 1),
        prob(&t.recall, 2),
        prob(&t.false_candidates, 0),
        prob(&t.false_candidates, 1),
    ])?;
    w.flush()?;
    Ok(())
}

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
