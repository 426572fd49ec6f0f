//! Signing one file: read it, check it is text, hash its bytes, claim its
//! content, then shingle and sign it (or keep its sorted set), whole or a chunk
//! at a time for a large file; and [`sign_all`], the staged path's parallel
//! signing of a list of files.
//!
//! Inputs: a walked file and the scan's [`ScanConfig`]. Outputs: a
//! [`SignOutcome`] and the signature written into the caller's row.
//! Invariants: the chunked paths sign and count exactly what the whole-file
//! paths do (proptests in `tests.rs`); a copy of a claimed content is only
//! hashed; bytes that changed while read are a [`SignOutcome::Failed`].

use std::sync::Mutex;

use rayon::prelude::*;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

use super::ScanConfig;
use super::contents::{Attempt, ContentTable, NO_CONTENT, SignOutcome, SignedContent};
use super::locks::{into_inner, lock};
use super::prefetch::{Prefetcher, ReadAhead};
use super::shingles::{
    Buffers, CLASSIC_BATCH, Chunks, filtered_windows_into, sorted_set_chunked, sorted_shingles_into,
};
use crate::input::read::ReadError;
use crate::input::walk::FileEntry;
use crate::memory;
use crate::progress::Reporter;
use crate::similarity::Part;
use crate::sketch::{SketchBuilder, Sketcher};
use crate::source::{Admit, FileSource, Source};
use crate::text::RepeatFilter;
use crate::text::chunked;
use crate::text::normalize_into;

/// What signing keeps of a content besides its hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keep {
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
    /// ([`super::pairs`]).
    Signature,
}

/// Reads, checks and signs one file (or the file's `prefetched` read, the
/// same [`FileSource`] open done ahead by an I/O thread). `claim(hash)` says
/// whether this file is the one to sign its content (true) or a copy of a
/// content signed elsewhere.
#[expect(
    clippy::too_many_arguments,
    reason = "each is a different borrow of the caller's state; a struct would only rename them"
)]
pub(super) fn sign_one<S: Sketcher>(
    file: &FileEntry,
    config: &ScanConfig,
    sketcher: &S,
    keep: Keep,
    claim: &(dyn Fn(u128) -> bool + Sync),
    buffers: &mut Buffers,
    row: &mut [u32],
    prefetched: ReadAhead,
) -> SignOutcome {
    let read = prefetched.unwrap_or_else(|| {
        FileSource::new(
            std::slice::from_ref(file),
            config.walk.follow_links,
            &config.read,
        )
        .open(0)
    });
    let contents = match read {
        Ok(contents) => contents,
        Err(err) => return SignOutcome::Failed(err),
    };
    match contents.admit(config.recipe.include_binary) {
        Admit::Text => {}
        Admit::Binary => return SignOutcome::Binary,
        Admit::NotExtracted(why) => return SignOutcome::NotExtracted(why),
        Admit::Changed(err) => return SignOutcome::Failed(err),
    }
    // A large file on the path that needs no whole set is read a chunk at a
    // time (twice: identity first, so that a copy is never signed), and what
    // is read is released at once: memory per file is a chunk, not the file.
    // Text extracted from a document format is in memory already.
    let chunked = keep != Keep::Set
        && !contents.is_extracted()
        && contents.len() as u64 >= config.read.chunked_min_size;
    let release = |offset| contents.release_before(offset);
    let hash = if chunked {
        let hash = hash_in_chunks(contents.raw(), config.read.chunk_size, &release);
        let between = crate::input::faults::Point::BetweenPasses;
        if let Err(err) = crate::input::faults::at(between, &file.path) {
            return SignOutcome::Failed(err.into());
        }
        hash
    } else {
        // The file's bytes, not its extracted text: a content is a file's
        // bytes, so copies are byte-identical.
        xxh3_128(contents.raw())
    };
    if !claim(hash) {
        return match contents.verify_unchanged() {
            Ok(()) => SignOutcome::SameAs(hash),
            Err(err) => SignOutcome::Failed(err),
        };
    }
    let shingles = match keep {
        Keep::Set => {
            sorted_shingles_into(&contents, &config.recipe, buffers);
            buffers.set.len()
        }
        Keep::CountedSignature if chunked => {
            // Signed as the uncounted path signs (the same signature), then
            // counted in passes over parts of the hash space, each holding
            // at most the part of the set that fits the budget.
            let (windows, read) =
                sign_windows_chunked(&contents, &release, config, sketcher, buffers, row);
            let count = (read == hash)
                .then(|| {
                    count_distinct_chunked(&contents, &release, config, windows, hash, buffers)
                })
                .flatten();
            match count {
                Some(count) => count,
                None => {
                    return SignOutcome::Failed(
                        contents
                            .verify_unchanged()
                            .err()
                            .unwrap_or(ReadError::Changed),
                    );
                }
            }
        }
        Keep::CountedSignature => {
            sorted_shingles_into(&contents, &config.recipe, buffers);
            if !buffers.set.is_empty() {
                sketcher.sign_into(&buffers.set, row);
            }
            buffers.set.len()
        }
        Keep::Signature if chunked => {
            let (windows, read) =
                sign_windows_chunked(&contents, &release, config, sketcher, buffers, row);
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
        Keep::Signature => sign_windows(&contents, config, sketcher, buffers, row),
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
            let mut set = Vec::new();
            let what = "the shingle sets of the exact method";
            memory::reserve(&mut set, buffers.set.len(), what, memory::Lower::Sets);
            set.extend_from_slice(&buffers.set);
            set
        } else {
            Vec::new()
        },
    })
}

