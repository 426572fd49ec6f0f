//! `simfind curve`: print, plot and compare LSH S-curves and AND/OR cascades.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Arg, ArgAction, ArgMatches};
use simfind::explain::plot::{self, Labels, Series};
use simfind::lsh::family::Metric;
use simfind::lsh::scurve::{self, Stage};
use simfind::measure::Measure;

use crate::app::args::{self, TextOrCsv};
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::output::Sink;
use crate::app::ui::Verbosity;

const AFTER_HELP: &str = "EXAMPLES:
  simfind curve --bands 20 --rows 5
  simfind curve --bands 20 --rows 5 --bands 10 --rows 10 --svg compare.svg
  simfind curve --or 4 --and 4 --and 4 --or 4 --d1 0.2 --d2 0.8
  simfind curve --bands 16 --rows 8 --format csv --step 0.01 > curve.csv
  simfind curve --metric cosine -b 1 -r 1 --d1 45 --d2 135       one hyperplane
  simfind curve --metric euclidean -b 1 -r 1 --d1 0.5 --d2 2      one bucket width a
  simfind curve --metric hamming --bits 64 -b 4 -r 16             SimHash's 4 bands

";

/// Print, plot and compare LSH S-curves: P(candidate pair) against similarity.
///
/// With b bands of r rows, two documents of Jaccard similarity s become a
/// candidate pair with probability P(s) = 1 - (1 - s^r)^b. The table and the
/// text plot go to stdout. Each --bands/--rows pair (given in the same order) is one curve; its threshold
/// (1/b)^(1/r) is marked, and the exact similarity where P = 1/2 and where the curve is steepest
/// (with its slope) are printed beside it: (1/b)^(1/r) only approximates both. A sequence of --and/--or
/// options adds one amplification cascade (MMDS 3.6.3), applied in the order
/// given: `--and 5 --or 20` is the same curve as `--bands 20 --rows 5`. With
/// --d1/--d2, the (d1, d2, p1, p2)-sensitivity of each curve is printed for
/// MinHash under Jaccard distance (one MinHash function is (d1, d2, 1-d1,
/// 1-d2)-sensitive).
///
/// With --metric cosine, euclidean or hamming the curve is the family's against its
/// own distance (docs/FAMILIES.md): the angle in degrees (one random hyperplane
/// agrees with probability 1 - θ/180), the L2 distance in bucket widths a (one
/// projection: Datar et al.'s formula), or the Hamming distance in bits of --bits-long
/// strings (one sampled bit: 1 - h/bits); --d1/--d2 are in that unit.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, args::EXIT_STATUS_USAGE_ONLY))]
#[command(
    mut_args(defs::one("bands", defs::bands(defs::Shape::Curve))),
    mut_args(defs::one("rows", defs::rows(defs::Shape::Curve))),
    mut_args(defs::one("metric", defs::metric(defs::Family::Curve))),
    mut_args(defs::one("bits", defs::bits()))
)]
pub struct Args {
    // -b, -r, --metric, --bits: their functions in flags::defs.
    #[arg(long, action = ArgAction::Append)]
    pub bands: Vec<usize>,
    #[arg(long, action = ArgAction::Append)]
    pub rows: Vec<usize>,
    #[command(flatten)]
    pub stages: Stages,
    /// Jaccard distance d1 < d2 at which to report p1 (needs --d2); with --metric, in the
    /// family's unit.
    #[arg(long, value_name = "D", value_parser = distance, requires = "d2")]
    pub d1: Option<(f64, String)>,
    /// Jaccard distance d2 > d1 at which to report p2 (needs --d1); with --metric, in the
    /// family's unit.
    #[arg(long, value_name = "D", value_parser = distance, requires = "d1")]
    pub d2: Option<(f64, String)>,
    #[arg(long, value_enum, help_heading = "Families")]
    pub metric: Option<args::MetricArg>,
    #[arg(long, default_value_t = 64, help_heading = "Families")]
    pub bits: usize,
    /// Similarity step of the table, in (0, 1].
    #[arg(long, value_name = "STEP", default_value = "0.05", value_parser = args::unit_open_closed)]
    pub step: f64,
    /// Decimal places of the probabilities (0–15).
    #[arg(long, value_name = "DIGITS", default_value_t = 4, value_parser = clap::value_parser!(u8).range(0..=15))]
    pub precision: u8,
    /// Output format: `text` (table and plot) or `csv` (columns curve,similarity,probability).
    #[arg(long, value_enum, default_value_t = TextOrCsv::Text)]
    pub format: TextOrCsv,
    /// Also write the curves as an SVG picture to FILE (atomically: complete or not
    /// at all); `-` writes only the SVG, to stdout.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    #[command(flatten)]
    pub verbosity: Verbosity,
}

