//! Pair finding on what signing left (stages 3–5): the exact join of the kept
//! sets, or [`band`] (LSH candidates, as data) then [`verify`] (by signature,
//! or exactly on sets reloaded through a [`Reload`]), and finally the
//! expansion of pairs of contents to pairs of documents.
//!
//! Inputs: [`Signed`] (documents, content groups, signature matrix).
//! Output: a [`ScanOutcome`] whose pairs are sorted by `(a, b)`, with the
//! warnings and notes reported in document order.

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::SeqCst;

use rayon::prelude::*;

use super::contents::{ContentGroup, Items, Signed};
use super::docs::Docs;
use super::plan::{Decision, Method, MethodChoice, Reason};
use super::reload::{FileReload, Reload, ReloadError};
use super::{ScanConfig, ScanOutcome, ScanStats, Verification};
use crate::input::walk;
use crate::lsh;
use crate::model::{DocPairs, DocStatus, SimilarPair};
use crate::progress::{Notice, Reporter, Stage};
use crate::similarity::{join, sets, verify};
use crate::sketch::Sketcher;

/// Stages 3–5 on what signing left, however it was signed.
pub(super) fn pairs_of(
    config: &ScanConfig,
    signed: Signed,
    decision: Decision,
    stats: ScanStats,
    reporter: &dyn Reporter,
) -> ScanOutcome {
    pairs_of_given(config, signed, decision, stats, None, reporter)
}

/// [`pairs_of`], with the band stage's candidates `given` as pairs of
/// documents (a band join run elsewhere) instead of banded here.
pub(super) fn pairs_of_given(
    config: &ScanConfig,
    signed: Signed,
    mut decision: Decision,
    mut stats: ScanStats,
    given: Option<Vec<(u32, u32)>>,
    reporter: &dyn Reporter,
) -> ScanOutcome {
    let Signed {
        mut documents,
        mut groups,
        failures,
        unextracted,
        mut matrix,
    } = signed;
    release_free_pages();
    // Warnings and notes in document order, whatever order files were signed in.
    let mut failures = failures.into_iter();
    let unextracted_ids: std::collections::HashMap<u32, String> = unextracted
        .iter()
        .map(|(id, why)| (*id, why.category()))
        .collect();
    let mut unextracted = unextracted.into_iter().peekable();
    for id in 0..documents.len() {
        match documents.status(id) {
            DocStatus::Failed => {
                let (_, err) = failures.next().expect("one reason per failed document");
                err.warn(reporter, &documents.path(id));
                stats.errors += 1;
            }
            DocStatus::Binary => match unextracted.next_if(|&(d, _)| d as usize == id) {
                Some((_, why)) => {
                    let notice = Notice::NotExtracted(why.reason());
                    reporter.notice(&documents.path(id), &notice);
                    *stats.unextracted.entry(why.category()).or_default() += 1;
                }
                None => {
                    reporter.notice(&documents.path(id), &Notice::LooksBinary);
                    stats.binary += 1;
                }
            },
            DocStatus::Read => stats.bytes += documents.size(id),
        }
    }
    stats.signatures = groups.groups.len() as u64;
    stats.identical_files = groups.identical_files();
    for id in 0..documents.len() {
        if documents.status(id) == DocStatus::Read && documents.shingles(id) == 0 {
            stats.no_shingles += 1;
            reporter.note(
                &documents.path(id),
                &"shorter than one shingle: paired only with byte-identical copies",
            );
        }
    }
    let copies = copies_without_text(
        config,
        &mut documents,
        &groups,
        &unextracted_ids,
        &mut stats,
        reporter,
    );

    // Only non-empty contents take part: two empty sets are not "identical".
    // The join takes the kept sets over (of the non-empty contents, in
    // group order) and frees each once it is re-coded.
    let sets: Vec<Vec<u64>> = if decision.method == Method::Exact {
        groups.take_sets()
    } else {
        Vec::new()
    };
    // The others are dropped in place rather than listed apart: a list of
    // the non-empty ones (8 bytes a content) sat on the signature matrix at
    // the band stage, the scan's peak (docs/PERFORMANCE.md, "Round 6").
    groups.groups.retain(|g| g.content.shingles > 0);
    let items = groups.items();
    stats.unique_contents = items.len() as u64;

    if decision.method == Method::Exact {
        let (verified, fell_back) = exact_join(sets, config, &mut stats, reporter);
        // Given up for LSH, the pairs carry signature estimates, and copies
        // the estimate 1.0, as LSH's own path reports them.
        let signed = fell_back.is_some();
        if let Some(reason) = fell_back {
            decision = Decision {
                method: Method::Lsh,
                reason,
            };
        }
        let roots = isolated_roots(config, &documents);
        let pairs = expand_to_documents(
            items,
            &documents,
            &[],
            verified,
            (Verification::Exact, signed),
            roots.as_deref(),
        );
        let pairs = with_copies(pairs, &copies);
        stats.pairs = pairs.len();
        drop(groups);
        return ScanOutcome {
            documents: documents.into_documents(),
            pairs,
            stats,
            decision,
        };
    }

    let doc_roots = isolated_roots(config, &documents);
    let mut candidates = band(config, items, &mut matrix, given, &mut stats, reporter);
    if let Some(roots) = &doc_roots {
        // Cheap, before verification: two contents whose files all lie under
        // one and the same root can only make same-root pairs.
        let single: Vec<Option<u32>> = items.iter().map(|g| single_root(items, g, roots)).collect();
        candidates.retain(|&(a, b)| {
            single[a as usize].is_none() || single[a as usize] != single[b as usize]
        });
    }
    let (verified, lost_copies) = verify(
        config,
        candidates,
        items,
        &mut documents,
        matrix,
        &FileReload::new(config),
        &mut stats,
        reporter,
    );

    let pairs = expand_to_documents(
        items,
        &documents,
        &lost_copies,
        verified,
        (config.verification, true),
        doc_roots.as_deref(),
    );
    let pairs = with_copies(pairs, &copies);
    stats.pairs = pairs.len();
    // The groups go before the documents are made.
    drop(groups);
    ScanOutcome {
        documents: documents.into_documents(),
        pairs,
        stats,
        decision,
    }
}

