//! `simfind scan`: the whole near-duplicate pipeline over one or more
//! directories, written as CSV.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use simfind::input::read::ReadOptions;
use simfind::input::walk::WalkOptions;
use simfind::lsh::Banding;
use simfind::lsh::scurve;
use simfind::pipeline::plan::{Decision, Method, MethodChoice};
use simfind::pipeline::{self, ScanConfig, ScanOutcome, Verification};
use simfind::recipe::Recipe;
use simfind::sketch::SketchKind;
use simfind::text::normalize::Normalization;
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};

use crate::app::cli::parse_size;
use crate::app::exit;
use crate::app::output::{self, Sink};
use crate::app::report::{Report, ReportArgs};
use crate::app::ui::Ui;

/// The MinHash seed when `--seed` is not given.
pub const DEFAULT_SEED: u64 = 42;
pub const DEFAULT_BANDS: usize = 20;
pub const DEFAULT_ROWS: usize = 5;
/// Signatures hold bands × rows 32-bit values per document; beyond this the
/// signature costs more than exact methods would.
const MAX_SIGNATURE_LEN: usize = 1 << 16;

const EXAMPLES: &str = concat!(
    "EXAMPLES:
  simfind scan ./corpus --k 5 --bands 20 --rows 5       char 5-shingles, 100 hashes
  simfind scan ./a ./b --shingle word --k 3 --threshold 0.7 -o pairs.csv
  simfind scan ./news --shingle stopword                stop word + next two words
  simfind scan ./corpus | sort -t, -k3 -r | head         most similar first
  simfind scan ./corpus --method exact -t 0.9           every pair ≥ 0.9, none missed
  simfind scan ./docs --format clusters --keep newest    groups of near-duplicates
  simfind scan ./drop --reference ./archive --list-removable -0 | xargs -0 ls -l
                                                        what the archive already holds
  simfind scan ./corpus --exit-code -q -o pairs.csv      in cron: 0 found, 3 none

OUTPUT (CSV with header, one row per similar pair, sorted by a then b in walk order):
  a, b         the two paths as walked (root as given + relative path); a before b
  similarity   exact Jaccard similarity of the shingle sets (with --verify signature:
               the MinHash estimate), 6 decimals
  estimate     fraction of agreeing MinHash values, 6 decimals (empty with the exact
               method, which computes no signatures)
  shingles_a   distinct shingles in a
  shingles_b   distinct shingles in b
  shared       shingles in both (empty with --verify signature)

--format clusters (CSV with header, one row per file in a group; groups ordered by
their representative's path, the representative first, then the others in path order):
  group, path       group id (from 1) and the path
  size, modified    bytes, and modification time in UTC (RFC 3339, whole seconds)
  similarity        to the group's representative, 6 decimals (1.000000 for itself;
                    empty with --cluster connected when the two were not a pair)
  representative    true for the kept copy that the group is built around
  reference, kept   under a --reference DIR; kept (representative or reference)
--format jsonl: the same fields, one pair or (with --cluster) one group
{\"group\":…,\"files\":[…]} per line; a path that is not UTF-8 is written lossily
plus \"<field>_bytes\": [its bytes].

NORMALISATION (default): UTF-8 decoded lossily, full Unicode lowercase, every
whitespace run replaced by one space, trimmed. Words are maximal runs of
alphanumeric characters. A file shorter than one shingle is never paired.

",
    crate::app::cli::exit_status_help!()
);

/// Find near-duplicate files under one or more directories and write the
/// similar pairs as CSV.
///
/// Every file becomes a set of shingles, signed with MinHash (bands × rows
/// values); documents sharing a bucket in any band are candidates, and each
/// candidate is verified against the threshold.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Directories to scan.
    #[arg(required = true, value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    #[command(flatten)]
    pub signing: SigningArgs,

    /// Report pairs with similarity ≥ T, 0 < T ≤ 1 [default: the S-curve threshold (1/b)^(1/r)]. Alone, it also
    /// picks bands and rows (`simfind tune`, within 100 hashes); with them, a T far from the curve's steep part
    /// draws a warning.
    #[arg(long, short = 't', value_name = "T", help_heading = "LSH")]
    pub threshold: Option<f64>,

    /// How candidates are verified: exact Jaccard (no false positives) or the signature estimate.
    /// Exact verification first drops, unread, the candidates whose signatures agree far too
    /// little to reach T; that adds at most 1 % to the pairs at T that banding misses anyway.
    #[arg(long, value_enum, default_value_t = VerifyArg::Exact, help_heading = "LSH")]
    pub verify: VerifyArg,

    /// Most memory for shingle sets during exact verification (e.g. 512M, 2G). Sets are
    /// held only until their last candidate pair, within 16 MiB (or this, if smaller);
    /// a cluster of near-copies that needs more may use up to this cap so that each file
    /// is still read once, and beyond it is verified in re-read blocks. --method auto
    /// picks the exact join only if its sets are expected to fit in this cap.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size, help_heading = "LSH")]
    pub verify_memory: u64,
    /// How pairs are found: `exact` joins the shingle sets with length, prefix and
    /// position filters (every pair ≥ T, none missed; holds all sets in memory);
    /// `lsh` uses MinHash and banding (may miss pairs near T); `auto` picks by a cost
    /// model of threshold, corpus size and memory (the join only where its sets fit in
    /// the memory LSH would need anyway; LSH whenever --bands or --rows is given), and
    /// the summary says which and why.
    #[arg(long, value_enum, default_value_t = MethodArg::Auto, help_heading = "Method")]
    pub method: MethodArg,

    #[command(flatten)]
    pub files: FileArgs,

    /// Write the CSV to FILE (atomically: complete or not at all) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,

    /// No progress bars and no summary (warnings are still printed).
    #[arg(long, short = 'q', help_heading = "Output")]
    pub quiet: bool,

    /// Also name each file that takes no part in pairing without an error (binary, shorter than one shingle).
    #[arg(long, short = 'v', help_heading = "Output")]
    pub verbose: bool,

    #[command(flatten)]
    pub report: ReportArgs,

    /// Use and refresh the index FILE (built by `simfind index` with the same
    /// shingle and LSH options): unchanged files are not read again; the output is
    /// the same as without --db.
    #[arg(long, value_name = "FILE", help_heading = "Index")]
    pub db: Option<PathBuf>,

    /// With --db: how long to wait for another process updating the index.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        help_heading = "Index"
    )]
    pub wait: f64,
}

