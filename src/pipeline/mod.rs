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
//! Memory: a scan holds, per file, a [`Document`] (48 bytes and its path) and
//! a signature row (`4n` bytes); per distinct content, one group (80 bytes,
//! the member list inline for a single file); the rest is per candidate.

pub mod plan;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64};
use std::sync::{Condvar, Mutex};

use rayon::prelude::*;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

use crate::input::read::{self, ReadError, ReadOptions};
use crate::input::walk::{
    self, FileEntry, StreamEvent, WalkEnd, WalkEvent, WalkOptions, WalkSkips,
};
use crate::lsh::scurve;
use crate::lsh::{self, Banding};
pub use crate::model::{DocStatus, Document, SimilarPair};
use crate::progress::{Reporter, Stage};
use crate::recipe::Recipe;
use crate::similarity::join;
use crate::similarity::verify;
use crate::sketch::SketchKind;
use crate::sketch::minhash::{self, MinHasher};
use crate::sketch::oph;
use crate::text::chunked;
use crate::text::distinct::{HashSorter, Passing, RepeatFilter};
use crate::text::normalize::{Normalization, normalize_into};
use crate::text::shingle::{Scratch, ShingleKind};
use plan::{Decision, Method, MethodChoice, Workload};

/// How candidates are confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verification {
    /// Exact Jaccard similarity of the shingle sets: no false positives.
    Exact,
    /// The fraction of agreeing signature values only: faster, approximate.
    Signature,
}

/// Everything a scan needs, validated by the caller.
#[derive(Clone, Debug)]
pub struct ScanConfig {
    pub roots: Vec<PathBuf>,
    pub walk: WalkOptions,
    pub read: ReadOptions,
    /// How a document becomes a signature and band keys.
    pub recipe: Recipe,
    /// Pairs with similarity ≥ this are reported; in (0, 1].
    pub threshold: f64,
    pub verification: Verification,
    /// Exact join, LSH, or chosen by the cost model of [`crate::pipeline::plan`].
    pub method: MethodChoice,
    /// Upper bound on the bytes of shingle sets held at once during exact
    /// verification.
    pub verify_memory: usize,
}

/// The document of a walked file, before it is read.
fn document_of(file: FileEntry) -> Document {
    Document {
        path: file.path.into_boxed_path(),
        size: file.size,
        modified: file.modified,
        shingles: 0,
        status: DocStatus::Read,
    }
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
    /// Candidates dropped before exact verification because their signatures
    /// agree too little (`rule_out_by_signature`).
    pub ruled_out: u64,
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
///
/// Walking, reading and signing overlap (`walk_and_sign`); pair finding
/// starts when every file is signed.
pub fn scan(config: &ScanConfig, reporter: &dyn Reporter) -> ScanOutcome {
    let mut stats = ScanStats::default();
    let (signed, decision) = walk_and_sign(config, reporter, &mut stats);
    pairs_of(config, signed, decision, stats, reporter)
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

/// Files per batch handed from the walker to the signing workers: enough to
/// make a batch's bookkeeping (two short locks) negligible beside reading its
/// files, few enough that every worker has work early in the walk.
const BATCH: usize = 64;

/// Batches waiting for a worker, per worker thread. Once the method is known
/// the walker waits beyond that, so a walk that outruns signing holds only
/// this many files in flight. While it is pending the walker runs ahead
/// (about 100 bytes a queued file) so that it can decide early.
const QUEUED_PER_THREAD: usize = 4;

/// Bytes of sets that workers may hold while the method is pending; past
/// that they wait for the walker's decision. Sets cost ~8 bytes a shingle,
/// far more than a queued file, and are freed only once LSH is chosen.
const HELD_LIMIT: usize = 32 << 20;

/// Consecutive walked files; the first has id `first`.
struct Batch {
    first: u32,
    files: Vec<FileEntry>,
}

// What a worker does with a content it is the first to show (`Signing::mode`).
/// The method is not known yet (`auto` before the walk ends): keep the sorted
/// set, which the exact method needs and from which a signature can still be
/// made ([`Signing::sign_held`]) once LSH is chosen.
const PENDING: u8 = 0;
/// LSH: sign it; the set is dropped.
const SIGN: u8 = 1;
/// The exact method: keep the sorted set.
const KEEP: u8 = 2;

fn mode_of(method: Method) -> u8 {
    match method {
        Method::Lsh => SIGN,
        Method::Exact => KEEP,
    }
}

/// What the walker thread found.
struct WalkedFiles {
    end: WalkEnd,
    files: u64,
    decision: Decision,
}

/// Stages 1 and 2 together: the walk runs on its own thread and hands files
/// over in id order, in batches, through a bounded queue; the rayon workers
/// read and sign each batch as it arrives (no stage waits for the whole
/// previous one). Identical contents are signed once, as in [`sign_files`].
///
/// The method must be known to sign (the exact method keeps sets, LSH makes
/// signatures), and `--method auto` decides on the whole walk's bytes. Until
/// it is known, workers keep each content's sorted set ([`PENDING`]): a set
/// serves either method. The walker decides early when it can
/// ([`method_known`]) and at the end of the walk otherwise; on LSH the held
/// sets are signed and dropped by the next worker to take a batch. The walk
/// usually outruns reading by far, so few sets are held; at most, under
/// `auto`, what the exact method would have held anyway.
///
/// Output equals [`walk_files`] → [`sign_files`] → [`find_pairs`]'s: the same
/// ids (the walk's order) and contents, whatever the thread count.
fn walk_and_sign(
    config: &ScanConfig,
    reporter: &dyn Reporter,
    stats: &mut ScanStats,
) -> (Signed, Decision) {
    let signing = Signing {
        config,
        reporter,
        hasher: Signer::new(config),
        n: config.recipe.banding.signature_len(),
        mode: AtomicU8::new(method_known(config, 0, 0).map_or(PENDING, mode_of)),
        holding: AtomicBool::new(false),
        claims: Mutex::default(),
        decided: Condvar::new(),
        queue: Mutex::new(Some(0)),
        dequeued: Condvar::new(),
        capacity: QUEUED_PER_THREAD * rayon::current_num_threads(),
        sheet: Mutex::default(),
    };
    // One stage on the terminal: a count while the total is unknown, then a
    // bar once the walk has ended (`Reporter::set_total`).
    reporter.begin(Stage::Sign, None);
    let (tx, rx) = std::sync::mpsc::channel();
    let walked = std::thread::scope(|scope| {
        let walker = scope.spawn(|| walk_in_batches(config, reporter, &signing, tx));
        Receiving {
            rx,
            signing: &signing,
        }
        .par_bridge()
        .for_each_init(Worker::default, |worker, batch| {
            signing.sign_batch(worker, batch)
        });
        walker.join()
    });
    let walked = walked.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    reporter.end(Stage::Sign);
    stats.errors += walked.end.problems.len() as u64;
    stats.walk_skips = walked.end.skips;
    stats.files = walked.files;
    let signed = signing.finish(walked.decision.method);
    (signed, walked.decision)
}

/// The walker thread: walks, decides the method, and sends batches to `tx`.
fn walk_in_batches(
    config: &ScanConfig,
    reporter: &dyn Reporter,
    signing: &Signing,
    tx: std::sync::mpsc::Sender<Batch>,
) -> WalkedFiles {
    // Workers waiting for a decision must not wait forever if the walk panics.
    let _decides = DecideOnExit(signing);
    let mode = &signing.mode;
    let mut files: u64 = 0;
    let mut bytes: u64 = 0;
    let mut first: u32 = 0;
    let mut batch = Vec::with_capacity(BATCH);
    // False once no worker listens (one panicked; the scan is over).
    let mut open = true;
    let end = walk::walk_each(&config.roots, &config.walk, |event| match event {
        StreamEvent::File(file) => {
            files += 1;
            bytes += file.size;
            if mode.load(SeqCst) == PENDING && method_known(config, files, bytes).is_some() {
                signing.set_mode(SIGN);
            }
            batch.push(file);
            if batch.len() == BATCH {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                open = open && signing.send(&tx, Batch { first, files: full });
                first =
                    u32::try_from(files).expect("document ids are 32-bit: fewer than 2^32 files");
            }
        }
        StreamEvent::Problem(p) => reporter.warn(&p.path, &p.reason),
    });
    let mut decision = choose_method(config, files, bytes);
    if mode.load(SeqCst) == SIGN && decision.method == Method::Exact {
        // `method_known` chose LSH on part of the walk, so the rest was signed
        // without sets; the cost model agrees (`early_lsh_agrees_with_the_cost_model`),
        // but should it change, the scan stays consistent.
        decision = Decision {
            method: Method::Lsh,
            reason: "auto: lsh (exact's memory estimate passed --verify-memory during the walk)"
                .into(),
        };
    }
    // Before the last batch, so that it is signed the final way.
    signing.set_mode(mode_of(decision.method));
    if open && !batch.is_empty() {
        signing.send(
            &tx,
            Batch {
                first,
                files: batch,
            },
        );
    }
    reporter.set_total(files);
    WalkedFiles {
        end,
        files,
        decision,
    }
}

/// State shared by the signing workers of [`walk_and_sign`].
struct Signing<'a> {
    config: &'a ScanConfig,
    reporter: &'a dyn Reporter,
    hasher: Signer,
    /// Signature length.
    n: usize,
    /// [`PENDING`], [`SIGN`] or [`KEEP`]; set by the walker, read by workers.
    mode: AtomicU8,
    /// Some content holds a set that waits for its signature.
    holding: AtomicBool,
    claims: Mutex<Claims>,
    /// Signalled (under `claims`) when the method becomes known.
    decided: Condvar,
    /// Batches sent and not yet taken by a worker; `None` once no worker
    /// takes any more.
    queue: Mutex<Option<usize>>,
    dequeued: Condvar,
    /// Batches that may wait in the queue once the method is known.
    capacity: usize,
    sheet: Mutex<Sheet>,
}

/// Sets the method if the walker leaves without doing so (it panicked).
struct DecideOnExit<'a>(&'a Signing<'a>);

impl Drop for DecideOnExit<'_> {
    fn drop(&mut self) {
        if self.0.mode.load(SeqCst) == PENDING {
            self.0.set_mode(SIGN);
        }
    }
}

