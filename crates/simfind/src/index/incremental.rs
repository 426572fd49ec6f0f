//! Incremental signing against a persistent [`Index`].
//!
//! Role: the glue between the scan pipeline and the index. [`refresh`] walks the
//! roots, keeps the stored signature of every file whose size, modification time,
//! device and inode are unchanged (without reading it), signs new and changed
//! files with the pipeline's own [`pipeline::sign_files`], forgets vanished files,
//! and writes all of that as one index update. What it returns (sign outcomes and
//! one signature matrix, laid out as [`pipeline::sign_files`] lays them out) can
//! go straight to [`pipeline::find_pairs`], so `scan --db` reports exactly what a
//! fresh `scan --method lsh` reports. An index stores signatures, not shingle
//! sets, so it serves the LSH method only. (Queries sign with the recipe of
//! the index's [`Params`](crate::index::Params): [`crate::index::query`].)
//!
//! Inputs: a validated [`ScanConfig`] and an open [`Index`].
//! Outputs: per-file [`SignOutcome`]s in walk order with their signature matrix,
//! counts.
//!
//! Invariants: the index's parameters equal [`Params::of`](crate::index::Params::of) the config's recipe (checked
//! when the index is opened); a stored signature is used only when the file's
//! [`FileStat`] is identical to the stored one; the update is applied under the
//! write lock taken before the stored state is read, so it never applies to a
//! state other than the one it was planned against.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::index::guard::{self, MaxDelete};
use crate::index::{self, Changes, FileStat, Index, IndexError, IndexedDoc, UpdateSummary};
use crate::input::extract::Unextracted;
use crate::input::read::ReadError;
use crate::input::walk::FileEntry;
use crate::lsh;
use crate::pipeline::plan::Method;
use crate::pipeline::{self, ScanConfig, ScanStats, SignOutcome, SignedContent};
use crate::progress::{Notice, Reporter, Stage};

pub use super::schema::UNTRUSTED_MTIME;

/// Files modified less than this before the walk are re-read on the next run.
/// File systems stamp modification times with a coarse clock (a few ms on Linux,
/// 2 s on FAT), so a file rewritten with the same size within one tick of the
/// walk would otherwise look unchanged forever (git's "racy clean" problem).
pub const RACY_WINDOW: Duration = Duration::from_secs(3);

/// The metadata compared to decide whether a file changed. A file without a
/// modification time gets [`UNTRUSTED_MTIME`], which no walked file matches.
pub fn file_stat(file: &FileEntry) -> FileStat {
    let mtime_ns = match file.modified {
        Some(t) => match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
            Err(before) => {
                i64::try_from(before.duration().as_nanos()).map_or(i64::MIN + 1, |ns| -ns)
            }
        },
        None => UNTRUSTED_MTIME,
    };
    FileStat {
        size: file.size,
        mtime_ns,
        dev: Some(file.dev),
        inode: Some(file.ino),
    }
}

/// What [`refresh`] did and found.
#[derive(Debug)]
pub struct Refreshed {
    /// Every walked file, in walk order (document ids).
    pub files: Vec<FileEntry>,
    /// One outcome per file (only when asked for; otherwise empty): the first
    /// file of each content is [`SignOutcome::Unique`], later ones `SameAs` it.
    pub outcomes: Vec<SignOutcome>,
    /// The signature matrix of `outcomes` (row `i` for a `Unique` file `i`).
    pub matrix: Vec<u32>,
    /// Contents signed in this run (the rest came from the index).
    pub fresh_signatures: u64,
    /// Walk counts and errors so far, ready for [`pipeline::find_pairs`].
    pub stats: ScanStats,
    /// What the index update did.
    pub update: UpdateSummary,
    /// Files whose stored signature was kept without reading them.
    pub unchanged: u64,
    /// Files signed in this run (new or changed).
    pub signed: u64,
}

