//! The scan pipeline: configuration in, similar pairs out. Each stage consumes
//! only what the one before produced:
//!
//! ```text
//! walk       roots            → sorted regular files (document ids = this order)
//! sign       files            → per file: content hash, shingle count, MinHash signature
//!                               (parallel; contents dropped as soon as signed)
//! group      signed files     → unique contents (identical files are shingled and
//!                               signed once and paired with each other at 1.0)
//! band       signatures       → candidate pairs of unique contents (LSH)
//! verify     candidates       → pairs with similarity ≥ t (exact: sets re-created
//!                               from the files under a memory budget)
//! expand     verified pairs   → pairs of documents, sorted by (a, b)
//! ```
//!
//! With the exact method (chosen after the walk, [`crate::method`]), `sign`
//! keeps each unique content's shingle set instead of computing a signature,
//! and one `join` stage ([`crate::allpairs`]) replaces `band` and `verify`.
//!
//! Output is deterministic: the same files, configuration and seed give the
//! same [`ScanOutcome`] whatever the number of threads.
//!
//! [`scan`] is [`walk_files`] → [`sign_files`] → [`find_pairs`]; they are public
//! so that [`crate::incremental`] can sign only new and changed files and hand
//! stored signatures for the rest to the same pair finding.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_128;

use crate::allpairs;
use crate::distinct::DistinctSet;
use crate::input::read::{self, ReadError, ReadOptions};
use crate::input::walk::{self, FileEntry, WalkEvent, WalkOptions, WalkSkips};
use crate::lsh::{self, Banding};
use crate::method::{self, Decision, Method, MethodChoice, Workload};
use crate::minhash::{self, MinHasher};
use crate::normalize::{Normalization, normalize_into};
use crate::oph;
use crate::progress::{Reporter, Stage};
use crate::shingle::{Scratch, ShingleKind, Shingler};
use crate::verify;

/// How candidates are confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verification {
    /// Exact Jaccard similarity of the shingle sets: no false positives.
    Exact,
    /// The fraction of agreeing signature values only: faster, approximate.
    Signature,
}

/// Which MinHash kernel signs the documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MinHashKind {
    /// `n` hash functions per shingle ([`crate::minhash`]).
    Classic,
    /// One-permutation hashing with optimal densification ([`crate::oph`]).
    Oph,
}

/// Everything a scan needs, validated by the caller.
#[derive(Clone, Debug)]
pub struct ScanConfig {
    pub roots: Vec<PathBuf>,
    pub walk: WalkOptions,
    pub read: ReadOptions,
    /// Also shingle files that look binary (NUL in the first block).
    pub include_binary: bool,
    pub normalization: Normalization,
    pub shingler: Shingler,
    pub banding: Banding,
    /// Seed of the MinHash functions.
    pub seed: u64,
    pub minhash: MinHashKind,
    /// Pairs with similarity ≥ this are reported; in (0, 1].
    pub threshold: f64,
    pub verification: Verification,
    /// Exact join, LSH, or chosen by the cost model of [`crate::method`].
    pub method: MethodChoice,
    /// Upper bound on the bytes of shingle sets held at once during exact
    /// verification.
    pub verify_memory: usize,
}

/// What became of one walked file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocStatus {
    /// Read and shingled (possibly to an empty set: see `shingles`).
    Read,
    /// Looked binary and was skipped.
    Binary,
    /// Could not be read, or changed while read; a warning was reported.
    Failed,
}

/// One walked file. Its index in [`ScanOutcome::documents`] is its id.
#[derive(Clone, Debug)]
pub struct Document {
    pub path: PathBuf,
    pub size: u64,
    pub modified: Option<SystemTime>,
    pub status: DocStatus,
    /// Number of distinct shingles (0 unless read).
    pub shingles: usize,
}