/// How many leading bytes of a binary file key its bucket before the full
/// hash (`--identical-by prefix:N`'s cheap key): same-size files that differ
/// early are told apart without reading them whole.
const COPY_PREFIX: u64 = 4096;

/// The sets of byte-identical files that have no text to compare: files
/// skipped as binary, and non-empty files shorter than one shingle. Their
/// similarity cannot be measured, but a copy is a copy (`-t 1`, `dedupe
/// --link`): each set is paired at 1.0. Only the binary files are read again,
/// and only those whose size another binary file shares (the `--identical-by`
/// stages, `identical.rs`); the short text files were hashed when signed. A
/// binary file that cannot be read now is warned about and counted as an
/// error instead. With `--isolate` none are paired (a set would pair files
/// under one root too).
fn copies_without_text(
    config: &ScanConfig,
    documents: &mut Docs,
    groups: &super::contents::ContentGroups,
    unextracted: &std::collections::HashMap<u32, String>,
    stats: &mut ScanStats,
    reporter: &dyn Reporter,
) -> Vec<Vec<u32>> {
    if config.walk.isolate {
        return Vec::new();
    }
    let items = groups.items();
    let mut sets: Vec<Vec<u32>> = items
        .iter()
        .filter(|g| g.content.shingles == 0)
        .map(|g| {
            items
                .members(g)
                .iter()
                .copied()
                .filter(|&d| {
                    documents.status(d as usize) == DocStatus::Read
                        && documents.size(d as usize) > 0
                })
                .collect::<Vec<u32>>()
        })
        .filter(|m| m.len() > 1)
        .collect();
    // Sizes first, from the columns: paths are made only for the binary
    // files another binary file could equal (fclones' first stage).
    let mut binary: Vec<u32> = (0..documents.len() as u32)
        .filter(|&d| documents.status(d as usize) == DocStatus::Binary)
        .collect();
    let mut sizes: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    for &d in &binary {
        *sizes.entry(documents.size(d as usize)).or_default() += 1;
    }
    binary.retain(|&d| {
        let size = documents.size(d as usize);
        size > 0 && sizes[&size] > 1
    });
    drop(sizes);
    if binary.len() > 1 {
        let entries: Vec<walk::FileEntry> = binary
            .iter()
            .map(|&d| walk::FileEntry {
                path: documents.path(d as usize),
                size: documents.size(d as usize),
                modified: documents.modified(d as usize),
                dev: 0, // not read: files are opened by path below
                ino: 0,
            })
            .collect();
        // By path, as verification reloads files: the columns kept per
        // document hold no device and inode to pin the walked file with.
        let how = if config.walk.follow_links {
            crate::source::Reopen::Follow
        } else {
            crate::source::Reopen::NoFollow
        };
        // Identity is the files' bytes: nothing is extracted to hash them.
        let raw = crate::input::read::ReadOptions {
            extract: crate::input::extract::Extract::NONE,
            ..config.read.clone()
        };
        let open = |i: usize| crate::source::reopen_path(&entries[i].path, how, &raw);
        let ids: Vec<u32> = (0..entries.len() as u32).collect();
        let found = super::identical::identical_sets(
            &entries,
            &ids,
            super::identical::IdenticalBy::Prefix(COPY_PREFIX),
            &open,
        );
        for (i, err) in &found.failed {
            let d = binary[*i as usize] as usize;
            err.warn(reporter, &entries[*i as usize].path);
            documents.set_status(d, DocStatus::Failed);
            match unextracted.get(&(d as u32)) {
                Some(category) => {
                    if let Some(count) = stats.unextracted.get_mut(category) {
                        *count -= 1;
                        if *count == 0 {
                            stats.unextracted.remove(category);
                        }
                    }
                }
                None => stats.binary -= 1,
            }
            stats.errors += 1;
        }
        for set in found.sets {
            stats.identical_files += set.len() as u64 - 1;
            sets.push(set.into_iter().map(|i| binary[i as usize]).collect());
        }
    }
    sets
}

