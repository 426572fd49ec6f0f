//! XXH3-64 with seed 0 for inputs of at most 16 bytes, inlined and specialised
//! by length: the shingle hash of [`crate::text::shingle`] without a function call per
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
//! The 4–8 byte path of consecutive windows ([`for_each_window`] with `K` in
//! 4..=8, char 5-shingles among them) runs 8 windows per AVX-512 vector where
//! the CPU has it ([`kernel`]); the hashes are still emitted one at a time and
//! in order, or a block at a time ([`for_each_window_block`]) for a consumer
//! that is itself a batch kernel.
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

/// Windows hashed per call of a vector kernel before they are emitted: small
/// enough to stay in L1 (512 bytes), large enough that the call is noise.
const BLOCK: usize = 64;

/// Calls `emit` with the XXH3-64 of every window of `K` consecutive bytes of
/// `bytes`, in order. `K` is a constant, so the length dispatch of
/// [`xxh3_64`] is resolved at compile time.
///
/// For `K` in 4..=8 on a CPU with AVX-512 ([`kernel::Variant::Avx512`]) the
/// windows are hashed eight per vector into a small buffer, then emitted in
/// order: the same values as the scalar loop, bit for bit.
#[inline(always)]
pub fn for_each_window<const K: usize>(bytes: &[u8], emit: impl FnMut(u64)) {
    if K == 0 || bytes.len() < K {
        return;
    }
    if (4..=8).contains(&K) && bytes.len() - K + 1 >= kernel::MIN_WINDOWS {
        kernel::for_each_window_4to8::<K>(crate::simd::best(), bytes, emit);
    } else {
        for_each_window_scalar::<K>(bytes, emit);
    }
}