/// Two documents (`a < b`, ids) whose similarity reached the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimilarPair {
    pub a: u32,
    pub b: u32,
    /// Exact Jaccard similarity, or the signature estimate with
    /// [`Verification::Signature`].
    pub similarity: f64,
    /// Fraction of agreeing MinHash values; `None` with the exact method,
    /// which computes no signatures.
    pub estimate: Option<f64>,
    /// Size of the intersection of the shingle sets, when verified exactly.
    pub shared: Option<usize>,
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default)]
pub struct ScanStats {
    /// Regular files found by the walk (after size filters and deduplication).
    pub files: u64,
    /// Bytes of the files that were read.
    pub bytes: u64,
    pub walk_skips: WalkSkips,
    pub binary: u64,
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
    /// Similar pairs of documents reported.
    pub pairs: u64,
}

/// The result of a scan.
#[derive(Debug)]
pub struct ScanOutcome {
    pub documents: Vec<Document>,
    pub pairs: Vec<SimilarPair>,
    pub stats: ScanStats,
    /// The method used and why.
    pub decision: Decision,
}

/// Runs the whole pipeline. Errors in individual files are reported through
/// `reporter.warn` and counted; the scan itself does not fail because of them.
pub fn scan(config: &ScanConfig, reporter: &dyn Reporter) -> ScanOutcome {
    let mut stats = ScanStats::default();
    let files = walk_files(config, reporter, &mut stats);
    let decision = choose_method(config, &files);
    let (signed, matrix) = sign_files(&files, config, decision.method, reporter);
    find_pairs(config, files, signed, matrix, decision, stats, reporter)
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
    let walked = walk::walk(&config.roots, &config.walk, |event| match event {
        WalkEvent::FileFound => reporter.advance(1),
        WalkEvent::Problem(p) => reporter.warn(&p.path, &p.reason),
    });
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
    let hasher = Signer::new(config);
    let signed = sign_all(files, config, &hasher, method == Method::Exact, reporter);
    reporter.end(Stage::Sign);
    signed
}

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
    mut matrix: Vec<u32>,
    decision: Decision,
    mut stats: ScanStats,
    reporter: &dyn Reporter,
) -> ScanOutcome {
    assert_eq!(files.len(), signed.len(), "one outcome per file");
    let mut documents = Vec::with_capacity(files.len());
    let mut groups = ContentGroups::default();
    for (id, (file, outcome)) in files.into_iter().zip(signed).enumerate() {
        let (status, shingles) = match outcome {
            SignOutcome::Failed(err) => {
                reporter.warn(&file.path, &err);
                stats.errors += 1;
                (DocStatus::Failed, 0)
            }
            SignOutcome::Binary => {
                reporter.note(
                    &file.path,
                    &"looks binary (a NUL byte in the first 8 KiB); --binary reads it",
                );
                stats.binary += 1;
                (DocStatus::Binary, 0)
            }
            SignOutcome::Unique(content) => {
                stats.bytes += file.size;
                stats.signatures += 1;
                let shingles = content.shingles;
                groups.add(id as u32, content.hash, Some(content));
                (DocStatus::Read, shingles)
            }
            SignOutcome::SameAs(hash) => {
                stats.bytes += file.size;
                (DocStatus::Read, groups.add(id as u32, hash, None))
            }
        };
        documents.push(Document {
            path: file.path,
            size: file.size,
            modified: file.modified,
            status,
            shingles,
        });
    }
    stats.identical_files = groups.identical_files();
    // Members seen before their group's signed member learn its count only now.
    for group in &groups.groups {
        for &m in &group.members {
            documents[m as usize].shingles = group.content.shingles;
        }
    }
    for doc in &documents {
        if doc.status == DocStatus::Read && doc.shingles == 0 {
            stats.no_shingles += 1;
            reporter.note(
                &doc.path,
                &"shorter than one shingle: empty set, never paired",
            );
        }
    }

    // Only non-empty contents take part: two empty sets are not "identical".
    let items: Vec<&ContentGroup> = groups
        .groups
        .iter()
        .filter(|g| g.content.shingles > 0)
        .collect();
    stats.unique_contents = items.len() as u64;

    if decision.method == Method::Exact {
        // The join takes the sets over and frees each once it is re-coded.
        let sets: Vec<Vec<u64>> = groups
            .groups
            .iter_mut()
            .filter(|g| g.content.shingles > 0)
            .map(|g| std::mem::take(&mut g.content.set))
            .collect();
        let items: Vec<&ContentGroup> = groups
            .groups
            .iter()
            .filter(|g| g.content.shingles > 0)
            .collect();
        let verified = exact_join(sets, config.threshold, &mut stats, reporter);
        let pairs = expand_to_documents(&items, &verified, Verification::Exact, false);
        stats.pairs = pairs.len() as u64;
        return ScanOutcome {
            documents,
            pairs,
            stats,
            decision,
        };
    }

    reporter.begin(Stage::Band, None);
    // Rows were written per file; keep only the signed row of each banded
    // content, in item order, compacted in place: a group's loader is the file
    // that was signed and loaders increase with the group index, so row
    // `loader ≥ i` is never overwritten before it is moved to row `i`. No second
    // copy of the signatures ever exists (peak RSS, issue #5).
    let n = config.banding.signature_len();
    for (i, item) in items.iter().enumerate() {
        let src = item.loader as usize;
        debug_assert!(src >= i, "loaders increase with the group index");
        if src != i {
            matrix.copy_within(src * n..(src + 1) * n, i * n);
        }
    }
    matrix.truncate(items.len() * n);
    matrix.shrink_to_fit();
    let candidates = lsh::candidate_pairs(&matrix, config.banding);
    stats.candidates = candidates.len() as u64;
    reporter.end(Stage::Band);

    let signature = |i: u32| &matrix[i as usize * n..][..n];
    let verified: Vec<SimilarPair> = match config.verification {
        Verification::Signature => candidates
            .into_par_iter()
            .filter_map(|(a, b)| {
                let estimate = minhash::estimate(signature(a), signature(b));
                (estimate >= config.threshold).then_some(SimilarPair {
                    a,
                    b,
                    similarity: estimate,
                    estimate: Some(estimate),
                    shared: None,
                })
            })
            .collect(),
        Verification::Exact => {
            let involved = distinct_count(&candidates);
            reporter.begin(Stage::Verify, Some(involved));
            let outcome = verify::verify_exact(
                &candidates,
                config.threshold,
                verify::Budget::capped(config.verify_memory),
                |i| items[i as usize].content.shingles * std::mem::size_of::<u64>(),
                |i| {
                    let item = items[i as usize];
                    let result = reload_set(
                        &documents[item.loader as usize].path,
                        item.content.hash,
                        config,
                    );
                    reporter.advance(1);
                    result
                },
            );
            reporter.end(Stage::Verify);
            for (i, reason) in outcome.failures {
                let item = items[i as usize];
                reporter.warn(&documents[item.loader as usize].path, &reason);
                stats.errors += item.members.len() as u64;
            }
            outcome
                .pairs
                .into_iter()
                .map(|p| SimilarPair {
                    a: p.a,
                    b: p.b,
                    similarity: p.similarity,
                    estimate: Some(minhash::estimate(signature(p.a), signature(p.b))),
                    shared: Some(p.shared),
                })
                .collect()
        }
    };

    let pairs = expand_to_documents(&items, &verified, config.verification, true);
    stats.pairs = pairs.len() as u64;
    ScanOutcome {
        documents,
        pairs,
        stats,
        decision,
    }
}