/// The workers' end of the queue.
struct Receiving<'a> {
    rx: std::sync::mpsc::Receiver<Batch>,
    signing: &'a Signing<'a>,
}

impl Iterator for Receiving<'_> {
    type Item = Batch;

    fn next(&mut self) -> Option<Batch> {
        let batch = self.rx.recv().ok()?;
        let mut queue = self.signing.queue.lock().expect("no panics while locked");
        if let Some(queued) = queue.as_mut() {
            *queued -= 1;
        }
        self.signing.dequeued.notify_one();
        Some(batch)
    }
}

impl Drop for Receiving<'_> {
    fn drop(&mut self) {
        // No worker takes batches any more (done, or one panicked): a walker
        // waiting for room must not wait forever.
        *self.signing.queue.lock().expect("no panics while locked") = None;
        self.signing.dequeued.notify_all();
    }
}

/// Every content seen so far: the first file to show one claims it and signs
/// it; later files with the same bytes only point to it.
#[derive(Default)]
struct Claims {
    /// Bytes of the sets in `held`.
    held_bytes: usize,
    /// Index into `contents` of each content, found by its hash. The content
    /// hash is already uniform, so its low 64 bits serve as the table's hash;
    /// 4 bytes an entry instead of a 16-byte key (a million contents).
    table: hashbrown::HashTable<u32>,
    /// In claim order (thread timing); [`ContentGroups::build`] orders them.
    contents: Vec<ContentGroup>,
    /// Contents whose sets wait for a signature ([`PENDING`]).
    held: Vec<u32>,
    /// Contents whose claimer failed (its file changed while read).
    orphans: Vec<u32>,
}

impl Claims {
    /// The index of content `hash`, and whether document `id` is the first to
    /// show it (and so signs it).
    fn claim(&mut self, hash: u128, id: u32) -> (u32, bool) {
        let Claims {
            table, contents, ..
        } = self;
        let entry = table.entry(
            hash as u64,
            |&c| contents[c as usize].content.hash == hash,
            |&c| contents[c as usize].content.hash as u64,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => (*found.get(), false),
            hashbrown::hash_table::Entry::Vacant(free) => {
                let c = contents.len() as u32;
                free.insert(c);
                let content = SignedContent {
                    hash,
                    shingles: 0,
                    counted: false,
                    set: Vec::new(),
                };
                contents.push(ContentGroup::new(id, content));
                (c, true)
            }
        }
    }
}

/// What the workers have signed, by document id (batches finish in any order).
#[derive(Default)]
struct Sheet {
    documents: Vec<Option<Document>>,
    /// Index into [`Claims::contents`], or [`NO_CONTENT`].
    content_of: Vec<u32>,
    failures: Vec<(u32, ReadError)>,
    /// `n` values per document id, for the ones signed so far; grown by
    /// reallocation (which moves pages rather than copying them once large).
    matrix: Vec<u32>,
}

/// One worker's buffers, reused from batch to batch.
#[derive(Default)]
struct Worker {
    buffers: Buffers,
    /// The batch's signatures, `n` values per file.
    rows: Vec<u32>,
    /// Files of the batch whose row holds a signature.
    signed: Vec<usize>,
}

impl Signing<'_> {
    /// Queues `batch` for the workers, waiting for room once the method is
    /// known. False when no worker takes batches any more.
    fn send(&self, tx: &std::sync::mpsc::Sender<Batch>, batch: Batch) -> bool {
        let mut queue = self.queue.lock().expect("no panics while locked");
        while queue.is_some_and(|queued| queued >= self.capacity)
            && self.mode.load(SeqCst) != PENDING
        {
            queue = self.dequeued.wait(queue).expect("no panics while locked");
        }
        match queue.as_mut() {
            Some(queued) => *queued += 1,
            None => return false,
        }
        drop(queue);
        tx.send(batch).is_ok()
    }

    /// The walker's decision (or the early switch to LSH).
    fn set_mode(&self, mode: u8) {
        self.mode.store(mode, SeqCst);
        // Under the lock that waiting workers check the mode under, so that
        // none misses it between its check and its wait.
        let _claims = self.claims.lock().expect("no panics while locked");
        self.decided.notify_all();
    }

    /// While the method is pending, waits once the held sets pass [`HELD_LIMIT`].
    fn wait_if_holding_too_much(&self) {
        if self.mode.load(SeqCst) != PENDING {
            return;
        }
        let mut claims = self.claims.lock().expect("no panics while locked");
        while self.mode.load(SeqCst) == PENDING && claims.held_bytes > HELD_LIMIT {
            claims = self.decided.wait(claims).expect("no panics while locked");
        }
    }

    fn sign_batch(&self, worker: &mut Worker, batch: Batch) {
        self.sign_held();
        let Batch { first, files } = batch;
        let (n, len) = (self.n, files.len());
        worker.rows.clear();
        worker.rows.resize(len * n, u32::MAX);
        worker.signed.clear();
        let mut documents = Vec::with_capacity(len);
        let mut content_of = Vec::with_capacity(len);
        let mut failures = Vec::new();
        for (k, file) in files.into_iter().enumerate() {
            let id = first + k as u32;
            self.wait_if_holding_too_much();
            self.sign_held();
            let mode = self.mode.load(SeqCst);
            let keep = Keep::for_mode(mode, self.config.verification);
            // (content index << 1) | claimed by this file.
            let claimed = AtomicU64::new(u64::MAX);
            let claim = |hash| {
                let (c, mine) = self
                    .claims
                    .lock()
                    .expect("no panics while locked")
                    .claim(hash, id);
                claimed.store(u64::from(c) << 1 | u64::from(mine), SeqCst);
                mine
            };
            let row = &mut worker.rows[k * n..(k + 1) * n];
            let outcome = sign_one(
                &file,
                self.config,
                &self.hasher,
                keep,
                &claim,
                &mut worker.buffers,
                row,
            );
            let claimed = claimed.into_inner();
            let (c, mine) = ((claimed >> 1) as u32, claimed & 1 == 1);
            let mut doc = document_of(file);
            let mut content = NO_CONTENT;
            match outcome {
                SignOutcome::Unique(signed) => {
                    content = c;
                    if self.store(c, signed, keep == Keep::Set, row) {
                        worker.signed.push(k);
                    }
                }
                SignOutcome::SameAs(_) => content = c,
                SignOutcome::Binary => doc.status = DocStatus::Binary,
                SignOutcome::Failed(err) => {
                    doc.status = DocStatus::Failed;
                    failures.push((id, err));
                    if mine {
                        let mut claims = self.claims.lock().expect("no panics while locked");
                        claims.orphans.push(c);
                    }
                }
            }
            documents.push(doc);
            content_of.push(content);
        }

        let mut sheet = self.sheet.lock().expect("no panics while locked");
        let (first, end) = (first as usize, first as usize + len);
        if sheet.documents.len() < end {
            sheet.documents.resize_with(end, || None);
            sheet.content_of.resize(end, NO_CONTENT);
        }
        for (k, (doc, c)) in documents.into_iter().zip(content_of).enumerate() {
            sheet.documents[first + k] = Some(doc);
            sheet.content_of[first + k] = c;
        }
        if !worker.signed.is_empty() && sheet.matrix.len() < end * n {
            sheet.matrix.resize(end * n, u32::MAX);
        }
        for &k in &worker.signed {
            sheet.matrix[(first + k) * n..][..n].copy_from_slice(&worker.rows[k * n..][..n]);
        }
        sheet.failures.extend(failures);
        drop(sheet);
        self.reporter.advance(len as u64);
    }

    /// Files content `c`'s signing outcome; `kept` says the set was kept rather
    /// than signed. Returns whether `row` now holds its signature.
    fn store(&self, c: u32, mut signed: SignedContent, kept: bool, row: &mut [u32]) -> bool {
        let non_empty = signed.shingles > 0;
        let mut claims = self.claims.lock().expect("no panics while locked");
        let sign_now = kept
            && non_empty
            && match self.mode.load(SeqCst) {
                // Read under the lock that `sign_held` drains under: a set is
                // either held before the drain or sees the new mode.
                PENDING => {
                    claims.held.push(c);
                    claims.held_bytes += signed.set.len() * std::mem::size_of::<u64>();
                    self.holding.store(true, SeqCst);
                    false
                }
                SIGN => true,
                _ => false,
            };
        let set = if sign_now {
            std::mem::take(&mut signed.set)
        } else {
            Vec::new()
        };
        claims.contents[c as usize].content = signed;
        drop(claims);
        if sign_now {
            // LSH was chosen while this file was read.
            self.hasher.sign_into(&set, row);
        }
        non_empty && (!kept || sign_now)
    }

    /// Once LSH is chosen, signs the sets held while the method was pending
    /// and frees them.
    fn sign_held(&self) {
        if !self.holding.load(SeqCst) || self.mode.load(SeqCst) != SIGN {
            return;
        }
        let held: Vec<(u32, Vec<u64>)> = {
            let mut claims = self.claims.lock().expect("no panics while locked");
            self.holding.store(false, SeqCst);
            claims.held_bytes = 0;
            let Claims { held, contents, .. } = &mut *claims;
            held.drain(..)
                .map(|c| {
                    let group = &mut contents[c as usize];
                    (group.loader, std::mem::take(&mut group.content.set))
                })
                .collect()
        };
        let n = self.n;
        let mut rows = vec![u32::MAX; held.len() * n];
        for ((_, set), row) in held.iter().zip(rows.chunks_exact_mut(n)) {
            self.hasher.sign_into(set, row);
        }
        let mut sheet = self.sheet.lock().expect("no panics while locked");
        for ((loader, _), row) in held.iter().zip(rows.chunks_exact(n)) {
            let at = *loader as usize * n;
            if sheet.matrix.len() < at + n {
                sheet.matrix.resize(at + n, u32::MAX);
            }
            sheet.matrix[at..at + n].copy_from_slice(row);
        }
    }

    /// After the last batch: signs what is still held (LSH), rescues the
    /// copies of contents whose claimer failed, and groups the documents.
    fn finish(self, method: Method) -> Signed {
        if method == Method::Lsh {
            self.sign_held();
        }
        let n = self.n;
        let claims = self.claims.into_inner().expect("no panics while locked");
        let sheet = self.sheet.into_inner().expect("no panics while locked");
        let Claims {
            table,
            mut contents,
            orphans,
            ..
        } = claims;
        drop(table);
        let Sheet {
            documents,
            mut content_of,
            mut failures,
            mut matrix,
        } = sheet;
        // Same size and alignment: collected in place, no second list.
        let mut documents: Vec<Document> = documents
            .into_iter()
            .map(|doc| doc.expect("every walked file was signed"))
            .collect();
        if method == Method::Lsh {
            matrix.resize(documents.len() * n, u32::MAX);
        } else {
            matrix = Vec::new();
        }
        let rescue = Rescue {
            config: self.config,
            hasher: &self.hasher,
            method,
            n,
        };
        rescue.run(
            &orphans,
            &mut contents,
            &mut content_of,
            &mut documents,
            &mut failures,
            &mut matrix,
        );
        failures.sort_unstable_by_key(|&(id, _)| id);
        let groups = ContentGroups::build(contents, content_of, &mut documents);
        Signed {
            documents,
            groups,
            failures,
            matrix,
        }
    }
}

