//! XXH3-64 with seed 0 for inputs of at most 16 bytes, inlined and specialised
//! by length: the shingle hash of [`crate::shingle`] without a function call per
//! shingle.
//!
//! Role: every shingle is hashed with XXH3-64, seed 0 (the definition the
//! ground truth and the persistent index use, `../shared/data/README.md`).
//! Char 5-shingles are 5 bytes, and hashing them through the general
//! `xxhash_rust::xxh3::xxh3_64_with_seed` (an out-of-line call that dispatches
//! on the length every time) was a large part of a scan. XXH3 has dedicated
//! paths for short inputs (Collet, XXH3 specification, "Small input" section):
//! 1–3, 4–8 and 9–16 bytes. When the length is a constant of the calling loop
//! (`K` in [`for_each_window`]), each path reduces to a few loads, a multiply
//! and shifts, and the loop carries no branch on the length.
//!
//! Inputs: bytes (or the words the short paths read from them). Outputs: the
//! 64-bit hash. Invariant: every function here returns exactly
//! `xxh3_64_with_seed(bytes, 0)` (unit tests over every length 0..=16 and a
//! proptest over random bytes check it against the crate); inputs longer than
//! 16 bytes go to the crate.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The first 72 bytes of XXH3's default secret (`kSecret`), all the short
/// paths read.
const SECRET: [u8; 72] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb,
];

const fn secret32(at: usize) -> u32 {
    u32::from_le_bytes([SECRET[at], SECRET[at + 1], SECRET[at + 2], SECRET[at + 3]])
}

const fn secret64(at: usize) -> u64 {
    secret32(at) as u64 | (secret32(at + 4) as u64) << 32
}

// With seed 0 every "secret ± seed" term is a constant.
const FLIP_1TO3: u64 = (secret32(0) ^ secret32(4)) as u64;
const FLIP_4TO8: u64 = secret64(8) ^ secret64(16);
const FLIP_9TO16_LO: u64 = secret64(24) ^ secret64(32);
const FLIP_9TO16_HI: u64 = secret64(40) ^ secret64(48);
const EMPTY: u64 = xxh64_avalanche(secret64(56) ^ secret64(64));

const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME_MX1: u64 = 0x1656_6791_9E37_79F9;
const PRIME_MX2: u64 = 0x9FB2_1C65_1E98_DF25;

const fn xxh64_avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(PRIME64_2);
    h ^= h >> 29;
    h = h.wrapping_mul(PRIME64_3);
    h ^ (h >> 32)
}

#[inline(always)]
fn xxh3_avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(PRIME_MX1);
    h ^ (h >> 32)
}

/// `rrmxmx`, the finaliser of the 4–8 byte path.
#[inline(always)]
fn rrmxmx(mut h: u64, len: u64) -> u64 {
    h ^= h.rotate_left(49) ^ h.rotate_left(24);
    h = h.wrapping_mul(PRIME_MX2);
    h ^= (h >> 35).wrapping_add(len);
    h = h.wrapping_mul(PRIME_MX2);
    h ^ (h >> 28)
}

/// Inputs of 1–3 bytes: the first, middle (`len / 2`) and last byte.
#[inline(always)]
pub fn hash_1to3(first: u8, middle: u8, last: u8, len: usize) -> u64 {
    let combined = (first as u32) << 16 | (middle as u32) << 24 | last as u32 | (len as u32) << 8;
    xxh64_avalanche(combined as u64 ^ FLIP_1TO3)
}

/// Inputs of 4–8 bytes: the first and the last four bytes, little-endian
/// (they overlap below 8 bytes).
#[inline(always)]
pub fn hash_4to8(first4: u32, last4: u32, len: usize) -> u64 {
    let input = (last4 as u64).wrapping_add((first4 as u64) << 32);
    rrmxmx(input ^ FLIP_4TO8, len as u64)
}

/// Inputs of 9–16 bytes: the first and the last eight bytes, little-endian.
#[inline(always)]
pub fn hash_9to16(first8: u64, last8: u64, len: usize) -> u64 {
    let lo = first8 ^ FLIP_9TO16_LO;
    let hi = last8 ^ FLIP_9TO16_HI;
    let product = lo as u128 * hi as u128;
    let fold = product as u64 ^ (product >> 64) as u64;
    let acc = (len as u64)
        .wrapping_add(lo.swap_bytes())
        .wrapping_add(hi)
        .wrapping_add(fold);
    xxh3_avalanche(acc)
}

