//! Normalisation that remembers where each byte came from: the normalised
//! text of [`normalize_into`](super::normalize_into), byte for byte, plus a
//! map from every normalised byte to the original byte it was made from.
//! `simfind explain` uses it to show shared shingles as byte ranges of the
//! files a person opened, not of the normalised text.
//!
//! A plain scalar loop, one character at a time, with no kernel: explain
//! normalises two documents, not millions, so clarity wins over speed. The
//! tests check that its text equals the fast normaliser's for every input and
//! flag combination, and that every map entry points at a character that
//! normalises to the output it stands for.
//!
//! What maps to what: each output character stands for one source character
//! (a lowercased `İ` becomes two output characters, both standing for it), an
//! invalid UTF-8 sequence (U+FFFD in the output) for its bytes, and a
//! collapsed space for the whole whitespace run it replaces (CRLF, tabs, a
//! no-break space). Whitespace trimmed at either end stands for nothing.

use std::ops::Range;

use super::Normalization;

/// A normalised text and, for each of its bytes, the original byte offset
/// where the source of that byte starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapped {
    /// Exactly [`normalize`](super::normalize)'s output for the same bytes.
    pub text: String,
    /// `starts[i]`: where, in the original bytes, the character that output
    /// byte `i` stands for starts; non-decreasing. One more entry than `text`
    /// has bytes: the end of the last source character that made output
    /// (trailing whitespace that was trimmed lies beyond it).
    starts: Vec<u32>,
}

impl Mapped {
    /// The original byte range that the normalised byte range `range` was
    /// made from: from the start of the source of its first byte to the end
    /// of the source of its last, so a range cutting a character's output in
    /// two (`İ` → `i` + U+0307) takes the whole source character. Empty for
    /// an empty range.
    ///
    /// # Panics
    /// If `range` is not within `text`.
    pub fn source(&self, range: Range<usize>) -> Range<usize> {
        assert!(range.start <= range.end && range.end <= self.text.len());
        let start = self.starts[range.start] as usize;
        if range.is_empty() {
            return start..start;
        }
        start..self.source_end(range.end - 1)
    }

    /// Where the source of output byte `i` ends: the next different start
    /// (one source character makes at most a few output bytes, and the
    /// sentinel ends the scan).
    fn source_end(&self, i: usize) -> usize {
        let at = self.starts[i];
        self.starts[i + 1..]
            .iter()
            .find(|&&s| s != at)
            .copied()
            .unwrap_or(at) as usize
    }
}

/// The longest input [`normalize_mapped`] takes: offsets are held in 32 bits,
/// half the memory of `usize`, which is what bounds `explain` on large files.
pub const MAX_MAPPED_LEN: usize = u32::MAX as usize;

/// Normalises `bytes` as [`normalize`](super::normalize) does and maps every
/// output byte back to the original bytes.
///
/// # Panics
/// If `bytes` is longer than [`MAX_MAPPED_LEN`].
pub fn normalize_mapped(bytes: &[u8], norm: Normalization) -> Mapped {
    assert!(
        bytes.len() <= MAX_MAPPED_LEN,
        "normalize_mapped takes at most {MAX_MAPPED_LEN} bytes"
    );
    let mut out = Vec::with_capacity(bytes.len());
    let mut starts: Vec<u32> = Vec::with_capacity(bytes.len() + 1);
    // Start of the whitespace run waiting to become one space (when
    // collapsing), and the end of the last source character that made output.
    let mut pending: Option<usize> = None;
    let mut end = 0usize;
    let mut push = |out: &mut Vec<u8>, starts: &mut Vec<u32>, c: char, at: Range<usize>| {
        if norm.collapse_whitespace && c.is_whitespace() {
            pending.get_or_insert(at.start);
            return;
        }
        if let Some(run) = pending.take()
            && !out.is_empty()
        {
            out.push(b' ');
            starts.push(run as u32);
        }
        let mut utf8 = [0u8; 4];
        let mut put = |c: char| {
            let encoded = c.encode_utf8(&mut utf8);
            out.extend_from_slice(encoded.as_bytes());
            starts.extend(std::iter::repeat_n(at.start as u32, encoded.len()));
        };
        if norm.lowercase {
            // Per character; the one context-dependent mapping (final sigma)
            // is fixed below without changing any length.
            c.to_lowercase().for_each(&mut put);
        } else {
            put(c);
        }
        end = at.end;
    };
    let mut i = 0;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let len = c.len_utf8();
            if norm.folds() {
                // Each character it folds to stands for it.
                super::fold_char(c, norm, &mut |f| {
                    push(&mut out, &mut starts, f, i..i + len);
                });
            } else {
                push(&mut out, &mut starts, c, i..i + len);
            }
            i += len;
        }
        let invalid = chunk.invalid().len();
        if invalid > 0 {
            push(
                &mut out,
                &mut starts,
                char::REPLACEMENT_CHARACTER,
                i..i + invalid,
            );
            i += invalid;
        }
    }
    starts.push(end as u32);
    let mut text = String::from_utf8(out).expect("built from whole characters");
    if norm.lowercase && bytes.windows(2).any(|w| w == [0xCE, 0xA3]) {
        // A capital sigma lowercases to σ or ς by context (`str::to_lowercase`);
        // both are two bytes, so the definition's text has the same length and
        // the same map.
        let mut context = Vec::new();
        if norm.folds() {
            // The folded text's context, as the fast normaliser takes it.
            context = super::normalize(bytes, norm).into_bytes();
        } else {
            super::normalize_with_context(bytes, norm, &mut context);
        }
        debug_assert_eq!(context.len(), text.len());
        if context.len() == text.len() {
            text = String::from_utf8(context).expect("the definition's text is UTF-8");
        }
    }
    if norm.drop_whitespace {
        // Each kept character keeps its bytes' sources; the last entry (the
        // end of the last source character) stays.
        let mut kept = String::with_capacity(text.len());
        let mut kept_starts = Vec::with_capacity(starts.len());
        for (i, c) in text.char_indices() {
            if !c.is_whitespace() {
                kept.push(c);
                kept_starts.extend_from_slice(&starts[i..i + c.len_utf8()]);
            }
        }
        kept_starts.push(*starts.last().expect("one entry past the text"));
        return Mapped {
            text: kept,
            starts: kept_starts,
        };
    }
    Mapped { text, starts }
}