/// Brings `index` up to date with the files under `config.roots`, in one
/// transaction. With `want_signatures`, also returns every file's signature
/// (stored or fresh) for pair finding.
///
/// Files that fail to read are reported through `reporter` by
/// [`pipeline::find_pairs`] when signatures are wanted, otherwise here; a
/// previously indexed file that now fails is removed from the index, so that the
/// index holds exactly what a fresh run could read.
pub fn refresh(
    index: &mut Index,
    config: &ScanConfig,
    reporter: &dyn Reporter,
    want_signatures: bool,
) -> Result<Refreshed, IndexError> {
    refresh_guarded(index, config, reporter, want_signatures, None)
}

/// [`refresh`], refused with [`IndexError::Refused`] before anything is
/// read or changed when the walk finds a root empty that holds stored
/// documents, or would remove more of them than `max_delete` allows
/// ([`guard`](crate::index::guard)). `None`: unguarded.
pub fn refresh_guarded(
    index: &mut Index,
    config: &ScanConfig,
    reporter: &dyn Reporter,
    want_signatures: bool,
    max_delete: Option<MaxDelete>,
) -> Result<Refreshed, IndexError> {
    let index_path = index.path().to_owned();
    let mut update = index.begin_update()?;
    // Relative paths written from another directory are read from there,
    // and a root spelled differently than when it was indexed is the same
    // root.
    update.rebase()?;
    for root in &config.roots {
        update.respell(root)?;
    }
    let racy_after = SystemTime::now()
        .checked_sub(RACY_WINDOW)
        .unwrap_or(UNIX_EPOCH);
    let stat_to_store = |file: &FileEntry| {
        let mut stat = file_stat(file);
        if file.modified.is_none_or(|m| m > racy_after) {
            stat.mtime_ns = UNTRUSTED_MTIME;
        }
        stat
    };
    let walk_reporter = Batched {
        inner: reporter,
        pending: AtomicU64::new(0),
    };
    // The walk runs on its own thread while this one reads the stored state
    // (under the write lock: what is read is what the changes apply to):
    // with nothing changed, the two are all an update does.
    // Nothing runs on the rayon pool while the walk does: it stats its
    // files there, on both cores.
    let mut walk_config = config.clone();
    walk_config.walk.parallel_stat = true;
    let (stored, (mut files, mut stats)) = std::thread::scope(|scope| {
        let walk = crate::memory::spawn(scope, "the walk's thread", || {
            let mut stats = ScanStats::default();
            let files = pipeline::walk_files(&walk_config, &walk_reporter, &mut stats);
            (files, stats)
        });
        let stored = if want_signatures {
            update.documents().map(Stored::of_documents)
        } else {
            Stored::of_files(&update)
        };
        let walked = walk
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (stored, walked)
    });
    let mut stored = stored?;
    // An index kept inside a scanned directory is not one of its documents: it
    // changes on every run and would be re-read (and, with --binary, shingled)
    // each time.
    if let Ok(meta) = std::fs::metadata(&index_path) {
        use std::os::unix::fs::MetadataExt;
        let before = files.len();
        files.retain(|f| !(f.dev == meta.dev() && f.ino == meta.ino()));
        stats.files -= (before - files.len()) as u64;
    }
    let mut to_sign = Vec::new();
    // Per signed file, whether its path is stored.
    let mut known = Vec::new();
    let mut unchanged = vec![false; files.len()];
    // Per file, its stored entry ([`Stored::NONE`] for a new path).
    let mut slot = vec![Stored::NONE; files.len()];
    for (i, file) in files.iter().enumerate() {
        let found = stored.find(&file.path);
        let same = found.is_some_and(|at| {
            let s = &stored.stats[at];
            s.mtime_ns != UNTRUSTED_MTIME && *s == file_stat(file)
        });
        if same {
            unchanged[i] = true;
        } else {
            to_sign.push(file.clone());
            known.push(found.is_some());
        }
        slot[i] = found.map_or(Stored::NONE, |at| at as u32);
    }
    if let Some(limit) = max_delete {
        use std::os::unix::ffi::OsStrExt;
        let stored_paths = (0..stored.ends.len()).map(|i| {
            (
                std::path::Path::new(std::ffi::OsStr::from_bytes(stored.path(i))),
                !stored.walked[i],
            )
        });
        guard::check(
            &config.roots,
            |root| files.iter().any(|f| f.path.starts_with(root)),
            stored_paths,
            limit,
        )
        .map_err(|refusal| IndexError::Refused {
            path: index_path.clone(),
            refusal,
        })?;
    }
    let (fresh_outcomes, fresh_matrix) =
        pipeline::sign_files(&to_sign, config, Method::Lsh, reporter);
    let fresh_signatures = fresh_outcomes
        .iter()
        .filter(|o| matches!(o, SignOutcome::Unique(_)))
        .count() as u64;
    let fresh = per_file(
        fresh_outcomes,
        &fresh_matrix,
        config.recipe.banding.signature_len(),
    );
    drop(fresh_matrix);

    let mut changes = Changes {
        removed: stored.not_walked(),
        ..Changes::default()
    };
    changes.removed.sort();
    for ((file, signature), &known) in to_sign.iter().zip(&fresh).zip(&known) {
        let doc = match signature {
            FileSignature::Content {
                hash,
                shingles,
                signature,
            } => IndexedDoc {
                path: file.path.clone(),
                stat: stat_to_store(file),
                content_hash: *hash,
                binary: false,
                not_compared: None,
                shingle_count: *shingles as u64,
                signature: signature.clone(),
                band_keys: if *shingles == 0 {
                    Vec::new()
                } else {
                    lsh::band_keys(signature, config.recipe.banding).collect()
                },
            },
            FileSignature::Binary(why) => {
                // With signatures wanted, pair finding names and counts them.
                if !want_signatures {
                    match why {
                        Some(why) => {
                            let notice = Notice::NotExtracted(why.reason());
                            reporter.notice(&file.path, &notice);
                            *stats.unextracted.entry(why.category()).or_default() += 1;
                        }
                        None => {
                            reporter.notice(&file.path, &Notice::LooksBinary);
                            stats.binary += 1;
                        }
                    }
                }
                IndexedDoc {
                    path: file.path.clone(),
                    stat: stat_to_store(file),
                    content_hash: 0,
                    binary: true,
                    not_compared: why.clone(),
                    shingle_count: 0,
                    signature: Vec::new(),
                    band_keys: Vec::new(),
                }
            }
            FileSignature::Failed(err) => {
                if !want_signatures {
                    reporter.warn(&file.path, err);
                    stats.errors += 1;
                }
                if known {
                    changes.removed.push(file.path.clone());
                }
                continue;
            }
        };
        if known {
            changes.changed.push(doc);
        } else {
            changes.added.push(doc);
        }
    }
    let mut prefixes = index::prefix::Prefixes::of(&update)?;
    let (changed_prefixes, added_prefixes) = match &mut prefixes {
        Some(prefixes) => {
            let all: Vec<&IndexedDoc> = changes.changed.iter().chain(&changes.added).collect();
            prefixes.prepare(&update, &all, &config.recipe, &config.read)?;
            keep_prefixed(prefixes, &mut changes, config, reporter, &mut stats)
        }
        None => (Vec::new(), Vec::new()),
    };
    for path in &changes.removed {
        update.remove(path)?;
    }
    for (i, doc) in changes.changed.iter().enumerate() {
        let id = update.change(doc)?;
        if let Some(prefixes) = &mut prefixes {
            prefixes.store(&update, id, &changed_prefixes[i], doc.shingle_count)?;
        }
    }
    for (i, doc) in changes.added.iter().enumerate() {
        let id = update.add(doc)?;
        if let Some(prefixes) = &mut prefixes {
            prefixes.store(&update, id, &added_prefixes[i], doc.shingle_count)?;
        }
    }
    if let Some(prefixes) = &mut prefixes {
        prefixes.finish(&update)?;
    }
    update.record_base()?;
    let summary = update.commit()?;

    let signed = to_sign.len() as u64;
    let unchanged_count = unchanged.iter().filter(|&&u| u).count() as u64;
    let mut outcomes = Vec::new();
    let mut matrix = Vec::new();
    if want_signatures {
        let n = config.recipe.banding.signature_len();
        let mut fresh = fresh.into_iter();
        outcomes.reserve(files.len());
        matrix = vec![u32::MAX; files.len() * n];
        let mut contents = pipeline::ContentTable::default();
        for (i, &same) in unchanged.iter().enumerate() {
            let signature = if same {
                let doc = stored.docs[slot[i] as usize]
                    .take()
                    .expect("unchanged files are stored");
                if doc.binary {
                    FileSignature::Binary(doc.not_compared)
                } else {
                    FileSignature::Content {
                        hash: doc.content_hash,
                        shingles: u32::try_from(doc.shingle_count).unwrap_or(u32::MAX),
                        signature: doc.signature,
                    }
                }
            } else {
                fresh.next().expect("one fresh signature per signed file")
            };
            outcomes.push(match signature {
                FileSignature::Content {
                    hash,
                    shingles,
                    signature,
                } => {
                    // Stored and fresh copies of one content alike: the first
                    // file carries the content, as `sign_files` would have it.
                    if contents.claim(hash, i as u32).1 {
                        if signature.len() == n {
                            matrix[i * n..(i + 1) * n].copy_from_slice(&signature);
                        }
                        SignOutcome::Unique(SignedContent {
                            hash,
                            shingles,
                            counted: true,
                            set: Vec::new(),
                        })
                    } else {
                        SignOutcome::SameAs(hash)
                    }
                }
                FileSignature::Binary(None) => SignOutcome::Binary,
                FileSignature::Binary(Some(why)) => SignOutcome::NotExtracted(why),
                FileSignature::Failed(err) => SignOutcome::Failed(err),
            });
        }
    }
    Ok(Refreshed {
        files,
        outcomes,
        matrix,
        fresh_signatures,
        stats,
        update: summary,
        unchanged: unchanged_count,
        signed,
    })
}