#[inline(always)]
fn read32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

#[inline(always)]
fn read64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// XXH3-64 of `bytes` with seed 0: inline for up to 16 bytes, the crate's
/// implementation beyond.
#[inline(always)]
pub fn xxh3_64(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    match len {
        0 => EMPTY,
        1..=3 => hash_1to3(bytes[0], bytes[len / 2], bytes[len - 1], len),
        4..=8 => hash_4to8(read32(bytes, 0), read32(bytes, len - 4), len),
        9..=16 => hash_9to16(read64(bytes, 0), read64(bytes, len - 8), len),
        _ => xxh3_64_with_seed(bytes, 0),
    }
}

/// Calls `emit` with the XXH3-64 of every window of `K` consecutive bytes of
/// `bytes`, in order. `K` is a constant, so the length dispatch of
/// [`xxh3_64`] is resolved at compile time.
#[inline(always)]
pub fn for_each_window<const K: usize>(bytes: &[u8], mut emit: impl FnMut(u64)) {
    if K == 0 || bytes.len() < K {
        return;
    }
    for w in bytes.windows(K) {
        let h = match K {
            1..=3 => hash_1to3(w[0], w[K / 2], w[K - 1], K),
            4..=8 => hash_4to8(read32(w, 0), read32(w, K - 4), K),
            9..=16 => hash_9to16(read64(w, 0), read64(w, K - 8), K),
            _ => xxh3_64_with_seed(w, 0),
        };
        emit(h);
    }
}

/// [`for_each_window`] for a `k` known only at run time: one specialised loop
/// per `k` up to 16, the crate's hash per window beyond.
#[inline]
pub fn for_each_window_dyn(bytes: &[u8], k: usize, emit: impl FnMut(u64)) {
    macro_rules! dispatch {
        ($($k:literal)*) => {
            match k {
                $($k => for_each_window::<$k>(bytes, emit),)*
                _ => {
                    if bytes.len() >= k {
                        bytes.windows(k).map(|w| xxh3_64_with_seed(w, 0)).for_each(emit);
                    }
                }
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bytes that exercise every bit of the reads (not just ASCII).
    fn sample(len: usize, salt: u64) -> Vec<u8> {
        let mut x = salt;
        (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(0x5851_F42D_4C95_7F2D)
                    .wrapping_add(0x1405_7B7E_F767_814F);
                (x >> 56) as u8
            })
            .collect()
    }

    #[test]
    fn equals_the_crate_for_every_length_up_to_16_and_beyond() {
        for len in 0..=40 {
            for salt in 0..200 {
                let bytes = sample(len, salt);
                assert_eq!(
                    xxh3_64(&bytes),
                    xxh3_64_with_seed(&bytes, 0),
                    "len {len} {bytes:02x?}"
                );
            }
        }
        // Extremes of every byte position.
        for len in 1..=16 {
            for fill in [0u8, 0x7F, 0x80, 0xFF] {
                let bytes = vec![fill; len];
                assert_eq!(xxh3_64(&bytes), xxh3_64_with_seed(&bytes, 0), "{len}");
            }
        }
    }

    #[test]
    fn windows_equal_the_crate_for_every_k() {
        let text = sample(100, 7);
        for k in 1..=20 {
            let mut got = Vec::new();
            for_each_window_dyn(&text, k, |h| got.push(h));
            let want: Vec<u64> = text.windows(k).map(|w| xxh3_64_with_seed(w, 0)).collect();
            assert_eq!(got, want, "k = {k}");
        }
        let mut none = Vec::new();
        for_each_window_dyn(b"abcd", 5, |h| none.push(h));
        assert!(none.is_empty(), "a text shorter than k has no window");
    }

    proptest! {
        #[test]
        fn random_bytes_hash_like_the_crate(bytes in prop::collection::vec(any::<u8>(), 0..=24)) {
            prop_assert_eq!(xxh3_64(&bytes), xxh3_64_with_seed(&bytes, 0));
        }

        #[test]
        fn random_windows_hash_like_the_crate(
            bytes in prop::collection::vec(any::<u8>(), 0..64),
            k in 1usize..=17,
        ) {
            let mut got = Vec::new();
            for_each_window_dyn(&bytes, k, |h| got.push(h));
            let want: Vec<u64> = bytes.windows(k).map(|w| xxh3_64_with_seed(w, 0)).collect();
            prop_assert_eq!(got, want);
        }
    }
}
