//! Text normalisation: bytes in, the text that gets shingled out.
//!
//! The default is exactly the definition the ground truth in
//! `../shared/data/README.md` uses, so that simfind's similarities can be checked
//! pair for pair against it:
//!
//! 1. decode UTF-8 lossily (each invalid sequence becomes U+FFFD);
//! 2. lowercase with full Unicode lowercasing ([`str::to_lowercase`], which also
//!    handles context such as the final sigma);
//! 3. replace every maximal run of whitespace ([`char::is_whitespace`]) by one
//!    space and trim both ends.
//!
//! Steps 2 and 3 can be switched off (`--keep-case`, `--keep-whitespace`).

/// Which normalisation steps to apply. Lossy UTF-8 decoding always happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normalization {
    pub lowercase: bool,
    pub collapse_whitespace: bool,
}

impl Default for Normalization {
    fn default() -> Self {
        Normalization {
            lowercase: true,
            collapse_whitespace: true,
        }
    }
}

/// Normalises `bytes` into `out` (cleared first). `out` is reused across
/// documents so that a worker thread allocates only when a document is larger
/// than any before it.
pub fn normalize_into(bytes: &[u8], norm: Normalization, out: &mut String) {
    out.clear();
    if bytes.is_ascii() {
        normalize_ascii(bytes, norm, out);
    } else if norm.lowercase && contains_capital_sigma(bytes) {
        normalize_with_context(bytes, norm, out);
    } else {
        normalize_streaming(bytes, norm, out);
    }
}

/// Whether `bytes` contain U+03A3 (`Σ`, UTF-8 `CE A3`). It is the only
/// character that [`str::to_lowercase`] maps by context (final sigma); a `CE A3`
/// pair always decodes to it, even after invalid bytes, since `CE` is a lead
/// byte and `A3` completes it.
fn contains_capital_sigma(bytes: &[u8]) -> bool {
    bytes.windows(2).any(|w| w == [0xCE, 0xA3])
}

/// The definition itself, for text with a capital sigma: decode, lowercase
/// the whole text (context-aware), then collapse. Allocates two strings, which
/// only such (rare) documents pay.
fn normalize_with_context(bytes: &[u8], norm: Normalization, out: &mut String) {
    let decoded = String::from_utf8_lossy(bytes);
    let cased;
    let text: &str = if norm.lowercase {
        cased = decoded.to_lowercase();
        &cased
    } else {
        &decoded
    };
    if norm.collapse_whitespace {
        collapse_whitespace(text, out);
    } else {
        out.push_str(text);
    }
}

/// Decode, lowercase and collapse in one pass over the characters, writing
/// only to `out`. Without a capital sigma, [`str::to_lowercase`] is
/// [`char::to_lowercase`] of each character, and no character lowercases to or
/// from whitespace, so doing the steps per character equals doing them per
/// text. Lossy decoding turns each invalid sequence into one U+FFFD exactly as
/// [`String::from_utf8_lossy`] does (both use [`Utf8Chunks`](std::str::Utf8Chunks)).
fn normalize_streaming(bytes: &[u8], norm: Normalization, out: &mut String) {
    // Bytes are pushed to a Vec and validated once at the end: ASCII bytes
    // (most of a typical non-ASCII document) take a byte path, without
    // decoding or `String::push`.
    let mut buf = std::mem::take(out).into_bytes();
    buf.reserve(bytes.len());
    let mut pending_space = false;
    let mut utf8 = [0u8; 4];
    let mut push_char = |buf: &mut Vec<u8>, c: char, pending_space: &mut bool| {
        if norm.collapse_whitespace && c.is_whitespace() {
            *pending_space = true;
            return;
        }
        if *pending_space && !buf.is_empty() {
            buf.push(b' ');
        }
        *pending_space = false;
        if norm.lowercase {
            // No character lowercases to whitespace.
            for l in c.to_lowercase() {
                buf.extend_from_slice(l.encode_utf8(&mut utf8).as_bytes());
            }
        } else {
            buf.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        }
    };
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        let v = valid.as_bytes();
        let mut i = 0;
        while i < v.len() {
            let b = v[i];
            if b.is_ascii() {
                i += 1;
                if norm.collapse_whitespace
                    && matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
                {
                    pending_space = true;
                    continue;
                }
                if pending_space && !buf.is_empty() {
                    buf.push(b' ');
                }
                pending_space = false;
                buf.push(if norm.lowercase {
                    b.to_ascii_lowercase()
                } else {
                    b
                });
            } else {
                let c = valid[i..].chars().next().expect("a character starts here");
                i += c.len_utf8();
                push_char(&mut buf, c, &mut pending_space);
            }
        }
        if !chunk.invalid().is_empty() {
            push_char(&mut buf, char::REPLACEMENT_CHARACTER, &mut pending_space);
        }
    }
    *out = String::from_utf8(buf).expect("built from chars and ASCII bytes");
}

/// Convenience wrapper returning a fresh `String`.
pub fn normalize(bytes: &[u8], norm: Normalization) -> String {
    let mut out = String::new();
    normalize_into(bytes, norm, &mut out);
    out
}

fn collapse_whitespace(text: &str, out: &mut String) {
    out.reserve(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = true;
        } else {
            // A space is only emitted between two non-space characters: this
            // collapses runs and trims both ends in one pass.
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        }
    }
}