/// Applies `--method`: the cost model needs only what the walk found.
fn choose_method(config: &ScanConfig, files: &[FileEntry]) -> Decision {
    if config.method == MethodChoice::Auto && config.verification == Verification::Signature {
        return Decision {
            method: Method::Lsh,
            reason: "auto: lsh (--verify signature estimates similarity from signatures)".into(),
        };
    }
    let workload = Workload {
        files: files.len() as u64,
        bytes: files.iter().map(|f| f.size).sum(),
        tokens_per_byte: method::tokens_per_byte(config.shingler.kind() == ShingleKind::Char),
        threshold: config.threshold,
        signature_len: config.banding.signature_len(),
        memory_budget: config.verify_memory as u64,
    };
    method::choose(config.method, &workload)
}

/// The exact method: every pair of distinct contents with Jaccard ≥ t, by the
/// prefix-filter join over the sets kept while reading. `sets[i]` is content
/// `i`'s; each is freed as soon as the join has re-coded it.
fn exact_join(
    sets: Vec<Vec<u64>>,
    threshold: f64,
    stats: &mut ScanStats,
    reporter: &dyn Reporter,
) -> Vec<SimilarPair> {
    reporter.begin(Stage::Join, None);
    let join = allpairs::all_pairs_owned(sets, threshold)
        .expect("threshold validated and corpus within the join's limits");
    reporter.end(Stage::Join);
    stats.candidates = join.stats.verified;
    join.pairs
        .into_iter()
        .map(|p| SimilarPair {
            a: p.a,
            b: p.b,
            similarity: verify::ratio(p.intersection as usize, p.union as usize),
            estimate: None,
            shared: Some(p.intersection as usize),
        })
        .collect()
}

