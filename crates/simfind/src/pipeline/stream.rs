//! The streamed scan's walk ↔ sign protocol: the walker thread walks the
//! roots, decides the method (early when it can, see [`method_known`]) and
//! hands files over in id order, in batches, through a bounded queue; the
//! rayon workers read and sign each batch as it arrives, claiming each content
//! in the shared [`ContentTable`] and writing what they signed into one
//! [`Sheet`] by document id.
//!
//! Invariants: the mode only ever leaves [`Mode::Pending`] (never returns to
//! it); a set held while pending is either held before `sign_held` drains
//! the held list or sees the new mode (both read under the `claims` lock);
//! a worker waiting for the decision or a walker waiting for room never waits
//! forever, even if the other side panicked ([`DecideOnExit`], [`Receiving`]'s
//! `Drop`). The result is the same whatever the thread count.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64};
use std::sync::{Condvar, Mutex};

use rayon::prelude::*;

use super::contents::{Attempt, ContentTable, NO_CONTENT, SignOutcome, Signed, SignedContent};
use super::docs::Docs;
use super::locks::{into_inner, lock, wait};
use super::plan::{Decision, Method, Reason, choose_method, method_known};
use super::prefetch::{Prefetcher, ReadAhead};
use super::shingles::Buffers;
use super::sign::{Keep, sign_one};
use super::{ScanConfig, ScanStats, Verification};
use crate::input::extract::Unextracted;
use crate::input::read::ReadError;
use crate::input::walk::{self, FileEntry, StreamEvent, WalkEnd};
use crate::memory::{self, Lower};
use crate::model::DocStatus;
use crate::progress::{Reporter, Stage};
use crate::sketch::{AnySketcher, Sketcher};

/// What the signature matrix is called when it does not fit.
const MATRIX: &str = "the signature matrix";

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
pub(super) struct Batch {
    pub(super) first: u32,
    pub(super) files: Vec<FileEntry>,
    /// The files' reads done ahead ([`Prefetcher`]), one per file, or empty.
    pub(super) read_ahead: Vec<ReadAhead>,
}

impl Batch {
    fn new(first: u32, files: Vec<FileEntry>) -> Self {
        Batch {
            first,
            files,
            read_ahead: Vec::new(),
        }
    }

    /// Walked bytes of the files read ahead (what [`Prefetcher::read`] counted).
    fn bytes_read_ahead(&self) -> u64 {
        (self.files.iter().zip(&self.read_ahead))
            .filter(|(_, read)| read.is_some())
            .map(|(file, _)| file.size)
            .sum()
    }
}

/// What a worker does with a content it is the first to show (`Signing::mode`),
/// stored in an [`AtomicU8`] as `mode as u8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Mode {
    /// The method is not known yet (`auto` before the walk ends): keep the sorted
    /// set, which the exact method needs and from which a signature can still be
    /// made ([`Signing::sign_held`]) once LSH is chosen.
    Pending = 0,
    /// LSH: sign it; the set is dropped.
    Sign = 1,
    /// The exact method: keep the sorted set.
    Keep = 2,
}

impl Mode {
    pub(super) fn of(method: Method) -> Mode {
        match method {
            Method::Lsh => Mode::Sign,
            Method::Exact => Mode::Keep,
        }
    }

    /// The inverse of `mode as u8`.
    fn from_u8(mode: u8) -> Mode {
        match mode {
            0 => Mode::Pending,
            1 => Mode::Sign,
            _ => Mode::Keep,
        }
    }
}

/// What the streamed scan keeps of each content under `mode`.
fn keep_for(mode: Mode, verification: Verification) -> Keep {
    match (mode, verification) {
        (Mode::Sign, Verification::Exact) => Keep::Signature,
        (Mode::Sign, Verification::Signature) => Keep::CountedSignature,
        _ => Keep::Set,
    }
}

/// The mode shared by the walker and the workers.
pub(super) struct SharedMode(AtomicU8);

impl SharedMode {
    pub(super) fn new(mode: Mode) -> Self {
        SharedMode(AtomicU8::new(mode as u8))
    }

    pub(super) fn load(&self) -> Mode {
        Mode::from_u8(self.0.load(SeqCst))
    }

