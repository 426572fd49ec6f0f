//! What `verify` and `group` share: an engine's candidate pairs verified as
//! scan verifies its own (`simfind::exchange::verify`), then written by the
//! report exactly as scan writes, with one summary line. The two subcommands
//! differ only in the output they default to.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use simfind::exchange::{KeyKind, Shard};
use simfind::pipeline::{ScanConfig, ScanOutcome, Verification};

use crate::app::args::ExchangeArgs;
use crate::app::config;
use crate::app::exit;
use crate::app::output::{self, Sink, html};
use crate::app::report::{Report, ReportArgs};
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
    if report_args.plan.is_some() {
        bail!(
            "--plan is written by `simfind scan` over files (or `simfind dedupe --dry-run \
             --plan`), which fingerprint each file; not from an engine's pairs"
        );
    }
    // The library's removal rule, as scan applies it.
    let threshold = report_args.removal_run().threshold(exchange_args.threshold);
    let (mut config, exchange, candidates) = config::exchange(exchange_args, threshold, split)?;
    if exchange.kind() == Some(KeyKind::Point) {
        return verify_points(
            exchange_args,
            report_args,
            output,
            verbosity,
            exchange,
            candidates,
        );
    }
    let records = exchange.kind() == Some(KeyKind::Record);
    if records {
        for (given, flag) in [
            (report_args.list_removable, "--list-removable"),
            (!report_args.reference.is_empty(), "--reference"),
            (report_args.max_unique.is_some(), "--max-unique"),
        ] {
            if given {
                bail!(
                    "{flag} does not apply to {}: its documents are records, not files",
                    exchange_args.docs.display()
                );
            }
        }
    }
    let mut report = Report::from_args(report_args, &mut config.roots)?;
    if records {
        report.for_records();
    } else {
        // Files, re-read at the paths sign wrote: a removable file is one its
        // kept copy contains, as in scan.
        report.measure_unique(
            &config,
            report_args
                .max_unique
                .unwrap_or(simfind::cluster::removal::MAX_UNIQUE),
            verbosity.quiet,
        );
    }
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
    let line = |outcome: &ScanOutcome| {
        let s = &outcome.stats;
        format!(
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
        )
    };
    if report.is_html() {
        let facts = (
            line(&outcome),
            summary_fields(&outcome, &config, exchange_args.threshold.is_some()),
        );
        let run = html::Run::of(
            &outcome,
            &config,
            facts,
            started.elapsed().as_secs_f64(),
            report_args.html_budget,
        );
        report.set_run(if records {
            run.of_records()
        } else {
            // The shards do not say which roots their files were walked from.
            html::Run {
                dedupe_command: report_args
                    .dedupe_command(&[PathBuf::from("DIR")], config.threshold),
                ..run
            }
        });
    }
    let reported =
        report.write_with_fields(&mut outcome, config.threshold, fields.as_ref(), &mut sink)?;
    sink.commit()?;
    let s = &outcome.stats;
    if !verbosity.quiet {
        eprintln!("{}", line(&outcome));
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
            family.measure().name(),
            docs.display()
        );
    }
    match (&mut family, exchange_args.threshold) {
        (_, None) => {}
        (Family::Cosine { min_cosine }, Some(t)) => *min_cosine = t,
        (_, Some(_)) => bail!(
            "-t is a cosine; the {} shards of {} were signed for a radius, which verify takes \
             from them",
            family.measure().name(),
            docs.display()
        ),
    }
    let (format, method) =
        crate::app::families::output_format(report_args, family.measure().name())?;
    let measure = family.measure();
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
            family.measure().name(),
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

/// What the HTML report of `verify`/`group` shows about the run, by the names
/// of `scan --summary-json`: the counts, the banding of the shards and the
/// threshold (given, or the removal rule's default).
fn summary_fields(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    given: bool,
) -> serde_json::Map<String, serde_json::Value> {
    let s = &outcome.stats;
    let banding = config.recipe.banding;
    let value = serde_json::json!({
        "files": s.files,
        "bytes": s.bytes,
        "errors": s.errors,
        "candidates": s.candidates,
        "ruled_out": s.ruled_out,
        "pairs": s.pairs,
        "method": { "name": "lsh", "reason": crate::app::speak::decision(&outcome.decision) },
        "lsh": {
            "bands": banding.bands,
            "rows": banding.rows,
            "hashes": banding.bands * banding.rows,
        },
        "shingles": {
            "kind": config.recipe.shingler.kind().name(),
            "k": config.recipe.shingler.k(),
        },
        "threshold": {
            "value": config.threshold,
            "source": if given { "given" } else { "removal default" },
        },
        "verification": match config.verification {
            Verification::Exact => "exact",
            Verification::Signature => "signature",
        },
    });
    match value {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("json! of an object literal"),
    }
}
