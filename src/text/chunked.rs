//! A large document normalised and shingled chunk by chunk, so that signing
//! it holds a few MiB whatever the file's size: file contents are never all
//! in memory (docs/PERFORMANCE.md, "Large files in bounded memory").
//!
//! Role: the pure half of the pipeline's large-file path
//! ([`crate::pipeline`] reads the file, releases what it has read, and feeds
//! the signing kernels). Inputs: a document's bytes, cut by [`chunk_end`];
//! each chunk's [`normalize`](crate::text::normalize) output fed in order to
//! [`Windows::feed`]. Output: the shingle hashes of the whole document,
//! exactly the occurrences [`Shingler::for_each_hash`] gives on the
//! normalised text of the whole file, each once, in the same order. MMDS
//! 3.2 (shingling) is unchanged; only where the text is held changes.
//!
//! Why it is exact (each point is checked by the tests, on arbitrary bytes):
//!
//! 1. **Cut** just before an ASCII whitespace byte (space, `\t`, `\n`,
//!    `\x0B`, `\x0C`, `\r`). No UTF-8 sequence contains an ASCII byte, so no
//!    character is split, and an invalid sequence ends at an ASCII byte in
//!    the whole file as at the end of a chunk: lossy decoding is the same.
//!    [`str::to_lowercase`]'s one context rule (final sigma) looks across
//!    case-ignorable characters only, and whitespace is not one: the chunk
//!    edge looks to it like the whitespace that is there.
//! 2. **Join**: so the whole normalised text is the chunks' normalised texts
//!    joined by [`join_normalized`]: concatenated, or when whitespace is
//!    collapsed, the non-empty ones joined by one space (the whitespace run
//!    at the cut, which collapsing turns into exactly that space).
//! 3. **Carry**: a window that crosses a cut starts in the text before it.
//!    [`Windows`] keeps the shortest tail of the text so far that holds the
//!    start of every window not yet complete: its last `k − 1` characters
//!    (char shingles), or its last `k − 1` words (word and stop-word
//!    shingles, whose hashes depend on the words alone, so the words are kept
//!    joined by one space, whatever long punctuation lay between them). The
//!    windows of `tail + joined chunk` are then the windows that end in the
//!    chunk, and no window fits in the tail alone: every window once.
//!
//! Memory: a chunk is at most its size, unless no ASCII whitespace byte
//! comes within it, then up to the next one (the whole file, at worst: a
//! multi-MiB run without whitespace is not text). The tail is `k − 1`
//! characters or words.

use crate::text::normalize::Normalization;
use crate::text::shingle::{Scratch, ShingleKind, Shingler, StopWords};

/// Whether a chunk may end just before `b`: the six ASCII bytes of
/// [`char::is_whitespace`] (`u8::is_ascii_whitespace` misses `\x0B`).
#[inline]
pub fn is_cut_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// The end (exclusive) of the chunk of `bytes` that starts at `start`
/// (`< bytes.len()`): the last cut byte ([`is_cut_byte`]) after `start` and
/// at most `size` bytes past it, else the first one further on, else the end
/// of `bytes`. Every chunk but the first starts with a cut byte; none is
/// empty.
pub fn chunk_end(bytes: &[u8], start: usize, size: usize) -> usize {
    debug_assert!(start < bytes.len());
    let size = size.max(1);
    let len = bytes.len();
    if len - start <= size {
        return len;
    }
    let limit = start + size;
    if let Some(p) = bytes[start + 1..=limit]
        .iter()
        .rposition(|&b| is_cut_byte(b))
    {
        return start + 1 + p;
    }
    match bytes[limit + 1..].iter().position(|&b| is_cut_byte(b)) {
        Some(p) => limit + 1 + p,
        None => len,
    }
}