    pub(super) fn store(&self, mode: Mode) {
        self.0.store(mode as u8, SeqCst);
    }
}

/// What the walker thread found.
struct WalkedFiles {
    end: WalkEnd,
    files: u64,
    /// Every walked file's document, in id order.
    docs: Docs,
    decision: Decision,
}

/// Stages 1 and 2 together: the walk runs on its own thread and hands files
/// over in id order, in batches, through a bounded queue; the rayon workers
/// read and sign each batch as it arrives (no stage waits for the whole
/// previous one). Identical contents are signed once, as in [`super::sign_files`].
///
/// The method must be known to sign (the exact method keeps sets, LSH makes
/// signatures), and `--method auto` decides on the whole walk's bytes. Until
/// it is known, workers keep each content's sorted set ([`Mode::Pending`]): a set
/// serves either method. The walker decides early when it can
/// ([`method_known`]) and at the end of the walk otherwise; on LSH the held
/// sets are signed and dropped by the next worker to take a batch. The walk
/// usually outruns reading by far, so few sets are held; at most, under
/// `auto`, what the exact method would have held anyway.
///
/// Output equals [`super::walk_files`] → [`super::sign_files`] →
/// [`super::find_pairs`]'s: the same
/// ids (the walk's order) and contents, whatever the thread count.
pub(super) fn walk_and_sign(
    config: &ScanConfig,
    reporter: &dyn Reporter,
    stats: &mut ScanStats,
) -> (Signed, Decision) {
    let mode = method_known(config, 0, 0).map_or(Mode::Pending, Mode::of);
    let capacity = QUEUED_PER_THREAD * rayon::current_num_threads();
    let signing = Signing::new(config, reporter, mode, capacity);
    // One stage on the terminal: a count while the total is unknown, then a
    // bar once the walk has ended (`Reporter::set_total`).
    reporter.begin(Stage::Sign, None);
    let (tx, rx) = std::sync::mpsc::channel();
    let prefetcher = Prefetcher::new(&config.read, config.walk.follow_links);
    let walked = std::thread::scope(|scope| {
        let signing = &signing;
        let walker = match &prefetcher {
            None => crate::memory::spawn(scope, "the walk's thread", move || {
                walk_in_batches(config, reporter, signing, &mut |batch| {
                    signing.send(&tx, batch)
                })
            }),
            Some(prefetcher) => {
                // Walker → reader → workers: the walk goes on while a batch
                // is read, and the workers take batches already read.
                let (to_reader, from_walker) = std::sync::mpsc::sync_channel::<Batch>(1);
                crate::memory::spawn(scope, "the read-ahead's thread", move || {
                    for mut batch in from_walker {
                        batch.read_ahead = prefetcher.read(&batch.files);
                        if !signing.send(&tx, batch) {
                            break;
                        }
                    }
                });
                crate::memory::spawn(scope, "the walk's thread", move || {
                    walk_in_batches(config, reporter, signing, &mut |batch| {
                        to_reader.send(batch).is_ok()
                    })
                })
            }
        };
        Receiving { rx, signing }
            .par_bridge()
            .for_each_init(Worker::default, |worker, batch| {
                let read_ahead = batch.bytes_read_ahead();
                signing.sign_batch(worker, batch);
                if let Some(prefetcher) = &prefetcher {
                    prefetcher.release(read_ahead);
                }
            });
        walker.join()
    });
    let walked = walked.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    reporter.end(Stage::Sign);
    stats.errors += walked.end.problems.len() as u64;
    stats.walk_skips = walked.end.skips;
    stats.files = walked.files;
    let signed = signing.finish(walked.decision.method, walked.docs);
    (signed, walked.decision)
}

