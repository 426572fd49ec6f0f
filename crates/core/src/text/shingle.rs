//! Shingling (MMDS 3.2): normalised text in, the set of hashed shingles out.
//!
//! Three kinds, all over the normalised text of [`crate::text::normalize`]:
//! - **char**: every window of `k` consecutive characters (Unicode scalar
//!   values, not bytes);
//! - **word**: every `k` consecutive words, where a word is a maximal run of
//!   [`char::is_alphanumeric`] characters, joined by one space;
//! - **stopword** (MMDS 3.2.4): a stop word followed by the next `k − 1` words
//!   (k = 3 gives "a stop word and the next two words"), whether or not those are
//!   stop words. Picks out the prose of an article and ignores the ads around it.
//! - **important**: every `k` consecutive words that are not stop words
//!   (k = 1 gives the lecture's "document = set of important words"; MMDS
//!   1.3.1: a document's topic is in its rarer words, and the first step to
//!   them is to drop the stop words).
//!
//! A shingle is hashed as the XXH3-64 of its UTF-8 bytes with seed
//! [`SHINGLE_HASH_SEED`] (0, the ground truth's definition). No string is
//! allocated per shingle: windows are hashed in place, and word shingles whose
//! words are not separated by exactly one space are assembled in a reused
//! buffer. A set is returned sorted and deduplicated; a text shorter than one
//! shingle gives the empty set.
//!
//! Char windows: real text is mostly ASCII even when it is not all ASCII, so
//! every window lying wholly inside an ASCII run of at least `k` bytes is
//! hashed by the constant-`k` loop of [`short_hash::for_each_window_dyn`] on
//! that run, and only the windows holding a non-ASCII character step through
//! the text character by character. The hashes come out exactly as (same
//! values, same order) a character-by-character walk over the whole text
//! would give them (`char_shingles_reference`, the tests' oracle).
//! Words likewise: ASCII bytes are classified 64 at a time into a bit mask
//! whose class changes are the word boundaries, and a character is decoded
//! only at a non-ASCII byte.

use std::sync::Arc;

use crate::text::short_hash;

mod stop_words;
use super::words::find_words;
pub use super::words::{SHINGLE_HASH_SEED, hash_shingle};
pub use stop_words::{ENGLISH_STOP_WORDS, StopWords};

/// What a shingle is. The default, for every face (command line, Python),
/// is `Char`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShingleKind {
    #[default]
    Char,
    Word,
    StopWord,
    /// Words that are not stop words, `k` at a time.
    Important,
}

impl ShingleKind {
    /// Every kind, in the order help and messages list them.
    pub const ALL: [ShingleKind; 4] = [
        ShingleKind::Char,
        ShingleKind::Word,
        ShingleKind::StopWord,
        ShingleKind::Important,
    ];

    /// The default `k` for each kind: 5 characters, 3 words, a stop word and
    /// the next two words.
    pub fn default_k(self) -> usize {
        match self {
            ShingleKind::Char => 5,
            ShingleKind::Word | ShingleKind::StopWord => 3,
            ShingleKind::Important => 1,
        }
    }

    /// The stop words of this kind when none are given: the built-in
    /// English list for the kinds that read stop words, none for the others.
    pub fn default_stop_words(self) -> StopWords {
        match self {
            ShingleKind::StopWord | ShingleKind::Important => StopWords::english(),
            ShingleKind::Char | ShingleKind::Word => StopWords::default(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ShingleKind::Char => "char",
            ShingleKind::Word => "word",
            ShingleKind::StopWord => "stopword",
            ShingleKind::Important => "important",
        }
    }
}

/// Turns normalised text into shingle hashes. Cheap to clone and share across
/// threads; per-thread buffers live in [`Scratch`].
#[derive(Clone, Debug)]
pub struct Shingler {
    kind: ShingleKind,
    k: usize,
    stop_words: StopWords,
    /// `--important-words`: only the selected words ([`Shingler::selecting`]).
    selection: Option<Arc<super::important::Selection>>,
}

/// Reusable per-thread buffers, so that shingling allocates nothing per shingle
/// and (after warm-up) nothing per document.
#[derive(Default)]
pub struct Scratch {
    words: Vec<(u32, u32)>,
    joined: Vec<u8>,
    lowered: String,
    important: super::important::Scratch,
}

/// A shingle length no shingler has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroShingleLength;

impl std::fmt::Display for ZeroShingleLength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("shingle length k must be at least 1")
    }
}

impl std::error::Error for ZeroShingleLength {}