/// Signing the copies of a content whose claimer failed.
struct Rescue<'a> {
    config: &'a ScanConfig,
    hasher: &'a Signer,
    method: Method,
    n: usize,
}

impl Rescue<'_> {
    /// A claimer that failed (its file changed while read) leaves its copies
    /// without a signature: sign the first copy that still reads cleanly, as
    /// [`sign_files`] does.
    fn run(
        &self,
        orphans: &[u32],
        contents: &mut Vec<ContentGroup>,
        content_of: &mut [u32],
        documents: &mut [Document],
        failures: &mut Vec<(u32, ReadError)>,
        matrix: &mut [u32],
    ) {
        if orphans.is_empty() {
            return;
        }
        // Each orphan's copies, ascending, in one pass over the documents.
        let mut copies: HashMap<u32, Vec<usize>> =
            orphans.iter().map(|&c| (c, Vec::new())).collect();
        for (id, c) in content_of.iter().enumerate() {
            if let Some(ids) = copies.get_mut(c) {
                ids.push(id);
            }
        }
        let mut buffers = Buffers::default();
        let mut row = vec![u32::MAX; self.n];
        for &c in orphans {
            let mut adopted = false;
            for &id in &copies[&c] {
                if adopted {
                    break;
                }
                let doc = &mut documents[id];
                let file = FileEntry {
                    path: doc.path.to_path_buf(),
                    size: doc.size,
                    modified: doc.modified,
                    dev: 0,
                    ino: 0,
                };
                let keep = Keep::for_mode(mode_of(self.method), self.config.verification);
                let outcome = sign_one(
                    &file,
                    self.config,
                    self.hasher,
                    keep,
                    &|_| true,
                    &mut buffers,
                    &mut row,
                );
                match outcome {
                    SignOutcome::Unique(signed) => {
                        let signature = keep != Keep::Set && signed.shingles > 0;
                        if signed.hash == contents[c as usize].content.hash {
                            contents[c as usize].loader = id as u32;
                            contents[c as usize].content = signed;
                            adopted = true;
                        } else {
                            // Its bytes changed too: a content of its own.
                            content_of[id] = contents.len() as u32;
                            contents.push(ContentGroup::new(id as u32, signed));
                        }
                        if signature {
                            matrix[id * self.n..][..self.n].copy_from_slice(&row);
                        }
                    }
                    SignOutcome::SameAs(_) => unreachable!("every content is claimed here"),
                    SignOutcome::Binary => {
                        doc.status = DocStatus::Binary;
                        content_of[id] = NO_CONTENT;
                    }
                    SignOutcome::Failed(err) => {
                        doc.status = DocStatus::Failed;
                        failures.push((id as u32, err));
                        content_of[id] = NO_CONTENT;
                    }
                }
            }
        }
    }
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
    matrix: Vec<u32>,
    decision: Decision,
    stats: ScanStats,
    reporter: &dyn Reporter,
) -> ScanOutcome {
    assert_eq!(files.len(), signed.len(), "one outcome per file");
    let signed = Signed::from_outcomes(files, signed, matrix);
    pairs_of(config, signed, decision, stats, reporter)
}

/// Stages 3–5 on what signing left, however it was signed.
fn pairs_of(
    config: &ScanConfig,
    signed: Signed,
    decision: Decision,
    mut stats: ScanStats,
    reporter: &dyn Reporter,
) -> ScanOutcome {
    let Signed {
        mut documents,
        mut groups,
        failures,
        mut matrix,
    } = signed;
    // Warnings and notes in document order, whatever order files were signed in.
    let mut failures = failures.into_iter();
    for doc in &documents {
        match doc.status {
            DocStatus::Failed => {
                let (_, err) = failures.next().expect("one reason per failed document");
                reporter.warn(&doc.path, &err);
                stats.errors += 1;
            }
            DocStatus::Binary => {
                reporter.note(
                    &doc.path,
                    &"looks binary (a NUL byte in the first 8 KiB); --binary reads it",
                );
                stats.binary += 1;
            }
            DocStatus::Read => stats.bytes += doc.size,
        }
    }
    stats.signatures = groups.groups.len() as u64;
    stats.identical_files = groups.identical_files();
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
        let pairs = expand_to_documents(
            &items,
            &documents,
            &[],
            &verified,
            Verification::Exact,
            false,
        );
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
    let n = config.recipe.banding.signature_len();
    for (i, item) in items.iter().enumerate() {
        let src = item.loader as usize;
        debug_assert!(src >= i, "loaders increase with the group index");
        if src != i {
            matrix.copy_within(src * n..(src + 1) * n, i * n);
        }
    }
    matrix.truncate(items.len() * n);
    matrix.shrink_to_fit();
    let candidates = lsh::candidate_pairs(&matrix, config.recipe.banding);
    stats.candidates = candidates.len() as u64;
    reporter.end(Stage::Band);

    let signature = |i: u32| &matrix[i as usize * n..][..n];
    // Each item's exact shingle count, once known ([`Keep::Signature`]).
    let counts: Vec<AtomicU32> = items
        .iter()
        .map(|g| {
            AtomicU32::new(if g.content.counted {
                g.content.shingles.min(UNCOUNTED - 1)
            } else {
                UNCOUNTED
            })
        })
        .collect();
    // Items whose identical pairs cannot be reported: no copy reads as the
    // content any more, so its count cannot be established.
    let mut lost_copies: Vec<bool> = Vec::new();
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
            let candidates = rule_out_by_signature(candidates, &matrix, config, &mut stats);
            let involved = verify::involved_documents(&candidates);
            // Copies of a content signed without its exact count need the
            // count for their identical pairs: the verifier reads the ones it
            // loads anyway, the others are read once more after it.
            let uncopied = items
                .iter()
                .enumerate()
                .filter(|&(i, g)| {
                    g.members.len() > 1
                        && !g.content.counted
                        && involved.binary_search(&(i as u32)).is_err()
                })
                .count();
            reporter.begin(Stage::Verify, Some((involved.len() + uncopied) as u64));
            drop(involved);
            let outcome = verify::verify_exact(
                &candidates,
                config.threshold,
                verify::Budget::capped(config.verify_memory),
                |i| items[i as usize].content.shingles as usize * std::mem::size_of::<u64>(),
                |i| {
                    let item = items[i as usize];
                    let result = reload_set(
                        &documents[item.loader as usize].path,
                        item.content.hash,
                        config,
                    );
                    if let Ok(set) = &result {
                        counts[i as usize].store(count_of(set.len()), SeqCst);
                    }
                    reporter.advance(1);
                    result
                },
            );
            let mut failed = vec![false; items.len()];
            for (i, reason) in outcome.failures {
                let item = items[i as usize];
                reporter.warn(&documents[item.loader as usize].path, &reason);
                stats.errors += item.members.len() as u64;
                failed[i as usize] = true;
            }
            stats.errors +=
                count_copied_contents(&items, &documents, &counts, &failed, config, reporter);
            reporter.end(Stage::Verify);
            // Every document the output names now has its exact count.
            for (item, count) in items.iter().zip(&counts) {
                let count = count.load(SeqCst);
                if count != UNCOUNTED {
                    for &id in &item.members {
                        documents[id as usize].shingles = count;
                    }
                }
            }
            lost_copies = counts
                .iter()
                .zip(&items)
                .map(|(c, g)| {
                    !g.content.counted && g.members.len() > 1 && c.load(SeqCst) == UNCOUNTED
                })
                .collect();
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

    let pairs = expand_to_documents(
        &items,
        &documents,
        &lost_copies,
        &verified,
        config.verification,
        true,
    );
    stats.pairs = pairs.len() as u64;
    ScanOutcome {
        documents,
        pairs,
        stats,
        decision,
    }
}

/// The share of LSH's own misses at the threshold that [`rule_out_by_signature`]
/// may add: at most 1 % more pairs at the threshold go unreported than banding
/// alone would lose (with 20 × 5 at t = 0.8, a 3.6·10⁻⁶ chance per pair).
const RULE_OUT_SHARE: f64 = 0.01;