/// The walker thread: walks, decides the method, and sends batches to `tx`.
fn walk_in_batches(
    config: &ScanConfig,
    reporter: &dyn Reporter,
    signing: &Signing,
    send: &mut dyn FnMut(Batch) -> bool,
) -> WalkedFiles {
    // Workers waiting for a decision must not wait forever if the walk panics.
    let _decides = DecideOnExit(signing);
    let mode = &signing.mode;
    let mut files: u64 = 0;
    let mut bytes: u64 = 0;
    let mut first: u32 = 0;
    let mut docs = Docs::default();
    let mut batch = Vec::with_capacity(BATCH);
    // False once no worker listens (one panicked; the scan is over).
    let mut open = true;
    let end = walk::walk_each(
        &config.roots,
        &config.walk,
        reporter.wants_notes(),
        |event| match event {
            StreamEvent::File(file) => {
                files += 1;
                bytes += file.size;
                if mode.load() == Mode::Pending && method_known(config, files, bytes).is_some() {
                    signing.set_mode(Mode::Sign);
                }
                docs.push(&file);
                batch.push(file);
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    open = open && send(Batch::new(first, full));
                    first = u32::try_from(files)
                        .expect("document ids are 32-bit: fewer than 2^32 files");
                }
            }
            StreamEvent::Problem(p) => reporter.warn(&p.path, &p.reason),
            StreamEvent::Skipped(p) => reporter.notice(&p.path, &p.why),
        },
    );
    let mut decision = choose_method(config, files, bytes);
    if mode.load() == Mode::Sign && decision.method == Method::Exact {
        // `method_known` chose LSH on part of the walk, so the rest was signed
        // without sets; the cost model agrees (`early_lsh_agrees_with_the_cost_model`),
        // but should it change, the scan stays consistent.
        decision = Decision {
            method: Method::Lsh,
            reason: Reason::OverBudgetDuringWalk,
        };
    }
    // Before the last batch, so that it is signed the final way.
    signing.set_mode(Mode::of(decision.method));
    if open && !batch.is_empty() {
        send(Batch::new(first, batch));
    }
    reporter.set_total(files);
    WalkedFiles {
        end,
        files,
        docs,
        decision,
    }
}

/// State shared by the signing workers of [`walk_and_sign`].
pub(super) struct Signing<'a> {
    config: &'a ScanConfig,
    reporter: &'a dyn Reporter,
    sketcher: AnySketcher,
    /// Signature length.
    n: usize,
    /// Set by the walker, read by workers.
    pub(super) mode: SharedMode,
    /// Some content holds a set that waits for its signature.
    holding: AtomicBool,
    pub(super) claims: Mutex<Claims>,
    /// Signalled (under `claims`) when the method becomes known.
    decided: Condvar,
    /// Batches sent and not yet taken by a worker; `None` once no worker
    /// takes any more.
    queue: Mutex<Option<usize>>,
    dequeued: Condvar,
    /// Batches that may wait in the queue once the method is known.
    capacity: usize,
    /// The walker queued more than `capacity` batches while the method was
    /// pending: their files' pages are freed but resident until trimmed.
    ran_ahead: AtomicBool,
    pub(super) sheet: Mutex<Sheet>,
}

/// Sets the method if the walker leaves without doing so (it panicked).
struct DecideOnExit<'a>(&'a Signing<'a>);

impl Drop for DecideOnExit<'_> {
    fn drop(&mut self) {
        if self.0.mode.load() == Mode::Pending {
            self.0.set_mode(Mode::Sign);
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
        let mut queue = lock(&self.signing.queue);
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
        *lock(&self.signing.queue) = None;
        self.signing.dequeued.notify_all();
    }
}

/// Every content seen so far, and the sets held while the method is
/// pending, under one lock.
#[derive(Default)]
pub(super) struct Claims {
    /// The claim-once rule.
    pub(super) contents: ContentTable,
    /// Contents whose sets wait for a signature ([`Mode::Pending`]).
    pub(super) held: Vec<u32>,
    /// Bytes of the sets in `held`.
    held_bytes: usize,
}

/// What the workers have signed, by document id (batches finish in any order).
#[derive(Default)]
pub(super) struct Sheet {
    /// What became of each document (the walker keeps the rest of it).
    status: Vec<Option<DocStatus>>,
    /// Index into [`Claims::contents`], or [`NO_CONTENT`].
    content_of: Vec<u32>,
    failures: Vec<(u32, ReadError)>,
    unextracted: Vec<(u32, Unextracted)>,
    /// (id, device, inode) of each copy of a content signed by another file:
    /// what the walk saw of the files the rescue may read again.
    copies: Vec<(u32, u64, u64)>,
    /// `n` values per document id, for the ones signed so far; grown by
    /// reallocation (which moves pages rather than copying them once large).
    pub(super) matrix: Vec<u32>,
}

