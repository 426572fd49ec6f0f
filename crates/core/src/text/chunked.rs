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
//! 4. **Glued cuts**: where no ASCII whitespace byte comes within a chunk's
//!    size (base64, DNA, minified files), the chunk is cut between two
//!    *tight* characters instead ([`chunk_end`]): ASCII characters that are
//!    neither whitespace, control nor case-ignorable (`'` `.` `:` `^` `` ` ``),
//!    and, for character shingles, CJK ideographs. Both lie whole on their
//!    side (so lossy decoding is the same), neither is whitespace (so
//!    collapsing and trimming are the same, and the chunks' texts are joined
//!    with nothing between them: [`join_normalized`] and [`Windows::feed`]
//!    take `glued`), and the final-sigma rule of lowercasing stops at either
//!    (it looks across case-ignorable characters only). Word and stop-word
//!    shingles are never cut inside a word: one of the two is not
//!    alphanumeric. The carried tail (claim 3) is then the `k − 1` overlap.
//!
//! Memory: a chunk is at most its size, unless neither an ASCII whitespace
//! byte nor a glued cut comes within it, then up to the next one (the whole
//! file, at worst: one word of many MiB for word shingles, or a file of
//! control or case-ignorable characters). The tail is `k − 1` characters or
//! words.

use crate::text::Normalization;
use crate::text::{Scratch, ShingleKind, Shingler, StopWords};

/// Whether a chunk may end just before `b`: the six ASCII bytes of
/// [`char::is_whitespace`] (`u8::is_ascii_whitespace` misses `\x0B`).
#[inline]
pub fn is_cut_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// The end (exclusive) of the chunk of `bytes` that starts at `start`
/// (`< bytes.len()`): the last cut byte ([`is_cut_byte`]) after `start` and
/// at most `size` bytes past it; where there is none, the last glued cut
/// there for shingles of `kind` ([`glued_cut_at`]); else the first cut of
/// either sort further on, else the end of `bytes`. Every chunk but the
/// first starts with a cut byte or is [glued](glued_cut_at) to the one
/// before; none is empty.
pub fn chunk_end(bytes: &[u8], start: usize, size: usize, kind: ShingleKind) -> usize {
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
    if let Some(p) = (start + 1..=limit)
        .rev()
        .find(|&p| glued_cut_at(bytes, p, kind))
    {
        return p;
    }
    (limit + 1..len)
        .find(|&p| is_cut_byte(bytes[p]) || glued_cut_at(bytes, p, kind))
        .unwrap_or(len)
}

/// Whether the chunk that starts at `start` is glued to the one before it
/// (cut between two tight characters, no whitespace between them) rather
/// than cut before a whitespace byte. The first chunk is not.
pub fn is_glued(bytes: &[u8], start: usize) -> bool {
    start > 0 && start < bytes.len() && !is_cut_byte(bytes[start])
}

/// Whether `bytes` may be cut just before `p` (`0 < p < len`) with no
/// whitespace there, for shingles of `kind`: the characters on both sides
/// are tight (module docs, claim 4), and for word shingles not both
/// alphanumeric.
pub fn glued_cut_at(bytes: &[u8], p: usize, kind: ShingleKind) -> bool {
    let (a, b) = (bytes[p - 1], bytes[p]);
    if tight_ascii(a) && tight_ascii(b) {
        return kind == ShingleKind::Char
            || !(a.is_ascii_alphanumeric() && b.is_ascii_alphanumeric());
    }
    kind == ShingleKind::Char
        && (tight_ascii(a) || (p >= 3 && ideograph_at(bytes, p - 3)))
        && (tight_ascii(b) || ideograph_at(bytes, p))
}

/// A printable ASCII character that is not case-ignorable (Unicode's
/// `Case_Ignorable` holds `'` `.` `:` `^` `` ` `` of ASCII).
#[inline]
fn tight_ascii(b: u8) -> bool {
    matches!(b, 0x21..=0x7E) && !matches!(b, b'\'' | b'.' | b':' | b'^' | b'`')
}