/// The scalar loop: the definition every vector kernel must equal.
#[inline(always)]
fn for_each_window_scalar<const K: usize>(bytes: &[u8], mut emit: impl FnMut(u64)) {
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

/// [`for_each_window`] for a caller that takes the hashes a block at a time
/// (for example [`crate::sketch::Sketch::add_batch`]): `emit_block` gets
/// consecutive slices of at most 64 hashes, in window order, the same values.
/// Saves the per-hash call when the consumer is itself a batch kernel.
#[inline(always)]
pub fn for_each_window_block<const K: usize>(bytes: &[u8], emit_block: impl FnMut(&[u64])) {
    if K == 0 || bytes.len() < K {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if (4..=8).contains(&K) && crate::simd::best::<kernel::Variant>() == kernel::Variant::Avx512 {
        kernel::for_each_block_avx512::<K>(bytes, emit_block);
        return;
    }
    let mut blocks = Blocks::new(emit_block);
    for_each_window_scalar::<K>(bytes, |h| blocks.push(h));
    blocks.finish();
}

/// Gathers hashes produced one at a time into blocks of at most 64 for a
/// consumer that takes blocks (see [`for_each_window_block`]), for the
/// producers that have no block path.
pub struct Blocks<F: FnMut(&[u64])> {
    buf: [u64; BLOCK],
    len: usize,
    emit_block: F,
}

impl<F: FnMut(&[u64])> Blocks<F> {
    pub fn new(emit_block: F) -> Self {
        Blocks {
            buf: [0; BLOCK],
            len: 0,
            emit_block,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, h: u64) {
        self.buf[self.len] = h;
        self.len += 1;
        if self.len == BLOCK {
            (self.emit_block)(&self.buf);
            self.len = 0;
        }
    }

    /// The hashes of every `k`-byte window of `bytes` after those pushed so
    /// far, passed on a block at a time ([`for_each_window_block_dyn`]).
    #[inline]
    pub fn windows(&mut self, bytes: &[u8], k: usize) {
        if self.len > 0 {
            (self.emit_block)(&self.buf[..self.len]);
            self.len = 0;
        }
        for_each_window_block_dyn(bytes, k, &mut self.emit_block);
    }

    /// Emits the last, partial block.
    pub fn finish(mut self) {
        if self.len > 0 {
            (self.emit_block)(&self.buf[..self.len]);
        }
    }
}

/// Vector kernels for the 4–8 byte windows, selected at run time.
///
/// XXH3's 4–8 byte path is two 64-bit multiplies, rotates and shifts on one
/// 64-bit word `first4 << 32 | last4`. AVX-512 computes it for 8 consecutive
/// windows per vector: one 16-byte load holds the bytes of all 8 windows
/// (window `j` needs bytes `j..j+K` ≤ 15), broadcast to the four 128-bit lanes,
/// and a byte shuffle (`vpshufb`, AVX-512BW; lanes stay within their 128 bits,
/// so the broadcast makes every byte reachable) builds each window's word; the
/// multiplies are `vpmullq` (AVX-512DQ). The last block's load is masked to
/// the slice (masked-off bytes are never touched, so it cannot fault).
/// AVX2 has no 64-bit multiply, so it has no variant here.
pub mod kernel {
    use super::{BLOCK, for_each_window_scalar};
    use crate::simd::{Features, KernelSet};

    /// Fewer windows than this go to the scalar loop: the vector call and
    /// the buffer would cost more than they save.
    pub const MIN_WINDOWS: usize = 8;

    /// The window-hash variants, for benchmarks and tests.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Variant {
        /// One window at a time: the reference.
        Scalar,
        /// Eight windows per 512-bit vector (AVX-512 F, BW, DQ, VL).
        Avx512,
    }

    impl KernelSet for Variant {
        const ALL: &'static [Variant] = &[Variant::Scalar, Variant::Avx512];
        const PREFERENCE: &'static [Variant] = &[Variant::Avx512, Variant::Scalar];

        fn name(self) -> &'static str {
            match self {
                Variant::Scalar => "scalar",
                Variant::Avx512 => "avx512",
            }
        }

        #[inline]
        fn supported_by(self, f: &Features) -> bool {
            match self {
                Variant::Scalar => true,
                Variant::Avx512 => f.avx512f && f.avx512bw && f.avx512dq && f.avx512vl,
            }
        }
    }

    /// [`super::for_each_window`] with a chosen variant; `false` (and no
    /// call of `emit`) if the CPU lacks its features. Any `K` is accepted;
    /// the vector variant covers 4..=8 and falls back to the scalar loop for
    /// the others.
    pub fn for_each_window_variant<const K: usize>(
        variant: Variant,
        bytes: &[u8],
        emit: impl FnMut(u64),
    ) -> bool {
        if !variant.supported() {
            return false;
        }
        if (4..=8).contains(&K) {
            for_each_window_4to8::<K>(variant, bytes, emit);
        } else {
            for_each_window_scalar::<K>(bytes, emit);
        }
        true
    }

    /// `K` in 4..=8, `variant` supported.
    #[inline(always)]
    pub(super) fn for_each_window_4to8<const K: usize>(
        variant: Variant,
        bytes: &[u8],
        mut emit: impl FnMut(u64),
    ) {
        match variant {
            #[cfg(target_arch = "x86_64")]
            Variant::Avx512 => {
                for_each_block_avx512::<K>(bytes, |block| block.iter().for_each(|&h| emit(h)))
            }
            _ => for_each_window_scalar::<K>(bytes, emit),
        }
    }

    /// The windows' hashes in consecutive blocks of at most [`BLOCK`].
    /// The CPU must have the features of [`Variant::Avx512`]; `K` in 4..=8.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn for_each_block_avx512<const K: usize>(
        bytes: &[u8],
        mut emit_block: impl FnMut(&[u64]),
    ) {
        debug_assert!((4..=8).contains(&K));
        if bytes.len() < K {
            return;
        }
        let windows = bytes.len() - K + 1;
        let mut buf = [0u64; BLOCK];
        let mut start = 0;
        while start < windows {
            let n = (windows - start).min(BLOCK);
            // SAFETY: every caller checked the variant's features;
            // `bytes[start..]` holds `n + K - 1` bytes.
            unsafe { hash_block_avx512::<K>(&bytes[start..], &mut buf[..n]) };
            emit_block(&buf[..n]);
            start += n;
        }
    }

    /// The XXH3 4–8 byte path of windows `0..out.len()` of `bytes` into `out`.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW, DQ and VL; `4 <= K <= 8`;
    /// `bytes.len() >= out.len() + K - 1`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
    unsafe fn hash_block_avx512<const K: usize>(bytes: &[u8], out: &mut [u64]) {
        use super::{FLIP_4TO8, PRIME_MX2};
        use std::arch::x86_64::*;

        // Byte j of the shuffle picks source byte idx[j] of the lane's 16
        // bytes. Lane L holds windows 2L and 2L+1; word q of the lane is the
        // window w = 2L + q: low 4 bytes = its last four (w+K-4..w+K),
        // high 4 = its first four (w..w+4).
        const fn shuffle<const K: usize>() -> [u8; 64] {
            let mut idx = [0u8; 64];
            let mut lane = 0;
            while lane < 4 {
                let mut q = 0;
                while q < 2 {
                    let w = 2 * lane + q;
                    let mut b = 0;
                    while b < 4 {
                        // Saturating: the caller only runs 4 <= K <= 8, but the
                        // function is instantiated (and this evaluated) for
                        // every K, where K - 4 would not compile (Miri).
                        idx[lane * 16 + q * 8 + b] = ((w + K).saturating_sub(4) + b) as u8;
                        idx[lane * 16 + q * 8 + 4 + b] = (w + b) as u8;
                        b += 1;
                    }
                    q += 1;
                }
                lane += 1;
            }
            idx
        }
        let idx_bytes: [u8; 64] = const { shuffle::<K>() };
        debug_assert!(bytes.len() + 1 >= out.len() + K);

        // SAFETY: an unaligned load of exactly the 64 bytes of the local
        // array `idx_bytes`; the caller promised AVX-512 F.
        let idx = unsafe { _mm512_loadu_si512(idx_bytes.as_ptr().cast()) };
        let flip = _mm512_set1_epi64(FLIP_4TO8 as i64);
        let prime = _mm512_set1_epi64(PRIME_MX2 as i64);
        let len = _mm512_set1_epi64(K as i64);
        let hash8 = |chunk: __m128i| {
            let words = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(chunk), idx);
            // rrmxmx, as in super::rrmxmx.
            let mut h = _mm512_xor_si512(words, flip);
            h = _mm512_xor_si512(
                h,
                _mm512_xor_si512(_mm512_rol_epi64::<49>(h), _mm512_rol_epi64::<24>(h)),
            );
            h = _mm512_mullo_epi64(h, prime);
            h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64::<35>(h), len));
            h = _mm512_mullo_epi64(h, prime);
            _mm512_xor_si512(h, _mm512_srli_epi64::<28>(h))
        };

        let n = out.len();
        let src = bytes.as_ptr();
        let dst = out.as_mut_ptr();
        let mut i = 0;
        // Full blocks whose 16-byte load stays inside the slice.
        while i + 8 <= n && i + 16 <= bytes.len() {
            // SAFETY: i + 16 <= bytes.len() and i + 8 <= n.
            unsafe {
                let chunk = _mm_loadu_si128(src.add(i).cast());
                _mm512_storeu_si512(dst.add(i).cast(), hash8(chunk));
            }
            i += 8;
        }
        // At most two more blocks: the load masked to the slice, the store to
        // the windows that exist.
        while i < n {
            let avail = (bytes.len() - i).min(16);
            let load_mask: __mmask16 = ((1u32 << avail) - 1) as __mmask16;
            let store_mask: __mmask8 = ((1u32 << (n - i).min(8)) - 1) as __mmask8;
            // SAFETY: masked-off bytes and lanes are not accessed; the
            // enabled ones lie inside `bytes` and `out`.
            unsafe {
                let chunk = _mm_maskz_loadu_epi8(load_mask, src.add(i).cast());
                _mm512_mask_storeu_epi64(dst.add(i).cast(), store_mask, hash8(chunk));
            }
            i += 8;
        }
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

