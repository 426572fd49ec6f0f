//! Plain text that is not UTF-8: UTF-16 and UTF-32 (either byte order, with
//! or without a byte-order mark), UTF-8 after a mark, and legacy encodings
//! (Windows-1252, Latin-1, KOI8-R, Shift_JIS, …) detected by `chardetng`
//! and decoded by `encoding_rs`, the detector and decoder Firefox uses,
//! rather than tables of our own.

use super::{Failure, Format};

/// The bytes looked at to tell UTF-16/32 without a mark.
const PATTERN_LEN: usize = 4096;

/// UTF-16 or UTF-32 without a byte-order mark, told by where the zero
/// bytes fall: text in the Latin, Greek or Cyrillic ranges has a zero high
/// byte in (nearly) every unit, and the other byte is rarely zero.
pub(crate) fn unmarked_utf(bytes: &[u8]) -> Option<Format> {
    let head = &bytes[..bytes.len().min(PATTERN_LEN)];
    if head.len() < 8 || !head.contains(&0) {
        return None;
    }
    let zeros_at = |modulus: usize, at: &[usize]| {
        let mut zero = 0usize;
        let mut total = 0usize;
        for (i, &b) in head.iter().enumerate() {
            if at.contains(&(i % modulus)) {
                total += 1;
                zero += usize::from(b == 0);
            }
        }
        zero as f64 / total.max(1) as f64
    };
    // UTF-32: three zero bytes in four, the fourth (nearly) never zero.
    if head.len() >= 16 {
        let (le_high, le_low) = (zeros_at(4, &[2, 3]), zeros_at(4, &[0]));
        let (be_high, be_low) = (zeros_at(4, &[0, 1]), zeros_at(4, &[3]));
        if (le_high > 0.95 && le_low < 0.05) || (be_high > 0.95 && be_low < 0.05) {
            return Some(Format::Utf32);
        }
    }
    let (odd, even) = (zeros_at(2, &[1]), zeros_at(2, &[0]));
    let little_endian = odd > 0.6 && even < 0.05;
    if (little_endian || (even > 0.6 && odd < 0.05)) && printable_utf16(head, little_endian) {
        return Some(Format::Utf16);
    }
    None
}

/// Whether `head`, read as UTF-16, is text: binary data of small 16-bit
/// numbers has the zero pattern too, but decodes to control characters.
fn printable_utf16(head: &[u8], little_endian: bool) -> bool {
    let units = head.chunks_exact(2).map(|pair| {
        if little_endian {
            u16::from_le_bytes([pair[0], pair[1]])
        } else {
            u16::from_be_bytes([pair[0], pair[1]])
        }
    });
    let (mut total, mut control) = (0usize, 0usize);
    for c in char::decode_utf16(units) {
        total += 1;
        match c {
            Ok(c) if c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}') => control += 1,
            Err(_) => control += 1,
            Ok(_) => {}
        }
    }
    control * 100 <= total
}

/// The UTF-8 text of `bytes` in `format`.
pub(super) fn decode(format: Format, bytes: &[u8]) -> Result<String, Failure> {
    let text = match format {
        // Sniffed only after a mark; the fuzz target gives any bytes.
        Format::Utf8Bom => {
            String::from_utf8_lossy(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
                .into_owned()
        }
        Format::Utf16 => utf16(bytes),
        Format::Utf32 => utf32(bytes),
        Format::Legacy8Bit => legacy(bytes),
        _ => unreachable!("only text encodings are decoded here"),
    };
    Ok(text)
}

/// Legacy text: the encoding `chardetng` guesses (allowing UTF-8, so a
/// mostly-UTF-8 file with a stray byte stays UTF-8), decoded by
/// `encoding_rs` with replacement characters for what does not decode.
pub(super) fn legacy(bytes: &[u8]) -> String {
    let (text, _) = guess_legacy(bytes).decode_without_bom_handling(bytes);
    text.into_owned()
}

/// The encoding `chardetng` guesses for `bytes` (all of a text, or its
/// head when `last` is false), UTF-8 allowed: what [`legacy`] decodes with,
/// and what the record readers decode a legacy file's stream with.
pub(crate) fn guess_legacy_of(bytes: &[u8], last: bool) -> &'static encoding_rs::Encoding {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, last);
    detector.guess(None, chardetng::Utf8Detection::Allow)
}

fn guess_legacy(bytes: &[u8]) -> &'static encoding_rs::Encoding {
    guess_legacy_of(bytes, true)
}

fn utf16(bytes: &[u8]) -> String {
    let (body, big_endian) = if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        (rest, false)
    } else if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        (rest, true)
    } else {
        (bytes, utf16_big_endian(bytes))
    };
    let encoding = if big_endian {
        encoding_rs::UTF_16BE
    } else {
        encoding_rs::UTF_16LE
    };
    let (text, _) = encoding.decode_without_bom_handling(body);
    text.into_owned()
}

/// Whether unmarked UTF-16 (as [`unmarked_utf`] told it) is big-endian:
/// the byte order whose high bytes are the zeros.
pub(crate) fn utf16_big_endian(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(PATTERN_LEN)];
    let odd_zeros = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    let even_zeros = head.iter().step_by(2).filter(|&&b| b == 0).count();
    even_zeros > odd_zeros
}

fn utf32(bytes: &[u8]) -> String {
    let (body, big_endian) = if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE\x00\x00") {
        (rest, false)
    } else if let Some(rest) = bytes.strip_prefix(b"\x00\x00\xFE\xFF") {
        (rest, true)
    } else {
        (bytes, bytes.first() == Some(&0))
    };
    let mut text = String::with_capacity(body.len() / 4);
    for unit in body.chunks(4) {
        let value = match <[u8; 4]>::try_from(unit) {
            Ok(quad) if big_endian => u32::from_be_bytes(quad),
            Ok(quad) => u32::from_le_bytes(quad),
            Err(_) => u32::MAX,
        };
        text.push(char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    text
}
