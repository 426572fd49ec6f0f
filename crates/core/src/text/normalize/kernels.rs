//! The ASCII kernel: normalises the leading ASCII bytes of a slice, appending
//! to a `Vec<u8>`, and stops at the first non-ASCII byte.
//!
//! Whitespace is collapsed without a branch per byte: every byte is written
//! (mapped through a table: ASCII lowercase, and the six `char::is_whitespace`
//! ASCII bytes `\t \n \x0B \x0C \r` and space to a space) and the write index
//! advances unless the byte is a space following a space or the start of the
//! output. That leaves a space exactly between two non-space characters plus
//! possibly one at the end, which the caller pops. With AVX-512 VBMI2 the same
//! is done 64 bytes at a time, `vpcompressb` dropping the collapsed spaces;
//! with AVX2 32 at a time, packing each 8-byte group with `pshufb`. Every
//! implementation writes at most one byte per byte read, so the output never
//! needs more room than the input.
//!
//! The SIMD kernels are `unsafe` to call on a CPU without their features:
//! [`simd::best`](crate::simd::best) picks only supported ones and
//! [`normalize_into_kernel`](super::normalize_into_kernel) asserts it.

use super::Normalization;
use crate::simd::{Features, KernelSet};

/// Which implementation of the kernel to run (the same output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// The table loop, eight bytes at a time while ASCII: the reference.
    Scalar,
    /// 32 bytes per step, each 8-byte group packed by `pshufb`.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 64 bytes per step, `vpcompressb` dropping the collapsed spaces.
    #[cfg(target_arch = "x86_64")]
    Avx512Vbmi2,
}

impl KernelSet for Kernel {
    const ALL: &'static [Kernel] = &[
        Kernel::Scalar,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512Vbmi2,
    ];

    const PREFERENCE: &'static [Kernel] = &[
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512Vbmi2,
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2,
        Kernel::Scalar,
    ];

    fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Vbmi2 => "avx512-vbmi2",
        }
    }

    #[inline]
    fn supported_by(self, f: &Features) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => f.avx2 && f.popcnt,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Vbmi2 => f.avx512f && f.avx512bw && f.avx512vbmi2 && f.popcnt,
        }
    }
}

impl Kernel {
    /// Normalises the ASCII prefix of `src` onto `out` and returns its
    /// length. When collapsing, the last byte of `out` (a space, or none)
    /// says whether a preceding whitespace is pending, so that runs chain.
    /// The CPU must support `self`: [`simd::best`](crate::simd::best) and
    /// [`normalize_into_kernel`](super::normalize_into_kernel) make sure of it.
    pub(super) fn run(self, src: &[u8], norm: Normalization, out: &mut Vec<u8>) -> usize {
        debug_assert!(self.supported());
        out.reserve(src.len());
        let spare = out.spare_capacity_mut();
        debug_assert!(spare.len() >= src.len());
        let dst = spare.as_mut_ptr().cast::<u8>();
        let after_space = out.last().is_none_or(|&b| b == b' ');
        // SAFETY: `dst` has room for `src.len()` bytes, the most any kernel
        // writes (each writes at most one byte per byte read); the CPU
        // supports `self` (the callers' contract above).
        let (read, written) = unsafe {
            match (norm.lowercase, norm.collapse_whitespace) {
                (true, true) => dispatch::<true, true>(self, src, dst, after_space),
                (false, true) => dispatch::<false, true>(self, src, dst, after_space),
                (true, false) => dispatch::<true, false>(self, src, dst, after_space),
                (false, false) => dispatch::<false, false>(self, src, dst, after_space),
            }
        };
        debug_assert!(written <= read && read <= src.len());
        // SAFETY: the kernel initialised `written` bytes after the length.
        unsafe { out.set_len(out.len() + written) };
        read
    }
}

/// # Safety
/// The CPU must support `kernel`; `dst` must be valid for writes of
/// `src.len()` bytes.
#[inline(always)]
unsafe fn dispatch<const LOWER: bool, const COLLAPSE: bool>(
    kernel: Kernel,
    src: &[u8],
    dst: *mut u8,
    after_space: bool,
) -> (usize, usize) {
    match kernel {
        // SAFETY: as promised by the caller.
        Kernel::Scalar => unsafe { scalar::<LOWER, COLLAPSE>(src, dst, after_space) },
        // SAFETY: the caller promised AVX2 and room at `dst`.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { avx2::run::<LOWER, COLLAPSE>(src, dst, after_space) },
        // SAFETY: the caller promised AVX-512 BW and VBMI2 and room at `dst`.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512Vbmi2 => unsafe { avx512::run::<LOWER, COLLAPSE>(src, dst, after_space) },
    }
}