/// One worker's buffers, reused from batch to batch.
#[derive(Default)]
pub(super) struct Worker {
    buffers: Buffers,
    /// The batch's signatures, `n` values per file.
    rows: Vec<u32>,
    /// Files of the batch whose row holds a signature.
    signed: Vec<usize>,
}

impl<'a> Signing<'a> {
    /// The shared state of a walk starting in `mode`, with room for `capacity`
    /// queued batches.
    pub(super) fn new(
        config: &'a ScanConfig,
        reporter: &'a dyn Reporter,
        mode: Mode,
        capacity: usize,
    ) -> Self {
        Signing {
            config,
            reporter,
            sketcher: config.recipe.sketcher(),
            n: config.recipe.banding.signature_len(),
            mode: SharedMode::new(mode),
            holding: AtomicBool::new(false),
            claims: Mutex::default(),
            decided: Condvar::new(),
            queue: Mutex::new(Some(0)),
            dequeued: Condvar::new(),
            capacity,
            ran_ahead: AtomicBool::new(false),
            sheet: Mutex::default(),
        }
    }

    /// Queues `batch` for the workers, waiting for room once the method is
    /// known. False when no worker takes batches any more.
    fn send(&self, tx: &std::sync::mpsc::Sender<Batch>, batch: Batch) -> bool {
        let mut queue = lock(&self.queue);
        let pending = self.mode.load() == Mode::Pending;
        if pending && queue.is_some_and(|queued| queued >= self.capacity) {
            self.ran_ahead.store(true, SeqCst);
        }
        while queue.is_some_and(|queued| queued >= self.capacity)
            && self.mode.load() != Mode::Pending
        {
            queue = wait(&self.dequeued, queue);
        }
        match queue.as_mut() {
            Some(queued) => *queued += 1,
            None => return false,
        }
        drop(queue);
        // The method is known and the backlog of the walk ahead has been
        // taken by the workers: the pages its files held are free but stay
        // resident in this thread's heap (glibc returns only a heap's top),
        // beside the signature matrix that grows to the scan's peak.
        if !pending && self.ran_ahead.swap(false, SeqCst) {
            super::pairs::release_free_pages();
        }
        tx.send(batch).is_ok()
    }

    /// The walker's decision (or the early switch to LSH).
    fn set_mode(&self, mode: Mode) {
        self.mode.store(mode);
        // Under the lock that waiting workers check the mode under, so that
        // none misses it between its check and its wait.
        let _claims = lock(&self.claims);
        self.decided.notify_all();
    }

    /// While the method is pending, waits once the held sets pass [`HELD_LIMIT`].
    fn wait_if_holding_too_much(&self) {
        if self.mode.load() != Mode::Pending {
            return;
        }
        let mut claims = lock(&self.claims);
        while self.mode.load() == Mode::Pending && claims.held_bytes > HELD_LIMIT {
            claims = wait(&self.decided, claims);
        }
    }

