//! `scan`'s arguments and help page: read by the file scan, the records
//! scan and the mode they are decided by.

use std::path::PathBuf;

use simfind::pipeline;

use crate::app::args::{self, FileArgs, MatchArgs, SigningArgs};
use crate::app::flags::defs;
use crate::app::output::summary::SummaryArgs;
use crate::app::report::ReportArgs;
use crate::app::ui::Verbosity;

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
    /// decides them (-t 0.9 unless given, --cluster, --keep). One input (stdin is first
    /// copied to a temporary file beside FILE); with --link A B, the rows of B that pair
    /// with no record of A at the threshold (the new records of a batch).
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
    pub identical_by: Option<pipeline::IdenticalBy>,

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
