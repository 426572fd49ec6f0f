//! `simfind scan`: the whole near-duplicate pipeline over one or more
//! directories, written as CSV.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use simfind::cluster::removal;
use simfind::index::incremental;
use simfind::lsh::tune;
use simfind::pipeline::plan::Method;
use simfind::pipeline::{self, ScanConfig, ScanOutcome, Verification};

use crate::app::args::{self, FileArgs, MatchArgs, SigningArgs};
use crate::app::config::{self, ThresholdSource};
use crate::app::exit;
use crate::app::families;
use crate::app::flags::defs;
use crate::app::output::summary::{self, SummaryArgs};
use crate::app::output::{self, Sink, html};
use crate::app::report::{Report, ReportArgs, Reported};
use crate::app::ui::{Ui, Verbosity, plural, warning_prefix};

mod mode;
mod plan;
mod record_scan;
mod removal_default;
mod top;

use plan::write_scan_plan;
use removal_default::{removal_default_note, removal_threshold};
use top::TOP_FLOOR_CHANCE;
pub(crate) use top::top_floor;

use mode::Mode;

const EXAMPLES: &str = "EXAMPLES:
  simfind scan ./corpus -k 5 --bands 20 --rows 5        char 5-shingles, 100 hashes
  simfind scan ./a ./b --shingle word -k 3 --threshold 0.7 -o pairs.csv
  simfind scan ./news --shingle stopword                stop word + next two words
  simfind scan ./corpus --sort similarity --limit 10    the 10 most similar pairs
  simfind scan ./corpus --format tsv | tail -n +2 | sort -t$'\\t' -k3,3gr   coreutils
  simfind scan ./corpus --method exact -t 0.9           every pair ≥ 0.9, none missed
  simfind scan ./corpus --top 5                         each file's 5 nearest (a kNN graph)
  simfind scan ./docs --format clusters --keep newest    groups of near-duplicates (t = 0.9)
  simfind scan ./docs --format html -o report.html      review the groups in a browser
  simfind scan ./drop --reference ./archive --list-removable -0 | xargs -0 ls -l
                                                        what the archive already holds
  simfind scan ./corpus --exit-code -q -o pairs.csv      in cron: 0 found, 3 none
  simfind scan ./share -o pairs.csv --summary-json run.json   counts for scripts
  simfind scan --input vectors emb.csv -t 0.9           cosine ≥ 0.9 (docs/FAMILIES.md)
  simfind scan ./corpus --sketch simhash --radius 3     SimHash within 3 bits

OUTPUT (CSV with header, one row per similar pair, sorted by a then b in walk order):
  a, b         the two paths as walked (root as given + relative path); a before b
  similarity   exact Jaccard similarity of the shingle sets (with --verify signature:
               the MinHash estimate), 6 decimals
  estimate     fraction of agreeing MinHash values, 6 decimals (empty with the exact
               method, which computes no signatures)
  shingles_a   distinct shingles in a
  shingles_b   distinct shingles in b
  shared       shingles in both (empty with --verify signature)

--input vectors|bits and --sketch simhash write a,b,metric and similarity (cosine) or
distance (euclidean, hamming): docs/OUTPUT.md. Their --format clusters writes
group,id,representative,metric and the value; several files are one input (ids unique).

--format clusters (CSV with header, one row per file in a group; groups ordered by
their representative's path, the representative first, then the others in path order):
  group, path       group id (from 1) and the path
  size, modified    bytes, and modification time in UTC (RFC 3339, whole seconds)
  similarity        to the group's representative, 6 decimals (1.000000 for itself;
                    empty with --cluster connected when the two were not a pair)
  representative    true for the kept copy that the group is built around
  reference, kept   under a --reference DIR; kept (representative, reference, or
                    held back)
  only_in_removed   files: for a member not kept or held back, the share of its
                    shingles its kept copy lacks (1 - containment), 6 decimals;
                    more than --max-unique (0.01) holds it back (docs/ACTIONS.md)
--format tsv: the same columns tab-separated; in paths \\t \\n \\r \\\\ stand for tab,
newline, carriage return, backslash.
--format jsonl: the same fields, one pair or (with --cluster) one group
{\"group\":…,\"files\":[…]} per line; a path that is not UTF-8 is written lossily
plus \"<field>_bytes\": [its bytes]. Plus \"identical\": whether the pair's files,
or a member and its representative, are byte-identical (null for itself).
--format html: one self-contained page (no network) with the summary, the
histogram, the S-curve and the groups of --format clusters (t = 0.9 unless -t),
each member's side-by-side explanation against its kept copy (within
--html-budget), and a removal selection exported as a plan for dedupe --apply (or
as a NUL-separated list, for other tools).