    pub(super) fn sign_batch(&self, worker: &mut Worker, batch: Batch) {
        self.sign_held();
        let Batch {
            first,
            files,
            read_ahead,
        } = batch;
        let mut read_ahead = read_ahead.into_iter();
        let (n, len) = (self.n, files.len());
        worker.rows.clear();
        worker.rows.resize(len * n, u32::MAX);
        worker.signed.clear();
        let mut status = Vec::with_capacity(len);
        let mut content_of = Vec::with_capacity(len);
        let mut failures = Vec::new();
        let mut unextracted = Vec::new();
        let mut copies = Vec::new();
        for (k, file) in files.into_iter().enumerate() {
            let id = first + k as u32;
            self.wait_if_holding_too_much();
            self.sign_held();
            let mode = self.mode.load();
            let keep = keep_for(mode, self.config.verification);
            // (content index << 1) | claimed by this file. Until `claim` runs
            // (a file that fails to open never gets there) it is no content,
            // not claimed: a failure then orphans nothing.
            let claimed = AtomicU64::new(u64::from(NO_CONTENT) << 1);
            let claim = |hash| {
                let (c, mine) = lock(&self.claims).contents.claim(hash, id);
                claimed.store(u64::from(c) << 1 | u64::from(mine), SeqCst);
                mine
            };
            let row = &mut worker.rows[k * n..(k + 1) * n];
            let outcome = sign_one(
                &file,
                self.config,
                &self.sketcher,
                keep,
                &claim,
                &mut worker.buffers,
                row,
                read_ahead.next().flatten(),
            );
            let claimed = claimed.into_inner();
            let (c, mine) = ((claimed >> 1) as u32, claimed & 1 == 1);
            let identity = (id, file.dev, file.ino);
            drop(file);
            let mut doc = DocStatus::Read;
            let mut content = NO_CONTENT;
            match outcome {
                SignOutcome::Unique(signed) => {
                    content = c;
                    if self.store(c, signed, keep == Keep::Set, row) {
                        worker.signed.push(k);
                    }
                }
                SignOutcome::SameAs(_) => {
                    content = c;
                    copies.push(identity);
                }
                SignOutcome::Binary => doc = DocStatus::Binary,
                SignOutcome::NotExtracted(why) => {
                    doc = DocStatus::Binary;
                    unextracted.push((id, why));
                }
                SignOutcome::Failed(err) => {
                    doc = DocStatus::Failed;
                    failures.push((id, err));
                    if mine {
                        lock(&self.claims).contents.orphan(c);
                    }
                }
            }
            status.push(doc);
            content_of.push(content);
        }

        let mut sheet = lock(&self.sheet);
        let (first, end) = (first as usize, first as usize + len);
        if sheet.status.len() < end {
            sheet.status.resize(end, None);
            sheet.content_of.resize(end, NO_CONTENT);
        }
        for (k, (doc, c)) in status.into_iter().zip(content_of).enumerate() {
            sheet.status[first + k] = Some(doc);
            sheet.content_of[first + k] = c;
        }
        if !worker.signed.is_empty() && sheet.matrix.len() < end * n {
            memory::resize(
                &mut sheet.matrix,
                end * n,
                u32::MAX,
                MATRIX,
                Lower::Signatures,
            );
        }
        for &k in &worker.signed {
            sheet.matrix[(first + k) * n..][..n].copy_from_slice(&worker.rows[k * n..][..n]);
        }
        sheet.failures.extend(failures);
        sheet.unextracted.extend(unextracted);
        sheet.copies.extend(copies);
        drop(sheet);
        self.reporter.advance(len as u64);
    }

    /// Files content `c`'s signing outcome; `kept` says the set was kept rather
    /// than signed. Returns whether `row` now holds its signature.
    fn store(&self, c: u32, mut signed: SignedContent, kept: bool, row: &mut [u32]) -> bool {
        let non_empty = signed.shingles > 0;
        let mut claims = lock(&self.claims);
        let sign_now = kept
            && non_empty
            && match self.mode.load() {
                // Read under the lock that `sign_held` drains under: a set is
                // either held before the drain or sees the new mode.
                Mode::Pending => {
                    claims.held.push(c);
                    claims.held_bytes += signed.set.len() * std::mem::size_of::<u64>();
                    self.holding.store(true, SeqCst);
                    false
                }
                Mode::Sign => true,
                _ => false,
            };
        let set = if sign_now {
            std::mem::take(&mut signed.set)
        } else {
            Vec::new()
        };
        claims.contents.set_content(c, signed);
        drop(claims);
        if sign_now {
            // LSH was chosen while this file was read.
            self.sketcher.sign_into(&set, row);
        }
        non_empty && (!kept || sign_now)
    }

    /// Once LSH is chosen, signs the sets held while the method was pending
    /// and frees them.
    fn sign_held(&self) {
        if !self.holding.load(SeqCst) || self.mode.load() != Mode::Sign {
            return;
        }
        let held: Vec<(u32, Vec<u64>)> = {
            let mut claims = lock(&self.claims);
            self.holding.store(false, SeqCst);
            claims.held_bytes = 0;
            let Claims { held, contents, .. } = &mut *claims;
            held.drain(..)
                .map(|c| (contents.group_mut(c).loader, contents.take_set(c)))
                .collect()
        };
        let n = self.n;
        let mut rows = vec![u32::MAX; held.len() * n];
        for ((_, set), row) in held.iter().zip(rows.chunks_exact_mut(n)) {
            self.sketcher.sign_into(set, row);
        }
        let mut sheet = lock(&self.sheet);
        for ((loader, _), row) in held.iter().zip(rows.chunks_exact(n)) {
            let at = *loader as usize * n;
            if sheet.matrix.len() < at + n {
                memory::resize(
                    &mut sheet.matrix,
                    at + n,
                    u32::MAX,
                    MATRIX,
                    Lower::Signatures,
                );
            }
            sheet.matrix[at..at + n].copy_from_slice(row);
        }
    }