impl Shingler {
    /// A shingler of `k`-shingles, or an error for `k = 0`: the constructor
    /// for a length that comes from outside.
    pub fn try_new(
        kind: ShingleKind,
        k: usize,
        stop_words: StopWords,
    ) -> Result<Self, ZeroShingleLength> {
        if k == 0 {
            return Err(ZeroShingleLength);
        }
        Ok(Shingler {
            kind,
            k,
            stop_words,
            selection: None,
        })
    }

    /// [`Shingler::try_new`] for a length known to be at least 1 (a
    /// constant, or one already checked).
    ///
    /// # Panics
    /// When `k` is 0.
    pub fn new(kind: ShingleKind, k: usize, stop_words: StopWords) -> Self {
        Shingler::try_new(kind, k, stop_words).expect("shingle length k must be at least 1")
    }

    /// This shingler (word, k = 1) keeping only each text's words that
    /// `selection` selects: the one place signing and reload both pass.
    pub fn selecting(self, selection: Arc<super::important::Selection>) -> Self {
        Shingler {
            selection: Some(selection),
            ..self
        }
    }

    pub fn kind(&self) -> ShingleKind {
        self.kind
    }

    pub fn k(&self) -> usize {
        self.k
    }

    /// The stop words of [`ShingleKind::StopWord`] and [`ShingleKind::Important`] shingles.
    pub fn stop_words(&self) -> &StopWords {
        &self.stop_words
    }

    /// Calls `emit` with the hash of every shingle occurrence, in text order
    /// (duplicates included).
    pub fn for_each_hash(&self, text: &str, scratch: &mut Scratch, mut emit: impl FnMut(u64)) {
        if let Some(selection) = &self.selection {
            return selection.for_each_hash(text, &mut scratch.important, emit);
        }
        match self.kind {
            ShingleKind::Char => char_shingles(text, self.k, &mut emit),
            ShingleKind::Word => word_shingles(text, self.k, None, scratch, &mut emit),
            ShingleKind::StopWord => {
                word_shingles(text, self.k, Some(&self.stop_words), scratch, &mut emit)
            }
            ShingleKind::Important => {
                find_words(text, &mut scratch.words);
                let Scratch { words, lowered, .. } = scratch;
                words.retain(|&(s, e)| {
                    !self
                        .stop_words
                        .contains_word(&text[s as usize..e as usize], lowered)
                });
                word_windows(text, self.k, None, scratch, &mut emit);
            }
        }
    }

    /// [`Shingler::for_each_hash`] a block at a time: `emit_block` gets
    /// consecutive slices of the hashes, in text order, for a consumer that
    /// is a batch kernel ([`crate::sketch::Sketch::add_batch`]). The windows of
    /// ASCII text and of the ASCII runs of mixed text come straight from the
    /// vector window hash ([`short_hash::for_each_window_block`]); the
    /// others are gathered into blocks.
    pub fn for_each_hash_block(
        &self,
        text: &str,
        scratch: &mut Scratch,
        emit_block: impl FnMut(&[u64]),
    ) {
        if self.kind == ShingleKind::Char && text.is_ascii() {
            short_hash::for_each_window_block_dyn(text.as_bytes(), self.k, emit_block);
            return;
        }
        let mut blocks = short_hash::Blocks::new(emit_block);
        if self.kind == ShingleKind::Char {
            char_shingles_into(text, self.k, &mut blocks);
        } else {
            self.for_each_hash(text, scratch, |h| blocks.push(h));
        }
        blocks.finish();
    }

    /// The shingle set of `text`: sorted, deduplicated hashes written to `out`
    /// (cleared first).
    pub fn shingle_set_into(&self, text: &str, scratch: &mut Scratch, out: &mut Vec<u64>) {
        out.clear();
        self.for_each_hash(text, scratch, |h| out.push(h));
        out.sort_unstable();
        out.dedup();
    }

    /// Convenience wrapper returning a fresh set.
    pub fn shingle_set(&self, text: &str) -> Vec<u64> {
        let mut out = Vec::new();
        self.shingle_set_into(text, &mut Scratch::default(), &mut out);
        out
    }
}

/// Where [`char_shingles_into`] sends the hashes: the windows of a whole
/// ASCII run at once (the vector window hash), the others one at a time.
trait CharSink {
    fn one(&mut self, h: u64);
    fn run(&mut self, bytes: &[u8], k: usize);
}

/// Every hash to one `emit` call.
struct Each<'a, F>(&'a mut F);

impl<F: FnMut(u64)> CharSink for Each<'_, F> {
    #[inline(always)]
    fn one(&mut self, h: u64) {
        (self.0)(h)
    }
    #[inline(always)]
    fn run(&mut self, bytes: &[u8], k: usize) {
        short_hash::for_each_window_dyn(bytes, k, &mut *self.0)
    }
}