NORMALISATION (default): UTF-8 decoded lossily, full Unicode lowercase, every
whitespace run replaced by one space, trimmed. Words are maximal runs of
alphanumeric characters. A file shorter than one shingle, and a file that looks
binary (without --binary), is paired only with its byte-identical copies.

IDENTICAL: -t 1 reports byte-identical files only (same content hash), whatever
their type; --same-text adds files whose texts are equal once normalised.

";

/// Find near-duplicate files under one or more directories and write the
/// similar pairs as CSV.
///
/// Every file becomes a set of shingles, signed with MinHash (bands × rows
/// values); documents sharing a bucket in any band are candidates, and each
/// candidate is verified against the threshold.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, args::EXIT_STATUS_SCAN))]
#[command(
    mut_args(defs::one("output", defs::output(defs::Output::Scan))),
    mut_args(defs::one("wait", defs::wait(defs::Wait::Scan))),
    mut_args(defs::one("db", defs::db(defs::Db::Scan)))
)]
pub struct Args {
    /// Directories to scan (a file is scanned as itself); optional with --files-from.
    /// With --input jsonl|csv|tsv|sets|vectors|bits: files of records ('-' is stdin).
    #[arg(
        required_unless_present_any = ["files_from", "files0_from"],
        value_name = "DIR"
    )]
    pub roots: Vec<PathBuf>,

    #[command(flatten)]
    pub signing: SigningArgs,

    #[command(flatten)]
    pub input: args::InputArgs,

    #[command(flatten)]
    pub matching: MatchArgs,

    #[command(flatten)]
    pub families: args::FamilyArgs,

    #[command(flatten)]
    pub files: FileArgs,

    // -o: defs::output.
    #[arg(long, help_heading = "Output")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub verbosity: Verbosity,

    #[command(flatten)]
    pub threads: args::ThreadArgs,

    #[command(flatten)]
    pub summary_json: SummaryArgs,

    #[command(flatten)]
    pub report: ReportArgs,

    /// Records: write the input's rows whose records are kept to FILE, in input order
    /// and in the input's form (a CSV keeps its header and delimiter), as UTF-8,
    /// atomically: the deduplicated file. Removals are decided as --list-removable
    /// decides them (-t 0.9 unless given, --cluster, --keep). One input file.
    #[arg(long, value_name = "FILE", help_heading = "Records")]
    pub write_kept: Option<PathBuf>,

    // --db: defs::db.
    #[arg(long, help_heading = "Index")]
    pub db: Option<PathBuf>,

    // --wait: defs::wait.
    #[arg(long, default_value_t = 30.0, help_heading = "Index")]
    pub wait: f64,

    /// Report only byte-identical files (MMDS 3.9.1), read as little as possible:
    /// files of one size are bucketed by a cheap hash — `prefix:N`, their first N
    /// bytes, or `positions:N`, N bytes at fixed random fractions of their length —
    /// and only those sharing a bucket are hashed in full, which decides (no false
    /// pair). `full` hashes every file whose size another file has. Empty files pair
    /// nothing; nothing is shingled (the shingle columns read 0) and LSH options do
    /// not apply.
    #[arg(long, value_name = "BY", help_heading = "Method")]
    pub identical_by: Option<pipeline::identical::IdenticalBy>,

    /// Write each item's K nearest neighbours by the exact measure among the LSH
    /// candidates (a kNN graph): one row per item and neighbour, a `rank` column
    /// after b (1 = nearest; ties by walk order), both directions of a pair
    /// where each is among the other's K. -t is then a floor [default: where the
    /// banding makes a pair a candidate with probability 0.05]. A neighbour at
    /// similarity s is missed with probability (1 - s^r)^b (docs/SEARCH.md).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Output")]
    pub top: Option<u64>,

    /// With -t 1, also pair files whose texts are only equal once normalised
    /// (a CRLF, an ALL-CAPS or a reflowed copy). Without it, -t 1 means
    /// byte-identical files, as in fclones.
    #[arg(long, help_heading = "Method")]
    pub same_text: bool,
}