/// The `--and N` / `--or N` options in command-line order. Derive cannot keep the
/// interleaving of two repeated options, so this reads their positions from clap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stages(pub Vec<Stage>);

impl clap::FromArgMatches for Stages {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut placed: Vec<(usize, Stage)> = Vec::new();
        for (id, make) in [("and", Stage::And as fn(usize) -> Stage), ("or", Stage::Or)] {
            if let (Some(values), Some(indices)) =
                (matches.get_many::<usize>(id), matches.indices_of(id))
            {
                placed.extend(indices.zip(values).map(|(i, n)| (i, make(*n))));
            }
        }
        placed.sort_by_key(|(i, _)| *i);
        Ok(Stages(placed.into_iter().map(|(_, s)| s).collect()))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for Stages {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(
            Arg::new("and")
                .long("and")
                .value_name("N")
                .value_parser(args::count)
                .action(ArgAction::Append)
                .help("Cascade stage: N functions must all agree, p -> p^N (a band of N rows)"),
        )
        .arg(
            Arg::new("or")
                .long("or")
                .value_name("N")
                .value_parser(args::count)
                .action(ArgAction::Append)
                .help("Cascade stage: one of N functions must agree, p -> 1-(1-p)^N (N bands)"),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// A distance for --d1/--d2: a number ≥ 0 (Jaccard's ≤ 1 is checked with the metric).
fn distance(text: &str) -> Result<(f64, String), String> {
    let x: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if !x.is_finite() || x < 0.0 {
        return Err(format!("{x} is not a distance ≥ 0"));
    }
    Ok((x, text.to_string()))
}

/// One curve to show, validated.
#[derive(Debug, Clone, PartialEq)]
struct Curve {
    /// Whose S-curve: Jaccard's is against similarity, the others' against distance.
    metric: Metric,
    label: String,
    stages: Vec<Stage>,
    /// `(bands, rows)` when the curve is a plain banding.
    banding: Option<(usize, usize)>,
}

impl Curve {
    /// P(candidate) at `x`: a similarity for Jaccard, a distance otherwise.
    fn probability(&self, x: f64) -> f64 {
        if self.metric != Metric::Jaccard {
            return self.metric.probability(x, &self.stages);
        }
        let s = x;
        match self.banding {
            Some((b, r)) => scurve::candidate_probability(s, b, r),
            None => scurve::amplify(s, &self.stages),
        }
    }

    /// Where a banded curve is steepest: `(1/b)^(1/r)` as a similarity, or as
    /// the family's distance whose one-function probability it is.
    fn threshold(&self) -> Option<f64> {
        let p = self.banding.map(|(b, r)| scurve::threshold(b, r))?;
        if self.metric == Metric::Jaccard {
            return Some(p);
        }
        // Every family's probability falls with the distance: bisect.
        let (mut lo, mut hi) = (0.0, self.metric.max_distance());
        if self.metric.collision_probability(hi) > p {
            return None;
        }
        for _ in 0..100 {
            let mid = (lo + hi) / 2.0;
            if self.metric.collision_probability(mid) > p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some((lo + hi) / 2.0)
    }

    fn describe(&self) -> Vec<String> {
        let hashes = scurve::functions_used(&self.stages);
        match self.banding {
            Some((b, r)) if self.metric != Metric::Jaccard => vec![format!(
                "{}: {b} bands of {r} rows = {hashes} functions; threshold (1/b)^(1/r) = {:.4}{}",
                self.label,
                scurve::threshold(b, r),
                self.threshold()
                    .map(|d| format!(", at {} {d:.4}", self.metric.unit()))
                    .unwrap_or_default()
            )],
            Some((b, r)) => {
                let (steep, slope) = scurve::steepest(b, r);
                vec![
                    format!(
                        "{}: {b} bands of {r} rows = {hashes} hashes; threshold (1/b)^(1/r) = {:.4}",
                        self.label,
                        scurve::threshold(b, r)
                    ),
                    format!(
                        "{}: P = 1/2 at s = {:.4}; steepest at s = {steep:.4} (slope {slope:.3})",
                        self.label,
                        scurve::half_point(b, r)
                    ),
                ]
            }
            None => {
                let steps: Vec<String> = self.stages.iter().map(|s| s.to_string()).collect();
                vec![
                    format!(
                        "{}: {} = {hashes} hashes",
                        self.label,
                        steps.join(", then ")
                    ),
                    format!(
                        "{}: P = 1/2 at s = {:.4}",
                        self.label,
                        scurve::cascade_half_point(&self.stages)
                    ),
                ]
            }
        }
    }
}

/// Smallest --step: a million table rows is already more than any use needs.
const MIN_STEP: f64 = 1e-6;

/// Everything `run` needs, checked before any output.
struct Config {
    /// Jaccard: the table's axis is the similarity; otherwise the family's distance.
    metric: Metric,
    curves: Vec<Curve>,
    distances: Option<(f64, f64)>,
    grid: Vec<f64>,
    similarity_decimals: usize,
    precision: usize,
    format: TextOrCsv,
    svg: Option<PathBuf>,
}

fn configure(mut args: Args) -> anyhow::Result<Config> {
    // scan's rule: one of the two alone takes the other's default (20 bands,
    // 5 rows); given both, they pair in order.
    if args.rows.is_empty() {
        args.rows = vec![args::DEFAULT_ROWS; args.bands.len()];
    } else if args.bands.is_empty() {
        args.bands = vec![args::DEFAULT_BANDS; args.rows.len()];
    }
    if args.bands.len() != args.rows.len() {
        bail!(
            "got {} --bands but {} --rows: give them in pairs, e.g. `--bands 20 --rows 5 --bands 10 --rows 10`",
            args.bands.len(),
            args.rows.len()
        );
    }
    let mut curves: Vec<Curve> = args
        .bands
        .iter()
        .zip(&args.rows)
        .map(|(&b, &r)| Curve {
            metric: Metric::Jaccard,
            label: format!("b{b}r{r}"),
            stages: scurve::banded(b, r).to_vec(),
            banding: Some((b, r)),
        })
        .collect();
    if !args.stages.0.is_empty() {
        let label = args
            .stages
            .0
            .iter()
            .map(|s| match s {
                Stage::And(n) => format!("and{n}"),
                Stage::Or(n) => format!("or{n}"),
            })
            .collect::<Vec<_>>()
            .join("-");
        curves.push(Curve {
            metric: Metric::Jaccard,
            label,
            stages: args.stages.0.clone(),
            banding: None,
        });
    }
    if curves.is_empty() {
        bail!("nothing to draw: give --bands B --rows R, or a cascade such as --and 4 --or 4");
    }
    if args.metric == Some(args::MetricArg::Containment) {
        bail!("{}", crate::app::speak::CONTAINMENT_BANDS_NOTHING);
    }
    let measure = args
        .metric
        .map_or(Measure::Jaccard, args::MetricArg::measure);
    let metric = Metric::of(measure, args.bits);
    for (name, given) in [("--d1", &args.d1), ("--d2", &args.d2)] {
        let Some((x, text)) = given else { continue };
        if metric == Metric::Jaccard {
            if let Err(why) = args::unit_closed(text) {
                // As clap words it for the other [0, 1] values.
                bail!(
                    "invalid value '{text}' for '{name} <D>': {why}\n\nFor more information, try '--help'."
                );
            }
        } else if metric != Metric::Euclidean && *x > metric.max_distance() {
            bail!(
                "{name} {x}: {} goes up to {}",
                metric.unit(),
                metric.max_distance()
            );
        }
    }
    for curve in &mut curves {
        curve.metric = metric;
    }
    let distances = match (args.d1.map(|d| d.0), args.d2.map(|d| d.0)) {
        (Some(d1), Some(d2)) if d1 >= d2 => bail!("--d1 ({d1}) must be smaller than --d2 ({d2})"),
        (Some(d1), Some(d2)) => Some((d1, d2)),
        _ => None,
    };
    if args.step < MIN_STEP {
        bail!(
            "--step {} is below {MIN_STEP}: the table would have more than a million rows",
            args.step
        );
    }
    if let Some(path) = &args.svg
        && path.file_name().is_none()
    {
        bail!("--svg {}: not a file name", path.display());
    }
    let (grid, similarity_decimals) = match metric {
        Metric::Jaccard => similarity_grid(args.step),
        family => distance_grid(family, args.step),
    };
    Ok(Config {
        metric,
        curves,
        distances,
        grid,
        similarity_decimals,
        precision: args.precision.into(),
        format: args.format,
        svg: args.svg,
    })
}

/// A family's distances: `step` of the axis apart (whole bits for Hamming),
/// and the decimals to print them with.
fn distance_grid(metric: Metric, step: f64) -> (Vec<f64>, usize) {
    let max = metric.max_distance();
    let (unit_grid, _) = similarity_grid(step);
    let mut grid: Vec<f64> = unit_grid.iter().map(|u| u * max).collect();
    if let Metric::Hamming { .. } = metric {
        grid = grid.iter().map(|x| x.round()).collect();
        grid.dedup();
    }
    let decimals = match metric {
        Metric::Hamming { .. } => 0,
        Metric::Cosine => 1,
        _ => 2,
    };
    (grid, decimals)
}

/// `0, step, 2·step, …` up to 1 (1 included even when the step does not divide
/// it), and the decimals needed to print them exactly.
fn similarity_grid(step: f64) -> (Vec<f64>, usize) {
    let n = (1.0 / step + 1e-9).floor() as usize;
    let mut grid: Vec<f64> = (0..=n).map(|k| (k as f64 * step).min(1.0)).collect();
    if grid.last().is_some_and(|&last| last < 1.0 - 1e-9) {
        grid.push(1.0);
    }
    let decimals = (1..=9)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6
        })
        .unwrap_or(9)
        .max(2);
    (grid, decimals)
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let quiet = args.verbosity.quiet;
    let config = configure(args)?;
    let svg_to_stdout = config.svg.as_deref().is_some_and(|p| p.as_os_str() == "-");
    // Open the picture's destination first, so that an unwritable one fails
    // before anything is printed. `Sink` writes a temporary file beside it and
    // renames it into place on commit.
    let svg_sink = match &config.svg {
        Some(path) if !svg_to_stdout => Some(Sink::create(Some(path))?),
        _ => None,
    };

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if svg_to_stdout {
        out.write_all(svg_document(&config).as_bytes())?;
    } else {
        match config.format {
            TextOrCsv::Text => write_text(&mut out, &config)?,
            TextOrCsv::Csv => write_csv(&mut out, &config)?,
        }
    }
    out.flush()?;
    if !quiet && (config.format == TextOrCsv::Csv || svg_to_stdout) {
        for line in notes(&config) {
            eprintln!("{line}");
        }
    }

    if let (Some(mut sink), Some(path)) = (svg_sink, &config.svg) {
        sink.write_all(svg_document(&config).as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        sink.commit()?;
        if !quiet {
            eprintln!("simfind: wrote {}", path.display());
        }
    }
    Ok(exit::OK)
}

fn svg_document(config: &Config) -> String {
    let labels = Labels {
        title: "LSH S-curve: probability of becoming a candidate pair".into(),
        x: axis_label(config.metric),
        y: "P(candidate)".into(),
    };
    plot::svg(&series(config, 400), &labels)
}

/// Description lines: one per curve, and the sensitivities if asked for.
fn notes(config: &Config) -> Vec<String> {
    let mut lines: Vec<String> = config.curves.iter().flat_map(Curve::describe).collect();
    if let Some((d1, d2)) = config.distances {
        for curve in &config.curves {
            if config.metric != Metric::Jaccard {
                let s = config.metric.sensitivity(d1, d2, &curve.stages);
                lines.push(format!(
                    "{}: ({}, {}, {:.7}, {:.7})-sensitive for {} (d1, d2, p1, p2)",
                    curve.label,
                    s.d1,
                    s.d2,
                    s.p1,
                    s.p2,
                    config.metric.unit()
                ));
                continue;
            }
            let s = scurve::sensitivity(d1, d2, &curve.stages);
            lines.push(format!(
                "{}: ({}, {}, {:.7}, {:.7})-sensitive for Jaccard distance (d1, d2, p1, p2)",
                curve.label, s.d1, s.d2, s.p1, s.p2
            ));
        }
    }
    lines
}

/// Samples of every curve for plotting, `n` intervals across `[0, 1]` (a
/// family's distance axis scaled to it).
fn series(config: &Config, n: usize) -> Vec<Series> {
    let scale = match config.metric {
        Metric::Jaccard => 1.0,
        family => family.max_distance(),
    };
    config
        .curves
        .iter()
        .map(|curve| Series {
            label: curve.label.clone(),
            points: (0..=n)
                .map(|k| {
                    let s = k as f64 / n as f64;
                    (s, curve.probability(s * scale))
                })
                .collect(),
            marker: curve.threshold().map(|t| t / scale),
        })
        .collect()
}

/// The x axis of the pictures.
fn axis_label(metric: Metric) -> String {
    match metric {
        Metric::Jaccard => "Jaccard similarity s".into(),
        Metric::Hamming { bits } => format!("Hamming distance / {bits} bits"),
        family => format!("{} / {}", family.unit(), family.max_distance()),
    }
}

/// The table's first column.
fn axis_column(metric: Metric) -> &'static str {
    match metric {
        Metric::Jaccard => "similarity",
        Metric::Cosine => "angle",
        Metric::Euclidean => "distance_a",
        Metric::Hamming { .. } => "bits",
    }
}

fn write_text(out: &mut impl Write, config: &Config) -> anyhow::Result<()> {
    for line in notes(config) {
        writeln!(out, "# {line}")?;
    }
    writeln!(out)?;
    let prec = config.precision;
    // Column widths: wide enough for the label and for "0.1234".
    let widths: Vec<usize> = config
        .curves
        .iter()
        .map(|c| c.label.len().max(prec + 2))
        .collect();
    let axis = axis_column(config.metric);
    let sim_width = "similarity".len();
    let mut header = format!("{axis:>sim_width$}");
    for (c, w) in config.curves.iter().zip(&widths) {
        header.push_str(&format!("  {:>w$}", c.label));
    }
    writeln!(out, "{}", header.trim_end())?;

    // The grid plus one row at each banded curve's threshold, in order.
    let mut rows: Vec<(f64, Option<&str>)> = config.grid.iter().map(|&s| (s, None)).collect();
    for curve in &config.curves {
        if let Some(t) = curve.threshold() {
            rows.push((t, Some(curve.label.as_str())));
        }
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.is_some().cmp(&b.1.is_some())));
    for (s, mark) in rows {
        let decimals = if mark.is_some() {
            4
        } else {
            config.similarity_decimals
        };
        let mut line = format!("{s:>sim_width$.decimals$}");
        for (curve, w) in config.curves.iter().zip(&widths) {
            line.push_str(&format!("  {:>w$.prec$}", curve.probability(s)));
        }
        if let Some(label) = mark {
            line.push_str(&format!("  <- threshold of {label}"));
        }
        writeln!(out, "{line}")?;
    }
    writeln!(out)?;
    let labels = match config.metric {
        Metric::Jaccard => Labels {
            title: "P(candidate) against Jaccard similarity s".into(),
            x: "similarity s".into(),
            y: "P(candidate)".into(),
        },
        family => Labels {
            title: format!("P(candidate) against {}", family.unit()),
            x: axis_label(family),
            y: "P(candidate)".into(),
        },
    };
    write!(out, "{}", plot::text(&series(config, 600), &labels, 61, 21))?;
    Ok(())
}

fn write_csv(out: &mut impl Write, config: &Config) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(["curve", axis_column(config.metric), "probability"])?;
    let (sd, prec) = (config.similarity_decimals, config.precision);
    for curve in &config.curves {
        for &s in &config.grid {
            w.write_record([
                curve.label.clone(),
                format!("{s:.sd$}"),
                format!("{:.prec$}", curve.probability(s)),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_covers_zero_to_one_exactly() {
        let (grid, d) = similarity_grid(0.05);
        assert_eq!(grid.len(), 21);
        assert_eq!((grid[0], grid[20]), (0.0, 1.0));
        assert_eq!(d, 2);
        let (grid, d) = similarity_grid(0.3);
        assert_eq!(grid, vec![0.0, 0.3, 0.6, 0.8999999999999999, 1.0]);
        assert_eq!(d, 2);
        let (_, d) = similarity_grid(0.001);
        assert_eq!(d, 3);
        assert_eq!(similarity_grid(1.0).0, vec![0.0, 1.0]);
    }
}
