//! The argument vocabulary subcommands share: clap groups flattened into several
//! commands, the value enums, the value parsers and defaults, and the EXIT STATUS
//! tables of every `--help`.
//!
//! Role: the raw, parsed layer (ripgrep's "low args"). Nothing here reads a file
//! or builds a library type beyond a one-to-one mapping of an enum; turning the
//! groups into a validated [`simfind::pipeline::ScanConfig`] or
//! [`simfind::recipe::Recipe`] is `config`'s job.
//!
//! Invariants: a group is defined once, so `scan`, `index` and `compare` given the
//! same flags mean the same thing; a value parser rejects a bad value as a usage
//! error (exit 2) naming the option before any work starts; every EXIT STATUS
//! table is rendered from the codes in [`crate::app::exit`].

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::ValueEnum;
use simfind::pipeline::Verification;
use simfind::similarity::join::ExactIndex;
use simfind::sketch::SketchKind;
use simfind::text::shingle::ShingleKind;

use crate::app::exit;

/// Scan's default shape, 20 bands × 5 rows: library policy, shown by `compare`
/// and `tune` as their defaults.
pub use simfind::lsh::tune::{DEFAULT_BANDS, DEFAULT_ROWS};

/// The MinHash seed when `--seed` is not given.
pub const DEFAULT_SEED: u64 = 42;

/// `-j/--threads`, flattened into the subcommands that run in parallel
/// (`scan`, `index`, `query`, `sign`, `verify`, `group`, `tune`, `dedupe`), so that it is listed only where it does
/// something; `simfind -j N <subcommand>` before the subcommand works too.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct ThreadArgs {
    /// Worker threads; 0 (the default) is one per core. Output does not depend on it.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16))]
    pub threads: Option<u16>,
}

/// How a document becomes a shingle set: what a shingle is and how the text is
/// normalised first. Shared by `scan`, `index` (through [`SigningArgs`]) and
/// `compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct ShingleArgs {
    /// What a shingle is: k characters, k words, a stop word and the next k−1 words, or k
    /// words that are not stop words (`important`) [default: char].
    #[arg(long, value_enum, help_heading = "Shingles")]
    pub shingle: Option<ShingleArg>,

    /// Shingle length, at most 256 [default: 5 for char, 3 for word and stopword, 1 for
    /// important]; `--k` is an alias.
    #[arg(
        long = "shingle-size",
        short = 'k',
        alias = "k",
        value_name = "K",
        help_heading = "Shingles"
    )]
    pub k: Option<usize>,

    /// Stop words, one per line, instead of the built-in English list (with --shingle stopword
    /// or important).
    #[arg(long, value_name = "FILE", help_heading = "Shingles")]
    pub stopwords: Option<PathBuf>,

    /// Do not lowercase the text.
    #[arg(long, help_heading = "Shingles")]
    pub keep_case: bool,

    /// Do not collapse whitespace runs to one space (nor trim).
    #[arg(long, help_heading = "Shingles")]
    pub keep_whitespace: bool,

    /// Remove every whitespace character before shingling character shingles (MMDS
    /// 3.2.2's alternative: "touch down" and "touchdown" give the same shingles).
    #[arg(long, help_heading = "Shingles", conflicts_with = "keep_whitespace")]
    pub drop_whitespace: bool,
}

/// Which sketch signs the shingle sets. Shared by `scan`, `index` (through
/// [`SigningArgs`]) and `compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct SketchArgs {
    /// MinHash kernel: `classic` (n hash functions per shingle) or `oph` (one-permutation
    /// hashing with optimal densification: one hash per shingle, several times faster,
    /// equally unbiased estimates; different signatures, so candidates differ slightly) or
    /// `block` (the row-block speed-up of the MMDS lecture notes: OPH's blocks kept ∞ when
    /// empty, estimate a/(a+d) over the blocks not empty in both). [default: classic]
    #[arg(long, value_enum, help_heading = "LSH")]
    pub minhash: Option<MinHashArg>,
}

/// How files become signatures. Shared by `scan` and `index` (flattened into
/// both), so that an index and a scan given the same flags agree.
#[derive(clap::Args, Debug, Clone)]
pub struct SigningArgs {
    #[command(flatten)]
    pub shingles: ShingleArgs,

