//! Words and the shingle hash: the two things both the shingler
//! ([`super::shingle`]) and the important-words selection
//! ([`super::important`]) are built on.
//!
//! Role: they live apart from both so that the shingler can hold a
//! selection and the selection can split and hash words without the two
//! modules importing each other. Pure.

use crate::text::short_hash;

/// Seed of the shingle hash. Fixed (not `--seed`): it defines the shingle set,
/// and must match the ground truth's definition for exact comparison.
pub const SHINGLE_HASH_SEED: u64 = 0;

/// Hash of one shingle's bytes: the single definition every kind goes through.
/// Shingles of up to 16 bytes (char shingles, most word shingles) take the
/// inlined short-input paths of [`crate::text::short_hash`], which equal the crate's.
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

/// The byte ranges of the words of `text` (maximal runs of
/// [`char::is_alphanumeric`] characters), in order, into `words` (cleared
/// first).
///
/// ASCII bytes are classified as bytes (for them `is_alphanumeric` is
/// `u8::is_ascii_alphanumeric`), 64 at a time into a bit mask, and the word
/// boundaries are the mask's class changes, taken bit by bit: no branch per
/// byte, whose outcome (word or not) real text makes unpredictable. A
/// character is decoded only at a non-ASCII byte, which mostly-ASCII text
/// seldom has. Also what [`super::important`] ranks.
pub(crate) fn find_words(text: &str, words: &mut Vec<(u32, u32)>) {
    const BLOCK: usize = 64;
    let bytes = text.as_bytes();
    words.clear();
    let mut in_word = false;
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let block = &bytes[i..bytes.len().min(i + BLOCK)];
        let (alnum, high) = match block.try_into() {
            Ok(full) => class_masks(full),
            Err(_) => class_masks_partial(block),
        };
        // The ASCII prefix of the block (all of it unless a byte ≥ 0x80).
        let ascii = (high.trailing_zeros() as usize).min(block.len());
        if ascii > 0 {
            let valid = u64::MAX >> (BLOCK - ascii);
            let alnum = alnum & valid;
            let mut changes = (alnum ^ (alnum << 1 | in_word as u64)) & valid;
            while changes != 0 {
                let at = (i + changes.trailing_zeros() as usize) as u32;
                if in_word {
                    words.push((start, at));
                } else {
                    start = at;
                }
                in_word = !in_word;
                changes &= changes - 1;
            }
            i += ascii;
        }
        if ascii < block.len() {
            let (alphanumeric, len) = decode_class(text, i);
            if alphanumeric != in_word {
                if in_word {
                    words.push((start, i as u32));
                } else {
                    start = i as u32;
                }
                in_word = alphanumeric;
            }
            i += len;
        }
    }
    if in_word {
        words.push((start, bytes.len() as u32));
    }
}

/// Bit j of the first mask: byte j is ASCII alphanumeric; of the second: byte
/// j is ≥ 0x80. Eight bytes at a time in a `u64` (SWAR): portable, and no
/// branch per byte.
#[inline(always)]
pub(crate) fn class_masks(block: &[u8; 64]) -> (u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    /// High bit of every byte of `v` (all < 0x80) that lies in `lo..=hi`:
    /// adding `0x80 − lo` sets the high bit iff `v ≥ lo`, adding `0x7F − hi`
    /// iff `v > hi`, and neither sum carries out of its byte.
    fn in_range(v: u64, lo: u8, hi: u8) -> u64 {
        let at_least_lo = v.wrapping_add(ONES * (0x80 - lo) as u64);
        let above_hi = v.wrapping_add(ONES * (0x7F - hi) as u64);
        at_least_lo & !above_hi & (ONES * 0x80)
    }
    /// The high bits of the eight bytes of `v` as an 8-bit mask (byte j → bit j).
    fn gather(v: u64) -> u64 {
        ((v >> 7) & ONES).wrapping_mul(0x0102_0408_1020_4080) >> 56
    }
    let (mut alnum, mut high) = (0u64, 0u64);
    for (j, word) in block.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        // Non-ASCII bytes are cleared to ASCII here; `high` marks them, and
        // the caller uses only the bytes before the first of them.
        let ascii = w & (ONES * 0x7F);
        let digit = in_range(ascii, b'0', b'9');
        // ASCII letters are those whose lowercase (bit 0x20 set) is a..=z.
        let letter = in_range(ascii | (ONES * 0x20), b'a', b'z');
        alnum |= gather(digit | letter) << (8 * j);
        high |= gather(w) << (8 * j);
    }
    (alnum, high)
}

/// [`class_masks`] of the last, shorter block of a text, padded with zero
/// bytes (ASCII, not alphanumeric).
pub(crate) fn class_masks_partial(block: &[u8]) -> (u64, u64) {
    let mut padded = [0u8; 64];
    padded[..block.len()].copy_from_slice(block);
    class_masks(&padded)
}

/// Whether the non-ASCII character starting at byte `at` is alphanumeric, and
/// its length in bytes.
fn decode_class(text: &str, at: usize) -> (bool, usize) {
    let c = text[at..].chars().next().expect("at is a character start");
    (c.is_alphanumeric(), c.len_utf8())
}