/// How files become signatures. Shared by `scan` and `index` (flattened into
/// both), so that an index and a scan given the same flags agree.
#[derive(clap::Args, Debug, Clone)]
pub struct SigningArgs {
    /// What a shingle is: k characters, k words, or a stop word and the next k−1 words.
    #[arg(long, value_enum, default_value_t = ShingleArg::Char, help_heading = "Shingles")]
    pub shingle: ShingleArg,

    /// Shingle length [default: 5 for char, 3 for word and stopword].
    #[arg(long, short = 'k', value_name = "K", help_heading = "Shingles")]
    pub k: Option<usize>,

    /// Stop words, one per line, instead of the built-in English list (with --shingle stopword).
    #[arg(long, value_name = "FILE", help_heading = "Shingles")]
    pub stopwords: Option<PathBuf>,

    /// Do not lowercase the text.
    #[arg(long, help_heading = "Shingles")]
    pub keep_case: bool,

    /// Do not collapse whitespace runs to one space (nor trim).
    #[arg(long, help_heading = "Shingles")]
    pub keep_whitespace: bool,

    /// Number of LSH bands b [default: 20; with --threshold alone, chosen by `simfind tune`].
    #[arg(long, short = 'b', value_name = "B", help_heading = "LSH")]
    pub bands: Option<usize>,

    /// Rows per band r; signatures have b × r values [default: 5; with --threshold alone, chosen by `simfind tune`].
    #[arg(long, short = 'r', value_name = "R", help_heading = "LSH")]
    pub rows: Option<usize>,

    /// Seed of the MinHash functions; the same seed gives the same output.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED, help_heading = "LSH")]
    pub seed: u64,