    /// Number of LSH bands b [default: 20; with --threshold alone, chosen by `simfind tune`;
    /// with an existing --db index, the index's].
    #[arg(long, short = 'b', value_name = "B", help_heading = "LSH")]
    pub bands: Option<usize>,

    /// Rows per band r; signatures have b × r values [default: 5; with --threshold alone, chosen
    /// by `simfind tune`; with an existing --db index, the index's].
    #[arg(long, short = 'r', value_name = "R", help_heading = "LSH")]
    pub rows: Option<usize>,

    /// Seed of the MinHash functions; the same seed gives the same output [default: 42; with
    /// --db, the index's].
    #[arg(long, value_name = "N", help_heading = "LSH")]
    pub seed: Option<u64>,

    #[command(flatten)]
    pub sketch: SketchArgs,
}

/// How candidate pairs are found and verified (`scan`).
#[derive(clap::Args, Debug, Clone)]
pub struct MatchArgs {
    /// Only pairs of files under different roots (fclones' --isolate): a new drop
    /// against an archive, not the copies inside either. Same-root candidates are
    /// dropped before verification; groups link files across roots only. The
    /// --files-from list counts as one root.
    #[arg(long, help_heading = "Files")]
    pub isolate: bool,

    /// Report pairs with similarity ≥ T, 0 < T ≤ 1 [default: the S-curve threshold (1/b)^(1/r); 0.9 where
    /// files are judged removable: --list-removable, groups with --keep or --reference, --format html, dedupe]. Alone, it also
    /// picks bands and rows (`simfind tune`, within 100 hashes); with them, a T far from the curve's steep part
    /// draws a warning.
    #[arg(long, short = 't', value_name = "T", help_heading = "LSH")]
    pub threshold: Option<f64>,