/// Byte-wise fast path for pure ASCII input, the common case for text and code.
/// Must agree exactly with the general path (a unit test checks it).
fn normalize_ascii(bytes: &[u8], norm: Normalization, out: &mut String) {
    let mut buf = std::mem::take(out).into_bytes();
    buf.reserve(bytes.len());
    if norm.collapse_whitespace {
        let mut pending_space = false;
        for &b in bytes {
            // char::is_whitespace for ASCII: \t \n \x0B \x0C \r and space
            // (u8::is_ascii_whitespace would miss the vertical tab).
            if matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
                pending_space = true;
            } else {
                if pending_space && !buf.is_empty() {
                    buf.push(b' ');
                }
                pending_space = false;
                buf.push(if norm.lowercase {
                    b.to_ascii_lowercase()
                } else {
                    b
                });
            }
        }
    } else if norm.lowercase {
        buf.extend(bytes.iter().map(u8::to_ascii_lowercase));
    } else {
        buf.extend_from_slice(bytes);
    }
    // Only ASCII bytes were pushed.
    *out = String::from_utf8(buf).expect("ASCII is valid UTF-8");
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: Normalization = Normalization {
        lowercase: true,
        collapse_whitespace: true,
    };

    #[test]
    fn lowercases_collapses_and_trims() {
        assert_eq!(
            normalize(b"  Hello,\t\n  World!  ", DEFAULT),
            "hello, world!"
        );
    }

    #[test]
    fn vertical_tab_and_form_feed_are_whitespace() {
        assert_eq!(normalize(b"a\x0Bb\x0Cc", DEFAULT), "a b c");
    }

    #[test]
    fn invalid_utf8_becomes_replacement_character() {
        assert_eq!(normalize(b"ab\xFFcd", DEFAULT), "ab\u{FFFD}cd");
    }

    #[test]
    fn full_unicode_lowercasing_and_whitespace() {
        // U+00A0 and U+3000 are whitespace; final sigma lowercases to ς.
        let input = "ΟΔΟΣ\u{00A0}\u{3000}İstanbul".as_bytes();
        assert_eq!(normalize(input, DEFAULT), "οδος i\u{307}stanbul");
    }

    #[test]
    fn keep_case_and_whitespace() {
        let keep = Normalization {
            lowercase: false,
            collapse_whitespace: false,
        };
        assert_eq!(normalize(b" A  b ", keep), " A  b ");
        let keep_case = Normalization {
            lowercase: false,
            collapse_whitespace: true,
        };
        assert_eq!(normalize(" Ä  b ".as_bytes(), keep_case), "Ä b");
    }

    /// The definition of `../shared/data/README.md`, written as plainly as
    /// possible: the oracle for every fast path.
    fn by_definition(bytes: &[u8], norm: Normalization) -> String {
        let text = String::from_utf8_lossy(bytes);
        let cased = if norm.lowercase {
            text.to_lowercase()
        } else {
            text.to_string()
        };
        if !norm.collapse_whitespace {
            return cased;
        }
        cased.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    const ALL: [Normalization; 4] = [
        DEFAULT,
        Normalization {
            lowercase: false,
            collapse_whitespace: true,
        },
        Normalization {
            lowercase: true,
            collapse_whitespace: false,
        },
        Normalization {
            lowercase: false,
            collapse_whitespace: false,
        },
    ];

    #[test]
    fn streaming_path_agrees_with_definition_on_tricky_text() {
        let samples: [&[u8]; 10] = [
            "ΣΑΣ σ Σ. ὈΔΥΣΣΕΎΣ Σ".as_bytes(),
            "Ǆemal İ ẞ ﬁ Ω K Å \u{2028}x\u{85}y\u{A0}".as_bytes(),
            b"\xFF\xFEab \xE2\x82 cd\xF0\x9F\x98",
            b"\xC3\x84\xC3",
            b"\xCE\xA3\xCE\x91\xCE\xA3 \xCE\xA3. \xCE\xA3\xFF\xCE\xA3",
            b"\xE0\xCE\xA3x",
            "  \u{3000}Ä\t\u{1680} ".as_bytes(),
            "ⰀⰁ Ⴀ Ꭰ 𐐀".as_bytes(),
            b"",
            b"\x80",
        ];
        for norm in ALL {
            for s in samples {
                assert_eq!(normalize(s, norm), by_definition(s, norm), "{s:?} {norm:?}");
            }
        }
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_path_agrees_with_definition(
            // Bytes drawn from ASCII, whitespace, Greek (sigma), multi-byte
            // letters and invalid fragments, so all three paths are hit.
            parts in prop::collection::vec(prop_oneof![
                prop::sample::select(vec![
                    "a", "Q", " ", "\t", "\n", "\x0B", "\u{A0}", "\u{3000}", "Σ", "σ", "Ä",
                    "İ", "ẞ", "ǅ", "ﬀ", ".", "'", "\u{301}", "\u{85}", "😀",
                ]).prop_map(|s| s.as_bytes().to_vec()),
                prop::sample::select(vec![
                    vec![0xFFu8], vec![0xCE], vec![0xA3], vec![0xE2, 0x82], vec![0xF0, 0x9F],
                ]),
            ], 0..40),
            n in 0usize..4,
        ) {
            let bytes: Vec<u8> = parts.concat();
            let norm = ALL[n];
            prop_assert_eq!(normalize(&bytes, norm), by_definition(&bytes, norm));
        }
    }

    #[test]
    fn ascii_fast_path_agrees_with_general_path() {
        let samples: [&[u8]; 4] = [b"  X\r\n\tY  Z ", b"", b"   ", b"MiXeD\x0B\x0Ccase\x1Fctl"];
        for norm in ALL {
            for s in samples {
                let mut general = String::new();
                let text = String::from_utf8_lossy(s);
                let cased = if norm.lowercase {
                    text.to_lowercase()
                } else {
                    text.to_string()
                };
                if norm.collapse_whitespace {
                    collapse_whitespace(&cased, &mut general);
                } else {
                    general = cased;
                }
                assert_eq!(normalize(s, norm), general, "{s:?} {norm:?}");
            }
        }
    }
}