    /// MinHash kernel: `classic` (n hash functions per shingle) or `oph` (one-permutation
    /// hashing with optimal densification: one hash per shingle, several times faster,
    /// equally unbiased estimates; different signatures, so candidates differ slightly).
    #[arg(long, value_enum, default_value_t = MinHashArg::Classic, help_heading = "LSH")]
    pub minhash: MinHashArg,
}

/// Which files are read. Shared by `scan` and `index` (flattened into both).
#[derive(clap::Args, Debug, Clone)]
pub struct FileArgs {
    /// Follow symbolic links (loops are detected and reported).
    #[arg(long, short = 'L', help_heading = "Files")]
    pub follow_links: bool,

    /// Include hidden files and directories (names starting with '.').
    #[arg(long, short = 'H', help_heading = "Files")]
    pub hidden: bool,

    /// Only files whose relative path or name matches GLOB (repeatable).
    #[arg(long, value_name = "GLOB", help_heading = "Files")]
    pub include: Vec<String>,

    /// Skip files and directories whose relative path or name matches GLOB (repeatable).
    #[arg(long, value_name = "GLOB", help_heading = "Files")]
    pub exclude: Vec<String>,

    /// Skip files smaller than SIZE (e.g. 100, 4K).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Files")]
    pub min_size: Option<u64>,

    /// Skip files larger than SIZE (e.g. 10M).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Files")]
    pub max_size: Option<u64>,

    /// Also read files that look binary (a NUL byte in the first 8 KiB).
    #[arg(long, help_heading = "Files")]
    pub binary: bool,

    /// Hidden, for tests and benchmarks: files at least SIZE are signed
    /// chunk by chunk in bounded memory (default 1M). The output does not
    /// depend on it; tests set it to 0 to drive that path over whole corpora.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, hide = true)]
    pub chunked_min_size: Option<u64>,

    /// Hidden, for tests and benchmarks: the chunk size of that path
    /// (default 128K, at least 1).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, hide = true)]
    pub chunk_size: Option<u64>,
}