    /// With --threshold alone: bands and rows are chosen so that a pair at T is found with
    /// probability ≥ R (banding and the signature rule-out together). Lower it to trade
    /// recall for speed. Under --method auto, a given --bands/--rows below it makes auto
    /// prefer the exact join, or warn.
    #[arg(long, value_name = "R", default_value_t = simfind::lsh::tune::DEFAULT_MIN_RECALL,
          value_parser = unit_open, help_heading = "LSH")]
    pub min_recall: f64,

    /// How candidates are verified: exact Jaccard (no false positives) or the signature estimate.
    /// Exact verification first drops, unread, the candidates whose signatures agree far too
    /// little to reach T; that adds at most 1 % to the pairs at T that banding misses anyway.
    #[arg(long, value_enum, default_value_t = VerifyArg::Exact, help_heading = "LSH")]
    pub verify: VerifyArg,

    /// Most memory for shingle sets during exact verification (e.g. 512M, 2G). Sets are
    /// held only until their last candidate pair, within 16 MiB (or this, if smaller);
    /// a cluster of near-copies that needs more may use up to this cap so that each file
    /// is still read once, and beyond it is verified in re-read blocks. A pair whose two
    /// sets alone exceed it is verified in passes over parts of the hash space (each
    /// re-reads both files; -v names the pair). With --verify signature it caps the set
    /// that counts a large file's shingles. --method auto picks the exact join only if
    /// its sets are expected to fit in this cap.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size, help_heading = "LSH")]
    pub verify_memory: u64,
    /// How pairs are found: `exact` joins the shingle sets with length, prefix and
    /// position filters (every pair ≥ T, none missed; holds all sets in memory);
    /// `lsh` uses MinHash and banding (may miss pairs near T); `auto` picks by a cost
    /// model of threshold, corpus size and memory (the join only where its sets fit in
    /// the memory LSH would need anyway; LSH whenever --bands or --rows is given; a join
    /// whose first sampled probes predict far more CPU than LSH is given up for LSH over
    /// its sets, already in memory), and the summary says which and why. With --input
    /// vectors|bits: `exact` measures every pair (blocked matrix products, each pair near T
    /// measured again in f64), `auto` picks it when its work is predicted below LSH's, from
    /// a fixed-seed sample of the points' pairs (docs/FAMILIES.md).
    #[arg(long, value_enum, default_value_t = MethodArg::Auto, help_heading = "Method")]
    pub method: MethodArg,
    /// With --method exact: the join's index, to compare the refinements of
    /// MMDS 3.9 (docs/MMDS.md): `length` compares every pair the length filter
    /// allows; `prefix` indexes each set's first ⌊(1−T)·L⌋+1 elements; `position`
    /// and `suffix` index them by position, and by position and suffix length. All
    /// find the same pairs; the summary then counts index entries, entries found
    /// and pairs compared [default: ppjoin, AllPairs/PPJoin, the fastest].
    #[arg(long, value_enum, value_name = "INDEX", help_heading = "Method")]
    pub exact_index: Option<ExactIndexArg>,
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

    /// Skip files and directories whose relative path or name matches GLOB (repeatable);
    /// GLOB ending in '/' matches directories only, as in .gitignore ('target/').
    #[arg(long, value_name = "GLOB", help_heading = "Files")]
    pub exclude: Vec<String>,

    /// Do not honour ignore files. By default, as ripgrep and fd do, `.ignore` and
    /// `.simfindignore` in any directory under a root, and `.gitignore` inside a git
    /// repository, name files and directories to skip (`.simfindignore` wins over
    /// `.ignore`, which wins over `.gitignore`; a deeper file wins). A file share
    /// that is not a repository is walked whole unless it holds such files; a
    /// share that is a checkout skips what git skips (build output, caches).
    #[arg(long, help_heading = "Files")]
    pub no_ignore: bool,

    /// Read the files to scan from FILE ('-' for stdin), one path per line, besides
    /// any DIR: `fd -e txt | simfind scan --files-from -`. Paths are used and
    /// reported as given; one that is missing or not a regular file is named and
    /// skipped (exit 1). Hidden names and ignore files do not apply to them.
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Files",
        conflicts_with = "files0_from"
    )]
    pub files_from: Option<PathBuf>,

    /// As --files-from, with NUL-terminated paths (names may hold newlines):
    /// `fd -0 -e txt | simfind scan --files0-from -` (GNU du/wc spell it so; -0 is
    /// --list-removable's NUL output).
    #[arg(long, value_name = "FILE", help_heading = "Files")]
    pub files0_from: Option<PathBuf>,

    /// Treat hard links to one file as copies of it (paired at 1.0); by default a
    /// file is read once, at its first path, and its other links are counted.
    #[arg(long, help_heading = "Files")]
    pub hardlinks_as_copies: bool,

    /// Skip files smaller than SIZE (e.g. 100, 4K; K/M/G = KiB/MiB/GiB, KB/MB/GB = 10³/10⁶/10⁹).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Files")]
    pub min_size: Option<u64>,

    /// Skip files larger than SIZE (e.g. 10M = 10 MiB, 10MB = 10⁷ bytes).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Files")]
    pub max_size: Option<u64>,

    /// Also read files that look binary (a NUL byte in the first 8 KiB).
    #[arg(long, help_heading = "Files")]
    pub binary: bool,

    /// Read files ahead with N threads besides the -j signing threads, for network
    /// file systems (NFS, SMB) where every open and read waits on the network; 0
    /// (default): each signing thread reads its own files, which suits local disks.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u16).range(0..=1024), help_heading = "Files")]
    pub io_threads: u16,

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

