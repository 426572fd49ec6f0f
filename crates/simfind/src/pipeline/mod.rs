//! The scan pipeline: configuration in, similar pairs out. Each stage consumes
//! only what the one before produced:
//!
//! ```text
//! walk       roots            → regular files in path byte order (document ids =
//!                               this order), handed over while walking
//! sign       files            → per file: content hash, shingle count, MinHash signature
//!                               (parallel, batch by batch as the walk finds files;
//!                               contents dropped as soon as signed)
//! group      signed files     → unique contents (identical files are shingled and
//!                               signed once and paired with each other at 1.0)
//! band       signatures       → candidate pairs of unique contents (LSH)
//! verify     candidates       → pairs with similarity ≥ t (exact: sets re-created
//!                               from the files under a memory budget)
//! expand     verified pairs   → pairs of documents, sorted by (a, b)
//! ```
//!
//! With the exact method ([`crate::pipeline::plan`]; `auto` decides on the walk's
//! bytes, see `walk_and_sign`), `sign` keeps each unique content's shingle
//! set instead of computing a signature, and one `join` stage
//! ([`crate::similarity::join`]) replaces `band` and `verify`.
//!
//! Output is deterministic: the same files, configuration and seed give the
//! same [`ScanOutcome`] whatever the number of threads.
//!
//! [`scan`] computes what [`walk_files`] → [`sign_files`] → [`find_pairs`]
//! computes, with the first two overlapped; the three are public so that
//! [`crate::index::incremental`] can sign only new and changed files and hand stored
//! signatures for the rest to the same pair finding.
//!
//! Records (`scan --input jsonl|csv|tsv|sets`) take [`scan_records`]: the
//! same stages over documents that are lines or rows, their sets held in
//! memory (`records.rs`).
//!
//! Memory: a scan holds, per file, its path front-coded (~10 bytes when
//! paths share directories) and 13 bytes of columns, 17 once signed
//! (`docs.rs`; the [`Document`]s are made once the signature matrix is freed)
//! and a signature row (`4n` bytes); per distinct content, one group (48
//! bytes, the member list inline for a single file); the rest is per
//! candidate.

mod config;
mod contents;
mod docs;
pub(crate) mod identical;
#[doc(hidden)]
pub mod important;
mod join_fallback;
mod locks;
mod pairs;
#[doc(hidden)]
pub mod plan;
mod prefetch;
mod records;
mod reload;
mod rule_out;
mod shingles;
mod sign;
mod stream;
#[cfg(test)]
mod tests;
pub(crate) mod unique;
pub mod vectors;
pub mod weighted;

use crate::input::walk::{self, FileEntry, WalkEvent, WalkSkips};
pub use crate::model::{DocPairs, DocStatus, Document, SimilarPair};
use crate::progress::{Reporter, Stage};
pub use config::{DEFAULT_VERIFY_MEMORY, ScanConfig, Verification};
pub use contents::ContentTable;
use contents::Signed;
pub use contents::{SignOutcome, SignedContent};
use pairs::{pairs_of, pairs_of_given};
#[cfg(feature = "parquet")]
pub(crate) use records::record_set;
pub use records::{
    AUTO_MIN_RECORDS, BlockKey, CandidateReport, Chosen, DEFAULT_BLOCK_CAP, FieldScores, FsConfig,
    KEEP, Presigned, RANDOM_PAIRS, RecordConfig, RecordOutcome, Trained, Values, scan_records,
    scan_records_signed, scan_texts,
};
pub use reload::{FileReload, Reload, ReloadError, reload_indexed, reload_set};
use sign::sign_all;
use stream::walk_and_sign;

/// Counts for the summary line.
#[derive(Clone, Debug, Default)]
pub struct ScanStats {
    /// Regular files found by the walk (after size filters and deduplication).
    pub files: u64,
    /// Bytes of the files that were read.
    pub bytes: u64,
    pub walk_skips: WalkSkips,
    pub binary: u64,
    /// Documents of a known format whose text could not be had, by reason
    /// ([`crate::input::extract::Unextracted::category`]), in the reasons'
    /// order: not compared, paired only with byte-identical copies. Not
    /// counted in `binary`.
    pub unextracted: std::collections::BTreeMap<String, u64>,
    /// Files read whose shingle set is empty (shorter than one shingle).
    pub no_shingles: u64,
    /// Files skipped or dropped because of an error (each reported as a warning).
    pub errors: u64,
    /// Files whose content is identical to an earlier file's (not re-signed).
    pub identical_files: u64,
    /// MinHash signatures computed: one per distinct content read.
    pub signatures: u64,
    /// Distinct non-empty contents that were banded.
    pub unique_contents: u64,
    /// Candidate pairs of distinct contents from banding.
    pub candidates: u64,
    /// Candidates dropped before exact verification because their signatures
    /// agree too little (`rule_out_by_signature`).
    pub ruled_out: u64,
    /// Similar pairs of documents reported.
    pub pairs: u64,
    /// The exact join's work ([`crate::similarity::JoinStats`]):
    /// entries in its index, entries found by the probes, buckets looked into.
    pub join_index_entries: u64,
    pub join_probe_hits: u64,
    pub join_lookups: u64,
}