/// Runs a block at a time, the rest gathered into blocks.
impl<F: FnMut(&[u64])> CharSink for short_hash::Blocks<F> {
    #[inline(always)]
    fn one(&mut self, h: u64) {
        self.push(h)
    }
    #[inline(always)]
    fn run(&mut self, bytes: &[u8], k: usize) {
        self.windows(bytes, k)
    }
}

fn char_shingles(text: &str, k: usize, emit: &mut impl FnMut(u64)) {
    char_shingles_into(text, k, &mut Each(emit))
}

fn char_shingles_into(text: &str, k: usize, sink: &mut impl CharSink) {
    let bytes = text.as_bytes();
    if text.is_ascii() {
        sink.run(bytes, k);
        return;
    }
    // Mostly-ASCII text: the windows that lie wholly inside an ASCII run of at
    // least k bytes go through the constant-k loop on that run; the rest (every
    // window holding a non-ASCII character) form the "gaps" between such runs.
    // The gap before a run starting at `run` ends k − 1 bytes into it (its last
    // window is the one ending there), and the gap after a run ending at `end`
    // starts k − 1 bytes before `end` (its first window is the one after the
    // run's last). Both cuts fall on ASCII bytes, hence on character starts, and
    // the windows come out in text order: gap, run, gap, run, …, gap.
    let len = bytes.len();
    let mut gap_start = 0;
    let mut run = 0;
    loop {
        let end = next_non_ascii(bytes, run);
        if end - run >= k {
            gap_windows(&bytes[gap_start..run + k - 1], k, &mut |h| sink.one(h));
            sink.run(&bytes[run..end], k);
            gap_start = end - (k - 1);
        }
        if end == len {
            break;
        }
        run = next_ascii(bytes, end);
    }
    gap_windows(&bytes[gap_start..], k, &mut |h| sink.one(h));
}

/// Every window of `k` characters of `bytes` (valid UTF-8, cut at character
/// starts), in order, each hashed through the length-dispatching hash: the
/// two ends of the window step one character at a time, by the length its
/// lead byte announces, so no table of character starts is built.
#[inline]
fn gap_windows(bytes: &[u8], k: usize, emit: &mut impl FnMut(u64)) {
    // A slice of fewer than k bytes has fewer than k characters (the common
    // case of an empty gap between two long runs is k − 1 ASCII bytes).
    if bytes.len() < k {
        return;
    }
    let mut end = 0;
    for _ in 0..k {
        if end == bytes.len() {
            return;
        }
        end += utf8_len(bytes[end]);
    }
    let mut start = 0;
    loop {
        emit(short_hash::xxh3_64(&bytes[start..end]));
        if end == bytes.len() {
            return;
        }
        start += utf8_len(bytes[start]);
        end += utf8_len(bytes[end]);
    }
}