/// The prefixes of the changed and the added documents (index order), each
/// set re-read (the prefix index, [`index::prefix`]); a document whose file
/// no longer reads as it was signed is warned about and left out of the
/// index (a changed one removed), as a file that failed to sign is.
fn keep_prefixed(
    prefixes: &index::prefix::Prefixes,
    changes: &mut Changes,
    config: &ScanConfig,
    reporter: &dyn Reporter,
    stats: &mut ScanStats,
) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let mut keep = |docs: &mut Vec<IndexedDoc>, removed: &mut Vec<PathBuf>, known: bool| {
        let read = prefixes.read(docs, &config.recipe, &config.read);
        let mut kept = Vec::with_capacity(docs.len());
        let mut out = Vec::with_capacity(docs.len());
        for (doc, prefix) in std::mem::take(docs).into_iter().zip(read) {
            match prefix {
                Ok(prefix) => {
                    kept.push(doc);
                    out.push(prefix);
                }
                Err(err) => {
                    reporter.warn(&doc.path, &err);
                    stats.errors += 1;
                    if known {
                        removed.push(doc.path);
                    }
                }
            }
        }
        *docs = kept;
        out
    };
    let changed = keep(&mut changes.changed, &mut changes.removed, true);
    let added = keep(&mut changes.added, &mut changes.removed, false);
    (changed, added)
}

