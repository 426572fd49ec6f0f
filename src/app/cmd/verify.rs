//! `simfind verify --pairs DIR --docs DIR`: the candidate pairs of a band join
//! run elsewhere (spark/simfind_lsh.py, or its DuckDB twin) verified exactly
//! against the files, written as scan writes its pairs.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use simfind::action::SAFE_THRESHOLD;

use crate::app::args::{self, ExchangeArgs};
use crate::app::config;
use crate::app::exit;
use crate::app::output::{self, Sink};
use crate::app::report::{FormatArg, Report, ReportArgs};
use crate::app::ui::{Ui, Verbosity, plural};

const EXAMPLES: &str = "EXAMPLES:
  simfind sign ./share --out sig/ --shard 0/2 && simfind sign ./share --out sig/ --shard 1/2
  python spark/simfind_lsh.py sig/ engine/ --exact-pairs
  simfind verify --pairs engine/pairs --docs sig/ -o pairs.csv
  simfind verify --pairs engine/pairs --docs sig/ --format clusters --keep newest

OUTPUT: the same as `simfind scan` (CSV pairs; --format tsv, jsonl, clusters;
--list-removable): with the engine's candidates equal to the band stage's, the
same rows as `simfind scan --method lsh` with the shards' recipe. Documents are
numbered in path byte order, as a scan of the same roots numbers them; copies of
one content pair at 1.0 whether or not the engine listed them. Files are re-read
at the paths sign wrote (a shared file system) and must still have the content
they were signed with.

";

/// Verify an engine's candidate pairs against the files (exact Jaccard).
///
/// Reads the doc_id pairs a Spark or DuckDB band join wrote, the documents and
/// signatures `simfind sign` wrote, and verifies each candidate as scan does:
/// ruled out by signature agreement, then exact Jaccard of the re-read files.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, args::EXIT_STATUS_EXCHANGE))]
pub struct Args {
    #[command(flatten)]
    pub exchange: ExchangeArgs,

    /// Write the output to FILE (atomically: complete or not at all) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub report: ReportArgs,

    #[command(flatten)]
    pub verbosity: Verbosity,

    #[command(flatten)]
    pub threads: args::ThreadArgs,
}

pub fn run(args: Args) -> Result<i32> {
    let decides_removal = args.report.list_removable
        || ((args.report.format == FormatArg::Clusters || args.report.cluster.is_some())
            && (args.report.keep.is_some() || !args.report.reference.is_empty()));
    let threshold = args
        .exchange
        .threshold
        .or(decides_removal.then_some(SAFE_THRESHOLD));
    let (mut config, exchange, candidates) = config::exchange(&args.exchange, threshold)?;
    let report = Report::from_args(&args.report, &mut config.roots)?;
    let mut sink = Sink::create(args.output.as_deref())?;
    output::install_interrupt_handler();
    let started = Instant::now();
    let ui = Ui::with(args.verbosity);
    let engine_pairs = candidates.len();
    let mut outcome =
        simfind::exchange::verify(exchange, candidates, &config, &args.exchange.pairs, &ui);
    let reported = report.write(&mut outcome, config.threshold, &mut sink)?;
    sink.commit()?;
    let s = &outcome.stats;
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: {} from {}; {} from the engine → {} of distinct contents ({} ruled \
             out by their signatures); {} with similarity ≥ {:.3} in {:.2} s{}",
            plural(s.files, "document", "documents"),
            args.exchange.docs.display(),
            plural(engine_pairs as u64, "pair", "pairs"),
            plural(s.candidates, "candidate", "candidates"),
            s.ruled_out,
            plural(s.pairs, "pair", "pairs"),
            config.threshold,
            started.elapsed().as_secs_f64(),
            if s.errors > 0 {
                format!("; {}", plural(s.errors, "error", "errors"))
            } else {
                String::new()
            }
        );
        eprintln!("{}", reported.summary());
    }
    let status = if s.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    };
    Ok(report.exit_status(status, &reported))
}