/// What the positional inputs are, and how records are read from them
/// (`scan --input`). Flattened into `scan`.
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// What the inputs are: `files` (directories walked for files: the default), or
    /// files of records, one document per line or row ('-' is stdin): `jsonl` (JSON
    /// Lines), `csv`, `tsv` (a header row; RFC 4180), `sets` (`id<TAB>token token …`:
    /// whole tokens, not shingled); or one file of points for the other families
    /// (docs/FAMILIES.md): `vectors` (CSV/TSV `id,x1,…,xd`), `bits` (`id,0101…` or
    /// `id,0x…`). The id columns of the output are the record ids. csv and tsv fields are
    /// short: their char shingles are 2 characters unless -k is given.
    #[arg(long, value_name = "KIND", default_value = "files",
          value_parser = input_kind, help_heading = "Records")]
    pub input: simfind::input::kind::InputKind,

    /// jsonl: the id's field, a dotted path into the object (`meta.id`) [default: id].
    #[arg(long, value_name = "PATH", help_heading = "Records")]
    pub id_field: Option<String>,

    /// jsonl: the text's fields, dotted paths, comma-separated (`title,body.text`)
    /// [default: text].
    #[arg(
        long,
        value_name = "PATHS",
        value_delimiter = ',',
        help_heading = "Records"
    )]
    pub text_field: Vec<String>,

    /// csv/tsv: the id column's name in the header [default: id].
    #[arg(long, value_name = "NAME", help_heading = "Records")]
    pub id_column: Option<String>,

    /// csv/tsv: the columns that make the document, comma-separated [default: every
    /// column but the id].
    #[arg(
        long,
        value_name = "A,B,C",
        value_delimiter = ',',
        help_heading = "Records"
    )]
    pub columns: Vec<String>,

    /// csv/tsv/jsonl: each field shingled, signed and banded on its own (MMDS 3.8); a
    /// pair is a candidate if it collides in any field, and its similarity is the
    /// weighted mean of the fields' Jaccard over the fields non-empty in both records
    /// (an empty field is unknown, not a disagreement). One column per field follows.
    #[arg(long, help_heading = "Records")]
    pub per_field: bool,

    /// With --per-field: one weight per field, in field order, comma-separated
    /// [default: equal].
    #[arg(long, value_name = "W,W,…", value_delimiter = ',', value_parser = weight,
          help_heading = "Records")]
    pub weights: Vec<f64>,

    /// With --per-field: only these fields' bands make candidates (comma-separated
    /// names; every field is still scored) [default: every field]. Leave out fields
    /// with few distinct values (city, state): each of their buckets pairs every
    /// record sharing a value.
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        help_heading = "Records"
    )]
    pub candidate_fields: Vec<String>,

    /// Record linkage of two inputs: only pairs with one record from each (`a` from the
    /// first, `b` from the second); ids need only be unique within each.
    #[arg(long, help_heading = "Records")]
    pub link: bool,

    /// scan: keep each document's N words of highest TF.IDF (MMDS 1.3.1: term frequency over
    /// the document's most frequent word, times log2 of the documents over those with the
    /// word; ties in byte order) and compare documents as sets of those words (--shingle
    /// word -k 1). Files (directories scanned) are read twice: once to count each word's
    /// documents (identical files count once), once to sign; a file changed in between
    /// is reported and pairs nothing. Also for --input jsonl/csv/tsv records.
    #[arg(long, value_name = "N", value_parser = count, help_heading = "Shingles")]
    pub important_words: Option<usize>,

    /// sets: each line is one `id<TAB>token` pair; the tokens of an id make its set
    /// (with --sketch icws `id<TAB>token<TAB>weight`).
    #[arg(long, help_heading = "Records")]
    pub pairs: bool,

    /// A bad row (ragged, missing id or field, duplicate id, bad UTF-8, too long; for
    /// vectors and bits also a bad number, NaN/inf or another length) is a warning naming
    /// file and line and is skipped (exit 1); by default it is an error (exit 2).
    #[arg(long, help_heading = "Records")]
    pub skip_bad_rows: bool,

    /// The longest line (or CSV row) kept; a longer one is a bad row, read past
    /// without being held.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size,
          help_heading = "Records")]
    pub max_line_length: u64,
}

