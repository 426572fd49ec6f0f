//! Shingling (MMDS 3.2): normalised text in, the set of hashed shingles out.
//!
//! Three kinds, all over the normalised text of [`crate::normalize`]:
//! - **char**: every window of `k` consecutive characters (Unicode scalar
//!   values, not bytes);
//! - **word**: every `k` consecutive words, where a word is a maximal run of
//!   [`char::is_alphanumeric`] characters, joined by one space;
//! - **stopword** (MMDS 3.2.4): a stop word followed by the next `k − 1` words
//!   (k = 3 gives "a stop word and the next two words"), whether or not those are
//!   stop words. Picks out the prose of an article and ignores the ads around it.
//!
//! A shingle is hashed as the XXH3-64 of its UTF-8 bytes with seed
//! [`SHINGLE_HASH_SEED`] (0, the ground truth's definition). No string is
//! allocated per shingle: windows are hashed in place, and word shingles whose
//! words are not separated by exactly one space are assembled in a reused
//! buffer. A set is returned sorted and deduplicated; a text shorter than one
//! shingle gives the empty set.

use std::collections::HashSet;
use std::sync::Arc;

use crate::short_hash;

/// Seed of the shingle hash. Fixed (not `--seed`): it defines the shingle set,
/// and must match the ground truth's definition for exact comparison.
pub const SHINGLE_HASH_SEED: u64 = 0;

/// Built-in English stop words (function words that carry no topic).
pub const ENGLISH_STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// What a shingle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShingleKind {
    Char,
    Word,
    StopWord,
}

impl ShingleKind {
    /// The default `k` for each kind: 5 characters, 3 words, a stop word and
    /// the next two words.
    pub fn default_k(self) -> usize {
        match self {
            ShingleKind::Char => 5,
            ShingleKind::Word | ShingleKind::StopWord => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ShingleKind::Char => "char",
            ShingleKind::Word => "word",
            ShingleKind::StopWord => "stopword",
        }
    }
}

/// A set of stop words, compared against lowercased words.
#[derive(Clone, Debug, Default)]
pub struct StopWords(Arc<HashSet<Box<str>>>);

impl StopWords {
    pub fn english() -> Self {
        Self::from_words(ENGLISH_STOP_WORDS.iter().copied())
    }

    /// Builds a list from words (lowercased, blank entries ignored).
    pub fn from_words<'a>(words: impl IntoIterator<Item = &'a str>) -> Self {
        StopWords(Arc::new(
            words
                .into_iter()
                .map(|w| w.trim().to_lowercase().into_boxed_str())
                .filter(|w| !w.is_empty())
                .collect(),
        ))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The words, sorted (a canonical form, e.g. for storing in an index).
    pub fn sorted(&self) -> Vec<&str> {
        let mut words: Vec<&str> = self.0.iter().map(|w| &**w).collect();
        words.sort_unstable();
        words
    }

    fn contains(&self, word: &str) -> bool {
        self.0.contains(word)
    }
}

/// Turns normalised text into shingle hashes. Cheap to clone and share across
/// threads; per-thread buffers live in [`Scratch`].
#[derive(Clone, Debug)]
pub struct Shingler {
    kind: ShingleKind,
    k: usize,
    stop_words: StopWords,
}

/// Reusable per-thread buffers, so that shingling allocates nothing per shingle
/// and (after warm-up) nothing per document.
#[derive(Default)]
pub struct Scratch {
    char_starts: Vec<u32>,
    words: Vec<(u32, u32)>,
    joined: Vec<u8>,
    lowered: String,
}

impl Shingler {
    /// `k` must be at least 1 (checked by the caller's argument validation;
    /// here it is an invariant).
    pub fn new(kind: ShingleKind, k: usize, stop_words: StopWords) -> Self {
        assert!(k >= 1, "shingle length k must be at least 1");
        Shingler {
            kind,
            k,
            stop_words,
        }
    }