    /// After the last batch: signs what is still held (LSH), rescues the
    /// copies of contents whose claimer failed, and groups the documents
    /// (`documents`: the walked files, in id order).
    pub(super) fn finish(self, method: Method, mut documents: Docs) -> Signed {
        if method == Method::Lsh {
            self.sign_held();
        }
        let n = self.n;
        let Claims { mut contents, .. } = into_inner(self.claims);
        contents.forget_hashes();
        let Sheet {
            status,
            mut content_of,
            mut failures,
            mut unextracted,
            mut matrix,
            mut copies,
        } = into_inner(self.sheet);
        copies.sort_unstable();
        assert_eq!(
            status.len(),
            documents.len(),
            "every walked file was signed"
        );
        for (id, status) in status.into_iter().enumerate() {
            documents.set_status(id, status.expect("every walked file was signed"));
        }
        if method == Method::Lsh {
            memory::resize(
                &mut matrix,
                documents.len() * n,
                u32::MAX,
                MATRIX,
                Lower::Signatures,
            );
        } else {
            matrix = Vec::new();
        }
        // The copies of contents whose claimer failed, as `sign_files` rescues them.
        let keep = keep_for(Mode::of(method), self.config.verification);
        let mut buffers = Buffers::default();
        let mut row = vec![u32::MAX; n];
        let attempts = contents.rescue(&content_of, |id| {
            // Only copies are re-read: the walk's identity of each is known
            // (were it not, no file matches (0, 0) and the read fails).
            let (dev, ino) = copies
                .binary_search_by_key(&(id as u32), |&(id, ..)| id)
                .map_or((0, 0), |at| (copies[at].1, copies[at].2));
            let file = FileEntry {
                path: documents.path(id),
                size: documents.size(id),
                modified: documents.modified(id),
                dev,
                ino,
            };
            let outcome = sign_one(
                &file,
                self.config,
                &self.sketcher,
                keep,
                &|_| true,
                &mut buffers,
                &mut row,
                None,
            );
            if let SignOutcome::Unique(signed) = &outcome
                && keep != Keep::Set
                && signed.shingles > 0
            {
                matrix[id * n..][..n].copy_from_slice(&row);
            }
            outcome
        });
        for Attempt {
            content: c,
            id,
            outcome,
            adopted,
        } in attempts
        {
            match outcome {
                SignOutcome::Unique(signed) if adopted => {
                    contents.group_mut(c).loader = id as u32;
                    contents.set_content(c, signed);
                }
                // Its bytes changed too: a content of its own.
                SignOutcome::Unique(signed) => {
                    content_of[id] = contents.add_unlisted(id as u32, signed);
                }
                SignOutcome::SameAs(_) => unreachable!("every content is claimed here"),
                SignOutcome::Binary => {
                    documents.set_status(id, DocStatus::Binary);
                    content_of[id] = NO_CONTENT;
                }
                SignOutcome::NotExtracted(why) => {
                    documents.set_status(id, DocStatus::Binary);
                    unextracted.push((id as u32, why));
                    content_of[id] = NO_CONTENT;
                }
                SignOutcome::Failed(err) => {
                    documents.set_status(id, DocStatus::Failed);
                    failures.push((id as u32, err));
                    content_of[id] = NO_CONTENT;
                }
            }
        }
        failures.sort_unstable_by_key(|&(id, _)| id);
        unextracted.sort_unstable_by_key(|&(id, _)| id);
        let groups = contents.into_groups(content_of, &mut documents);
        Signed {
            documents,
            groups,
            failures,
            unextracted,
            matrix,
        }
    }
}
