//! `simfind tune`: choose bands and rows for a similarity threshold.

use std::io::Write;

use anyhow::bail;
use simfind::lsh::family::{self, Metric};
use simfind::lsh::scurve::{self, Tuning};
use simfind::lsh::tune::{self, DEFAULT_MIN_RECALL, MAX_HASHES, SCAN_FN_WEIGHT, SCAN_FP_WEIGHT};

use crate::app::args::{self, DEFAULT_BANDS, DEFAULT_ROWS, TextOrCsv};
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::ui::Verbosity;
use simfind::spec::FAMILY_HASHES;

/// MinHash values per document that `tune` may spend when --hashes is not given:
/// scan's default signature length, so that `simfind tune --threshold T` shows
/// exactly what `simfind scan --threshold T` will use.
pub const DEFAULT_HASHES: usize = DEFAULT_BANDS * DEFAULT_ROWS;

const AFTER_HELP: &str = "EXAMPLES:
  simfind tune --threshold 0.8
  simfind tune --threshold 0.5 --hashes 200 --fn-weight 4
  simfind tune --threshold 0.7 --min-recall 0.95 --format csv
  simfind tune --metric cosine --angle 30
  simfind tune --metric euclidean --radius 0.5 --bucket-width 2
  simfind tune --metric hamming --radius 6 --bits 128

";

/// Choose bands and rows (b·r ≤ --hashes) for pairs of Jaccard similarity ≥ T.
///
/// The choice minimises fn-weight × (false-negative area) + fp-weight ×
/// (false-positive area): the areas between the S-curve P(s) = 1 - (1 - s^r)^b
/// and the ideal step at T, ∫_T^1 (1 - P) (pairs above T that are missed) and
/// ∫_0^T P (pairs below T that become candidates and cost a verification), by
/// numerical integration. Raise --fn-weight to miss fewer pairs, --fp-weight to
/// verify fewer candidates.
///
/// Without --fn-weight, --fp-weight and --min-recall it shows exactly what
/// `simfind scan --threshold T` uses: its 100-hash signature, misses weighted 64
/// times false candidates, and only shapes that find a pair at T with
/// probability ≥ 0.999 counting the 1 % that exact verification's signature
/// rule-out may add (scan's --min-recall default). Giving a weight drops that
/// floor.
///
/// With --min-recall R, the choice is instead the shape whose P(T) is at least R
/// with the fewest false candidates (smallest false-positive area; fewer hashes
/// break ties).
///
/// Prints the choice, the expected recall at T, T+0.05 and T+0.1, and the
/// probability that pairs at T-0.1 and T-0.2 become candidates.
///
/// With --metric cosine (-t a cosine, or --angle), euclidean (--radius, --bucket-width)
/// or hamming (--radius, --bits), the choice is for that family (docs/FAMILIES.md):
/// the cheapest b·r ≤ --hashes [default: 200, scan's for families] finding a pair
/// at the threshold with probability ≥ --min-recall [default: 0.999, scan's].
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_USAGE_ONLY))]
#[command(
    mut_args(defs::one("threshold", defs::threshold(defs::Threshold::Tune))),
    mut_args(defs::one("min_recall", defs::min_recall(defs::MinRecall::Tune))),
    mut_args(defs::one("metric", defs::metric(defs::Family::Tune))),
    mut_args(defs::one("angle", defs::angle(defs::FamilyQuery::Tune))),
    mut_args(defs::one("radius", defs::radius(defs::FamilyQuery::Tune))),
    mut_args(defs::one("bucket_width", defs::bucket_width(defs::FamilyQuery::Tune))),
    mut_args(defs::one("bits", defs::bits()))
)]
pub struct Args {
    // -t, --min-recall and the family flags: their functions in flags::defs.
    #[arg(long)]
    pub threshold: Option<f64>,
    /// At most this many MinHash values per document (b·r ≤ N) [default: 100, scan's; scan's
    /// choice may take more when 100 would force two-row bands].
    #[arg(long, short = 'n', value_name = "N", value_parser = args::count)]
    pub hashes: Option<usize>,
    /// Weight of the false-negative area (missed pairs), ≥ 0 [default: 64, scan's]. Given,
    /// the choice is the weighted one without scan's recall floor.
    #[arg(long, value_name = "W", value_parser = args::weight, allow_negative_numbers = true, conflicts_with = "min_recall")]
    pub fn_weight: Option<f64>,
    /// Weight of the false-positive area (false candidates), ≥ 0 [default: 1].
    #[arg(long, value_name = "W", value_parser = args::weight, allow_negative_numbers = true, conflicts_with = "min_recall")]
    pub fp_weight: Option<f64>,
    #[arg(long)]
    pub min_recall: Option<f64>,
    #[arg(long, value_enum, help_heading = "Families")]
    pub metric: Option<args::MetricArg>,
    #[arg(long, conflicts_with = "threshold", help_heading = "Families")]
    pub angle: Option<f64>,
    #[arg(long, help_heading = "Families")]
    pub radius: Option<f64>,
    #[arg(long, help_heading = "Families")]
    pub bucket_width: Option<f64>,
    #[arg(long, default_value_t = 64, help_heading = "Families")]
    pub bits: usize,
    /// Output format: `text` or `csv` (one header line, one row).
    #[arg(long, value_enum, default_value_t = TextOrCsv::Text)]
    pub format: TextOrCsv,