/// The result of a scan.
#[derive(Debug)]
pub struct ScanOutcome {
    pub documents: Vec<Document>,
    /// Sorted by `(a, b)` when iterated; held per pair of contents.
    pub pairs: DocPairs,
    pub stats: ScanStats,
    /// The method used and why.
    pub decision: Decision,
}

/// Runs the whole pipeline. Errors in individual files are reported through
/// `reporter.warn` and counted; the scan itself does not fail because of them.
///
/// Walking, reading and signing overlap (`walk_and_sign`); pair finding
/// starts when every file is signed.
pub fn scan(config: &ScanConfig, reporter: &dyn Reporter) -> ScanOutcome {
    let mut stats = ScanStats::default();
    let (signed, decision) = walk_and_sign(config, reporter, &mut stats);
    pairs_of(config, signed, decision, stats, reporter)
}

/// `-t 1` as people read it: keeps only the pairs of byte-identical files
/// (one content hash), dropping pairs whose texts are only equal once
/// normalised (a CRLF, an ALL-CAPS or a reflowed copy), which no undo could
/// re-create from the kept copy. The callers apply it at threshold 1 unless
/// normalised equality was asked for by name.
pub fn keep_byte_identical(outcome: &mut ScanOutcome) {
    outcome.pairs.retain_identical();
    outcome.stats.pairs = outcome.pairs.len();
}

/// Stage 1: walks the roots (warnings for what cannot be walked) and fills the
/// walk counts of `stats`. Files come sorted by path bytes; their order is the
/// document ids.
pub fn walk_files(
    config: &ScanConfig,
    reporter: &dyn Reporter,
    stats: &mut ScanStats,
) -> Vec<FileEntry> {
    reporter.begin(Stage::Walk, None);
    let walked = walk::walk(
        &config.roots,
        &config.walk,
        reporter.wants_notes(),
        |event| match event {
            WalkEvent::FileFound => reporter.advance(1),
            WalkEvent::Problem(p) => reporter.warn(&p.path, &p.reason),
            WalkEvent::Skipped(p) => reporter.notice(&p.path, &p.why),
        },
    );
    reporter.end(Stage::Walk);
    stats.errors += walked.problems.len() as u64;
    stats.walk_skips = walked.skips;
    stats.files = walked.files.len() as u64;
    walked.files
}

/// Stage 2: reads, shingles and signs `files` in parallel, identical contents
/// once. Returns one outcome per file and the signature matrix: row `i`
/// (`config.banding.signature_len()` values) is file `i`'s signature when its
/// outcome is [`SignOutcome::Unique`] with a non-empty set. With
/// [`Method::Exact`] each unique content keeps its sorted set instead and the
/// rows are unused (one value each).
pub fn sign_files(
    files: &[FileEntry],
    config: &ScanConfig,
    method: Method,
    reporter: &dyn Reporter,
) -> (Vec<SignOutcome>, Vec<u32>) {
    reporter.begin(Stage::Sign, Some(files.len() as u64));
    let sketcher = config.recipe.sketcher();
    let signed = sign_all(files, config, &sketcher, method == Method::Exact, reporter);
    reporter.end(Stage::Sign);
    signed
}

pub use identical::{IdenticalBy, find_identical};
pub use plan::{Decision, Method, MethodChoice, Reason, human_bytes};
pub use unique::measure as measure_unique;

/// Stages 3–5: groups identical contents, then bands and verifies (LSH) or
/// joins (exact) them, and expands the result to pairs of documents.
/// `outcomes[i]` belongs to `files[i]`, and `matrix` is laid out as
/// [`sign_files`] returns it; where they come from (fresh signing or an index)
/// does not matter as long as they were made with `config`. Every content
/// must have exactly one [`SignOutcome::Unique`] outcome; its other files are
/// [`SignOutcome::SameAs`] it.
pub fn find_pairs(
    config: &ScanConfig,
    files: Vec<FileEntry>,
    signed: Vec<SignOutcome>,
    matrix: Vec<u32>,
    decision: Decision,
    stats: ScanStats,
    reporter: &dyn Reporter,
) -> ScanOutcome {
    assert_eq!(files.len(), signed.len(), "one outcome per file");
    let signed = Signed::from_outcomes(files, signed, matrix);
    pairs_of(config, signed, decision, stats, reporter)
}

/// [`find_pairs`] with the candidates of the band stage `given` as pairs of
/// document ids (indices into `files`), in any order and with repeats: a band
/// join run elsewhere (`simfind verify --pairs`). Everything after banding —
/// ruling out by signature, exact verification through the files, expansion
/// of identical copies — is the scan's, so candidates equal to the scan's
/// give the scan's pairs.
#[allow(clippy::too_many_arguments)]
pub fn find_given_pairs(
    config: &ScanConfig,
    files: Vec<FileEntry>,
    signed: Vec<SignOutcome>,
    matrix: Vec<u32>,
    candidates: Vec<(u32, u32)>,
    decision: Decision,
    stats: ScanStats,
    reporter: &dyn Reporter,
) -> ScanOutcome {
    assert_eq!(files.len(), signed.len(), "one outcome per file");
    let signed = Signed::from_outcomes(files, signed, matrix);
    pairs_of_given(config, signed, decision, stats, Some(candidates), reporter)
}
