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
        return;
    }
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

    #[test]
    fn ascii_fast_path_agrees_with_general_path() {
        let samples: [&[u8]; 4] = [b"  X\r\n\tY  Z ", b"", b"   ", b"MiXeD\x0B\x0Ccase\x1Fctl"];
        for norm in [
            DEFAULT,
            Normalization {
                lowercase: false,
                collapse_whitespace: true,
            },
            Normalization {
                lowercase: true,
                collapse_whitespace: false,
            },
        ] {
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
