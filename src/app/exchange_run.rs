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
    if exchange.key_kind == "vector" {
        return verify_points(
            exchange_args,
            report_args,
            output,
            verbosity,
            exchange,
            candidates,
        );
    }
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
    let (mut outcome, fields) = if records {
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
        let outcome =
            simfind::exchange::verify(exchange, candidates, &config, &exchange_args.pairs, &ui);
        (outcome, None)
    };
    let reported =
        report.write_with_fields(&mut outcome, config.threshold, fields.as_ref(), &mut sink)?;
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

/// `verify`/`group` of a vector family's shards (`sign --input
/// vectors|bits`): each candidate's points read again and measured as `scan
/// --input vectors|bits` measures them, written by its writer.
fn verify_points(
    exchange_args: &ExchangeArgs,
    report_args: &ReportArgs,
    output: Option<&Path>,
    verbosity: Verbosity,
    exchange: simfind::exchange::Exchange,
    candidates: Vec<(u32, u32)>,
) -> Result<i32> {
    use simfind::exchange::Family;

    use crate::app::output::families::{self as writer, Measure};
    let docs = &exchange_args.docs;
    let (mut family, width) = simfind::exchange::family_of(&exchange.family)
        .map_err(|reason| anyhow::anyhow!("{}: {reason}", docs.join("docs").display()))?;
    if report_args.list_removable || report_args.keep.is_some() || !report_args.reference.is_empty()
    {
        bail!(
            "--list-removable, --keep and --reference work on MinHash shards of files, not on \
             the {} points of {}",
            family.metric(),
            docs.display()
        );
    }
    match (&mut family, exchange_args.threshold) {
        (_, None) => {}
        (Family::Cosine { min_cosine }, Some(t)) => *min_cosine = t,
        (_, Some(_)) => bail!(
            "-t is a cosine; the {} shards of {} were signed for a radius, which verify takes \
             from them",
            family.metric(),
            docs.display()
        ),
    }
    let (format, method) = crate::app::families::output_format(report_args, family.metric())?;
    let measure = match family {
        Family::Cosine { .. } => Measure::Cosine,
        Family::Euclidean { .. } => Measure::Euclidean,
        Family::Hamming { .. } => Measure::Hamming,
    };
    let mut sink = Sink::create(output)?;
    output::install_interrupt_handler();
    let started = Instant::now();
    let ui = Ui::with(verbosity);
    let engine_pairs = candidates.len();
    let points = exchange.docs.len();
    let outcome = simfind::exchange::verify_vectors(exchange, candidates, family, &ui);
    writer::write(&mut sink, format, measure, method, &outcome.pairs, &|i| {
        outcome.ids[i as usize].clone()
    })?;
    sink.commit()?;
    if !verbosity.quiet {
        eprintln!(
            "simfind: {} of {width} {} from {}; {} from the engine → {}; {} ({}) in {:.2} s{}",
            plural(points as u64, "point", "points"),
            if measure == Measure::Hamming {
                "bits"
            } else {
                "components"
            },
            docs.display(),
            plural(engine_pairs as u64, "pair", "pairs"),
            plural(outcome.candidates, "candidate", "candidates"),
            plural(outcome.pairs.len() as u64, "pair", "pairs"),
            family.metric(),
            started.elapsed().as_secs_f64(),
            if outcome.errors > 0 {
                format!("; {}", plural(outcome.errors, "error", "errors"))
            } else {
                String::new()
            }
        );
    }
    Ok(if outcome.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    })
}