/// The part of a file the later stages need, once its bytes are gone.
#[derive(Debug)]
pub struct SignedContent {
    /// XXH3-128 of the file's bytes.
    pub hash: u128,
    /// Number of distinct shingles.
    pub shingles: usize,
    /// The sorted shingle set itself, kept only for the exact method.
    pub set: Vec<u64>,
}

/// What signing made of one file.
#[derive(Debug)]
pub enum SignOutcome {
    /// First time this content was seen: shingled and signed.
    Unique(SignedContent),
    /// Same bytes as a file already signed (by content hash).
    SameAs(u128),
    Binary,
    Failed(ReadError),
}

/// Per-thread buffers reused from one file to the next.
#[derive(Default)]
struct Buffers {
    text: String,
    scratch: Scratch,
    set: Vec<u64>,
    distinct: DistinctSet,
}

/// The configured signing kernel.
#[derive(Clone, Debug)]
pub enum Signer {
    Classic(MinHasher),
    Oph { seed: u64 },
}

impl Signer {
    /// The kernel of `config`, making signatures of `config.banding.signature_len()` values.
    pub fn new(config: &ScanConfig) -> Self {
        Signer::with(config.minhash, config.banding.signature_len(), config.seed)
    }

    /// A `kind` kernel making signatures of `n` values from `seed`.
    pub fn with(kind: MinHashKind, n: usize, seed: u64) -> Self {
        match kind {
            MinHashKind::Classic => Signer::Classic(MinHasher::new(n, seed)),
            MinHashKind::Oph => Signer::Oph { seed },
        }
    }

    /// Writes the signature of a non-empty set of distinct hashes (any order)
    /// into `out`, whose length is the signature length.
    pub fn sign_into(&self, set: &[u64], out: &mut [u32]) {
        match *self {
            Signer::Classic(ref hasher) => hasher.sign_into(set, out),
            Signer::Oph { seed } => oph::sign(set, seed, out),
        }
    }
}