    // Accepted for the same command line as every subcommand; tune prints no
    // summary or notes on stderr.
    #[command(flatten)]
    pub verbosity: Verbosity,

    // The S-curve areas of every shape are integrated on the threads.
    #[command(flatten)]
    pub threads: args::ThreadArgs,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    if args.metric == Some(args::MetricArg::Containment) {
        bail!("{}", crate::app::speak::CONTAINMENT_BANDS_NOTHING);
    }
    if args.metric.is_some_and(|m| m != args::MetricArg::Jaccard) {
        return run_family(&args);
    }
    let Some(threshold) = args.threshold else {
        bail!("give --threshold T (a Jaccard similarity)");
    };
    let hashes = args.hashes.unwrap_or(DEFAULT_HASHES);
    if hashes > MAX_HASHES {
        bail!(
            "--hashes {} is more than {MAX_HASHES}: trying every shape would take too long",
            hashes
        );
    }
    let tuning = match args.min_recall {
        Some(r) => scurve::tune_min_recall(threshold, hashes, r).map_err(|e| {
            anyhow::anyhow!(
                "no b·r ≤ {} reaches P({}) ≥ {r}: {e}; raise --hashes or lower --min-recall",
                hashes,
                threshold
            )
        })?,
        // Exactly scan's choice when --hashes is not given either.
        None if args.fn_weight.is_none() && args.fp_weight.is_none() && args.hashes.is_none() => {
            tune::scan_tuning(threshold, hashes, DEFAULT_MIN_RECALL)
                .map_err(|e| anyhow::anyhow!(crate::app::lower::out_of_reach(&e)))?
        }
        None if args.fn_weight.is_none() && args.fp_weight.is_none() => {
            tune::recall_floor_tuning(threshold, hashes, DEFAULT_MIN_RECALL).map_err(
                |e| {
                    anyhow::anyhow!(
                        "no b·r ≤ {} finds a pair at {} with probability ≥ {DEFAULT_MIN_RECALL} (scan's floor): {e}; raise --hashes, or give --min-recall or a weight",
                        hashes,
                        threshold
                    )
                },
            )?
        }
        None => {
            let (fn_weight, fp_weight) = weights(&args);
            if fn_weight == 0.0 && fp_weight == 0.0 {
                bail!("--fn-weight and --fp-weight are both 0: at least one must be positive");
            }
            scurve::tune(threshold, hashes, fn_weight, fp_weight)
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.format {
        TextOrCsv::Text => write_text(&mut out, &tuning, &args)?,
        TextOrCsv::Csv => write_csv(&mut out, &tuning)?,
    }
    out.flush()?;
    Ok(exit::OK)
}

/// The weights given, scan's for those not given.
fn weights(args: &Args) -> (f64, f64) {
    (
        args.fn_weight.unwrap_or(SCAN_FN_WEIGHT),
        args.fp_weight.unwrap_or(SCAN_FP_WEIGHT),
    )
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
        args.hashes.unwrap_or(DEFAULT_HASHES).max(t.hashes())
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
        None => {
            let (fn_weight, fp_weight) = weights(args);
            if args.fn_weight.is_none() && args.fp_weight.is_none() {
                writeln!(
                    out,
                    "recall floor                P(T) >= {DEFAULT_MIN_RECALL} counting the signature rule-out (scan's --min-recall)"
                )?;
            }
            writeln!(
                out,
                "chosen for                  min {} x FN area + {} x FP area = {:.6}",
                fn_weight,
                fp_weight,
                t.cost(fn_weight, fp_weight)
            )?
        }
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

/// `tune --metric cosine|euclidean|hamming`: b and r for a family.
fn run_family(args: &Args) -> anyhow::Result<i32> {
    use args::MetricArg;
    let (metric, distance, what) = match args.metric {
        Some(MetricArg::Containment) => bail!("{}", crate::app::speak::CONTAINMENT_BANDS_NOTHING),
        Some(MetricArg::Cosine) => {
            if args.radius.is_some() || args.bucket_width.is_some() {
                bail!(
                    "--radius and --bucket-width are for euclidean and hamming; cosine takes -t or --angle"
                );
            }
            let degrees = match (args.threshold, args.angle) {
                (Some(t), None) => t.acos().to_degrees(),
                (None, Some(d)) if (0.0..180.0).contains(&d) => d,
                (None, Some(d)) => bail!("--angle {d}: an angle in [0, 180) degrees"),
                _ => bail!("--metric cosine needs -t T (a cosine) or --angle DEG"),
            };
            (
                Metric::Cosine,
                degrees,
                format!(
                    "angle {degrees:.4} degrees (cosine {:.4})",
                    degrees.to_radians().cos()
                ),
            )
        }
        Some(MetricArg::Euclidean) => {
            let radius = match args.radius {
                Some(r) if r > 0.0 && r.is_finite() => r,
                Some(r) => bail!("--radius {r}: a distance > 0"),
                None => bail!("--metric euclidean needs --radius R"),
            };
            let width = match args.bucket_width {
                None => 2.0 * radius,
                Some(a) if a > 0.0 && a.is_finite() => a,
                Some(a) => bail!("--bucket-width {a}: a width > 0"),
            };
            (
                Metric::Euclidean,
                radius / width,
                format!(
                    "L2 distance {radius} with buckets of width {width} ({:.4} a)",
                    radius / width
                ),
            )
        }
        Some(MetricArg::Hamming) => {
            let radius = match args.radius {
                Some(r) if r >= 0.0 && r.fract() == 0.0 && r < args.bits as f64 => r,
                Some(r) => bail!(
                    "--radius {r}: a whole number of bits below --bits {}",
                    args.bits
                ),
                None => bail!("--metric hamming needs --radius K (bits)"),
            };
            (
                Metric::Hamming { bits: args.bits },
                radius,
                format!("{radius} of {} bits", args.bits),
            )
        }
        _ => unreachable!("run_family is for the vector families"),
    };
    let hashes = args.hashes.unwrap_or(FAMILY_HASHES);
    if hashes > MAX_HASHES {
        bail!(
            "--hashes {hashes} is more than {MAX_HASHES}: trying every shape would take too long"
        );
    }
    let min_recall = args.min_recall.unwrap_or(DEFAULT_MIN_RECALL);
    let t = family::tune(metric, distance, hashes, min_recall).map_err(|e| {
        anyhow::anyhow!("no b·r ≤ {hashes} finds a pair at the threshold with probability ≥ {min_recall}: {e}; raise --hashes or lower --min-recall")
    })?;
    let stages = scurve::banded(t.bands, t.rows);
    let p = metric.collision_probability(distance);
    let farther: Vec<(f64, f64)> = [1.5, 2.0]
        .iter()
        .map(|k| (distance * k).min(metric.max_distance()))
        .map(|d| (d, metric.probability(d, &stages)))
        .collect();
    let at_threshold = metric.probability(distance, &stages);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.format {
        TextOrCsv::Text => {
            writeln!(
                out,
                "bands {}  rows {}  ({} of {hashes} functions)",
                t.bands,
                t.rows,
                t.hashes()
            )?;
            writeln!(
                out,
                "metric                      {} ({})",
                metric.name(),
                metric.unit()
            )?;
            writeln!(out, "threshold                   {what}")?;
            writeln!(
                out,
                "one function agrees         p = {p:.6} at the threshold"
            )?;
            writeln!(
                out,
                "chosen for                  P(threshold) >= {min_recall}, fewest false candidates"
            )?;
            writeln!(
                out,
                "expected recall at the threshold      {at_threshold:.4}"
            )?;
            writeln!(
                out,
                "false candidates (probability a pair farther away becomes a candidate):"
            )?;
            for ((d, prob), k) in farther.iter().zip(["1.5", "2"]) {
                writeln!(out, "  at {k} x the threshold = {d:.4}  {prob:.4}")?;
            }
        }
        TextOrCsv::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            w.write_record([
                "metric",
                "distance",
                "p",
                "bands",
                "rows",
                "functions",
                "p_threshold",
                "p_1.5x",
                "p_2x",
            ])?;
            w.write_record([
                metric.name().to_string(),
                format!("{distance:.6}"),
                format!("{p:.6}"),
                t.bands.to_string(),
                t.rows.to_string(),
                t.hashes().to_string(),
                format!("{at_threshold:.6}"),
                format!("{:.6}", farther[0].1),
                format!("{:.6}", farther[1].1),
            ])?;
            w.flush()?;
        }
    }
    out.flush()?;
    Ok(exit::OK)
}