/// Appends `next`, the normalised text of bytes that followed those of
/// `text` at a cut ([`chunk_end`]), so that `text` becomes the normalised
/// text of both together: when collapsing, the two are joined by one space
/// unless either is empty; otherwise concatenated.
pub fn join_normalized(text: &mut String, next: &str, norm: Normalization) {
    if norm.collapse_whitespace && !text.is_empty() && !next.is_empty() {
        text.push(' ');
    }
    text.push_str(next);
}

/// The shingle windows of a document fed as consecutive normalised chunks,
/// carrying the tail that windows across a cut need. Reusable: [`clear`]
/// between documents (it keeps its buffers).
///
/// [`clear`]: Windows::clear
#[derive(Default, Debug)]
pub struct Windows {
    /// The part of the text so far that unfinished windows start in (see
    /// the module docs).
    tail: String,
    /// `tail`, the join, and the latest chunk: the text that is shingled.
    piece: String,
    /// Some non-empty text was fed (the next one is joined to it).
    started: bool,
    /// Word ranges of the piece's last words, scratch for the tail.
    words: Vec<(usize, usize)>,
    /// Scratch for lowercasing a word to compare with the stop words.
    lowered: String,
}

impl Windows {
    /// Forgets the document fed so far.
    pub fn clear(&mut self) {
        self.tail.clear();
        self.piece.clear();
        self.started = false;
    }

    /// Feeds `next`, the normalised text of the next chunk ([`chunk_end`]),
    /// and calls `emit_block` with the hashes of every window that ends in
    /// it, in text order, a block at a time
    /// ([`Shingler::for_each_hash_block`]). Over all chunks of a document,
    /// the blocks hold what [`Shingler::for_each_hash`] emits on the whole
    /// normalised text.
    pub fn feed(
        &mut self,
        next: &str,
        norm: Normalization,
        shingler: &Shingler,
        scratch: &mut Scratch,
        emit_block: impl FnMut(&[u64]),
    ) {
        if next.is_empty() {
            // Only when collapsing (nothing else normalises bytes to
            // nothing): the chunk was whitespace, and joins nothing.
            return;
        }
        self.piece.clear();
        self.piece.push_str(&self.tail);
        if self.started && norm.collapse_whitespace {
            // The space the whole text has at the cut: a character of its
            // own in char windows (k = 1 too), a word break in the others.
            self.piece.push(' ');
        }
        self.piece.push_str(next);
        self.started = true;
        shingler.for_each_hash_block(&self.piece, scratch, emit_block);
        let keep = shingler.k() - 1;
        self.tail.clear();
        match shingler.kind() {
            ShingleKind::Char => {
                let start = match keep {
                    0 => self.piece.len(),
                    _ => self
                        .piece
                        .char_indices()
                        .rev()
                        .nth(keep - 1)
                        .map_or(0, |(i, _)| i),
                };
                self.tail.push_str(&self.piece[start..]);
            }
            ShingleKind::Word | ShingleKind::StopWord | ShingleKind::Important => {
                // Important words: the tail holds the last k − 1 words that
                // are not stop words (the windows skip the others).
                let skip =
                    (shingler.kind() == ShingleKind::Important).then(|| shingler.stop_words());
                last_words(&self.piece, keep, skip, &mut self.words, &mut self.lowered);
                for (j, &(s, e)) in self.words.iter().rev().enumerate() {
                    if j > 0 {
                        self.tail.push(' ');
                    }
                    self.tail.push_str(&self.piece[s..e]);
                }
            }
        }
    }
}