/// The stored files, in path-byte order (the index's `ORDER BY path`), found
/// for walked paths without hashing them: the walk visits paths in the same
/// byte order, so the entry a lookup finds is usually the one after the
/// previous find (a million paths hashed into two maps were a sixth of an
/// unchanged re-index, docs/PERFORMANCE.md). The paths are kept one after
/// the other in one buffer, not one allocation each.
struct Stored {
    /// Every stored path's bytes, in order; path `i` ends at `ends[i]`.
    bytes: Vec<u8>,
    ends: Vec<usize>,
    stats: Vec<FileStat>,
    /// Each document with its signature, when signatures are wanted (else
    /// empty); taken when used.
    docs: Vec<Option<index::StoredDoc>>,
    /// Whether the walk found each.
    walked: Vec<bool>,
    /// Where the next lookup looks first.
    next: usize,
}

impl Stored {
    /// A file's slot when its path is not stored.
    const NONE: u32 = u32::MAX;

    fn empty() -> Stored {
        Stored {
            bytes: Vec::new(),
            ends: Vec::new(),
            stats: Vec::new(),
            docs: Vec::new(),
            walked: Vec::new(),
            next: 0,
        }
    }

    fn push(&mut self, path: &[u8], stat: FileStat) {
        self.bytes.extend_from_slice(path);
        self.ends.push(self.bytes.len());
        self.stats.push(stat);
        self.walked.push(false);
    }

