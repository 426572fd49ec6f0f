//! `simfind validate`: MMDS 3.8.3's validation of record matches by a
//! measure the score does not use.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use simfind::similarity::entity;

use crate::app::args::{self, ExitRow};
use crate::app::exit;
use crate::app::ui::{self, Verbosity};

const AFTER_HELP: &str = "EXAMPLES:
  simfind validate --perfect 10 --random 45 --observed 20 --observed 30
  simfind score a.csv b.csv --fields name,address,phone > scored.csv
  (add each pair's measure, e.g. the days between the records' creation dates, as a column)
  simfind validate scored.csv --measure delay --random 45

If h0 is the average of the measure over pairs surely matching (a perfect score), h1
its average over random pairs and h its average over the pairs of one score, the
fraction of true matches among those pairs is (h1 − h)/(h1 − h0). In the text's example
(h0 = 10 days, h1 = 45) an average delay x means a fraction f with x = 45 − 35f.

OUTPUT: with --observed, CSV `observed,true_fraction`; with FILE, CSV
`score,pairs,mean,true_fraction`, one row per score, highest first. h0 is --perfect, or
the mean over the pairs of the highest score in FILE. Fractions are not clamped: one
outside [0, 1] says that score's pairs stray from the model.

";

const EXIT_STATUS: &[ExitRow] = &[
    (exit::OK, "success"),
    (
        exit::PARTIAL,
        "some rows were skipped (a warning names the file, line and reason)",
    ),
    (exit::FATAL, "usage error, or FILE could not be read"),
];

/// Estimate the fraction of true matches per score (MMDS 3.8.3): (h1 − h)/(h1 − h0) from
/// a measure's average over perfect matches (h0), random pairs (h1) and the pairs of a
/// score (h).
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, EXIT_STATUS))]
pub struct Args {
    /// Scored pairs: CSV with a header, holding --score-column and --measure (as `simfind
    /// score` prints, plus the measure).
    #[arg(value_name = "FILE", conflicts_with = "observed", requires = "measure")]
    pub file: Option<PathBuf>,

    /// h1: the measure's average over random pairs.
    #[arg(long, value_name = "H1", required = true, allow_hyphen_values = true)]
    pub random: f64,

    /// h0: the measure's average over pairs surely matching [default with FILE: the mean
    /// over the pairs of the highest score].
    #[arg(long, value_name = "H0", allow_hyphen_values = true)]
    pub perfect: Option<f64>,

    /// h: an average measured over the pairs of one score (repeat for several).
    #[arg(long, value_name = "H", allow_hyphen_values = true, action = clap::ArgAction::Append, requires = "perfect")]
    pub observed: Vec<f64>,

    /// With FILE: the column holding each pair's measure.
    #[arg(long, value_name = "NAME", requires = "file")]
    pub measure: Option<String>,

    /// With FILE: the column holding each pair's score.
    #[arg(long, value_name = "NAME", default_value = "score")]
    pub score_column: String,

    #[command(flatten)]
    pub verbosity: Verbosity,
}

fn finite(name: &str, x: f64) -> Result<f64> {
    if !x.is_finite() {
        bail!("{name} {x}: must be a finite number");
    }
    Ok(x)
}

pub fn run(args: Args) -> Result<i32> {
    let h1 = finite("--random", args.random)?;
    let perfect = args.perfect.map(|h| finite("--perfect", h)).transpose()?;
    let float = |x: Option<f64>| x.map(|v| format!("{v:.6}")).unwrap_or_default();
    let Some(file) = &args.file else {
        if args.observed.is_empty() {
            bail!("give --observed H (with --perfect), or a FILE of scored pairs with --measure");
        }
        let h0 = perfect.unwrap_or_default();
        if h0 == h1 {
            bail!("--perfect and --random are equal: the measure cannot tell matches apart");
        }
        let mut out = csv::Writer::from_writer(std::io::stdout().lock());
        out.write_record(["observed", "true_fraction"])?;
        for &h in &args.observed {
            let h = finite("--observed", h)?;
            out.write_record([h.to_string(), float(entity::true_fraction(h0, h1, h))])?;
        }
        out.flush()?;
        return Ok(exit::OK);
    };
    let measure = args.measure.as_deref().unwrap_or_default();
    let shown = file.display().to_string();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(file)
        .with_context(|| format!("cannot read {shown}"))?;
    let headers = reader
        .headers()
        .with_context(|| format!("{shown}: cannot read the header"))?
        .clone();
    let column = |name: &str| {
        headers.iter().position(|h| h == name).ok_or_else(|| {
            anyhow::anyhow!(
                "{shown}: no column {name:?} in the header ({})",
                headers.iter().collect::<Vec<_>>().join(",")
            )
        })
    };
    let (score_at, measure_at) = (column(&args.score_column)?, column(measure)?);
    // score → (pairs, sum of the measure)
    let mut by_score: BTreeMap<i64, (u64, f64)> = BTreeMap::new();
    let mut skipped = 0u64;
    for row in reader.records() {
        let row = match row {
            Ok(row) => row,
            Err(err) => {
                let line = err.position().map(|p| p.line()).unwrap_or(0);
                eprintln!("{} {shown}:{line}: {err}", ui::warning_prefix());
                skipped += 1;
                continue;
            }
        };
        let line = row.position().map(|p| p.line()).unwrap_or(0);
        let score = row.get(score_at).unwrap_or("").trim().parse::<i64>();
        let value = row
            .get(measure_at)
            .unwrap_or("")
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite());
        match (score, value) {
            (Ok(score), Some(value)) => {
                let entry = by_score.entry(score).or_default();
                entry.0 += 1;
                entry.1 += value;
            }
            _ => {
                eprintln!(
                    "{} {shown}:{line}: the {:?} column is not a whole number or the {measure:?} column not a number; the row is skipped",
                    ui::warning_prefix(),
                    args.score_column
                );
                skipped += 1;
            }
        }
    }
    let mean = |(pairs, sum): (u64, f64)| sum / pairs as f64;
    let Some(h0) = perfect.or_else(|| by_score.values().next_back().map(|&e| mean(e))) else {
        bail!("{shown}: no scored pair");
    };
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(["score", "pairs", "mean", "true_fraction"])?;
    for (&score, &entry) in by_score.iter().rev() {
        let h = mean(entry);
        out.write_record([
            score.to_string(),
            entry.0.to_string(),
            format!("{h:.6}"),
            float(entity::true_fraction(h0, h1, h)),
        ])?;
    }
    out.flush()?;
    Ok(if skipped > 0 { exit::PARTIAL } else { exit::OK })
}
