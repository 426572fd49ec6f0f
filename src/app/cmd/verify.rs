//! `simfind verify --pairs DIR --docs DIR`: the candidate pairs of a band join
//! run elsewhere (spark/simfind_lsh.py, or its DuckDB twin) verified exactly
//! against the files, written as scan writes its pairs.

use std::path::PathBuf;

use anyhow::Result;
use simfind::exchange::Shard;

use crate::app::args::{self, ExchangeArgs};
use crate::app::exchange_run;
use crate::app::flags::defs;
use crate::app::report::ReportArgs;
use crate::app::ui::Verbosity;

const EXAMPLES: &str = "EXAMPLES:
  simfind sign ./share --out sig/ --shard 0/2 && simfind sign ./share --out sig/ --shard 1/2
  python spark/simfind_lsh.py sig/ engine/ --exact-pairs
  simfind verify --pairs engine/pairs --docs sig/ -o pairs.csv
  simfind verify --pairs engine/pairs --docs sig/ --format clusters --keep newest
  simfind verify --pairs engine/pairs --docs sig/ --components engine/components \\
      --component-shard 0/4 -o part-0.csv      (and 1/4 … 3/4 elsewhere: concatenate)
  simfind verify --pairs engine/pairs --docs sig/     (sig/ from sign --input jsonl: records)

OUTPUT: the same as `simfind scan` (CSV pairs; --format tsv, jsonl, clusters;
--list-removable): with the engine's candidates equal to the band stage's, the
same rows as `simfind scan --method lsh` with the shards' recipe. Documents are
numbered in path byte order, as a scan of the same roots numbers them; copies of
one content pair at 1.0 whether or not the engine listed them. Files are re-read
at the paths sign wrote (a shared file system) and must still have the content
they were signed with. Records (sign --input jsonl|csv|tsv|sets) are read again at
the file and line sign wrote: an id or text other than the signed one is an error
naming file and line (the record's pairs are left out, exit 1); records signed
--per-field are scored by the weighted mean of their fields, with one column per
field, as scan --per-field writes them. Points (sign --input vectors|bits) are read
again likewise and measured exactly (cosine, L2 or Hamming distance against the
query they were signed for; -t overrides a cosine), written as scan --input
vectors|bits writes them.

";

/// Verify an engine's candidate pairs against the files (exact Jaccard).
///
/// Reads the doc_id pairs a Spark or DuckDB band join wrote, the documents and
/// signatures `simfind sign` wrote, and verifies each candidate as scan does:
/// ruled out by signature agreement, then exact Jaccard of the re-read files.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, args::EXIT_STATUS_EXCHANGE))]
#[command(mut_args(defs::one("output", defs::output(defs::Output::Exchange))))]
// Written by scan over files, which fingerprints them; refused here.
#[command(mut_args(defs::one("plan", |a| a.hide(true))))]
pub struct Args {
    #[command(flatten)]
    pub exchange: ExchangeArgs,

    /// Verify only part I of N (0 ≤ I < N): the pairs of the engine's components
    /// that hash to I, reading only their documents, so that no one process holds
    /// every document and pair. The N parts' rows together are the whole run's
    /// (concatenate them). Needs --components.
    #[arg(
        long,
        value_name = "I/N",
        requires = "components",
        help_heading = "Exchange"
    )]
    pub component_shard: Option<Shard>,

    /// The engine's components (doc_id, component), written beside its pairs
    /// (spark/simfind_lsh.py OUT/components).
    #[arg(
        long,
        value_name = "DIR",
        requires = "component_shard",
        help_heading = "Exchange"
    )]
    pub components: Option<PathBuf>,

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

pub fn run(args: Args) -> Result<i32> {
    exchange_run::verify_and_report(
        &args.exchange,
        &args.report,
        args.output.as_deref(),
        args.verbosity,
        args.components.as_deref().zip(args.component_shard),
    )
}