/// Signs the shingle windows of `bytes` into `row` without building their
/// set ([`Keep::Signature`]); returns how many values were signed, an upper
/// bound on the distinct shingles (0 exactly when there are none; `row` is
/// then not a signature).
pub(super) fn sign_windows<S: Sketcher>(
    bytes: &[u8],
    config: &ScanConfig,
    sketcher: &S,
    buffers: &mut Buffers,
    row: &mut [u32],
) -> usize {
    if sketcher.takes_repeats() {
        // Every window to the builder, a block of window hashes at a time.
        let Buffers {
            text,
            scratch,
            batch_row,
            ..
        } = buffers;
        normalize_into(bytes, config.recipe.normalization, text);
        let mut windows = 0usize;
        let mut sketch = sketcher.builder(row, batch_row);
        config
            .recipe
            .shingler
            .for_each_hash_block(text, scratch, |block| {
                windows += block.len();
                sketch.add_batch(block);
            });
        sketch.finish();
        windows
    } else {
        // A costly value: drop most repeats first, at a fraction of an
        // exact set's cost.
        filtered_windows_into(bytes, &config.recipe, buffers);
        if !buffers.set.is_empty() {
            sketcher.sign_into(&buffers.set, row);
        }
        buffers.set.len()
    }
}

/// The exact number of distinct shingles of a large file whose signing pass
/// counted `bound` values (an upper bound), held a part of the set at a time:
/// `Part::count_for(2 × bound × 8, budget)` passes, each a chunked reload that
/// keeps only its part's values, the budget being `--verify-memory` shared by
/// the signing threads. None if the bytes read differ from `hash`'s.
fn count_distinct_chunked(
    bytes: &[u8],
    release: &dyn Fn(usize),
    config: &ScanConfig,
    bound: usize,
    hash: u128,
    buffers: &mut Buffers,
) -> Option<usize> {
    let budget = config.verify_memory / rayon::current_num_threads().max(1);
    // A merge holds the set and its next version: twice the set's bytes.
    let need = bound.saturating_mul(2 * std::mem::size_of::<u64>());
    let passes = Part::count_for(need, budget);
    let mut count = 0;
    for index in 0..passes {
        let part = Part {
            index,
            count: passes,
        };
        let read = sorted_set_chunked(
            bytes,
            release,
            &config.recipe,
            config.read.chunk_size,
            part,
            buffers,
        );
        count += buffers.set.len();
        if read != hash {
            return None;
        }
    }
    // The thread keeps no buffer the size of the largest file's set.
    buffers.set = Vec::new();
    Some(count)
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

/// [`sign_windows`] for a large file, holding one chunk of it at a time
/// (`config.read.chunk_size`, see [`crate::text::chunked`]): the same signature
/// in `row` and the same count. `release(offset)` is told when the bytes
/// before `offset` are no longer needed. Returns the count and the XXH3-128
/// of the bytes that were signed.
///
/// A sketcher that [takes repeats](Sketcher::takes_repeats) (OPH) gets every
/// window, as in [`sign_windows`]. Another (classic) gets what one
/// [`RepeatFilter`] lets through over the whole file, in batches its builder
/// merges (classic: a minimum per position, the minimum over the whole
/// stream), so the count is what passes, as on the whole-file path. That filter's table is sized by the length of the whole
/// normalised text, known only at the end; but beyond a few tens of KiB the
/// size is its maximum, so the first chunks' text is gathered until it gets
/// there (or the file ends, and the short text takes the whole-file path).
pub(super) fn sign_windows_chunked<S: Sketcher>(
    bytes: &[u8],
    release: &dyn Fn(usize),
    config: &ScanConfig,
    sketcher: &S,
    buffers: &mut Buffers,
    row: &mut [u32],
) -> (usize, u128) {
    let norm = config.recipe.normalization;
    let shingler = &config.recipe.shingler;
    let mut chunks = Chunks::new(bytes, config.read.chunk_size, shingler.kind(), release);
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
    let count = if sketcher.takes_repeats() {
        let mut count = 0usize;
        let mut sketch = sketcher.builder(row, batch_row);
        while chunks.next_into(norm, text) {
            windows.feed(text, chunks.glued, norm, shingler, scratch, |block| {
                count += block.len();
                sketch.add_batch(block);
            });
        }
        sketch.finish();
        count
    } else {
        let full = |len: usize| RepeatFilter::slots_for(len / 4) == RepeatFilter::MAX_SLOTS;
        pending.clear();
        let mut ended = false;
        while !full(pending.len()) {
            if !chunks.next_into(norm, text) {
                ended = true;
                break;
            }
            chunked::join_normalized(pending, text, chunks.glued, norm);
        }
        if ended {
            // Short once normalised (mostly whitespace): the whole text
            // is here, and takes the whole-file path.
            repeats.filter_into(pending.len() / 4, set, |passing| {
                shingler.for_each_hash_block(pending, scratch, |block| passing.offer_block(block))
            });
            if !set.is_empty() {
                sketcher.sign_into(set, row);
            }
            set.len()
        } else {
            let mut count = 0usize;
            let mut sketch = sketcher.builder(row, batch_row);
            let mut sign_batch = |values: &[u64]| {
                count += values.len();
                sketch.add_batch(values);
            };
            repeats.filter_into(pending.len() / 4, set, |passing| {
                // Draining after a block rather than after the value that
                // fills a batch: batches differ, their merge does not.
                let mut offer = |block: &[u64]| {
                    passing.offer_block(block);
                    if passing.passed() >= CLASSIC_BATCH {
                        passing.drain(&mut sign_batch);
                    }
                };
                windows.feed(pending, false, norm, shingler, scratch, &mut offer);
                while chunks.next_into(norm, text) {
                    windows.feed(text, chunks.glued, norm, shingler, scratch, &mut offer);
                }
                passing.drain(&mut sign_batch);
            });
            sketch.finish();
            count
        }
    };
    (count, chunks.digest.digest128())
}

/// Stage 2 of the staged path ([`super::sign_files`]): signs `files` in
/// parallel, identical contents once, then rescues the copies of a content
/// whose claimer failed.
/// Files read ahead at a time by [`sign_all`] under `--io-threads`: while one
/// slice is signed the next is read, so both stay busy; a few batches of the
/// streamed scan's size.
const READ_AHEAD_SLICE: usize = 256;

pub(super) fn sign_all<S: Sketcher + Sync>(
    files: &[FileEntry],
    config: &ScanConfig,
    sketcher: &S,
    keep_sets: bool,
    reporter: &dyn Reporter,
) -> (Vec<SignOutcome>, Vec<u32>) {
    // The first file to show a content claims it and signs it; every later
    // file with the same bytes only hashes them. So N copies cost one
    // signature, whatever the thread count.
    let contents: Mutex<ContentTable> = Mutex::default();
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
    let mut matrix = memory::filled(
        u32::MAX,
        files.len(),
        n,
        "the signature matrix",
        memory::Lower::Signatures,
    );
    let sign = |buffers: &mut Buffers, id: usize, row: &mut [u32], ahead: ReadAhead| {
        let claim = |hash| lock(&contents).claim(hash, id as u32).1;
        let outcome = sign_one(
            &files[id], config, sketcher, keep, &claim, buffers, row, ahead,
        );
        reporter.advance(1);
        outcome
    };
    let mut outcomes: Vec<SignOutcome> = Vec::with_capacity(files.len());
    match Prefetcher::new(&config.read, config.walk.follow_links) {
        None => matrix
            .par_chunks_mut(n)
            .enumerate()
            .map_init(Buffers::default, |buffers, (id, row)| {
                sign(buffers, id, row, None)
            })
            .collect_into_vec(&mut outcomes),
        // Slices of files: while one is signed, the I/O threads read the next.
        Some(prefetcher) => {
            let slices: Vec<std::ops::Range<usize>> = (0..files.len())
                .step_by(READ_AHEAD_SLICE)
                .map(|start| start..files.len().min(start + READ_AHEAD_SLICE))
                .collect();
            let mut ahead = slices
                .first()
                .map(|first| prefetcher.read(&files[first.clone()]))
                .unwrap_or_default();
            for (k, slice) in slices.iter().enumerate() {
                let rows = &mut matrix[slice.start * n..slice.end * n];
                let bytes: u64 = (files[slice.clone()].iter().zip(&ahead))
                    .filter(|(_, read)| read.is_some())
                    .map(|(file, _)| file.size)
                    .sum();
                let (next, signed): (Vec<ReadAhead>, Vec<SignOutcome>) = rayon::join(
                    || {
                        slices
                            .get(k + 1)
                            .map(|next| prefetcher.read(&files[next.clone()]))
                            .unwrap_or_default()
                    },
                    || {
                        rows.par_chunks_mut(n)
                            .zip(std::mem::take(&mut ahead).into_par_iter())
                            .enumerate()
                            .map_init(Buffers::default, |buffers, (i, (row, read))| {
                                sign(buffers, slice.start + i, row, read)
                            })
                            .collect()
                    },
                );
                prefetcher.release(bytes);
                outcomes.extend(signed);
                ahead = next;
            }
        }
    }

    let mut contents = into_inner(contents);
    contents.orphan_where(|loader| !matches!(outcomes[loader as usize], SignOutcome::Unique(_)));
    if contents.has_orphans() {
        let content_of: Vec<u32> = outcomes
            .iter()
            .map(|o| match o {
                SignOutcome::SameAs(hash) => contents.find(*hash).unwrap_or(NO_CONTENT),
                _ => NO_CONTENT,
            })
            .collect();
        let mut buffers = Buffers::default();
        let attempts = contents.rescue(&content_of, |id| {
            let row = &mut matrix[id * n..(id + 1) * n];
            sign_one(
                &files[id],
                config,
                sketcher,
                keep,
                &|_| true,
                &mut buffers,
                row,
                None,
            )
        });
        for Attempt { id, outcome, .. } in attempts {
            outcomes[id] = outcome;
        }
    }
    (outcomes, matrix)
}
