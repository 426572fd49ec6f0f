//! `simfind scan`: the whole near-duplicate pipeline over one or more
//! directories, written as CSV.

use std::time::Instant;

use anyhow::{Result, bail};
use simfind::cluster::removal;
use simfind::index::incremental;
use simfind::lsh::tune;
use simfind::pipeline::Method;
use simfind::pipeline::{self, ScanConfig, ScanOutcome};

use crate::app::args::{self, MatchArgs};
use crate::app::config::{self, ThresholdSource};
use crate::app::families;
use crate::app::output::summary;
use crate::app::output::{self, Sink, html};
use crate::app::report::Report;
use crate::app::ui::{Ui, plural, warning_prefix};

mod arguments;
mod finish;
mod mode;
mod record_scan;
mod removal_default;

pub use arguments::Args;
use finish::finish;
use removal_default::{removal_default_note, removal_threshold};

use mode::Mode;

pub fn run(args: Args) -> Result<i32> {
    let mode = Mode::of(&args)?;
    let kind = args.input.input;
    if args.top.is_some() {
        let refused = match mode {
            Mode::Icws => Some("--sketch icws".to_string()),
            Mode::Containment => Some("--metric containment".to_string()),
            Mode::IdenticalBy(_) => Some("--identical-by".to_string()),
            _ if args.input.per_field => Some("--per-field".to_string()),
            _ => None,
        };
        if let Some(what) = refused {
            bail!(
                "--top does not apply to {what}: it ranks the neighbours of files, of \
                 records (--input jsonl, csv, tsv, sets), of points (--input vectors, bits) \
                 and of SimHash fingerprints"
            );
        }
    }
    for (given, flag, applies) in [
        (
            args.input.delimiter.is_some(),
            "--delimiter",
            matches!(mode, Mode::Records | Mode::Icws),
        ),
        (
            args.input.encoding.is_some(),
            "--encoding",
            matches!(mode, Mode::Records | Mode::Icws),
        ),
        (
            args.write_kept.is_some(),
            "--write-kept",
            mode == Mode::Records,
        ),
        (
            args.report.max_unique.is_some(),
            "--max-unique",
            matches!(
                mode,
                Mode::Files | Mode::FilesIndexed | Mode::IdenticalBy(_) | Mode::ImportantWords(_)
            ),
        ),
    ] {
        if given && !applies {
            bail!("{flag} does not apply to --input {kind}");
        }
    }
    match mode {
        Mode::VectorFamily | Mode::Icws | Mode::Containment => {
            let family_args = families::ScanArgs {
                roots: &args.roots,
                input: args.input.input,
                skip_bad_rows: args.input.skip_bad_rows,
                max_line_length: args.input.max_line_length,
                link: args.input.link,
                record_input: &args.input,
                families: &args.families,
                signing: &args.signing,
                matching: &args.matching,
                files: &args.files,
                report: &args.report,
                output: args.output.as_deref(),
                verbosity: args.verbosity,
                db: args.db.as_deref(),
                wait: args.wait,
                summary_json: &args.summary_json,
                top: args.top,
            };
            if mode == Mode::Icws {
                crate::app::weighted::scan(family_args)
            } else if mode == Mode::Containment {
                crate::app::containment::scan(family_args)
            } else {
                families::scan(family_args)
            }
        }
        Mode::Records => record_scan::run(args),
        Mode::Files | Mode::FilesIndexed | Mode::IdenticalBy(_) | Mode::ImportantWords(_) => {
            scan_files(args, mode)
        }
    }
}