/// An `--input` kind, by its name.
pub fn input_kind(text: &str) -> Result<simfind::input::kind::InputKind, String> {
    text.parse()
        .map_err(|e: simfind::input::kind::UnknownInputKind| e.to_string())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShingleArg {
    Char,
    Word,
    Stopword,
    Important,
}

impl ShingleArg {
    pub fn kind(self) -> ShingleKind {
        match self {
            ShingleArg::Char => ShingleKind::Char,
            ShingleArg::Word => ShingleKind::Word,
            ShingleArg::Stopword => ShingleKind::StopWord,
            ShingleArg::Important => ShingleKind::Important,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MinHashArg {
    Classic,
    Oph,
    Block,
}

impl MinHashArg {
    pub fn sketch(self) -> SketchKind {
        match self {
            MinHashArg::Classic => SketchKind::Classic,
            MinHashArg::Oph => SketchKind::Oph,
            MinHashArg::Block => SketchKind::Block,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    Auto,
    Exact,
    Lsh,
}

/// `--exact-index`: the names of [`ExactIndex`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExactIndexArg {
    Ppjoin,
    Length,
    Prefix,
    Position,
    Suffix,
}

impl ExactIndexArg {
    pub fn index(self) -> ExactIndex {
        match self {
            ExactIndexArg::Ppjoin => ExactIndex::PpJoin,
            ExactIndexArg::Length => ExactIndex::Length,
            ExactIndexArg::Prefix => ExactIndex::Prefix,
            ExactIndexArg::Position => ExactIndex::Position,
            ExactIndexArg::Suffix => ExactIndex::Suffix,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyArg {
    Exact,
    Signature,
}

impl VerifyArg {
    pub fn verification(self) -> Verification {
        match self {
            VerifyArg::Exact => Verification::Exact,
            VerifyArg::Signature => Verification::Signature,
        }
    }
}

/// `--format` of the commands that print a human table or the same as CSV
/// (`curve`, `tune`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TextOrCsv {
    Text,
    Csv,
}

/// Parses a byte size (`512K`, `10MB`, `1GiB`): in the library so that the
/// fuzz target checks the function the arguments go through.
pub use simfind::size::parse_size;

/// An integer ≥ 1 (bands, rows, hash counts, AND/OR sizes).
pub fn count(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    if n == 0 {
        return Err("must be at least 1".into());
    }
    Ok(n)
}

fn number(text: &str) -> Result<f64, String> {
    let x: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if !x.is_finite() {
        return Err("must be a finite number".into());
    }
    Ok(x)
}

/// A similarity threshold or probability in `(0, 1]`.
pub fn unit_open_closed(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if x <= 0.0 || x > 1.0 {
        return Err(format!(
            "{x} is not in (0, 1]: it must be greater than 0 and at most 1"
        ));
    }
    Ok(x)
}

/// A probability in `(0, 1)`: `--min-recall` (1 is out of reach for T < 1).
pub fn unit_open(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if x <= 0.0 || x >= 1.0 {
        return Err(format!(
            "{x} is not in (0, 1): it must be greater than 0 and less than 1"
        ));
    }
    Ok(x)
}

/// A distance or probability in `[0, 1]`.
pub fn unit_closed(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if !(0.0..=1.0).contains(&x) {
        return Err(format!("{x} is not in [0, 1]"));
    }
    Ok(x)
}

/// A weight: finite and ≥ 0.
pub fn weight(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if x < 0.0 {
        return Err(format!("{x} is negative: weights must be 0 or more"));
    }
    Ok(x)
}

/// Validates `--wait` (`scan --db`, `index`, `query`). Checked after parsing, not
/// by clap, so its message reads like the other configuration errors.
pub fn wait_duration(seconds: f64) -> Result<Duration> {
    if !(seconds.is_finite() && (0.0..=86_400.0).contains(&seconds)) {
        bail!("--wait must be between 0 and 86400 seconds, got {seconds}");
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// One row of an EXIT STATUS table: a code from [`exit`] and what it means
/// for the command; each `\n` in the meaning continues it on an indented line.
pub type ExitRow = (i32, &'static str);

const SUCCESS: ExitRow = (exit::OK, "success");
const USAGE_ONLY: ExitRow = (exit::FATAL, "usage error (nothing printed on stdout)");

/// `scan`, and the top-level `--help`.
pub const EXIT_STATUS_SCAN: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some files were skipped because of errors (warnings on stderr\n\
         name each file); the output is complete for all other files",
    ),
    (exit::FATAL, "usage error or fatal error; no output written"),
    (
        exit::NONE_FOUND,
        "with --exit-code: every file was read and nothing was found (then 0 means found)",
    ),
    (
        exit::INTERRUPTED,
        "interrupted (SIGINT/SIGTERM); no output file written",
    ),
];

/// `index`.
pub const EXIT_STATUS_INDEX: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some files were skipped because of errors (warnings on stderr\n\
         name each file); the index holds every other file",
    ),
    (
        exit::FATAL,
        "usage error or fatal error (including a locked, damaged or incompatible\n\
         index); the index is unchanged",
    ),
];

/// `query`.
pub const EXIT_STATUS_QUERY: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some query or candidate files could not be read (warnings on\n\
         stderr name each one); the output is complete for the others",
    ),
    (
        exit::FATAL,
        "usage error or fatal error (missing, damaged or incompatible index)",
    ),
];

/// `compare`.
pub const EXIT_STATUS_COMPARE: &[ExitRow] = &[
    SUCCESS,
    (exit::FATAL, "usage error, or a file could not be read"),
];

/// `sign`.
pub const EXIT_STATUS_SIGN: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some files were skipped because of errors (warnings on stderr\n\
         name each file); the shard holds every other file",
    ),
    (
        exit::FATAL,
        "usage error or fatal error; no shard file written (a run killed half-way\n\
         leaves only .-prefixed .tmp files, which no reader takes)",
    ),
];

/// `verify --pairs` and `group --pairs`.
pub const EXIT_STATUS_EXCHANGE: &[ExitRow] = &[
    SUCCESS,
    (
        exit::PARTIAL,
        "finished, but some files could not be re-read or changed since they were\n\
         signed (warnings on stderr name each one); the output is complete for the others",
    ),
    (
        exit::FATAL,
        "usage error, or a missing, truncated or inconsistent Parquet file (another\n\
         recipe, a doc_id twice, a pair naming an unknown id); no output written",
    ),
    (
        exit::NONE_FOUND,
        "with --exit-code: every file was read and nothing was found (then 0 means found)",
    ),
];

/// Where `verify --pairs` and `group --pairs` read an engine's pairs and the
/// signed documents, and how they verify them.
#[derive(clap::Args, Debug, Clone)]
pub struct ExchangeArgs {
    /// The engine's candidate pairs: a directory of Parquet files (or one file)
    /// with int64 columns a and b (doc_ids), as spark/simfind_lsh.py writes them.
    #[arg(long, value_name = "DIR", required = true, help_heading = "Exchange")]
    pub pairs: PathBuf,

    /// The directory `simfind sign --out` wrote (docs/ and signatures/ of every
    /// shard). Its recipe is the one the files are verified with.
    #[arg(long, value_name = "DIR", required = true, help_heading = "Exchange")]
    pub docs: PathBuf,

    /// Report pairs with similarity ≥ T, 0 < T ≤ 1 [default: the S-curve threshold
    /// (1/b)^(1/r) of the shards' bands and rows; 0.9 where files are judged
    /// removable: --list-removable, groups with --keep or --reference, --format html].
    #[arg(long, short = 't', value_name = "T", help_heading = "Exchange")]
    pub threshold: Option<f64>,

    /// Most memory for shingle sets during exact verification (as scan's).
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size, help_heading = "Exchange")]
    pub verify_memory: u64,
}