/// Drops the candidates whose signatures agree in fewer positions than
/// [`verify::agreements_needed`] allows for a pair at the threshold, with a
/// miss probability of [`RULE_OUT_SHARE`] × LSH's own miss probability there
/// (`(1 − t^r)^b`). Banding makes candidates of pairs well below the
/// threshold (20 × 5 already takes most pairs at 0.6); reading both files
/// only to reject such a pair was most of exact verification's cost. Every
/// pair reported is still verified exactly.
///
/// The bound needs positions that are independent samples: a signature with a
/// repeated value (OPH bins filled by densification, or a rare 32-bit
/// collision) is not, and its pairs are always verified.
fn rule_out_by_signature(
    mut candidates: Vec<(u32, u32)>,
    matrix: &[u32],
    config: &ScanConfig,
    stats: &mut ScanStats,
) -> Vec<(u32, u32)> {
    let Banding { bands, rows } = config.recipe.banding;
    let n = config.recipe.banding.signature_len();
    let miss = RULE_OUT_SHARE * scurve::miss_probability(config.threshold, bands, rows);
    let needed = verify::agreements_needed(n, config.threshold, miss);
    if needed == 0 {
        return candidates;
    }
    let signature = |i: u32| &matrix[i as usize * n..][..n];
    let involved = verify::involved_documents(&candidates);
    let samples: Vec<bool> = involved
        .par_iter()
        .map_init(Vec::new, |scratch, &d| is_sample(signature(d), scratch))
        .collect();
    let sampled = |d: u32| samples[involved.binary_search(&d).expect("an involved document")];
    let before = candidates.len();
    candidates.retain(|&(a, b)| {
        let agree = signature(a)
            .iter()
            .zip(signature(b))
            .filter(|(x, y)| x == y)
            .count();
        agree >= needed || !sampled(a) || !sampled(b)
    });
    stats.ruled_out = (before - candidates.len()) as u64;
    candidates
}

/// Whether no value of `signature` repeats, i.e. every position holds a
/// different element's minimum: what [`verify::agreements_needed`] assumes.
fn is_sample(signature: &[u32], scratch: &mut Vec<u32>) -> bool {
    scratch.clear();
    scratch.extend_from_slice(signature);
    scratch.sort_unstable();
    scratch.windows(2).all(|w| w[0] != w[1])
}

/// [`pairs_of`]'s mark of a count not known yet.
const UNCOUNTED: u32 = u32::MAX;

/// A set's size as [`Document::shingles`] holds it, never [`UNCOUNTED`].
fn count_of(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX).min(UNCOUNTED - 1)
}

/// Establishes the exact shingle count of every content with copies that is
/// still [`UNCOUNTED`] after verification, reading one member that still holds
/// the signed content (the loader first, unless verification just failed to
/// read it). A content none of whose files reads as it any more is reported
/// like a verification failure (warned, its files counted as errors, which
/// this returns), and its count stays unknown.
fn count_copied_contents(
    items: &[&ContentGroup],
    documents: &[Document],
    counts: &[AtomicU32],
    failed: &[bool],
    config: &ScanConfig,
    reporter: &dyn Reporter,
) -> u64 {
    let uncounted: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].members.len() > 1 && counts[i].load(SeqCst) == UNCOUNTED)
        .collect();
    let lost: Vec<Option<(u32, String, u64)>> = uncounted
        .into_par_iter()
        .map(|i| {
            let item = items[i];
            let mut first_error = None;
            for &id in &item.members {
                if failed[i] && id == item.loader {
                    continue;
                }
                match reload_set(&documents[id as usize].path, item.content.hash, config) {
                    Ok(set) => {
                        counts[i].store(count_of(set.len()), SeqCst);
                        break;
                    }
                    Err(reason) => {
                        first_error.get_or_insert((id, reason));
                    }
                }
            }
            reporter.advance(1);
            match first_error {
                Some((id, reason)) if counts[i].load(SeqCst) == UNCOUNTED && !failed[i] => {
                    Some((id, reason, item.members.len() as u64))
                }
                _ => None,
            }
        })
        .collect();
    // Warned in item order, whatever order the threads finished in.
    let mut errors = 0;
    for (id, reason, files) in lost.into_iter().flatten() {
        reporter.warn(&documents[id as usize].path, &reason);
        errors += files;
    }
    errors
}

/// Applies `--method`: the cost model needs only what the walk found.
fn choose_method(config: &ScanConfig, files: u64, bytes: u64) -> Decision {
    plan::choose(config.method, &workload(config, files, bytes))
}

fn workload(config: &ScanConfig, files: u64, bytes: u64) -> Workload {
    Workload {
        files,
        bytes,
        tokens_per_byte: plan::tokens_per_byte(config.recipe.shingler.kind() == ShingleKind::Char),
        threshold: config.threshold,
        signature_len: config.recipe.banding.signature_len(),
        memory_budget: config.verify_memory as u64,
        signature_verification: config.verification == Verification::Signature,
    }
}