/// Each byte's normalised byte when collapsing whitespace: a space for the
/// six ASCII whitespace bytes of `char::is_whitespace`
/// (`u8::is_ascii_whitespace` would miss the vertical tab), the ASCII
/// lowercase if `lower`, else itself. Only whitespace maps to a space.
const fn table(lower: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
            b' '
        } else if lower {
            b.to_ascii_lowercase()
        } else {
            b
        };
        i += 1;
    }
    t
}

static COLLAPSE_LOWER: [u8; 256] = table(true);
static COLLAPSE_KEEP_CASE: [u8; 256] = table(false);

/// The length of the ASCII prefix of `src`, eight bytes at a time.
fn ascii_prefix(src: &[u8]) -> usize {
    let words = src.chunks_exact(8);
    let tail = words.remainder();
    let mut n = 0;
    for word in words {
        let high = u64::from_le_bytes(word.try_into().unwrap()) & 0x8080_8080_8080_8080;
        if high != 0 {
            return n + high.trailing_zeros() as usize / 8;
        }
        n += 8;
    }
    n + tail.iter().take_while(|b| b.is_ascii()).count()
}

/// The scalar kernel: the ASCII prefix found first, then one
/// branch-free loop over it.
///
/// # Safety
/// `dst` must be valid for writes of `src.len()` bytes.
#[inline(always)]
pub(super) unsafe fn scalar<const LOWER: bool, const COLLAPSE: bool>(
    src: &[u8],
    dst: *mut u8,
    mut after_space: bool,
) -> (usize, usize) {
    let table = if LOWER {
        &COLLAPSE_LOWER
    } else {
        &COLLAPSE_KEEP_CASE
    };
    let mut w = 0;
    let mut step = |b: u8| {
        let m = if COLLAPSE {
            table[b as usize]
        } else if LOWER {
            b.to_ascii_lowercase()
        } else {
            b
        };
        // SAFETY: `w` never passes the number of bytes read, and every
        // byte read is within `src`, for which `dst` has room.
        unsafe { dst.add(w).write(m) };
        if COLLAPSE {
            let space = m == b' ';
            w += usize::from(!(space && after_space));
            after_space = space;
        } else {
            w += 1;
        }
    };
    let read = ascii_prefix(src);
    src[..read].iter().for_each(|&b| step(b));
    (read, w)
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// For each 8-bit mask of bytes to keep, the `pshufb` indices that move
    /// the kept bytes of an 8-byte group to its front, in order.
    static PACK: [[u8; 8]; 256] = {
        let mut t = [[0x80u8; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut from, mut to) = (0, 0);
            while from < 8 {
                if mask >> from & 1 == 1 {
                    t[mask][to] = from as u8;
                    to += 1;
                }
                from += 1;
            }
            mask += 1;
        }
        t
    };

    /// The same as [`super::scalar`], 32 bytes per step; AVX2 has no byte
    /// compress, so each 8-byte group is packed by a `pshufb` from
    /// [`PACK`] and stored whole, the next group overwriting its tail.
    /// The tail and a block with a non-ASCII byte go to the scalar kernel.
    ///
    /// # Safety
    /// The CPU must have AVX2; `dst` must be valid for writes of
    /// `src.len()` bytes.
    #[target_feature(enable = "avx2,popcnt")]
    pub(in super::super) unsafe fn run<const LOWER: bool, const COLLAPSE: bool>(
        src: &[u8],
        dst: *mut u8,
        after_space: bool,
    ) -> (usize, usize) {
        let n = src.len();
        let (mut i, mut w) = (0, 0);
        // Whether the byte before the current block was whitespace (or
        // the output is empty): bit 0 of the dropped-space mask.
        let mut carry = u32::from(after_space);
        let before_a = _mm256_set1_epi8(b'A' as i8 - 1);
        let after_z = _mm256_set1_epi8(b'Z' as i8 + 1);
        let before_tab = _mm256_set1_epi8(b'\t' as i8 - 1);
        let after_cr = _mm256_set1_epi8(b'\r' as i8 + 1);
        let space = _mm256_set1_epi8(b' ' as i8);
        let case_bit = _mm256_set1_epi8(0x20);
        let high_group = _mm_set1_epi8(8);
        while i + 32 <= n {
            // SAFETY: src[i..i + 32] is in bounds.
            let v = unsafe { _mm256_loadu_si256(src.as_ptr().add(i).cast()) };
            if _mm256_movemask_epi8(v) != 0 {
                break;
            }
            // Signed compares are exact: every byte is ASCII here.
            let mut m = v;
            if LOWER {
                let upper = _mm256_and_si256(
                    _mm256_cmpgt_epi8(v, before_a),
                    _mm256_cmpgt_epi8(after_z, v),
                );
                m = _mm256_or_si256(m, _mm256_and_si256(upper, case_bit));
            }
            if !COLLAPSE {
                // SAFETY: w == i, and dst has room for n >= i + 32 bytes.
                unsafe { _mm256_storeu_si256(dst.add(w).cast(), m) };
                (i, w) = (i + 32, w + 32);
                continue;
            }
            // \t \n \x0B \x0C \r are 9..=13.
            let ws = _mm256_or_si256(
                _mm256_cmpeq_epi8(v, space),
                _mm256_and_si256(
                    _mm256_cmpgt_epi8(v, before_tab),
                    _mm256_cmpgt_epi8(after_cr, v),
                ),
            );
            m = _mm256_blendv_epi8(m, space, ws);
            let ws = _mm256_movemask_epi8(ws) as u32;
            let keep = !(ws & ((ws << 1) | carry));
            carry = ws >> 31;
            let halves = [_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m)];
            for (h, half) in halves.into_iter().enumerate() {
                for group in 0..2 {
                    let bits = (keep >> (16 * h + 8 * group)) & 0xFF;
                    // SAFETY: PACK has 256 rows of 8 bytes.
                    let mut idx = unsafe { _mm_loadl_epi64(PACK[bits as usize].as_ptr().cast()) };
                    if group == 1 {
                        // Index the upper 8 bytes; 0x80 stays >= 0x80 (zero).
                        idx = _mm_add_epi8(idx, high_group);
                    }
                    // SAFETY: this group starts at byte i + 16h + 8group
                    // of src and w is at most that, so its 8 bytes stay
                    // within the n bytes of room.
                    unsafe { _mm_storel_epi64(dst.add(w).cast(), _mm_shuffle_epi8(half, idx)) };
                    w += bits.count_ones() as usize;
                }
            }
            i += 32;
        }
        // SAFETY: dst + w has room for the n - i bytes left, as w <= i.
        let (read, written) =
            unsafe { super::scalar::<LOWER, COLLAPSE>(&src[i..], dst.add(w), carry != 0) };
        (i + read, w + written)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// The same as [`super::scalar`], 64 bytes per step.
    ///
    /// # Safety
    /// The CPU must have AVX-512 BW and VBMI2; `dst` must be valid for
    /// writes of `src.len()` bytes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
    pub(in super::super) unsafe fn run<const LOWER: bool, const COLLAPSE: bool>(
        src: &[u8],
        dst: *mut u8,
        after_space: bool,
    ) -> (usize, usize) {
        let n = src.len();
        let (mut i, mut w) = (0, 0);
        // Bit 0: whether the byte before the current block was a space
        // (or the output is empty), shifted in below bit 0 of the block.
        let mut carry = u64::from(after_space);
        let upper_a = _mm512_set1_epi8(b'A' as i8);
        let tab = _mm512_set1_epi8(b'\t' as i8);
        let space = _mm512_set1_epi8(b' ' as i8);
        let case_bit = _mm512_set1_epi8(0x20);
        while i < n {
            let rem = n - i;
            let full = rem >= 64;
            let mut valid = if full { !0 } else { (1u64 << rem) - 1 };
            // SAFETY: a full load reads src[i..i + 64], in bounds; a
            // masked load touches only the `rem` bytes left (masked-out
            // lanes are not accessed and cannot fault).
            let v = unsafe {
                let p = src.as_ptr().add(i);
                if full {
                    _mm512_loadu_si512(p.cast())
                } else {
                    _mm512_maskz_loadu_epi8(valid, p.cast())
                }
            };
            let high = _mm512_movepi8_mask(v) & valid;
            let stop = high != 0 || !full;
            if high != 0 {
                valid = (1u64 << high.trailing_zeros()) - 1;
            }
            let mut m = v;
            if LOWER {
                let upper =
                    _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, upper_a), _mm512_set1_epi8(26));
                m = _mm512_mask_add_epi8(m, upper, m, case_bit);
            }
            let keep = if COLLAPSE {
                // \t \n \x0B \x0C \r are 9..=13.
                let ws = (_mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, tab), _mm512_set1_epi8(5))
                    | _mm512_cmpeq_epi8_mask(v, space))
                    & valid;
                m = _mm512_mask_mov_epi8(m, ws, space);
                let dropped = ws & ((ws << 1) | carry);
                carry = ws >> 63;
                valid & !dropped
            } else {
                valid
            };
            let count = keep.count_ones() as usize;
            let packed = if COLLAPSE {
                _mm512_maskz_compress_epi8(keep, m)
            } else {
                m
            };
            // SAFETY: w <= i, so a full block's 64 bytes at dst + w stay
            // within the `n` bytes of room; otherwise only `count` <= rem
            // bytes are stored (a masked store never touches the rest).
            unsafe {
                let p = dst.add(w);
                if full {
                    _mm512_storeu_si512(p.cast(), packed);
                } else {
                    _mm512_mask_storeu_epi8(p.cast(), (1u64 << count) - 1, packed);
                }
            }
            w += count;
            if stop {
                i += valid.count_ones() as usize;
                break;
            }
            i += 64;
        }
        (i, w)
    }
}