/// The MinHash pipeline over files (`mode` one of the file modes): with an
/// index, identical files only, important words, or plain.
fn scan_files(args: Args, mode: Mode) -> Result<i32> {
    if let Some(db) = &args.db {
        output::refuse_overwriting_index(args.output.as_deref(), db)?;
    }
    // A list of what can go never rests on the S-curve threshold: the
    // library's removal rule, the same for records, verify, group and dedupe.
    let mut matching = args.matching.clone();
    let removal_default = removal_threshold(&args.report, &mut matching);
    // With --db the output is opened (atomically: it appears only on success)
    // before the index is first read, as it was before the recipe came from
    // the index: a run waiting for the index's lock holds its output open.
    let mut early_sink = match &args.db {
        Some(_) => Some(Sink::create(args.output.as_deref())?),
        None => None,
    };
    // An existing index's recipe stands for every signing option not given.
    let adopted = match &args.db {
        Some(db) => config::existing_recipe(db, args.wait)?,
        None => None,
    };
    let mut signing = args.signing.clone();
    crate::app::important::shingles(&args.input, &mut signing.shingles)?;
    let (mut config, threshold_source) = config::scan(
        &args.roots,
        &signing,
        &matching,
        &args.files,
        args.db.is_some(),
        adopted.as_ref(),
    )?;
    if removal_default && !args.verbosity.quiet {
        eprintln!("{}", removal_default_note(&args.signing, "files"));
    }
    let threshold_source = config::top_floor(args.top, threshold_source, &mut config);
    // Not for the index's banding: its advice (other bands and rows, or
    // --threshold alone) cannot be followed with this index.
    if threshold_source == ThresholdSource::Given
        && let Some(warning) = tune::steep_part_warning(
            config.recipe.banding.bands,
            config.recipe.banding.rows,
            config.threshold,
        )
    {
        eprintln!(
            "{} {}",
            warning_prefix(),
            crate::app::speak::steep_part(&warning)
        );
    }
    let mut report = Report::from_args(&args.report, &mut config.roots)?;
    if let Some(k) = args.top {
        if args.report.plan.is_some() {
            bail!(
                "--top writes each item's nearest neighbours, not what can go: --plan does not \
                 apply (write the plan in a run without --top)"
            );
        }
        report.set_top(usize::try_from(k).unwrap_or(usize::MAX))?;
    }
    // A file is removable when its kept copy contains it: the library's cap
    // unless --max-unique.
    report.measure_unique(
        &config,
        args.report.max_unique.unwrap_or(removal::MAX_UNIQUE),
        args.verbosity.quiet,
    );
    let summary_json = summary::open(&args.summary_json, args.output.as_deref())?;
    let plan_sink = crate::app::report::plan::open_plan(args.report.plan.as_deref())?;
    let mut sink = match early_sink.take() {
        Some(sink) => sink,
        None => Sink::create(args.output.as_deref())?,
    };
    output::install_interrupt_handler();

    let started = Instant::now();
    let quiet = args.verbosity.quiet;
    let ui = Ui::with(args.verbosity);
    let mut identical = None;
    let mut outcome = match (mode, &args.db) {
        (Mode::IdenticalBy(by), _) => {
            let (outcome, stats) = pipeline::find_identical(&config, by, &ui);
            identical = Some(stats);
            outcome
        }
        (Mode::ImportantWords(n), _) => pipeline::important::scan(&config, n, &ui),
        (Mode::FilesIndexed, Some(db)) => {
            let mut index = config::open_index(db, &config, args.wait).map_err(|err| {
                if threshold_source == ThresholdSource::Tuned {
                    err.context(format!(
                        "--threshold alone let tune choose {} bands × {} rows; give the \
                         index's --bands and --rows to use it",
                        config.recipe.banding.bands, config.recipe.banding.rows
                    ))
                } else {
                    err
                }
            })?;
            incremental::scan_with_index(&mut index, &config, &ui, |refreshed| {
                if !quiet {
                    eprintln!("simfind: {}", incremental::describe(refreshed));
                }
            })?
        }
        _ => pipeline::scan(&config, &ui),
    };
    if config.threshold >= 1.0 && !args.same_text {
        pipeline::keep_byte_identical(&mut outcome);
    }
    for pattern in &outcome.stats.walk_skips.unused_excludes {
        eprintln!("{} --exclude '{pattern}' matched nothing", warning_prefix());
    }
    if let Some(warning) = low_recall_warning(&outcome, &config, &matching, threshold_source) {
        eprintln!("{} {warning}", warning_prefix());
    }
    // Counted before the report filters the pairs: the estimate is about the scan.
    let missed = (threshold_source == ThresholdSource::Tuned
        && outcome.decision.method == Method::Lsh)
        .then(|| {
            let banding = config.recipe.banding;
            tune::likely_missed(
                outcome.pairs.iter().map(|p| p.similarity),
                banding.bands,
                banding.rows,
            )
        });
    if report.is_html() {
        report.set_run(html_run(
            &args,
            &outcome,
            &config,
            (threshold_source, matching.min_recall, missed),
            started.elapsed().as_secs_f64(),
        ));
    }
    let reported = report.write(&mut outcome, config.threshold, &mut sink)?;
    sink.commit()?;
    if let Some(plan_sink) = plan_sink {
        // The plan the report made when it wrote groups: its files are
        // measured and fingerprinted once.
        let (header, built) = report.plan(&outcome, &config)?;
        crate::app::report::plan::write_plan(plan_sink, &header, &built)?;
    }

    let seconds = started.elapsed().as_secs_f64();
    if let Some(found) = identical
        && !quiet
    {
        let s = &outcome.stats;
        eprintln!(
            "simfind: {} in {seconds:.2} s, {:.1} MB examined; {} of a size no other file has \
             (not read), {} read for the cheap hash only, {} hashed in full; {} in {}; {}; \
             method {}",
            plural(s.files, "file", "files"),
            found.bytes_examined as f64 / 1e6,
            found.unique_size,
            found.cheap_only,
            found.full,
            plural(
                s.identical_files + s.unique_contents,
                "identical file",
                "identical files"
            ),
            plural(s.unique_contents, "group", "groups"),
            plural(s.pairs, "pair", "pairs"),
            crate::app::speak::decision(&outcome.decision)
        );
    } else if !quiet {
        eprintln!(
            "{}",
            summary::scan_line(
                &outcome,
                &config,
                (threshold_source, matching.min_recall, missed),
                seconds,
                args.input.important_words,
            )
        );
    }
    if !quiet {
        eprintln!("{}", reported.summary());
    }
    finish(
        &outcome,
        &config,
        (&report, &reported),
        summary_json,
        (threshold_source, args.matching.min_recall, missed),
        (seconds, &ui),
        (args.input.important_words, serde_json::Map::new()),
    )
}