/// `pairs` and, for each of `copies`, its files paired with each other at 1.0.
fn with_copies(pairs: DocPairs, copies: &[Vec<u32>]) -> DocPairs {
    if copies.is_empty() {
        return pairs;
    }
    pairs.with_identical(copies.iter().map(|set| &set[..]), SimilarPair::IDENTICAL)
}

/// Gives the pages that signing freed back to the system before banding (the
/// scan's peak). While `--method auto` is pending, the walker runs ahead of
/// the signing workers and its queued files fill its thread's heap; once
/// signed they are freed, but glibc keeps a thread heap's free pages
/// resident (it returns only a heap's top): 64 MB at a million files,
/// docs/PERFORMANCE.md. `malloc_trim` returns every free page of every heap.
/// (`stream` calls it too, as soon as that backlog has been signed.)
pub(super) fn release_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes each glibc heap's own lock and only advises
    // the kernel about pages no allocation holds; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Candidate pairs of banded contents, as indices into the items they were
/// banded from: data, so that they could come from elsewhere too.
pub(super) type Candidates = Vec<(u32, u32)>;

/// The band stage: keeps only the signature row of each of `items` in
/// `matrix` (row `i` is then item `i`'s) and returns the candidate pairs that
/// share a band, or the `given` pairs of documents as pairs of items.
fn band(
    config: &ScanConfig,
    items: Items<'_>,
    matrix: &mut Vec<u32>,
    given: Option<Vec<(u32, u32)>>,
    stats: &mut ScanStats,
    reporter: &dyn Reporter,
) -> Candidates {
    reporter.begin(Stage::Band, None);
    // Rows were written per file; keep only the signed row of each banded
    // content, in item order, compacted in place: a group's loader is the file
    // that was signed and loaders increase with the group index, so row
    // `loader ≥ i` is never overwritten before it is moved to row `i`. No second
    // copy of the signatures ever exists (the peak RSS bound in
    // docs/PERFORMANCE.md).
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
    let candidates = match given {
        None => lsh::candidate_pairs(matrix, config.recipe.banding),
        Some(pairs) => items_of_documents(items, pairs),
    };
    stats.candidates = candidates.len() as u64;
    reporter.end(Stage::Band);

    candidates
}