#[cfg(test)]
mod tests {
    use super::super::normalize;
    use super::*;
    use proptest::prelude::*;

    const ALL: [Normalization; 4] = Normalization::ALL;

    /// The text is the fast normaliser's; the map is non-decreasing, within
    /// the input, and each output character's source normalises (alone) to
    /// output holding that character, or is whitespace for a collapsed space.
    fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
        for norm in ALL {
            let mapped = normalize_mapped(bytes, norm);
            prop_assert_eq!(
                &mapped.text,
                &normalize(bytes, norm),
                "{:?} {:?}",
                norm,
                bytes
            );
            prop_assert_eq!(mapped.starts.len(), mapped.text.len() + 1);
            prop_assert!(mapped.starts.windows(2).all(|w| w[0] <= w[1]));
            prop_assert!(*mapped.starts.last().unwrap() as usize <= bytes.len());
            for (at, c) in mapped.text.char_indices() {
                let source = mapped.source(at..at + c.len_utf8());
                prop_assert!(!source.is_empty(), "{:?} at {}", bytes, at);
                let alone = normalize(&bytes[source.clone()], norm);
                let expected = if norm.collapse_whitespace && c == ' ' {
                    // A collapsed run: all whitespace, so alone it trims away.
                    alone.is_empty()
                } else if c == 'ς' || c == 'σ' {
                    // Context decides the sigma, which the source alone lacks.
                    alone == "σ" || alone == "ς"
                } else {
                    alone.contains(c)
                };
                prop_assert!(
                    expected,
                    "{:?}: {:?} from {:?} → {:?}",
                    norm,
                    c,
                    source,
                    alone
                );
            }
            // The whole text maps to the bytes between the trimmed ends.
            let whole = mapped.source(0..mapped.text.len());
            prop_assert_eq!(normalize(&bytes[whole], norm), mapped.text);
        }
        Ok(())
    }

    #[test]
    fn crlf_tabs_case_and_invalid_bytes_keep_offsets() {
        let bytes = b"  Hello,\r\n\tWORLD \xFF\xFEok\r\n";
        let mapped = normalize_mapped(bytes, Normalization::default());
        assert_eq!(mapped.text, "hello, world \u{FFFD}\u{FFFD}ok");
        let world = mapped.text.find("world").unwrap();
        assert_eq!(mapped.source(world..world + 5), 11..16);
        assert_eq!(&bytes[11..16], b"WORLD");
        // The space after "hello," is the CRLF and tab.
        assert_eq!(mapped.source(6..7), 8..11);
        // Each U+FFFD is one invalid byte.
        let bad = mapped.text.find('\u{FFFD}').unwrap();
        assert_eq!(mapped.source(bad..bad + 3), 17..18);
        assert_eq!(mapped.source(bad..bad + 6), 17..19);
        check(bytes).unwrap();
    }

    #[test]
    fn a_character_that_lowercases_to_two_maps_whole() {
        let bytes = "xİy".as_bytes();
        let mapped = normalize_mapped(bytes, Normalization::default());
        assert_eq!(mapped.text, "xi\u{307}y");
        // "i" alone, and the combining dot alone, both come from all of İ.
        assert_eq!(mapped.source(1..2), 1..3);
        assert_eq!(mapped.source(2..4), 1..3);
        check(bytes).unwrap();
    }

    #[test]
    fn tricky_samples() {
        for s in [
            "ΣΑΣ σ Σ. ὈΔΥΣΣΕΎΣ Σ".as_bytes(),
            "Ǆemal İ ẞ ﬁ Ω K Å \u{2028}x\u{85}y\u{A0}".as_bytes(),
            b"\xFF\xFEab \xE2\x82 cd\xF0\x9F\x98",
            b"",
            b"   \t\r\n",
            b"\x80",
        ] {
            check(s).unwrap();
        }
    }

    proptest! {
        // A fixed seed and no regression file: a failure reproduces on any clone.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x0FF5_5EED),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        #[test]
        fn agrees_with_the_normaliser(
            parts in prop::collection::vec(prop_oneof![
                prop::sample::select(vec![
                    "a", "Q", " ", "\t", "\r\n", "\n", "\x0B", "\u{A0}", "\u{3000}", "Σ", "σ",
                    "Ä", "İ", "ẞ", "ǅ", "ﬀ", ".", "\u{301}", "\u{85}", "😀", "Word",
                ]).prop_map(|s| s.as_bytes().to_vec()),
                prop::sample::select(vec![
                    vec![0xFFu8], vec![0xCE], vec![0xA3], vec![0xE2, 0x82], vec![0xF0, 0x9F],
                ]),
            ], 0..40),
        ) {
            check(&parts.concat())?;
        }

        #[test]
        fn agrees_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            check(&bytes)?;
        }
    }
}