/// The method, when it is known before the walk ends: always when fixed by
/// `--method`, `--bands`/`--rows` or `--verify signature`; under `auto` as soon as the files
/// walked so far would already take the exact method over its memory budget
/// (the exact method's memory only grows with more bytes, and [`plan::choose`]
/// never picks it over the budget: `early_lsh_agrees_with_the_cost_model`).
fn method_known(config: &ScanConfig, files: u64, bytes: u64) -> Option<Method> {
    let signature_verification = config.verification == Verification::Signature;
    if let Some(decision) = plan::settled(config.method, signature_verification) {
        return Some(decision.method);
    }
    let peak = plan::exact_peak_bytes(&workload(config, files, bytes));
    (peak > config.verify_memory as f64).then_some(Method::Lsh)
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
    let join = join::all_pairs_owned(sets, threshold)
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
    /// Number of distinct shingles when `counted`; otherwise an upper bound
    /// (the shingle windows that were signed), zero exactly when the set is
    /// empty. A `u32`, as in [`Document`], so that the flag below fits in the
    /// 48 bytes the `u128` alignment gives (16 MB at a million contents).
    pub shingles: u32,
    /// Whether `shingles` is the exact count. See `Keep::Signature`.
    pub counted: bool,
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
    repeats: RepeatFilter,
    sorter: HashSorter,
    /// The large-file path's ([`sign_windows_chunked`]): the carried tail,
    /// the first chunks' text while the filter's size is not known yet, and
    /// one batch's signature.
    windows: chunked::Windows,
    pending: String,
    batch_row: Vec<u32>,
    /// A large file's reload ([`sorted_set_chunked`]): what the repeat
    /// filter passes, the batch it gathers into, and the merge's output.
    passed: Vec<u64>,
    batch: Vec<u64>,
    merged: Vec<u64>,
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
        Signer::with(
            config.recipe.sketch,
            config.recipe.banding.signature_len(),
            config.recipe.seed,
        )
    }

    /// A `kind` kernel making signatures of `n` values from `seed`.
    pub fn with(kind: SketchKind, n: usize, seed: u64) -> Self {
        match kind {
            SketchKind::Classic => Signer::Classic(MinHasher::new(n, seed)),
            SketchKind::Oph => Signer::Oph { seed },
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
    // Callers of `sign_files` (the index, tests) use the counts as they are.
    let keep = if keep_sets {
        Keep::Set
    } else {
        Keep::CountedSignature
    };
    // One row of n values per file, written in place by the worker that signs
    // it: one allocation for all signatures instead of one per document. The
    // exact method signs nothing (rows of one unused value).
    let n = if keep_sets {
        1
    } else {
        config.recipe.banding.signature_len()
    };
    let mut matrix = vec![u32::MAX; files.len() * n];
    let mut outcomes: Vec<SignOutcome> = matrix
        .par_chunks_mut(n)
        .zip(files.par_iter())
        .map_init(Buffers::default, |buffers, (row, file)| {
            let outcome = sign_one(file, config, hasher, keep, &claim, buffers, row);
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
                keep,
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

/// What signing keeps of a content besides its hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keep {
    /// The sorted set, not signed: the exact method (or a method still
    /// pending) works on sets.
    Set,
    /// A signature and the exact distinct count, for callers that report or
    /// store the count without reading the file again (`--verify signature`,
    /// the index).
    CountedSignature,
    /// A signature only. Every window is fed to the kernel (OPH), or what a
    /// [`RepeatFilter`] lets through (classic), instead of first building the
    /// exact set: a minimum does not change when a value comes twice, so the
    /// signature is the same, and the per-window hash-set insert was the
    /// largest cost of signing. The count is then an upper bound; exact
    /// verification re-reads every document it reports and makes it exact
    /// ([`pairs_of`]).
    Signature,
}

impl Keep {
    /// What the streamed scan keeps under `mode`.
    fn for_mode(mode: u8, verification: Verification) -> Keep {
        match (mode, verification) {
            (SIGN, Verification::Exact) => Keep::Signature,
            (SIGN, Verification::Signature) => Keep::CountedSignature,
            _ => Keep::Set,
        }
    }
}

/// Reads, checks and signs one file. `claim(hash)` says whether this file is
/// the one to sign its content (true) or a copy of a content signed elsewhere.
fn sign_one(
    file: &FileEntry,
    config: &ScanConfig,
    hasher: &Signer,
    keep: Keep,
    claim: &(dyn Fn(u128) -> bool + Sync),
    buffers: &mut Buffers,
    row: &mut [u32],
) -> SignOutcome {
    let contents = match read::read_file(&file.path, &config.read) {
        Ok(contents) => contents,
        Err(err) => return SignOutcome::Failed(err),
    };
    if !config.recipe.include_binary && read::looks_binary(&contents) {
        // Pages of a mapping truncated under us read as zeros, which look
        // binary: only a file that did not change is really binary.
        return match contents.verify_unchanged() {
            Ok(()) => SignOutcome::Binary,
            Err(err) => SignOutcome::Failed(err),
        };
    }
    // A large file on the path that needs no whole set is read a chunk at a
    // time (twice: identity first, so that a copy is never signed), and what
    // is read is released at once: memory per file is a chunk, not the file.
    let chunked = keep == Keep::Signature && contents.len() as u64 >= config.read.chunked_min_size;
    let release = |offset| contents.release_before(offset);
    let hash = if chunked {
        hash_in_chunks(&contents, config.read.chunk_size, &release)
    } else {
        xxh3_128(&contents)
    };
    if !claim(hash) {
        return match contents.verify_unchanged() {
            Ok(()) => SignOutcome::SameAs(hash),
            Err(err) => SignOutcome::Failed(err),
        };
    }
    let shingles = match keep {
        Keep::Set => {
            sorted_shingles_into(&contents, config, buffers);
            buffers.set.len()
        }
        Keep::CountedSignature => {
            sorted_shingles_into(&contents, config, buffers);
            if !buffers.set.is_empty() {
                hasher.sign_into(&buffers.set, row);
            }
            buffers.set.len()
        }
        Keep::Signature if chunked => {
            let (windows, read) =
                sign_windows_chunked(&contents, &release, config, hasher, buffers, row);
            if read != hash {
                // The bytes changed between the two passes: the file's own
                // reason if it has one (shrank, mtime), else "changed".
                return SignOutcome::Failed(
                    contents
                        .verify_unchanged()
                        .err()
                        .unwrap_or(ReadError::Changed),
                );
            }
            windows
        }
        Keep::Signature => sign_windows(&contents, config, hasher, buffers, row),
    };
    if let Err(err) = contents.verify_unchanged() {
        return SignOutcome::Failed(err);
    }
    SignOutcome::Unique(SignedContent {
        hash,
        shingles: u32::try_from(shingles).unwrap_or(u32::MAX),
        counted: keep != Keep::Signature,
        // A clone is allocated at its exact length; the buffer stays for reuse.
        set: if keep == Keep::Set {
            buffers.set.clone()
        } else {
            Vec::new()
        },
    })
}

/// Signs the shingle windows of `bytes` into `row` without building their
/// set ([`Keep::Signature`]); returns how many values were signed, an upper
/// bound on the distinct shingles (0 exactly when there are none; `row` is
/// then not a signature).
fn sign_windows(
    bytes: &[u8],
    config: &ScanConfig,
    hasher: &Signer,
    buffers: &mut Buffers,
    row: &mut [u32],
) -> usize {
    match *hasher {
        Signer::Oph { seed } => {
            // One bin update per window: cheaper than any dedup would be.
            // Blocks of window hashes go to the batch kernel (both vectorised).
            let Buffers { text, scratch, .. } = buffers;
            normalize_into(bytes, config.recipe.normalization, text);
            let mut windows = 0usize;
            let mut sketch = oph::Sketch::new(seed, row);
            config
                .recipe
                .shingler
                .for_each_hash_block(text, scratch, |block| {
                    windows += block.len();
                    sketch.add_batch(block);
                });
            sketch.finish();
            windows
        }
        Signer::Classic(ref minhasher) => {
            // `n` hash evaluations per value: drop most repeats first, at a
            // fraction of an exact set's cost.
            filtered_windows_into(bytes, config, buffers);
            if !buffers.set.is_empty() {
                minhasher.sign_into(&buffers.set, row);
            }
            buffers.set.len()
        }
    }
}

/// XXH3-128 of `bytes`, equal to [`xxh3_128`], read `chunk` bytes at a time
/// and telling `release` the offset behind which nothing is needed any more.
fn hash_in_chunks(bytes: &[u8], chunk: usize, release: &dyn Fn(usize)) -> u128 {
    let mut digest = Xxh3::new();
    let mut end = 0;
    for part in bytes.chunks(chunk.max(1)) {
        digest.update(part);
        end += part.len();
        release(end);
    }
    digest.digest128()
}

/// Values a classic batch may gather before it is signed
/// ([`sign_windows_chunked`]): 2 MiB of hashes.
const CLASSIC_BATCH: usize = 1 << 18;

/// The chunks of a large file as [`chunked::chunk_end`] cuts them, each
/// normalised, hashed on the way (to check that the bytes signed are the
/// bytes claimed) and released once normalised.
struct Chunks<'a> {
    bytes: &'a [u8],
    start: usize,
    size: usize,
    digest: Xxh3,
    release: &'a dyn Fn(usize),
}

impl<'a> Chunks<'a> {
    fn new(bytes: &'a [u8], size: usize, release: &'a dyn Fn(usize)) -> Self {
        Chunks {
            bytes,
            start: 0,
            size,
            digest: Xxh3::new(),
            release,
        }
    }

    /// Normalises the next chunk into `text`; false after the last.
    fn next_into(&mut self, norm: Normalization, text: &mut String) -> bool {
        if self.start >= self.bytes.len() {
            return false;
        }
        let end = chunked::chunk_end(self.bytes, self.start, self.size);
        let part = &self.bytes[self.start..end];
        self.digest.update(part);
        normalize_into(part, norm, text);
        (self.release)(end);
        self.start = end;
        true
    }
}

/// [`sign_windows`] for a large file, holding one chunk of it at a time
/// (`config.read.chunk_size`, see [`crate::text::chunked`]): the same signature
/// in `row` and the same count. `release(offset)` is told when the bytes
/// before `offset` are no longer needed. Returns the count and the XXH3-128
/// of the bytes that were signed.
///
/// OPH takes every window, as [`sign_windows`] does. Classic signing takes
/// what one [`RepeatFilter`] lets through over the whole file, signed in
/// batches whose signatures are merged by a minimum per position (the
/// minimum over the whole stream), so the count is what passes, as on the
/// whole-file path. That filter's table is sized by the length of the whole
/// normalised text, known only at the end; but beyond a few tens of KiB the
/// size is its maximum, so the first chunks' text is gathered until it gets
/// there (or the file ends, and the short text takes the whole-file path).
fn sign_windows_chunked(
    bytes: &[u8],
    release: &dyn Fn(usize),
    config: &ScanConfig,
    hasher: &Signer,
    buffers: &mut Buffers,
    row: &mut [u32],
) -> (usize, u128) {
    let norm = config.recipe.normalization;
    let shingler = &config.recipe.shingler;
    let mut chunks = Chunks::new(bytes, config.read.chunk_size, release);
    let Buffers {
        text,
        scratch,
        set,
        repeats,
        windows,
        pending,
        batch_row,
        ..
    } = buffers;
    windows.clear();
    let count = match *hasher {
        Signer::Oph { seed } => {
            let mut count = 0usize;
            let mut sketch = oph::Sketch::new(seed, row);
            while chunks.next_into(norm, text) {
                windows.feed(text, norm, shingler, scratch, |block| {
                    count += block.len();
                    sketch.add_batch(block);
                });
            }
            sketch.finish();
            count
        }
        Signer::Classic(ref minhasher) => {
            let full = |len: usize| RepeatFilter::slots_for(len / 4) == RepeatFilter::MAX_SLOTS;
            pending.clear();
            let mut ended = false;
            while !full(pending.len()) {
                if !chunks.next_into(norm, text) {
                    ended = true;
                    break;
                }
                chunked::join_normalized(pending, text, norm);
            }
            if ended {
                // Short once normalised (mostly whitespace): the whole text
                // is here, and takes the whole-file path.
                repeats.filter_into(pending.len() / 4, set, |passing| {
                    shingler
                        .for_each_hash_block(pending, scratch, |block| passing.offer_block(block))
                });
                if !set.is_empty() {
                    minhasher.sign_into(set, row);
                }
                set.len()
            } else {
                row.fill(u32::MAX);
                batch_row.resize(row.len(), u32::MAX);
                let mut count = 0usize;
                let mut sign_batch = |values: &[u64]| {
                    if values.is_empty() {
                        return;
                    }
                    count += values.len();
                    minhasher.sign_into(values, batch_row);
                    for (r, &b) in row.iter_mut().zip(batch_row.iter()) {
                        *r = (*r).min(b);
                    }
                };
                repeats.filter_into(pending.len() / 4, set, |passing| {
                    // Draining after a block rather than after the value that
                    // fills a batch: batches differ, their minimum does not.
                    let mut offer = |block: &[u64]| {
                        passing.offer_block(block);
                        if passing.passed() >= CLASSIC_BATCH {
                            passing.drain(&mut sign_batch);
                        }
                    };
                    windows.feed(pending, norm, shingler, scratch, &mut offer);
                    while chunks.next_into(norm, text) {
                        windows.feed(text, norm, shingler, scratch, &mut offer);
                    }
                    passing.drain(&mut sign_batch);
                });
                count
            }
        }
    };
    (count, chunks.digest.digest128())
}

/// The shingle hashes of `bytes` in `buffers.set`, unordered, with most
/// repeats dropped by a [`RepeatFilter`] and every distinct value kept.
fn filtered_windows_into(bytes: &[u8], config: &ScanConfig, buffers: &mut Buffers) {
    let Buffers {
        text,
        scratch,
        set,
        repeats,
        ..
    } = buffers;
    normalize_into(bytes, config.recipe.normalization, text);
    repeats.filter_into(text.len() / 4, set, |passing| {
        config
            .recipe
            .shingler
            .for_each_hash_block(text, scratch, |block| passing.offer_block(block))
    });
}

/// The sorted shingle set of `bytes` in `buffers.set`. A sort needs no exact
/// dedup beforehand: a [`RepeatFilter`] first drops most repeats (natural text
/// repeats most of its 5-character windows, so sorting every occurrence would
/// be ~3× the work), and the few left go with the sort's neighbours. That is
/// cheaper than a [`crate::text::distinct::DistinctSet`], whose insert costs more
/// per window than the filter and the extra sorted values together (it is
/// kept as the benches' baseline).
fn sorted_shingles_into(bytes: &[u8], config: &ScanConfig, buffers: &mut Buffers) {
    filtered_windows_into(bytes, config, buffers);
    buffers.sorter.sort(&mut buffers.set);
    buffers.set.dedup();
}

/// Re-creates a file's shingle set for exact verification, refusing a file
/// whose content is no longer what was signed.
fn reload_set(
    path: &std::path::Path,
    expected_hash: u128,
    config: &ScanConfig,
) -> Result<Vec<u64>, String> {
    const CHANGED: &str = "changed during the run (content differs from when it was signed)";
    let contents = read::read_file(path, &config.read).map_err(|e| e.to_string())?;
    thread_local! {
        // Each verifying thread keeps its text buffer and hash table from one
        // reload to the next, as signing does, instead of allocating and
        // faulting in fresh ones for every candidate file.
        static BUFFERS: std::cell::RefCell<Buffers> = std::cell::RefCell::default();
    }
    let set = if contents.len() as u64 >= config.read.chunked_min_size {
        // A large file: one pass, a chunk at a time, checked at the end.
        let release = |offset| contents.release_before(offset);
        BUFFERS.with_borrow_mut(|buffers| {
            let read = sorted_set_chunked(&contents, &release, config, buffers);
            // Taken, not cloned: the thread keeps no buffer the size of the
            // largest set it ever loaded.
            let set = std::mem::take(&mut buffers.set);
            (read == expected_hash).then_some(set).ok_or(CHANGED)
        })?
    } else {
        if xxh3_128(&contents) != expected_hash {
            return Err(CHANGED.into());
        }
        BUFFERS.with_borrow_mut(|buffers| {
            sorted_shingles_into(&contents, config, buffers);
            // A clone is allocated at its exact length; the buffer stays for reuse.
            buffers.set.clone()
        })
    };
    contents.verify_unchanged().map_err(|e| e.to_string())?;
    Ok(set)
}

/// [`sorted_shingles_into`] for a large file, a chunk at a time: the same
/// sorted set in `buffers.set`; returns the XXH3-128 of the bytes it read.
/// Beside the set it holds a chunk of text and a batch of what the repeat
/// filter passed, at most as large as the set (or [`CLASSIC_BATCH`]), which
/// is sorted and merged into the set when full: every value is sorted once,
/// in a batch, and each merge costs at most twice the batch, so the work is
/// what one sort of everything costs, but not the memory.
fn sorted_set_chunked(
    bytes: &[u8],
    release: &dyn Fn(usize),
    config: &ScanConfig,
    buffers: &mut Buffers,
) -> u128 {
    let norm = config.recipe.normalization;
    let shingler = &config.recipe.shingler;
    let mut chunks = Chunks::new(bytes, config.read.chunk_size, release);
    let Buffers {
        text,
        scratch,
        set,
        repeats,
        sorter,
        windows,
        passed,
        batch,
        merged,
        ..
    } = buffers;
    windows.clear();
    set.clear();
    batch.clear();
    let mut merge_batch = |set: &mut Vec<u64>, batch: &mut Vec<u64>| {
        sorter.sort(batch);
        batch.dedup();
        merge_sorted(set, batch, merged);
        std::mem::swap(set, merged);
        batch.clear();
    };
    // The filter's table size does not matter here (what passes is sorted
    // and deduplicated in the end): its largest.
    repeats.filter_into(usize::MAX, passed, |passing| {
        let mut take = |passing: &mut Passing<'_>, last: bool| {
            passing.drain(|values| batch.extend_from_slice(values));
            if last || batch.len() >= set.len().max(CLASSIC_BATCH) {
                merge_batch(set, batch);
            }
        };
        while chunks.next_into(norm, text) {
            windows.feed(text, norm, shingler, scratch, |block| {
                passing.offer_block(block);
                if passing.passed() >= CLASSIC_BATCH {
                    take(passing, false);
                }
            });
        }
        take(passing, true);
    });
    // The thread keeps these buffers: not at the size of its largest file.
    merged.clear();
    merged.shrink_to(CLASSIC_BATCH);
    batch.shrink_to(CLASSIC_BATCH);
    chunks.digest.digest128()
}

/// The union of two ascending, duplicate-free slices into `out` (cleared
/// first), ascending and duplicate-free.
fn merge_sorted(a: &[u64], b: &[u64], out: &mut Vec<u64>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// Files that share one content.
struct ContentGroup {
    /// Document ids, ascending.
    members: Members,
    /// The member whose file was signed, and is re-read for verification.
    loader: u32,
    content: SignedContent,
}

impl ContentGroup {
    /// A content first shown by document `loader`, before its members are known.
    fn new(loader: u32, content: SignedContent) -> ContentGroup {
        ContentGroup {
            members: Members::default(),
            loader,
            content,
        }
    }
}

/// The document ids of one content, ascending. Most contents belong to one
/// file, whose id is kept inline: no allocation for them (a million in a scan
/// of a million distinct files).
#[derive(Debug)]
enum Members {
    One(u32),
    Many(Vec<u32>),
}

impl Default for Members {
    fn default() -> Self {
        Members::Many(Vec::new())
    }
}

impl Members {
    /// Adds `id`, greater than every id already in.
    fn push(&mut self, id: u32) {
        match self {
            Members::Many(ids) if ids.is_empty() => *self = Members::One(id),
            Members::One(first) => *self = Members::Many(vec![*first, id]),
            Members::Many(ids) => ids.push(id),
        }
    }
}

impl std::ops::Deref for Members {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            Members::One(id) => std::slice::from_ref(id),
            Members::Many(ids) => ids,
        }
    }
}