/// Pairs of documents as the sorted, distinct pairs of the items holding
/// them: two copies of one content are one item (paired by the expansion),
/// and a document in no item (an empty set) pairs with nothing, as in
/// banding.
fn items_of_documents(items: Items<'_>, pairs: Vec<(u32, u32)>) -> Candidates {
    let documents = items
        .iter()
        .flat_map(|g| items.members(g).iter())
        .map(|&d| d as usize + 1)
        .max()
        .unwrap_or(0);
    let mut item_of = vec![u32::MAX; documents];
    for (i, g) in items.iter().enumerate() {
        for &d in items.members(g) {
            item_of[d as usize] = i as u32;
        }
    }
    let item = |d: u32| item_of.get(d as usize).copied().unwrap_or(u32::MAX);
    let mut candidates: Candidates = pairs
        .into_iter()
        .map(|(a, b)| (item(a), item(b)))
        .filter(|&(a, b)| a != b && a != u32::MAX && b != u32::MAX)
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    candidates.par_sort_unstable();
    candidates.dedup();
    candidates
}

/// The verify stage: the `candidates` (pairs of `items`, whose signatures are
/// the rows of `matrix`) with similarity ≥ the threshold, estimated from the
/// signatures or exact from the sets `reload` re-creates; gives every
/// document the output names its exact count. Also returns, per item, whether
/// its identical pairs are lost (no copy reads as the content any more).
///
/// Exact verification frees the matrix once the signatures have ruled
/// candidates out: it is the largest block of a scan of many files, and the
/// re-created sets and the output's documents need not sit on top of it.
#[allow(clippy::too_many_arguments)]
fn verify(
    config: &ScanConfig,
    candidates: Candidates,
    items: Items<'_>,
    documents: &mut Docs,
    matrix: Vec<u32>,
    reload: &(dyn Reload + Sync),
    stats: &mut ScanStats,
    reporter: &dyn Reporter,
) -> (Vec<SimilarPair>, Vec<bool>) {
    let n = config.recipe.banding.signature_len();
    // The family's own estimator: a sketch that estimates something other than
    // the fraction of agreeing positions brings its own.
    let sketcher = config.recipe.sketcher();
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
        Verification::Signature => {
            let signature = |i: u32| &matrix[i as usize * n..][..n];
            candidates
                .into_par_iter()
                .filter_map(|(a, b)| {
                    let estimate = sketcher.estimate(signature(a), signature(b));
                    (estimate >= config.threshold).then_some(SimilarPair {
                        a,
                        b,
                        similarity: estimate,
                        estimate: Some(estimate),
                        shared: None,
                    })
                })
                .collect()
        }
        Verification::Exact => {
            let candidates =
                super::rule_out::rule_out_by_signature(candidates, &matrix, config, stats);
            let estimates = Estimates::new(matrix, &candidates, n, &sketcher);
            let involved = verify::involved_documents(&candidates);
            // Copies of a content signed without its exact count need the
            // count for their identical pairs: the verifier reads the ones it
            // loads anyway, the others are read once more after it.
            let uncopied = items
                .iter()
                .enumerate()
                .filter(|&(i, g)| {
                    items.members(g).len() > 1
                        && !g.content.counted
                        && involved.binary_search(&(i as u32)).is_err()
                })
                .count();
            reporter.begin(Stage::Verify, Some((involved.len() + uncopied) as u64));
            drop(involved);
            let readers = Readers::new(items, documents);
            let outcome = verify::verify_exact_parted(
                &candidates,
                config.threshold,
                verify::Budget::capped(config.verify_memory),
                |i| items[i as usize].content.shingles as usize * std::mem::size_of::<u64>(),
                |i| {
                    let hash = items[i as usize].content.hash();
                    let result = readers.read(i, |path| reload.set_of(path, hash));
                    if let Ok(set) = &result {
                        counts[i as usize].store(count_of(set.len()), SeqCst);
                    }
                    reporter.advance(1);
                    result
                },
                |i, part| {
                    let hash = items[i as usize].content.hash();
                    readers.read(i, |path| reload.part_of(path, hash, part))
                },
            );
            for &(i, len) in &outcome.part_counts {
                counts[i as usize].store(count_of(len), SeqCst);
            }
            for p in &outcome.parted {
                let path = |i: u32| documents.path(items[i as usize].loader as usize);
                let note = Notice::VerifiedInParts {
                    other: path(p.b).to_path_buf(),
                    passes: p.passes,
                    need_mib: p.need.div_ceil(1 << 20) as u64,
                };
                reporter.notice(&path(p.a), &note);
            }
            // A content none of whose files reads as it any more has lost
            // its pairs; every file that failed is named below.
            drop(outcome.failures);
            count_copied_contents(items, &counts, &readers, reload, reporter);
            for (id, reason) in readers.into_failures() {
                reporter.warn(&documents.path(id as usize), &reason);
                documents.set_status(id as usize, DocStatus::Failed);
                stats.errors += 1;
            }
            reporter.end(Stage::Verify);
            // Every document the output names now has its exact count.
            for (item, count) in items.iter().zip(&counts) {
                let count = count.load(SeqCst);
                if count != UNCOUNTED {
                    for &id in items.members(item) {
                        documents.set_shingles(id as usize, count);
                    }
                }
            }
            lost_copies = counts
                .iter()
                .zip(items.iter())
                .map(|(c, g)| {
                    !g.content.counted && items.members(g).len() > 1 && c.load(SeqCst) == UNCOUNTED
                })
                .collect();
            outcome
                .pairs
                .into_iter()
                .map(|p| SimilarPair {
                    a: p.a,
                    b: p.b,
                    similarity: p.similarity,
                    estimate: Some(estimates.of(&candidates, p.a, p.b)),
                    shared: Some(p.shared),
                })
                .collect()
        }
    };
    (verified, lost_copies)
}