/// [`for_each_window_block`] for a `k` known only at run time (one
/// specialised loop per `k` up to 16, the crate's hash per window beyond).
#[inline]
pub fn for_each_window_block_dyn(bytes: &[u8], k: usize, emit_block: impl FnMut(&[u64])) {
    macro_rules! dispatch {
        ($($k:literal)*) => {
            match k {
                $($k => for_each_window_block::<$k>(bytes, emit_block),)*
                _ => {
                    if bytes.len() >= k {
                        let mut blocks = Blocks::new(emit_block);
                        bytes.windows(k).for_each(|w| blocks.push(xxh3_64_with_seed(w, 0)));
                        blocks.finish();
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
    use crate::simd::KernelSet;
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

    /// Every window hash of `bytes` for a run-time `k` in 1..=16 through
    /// `variant`; `None` if the CPU lacks it.
    fn variant_windows(variant: kernel::Variant, bytes: &[u8], k: usize) -> Option<Vec<u64>> {
        let mut got = Vec::new();
        macro_rules! dispatch {
            ($($k:literal)*) => {
                match k {
                    $($k => kernel::for_each_window_variant::<$k>(variant, bytes, |h| got.push(h)),)*
                    _ => unreachable!("k = {k}"),
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16).then_some(got)
    }

    /// The scalar definition: one crate call per window.
    fn crate_windows(bytes: &[u8], k: usize) -> Vec<u64> {
        bytes.windows(k).map(|w| xxh3_64_with_seed(w, 0)).collect()
    }

    #[test]
    fn every_variant_equals_the_crate_at_every_length_and_block_edge() {
        // Lengths around every block edge (8 windows per vector, BLOCK per
        // call, the 16-byte load) and at the slice's end, for each k.
        let text = sample(3 * BLOCK + 40, 11);
        for &v in kernel::Variant::ALL {
            if !v.supported() {
                assert!(variant_windows(v, &text, 5).is_none());
            }
        }
        crate::simd::for_each_supported::<kernel::Variant>(|v| {
            for k in 1..=16 {
                for len in 0..text.len() {
                    let got = variant_windows(v, &text[..len], k).unwrap();
                    assert_eq!(
                        got,
                        crate_windows(&text[..len], k),
                        "{} k {k} len {len}",
                        v.name()
                    );
                }
            }
        });
        eprintln!(
            "window kernel: {}",
            crate::simd::best::<kernel::Variant>().name()
        );
    }

    #[test]
    fn blocks_concatenate_to_the_windows_for_every_k() {
        let text = sample(3 * BLOCK + 40, 5);
        for k in 1..=20 {
            for len in [0, 1, k, k + 7, BLOCK + k - 1, BLOCK + k, text.len()] {
                let bytes = &text[..len.min(text.len())];
                let mut got = Vec::new();
                let mut sizes = Vec::new();
                for_each_window_block_dyn(bytes, k, |b| {
                    sizes.push(b.len());
                    got.extend_from_slice(b);
                });
                assert_eq!(got, crate_windows(bytes, k), "k {k} len {len}");
                assert!(sizes.iter().all(|&s| (1..=BLOCK).contains(&s)), "{sizes:?}");
            }
        }
    }

    #[test]
    fn a_slice_ending_at_a_page_boundary_is_hashed_without_reading_past_it() {
        // The masked tail load must not touch bytes beyond the slice: put the
        // slice's end at the end of a mapping followed by an unmapped page.
        const PAGE: usize = 4096;
        // SAFETY: plain anonymous mappings, unmapped before returning.
        unsafe {
            let base = libc::mmap(
                std::ptr::null_mut(),
                2 * PAGE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(base, libc::MAP_FAILED);
            assert_eq!(libc::munmap(base.cast::<u8>().add(PAGE).cast(), PAGE), 0);
            let page = std::slice::from_raw_parts_mut(base.cast::<u8>(), PAGE);
            page.copy_from_slice(&sample(PAGE, 3));
            for len in [5, 8, 15, 16, 17, 23, 64, 100] {
                let bytes = &page[PAGE - len..];
                crate::simd::for_each_supported::<kernel::Variant>(|v| {
                    for k in [4, 5, 8] {
                        let got = variant_windows(v, bytes, k).unwrap();
                        assert_eq!(got, crate_windows(bytes, k), "{} k {k} len {len}", v.name());
                    }
                });
            }
            assert_eq!(libc::munmap(base, PAGE), 0);
        }
    }

    proptest! {
        // A fixed seed and no regression file: a failure reproduces on any clone.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5405_5EED),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
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

        #[test]
        fn every_variant_hashes_random_bytes_like_the_crate(
            bytes in prop::collection::vec(any::<u8>(), 0..300),
            k in 1usize..=16,
        ) {
            let want = crate_windows(&bytes, k);
            let mut got = Vec::new();
            crate::simd::for_each_supported::<kernel::Variant>(|v| {
                got.push((v, variant_windows(v, &bytes, k).unwrap()));
            });
            for (v, got) in got {
                prop_assert_eq!(got, want.clone(), "{}", v.name());
            }
        }

        #[test]
        fn every_variant_hashes_ascii_text_like_the_crate(
            text in "[ -~\\n]{0,300}",
            k in 1usize..=16,
        ) {
            let want = crate_windows(text.as_bytes(), k);
            let mut got = Vec::new();
            crate::simd::for_each_supported::<kernel::Variant>(|v| {
                got.push((v, variant_windows(v, text.as_bytes(), k).unwrap()));
            });
            for (v, got) in got {
                prop_assert_eq!(got, want.clone(), "{}", v.name());
            }
        }
    }
}