/// What `--format html` shows about the run: the summary line and fields,
/// the banding; no `dedupe` command for the list, since the page exports a
/// plan, the one way it suggests to act (`dedupe --apply`).
fn html_run(
    args: &Args,
    outcome: &ScanOutcome,
    config: &ScanConfig,
    threshold: (ThresholdSource, f64, Option<f64>),
    seconds: f64,
) -> html::Run {
    let summary_line = summary::scan_line(
        outcome,
        config,
        threshold,
        seconds,
        args.input.important_words,
    );
    let fields = summary::scan_fields(outcome, config, threshold, args.input.important_words);
    let mut run = html::Run::of(
        outcome,
        config,
        (summary_line, fields),
        seconds,
        args.report.html_budget,
    );
    run.export_plan = true;
    run
}

/// `auto` with a given banding whose recall at the threshold is
/// below `--min-recall` was handed to the cost model (`config::scan`); if that
/// still chose LSH, say how much recall the user gets.
fn low_recall_warning(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    matching: &MatchArgs,
    source: ThresholdSource,
) -> Option<String> {
    let banding = config.recipe.banding;
    if matching.method != args::MethodArg::Auto
        || source == ThresholdSource::Tuned
        || outcome.decision.method != Method::Lsh
    {
        return None;
    }
    let recall = tune::recall_below_floor(
        banding.bands,
        banding.rows,
        config.threshold,
        matching.min_recall,
    )?;
    Some(format!(
        "--method auto kept LSH with {} bands × {} rows ({}), which finds a pair at {:.3} with probability only {recall:.3} (below --min-recall {}); --method exact finds every pair, --threshold alone picks bands and rows that meet --min-recall",
        banding.bands,
        banding.rows,
        crate::app::speak::decision(&outcome.decision),
        config.threshold,
        matching.min_recall
    ))
}