/// The signature estimates of the candidates that verification may report:
/// from the matrix, or, when that takes more memory, computed beforehand so
/// that the matrix is freed before the sets are re-created.
enum Estimates {
    Matrix {
        matrix: Vec<u32>,
        n: usize,
        sketcher: crate::sketch::AnySketcher,
    },
    /// One per candidate, in the candidates' order.
    Listed(Vec<f64>),
}

impl Estimates {
    fn new(
        matrix: Vec<u32>,
        candidates: &Candidates,
        n: usize,
        sketcher: &crate::sketch::AnySketcher,
    ) -> Estimates {
        let signature = |i: u32| &matrix[i as usize * n..][..n];
        if candidates.len() * std::mem::size_of::<f64>()
            >= matrix.len() * std::mem::size_of::<u32>()
        {
            return Estimates::Matrix {
                matrix,
                n,
                sketcher: sketcher.clone(),
            };
        }
        let listed = candidates
            .par_iter()
            .map(|&(a, b)| sketcher.estimate(signature(a), signature(b)))
            .collect();
        Estimates::Listed(listed)
    }

    /// The estimate of candidate `(a, b)`, one of `candidates` (sorted).
    fn of(&self, candidates: &Candidates, a: u32, b: u32) -> f64 {
        match self {
            Estimates::Matrix {
                matrix,
                n,
                sketcher,
            } => {
                let signature = |i: u32| &matrix[i as usize * n..][..*n];
                sketcher.estimate(signature(a), signature(b))
            }
            Estimates::Listed(listed) => {
                let at = candidates
                    .binary_search(&(a, b))
                    .expect("a verified pair is a candidate");
                listed[at]
            }
        }
    }
}