    pub fn kind(&self) -> ShingleKind {
        self.kind
    }

    pub fn k(&self) -> usize {
        self.k
    }

    /// The stop words of [`ShingleKind::StopWord`] shingles.
    pub fn stop_words(&self) -> &StopWords {
        &self.stop_words
    }

    /// Calls `emit` with the hash of every shingle occurrence, in text order
    /// (duplicates included).
    pub fn for_each_hash(&self, text: &str, scratch: &mut Scratch, mut emit: impl FnMut(u64)) {
        match self.kind {
            ShingleKind::Char => char_shingles(text, self.k, scratch, &mut emit),
            ShingleKind::Word => word_shingles(text, self.k, None, scratch, &mut emit),
            ShingleKind::StopWord => {
                word_shingles(text, self.k, Some(&self.stop_words), scratch, &mut emit)
            }
        }
    }

    /// [`Shingler::for_each_hash`] a block at a time: `emit_block` gets
    /// consecutive slices of the hashes, in text order, for a consumer that
    /// is a batch kernel ([`crate::oph::Sketch::add_batch`]). ASCII char
    /// shingles come straight from the vector window hash
    /// ([`short_hash::for_each_window_block`]); other kinds are gathered.
    pub fn for_each_hash_block(
        &self,
        text: &str,
        scratch: &mut Scratch,
        emit_block: impl FnMut(&[u64]),
    ) {
        if self.kind == ShingleKind::Char && text.is_ascii() {
            short_hash::for_each_window_block_dyn(text.as_bytes(), self.k, emit_block);
        } else {
            let mut blocks = short_hash::Blocks::new(emit_block);
            self.for_each_hash(text, scratch, |h| blocks.push(h));
            blocks.finish();
        }
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

/// Hash of one shingle's bytes: the single definition every kind goes through.
/// Shingles of up to 16 bytes (char shingles, most word shingles) take the
/// inlined short-input paths of [`crate::short_hash`], which equal the crate's.
#[inline]
pub fn hash_shingle(bytes: &[u8]) -> u64 {
    const {
        assert!(
            SHINGLE_HASH_SEED == 0,
            "short_hash is specialised for seed 0"
        )
    };
    short_hash::xxh3_64(bytes)
}

fn char_shingles(text: &str, k: usize, scratch: &mut Scratch, emit: &mut impl FnMut(u64)) {
    let bytes = text.as_bytes();
    if text.is_ascii() {
        short_hash::for_each_window_dyn(bytes, k, emit);
        return;
    }
    // Byte offsets of every character start plus the end, so window i is
    // bytes[starts[i]..starts[i + k]]. A character starts at every byte that
    // is not a continuation byte (10xxxxxx): a plain byte scan, cheaper than
    // decoding every character.
    let starts = &mut scratch.char_starts;
    starts.clear();
    starts.extend(
        bytes
            .iter()
            .enumerate()
            .filter(|&(_, &b)| (b as i8) >= -0x40)
            .map(|(i, _)| i as u32),
    );
    starts.push(bytes.len() as u32);
    let chars = starts.len() - 1;
    if chars < k {
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
    let bytes = text.as_bytes();
    let Scratch {
        words,
        joined,
        lowered,
        ..
    } = scratch;
    words.clear();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s as u32, i as u32));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((s as u32, bytes.len() as u32));
    }
    if words.len() < k {
        return;
    }
    let word = |(s, e): (u32, u32)| &text[s as usize..e as usize];
    for i in 0..=words.len() - k {
        if let Some(stop_words) = stop_words {
            let first = word(words[i]);
            let is_stop = if first.chars().all(|c| !c.is_uppercase()) {
                stop_words.contains(first)
            } else {
                // Only with --keep-case: compare the lowercased word.
                lowered.clear();
                lowered.extend(first.chars().flat_map(char::to_lowercase));
                stop_words.contains(lowered)
            };
            if !is_stop {
                continue;
            }
        }
        let window = &words[i..i + k];
        // Common case: the words are separated by exactly one space in the
        // text, so the shingle "w1 w2 w3" is a slice of it.
        let contiguous = window
            .windows(2)
            .all(|p| p[1].0 == p[0].1 + 1 && bytes[p[0].1 as usize] == b' ');
        if contiguous {
            emit(hash_shingle(
                &bytes[window[0].0 as usize..window[k - 1].1 as usize],
            ));
        } else {
            joined.clear();
            for (j, &w) in window.iter().enumerate() {
                if j > 0 {
                    joined.push(b' ');
                }
                joined.extend_from_slice(word(w).as_bytes());
            }
            emit(hash_shingle(joined));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes_of(strings: &[&str]) -> Vec<u64> {
        let mut v: Vec<u64> = strings.iter().map(|s| hash_shingle(s.as_bytes())).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn mmds_two_shingles_of_abcdabd() {
        // MMDS Example 3.3: {ab, bc, cd, da, bd}; "ab" occurs twice but once in the set.
        let s = Shingler::new(ShingleKind::Char, 2, StopWords::default());
        assert_eq!(
            s.shingle_set("abcdabd"),
            hashes_of(&["ab", "bc", "cd", "da", "bd"])
        );
    }

    #[test]
    fn char_shingles_count_characters_not_bytes() {
        let s = Shingler::new(ShingleKind::Char, 2, StopWords::default());
        assert_eq!(s.shingle_set("äöü"), hashes_of(&["äö", "öü"]));
    }

    #[test]
    fn text_shorter_than_one_shingle_has_empty_set() {
        let c = Shingler::new(ShingleKind::Char, 5, StopWords::default());
        assert!(c.shingle_set("abcd").is_empty());
        assert!(c.shingle_set("äöüß").is_empty());
        assert_eq!(c.shingle_set("abcde").len(), 1);
        let w = Shingler::new(ShingleKind::Word, 3, StopWords::default());
        assert!(w.shingle_set("two words").is_empty());
    }

    #[test]
    fn word_shingles_split_on_non_alphanumerics_and_join_with_one_space() {
        let w = Shingler::new(ShingleKind::Word, 3, StopWords::default());
        // '_' and '-' split words; the shingle is joined by one space.
        assert_eq!(
            w.shingle_set("snake_case-word, and more"),
            hashes_of(&["snake case word", "case word and", "word and more"])
        );
    }

    #[test]
    fn contiguous_and_assembled_word_shingles_hash_alike() {
        let w = Shingler::new(ShingleKind::Word, 2, StopWords::default());
        assert_eq!(w.shingle_set("alpha beta"), w.shingle_set("alpha -- beta"));
    }

    #[test]
    fn stop_word_shingles_follow_mmds_3_2_4() {
        // MMDS: "A spokesperson for the Sudzo Corporation revealed today that
        // studies have shown it is good for people to buy Sudzo products."
        let s = Shingler::new(ShingleKind::StopWord, 3, StopWords::english());
        let text = "a spokesperson for the sudzo corporation revealed today that studies \
                    have shown it is good for people to buy sudzo products.";
        let expected = hashes_of(&[
            "a spokesperson for",
            "for the sudzo",
            "the sudzo corporation",
            "that studies have",
            "have shown it",
            "it is good",
            "is good for",
            "for people to",
            "to buy sudzo",
        ]);
        assert_eq!(s.shingle_set(text), expected);
    }

    #[test]
    fn stop_words_match_case_insensitively() {
        let s = Shingler::new(ShingleKind::StopWord, 2, StopWords::from_words(["The"]));
        assert_eq!(s.shingle_set("The cat"), hashes_of(&["The cat"]));
    }

    #[test]
    fn unicode_words() {
        let w = Shingler::new(ShingleKind::Word, 1, StopWords::default());
        assert_eq!(w.shingle_set("naïve café"), hashes_of(&["naïve", "café"]));
    }
}