/// `curve` and `tune`, which read no files.
pub const EXIT_STATUS_USAGE_ONLY: &[ExitRow] = &[SUCCESS, USAGE_ONLY];

/// The `EXIT STATUS:` section of a `--help`.
pub fn exit_status(rows: &[ExitRow]) -> String {
    let mut text = String::from("EXIT STATUS:");
    for (code, meaning) in rows {
        let meaning = meaning.replace('\n', "\n       ");
        write!(text, "\n  {code:<4} {meaning}").expect("writing to a String");
    }
    text
}

/// A command's text after the options (examples, output schema …), then its
/// EXIT STATUS table.
pub fn after_help(text: &str, rows: &[ExitRow]) -> String {
    text.to_owned() + &exit_status(rows)
}

/// The vector families (`docs/FAMILIES.md`): what the input is, the distance,
/// its threshold. Flattened into `scan`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FamilyArgs {
    /// The distance: `jaccard` (shingle sets; the default for documents), `cosine`
    /// (vectors: random hyperplanes; the default for --input vectors), `euclidean`
    /// (vectors: projections into buckets) or `hamming` (bit strings: bit sampling; SimHash
    /// fingerprints).
    #[arg(long, value_enum, value_name = "METRIC", help_heading = "Families")]
    pub metric: Option<MetricArg>,

    /// Sign documents with `simhash` (Charikar's 64-bit fingerprint of the shingles; see
    /// --simhash-weights) instead of MinHash: pairs within --radius bits (default 3) of each other, none
    /// missed (pigeonhole bands). `icws`: weighted MinHash (Ioffe's ICWS) of weighted sets,
    /// pairs with weighted Jaccard Σmin/Σmax ≥ -t, verified exactly: `--input sets` with
    /// `id<TAB>token:weight …` (a token without `:weight` weighs 1, repeats add up; with
    /// --pairs `id<TAB>token<TAB>weight`), or directories, each file its bag of shingle counts.
    #[arg(long, value_enum, value_name = "SKETCH", help_heading = "Families")]
    pub sketch: Option<SketchFamilyArg>,

    /// With --metric cosine: pairs at an angle ≤ DEG degrees, instead of -t (a cosine).
    #[arg(
        long,
        value_name = "DEG",
        conflicts_with = "threshold",
        help_heading = "Families"
    )]
    pub angle: Option<f64>,

    /// With --metric euclidean: pairs at L2 distance ≤ R; with hamming: within R bits.
    #[arg(long, value_name = "R", help_heading = "Families")]
    pub radius: Option<f64>,

    /// With --metric euclidean: the bucket width a of the projections [default: chosen
    /// with the bands and rows by predicted work, among 1–12 × R; 2 × R, where one
    /// projection keeps a pair at R with probability 0.61, with --bands/--rows and in sign].
    #[arg(long, value_name = "A", help_heading = "Families")]
    pub bucket_width: Option<f64>,

    /// With --sketch simhash: how shingles weigh in a fingerprint: `set` (each distinct
    /// shingle once, text-dedup's SimHash) or `counts` (by occurrences: repeated
    /// boilerplate weighs more) [default: set].
    #[arg(long, value_enum, value_name = "WEIGHTS", help_heading = "Families")]
    pub simhash_weights: Option<SimHashWeightsArg>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimHashWeightsArg {
    Set,
    Counts,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    Jaccard,
    Cosine,
    Euclidean,
    Hamming,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SketchFamilyArg {
    Minhash,
    Simhash,
    Icws,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("10mib"), Ok(10 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        // The decimal units mean what the summaries print (MB = 10^6).
        assert_eq!(parse_size("1KB"), Ok(1_000));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("2gb"), Ok(2_000_000_000));
        assert_eq!(parse_size("1TB"), Ok(1_000_000_000_000));
        assert!(parse_size("ten").is_err());
        assert!(parse_size("5X").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn counts_reject_zero_and_junk() {
        assert_eq!(count("20"), Ok(20));
        assert!(count("0").is_err());
        assert!(count("-3").is_err());
        assert!(count("2.5").is_err());
    }

    #[test]
    fn unit_intervals_have_the_documented_ends() {
        assert_eq!(unit_open_closed("1"), Ok(1.0));
        assert!(unit_open_closed("0").is_err());
        assert!(unit_open_closed("1.01").is_err());
        assert!(unit_open_closed("NaN").is_err());
        assert_eq!(unit_closed("0"), Ok(0.0));
        assert!(unit_closed("-0.1").is_err());
    }

    #[test]
    fn weights_are_non_negative_and_finite() {
        assert_eq!(weight("0"), Ok(0.0));
        assert_eq!(weight("2.5"), Ok(2.5));
        assert!(weight("-1").is_err());
        assert!(weight("inf").is_err());
    }

    #[test]
    fn exit_status_tables_align_and_wrap() {
        assert_eq!(
            exit_status(EXIT_STATUS_INDEX),
            "EXIT STATUS:
  0    success
  1    finished, but some files were skipped because of errors (warnings on stderr
       name each file); the index holds every other file
  2    usage error or fatal error (including a locked, damaged or incompatible
       index); the index is unchanged"
        );
        assert!(
            exit_status(EXIT_STATUS_SCAN)
                .ends_with("\n  130  interrupted (SIGINT/SIGTERM); no output file written")
        );
    }
}