pub fn run(args: Args) -> Result<i32> {
    let mode = Mode::of(&args)?;
    let kind = args.input.input;
    if args.top.is_some() {
        let refused = match mode {
            Mode::VectorFamily => Some(format!(
                "a family of points or fingerprints (--input {kind}, --sketch, --metric) yet"
            )),
            Mode::Icws => Some("--sketch icws".to_string()),
            Mode::Containment => Some("--metric containment".to_string()),
            Mode::IdenticalBy(_) => Some("--identical-by".to_string()),
            _ if args.input.per_field => Some("--per-field".to_string()),
            _ => None,
        };
        if let Some(what) = refused {
            bail!(
                "--top does not apply to {what}: it ranks the neighbours of files and of \
                 records (--input jsonl, csv, tsv, sets)"
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
                db: args.db.is_some(),
                summary_json: &args.summary_json,
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
    let threshold_source = top_floor(args.top, threshold_source, &mut config);
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
    let plan_sink = crate::app::cmd::dedupe::open_plan(args.report.plan.as_deref())?;
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
            let (outcome, stats) = pipeline::identical::find_identical(&config, by, &ui);
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
        write_scan_plan(plan_sink, &report, &outcome, &config)?;
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
            summary(
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
    let summary_line = summary(
        outcome,
        config,
        threshold,
        seconds,
        args.input.important_words,
    );
    let fields = summary_fields(outcome, config, threshold, args.input.important_words);
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

/// The `--summary-json` fields of the scan itself (the report adds its own):
/// every count of [`summary`]'s line, by name.
pub(crate) fn summary_fields(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    (source, min_recall, missed): (ThresholdSource, f64, Option<f64>),
    important_words: Option<usize>,
) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let s = &outcome.stats;
    let banding = config.recipe.banding;
    let value = json!({
        "files": s.files,
        "bytes": s.bytes,
        "skipped": summary::skipped(s),
        "errors": s.errors,
        "distinct_contents": s.unique_contents,
        "identical_files": s.identical_files,
        "signatures": s.signatures,
        "candidates": s.candidates,
        "ruled_out": s.ruled_out,
        "pairs": s.pairs,
        "likely_missed": missed,
        "method": {
            "name": match outcome.decision.method {
                Method::Lsh => "lsh",
                Method::Exact => "exact",
            },
            "reason": crate::app::speak::decision(&outcome.decision),
        },
        "lsh": {
            "bands": banding.bands,
            "rows": banding.rows,
            "hashes": banding.bands * banding.rows,
        },
        "shingles": {
            "kind": config.recipe.shingler.kind().name(),
            "k": config.recipe.shingler.k(),
            "important_words": important_words,
        },
        "threshold": {
            "value": config.threshold,
            "source": match source {
                ThresholdSource::Given => "given",
                ThresholdSource::Tuned => "tuned",
                ThresholdSource::SCurve => "s-curve",
                ThresholdSource::IndexShape => "index",
                ThresholdSource::TopFloor => "top-floor",
                ThresholdSource::Model => "model",
            },
            "min_recall": min_recall,
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

/// The files not compared, each paired only with byte-identical copies:
/// those that look binary, then those whose text could not be had, by
/// reason ("2 damaged docx", "3 image files"). Worded alike by `scan` and
/// `index`.
pub(crate) fn not_compared(s: &pipeline::ScanStats) -> Vec<String> {
    let mut phrases = Vec::new();
    if s.binary > 0 {
        phrases.push(format!("{} binary (identical copies only)", s.binary));
    }
    for (category, count) in &s.unextracted {
        let category = crate::app::speak::settings(category);
        // Kinds of binary file are named "image file": plural by count.
        let category = match category.strip_suffix(" file") {
            Some(kind) if *count != 1 => format!("{kind} files"),
            _ => category,
        };
        phrases.push(format!("{count} {category} (identical copies only)"));
    }
    phrases
}

/// `source`: where the threshold came from, `--min-recall`, and for a tuned
/// LSH scan the pairs ≥ T it likely missed.
pub(crate) fn summary(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    (source, min_recall, missed): (ThresholdSource, f64, Option<f64>),
    seconds: f64,
    important_words: Option<usize>,
) -> String {
    let s = &outcome.stats;
    let mut skipped = not_compared(s);
    for (count, one, many) in [
        (
            s.no_shingles,
            "shorter than one shingle",
            "shorter than one shingle",
        ),
        (s.walk_skips.special, "special file", "special files"),
        (
            s.walk_skips.symlinks,
            "symlink not followed",
            "symlinks not followed",
        ),
        (
            s.walk_skips.size,
            "outside size limits",
            "outside size limits",
        ),
        (s.walk_skips.same_file, "same file twice", "same file twice"),
        (
            s.walk_skips.hard_links,
            "hard link counted once",
            "hard links counted once",
        ),
        (s.walk_skips.hidden, "hidden", "hidden"),
        (s.walk_skips.excluded, "excluded", "excluded"),
        (
            s.walk_skips.ignored,
            "ignored by ignore files",
            "ignored by ignore files",
        ),
        (s.errors, "error", "errors"),
    ] {
        if count > 0 {
            skipped.push(plural(count, one, many));
        }
    }
    let threshold = match source {
        ThresholdSource::Given => format!("{:.3}", config.threshold),
        ThresholdSource::Tuned => format!(
            "{t:.3} ({}×{} chosen by tune: a pair at {t:.3} is found with probability ≥ {min_recall})",
            config.recipe.banding.bands,
            config.recipe.banding.rows,
            t = config.threshold,
        ),
        ThresholdSource::IndexShape => format!(
            "{:.3} ({}×{} from the index: its signatures were made with them)",
            config.threshold, config.recipe.banding.bands, config.recipe.banding.rows
        ),
        ThresholdSource::TopFloor => format!(
            "{:.3} (--top's floor: {}×{} makes a pair a candidate with probability {TOP_FLOOR_CHANCE} there)",
            config.threshold, config.recipe.banding.bands, config.recipe.banding.rows
        ),
        ThresholdSource::SCurve => format!(
            "{:.3} (S-curve threshold of {}×{})",
            config.threshold, config.recipe.banding.bands, config.recipe.banding.rows
        ),
        ThresholdSource::Model => format!("{:.3} (the model's default)", config.threshold),
    };
    // The join has no LSH candidates: what it counts is the pairs it verified.
    let candidates = match outcome.decision.method {
        Method::Lsh if s.ruled_out > 0 => format!(
            "{} ({} ruled out by their signatures)",
            plural(s.candidates, "candidate", "candidates"),
            s.ruled_out
        ),
        Method::Lsh => plural(s.candidates, "candidate", "candidates"),
        Method::Exact => format!(
            "{} verified by the join{}",
            plural(s.candidates, "pair", "pairs"),
            summary::join_work(config.exact_index, s)
        ),
    };
    format!(
        "simfind: {}, {:.1} MB in {:.2} s ({:.1} MB/s); not paired: {}; {}, \
         {}; {}; {} with similarity ≥ {} ({}, {} bands × {} rows, {} verification)",
        plural(s.files, "file", "files"),
        s.bytes as f64 / 1e6,
        seconds,
        s.bytes as f64 / 1e6 / seconds.max(1e-9),
        if skipped.is_empty() {
            "none".to_string()
        } else {
            skipped.join(", ")
        },
        plural(s.unique_contents, "distinct content", "distinct contents"),
        plural(s.identical_files, "identical file", "identical files"),
        candidates,
        plural(s.pairs, "pair", "pairs"),
        threshold,
        match important_words {
            Some(n) => format!(
                "each file's {}",
                plural(n as u64, "most important word", "most important words")
            ),
            None => format!(
                "{} {}-shingles",
                config.recipe.shingler.k(),
                config.recipe.shingler.kind().name()
            ),
        },
        config.recipe.banding.bands,
        config.recipe.banding.rows,
        match config.verification {
            Verification::Exact => "exact",
            Verification::Signature => "signature",
        },
    ) + &format!(
        "; method {}",
        crate::app::speak::decision(&outcome.decision)
    ) + &match missed {
        // A sum of tiny negative rounding errors printed "~-0.0".
        Some(m) => format!(
            "; ~{:.1} pairs ≥ {:.3} likely missed (S-curve over the similarities of the pairs found)",
            if m > 0.0 { m } else { 0.0 },
            config.threshold
        ),
        None => String::new(),
    }
}

/// The exit status of a scan (files or records), and its `--summary-json`
/// document written with it.
fn finish(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    (report, reported): (&Report, &Reported),
    summary_json: Option<summary::SummaryJson>,
    threshold: (ThresholdSource, f64, Option<f64>),
    (seconds, ui): (f64, &Ui),
    // Important words, and fields of the summary only some scans have.
    (important_words, extra): (Option<usize>, serde_json::Map<String, serde_json::Value>),
) -> Result<i32> {
    let status = if outcome.stats.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    };
    let status = report.exit_status(status, reported);
    if let Some(out) = summary_json {
        let mut fields = summary_fields(outcome, config, threshold, important_words);
        fields.extend(reported.json());
        fields.extend(extra);
        fields.insert(
            "seconds".into(),
            summary::seconds(seconds, &ui.stage_seconds()),
        );
        out.write(&summary::document("scan", status, fields))?;
    }
    Ok(status)
}