impl<'a> IntoIterator for &'a Members {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Every content and its documents, ordered by loader (so loaders increase
/// with the group index).
struct ContentGroups {
    groups: Vec<ContentGroup>,
}

/// `content_of` value of a document without content (binary, failed).
const NO_CONTENT: u32 = u32::MAX;

impl ContentGroups {
    /// Groups documents by content: `contents` in any order, each with its
    /// loader and no members yet, and `content_of[id]` the index in `contents`
    /// of document `id`'s content (or [`NO_CONTENT`]). Gives each document its
    /// content's shingle count; contents left without documents are dropped.
    fn build(
        mut contents: Vec<ContentGroup>,
        content_of: Vec<u32>,
        documents: &mut [Document],
    ) -> ContentGroups {
        // Sorted in place and found again by loader (unique: a document signs
        // at most one content), instead of a permuted copy of every content.
        let loader_of: Vec<u32> = contents.iter().map(|g| g.loader).collect();
        contents.par_sort_unstable_by_key(|g| g.loader);
        for (id, &c) in content_of.iter().enumerate() {
            if c == NO_CONTENT {
                continue;
            }
            let g = contents
                .binary_search_by_key(&loader_of[c as usize], |g| g.loader)
                .expect("every content is in the list");
            contents[g].members.push(id as u32);
            documents[id].shingles = contents[g].content.shingles;
        }
        contents.retain(|g| !g.members.is_empty());
        ContentGroups { groups: contents }
    }

    fn identical_files(&self) -> u64 {
        self.groups.iter().map(|g| g.members.len() as u64 - 1).sum()
    }
}

/// What signing leaves for pair finding.
struct Signed {
    /// Every walked file, by id.
    documents: Vec<Document>,
    groups: ContentGroups,
    /// Why each [`DocStatus::Failed`] document failed, by ascending id.
    failures: Vec<(u32, ReadError)>,
    /// Row `i` (`n` values) is document `i`'s signature when it is a group's
    /// loader with a non-empty set (LSH); empty with the exact method.
    matrix: Vec<u32>,
}

impl Signed {
    /// From [`sign_files`]' per-file outcomes (or an index's equivalent).
    fn from_outcomes(
        files: Vec<FileEntry>,
        outcomes: Vec<SignOutcome>,
        matrix: Vec<u32>,
    ) -> Signed {
        let mut contents = Vec::new();
        let mut by_hash: HashMap<u128, u32> = HashMap::new();
        let mut content_of = vec![NO_CONTENT; files.len()];
        let mut copies = Vec::new();
        let mut failures = Vec::new();
        let mut documents: Vec<Document> = files
            .into_iter()
            .zip(outcomes)
            .enumerate()
            .map(|(id, (file, outcome))| {
                let mut doc = document_of(file);
                match outcome {
                    SignOutcome::Unique(content) => {
                        let c = contents.len() as u32;
                        by_hash.insert(content.hash, c);
                        content_of[id] = c;
                        contents.push(ContentGroup::new(id as u32, content));
                    }
                    SignOutcome::SameAs(hash) => copies.push((id, hash)),
                    SignOutcome::Binary => doc.status = DocStatus::Binary,
                    SignOutcome::Failed(err) => {
                        doc.status = DocStatus::Failed;
                        failures.push((id as u32, err));
                    }
                }
                doc
            })
            .collect();
        // A copy whose content has no signed file (its rescue read different
        // bytes) stays read with no shingles: never paired.
        for (id, hash) in copies {
            if let Some(&c) = by_hash.get(&hash) {
                content_of[id] = c;
            }
        }
        let groups = ContentGroups::build(contents, content_of, &mut documents);
        Signed {
            documents,
            groups,
            failures,
            matrix,
        }
    }
}

/// Turns verified pairs of contents into pairs of documents: every member of
/// one group with every member of the other, plus every two members of a group
/// of identical files (similarity 1.0) unless `lost[item]` (an empty `lost`
/// loses none). Sorted by `(a, b)`.
fn expand_to_documents(
    items: &[&ContentGroup],
    documents: &[Document],
    lost: &[bool],
    verified: &[SimilarPair],
    verification: Verification,
    signed: bool,
) -> Vec<SimilarPair> {
    let mut pairs = Vec::new();
    for (g, item) in items.iter().enumerate() {
        if item.members.len() < 2 || lost.get(g).copied().unwrap_or(false) {
            continue;
        }
        let count = documents[item.members[0] as usize].shingles as usize;
        let shared = (verification == Verification::Exact).then_some(count);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::read::ReadOptions;
    use crate::progress::Silent;
    use crate::text::normalize::Normalization;
    use crate::text::shingle::{Shingler, StopWords};
    use std::path::Path;

    fn config(root: &Path) -> ScanConfig {
        ScanConfig {
            roots: vec![root.to_path_buf()],
            walk: WalkOptions::default(),
            read: ReadOptions::default(),
            recipe: Recipe {
                include_binary: false,
                normalization: Normalization::default(),
                shingler: Shingler::new(ShingleKind::Char, 5, StopWords::default()),
                banding: Banding { bands: 4, rows: 2 },
                seed: 7,
                sketch: SketchKind::Classic,
            },
            threshold: 0.5,
            verification: Verification::Exact,
            verify_memory: 1 << 30,
            method: MethodChoice::Auto,
        }
    }

    /// Six distinct documents, one empty, one copy of the first.
    fn corpus() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..6 {
            let text = format!(
                "document {i}: {}",
                "lorem ipsum dolor sit amet ".repeat(i + 2)
            );
            std::fs::write(dir.path().join(format!("d{i}.txt")), text).unwrap();
        }
        std::fs::write(dir.path().join("e.txt"), "ab").unwrap();
        std::fs::copy(dir.path().join("d0.txt"), dir.path().join("f.txt")).unwrap();
        dir
    }

    fn signing(config: &ScanConfig, mode: u8) -> Signing<'_> {
        Signing {
            config,
            reporter: &Silent,
            hasher: Signer::new(config),
            n: config.recipe.banding.signature_len(),
            mode: AtomicU8::new(mode),
            holding: AtomicBool::new(false),
            claims: Mutex::default(),
            decided: Condvar::new(),
            queue: Mutex::new(Some(0)),
            dequeued: Condvar::new(),
            capacity: 1,
            sheet: Mutex::default(),
        }
    }

    #[test]
    fn sets_held_while_the_method_is_pending_are_signed_once_lsh_is_chosen() {
        let dir = corpus();
        let config = config(dir.path());
        let files = walk_files(&config, &Silent, &mut ScanStats::default());
        assert_eq!(files.len(), 8);
        let signing = signing(&config, PENDING);
        let mut worker = Worker::default();
        let batch = |first: usize, len: usize| Batch {
            first: first as u32,
            files: files[first..first + len].to_vec(),
        };
        signing.sign_batch(&mut worker, batch(0, 4));
        assert_eq!(signing.claims.lock().unwrap().held.len(), 4);
        assert!(signing.sheet.lock().unwrap().matrix.is_empty());
        signing.mode.store(SIGN, SeqCst);
        // The next batch signs the held sets first, then its own files.
        signing.sign_batch(&mut worker, batch(4, 4));
        assert!(signing.claims.lock().unwrap().held.is_empty());
        let signed = signing.finish(Method::Lsh);

        let (outcomes, matrix) = sign_files(&files, &config, Method::Lsh, &Silent);
        let direct = Signed::from_outcomes(files, outcomes, matrix);
        assert_eq!(signed.matrix, direct.matrix);
        assert_eq!(signed.groups.groups.len(), 7, "d0 and f share a content");
        assert!(
            signed
                .groups
                .groups
                .iter()
                .all(|g| g.content.set.is_empty())
        );
        for (a, b) in signed.documents.iter().zip(&direct.documents) {
            assert_eq!(
                (&a.path, a.shingles, a.status),
                (&b.path, b.shingles, b.status)
            );
        }
    }

    #[test]
    fn sets_held_while_the_method_is_pending_serve_the_exact_method() {
        let dir = corpus();
        let config = config(dir.path());
        let files = walk_files(&config, &Silent, &mut ScanStats::default());
        let signing = signing(&config, PENDING);
        let mut worker = Worker::default();
        signing.sign_batch(
            &mut worker,
            Batch {
                first: 0,
                files: files[..5].to_vec(),
            },
        );
        signing.mode.store(KEEP, SeqCst);
        signing.sign_batch(
            &mut worker,
            Batch {
                first: 5,
                files: files[5..].to_vec(),
            },
        );
        let signed = signing.finish(Method::Exact);
        assert!(signed.matrix.is_empty());
        let (outcomes, matrix) = sign_files(&files, &config, Method::Exact, &Silent);
        let direct = Signed::from_outcomes(files, outcomes, matrix);
        let sets = |s: &Signed| -> Vec<(u32, Vec<u64>)> {
            s.groups
                .groups
                .iter()
                .map(|g| (g.loader, g.content.set.clone()))
                .collect()
        };
        assert_eq!(sets(&signed), sets(&direct));
    }

    /// `method_known` decides LSH on part of the walk when the exact method
    /// would already be over its memory budget; the cost model, asked on the
    /// whole walk (more bytes), must agree.
    #[test]
    fn early_lsh_agrees_with_the_cost_model() {
        for threshold in [0.05, 0.3, 0.5, 0.8, 0.95, 1.0] {
            for budget in [1u64 << 10, 1 << 20, 1 << 30, 1 << 40] {
                for part in [0u64, 1, 1 << 10, 1 << 20, 1 << 30, 1 << 40] {
                    for char_shingles in [true, false] {
                        let w = |bytes| Workload {
                            files: 1000,
                            bytes,
                            tokens_per_byte: plan::tokens_per_byte(char_shingles),
                            threshold,
                            signature_len: 100,
                            memory_budget: budget,
                            signature_verification: false,
                        };
                        if plan::exact_peak_bytes(&w(part)) <= budget as f64 {
                            continue;
                        }
                        for whole in [part, part + 1, part * 3] {
                            let chosen = plan::choose(MethodChoice::Auto, &w(whole));
                            assert_eq!(chosen.method, Method::Lsh, "{chosen:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn densified_signatures_are_not_samples() {
        let set = |count: u64| -> Vec<u64> {
            (0..count)
                .map(|i| xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes()))
                .collect()
        };
        let mut scratch = Vec::new();
        let mut signature = vec![0u32; 100];
        // 20 elements cannot fill 100 bins: densification copies values.
        oph::sign(&set(20), 7, &mut signature);
        assert!(!is_sample(&signature, &mut scratch));
        // 5,000 elements fill every bin (each stays empty with p = e^-50).
        oph::sign(&set(5000), 7, &mut signature);
        assert!(is_sample(&signature, &mut scratch));
        // Classic MinHash: n independent functions, no copies.
        MinHasher::new(100, 7).sign_into(&set(20), &mut signature);
        assert!(is_sample(&signature, &mut scratch));
    }

    #[test]
    fn a_content_takes_80_bytes() {
        // A million contents are held through banding (issue #5's memory
        // bound is met with little room at a million small files): a field
        // that pushes these past their alignment costs 16 MB there.
        assert_eq!(std::mem::size_of::<SignedContent>(), 48);
        assert_eq!(std::mem::size_of::<ContentGroup>(), 80);
    }

    /// A config whose files all take the chunked path, `chunk` bytes a chunk.
    fn chunked_config(
        kind: ShingleKind,
        k: usize,
        norm: Normalization,
        minhash: SketchKind,
        chunk: usize,
    ) -> ScanConfig {
        let mut config = config(Path::new("."));
        config.recipe.shingler = Shingler::new(kind, k, StopWords::from_words(["a", "the", "ab"]));
        config.recipe.normalization = norm;
        config.recipe.sketch = minhash;
        config.read.chunked_min_size = 0;
        config.read.chunk_size = chunk;
        config
    }

    /// [`chunked_config`] of a proptest case's indices.
    fn case_config(kind: usize, k: usize, norm: usize, oph: bool, chunk: usize) -> ScanConfig {
        let kind = [ShingleKind::Char, ShingleKind::Word, ShingleKind::StopWord][kind];
        let minhash = if oph {
            SketchKind::Oph
        } else {
            SketchKind::Classic
        };
        chunked_config(kind, k, Normalization::ALL[norm], minhash, chunk)
    }

    /// A count and the signature row beside it.
    type Signature = (usize, Vec<u32>);

    /// The chunked path's signature and count next to the whole-file path's,
    /// and its digest next to `xxh3_128`.
    fn both_paths(bytes: &[u8], config: &ScanConfig) -> (Signature, Signature, u128) {
        let hasher = Signer::new(config);
        let n = config.recipe.banding.signature_len();
        let mut buffers = Buffers::default();
        let mut whole = vec![u32::MAX; n];
        let count = sign_windows(bytes, config, &hasher, &mut buffers, &mut whole);
        // The same buffers, as a worker reuses them from file to file.
        let mut chunked = vec![u32::MAX; n];
        let released = std::cell::Cell::new(0);
        let release = |offset: usize| {
            assert!(offset >= released.get() && offset <= bytes.len());
            released.set(offset);
        };
        let (chunked_count, digest) =
            sign_windows_chunked(bytes, &release, config, &hasher, &mut buffers, &mut chunked);
        assert_eq!(released.get(), bytes.len(), "everything read is released");
        ((count, whole), (chunked_count, chunked), digest)
    }

    /// Text longer, once normalised, than the classic path gathers before it
    /// streams ([`sign_windows_chunked`]): hex words from a small vocabulary
    /// (so that values repeat and the filter's state matters) between the
    /// fragments of [`chunked::tests::FRAGMENTS`].
    fn long_texts() -> impl Strategy<Value = Vec<u8>> {
        use crate::text::chunked::tests::FRAGMENTS;
        prop::collection::vec((0u16..3000, 0..FRAGMENTS.len()), 18_000..20_000).prop_map(|parts| {
            let mut out = Vec::new();
            for (word, f) in parts {
                out.extend_from_slice(format!("{word:x}").as_bytes());
                out.extend_from_slice(FRAGMENTS[f]);
            }
            out
        })
    }

    use proptest::prelude::*;

    fn proptest_config(cases: u32) -> proptest::test_runner::Config {
        proptest::test_runner::Config {
            cases,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0xB16F_11E5),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        }
    }

    proptest! {
        #![proptest_config(proptest_config(1500))]

        /// The oracle: for every input, chunk size, shingle kind and k,
        /// normalisation and signer, the chunked path signs what the
        /// whole-file path signs and counts what it counts.
        #[test]
        fn chunked_signing_equals_whole_file_signing(
            bytes in crate::text::chunked::tests::texts(),
            chunk in 1usize..64,
            kind in 0usize..3,
            k in 1usize..=9,
            norm in 0usize..4,
            oph in any::<bool>(),
        ) {
            let config = case_config(kind, k, norm, oph, chunk);
            let (whole, chunked, digest) = both_paths(&bytes, &config);
            prop_assert_eq!(whole, chunked);
            prop_assert_eq!(digest, xxh3_128(&bytes));
        }
    }

    proptest! {
        #![proptest_config(proptest_config(24))]

        /// The same beyond the text the classic path gathers first, where it
        /// signs the filter's output batch by batch.
        #[test]
        fn chunked_signing_equals_whole_file_signing_on_long_texts(
            bytes in long_texts(),
            chunk in 1usize..4096,
            kind in 0usize..3,
            k in 1usize..=9,
            norm in 0usize..4,
            oph in any::<bool>(),
        ) {
            let config = case_config(kind, k, norm, oph, chunk);
            let text = crate::text::normalize::normalize(&bytes, config.recipe.normalization);
            prop_assert!(
                RepeatFilter::slots_for(text.len() / 4) == RepeatFilter::MAX_SLOTS,
                "too short to leave the gathering: {} bytes", text.len()
            );
            let (whole, chunked, digest) = both_paths(&bytes, &config);
            prop_assert!(whole.0 > 0);
            prop_assert_eq!(whole, chunked);
            prop_assert_eq!(digest, xxh3_128(&bytes));
        }
    }

    /// More values than one classic batch holds pass the filter.
    #[test]
    fn classic_batches_merge_into_the_whole_signature() {
        let text: String = (0..CLASSIC_BATCH as u64 * 3 / 2)
            .map(|i| format!("{:x} ", xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes()) >> 40))
            .collect();
        let config = chunked_config(
            ShingleKind::Word,
            1,
            Normalization::default(),
            SketchKind::Classic,
            1 << 20,
        );
        let (whole, chunked, _) = both_paths(text.as_bytes(), &config);
        assert!(whole.0 > CLASSIC_BATCH, "{}", whole.0);
        assert_eq!(whole, chunked);
    }

    /// `sign_one` on a large file equals its whole-file result, and a copy
    /// is only hashed.
    #[test]
    fn a_large_file_signs_as_on_the_whole_file_path() {
        let dir = tempfile::tempdir().unwrap();
        let text = "Lorem ipsum dolor sit amet, ΣΟΦΙΑ consectetur\n".repeat(5000);
        std::fs::write(dir.path().join("a"), &text).unwrap();
        for mmap in [true, false] {
            for minhash in [SketchKind::Classic, SketchKind::Oph] {
                let mut config = config(dir.path());
                config.recipe.sketch = minhash;
                config.read.mmap_min_size = if mmap { 0 } else { u64::MAX };
                let file = walk_files(&config, &Silent, &mut ScanStats::default()).remove(0);
                let hasher = Signer::new(&config);
                let n = config.recipe.banding.signature_len();
                let sign = |config: &ScanConfig| {
                    let mut row = vec![u32::MAX; n];
                    let outcome = sign_one(
                        &file,
                        config,
                        &hasher,
                        Keep::Signature,
                        &|_| true,
                        &mut Buffers::default(),
                        &mut row,
                    );
                    match outcome {
                        SignOutcome::Unique(c) => (c.hash, c.shingles, c.counted, row),
                        other => panic!("{other:?}"),
                    }
                };
                let whole = sign(&config);
                config.read.chunked_min_size = 1000;
                config.read.chunk_size = 777;
                assert_eq!(sign(&config), whole, "mmap {mmap}, {minhash:?}");
                let copy = sign_one(
                    &file,
                    &config,
                    &hasher,
                    Keep::Signature,
                    &|hash| {
                        assert_eq!(hash, whole.0);
                        false
                    },
                    &mut Buffers::default(),
                    &mut vec![u32::MAX; n],
                );
                assert!(matches!(copy, SignOutcome::SameAs(h) if h == whole.0));
            }
        }
    }

    /// A large file's reload (chunk by chunk) gives the set the whole-file
    /// reload gives, for every shingle kind, mapped or read, through the
    /// intermediate sorts of a set larger than a batch; and a file whose
    /// bytes differ from the signed ones is refused.
    #[test]
    fn a_large_file_reloads_the_set_of_the_whole_file_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        let prose = "Lorem ipsum dolor sit amet, ΣΟΦΙΑ consectetur\n\t of the  ".repeat(3000);
        // Words repeating after 2 × CLASSIC_BATCH distinct ones: more values
        // pass than two batches, so the set is sorted on the way.
        let many: String = (0..CLASSIC_BATCH as u64 * 3)
            .map(|i| format!("w{:x} ", i % (2 * CLASSIC_BATCH as u64)))
            .collect();
        for (text, kinds) in [
            (
                &prose,
                &[ShingleKind::Char, ShingleKind::Word, ShingleKind::StopWord][..],
            ),
            (&many, &[ShingleKind::Word][..]),
        ] {
            std::fs::write(&path, text).unwrap();
            let hash = xxh3_128(text.as_bytes());
            for &kind in kinds {
                for mmap in [true, false] {
                    let mut config = config(dir.path());
                    config.recipe.shingler = Shingler::new(kind, 3, StopWords::english());
                    config.read.mmap_min_size = if mmap { 0 } else { u64::MAX };
                    config.read.chunked_min_size = u64::MAX;
                    let whole = reload_set(&path, hash, &config).unwrap();
                    assert!(!whole.is_empty());
                    for chunk in [1, 700, 1 << 17] {
                        config.read.chunked_min_size = 0;
                        config.read.chunk_size = chunk;
                        let chunked = reload_set(&path, hash, &config).unwrap();
                        assert!(chunked == whole, "{kind:?}, mmap {mmap}, chunk {chunk}");
                        let refused = reload_set(&path, hash ^ 1, &config).unwrap_err();
                        assert!(refused.contains("changed during the run"), "{refused}");
                    }
                }
            }
        }
    }

    /// Signs the one file in `dir` on the chunked path, `change` running
    /// between the two passes (as the claim).
    fn sign_changed(dir: &Path, mmap: bool, change: &(dyn Fn() + Sync)) -> SignOutcome {
        let mut config = config(dir);
        config.read.chunked_min_size = 0;
        config.read.chunk_size = 1000;
        config.read.mmap_min_size = if mmap { 0 } else { u64::MAX };
        let file = walk_files(&config, &Silent, &mut ScanStats::default()).remove(0);
        sign_one(
            &file,
            &config,
            &Signer::new(&config),
            Keep::Signature,
            &|_| {
                change();
                true
            },
            &mut Buffers::default(),
            &mut vec![u32::MAX; config.recipe.banding.signature_len()],
        )
    }

    const LOG_LINE: &str = "first version of the log\n";

    /// A mapped large file rewritten between the two passes (same size,
    /// mtime put back, so that only its bytes tell) is an error for that
    /// file, as a change `verify_unchanged` sees is.
    #[test]
    fn a_large_file_rewritten_between_the_passes_fails() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, LOG_LINE.repeat(4000)).unwrap();
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        let outcome = sign_changed(dir.path(), true, &|| {
            let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            std::io::Write::write_all(&mut &f, b"FIRST").unwrap();
            f.set_modified(mtime).unwrap();
        });
        assert!(
            matches!(outcome, SignOutcome::Failed(ReadError::Changed)),
            "{outcome:?}"
        );
    }

    /// A large file truncated between the two passes is an error for that
    /// file: read into memory, by `verify_unchanged`; mapped, the second
    /// pass faults on the vanished pages (the SIGBUS guard turns them into
    /// zeros), which a child process checks (a broken guard would kill it).
    #[test]
    fn a_large_file_truncated_between_the_passes_fails() {
        assert_truncation_is_reported(false);
        #[cfg(target_os = "linux")]
        {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "pipeline::tests::truncated_mapping_child",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(TRUNCATE_CHILD, "1")
                .output()
                .unwrap();
            assert!(
                out.status.success() && String::from_utf8_lossy(&out.stdout).contains(CHILD_PASSED),
                "child: {:?}\n{}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// Signs a large file that is truncated between the two passes and
    /// checks that the outcome is a "shrank" error.
    fn assert_truncation_is_reported(mapped: bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, LOG_LINE.repeat(4000)).unwrap();
        let outcome = sign_changed(dir.path(), mapped, &|| {
            let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            f.set_len(100).unwrap();
        });
        assert!(
            matches!(
                outcome,
                SignOutcome::Failed(ReadError::Shrank {
                    expected: 100_000,
                    actual: 100
                })
            ),
            "{outcome:?}"
        );
    }

    const TRUNCATE_CHILD: &str = "SIMFIND_TRUNCATE_BETWEEN_PASSES";
    const CHILD_PASSED: &str = "TRUNCATED-MAPPING-REPORTED";

    /// The mapped half of the test above; a no-op in the normal test run.
    #[test]
    fn truncated_mapping_child() {
        if std::env::var_os(TRUNCATE_CHILD).is_none() {
            return;
        }
        assert_truncation_is_reported(true);
        println!("{CHILD_PASSED}");
    }

    #[test]
    fn members_keep_one_id_inline() {
        let mut m = Members::default();
        assert!(m.is_empty());
        m.push(3);
        assert!(matches!(m, Members::One(3)));
        m.push(5);
        m.push(9);
        assert_eq!(&*m, &[3, 5, 9]);
        assert_eq!((&m).into_iter().count(), 3);
    }
}