/// Whether a CJK Unified Ideograph (U+4E00–U+9FFF: three bytes, lead
/// `E4`–`E9`) starts at `i`: a whole character, uncased, not
/// case-ignorable, not whitespace.
fn ideograph_at(bytes: &[u8], i: usize) -> bool {
    matches!(bytes.get(i..i + 3), Some(&[l @ 0xE4..=0xE9, c1 @ 0x80..=0xBF, 0x80..=0xBF])
        if l != 0xE4 || c1 >= 0xB8)
}

/// Appends `next`, the normalised text of bytes that followed those of
/// `text` at a cut ([`chunk_end`]), so that `text` becomes the normalised
/// text of both together: when collapsing at a whitespace cut (not
/// `glued`, [`is_glued`]), the two are joined by one space unless either is
/// empty; otherwise concatenated.
pub fn join_normalized(text: &mut String, next: &str, glued: bool, norm: Normalization) {
    if norm.collapse_whitespace && !glued && !text.is_empty() && !next.is_empty() {
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

    /// Feeds `next`, the normalised text of the next chunk ([`chunk_end`];
    /// `glued` to the one before, [`is_glued`]), and calls `emit_block` with the hashes of every window that ends in
    /// it, in text order, a block at a time
    /// ([`Shingler::for_each_hash_block`]). Over all chunks of a document,
    /// the blocks hold what [`Shingler::for_each_hash`] emits on the whole
    /// normalised text.
    pub fn feed(
        &mut self,
        next: &str,
        glued: bool,
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
        let words = shingler.kind() != ShingleKind::Char;
        if self.started && ((norm.collapse_whitespace && !glued) || (glued && words)) {
            // The space the whole text has at the cut: a character of its
            // own in char windows (k = 1 too), a word break in the others.
            // A glued cut has no whitespace: char texts are concatenated;
            // word windows need the break that the punctuation at the cut
            // made (the tail keeps words only, so without it the tail's last
            // word and the chunk's first would run together).
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

/// Pieces of text for the property tests of chunked reading, here and in
/// the engine's chunked-signing oracle. Plain data outside `cfg(test)` so
/// that the engine's tests need no feature of this crate: a test-only
/// feature would give the test build a core other than the one `cargo
/// install` builds, and compile the three crates twice in CI.
#[doc(hidden)]
pub mod fragments {
    /// Pieces that stress every claim of the module docs: every ASCII
    /// whitespace byte (in runs, so that they fall on chunk edges), Unicode
    /// whitespace, Σ/σ/ς and case-ignorable marks, a character that
    /// lowercases to two, invalid and truncated UTF-8, stop words,
    /// punctuation.
    pub const FRAGMENTS: &[&[u8]] = &[
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
        b"+/=",
        b"'",
        b":^`",
        b"_",
        "\u{3a3}.".as_bytes(),
        "\u{3a3}A".as_bytes(),
        "\u{4e00}".as_bytes(),
        "\u{6587}\u{5b57}".as_bytes(),
        "\u{9fff}".as_bytes(),
        "\u{4dff}".as_bytes(),
        "\u{3000}".as_bytes(),
        "\u{30fc}".as_bytes(),
        b"ACGT",
    ];
}

#[cfg(test)]
mod tests {
    use super::fragments::FRAGMENTS;
    use super::*;
    use crate::text::normalize;
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

    /// The chunks of `bytes` as [`chunk_end`] cuts them for `kind`, each
    /// with whether it is glued to the one before.
    fn chunks(bytes: &[u8], size: usize, kind: ShingleKind) -> Vec<(&[u8], bool)> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < bytes.len() {
            let end = chunk_end(bytes, start, size, kind);
            assert!(end > start && end <= bytes.len());
            out.push((&bytes[start..end], is_glued(bytes, start)));
            start = end;
        }
        out
    }

    const KINDS: [ShingleKind; 4] = [
        ShingleKind::Char,
        ShingleKind::Word,
        ShingleKind::StopWord,
        ShingleKind::Important,
    ];

    /// Text without ASCII whitespace, so that every cut is glued (or none
    /// can be made): the [`FRAGMENTS`] that hold no cut byte.
    pub(crate) fn tight_texts() -> impl Strategy<Value = Vec<u8>> {
        let tight: Vec<&[u8]> = FRAGMENTS
            .iter()
            .copied()
            .filter(|f| !f.iter().any(|&b| is_cut_byte(b)))
            .collect();
        prop::collection::vec(prop::sample::select(tight), 0..80).prop_map(|parts| parts.concat())
    }

    /// Text built from up to 60 [`FRAGMENTS`].
    fn texts() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..60)
            .prop_map(|parts| parts.concat())
    }

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

        /// Claims 1, 2 and 4: normalising chunk by chunk and joining gives
        /// the whole text's normalisation.
        #[test]
        fn joined_chunks_normalise_as_the_whole(
            bytes in texts(), size in 1usize..64, norm in 0usize..4, kind in 0usize..3,
        ) {
            joined_chunks_are_the_whole(&bytes, size, NORMS[norm], KINDS[kind])?;
        }

        /// Claims 3 and 4: the windows fed chunk by chunk are the whole
        /// text's, in order, each once.
        #[test]
        fn fed_windows_are_the_whole_texts(
            bytes in texts(), size in 1usize..64, norm in 0usize..4,
            kind in 0usize..4, k in 1usize..=9,
        ) {
            fed_windows_are_the_whole(&bytes, size, NORMS[norm], kind, k)?;
        }

        /// Claim 4 on text without whitespace, where every cut is glued.
        #[test]
        fn tight_text_chunks_are_the_whole(
            bytes in tight_texts(), size in 1usize..48, norm in 0usize..4,
            kind in 0usize..3, k in 1usize..=9,
        ) {
            joined_chunks_are_the_whole(&bytes, size, NORMS[norm], KINDS[kind])?;
            fed_windows_are_the_whole(&bytes, size, NORMS[norm], kind, k)?;
        }
    }

    fn joined_chunks_are_the_whole(
        bytes: &[u8],
        size: usize,
        norm: Normalization,
        kind: ShingleKind,
    ) -> Result<(), TestCaseError> {
        let mut joined = String::new();
        for (chunk, glued) in chunks(bytes, size, kind) {
            join_normalized(&mut joined, &normalize(chunk, norm), glued, norm);
        }
        prop_assert_eq!(joined, normalize(bytes, norm));
        Ok(())
    }

    fn fed_windows_are_the_whole(
        bytes: &[u8],
        size: usize,
        norm: Normalization,
        kind: usize,
        k: usize,
    ) -> Result<(), TestCaseError> {
        let shingler = shingler(kind, k);
        let mut scratch = Scratch::default();
        let mut whole = Vec::new();
        shingler.for_each_hash(&normalize(bytes, norm), &mut scratch, |h| whole.push(h));
        let mut windows = Windows::default();
        // Something left over from another document must not leak in.
        windows.feed(
            "leftover words here",
            false,
            norm,
            &shingler,
            &mut scratch,
            |_| {},
        );
        windows.clear();
        let mut fed = Vec::new();
        for (chunk, glued) in chunks(bytes, size, KINDS[kind]) {
            windows.feed(
                &normalize(chunk, norm),
                glued,
                norm,
                &shingler,
                &mut scratch,
                |b| fed.extend_from_slice(b),
            );
        }
        prop_assert_eq!(fed, whole);
        Ok(())
    }

    proptest! {
        #![proptest_config(config())]

        /// Claims 1–3 with `--drop-whitespace` (character shingles only, as
        /// the command line allows): chunks join by concatenation.
        #[test]
        fn dropped_whitespace_chunks_are_the_whole_text(
            bytes in texts(), size in 1usize..64, lowercase: bool, k in 1usize..=9,
        ) {
            let norm = Normalization {
                lowercase,
                collapse_whitespace: false,
                drop_whitespace: true,
                fold_accents: false,
                fold_punct: false,
            };
            let shingler = shingler(0, k);
            let mut scratch = Scratch::default();
            let whole_text = normalize(&bytes, norm);
            let mut whole = Vec::new();
            shingler.for_each_hash(&whole_text, &mut scratch, |h| whole.push(h));
            let (mut joined, mut fed) = (String::new(), Vec::new());
            let mut windows = Windows::default();
            for (chunk, glued) in chunks(&bytes, size, ShingleKind::Char) {
                let text = normalize(chunk, norm);
                join_normalized(&mut joined, &text, glued, norm);
                windows.feed(&text, glued, norm, &shingler, &mut scratch, |b| fed.extend_from_slice(b));
            }
            prop_assert_eq!(joined, whole_text);
            prop_assert_eq!(fed, whole);
        }
    }

    #[test]
    fn a_chunk_ends_before_the_last_whitespace_within_its_size() {
        let bytes = b"abc def\tghi\njkl";
        for kind in KINDS {
            assert_eq!(chunk_end(bytes, 0, 9, kind), 7);
            assert_eq!(chunk_end(bytes, 7, 4, kind), 11);
            assert_eq!(chunk_end(bytes, 11, 4, kind), 15, "the rest fits");
        }
        // A cut at the chunk's first byte would make it empty: the next one,
        // or, for characters, a glued cut within the size.
        assert_eq!(chunk_end(b" abcdef ghi", 0, 3, ShingleKind::Word), 7);
        assert_eq!(chunk_end(b" abcdef ghi", 0, 3, ShingleKind::Char), 3);
    }

    #[test]
    fn a_chunk_without_whitespace_is_glued_between_tight_characters() {
        let (c, w) = (ShingleKind::Char, ShingleKind::Word);
        // Characters: between any two tight ones, as late as fits.
        assert_eq!(chunk_end(b"abcdefghij klm", 0, 3, c), 3);
        assert_eq!(chunk_end(b"abcdefghij", 0, 3, c), 3);
        assert!(is_glued(b"abcdefghij", 3));
        assert!(!is_glued(b"abc def", 3), "a whitespace cut");
        // Words: never inside a word; beside punctuation that is not
        // case-ignorable (`+`, not `.`).
        assert_eq!(chunk_end(b"abcdefghij", 0, 3, w), 10);
        assert_eq!(chunk_end(b"ab+cdefghij", 0, 5, w), 3);
        assert_eq!(chunk_end(b"ab.cdefghij", 0, 5, w), 11);
        // CJK ideographs, three bytes each, cut whole for characters only.
        let han = "\u{4e00}\u{6587}\u{5b57}\u{4e2d}".as_bytes();
        assert_eq!(chunk_end(han, 0, 7, c), 6);
        assert_eq!(chunk_end(han, 0, 7, w), han.len());
        // No tight pair: grows to the next cut of either sort, or the end.
        let nbsp = "aa\u{a0}bb\u{2003}cc dd".as_bytes();
        assert_eq!(
            chunk_end(nbsp, 0, 2, w),
            nbsp.len() - 3,
            "not at a Unicode space"
        );
        assert_eq!(chunk_end(b"a.b.c.d e", 0, 3, c), 7);
    }

    /// A megabyte of base64 without a newline (the reliability review's
    /// case 5.10, scaled down) is cut into chunks of at most the size: the
    /// large-file path holds one chunk, not the file.
    #[test]
    fn a_whitespace_free_file_is_cut_within_the_chunk_size() {
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let bytes: Vec<u8> = (0..1 << 20)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state >> 58) as usize]
            })
            .collect();
        for kind in KINDS {
            let cut = chunks(&bytes, 4096, kind);
            assert!(cut.len() >= bytes.len() / 4096, "{kind:?}: {}", cut.len());
            assert!(cut.iter().all(|(c, _)| c.len() <= 4096), "{kind:?}");
            assert!(cut.iter().skip(1).all(|&(_, glued)| glued), "{kind:?}");
        }
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
        windows.feed(
            long.trim_end(),
            false,
            norm,
            &shingler,
            &mut scratch,
            |_| {},
        );
        assert_eq!(windows.tail, "one two");
        let mut got = Vec::new();
        windows.feed("three", false, norm, &shingler, &mut scratch, |b| {
            got.extend_from_slice(b)
        });
        assert_eq!(got, shingler.shingle_set("one two three"));
    }
}