/// [`verify`]'s mark of a count not known yet.
const UNCOUNTED: u32 = u32::MAX;

/// A set's size as [`Document::shingles`] holds it, never [`UNCOUNTED`].
fn count_of(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX).min(UNCOUNTED - 1)
}

/// Establishes the exact shingle count of every content with copies that is
/// still [`UNCOUNTED`] after verification, reading one member that still holds
/// the signed content through `readers` (which records every file that no
/// longer does). A content none of whose files reads as it any more keeps an
/// unknown count; its files are all among the failures.
fn count_copied_contents(
    items: Items<'_>,
    counts: &[AtomicU32],
    readers: &Readers<'_>,
    reload: &(dyn Reload + Sync),
    reporter: &dyn Reporter,
) {
    let uncounted: Vec<usize> = (0..items.len())
        .filter(|&i| items.members(&items[i]).len() > 1 && counts[i].load(SeqCst) == UNCOUNTED)
        .collect();
    uncounted.into_par_iter().for_each(|i| {
        let hash = items[i].content.hash();
        if let Ok(set) = readers.read(i as u32, |path| reload.set_of(path, hash)) {
            counts[i].store(count_of(set.len()), SeqCst);
        }
        reporter.advance(1);
    });
}

/// Which file each content is re-read from during verification. It starts as
/// the file that was signed (the loader); when that one no longer reads as the
/// content (changed, removed, out of descriptors), the next identical copy
/// that does takes over, so the copies keep their pairs. Every file that
/// failed is recorded with its reason: it alone is reported and left out of
/// the pairs.
struct Readers<'a> {
    items: Items<'a>,
    documents: &'a Docs,
    /// Per item, the document id it is read from now.
    current: Vec<AtomicU32>,
    /// Per document, whether a reload of it failed (it is never tried again).
    failed: Vec<std::sync::atomic::AtomicBool>,
    failures: std::sync::Mutex<Vec<(u32, ReloadError)>>,
}

/// Every identical copy of a content failed to reload; the files and their
/// reasons are in [`Readers::into_failures`].
#[derive(Debug)]
struct NoCopyReads;