/// The read options, with the hidden chunking knobs applied.
fn read_options(files: &FileArgs) -> Result<ReadOptions> {
    let mut read = ReadOptions::default();
    if let Some(min) = files.chunked_min_size {
        read.chunked_min_size = min;
    }
    if let Some(size) = files.chunk_size {
        if size == 0 {
            bail!("--chunk-size must be at least 1 byte");
        }
        read.chunk_size = usize::try_from(size).unwrap_or(usize::MAX);
    }
    Ok(read)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShingleArg {
    Char,
    Word,
    Stopword,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MinHashArg {
    Classic,
    Oph,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    Auto,
    Exact,
    Lsh,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyArg {
    Exact,
    Signature,
}

/// Where the threshold came from, for the summary.
pub(crate) enum ThresholdSource {
    Given,
    SCurve,
    /// Given alone; bands and rows were chosen by `tune`.
    Tuned,
}

pub fn run(args: Args) -> Result<i32> {
    let (mut config, threshold_source) = configure(&args)?;
    if matches!(threshold_source, ThresholdSource::Given)
        && let Some(warning) = super::tune::steep_part_warning(
            config.recipe.banding.bands,
            config.recipe.banding.rows,
            config.threshold,
        )
    {
        eprintln!("simfind: warning: {warning}");
    }
    let report = Report::from_args(&args.report, &mut config.roots)?;
    let mut sink = Sink::create(args.output.as_deref())?;
    output::install_interrupt_handler();

    let started = Instant::now();
    let ui = Ui::new(args.quiet, args.verbose);
    let mut outcome = match &args.db {
        None => pipeline::scan(&config, &ui),
        Some(db) => {
            let mut index =
                crate::app::cmd::index::open_for(db, &config, args.wait).map_err(|err| {
                    if matches!(threshold_source, ThresholdSource::Tuned) {
                        err.context(format!(
                            "--threshold alone let tune choose {} bands × {} rows; give the \
                             index's --bands and --rows to use it",
                            config.recipe.banding.bands, config.recipe.banding.rows
                        ))
                    } else {
                        err
                    }
                })?;
            let refreshed = simfind::index::incremental::refresh(&mut index, &config, &ui, true)?;
            if !args.quiet {
                eprintln!(
                    "simfind: {}",
                    simfind::index::incremental::describe(&refreshed)
                );
            }
            let fresh_signatures = refreshed.fresh_signatures;
            let mut outcome = pipeline::find_pairs(
                &config,
                refreshed.files,
                refreshed.outcomes,
                refreshed.matrix,
                db_decision(config.method),
                refreshed.stats,
                &ui,
            );
            outcome.stats.signatures = fresh_signatures;
            outcome
        }
    };
    let reported = report.write(&mut outcome, config.threshold, &mut sink)?;
    sink.commit()?;

    if !args.quiet {
        eprintln!(
            "{}",
            summary(
                &outcome,
                &config,
                threshold_source,
                started.elapsed().as_secs_f64()
            )
        );
    }
    if !args.quiet {
        eprintln!("{}", reported.summary());
    }
    let status = if outcome.stats.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    };
    Ok(report.exit_status(status, &reported))
}

/// `1 pair`, `2 pairs`.
fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The method with `--db`: an index stores MinHash signatures, not shingle
/// sets, so only LSH can use it (`configure` refuses `--method exact`).
fn db_decision(choice: MethodChoice) -> Decision {
    match choice {
        MethodChoice::Fixed(Method::Exact) => unreachable!("refused by configure"),
        MethodChoice::Fixed(Method::Lsh) => Decision {
            method: Method::Lsh,
            reason: "lsh (as requested)".into(),
        },
        MethodChoice::Auto | MethodChoice::Banded => Decision {
            method: Method::Lsh,
            reason: "auto: lsh (--db reuses the index's MinHash signatures)".into(),
        },
    }
}

/// Turns arguments into a validated configuration before any work starts.
pub(crate) fn configure(args: &Args) -> Result<(ScanConfig, ThresholdSource)> {
    for root in &args.roots {
        let meta =
            std::fs::metadata(root).with_context(|| format!("cannot scan {}", root.display()))?;
        if !meta.is_dir() {
            bail!("cannot scan {}: not a directory", root.display());
        }
    }
    let kind = match args.signing.shingle {
        ShingleArg::Char => ShingleKind::Char,
        ShingleArg::Word => ShingleKind::Word,
        ShingleArg::Stopword => ShingleKind::StopWord,
    };
    let k = args.signing.k.unwrap_or(kind.default_k());
    if k == 0 {
        bail!("--k must be at least 1");
    }
    let stop_words = match (&args.signing.stopwords, kind) {
        (Some(path), ShingleKind::StopWord) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read stop words from {}", path.display()))?;
            let words = StopWords::from_words(text.lines());
            if words.is_empty() {
                bail!("{} contains no stop words", path.display());
            }
            words
        }
        (Some(_), _) => bail!("--stopwords applies only with --shingle stopword"),
        (None, ShingleKind::StopWord) => StopWords::english(),
        (None, _) => StopWords::default(),
    };
    if let Some(t) = args.threshold
        && !(t > 0.0 && t <= 1.0)
    {
        bail!("--threshold must be in (0, 1], got {t}");
    }
    // --threshold alone: bands and rows chosen by `tune` (issue #3).
    let shape = super::tune::scan_shape(
        args.signing.bands,
        args.signing.rows,
        args.threshold,
        (DEFAULT_BANDS, DEFAULT_ROWS),
    );
    let (bands, rows) = (shape.bands, shape.rows);
    if bands == 0 || rows == 0 {
        bail!("--bands and --rows must be at least 1");
    }
    if bands
        .checked_mul(rows)
        .is_none_or(|n| n > MAX_SIGNATURE_LEN)
    {
        bail!("--bands × --rows must be at most {MAX_SIGNATURE_LEN}");
    }
    let (threshold, source) = match args.threshold {
        Some(t) if shape.tuned.is_some() => (t, ThresholdSource::Tuned),
        Some(t) => (t, ThresholdSource::Given),
        None => (scurve::threshold(bands, rows), ThresholdSource::SCurve),
    };
    if args.method == MethodArg::Exact && args.db.is_some() {
        bail!(
            "--db stores MinHash signatures, which only the LSH method uses; drop --db for \
             --method exact, or use --method lsh (or auto) with --db"
        );
    }
    if args.method == MethodArg::Exact && args.verify == VerifyArg::Signature {
        bail!(
            "--verify signature applies to LSH only; the exact method always computes exact Jaccard (use --method lsh)"
        );
    }
    if let (Some(min), Some(max)) = (args.files.min_size, args.files.max_size)
        && min > max
    {
        bail!("--min-size ({min}) is larger than --max-size ({max})");
    }
    let config = ScanConfig {
        roots: args.roots.clone(),
        walk: WalkOptions {
            follow_links: args.files.follow_links,
            hidden: args.files.hidden,
            include: globs(&args.files.include, "--include")?,
            exclude: globs(&args.files.exclude, "--exclude")?,
            min_size: args.files.min_size,
            max_size: args.files.max_size,
        },
        read: read_options(&args.files)?,
        recipe: Recipe {
            include_binary: args.files.binary,
            normalization: Normalization {
                lowercase: !args.signing.keep_case,
                collapse_whitespace: !args.signing.keep_whitespace,
            },
            shingler: Shingler::new(kind, k, stop_words),
            banding: Banding { bands, rows },
            seed: args.signing.seed,
            sketch: match args.signing.minhash {
                MinHashArg::Classic => SketchKind::Classic,
                MinHashArg::Oph => SketchKind::Oph,
            },
        },
        threshold,
        verification: match args.verify {
            VerifyArg::Exact => Verification::Exact,
            VerifyArg::Signature => Verification::Signature,
        },
        verify_memory: usize::try_from(args.verify_memory).unwrap_or(usize::MAX),
        method: match args.method {
            MethodArg::Auto if args.signing.bands.is_some() || args.signing.rows.is_some() => {
                MethodChoice::Banded
            }
            MethodArg::Auto => MethodChoice::Auto,
            MethodArg::Exact => MethodChoice::Fixed(Method::Exact),
            MethodArg::Lsh => MethodChoice::Fixed(Method::Lsh),
        },
    };
    Ok((config, source))
}

fn globs(patterns: &[String], flag: &str) -> Result<Option<GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(false)
            .build()
            .with_context(|| format!("invalid {flag} pattern '{pattern}'"))?;
        set.add(glob);
    }
    Ok(Some(set.build()?))
}