fn sign_all(
    files: &[FileEntry],
    config: &ScanConfig,
    hasher: &Signer,
    keep_sets: bool,
    reporter: &dyn Reporter,
) -> (Vec<SignOutcome>, Vec<u32>) {
    // The first file to show a content claims it and signs it; every later
    // file with the same bytes only hashes them. So N copies cost one
    // signature, whatever the thread count.
    let claimed: Mutex<std::collections::HashSet<u128>> = Mutex::default();
    let claim = |hash| claimed.lock().expect("no panics while locked").insert(hash);
    // One row of n values per file, written in place by the worker that signs
    // it: one allocation for all signatures instead of one per document. The
    // exact method signs nothing (rows of one unused value).
    let n = if keep_sets {
        1
    } else {
        config.banding.signature_len()
    };
    let mut matrix = vec![u32::MAX; files.len() * n];
    let mut outcomes: Vec<SignOutcome> = matrix
        .par_chunks_mut(n)
        .zip(files.par_iter())
        .map_init(Buffers::default, |buffers, (row, file)| {
            let outcome = sign_one(file, config, hasher, keep_sets, &claim, buffers, row);
            reporter.advance(1);
            outcome
        })
        .collect();

    // A claimer that failed (its file changed while read) leaves its copies
    // without a signature: sign the first copy that still reads cleanly.
    let signed: std::collections::HashSet<u128> = outcomes
        .iter()
        .filter_map(|o| match o {
            SignOutcome::Unique(c) => Some(c.hash),
            _ => None,
        })
        .collect();
    let mut rescued = std::collections::HashSet::new();
    let mut buffers = Buffers::default();
    for i in 0..outcomes.len() {
        if let SignOutcome::SameAs(hash) = outcomes[i]
            && !signed.contains(&hash)
            && !rescued.contains(&hash)
        {
            let row = &mut matrix[i * n..(i + 1) * n];
            let outcome = sign_one(
                &files[i],
                config,
                hasher,
                keep_sets,
                &|_| true,
                &mut buffers,
                row,
            );
            if let SignOutcome::Unique(c) = &outcome {
                rescued.insert(c.hash);
            }
            outcomes[i] = outcome;
        }
    }
    (outcomes, matrix)
}

/// Reads, checks and signs one file. `claim(hash)` says whether this file is
/// the one to sign its content (true) or a copy of a content signed elsewhere.
fn sign_one(
    file: &FileEntry,
    config: &ScanConfig,
    hasher: &Signer,
    keep_sets: bool,
    claim: &(dyn Fn(u128) -> bool + Sync),
    buffers: &mut Buffers,
    row: &mut [u32],
) -> SignOutcome {
    let contents = match read::read_file(&file.path, &config.read) {
        Ok(contents) => contents,
        Err(err) => return SignOutcome::Failed(err),
    };
    if !config.include_binary && read::looks_binary(&contents) {
        // Pages of a mapping truncated under us read as zeros, which look
        // binary: only a file that did not change is really binary.
        return match contents.verify_unchanged() {
            Ok(()) => SignOutcome::Binary,
            Err(err) => SignOutcome::Failed(err),
        };
    }
    let hash = xxh3_128(&contents);
    if !claim(hash) {
        return match contents.verify_unchanged() {
            Ok(()) => SignOutcome::SameAs(hash),
            Err(err) => SignOutcome::Failed(err),
        };
    }
    distinct_shingles_into(&contents, config, buffers);
    if keep_sets {
        // The exact method needs the sorted set, not a signature.
        buffers.set.sort_unstable();
    } else if !buffers.set.is_empty() {
        hasher.sign_into(&buffers.set, row);
    }
    if let Err(err) = contents.verify_unchanged() {
        return SignOutcome::Failed(err);
    }
    SignOutcome::Unique(SignedContent {
        hash,
        shingles: buffers.set.len(),
        // A clone is allocated at its exact length; the buffer stays for reuse.
        set: if keep_sets {
            buffers.set.clone()
        } else {
            Vec::new()
        },
    })
}

/// The distinct shingle hashes of `bytes`, unordered, in `buffers.set`: signing
/// needs the set but not its order, and a hash set is linear where sorting
/// every occurrence is not (see `docs/PERFORMANCE.md`).
fn distinct_shingles_into(bytes: &[u8], config: &ScanConfig, buffers: &mut Buffers) {
    let Buffers {
        text,
        scratch,
        set,
        distinct,
    } = buffers;
    normalize_into(bytes, config.normalization, text);
    // Natural text has roughly one distinct shingle per 3–4 bytes.
    distinct.reset(text.len() / 4);
    config
        .shingler
        .for_each_hash(text, scratch, |h| distinct.insert(h));
    distinct.drain_into(set);
}

