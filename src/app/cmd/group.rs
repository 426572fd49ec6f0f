//! `simfind group --pairs DIR --docs DIR`: groups of near-duplicates, keep
//! decisions and removable lists from a band join run elsewhere, made from
//! the exactly verified pairs as scan makes them (app/report).

use std::path::PathBuf;

use anyhow::Result;

use crate::app::args::{self, ExchangeArgs};
use crate::app::exchange_run;
use crate::app::flags::defs;
use crate::app::report::{ClusterArg, FormatArg, ReportArgs};
use crate::app::ui::Verbosity;

const EXAMPLES: &str = "EXAMPLES:
  simfind group --pairs engine/pairs --docs sig/               groups as CSV (t = 0.9)
  simfind group --pairs engine/pairs --docs sig/ --keep newest  newest kept (t = 0.9)
  simfind group --pairs engine/pairs --docs sig/ --list-removable -0 | xargs -0 ls -l
  simfind group --pairs engine/pairs --docs sig/ --format jsonl  one group per line

OUTPUT: the groups of `simfind scan --format clusters` (or, with --format jsonl,
of --cluster center): with the engine's candidates equal to the band stage's, the
same groups, kept files and removable list as `simfind scan --method lsh` with the
shards' recipe and the same grouping options. Documents are
numbered in path byte order, as a scan of the same roots numbers them; copies of
one content pair at 1.0 whether or not the engine listed them. Files are re-read
at the paths sign wrote (a shared file system) and must still have the content
they were signed with.

";

/// Group near-duplicates from an engine's candidate pairs (verified exactly).
///
/// Verifies the pairs as `simfind verify` does, then groups them, decides
/// which file of each group is kept and lists the others, as `simfind scan
/// --format clusters` does.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, args::EXIT_STATUS_EXCHANGE))]
#[command(mut_args(defs::one("output", defs::output(defs::Output::Exchange))))]
// Written by scan over files, which fingerprints them; refused here.
#[command(mut_args(defs::one("plan", |a| a.hide(true))))]
pub struct Args {
    #[command(flatten)]
    pub exchange: ExchangeArgs,

    // -o: defs::output.
    #[arg(long, help_heading = "Output")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub report: ReportArgs,

    #[command(flatten)]
    pub verbosity: Verbosity,

    #[command(flatten)]
    pub threads: args::ThreadArgs,
}

pub fn run(mut args: Args) -> Result<i32> {
    // Groups are what group writes: CSV groups, or JSON Lines groups.
    if matches!(args.report.format, FormatArg::Pairs | FormatArg::Tsv) {
        args.report.format = FormatArg::Clusters;
    }
    if args.report.format == FormatArg::Jsonl && args.report.cluster.is_none() {
        args.report.cluster = Some(ClusterArg::Center);
    }
    exchange_run::verify_and_report(
        &args.exchange,
        &args.report,
        args.output.as_deref(),
        args.verbosity,
        None,
    )
}