    /// Paths and metadata only, as `update` holds them.
    fn of_files(update: &index::Update<'_>) -> Result<Stored, IndexError> {
        let mut stored = Stored::empty();
        update.each_file(|path, stat| stored.push(path, stat))?;
        Ok(stored.sorted())
    }

    /// Documents with their signatures.
    fn of_documents(docs: Vec<index::StoredDoc>) -> Stored {
        let mut stored = Stored::empty();
        for doc in &docs {
            stored.push(bytes(&doc.path), doc.stat);
        }
        stored.docs = docs.into_iter().map(Some).collect();
        stored.sorted()
    }

    /// In path-byte order, whatever order the entries came in (the index
    /// gives them in that order already).
    fn sorted(self) -> Stored {
        let n = self.ends.len();
        if (1..n).all(|i| self.path(i - 1) <= self.path(i)) {
            return self;
        }
        let mut order: Vec<usize> = (0..n).collect();
        // Stable: the index's order is a few long sorted runs (each update
        // appends its new files in walk order), which this sort merges.
        order.sort_by(|&a, &b| self.path(a).cmp(self.path(b)));
        let mut sorted = Stored::empty();
        for &i in &order {
            sorted.push(self.path(i), self.stats[i]);
        }
        let mut docs = self.docs;
        if !docs.is_empty() {
            sorted.docs = order.iter().map(|&i| docs[i].take()).collect();
        }
        sorted
    }

    /// The bytes of stored path `i`.
    fn path(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// The entry of `path`, if stored; marks it walked.
    fn find(&mut self, path: &std::path::Path) -> Option<usize> {
        let key = bytes(path);
        let at = if self.next < self.ends.len() && self.path(self.next) == key {
            Some(self.next)
        } else {
            let (mut lo, mut hi) = (0, self.ends.len());
            let mut found = None;
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                match self.path(mid).cmp(key) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => {
                        found = Some(mid);
                        break;
                    }
                }
            }
            found
        };
        if let Some(at) = at {
            self.next = at + 1;
            self.walked[at] = true;
        }
        at
    }

    /// The stored paths the walk did not find.
    fn not_walked(&self) -> Vec<PathBuf> {
        use std::os::unix::ffi::OsStrExt;
        (0..self.ends.len())
            .filter(|&i| !self.walked[i])
            .map(|i| PathBuf::from(std::ffi::OsStr::from_bytes(self.path(i))))
            .collect()
    }
}

/// A reporter that hands the walk's per-file progress on in batches: a
/// progress bar's lock taken for every one of a million files was a
/// twentieth of an unchanged re-index.
struct Batched<'a> {
    inner: &'a dyn Reporter,
    pending: AtomicU64,
}

impl Batched<'_> {
    const BATCH: u64 = 4096;

    fn flush(&self) {
        let done = self.pending.swap(0, Ordering::Relaxed);
        if done > 0 {
            self.inner.advance(done);
        }
    }
}

