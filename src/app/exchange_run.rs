//! What `verify` and `group` share: an engine's candidate pairs verified as
//! scan verifies its own (`simfind::exchange::verify`), then written by the
//! report exactly as scan writes, with one summary line. The two subcommands
//! differ only in the output they default to.

use std::path::Path;
use std::time::Instant;

use anyhow::{Result, bail};
use simfind::action::SAFE_THRESHOLD;
use simfind::exchange::Shard;

use crate::app::args::ExchangeArgs;
use crate::app::config;
use crate::app::exit;
use crate::app::output::{self, Sink};
use crate::app::report::{FormatArg, Report, ReportArgs};
use crate::app::ui::{Ui, Verbosity, plural};

/// Verifies the engine's pairs of `exchange_args` and writes what
/// `report_args` asks for; the exit status.
/// `split`: verify only one part of the pairs, split by the engine's
/// components (`verify --component-shard I/N --components DIR`).
pub fn verify_and_report(
    exchange_args: &ExchangeArgs,
    report_args: &ReportArgs,
    output: Option<&Path>,
    verbosity: Verbosity,
    split: Option<(&Path, Shard)>,
) -> Result<i32> {
    let decides_removal = report_args.list_removable
        || ((report_args.format == FormatArg::Clusters || report_args.cluster.is_some())
            && (report_args.keep.is_some() || !report_args.reference.is_empty()));
    let threshold = exchange_args
        .threshold
        .or(decides_removal.then_some(SAFE_THRESHOLD));
    let (mut config, exchange, candidates) = config::exchange(exchange_args, threshold, split)?;
    let records = exchange.key_kind == "record";
    if records {
        for (given, flag) in [
            (report_args.list_removable, "--list-removable"),
            (!report_args.reference.is_empty(), "--reference"),
        ] {
            if given {
                bail!(
                    "{flag} does not apply to {}: its documents are records, not files",
                    exchange_args.docs.display()
                );
            }
        }
    }
    let report = Report::from_args(report_args, &mut config.roots)?;
    let mut sink = Sink::create(output)?;
    output::install_interrupt_handler();
    let started = Instant::now();
    let ui = Ui::with(verbosity);
    let engine_pairs = candidates.len();
    let mut outcome = if records {
        simfind::exchange::verify_records(
            exchange,
            candidates,
            &config.recipe,
            config.threshold,
            &exchange_args.pairs,
            &exchange_args.docs,
            &ui,
        )?
    } else {
        simfind::exchange::verify(exchange, candidates, &config, &exchange_args.pairs, &ui)
    };
    let reported = report.write(&mut outcome, config.threshold, &mut sink)?;
    sink.commit()?;
    let s = &outcome.stats;
    if !verbosity.quiet {
        eprintln!(
            "simfind: {} from {}; {} from the engine → {} of distinct contents ({} ruled \
             out by their signatures); {} with similarity ≥ {:.3} in {:.2} s{}",
            plural(s.files, "document", "documents"),
            exchange_args.docs.display(),
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