/// Length of the UTF-8 character whose lead byte is `lead`: 1 for ASCII, else
/// the number of leading one bits (110xxxxx → 2, 1110xxxx → 3, 11110xxx → 4).
#[inline(always)]
fn utf8_len(lead: u8) -> usize {
    if lead < 0x80 {
        1
    } else {
        lead.leading_ones() as usize
    }
}

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Index of the first byte ≥ 0x80 at or after `from`, or `bytes.len()`.
/// Word at a time: the bulk of real text is long ASCII runs.
#[inline]
fn next_non_ascii(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    // 32 bytes per step through std's vectorised check, then 8 at a time to
    // find the byte.
    while let Some(chunk) = bytes.get(i..i + 32) {
        if !chunk.is_ascii() {
            break;
        }
        i += 32;
    }
    while let Some(word) = bytes.get(i..i + 8) {
        let high = u64::from_le_bytes(word.try_into().expect("8 bytes")) & HIGH_BITS;
        if high != 0 {
            return i + (high.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i] < 0x80 {
        i += 1;
    }
    i
}

/// Index of the first byte < 0x80 at or after `from`, or `bytes.len()`.
#[inline]
fn next_ascii(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(word) = bytes.get(i..i + 8) {
        let low = !u64::from_le_bytes(word.try_into().expect("8 bytes")) & HIGH_BITS;
        if low != 0 {
            return i + (low.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i] >= 0x80 {
        i += 1;
    }
    i
}

/// The char-shingle loop before the ASCII-run split of `char_shingles`: a
/// table of every character start, then every window through the
/// length-dispatching hash. Kept as the oracle the split must equal (hash for
/// hash, in order) in the tests, and as the `shingle_hash_reference` bench.
#[doc(hidden)]
pub fn char_shingles_reference(text: &str, k: usize, mut emit: impl FnMut(u64)) {
    let bytes = text.as_bytes();
    if text.is_ascii() {
        short_hash::for_each_window_dyn(bytes, k, emit);
        return;
    }
    let mut starts: Vec<u32> = bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| (b as i8) >= -0x40)
        .map(|(i, _)| i as u32)
        .collect();
    starts.push(bytes.len() as u32);
    if starts.len() - 1 < k {
        return;
    }
    for w in starts.windows(k + 1) {
        emit(short_hash::xxh3_64(&bytes[w[0] as usize..w[k] as usize]));
    }
}

fn word_shingles(
    text: &str,
    k: usize,
    stop_words: Option<&StopWords>,
    scratch: &mut Scratch,
    emit: &mut impl FnMut(u64),
) {
    find_words(text, &mut scratch.words);
    word_windows(text, k, stop_words, scratch, emit);
}

/// Whether lowercasing leaves `word` as it is. Not `!c.is_uppercase()` for
/// each character: a titlecase letter (`ǅ`) is not uppercase yet lowercases
/// to another (`ǆ`), which the `shingle` fuzz target found.
#[inline]
fn is_lowercase(word: &str) -> bool {
    if word.is_ascii() {
        !word.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        word.chars().all(|c| c.to_lowercase().eq([c]))
    }
}

/// The shingles of the words `find_words` left in `scratch.words`.
fn word_windows(
    text: &str,
    k: usize,
    stop_words: Option<&StopWords>,
    scratch: &mut Scratch,
    emit: &mut impl FnMut(u64),
) {
    let bytes = text.as_bytes();
    let Scratch {
        words,
        joined,
        lowered,
        ..
    } = scratch;
    if words.len() < k {
        return;
    }
    let word = |(s, e): (u32, u32)| &text[s as usize..e as usize];
    // Gap `g` lies between words `g` and `g + 1`; it is "single" when it is
    // exactly one space, so that a window spanning only single gaps is a slice
    // of the text. `next_split` is the first gap at or after the window's start
    // that is not single, looked for no further than the window's last gap: it
    // only moves forward, so deciding contiguity costs O(1) per window (amortised)
    // instead of O(k), and no gap is looked at that no window needs.
    let single = |g: usize| {
        let end = words[g].1 as usize;
        words[g + 1].0 as usize == end + 1 && bytes[end] == b' '
    };
    let last_gap = words.len() - 1;
    let mut next_split = 0;
    // The window whose shingle `joined` holds, and where it starts there.
    let mut held: Option<usize> = None;
    let mut joined_from = 0;
    for i in 0..=words.len() - k {
        if let Some(stop_words) = stop_words {
            let first = word(words[i]);
            let is_stop = if is_lowercase(first) {
                stop_words.contains(first)
            } else {
                // Only with --keep-case: compare the word lowercased as the
                // stop words were (`str::to_lowercase`, final sigma and all).
                lowered.clear();
                lowered.push_str(&first.to_lowercase());
                stop_words.contains(lowered)
            };
            if !is_stop {
                continue;
            }
        }
        let window = &words[i..i + k];
        // Common case: the words are separated by exactly one space in the
        // text, so the shingle "w1 w2 w3" is a slice of it.
        next_split = next_split.max(i);
        let window_end = last_gap.min(i + k - 1);
        while next_split < window_end && single(next_split) {
            next_split += 1;
        }
        let contiguous = next_split >= i + k - 1;
        if contiguous {
            emit(hash_shingle(
                &bytes[window[0].0 as usize..window[k - 1].1 as usize],
            ));
        } else {
            // `joined` holds "w1 w2 … wk" of the window that last needed it,
            // from `joined_from`. Sliding it to this window drops the words
            // that left at the front and appends the ones that entered at the
            // back, so each word is copied once rather than k times (with
            // large k nearly every window has some gap that is not one space).
            match held {
                Some(h) if i - h < k => {
                    for &(s, e) in &words[h..i] {
                        joined_from += (e - s) as usize + 1;
                    }
                    for &w in &words[h + k..i + k] {
                        joined.push(b' ');
                        joined.extend_from_slice(word(w).as_bytes());
                    }
                }
                _ => {
                    joined.clear();
                    joined_from = 0;
                    for (j, &w) in window.iter().enumerate() {
                        if j > 0 {
                            joined.push(b' ');
                        }
                        joined.extend_from_slice(word(w).as_bytes());
                    }
                }
            }
            held = Some(i);
            // Dropped bytes are reclaimed once they outweigh the window, which
            // keeps the buffer within twice the window and the copying
            // amortised O(1) per byte.
            if joined_from > joined.len() - joined_from {
                joined.drain(..joined_from);
                joined_from = 0;
            }
            emit(hash_shingle(&joined[joined_from..]));
        }
    }
}

#[cfg(test)]
mod tests;