impl<'a> Readers<'a> {
    fn new(items: Items<'a>, documents: &'a Docs) -> Self {
        Readers {
            items,
            documents,
            current: items.iter().map(|g| AtomicU32::new(g.loader)).collect(),
            failed: (0..documents.len())
                .map(|_| std::sync::atomic::AtomicBool::new(false))
                .collect(),
            failures: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// `read` applied to the file item `i` is read from now, then to each
    /// other copy in document order until one succeeds.
    fn read<T>(
        &self,
        i: u32,
        read: impl Fn(&std::path::Path) -> Result<T, ReloadError>,
    ) -> Result<T, NoCopyReads> {
        let item = &self.items[i as usize];
        let first = self.current[i as usize].load(SeqCst);
        let others = self
            .items
            .members(item)
            .iter()
            .copied()
            .filter(|&d| d != first);
        for d in std::iter::once(first).chain(others) {
            if self.failed[d as usize].load(SeqCst) {
                continue;
            }
            match read(&self.documents.path(d as usize)) {
                Ok(value) => {
                    self.current[i as usize].store(d, SeqCst);
                    return Ok(value);
                }
                Err(reason) => {
                    if !self.failed[d as usize].swap(true, SeqCst) {
                        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
                        failures.push((d, reason));
                    }
                }
            }
        }
        Err(NoCopyReads)
    }

    /// The files that failed to reload, in document order, with their reasons.
    fn into_failures(self) -> Vec<(u32, ReloadError)> {
        let mut failures = self
            .failures
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        failures.sort_unstable_by_key(|f| f.0);
        failures
    }
}

/// The exact method: every pair of distinct contents with Jaccard ≥ t, by the
/// prefix-filter join over the sets kept while reading. `sets[i]` is content
/// `i`'s; each is freed as soon as the join has re-coded it.
///
/// With a `budget` (CPU seconds, under `--method auto`), a join whose
/// sampled probes predict more is given up for LSH over its sets in memory
/// ([`join_fallback`]); the second value is then the new method's reason.
fn exact_join(
    sets: Vec<Vec<u64>>,
    config: &ScanConfig,
    stats: &mut ScanStats,
    reporter: &dyn Reporter,
) -> (Vec<SimilarPair>, Option<Reason>) {
    reporter.begin(Stage::Join, None);
    // Sets probed / sets, so the bar moves instead of a spinner stuck at 0.
    let total_known = std::sync::Once::new();
    let progress = |done, total| {
        total_known.call_once(|| reporter.set_total(total));
        reporter.advance(done);
    };
    // Only auto's join may be given up; `--method exact` is exact whatever
    // it costs, and so is a textbook index asked for by name.
    let banding = config.recipe.banding;
    let give_up = |p: &join::Prediction| super::plan::give_up_join(p, banding);
    let give_up: Option<join::GiveUp<'_>> =
        (config.method == MethodChoice::Auto).then_some(&give_up);
    let joined = match config.exact_index {
        Some(index) if index != join::ExactIndex::PpJoin => {
            join::all_pairs_owned_by(sets, config.threshold, index, &progress).map(Ok)
        }
        _ => join::all_pairs_owned_within(sets, config.threshold, give_up, &progress),
    }
    .expect("threshold validated and corpus within the join's limits");
    reporter.end(Stage::Join);
    match joined {
        Ok(join) => {
            stats.candidates = join.stats.verified;
            stats.join_index_entries = join.stats.index_entries;
            stats.join_probe_hits = join.stats.probe_hits;
            stats.join_lookups = join.stats.lookups;
            let pairs = join
                .pairs
                .into_iter()
                .map(|p| SimilarPair {
                    a: p.a,
                    b: p.b,
                    similarity: sets::ratio(p.intersection as usize, p.union as usize),
                    estimate: None,
                    shared: Some(p.intersection as usize),
                })
                .collect();
            (pairs, None)
        }
        Err(abandoned) => {
            let p = &abandoned.prediction;
            let reason = Reason::JoinAbandoned {
                join_seconds: p.seconds(),
                margin: super::plan::join_margin(p),
                lsh_seconds: super::plan::fallback_seconds(p, banding),
            };
            let pairs = super::join_fallback::lsh_in_memory(&abandoned, config, stats, reporter);
            (pairs, Some(reason))
        }
    }
}

/// Turns verified pairs of contents into pairs of documents: every member of
/// one group with every member of the other, plus every two members of a group
/// of identical files (similarity 1.0) unless `lost[item]` (an empty `lost`
/// loses none). Held per content ([`DocPairs`]): a group of `n` copies costs
/// `n` ids, not `n²` rows.
///
/// With `roots` (`--isolate`: each document's root), only pairs of documents
/// under different roots: each content is split by root, its parts paired
/// with each other as identical copies, and a verified pair of contents pairs
/// the parts of different roots.
fn expand_to_documents(
    items: Items<'_>,
    documents: &Docs,
    lost: &[bool],
    verified: Vec<SimilarPair>,
    (verification, signed): (Verification, bool),
    roots: Option<&[u32]>,
) -> DocPairs {
    // A file that failed its reload is reported as failed and pairs nothing;
    // its identical copies keep their pairs.
    fn members_of<'a>(
        items: Items<'a>,
        item: &'a ContentGroup,
        documents: &Docs,
    ) -> std::borrow::Cow<'a, [u32]> {
        let ok = |&d: &u32| documents.status(d as usize) != DocStatus::Failed;
        if items.members(item).iter().all(ok) {
            std::borrow::Cow::Borrowed(items.members(item))
        } else {
            std::borrow::Cow::Owned(items.members(item).iter().copied().filter(ok).collect())
        }
    }
    let same_of = |g: usize, members: &[u32]| {
        (!lost.get(g).copied().unwrap_or(false) && !members.is_empty()).then(|| {
            let count = documents.shingles(members[0] as usize) as usize;
            SimilarPair {
                a: g as u32,
                b: g as u32,
                similarity: 1.0,
                estimate: signed.then_some(1.0),
                shared: (verification == Verification::Exact).then_some(count),
            }
        })
    };
    let Some(roots) = roots else {
        // Only the contents that can pair (copies, or in a verified pair):
        // `DocPairs` drops the others, and a list of every content (a million
        // distinct files) was the scan's peak of memory at its very end.
        let mut taking_part: Vec<u32> = verified.iter().flat_map(|p| [p.a, p.b]).collect();
        taking_part.extend(
            (0..items.len() as u32).filter(|&g| items.members(&items[g as usize]).len() > 1),
        );
        taking_part.par_sort_unstable();
        taking_part.dedup();
        let new_id = |g: u32| {
            taking_part
                .binary_search(&g)
                .expect("a verified content takes part") as u32
        };
        let verified: Vec<SimilarPair> = verified
            .into_iter()
            .map(|p| SimilarPair {
                a: new_id(p.a),
                b: new_id(p.b),
                ..p
            })
            .collect();
        let members: Vec<_> = taking_part
            .iter()
            .map(|&g| members_of(items, &items[g as usize], documents))
            .collect();
        let contents = taking_part
            .iter()
            .zip(&members)
            .map(|(&g, m)| (&m[..], same_of(g as usize, m)));
        return DocPairs::new(contents, verified);
    };
    let members: Vec<_> = items
        .iter()
        .map(|item| members_of(items, item, documents))
        .collect();
    let same = |g: usize| same_of(g, &members[g]);
    // parts[first[g]..first[g + 1]]: content g's documents, one part per root.
    let mut parts: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut first = vec![0];
    for item_members in &members {
        let mut by_root = std::collections::BTreeMap::<u32, Vec<u32>>::new();
        for &d in item_members.iter() {
            by_root.entry(roots[d as usize]).or_default().push(d);
        }
        parts.extend(by_root);
        first.push(parts.len());
    }
    let mut between = Vec::new();
    for g in 0..items.len() {
        if let Some(pair) = same(g) {
            for p in first[g]..first[g + 1] {
                for q in p + 1..first[g + 1] {
                    between.push(SimilarPair {
                        a: p as u32,
                        b: q as u32,
                        ..pair
                    });
                }
            }
        }
    }
    for pair in verified {
        for p in first[pair.a as usize]..first[pair.a as usize + 1] {
            for q in first[pair.b as usize]..first[pair.b as usize + 1] {
                if parts[p].0 != parts[q].0 {
                    between.push(SimilarPair {
                        a: p as u32,
                        b: q as u32,
                        ..pair
                    });
                }
            }
        }
    }
    // The parts of one content keep its class: byte-identical across roots.
    let class = (0..items.len()).flat_map(|g| (first[g]..first[g + 1]).map(move |_| g as u32));
    DocPairs::new_classed(
        parts.iter().zip(class).map(|((_, m), g)| (&m[..], None, g)),
        between,
    )
}

/// With `--isolate`, the root of every document (see [`walk::root_index`]).
fn isolated_roots(config: &ScanConfig, documents: &Docs) -> Option<Vec<u32>> {
    config.walk.isolate.then(|| {
        documents
            .paths()
            .map(|path| walk::root_index(&config.roots, &path))
            .collect()
    })
}

/// The one root all of `group`'s documents lie under, if there is one.
fn single_root(items: Items<'_>, group: &ContentGroup, roots: &[u32]) -> Option<u32> {
    let members = items.members(group);
    let first = roots[members[0] as usize];
    members
        .iter()
        .all(|&d| roots[d as usize] == first)
        .then_some(first)
}