/// Re-creates a file's shingle set for exact verification, refusing a file
/// whose content is no longer what was signed.
fn reload_set(
    path: &std::path::Path,
    expected_hash: u128,
    config: &ScanConfig,
) -> Result<Vec<u64>, String> {
    let contents = read::read_file(path, &config.read).map_err(|e| e.to_string())?;
    if xxh3_128(&contents) != expected_hash {
        return Err("changed during the run (content differs from when it was signed)".into());
    }
    let mut buffers = Buffers::default();
    // Sorting only the distinct hashes is ~3× less work than sorting every
    // occurrence (natural text repeats most of its 5-character windows).
    distinct_shingles_into(&contents, config, &mut buffers);
    buffers.set.sort_unstable();
    contents.verify_unchanged().map_err(|e| e.to_string())?;
    Ok(buffers.set)
}

/// Files that share one content.
struct ContentGroup {
    /// Document ids, ascending.
    members: Vec<u32>,
    /// The member whose file is re-read for verification.
    loader: u32,
    content: SignedContent,
}

/// Groups documents by content hash, in order of their first member.
#[derive(Default)]
struct ContentGroups {
    groups: Vec<ContentGroup>,
    by_hash: HashMap<u128, usize>,
    /// Members seen before the group's signed member (rare: a race in signing).
    waiting: HashMap<u128, Vec<u32>>,
}

impl ContentGroups {
    /// Adds document `id`; `content` is present when this document was the one
    /// signed. Returns the group's shingle count (0 while unknown).
    fn add(&mut self, id: u32, hash: u128, content: Option<SignedContent>) -> usize {
        match (self.by_hash.get(&hash), content) {
            (Some(&g), _) => {
                self.groups[g].members.push(id);
                self.groups[g].content.shingles
            }
            (None, Some(content)) => {
                let mut members = self.waiting.remove(&hash).unwrap_or_default();
                members.push(id);
                let shingles = content.shingles;
                self.by_hash.insert(hash, self.groups.len());
                self.groups.push(ContentGroup {
                    members,
                    loader: id,
                    content,
                });
                shingles
            }
            (None, None) => {
                self.waiting.entry(hash).or_default().push(id);
                0
            }
        }
    }

    fn identical_files(&self) -> u64 {
        self.groups.iter().map(|g| g.members.len() as u64 - 1).sum()
    }
}

fn distinct_count(pairs: &[(u32, u32)]) -> u64 {
    let mut docs: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    docs.sort_unstable();
    docs.dedup();
    docs.len() as u64
}

/// Turns verified pairs of contents into pairs of documents: every member of
/// one group with every member of the other, plus every two members of a group
/// of identical files (similarity 1.0). Sorted by `(a, b)`.
fn expand_to_documents(
    items: &[&ContentGroup],
    verified: &[SimilarPair],
    verification: Verification,
    signed: bool,
) -> Vec<SimilarPair> {
    let mut pairs = Vec::new();
    for item in items {
        let shared = (verification == Verification::Exact).then_some(item.content.shingles);
        for (i, &a) in item.members.iter().enumerate() {
            for &b in &item.members[i + 1..] {
                pairs.push(SimilarPair {
                    a,
                    b,
                    similarity: 1.0,
                    estimate: signed.then_some(1.0),
                    shared,
                });
            }
        }
    }
    for p in verified {
        for &x in &items[p.a as usize].members {
            for &y in &items[p.b as usize].members {
                pairs.push(SimilarPair {
                    a: x.min(y),
                    b: x.max(y),
                    ..*p
                });
            }
        }
    }
    pairs.par_sort_unstable_by_key(|p| (p.a, p.b));
    pairs
}