/// The byte ranges of the last `count` words of `text` (maximal runs of
/// [`char::is_alphanumeric`], as [`crate::text::shingle`] defines words), last
/// first; fewer if `text` has fewer.
fn last_words(
    text: &str,
    count: usize,
    skip: Option<&StopWords>,
    out: &mut Vec<(usize, usize)>,
    lowered: &mut String,
) {
    out.clear();
    if count == 0 {
        return;
    }
    let mut keep = |s: usize, e: usize, out: &mut Vec<(usize, usize)>| {
        if skip.is_none_or(|stop| !stop.contains_word(&text[s..e], lowered)) {
            out.push((s, e));
        }
        out.len() == count
    };
    let mut end: Option<usize> = None;
    for (i, c) in text.char_indices().rev() {
        match (c.is_alphanumeric(), end) {
            (true, None) => end = Some(i + c.len_utf8()),
            (false, Some(e)) => {
                end = None;
                if keep(i + c.len_utf8(), e, out) {
                    return;
                }
            }
            _ => {}
        }
    }
    if let Some(e) = end {
        keep(0, e, out);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::text::normalize::normalize;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    const NORMS: [Normalization; 4] = Normalization::ALL;

    fn shingler(kind: usize, k: usize) -> Shingler {
        let kind = [
            ShingleKind::Char,
            ShingleKind::Word,
            ShingleKind::StopWord,
            ShingleKind::Important,
        ][kind];
        Shingler::new(
            kind,
            k,
            StopWords::from_words(["a", "the", "σοφία", "Σ", "ab"]),
        )
    }

    /// The chunks of `bytes` as [`chunk_end`] cuts them.
    fn chunks(bytes: &[u8], size: usize) -> Vec<&[u8]> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < bytes.len() {
            let end = chunk_end(bytes, start, size);
            assert!(end > start && end <= bytes.len());
            out.push(&bytes[start..end]);
            start = end;
        }
        out
    }

    /// Text built from up to 60 [`FRAGMENTS`].
    pub(crate) fn texts() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..60)
            .prop_map(|parts| parts.concat())
    }

    /// Pieces that stress every claim of the module docs: every ASCII
    /// whitespace byte (in runs, so that they fall on chunk edges), Unicode
    /// whitespace, Σ/σ/ς and case-ignorable marks, a character that
    /// lowercases to two, invalid and truncated UTF-8, stop words,
    /// punctuation.
    pub(crate) const FRAGMENTS: &[&[u8]] = &[
        b" ",
        b"\t",
        b"\n",
        b"\x0B",
        b"\x0C",
        b"\r",
        b"  \r\n ",
        "\u{a0}".as_bytes(),
        "\u{2003}".as_bytes(),
        "\u{85}".as_bytes(),
        "\u{3a3}".as_bytes(),
        "\u{3c3}".as_bytes(),
        "\u{3c2}".as_bytes(),
        "O\u{3a3}".as_bytes(),
        "\u{391}\u{3a3}'".as_bytes(),
        "\u{301}".as_bytes(),
        "\u{130}".as_bytes(),
        "é".as_bytes(),
        b"\xff",
        b"\xc3",
        b"\xe2\x82",
        b"\xf0\x9f\x98",
        b"A",
        b"b",
        b"Word",
        b"the",
        b"a",
        b"ab",
        b"x_y-z",
        b"--",
        b".",
        b"\x00",
        b"9",
    ];

    fn config() -> Config {
        Config {
            cases: 2000,
            rng_seed: RngSeed::Fixed(0xB16F_11E5),
            failure_persistence: None,
            ..Config::default()
        }
    }

    proptest! {
        #![proptest_config(config())]

        /// Claims 1 and 2: normalising chunk by chunk and joining gives the
        /// whole text's normalisation.
        #[test]
        fn joined_chunks_normalise_as_the_whole(
            bytes in texts(), size in 1usize..64, norm in 0usize..4,
        ) {
            let norm = NORMS[norm];
            let mut joined = String::new();
            for chunk in chunks(&bytes, size) {
                join_normalized(&mut joined, &normalize(chunk, norm), norm);
            }
            prop_assert_eq!(joined, normalize(&bytes, norm));
        }

        /// Claim 3: the windows fed chunk by chunk are the whole text's, in
        /// order, each once.
        #[test]
        fn fed_windows_are_the_whole_texts(
            bytes in texts(), size in 1usize..64, norm in 0usize..4,
            kind in 0usize..4, k in 1usize..=9,
        ) {
            let norm = NORMS[norm];
            let shingler = shingler(kind, k);
            let mut scratch = Scratch::default();
            let mut whole = Vec::new();
            shingler.for_each_hash(&normalize(&bytes, norm), &mut scratch, |h| whole.push(h));
            let mut windows = Windows::default();
            // Something left over from another document must not leak in.
            windows.feed("leftover words here", norm, &shingler, &mut scratch, |_| {});
            windows.clear();
            let mut fed = Vec::new();
            for chunk in chunks(&bytes, size) {
                windows.feed(&normalize(chunk, norm), norm, &shingler, &mut scratch, |b| fed.extend_from_slice(b));
            }
            prop_assert_eq!(fed, whole);
        }
    }

    proptest! {
        #![proptest_config(config())]

        /// Claims 1–3 with `--drop-whitespace` (character shingles only, as
        /// the command line allows): chunks join by concatenation.
        #[test]
        fn dropped_whitespace_chunks_are_the_whole_text(
            bytes in texts(), size in 1usize..64, lowercase: bool, k in 1usize..=9,
        ) {
            let norm = Normalization { lowercase, collapse_whitespace: false, drop_whitespace: true };
            let shingler = shingler(0, k);
            let mut scratch = Scratch::default();
            let whole_text = normalize(&bytes, norm);
            let mut whole = Vec::new();
            shingler.for_each_hash(&whole_text, &mut scratch, |h| whole.push(h));
            let (mut joined, mut fed) = (String::new(), Vec::new());
            let mut windows = Windows::default();
            for chunk in chunks(&bytes, size) {
                let text = normalize(chunk, norm);
                join_normalized(&mut joined, &text, norm);
                windows.feed(&text, norm, &shingler, &mut scratch, |b| fed.extend_from_slice(b));
            }
            prop_assert_eq!(joined, whole_text);
            prop_assert_eq!(fed, whole);
        }
    }

    #[test]
    fn a_chunk_ends_before_the_last_whitespace_within_its_size() {
        let bytes = b"abc def\tghi\njkl";
        assert_eq!(chunk_end(bytes, 0, 9), 7);
        assert_eq!(chunk_end(bytes, 7, 4), 11);
        assert_eq!(chunk_end(bytes, 11, 4), 15, "the rest fits");
        // A cut at the chunk's first byte would make it empty: the next one.
        assert_eq!(chunk_end(b" abcdef ghi", 0, 3), 7);
    }

    #[test]
    fn a_chunk_without_whitespace_grows_to_the_next_or_to_the_end() {
        let bytes = b"abcdefghij klm";
        assert_eq!(chunk_end(bytes, 0, 3), 10);
        assert_eq!(chunk_end(b"abcdefghij", 0, 3), 10);
        // Non-ASCII bytes never cut, even a Unicode space's.
        let nbsp = "aa\u{a0}bb\u{2003}cc dd".as_bytes();
        assert_eq!(chunk_end(nbsp, 0, 4), nbsp.len() - 3);
    }

    #[test]
    fn every_ascii_whitespace_byte_cuts_and_nothing_else_does() {
        for b in 0..=255u8 {
            assert_eq!(
                is_cut_byte(b),
                b.is_ascii() && (b as char).is_whitespace(),
                "{b:#x}"
            );
        }
    }

    #[test]
    fn word_tail_skips_long_punctuation() {
        let shingler = shingler(1, 3);
        let mut windows = Windows::default();
        let mut scratch = Scratch::default();
        let norm = Normalization::default();
        let long = format!("one two {}", "= ".repeat(10_000));
        windows.feed(long.trim_end(), norm, &shingler, &mut scratch, |_| {});
        assert_eq!(windows.tail, "one two");
        let mut got = Vec::new();
        windows.feed("three", norm, &shingler, &mut scratch, |b| {
            got.extend_from_slice(b)
        });
        assert_eq!(got, shingler.shingle_set("one two three"));
    }
}