impl Reporter for Batched<'_> {
    fn begin(&self, stage: Stage, total: Option<u64>) {
        self.inner.begin(stage, total);
    }

    fn set_total(&self, total: u64) {
        self.inner.set_total(total);
    }

    fn advance(&self, done: u64) {
        // A load and a store, not a locked add: one thread (the walk's)
        // counts, and a count lost to a race would only slow a progress bar.
        let pending = self.pending.load(Ordering::Relaxed) + done;
        if pending >= Self::BATCH {
            self.pending.store(0, Ordering::Relaxed);
            self.inner.advance(pending);
        } else {
            self.pending.store(pending, Ordering::Relaxed);
        }
    }

    fn end(&self, stage: Stage) {
        self.flush();
        self.inner.end(stage);
    }

    fn warn(&self, path: &std::path::Path, reason: &dyn std::fmt::Display) {
        self.inner.warn(path, reason);
    }

    fn note(&self, path: &std::path::Path, reason: &dyn std::fmt::Display) {
        self.inner.note(path, reason);
    }

    fn warning(&self, path: &std::path::Path, warning: &crate::progress::Warning) {
        self.inner.warning(path, warning);
    }

    fn notice(&self, path: &std::path::Path, notice: &crate::progress::Notice) {
        self.inner.notice(path, notice);
    }

    fn wants_notes(&self) -> bool {
        self.inner.wants_notes()
    }
}

/// A path's bytes, the order of the index and of the walk.
fn bytes(path: &std::path::Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes()
}

/// What signing made of one file, with identical files each carrying the
/// shared content, so that it can be stored per file.
enum FileSignature {
    /// Read and shingled; `signature` is empty when the shingle set is.
    Content {
        hash: u128,
        shingles: u32,
        signature: Vec<u32>,
    },
    /// Not compared, with the reason when it is known.
    Binary(Option<Unextracted>),
    Failed(ReadError),
}

/// Turns [`pipeline::sign_files`]' outcomes and matrix into one
/// [`FileSignature`] per file, copying each content's signature to its copies.
fn per_file(outcomes: Vec<SignOutcome>, matrix: &[u32], n: usize) -> Vec<FileSignature> {
    let row = |i: usize| &matrix[i * n..(i + 1) * n];
    let signed = SignOutcome::signed_rows(&outcomes);
    let content = |hash: u128| match signed.get(&hash) {
        Some(&(i, shingles)) => FileSignature::Content {
            hash,
            shingles,
            signature: if shingles == 0 {
                Vec::new()
            } else {
                row(i).to_vec()
            },
        },
        // Unreachable: `sign_files` signs every content one of its files shows.
        None => FileSignature::Failed(ReadError::Io(std::io::Error::other(
            "identical content was not signed",
        ))),
    };
    outcomes
        .into_iter()
        .map(|o| match o {
            SignOutcome::Unique(c) => content(c.hash),
            SignOutcome::SameAs(hash) => content(hash),
            SignOutcome::Binary => FileSignature::Binary(None),
            SignOutcome::NotExtracted(why) => FileSignature::Binary(Some(why)),
            SignOutcome::Failed(err) => FileSignature::Failed(err),
        })
        .collect()
}

/// One line for the summary on stderr, worded alike by `index` and `scan --db`.
pub fn describe(refreshed: &Refreshed) -> String {
    format!(
        "{} files: {} unchanged (not read), {} signed; index: {} added, {} changed, {} removed",
        refreshed.files.len(),
        refreshed.unchanged,
        refreshed.signed,
        refreshed.update.added,
        refreshed.update.changed,
        refreshed.update.removed
    )
}

