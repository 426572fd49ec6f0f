//! A file's shingle hashes as both signing ([`super::sign`]) and exact
//! verification's reload ([`super::reload`]) make them: the per-thread
//! buffers, a large file's chunks, and the filtered or sorted shingle sets.

use xxhash_rust::xxh3::Xxh3;

use crate::recipe::Recipe;
use crate::similarity::Part;
use crate::similarity::merge_sorted;
use crate::text::chunked;
use crate::text::{HashSorter, Passing, RepeatFilter};
use crate::text::{Normalization, normalize_into};
use crate::text::{Scratch, ShingleKind};

/// Per-thread buffers reused from one file to the next.
#[derive(Default)]
pub(super) struct Buffers {
    pub(super) text: String,
    pub(super) scratch: Scratch,
    pub(super) set: Vec<u64>,
    pub(super) repeats: RepeatFilter,
    pub(super) sorter: HashSorter,
    /// The large-file path's ([`sign_windows_chunked`]): the carried tail,
    /// the first chunks' text while the filter's size is not known yet, and
    /// one batch's signature.
    pub(super) windows: chunked::Windows,
    pub(super) pending: String,
    pub(super) batch_row: Vec<u32>,
    /// A large file's reload ([`sorted_set_chunked`]): what the repeat
    /// filter passes, the batch it gathers into, and the merge's output.
    pub(super) passed: Vec<u64>,
    pub(super) batch: Vec<u64>,
    pub(super) merged: Vec<u64>,
}

/// Values a classic batch may gather before it is signed
/// ([`sign_windows_chunked`]): 2 MiB of hashes.
pub(super) const CLASSIC_BATCH: usize = 1 << 18;

/// The chunks of a large file as [`chunked::chunk_end`] cuts them, each
/// normalised, hashed on the way (to check that the bytes signed are the
/// bytes claimed) and released once normalised.
pub(super) struct Chunks<'a> {
    bytes: &'a [u8],
    start: usize,
    size: usize,
    kind: ShingleKind,
    /// The chunk last normalised is glued to the one before
    /// ([`chunked::is_glued`]): what [`chunked::Windows::feed`] needs.
    pub(super) glued: bool,
    pub(super) digest: Xxh3,
    release: &'a dyn Fn(usize),
}

impl<'a> Chunks<'a> {
    pub(super) fn new(
        bytes: &'a [u8],
        size: usize,
        kind: ShingleKind,
        release: &'a dyn Fn(usize),
    ) -> Self {
        Chunks {
            bytes,
            start: 0,
            size,
            kind,
            glued: false,
            digest: Xxh3::new(),
            release,
        }
    }

    /// Normalises the next chunk into `text`; false after the last.
    pub(super) fn next_into(&mut self, norm: Normalization, text: &mut String) -> bool {
        if self.start >= self.bytes.len() {
            return false;
        }
        let end = chunked::chunk_end(self.bytes, self.start, self.size, self.kind);
        self.glued = chunked::is_glued(self.bytes, self.start);
        let part = &self.bytes[self.start..end];
        self.digest.update(part);
        normalize_into(part, norm, text);
        (self.release)(end);
        self.start = end;
        true
    }
}

/// The shingle hashes of `bytes` in `buffers.set`, unordered, with most
/// repeats dropped by a [`RepeatFilter`] and every distinct value kept.
/// Returns the number of windows offered (every shingle, repeats included:
/// what [`super::sign::sign_windows`] counts for a sketcher that takes
/// repeats).
pub(super) fn filtered_windows_into(bytes: &[u8], recipe: &Recipe, buffers: &mut Buffers) -> usize {
    let Buffers {
        text,
        scratch,
        set,
        repeats,
        ..
    } = buffers;
    normalize_into(bytes, recipe.normalization, text);
    let mut windows = 0;
    repeats.filter_into(text.len() / 4, set, |passing| {
        recipe.shingler.for_each_hash_block(text, scratch, |block| {
            windows += block.len();
            passing.offer_block(block);
        })
    });
    windows
}

/// The sorted shingle set of `bytes` in `buffers.set`. A sort needs no exact
/// dedup beforehand: a [`RepeatFilter`] first drops most repeats (natural text
/// repeats most of its 5-character windows, so sorting every occurrence would
/// be ~3× the work), and the few left go with the sort's neighbours. That is
/// cheaper than a [`crate::text::DistinctSet`], whose insert costs more
/// per window than the filter and the extra sorted values together (it is
/// kept as the benches' baseline).
pub(super) fn sorted_shingles_into(bytes: &[u8], recipe: &Recipe, buffers: &mut Buffers) {
    filtered_windows_into(bytes, recipe, buffers);
    buffers.sorter.sort(&mut buffers.set);
    buffers.set.dedup();
}

/// [`sorted_shingles_into`] for a large file, a chunk at a time: the same
/// sorted set in `buffers.set` (only its values in `part`); returns the
/// XXH3-128 of the bytes it read.
/// Beside the set it holds a chunk of text and a batch of what the repeat
/// filter passed, at most as large as the set (or [`CLASSIC_BATCH`]), which
/// is sorted and merged into the set when full: every value is sorted once,
/// in a batch, and each merge costs at most twice the batch, so the work is
/// what one sort of everything costs, but not the memory.
pub(super) fn sorted_set_chunked(
    bytes: &[u8],
    release: &dyn Fn(usize),
    recipe: &Recipe,
    chunk_size: usize,
    part: Part,
    buffers: &mut Buffers,
) -> u128 {
    let norm = recipe.normalization;
    let shingler = &recipe.shingler;
    let mut chunks = Chunks::new(bytes, chunk_size, shingler.kind(), release);
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
    // Windows of one block that are in `part` (a block at a time, before the
    // repeat filter: the other parts' values cost nothing more).
    let mut kept: Vec<u64> = Vec::new();
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
            windows.feed(text, chunks.glued, norm, shingler, scratch, |block| {
                if part == Part::WHOLE {
                    passing.offer_block(block);
                } else {
                    kept.clear();
                    kept.extend(block.iter().copied().filter(|&h| part.contains(h)));
                    passing.offer_block(&kept);
                }
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
