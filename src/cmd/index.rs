//! `simfind index`: build or update the persistent index of signatures, so that
//! nightly rescans read only what changed and `query` can look documents up.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use simfind::incremental;
use simfind::index::{Index, OpenOptions};
use simfind::pipeline::ScanConfig;

use crate::cmd::scan::{self, MethodArg, MinHashArg, ShingleArg, VerifyArg};
use crate::exit;
use crate::report::{FormatArg, ReportArgs};
use crate::ui::Ui;

const EXAMPLES: &str = "EXAMPLES:
  simfind index ./share --db share.simfind             build, or update after changes
  simfind scan ./share --db share.simfind              pairs, reading only changed files
  simfind query new.txt --db share.simfind             is new.txt like anything indexed?
  simfind index ./src --db src.simfind --shingle word --k 3 --bands 25 --rows 4

An update keeps the stored signature of every file whose size, modification
time, device and inode are unchanged (without reading it), signs new and changed
files and forgets vanished ones, in one transaction: a run killed at any moment
leaves the previous index intact. A second update of the same index waits for
the first (up to --wait seconds) and then gives up with an error.

The shingle and LSH options must be the ones the index was built with; other
values are refused with a message naming the difference. To change them, delete
the index file and build it again. The schema is in docs/INDEX.md.

EXIT STATUS:
  0    success
  1    finished, but some files were skipped because of errors (warnings on stderr
       name each file); the index holds every other file
  2    usage error or fatal error (including a locked, damaged or incompatible
       index); the index is unchanged";

/// Build or update an index of document signatures (a single SQLite file).
///
/// Files are walked and signed exactly as `simfind scan` does with the same
/// options; the index then serves `scan --db` and `query`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Directories to index.
    #[arg(required = true, value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    /// The index file (created if missing).
    #[arg(long, value_name = "FILE", required = true)]
    pub db: PathBuf,

    /// How long to wait for another process updating the same index.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub wait: f64,

    // The options below mirror `scan`'s, so that an index and a scan with the same
    // flags agree; they are converted to `scan::Args` and validated by scan.
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

    /// Number of LSH bands b [default: 20].
    #[arg(long, short = 'b', value_name = "B", help_heading = "LSH")]
    pub bands: Option<usize>,

    /// Rows per band r; signatures have b × r values [default: 5].
    #[arg(long, short = 'r', value_name = "R", help_heading = "LSH")]
    pub rows: Option<usize>,

    /// Seed of the MinHash functions.
    #[arg(long, value_name = "N", default_value_t = scan::DEFAULT_SEED, help_heading = "LSH")]
    pub seed: u64,

    /// MinHash kernel: `classic` or `oph` (see `scan --help`); `scan --db` and
    /// `query` must use the index's.
    #[arg(long, value_enum, default_value_t = MinHashArg::Classic, help_heading = "LSH")]
    pub minhash: MinHashArg,

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
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::parse_size, help_heading = "Files")]
    pub min_size: Option<u64>,

    /// Skip files larger than SIZE (e.g. 10M).
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::parse_size, help_heading = "Files")]
    pub max_size: Option<u64>,

    /// Also read files that look binary (a NUL byte in the first 8 KiB).
    #[arg(long, help_heading = "Files")]
    pub binary: bool,

    /// No progress bars and no summary (warnings are still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl Args {
    fn to_scan_args(&self) -> scan::Args {
        scan::Args {
            roots: self.roots.clone(),
            shingle: self.shingle,
            k: self.k,
            stopwords: self.stopwords.clone(),
            keep_case: self.keep_case,
            keep_whitespace: self.keep_whitespace,
            bands: self.bands,
            rows: self.rows,
            threshold: None,
            verify: VerifyArg::Exact,
            verify_memory: u64::MAX,
            seed: self.seed,
            minhash: self.minhash,
            method: MethodArg::Lsh,
            follow_links: self.follow_links,
            hidden: self.hidden,
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            min_size: self.min_size,
            max_size: self.max_size,
            binary: self.binary,
            output: None,
            quiet: self.quiet,
            verbose: false,
            report: ReportArgs {
                format: FormatArg::Pairs,
                list_removable: false,
                null: false,
                min_similarity: None,
                max_similarity: None,
                limit: None,
                exit_code: false,
                cluster: None,
                keep: None,
                reference: Vec::new(),
            },
            db: Some(self.db.clone()),
            wait: self.wait,
        }
    }
}

/// Validates `--wait`.
pub(crate) fn wait_duration(seconds: f64) -> Result<Duration> {
    if !(seconds.is_finite() && (0.0..=86_400.0).contains(&seconds)) {
        bail!("--wait must be between 0 and 86400 seconds, got {seconds}");
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Opens (or creates) the index at `db` for signatures made with `config`.
pub(crate) fn open_for(db: &Path, config: &ScanConfig, wait: f64) -> Result<Index> {
    let options = OpenOptions {
        busy_timeout: wait_duration(wait)?,
    };
    if db.is_dir() {
        bail!(
            "--db {} is a directory; give the index file's path",
            db.display()
        );
    }
    let params = incremental::params_for(config);
    Ok(Index::open_or_create(db, &params, options)?)
}

pub fn run(args: Args) -> Result<i32> {
    let (config, _) = scan::configure(&args.to_scan_args())?;
    // No interrupt handler: SIGINT/SIGTERM end the process like a crash would, and
    // the uncommitted update is rolled back on the next open.
    let mut index = open_for(&args.db, &config, args.wait)?;
    let started = Instant::now();
    let ui = Ui::new(args.quiet, false);
    let refreshed = incremental::refresh(&mut index, &config, &ui, false)
        .with_context(|| format!("cannot update the index {}", args.db.display()))?;
    if !args.quiet {
        let size = std::fs::metadata(&args.db).map(|m| m.len()).unwrap_or(0);
        let docs = index.len()?;
        eprintln!(
            "simfind: {} in {:.2} s; index {}: {} documents, {:.1} MB ({} bytes per document)",
            incremental::describe(&refreshed),
            started.elapsed().as_secs_f64(),
            args.db.display(),
            docs,
            size as f64 / 1e6,
            size.checked_div(docs).unwrap_or(0),
        );
    }
    Ok(if refreshed.stats.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    })
}