/// `scan --db`: brings `index` up to date with the files under `config.roots`
/// (as [`refresh`] does), then finds pairs among every file's signature, stored
/// or fresh, with [`pipeline::find_pairs`]. The outcome is what a fresh
/// `scan --method lsh` reports, except that its signature count is the number of
/// contents signed in this run. `refreshed` sees what the refresh did before the
/// pairs are looked for (for a summary line printed in that order).
///
/// An index stores MinHash signatures, not shingle sets, so only LSH can use it.
///
/// # Panics
///
/// If `config.method` asks for the exact method: refuse that combination while
/// configuring.
pub fn scan_with_index(
    index: &mut Index,
    config: &ScanConfig,
    reporter: &dyn Reporter,
    refreshed: impl FnOnce(&Refreshed),
) -> Result<crate::pipeline::ScanOutcome, IndexError> {
    use crate::pipeline::plan::{Decision, MethodChoice, Reason};
    let decision = match config.method {
        MethodChoice::Fixed(Method::Exact) => {
            panic!("an index serves the LSH method only; the exact method cannot use it")
        }
        MethodChoice::Fixed(Method::Lsh) => Decision {
            method: Method::Lsh,
            reason: Reason::Requested,
        },
        MethodChoice::Auto | MethodChoice::Banded => Decision {
            method: Method::Lsh,
            reason: Reason::IndexSignatures,
        },
    };
    let done = refresh(index, config, reporter, true)?;
    refreshed(&done);
    let fresh_signatures = done.fresh_signatures;
    let mut outcome = pipeline::find_pairs(
        config,
        done.files,
        done.outcomes,
        done.matrix,
        decision,
        done.stats,
        reporter,
    );
    outcome.stats.signatures = fresh_signatures;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modification_times_become_signed_nanoseconds() {
        let entry = |modified| FileEntry {
            path: "x".into(),
            size: 3,
            modified,
            dev: 1,
            ino: 2,
        };
        let t = UNIX_EPOCH + Duration::new(5, 7);
        assert_eq!(file_stat(&entry(Some(t))).mtime_ns, 5_000_000_007);
        let before = UNIX_EPOCH - Duration::from_nanos(1500);
        assert_eq!(file_stat(&entry(Some(before))).mtime_ns, -1500);
        assert_eq!(file_stat(&entry(None)).mtime_ns, UNTRUSTED_MTIME);
        assert_eq!(file_stat(&entry(Some(t))).inode, Some(2));
    }

    #[test]
    fn stored_paths_are_found_in_any_lookup_order() {
        let stat = |size| FileStat {
            size,
            mtime_ns: 1,
            dev: None,
            inode: None,
        };
        // Not in byte order as given ("a.txt" < "a/b": '.' sorts before '/').
        let names = ["r/a/b", "r/a.txt", "r/z", "r/\u{e9}", "r/a/c"];
        let mut stored = Stored::empty();
        for (i, name) in names.iter().enumerate() {
            stored.push(name.as_bytes(), stat(i as u64));
        }
        let mut stored = stored.sorted();
        // The walk's order, then a lookup behind the cursor, then misses.
        for name in ["r/a.txt", "r/a/b", "r/a/c", "r/\u{e9}", "r/a/b"] {
            let at = stored.find(std::path::Path::new(name)).expect(name);
            assert_eq!(stored.path(at), name.as_bytes());
            let given = names.iter().position(|n| *n == name).unwrap();
            assert_eq!(stored.stats[at], stat(given as u64));
        }
        assert_eq!(stored.find(std::path::Path::new("r/a")), None);
        assert_eq!(stored.find(std::path::Path::new("r/zz")), None);
        assert_eq!(stored.not_walked(), [PathBuf::from("r/z")]);
    }

    #[test]
    fn the_walks_progress_is_handed_on_whole_in_batches() {
        #[derive(Default)]
        struct Count {
            done: AtomicU64,
            calls: AtomicU64,
        }
        impl Reporter for Count {
            fn advance(&self, done: u64) {
                self.done.fetch_add(done, Ordering::Relaxed);
                self.calls.fetch_add(1, Ordering::Relaxed);
            }
        }
        let inner = Count::default();
        let batched = Batched {
            inner: &inner,
            pending: AtomicU64::new(0),
        };
        batched.begin(Stage::Walk, None);
        let files = 3 * Batched::BATCH + 5;
        for _ in 0..files {
            batched.advance(1);
        }
        assert_eq!(inner.calls.load(Ordering::Relaxed), 3);
        batched.end(Stage::Walk);
        assert_eq!(inner.done.load(Ordering::Relaxed), files);
        assert_eq!(inner.calls.load(Ordering::Relaxed), 4);
    }
}