fn summary(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    source: ThresholdSource,
    seconds: f64,
) -> String {
    let s = &outcome.stats;
    let mut skipped = Vec::new();
    for (count, one, many) in [
        (s.binary, "binary", "binary"),
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
        (s.errors, "error", "errors"),
    ] {
        if count > 0 {
            skipped.push(plural(count, one, many));
        }
    }
    let threshold = match source {
        ThresholdSource::Given => format!("{:.3}", config.threshold),
        ThresholdSource::Tuned => format!(
            "{:.3} ({}×{} chosen by tune)",
            config.threshold, config.recipe.banding.bands, config.recipe.banding.rows
        ),
        ThresholdSource::SCurve => format!(
            "{:.3} (S-curve threshold of {}×{})",
            config.threshold, config.recipe.banding.bands, config.recipe.banding.rows
        ),
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
            "{} verified by the join",
            plural(s.candidates, "pair", "pairs")
        ),
    };
    format!(
        "simfind: {} files, {:.1} MB in {:.2} s ({:.1} MB/s); not paired: {}; {}, \
         {}; {}; {} with similarity ≥ {} ({} {}-shingles, {} bands × {} rows, {} verification)",
        s.files,
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
        config.recipe.shingler.k(),
        config.recipe.shingler.kind().name(),
        config.recipe.banding.bands,
        config.recipe.banding.rows,
        match config.verification {
            Verification::Exact => "exact",
            Verification::Signature => "signature",
        },
    ) + &format!("; method {}", outcome.decision.reason)
}
