//! MinHash signatures (MMDS 3.3): a shingle set in, `n` 32-bit values out, such
//! that two signatures agree in each position with probability equal to the
//! Jaccard similarity of the sets.
//!
//! Random permutations are simulated by a family of `n` hash functions
//! `h_i(x) = ((a_i · x + b_i) mod 2^64) >> 32` on the 32-bit fold of the shingle
//! hash, with `a_i` odd and `b_i` drawn from `--seed` (multiply-add-shift,
//! Dietzfelbinger 1996: strongly universal from 32 to 32 bits). The inner loop
//! runs over the `n` coefficients for one shingle at a time, which the compiler
//! vectorises. Signing works on the *set* of distinct shingles: the same value
//! twice cannot change a minimum.
//!
//! An empty set has the signature of all `u32::MAX`; callers never band or pair
//! empty documents.

/// `n` hash functions simulating `n` random permutations, drawn from a seed.
#[derive(Clone, Debug)]
pub struct MinHasher {
    mul: Vec<u64>,
    add: Vec<u64>,
    /// The same coefficients laid out for the 32-bit-multiply kernels.
    packed: kernel::Packed,
}

impl MinHasher {
    pub fn new(n: usize, seed: u64) -> Self {
        let mut rng = SplitMix64(seed);
        let mut mul = Vec::with_capacity(n);
        let mut add = Vec::with_capacity(n);
        for _ in 0..n {
            mul.push(rng.next_u64() | 1);
            add.push(rng.next_u64());
        }
        let packed = kernel::Packed::new(&mul, &add);
        MinHasher { mul, add, packed }
    }

    /// Number of hash functions, i.e. signature length.
    pub fn len(&self) -> usize {
        self.mul.len()
    }

    pub fn is_empty(&self) -> bool {
        self.mul.is_empty()
    }

    /// The `i`-th hash function, for tests and reference implementations.
    pub fn hash(&self, i: usize, shingle: u64) -> u32 {
        permute(self.mul[i], self.add[i], fold(shingle))
    }

    /// Writes the signature of `shingles` (any order; duplicates allowed but
    /// wasteful) into `out`, which must hold [`len`](Self::len) values.
    pub fn sign_into(&self, shingles: &[u64], out: &mut [u32]) {
        assert_eq!(
            out.len(),
            self.len(),
            "signature buffer has the wrong length"
        );
        kernel::sign(&self.mul, &self.add, &self.packed, shingles, out);
    }

    /// [`sign_into`](Self::sign_into) with one particular kernel variant, for
    /// benchmarks and tests. Returns `false` (and leaves `out` alone) if the
    /// CPU lacks the variant's features.
    pub fn sign_into_variant(
        &self,
        variant: kernel::Variant,
        shingles: &[u64],
        out: &mut [u32],
    ) -> bool {
        assert_eq!(
            out.len(),
            self.len(),
            "signature buffer has the wrong length"
        );
        kernel::sign_variant(variant, &self.mul, &self.add, &self.packed, shingles, out)
    }

    /// [`sign_into`](Self::sign_into) without SIMD dispatch: the baseline
    /// kernel, kept as the reference the dispatched variants must equal.
    pub fn sign_into_portable(&self, shingles: &[u64], out: &mut [u32]) {
        assert_eq!(
            out.len(),
            self.len(),
            "signature buffer has the wrong length"
        );
        kernel::sign_portable(&self.mul, &self.add, shingles, out);
    }

    pub fn sign(&self, shingles: &[u64]) -> Vec<u32> {
        let mut out = vec![0; self.len()];
        self.sign_into(shingles, &mut out);
        out
    }
}

#[inline(always)]
fn fold(shingle: u64) -> u64 {
    (shingle ^ (shingle >> 32)) & 0xFFFF_FFFF
}

#[inline(always)]
fn permute(a: u64, b: u64, x: u64) -> u32 {
    (a.wrapping_mul(x).wrapping_add(b) >> 32) as u32
}

/// The signing kernel: for each shingle, one pass of `(a·x + b) >> 32` and min
/// over the `n` coefficient arrays. The portable body is the plain loop (the
/// compiler turns it into vector multiply, add, shift and min); it is the
/// reference every other variant must equal bit for bit.
///
/// The fast variants avoid the 64-bit vector multiply (`vpmullq`: 3 µops and
/// 15 cycles, AVX-512DQ only). Since `x < 2^32`, with `a = a_hi·2^32 + a_lo`,
///
/// ```text
/// ((a·x + b) mod 2^64) >> 32  =  (((a_lo·x + b) mod 2^64) >> 32) + a_hi·x   (mod 2^32)
/// ```
///
/// so each value takes one 32×32→64 multiply (`vpmuludq`, 1 µop) for the low
/// part and one 32-bit multiply (`vpmulld`) for the high part. The
/// coefficients are pre-arranged (`Packed`) so that the 64-bit products of
/// even and odd positions blend straight into 32-bit lanes in natural order.
/// The variants are compiled with `#[target_feature]` and the widest the
/// running CPU supports is chosen at run time, so the release binary runs on
/// any x86-64 (no `target-cpu` needed).
///
/// The `*-regs` variants hold the minima of up to [`GROUP`] blocks (128
/// functions with AVX-512) in vector registers while the shingles stream
/// past, and store them once at the end; the `*-mul32` variants load and
/// store `out` once per block and shingle, a masked load and store whose
/// store feeds the next shingle's load. The shingle loop stays outermost
/// within a group, so each shingle is folded and broadcast once per group.
/// (An earlier variant that held *one* block of 16 minima in registers and
/// passed over the shingles once per block measured slower: docs/PERFORMANCE.md,
/// "What changed, and what each change measured".)
pub mod kernel {
    use super::{fold, permute};
    use crate::simd::{Features, KernelSet};

    /// Coefficients per block of [`Packed`]: one 512-bit vector of `u32`.
    pub const BLOCK: usize = 16;

    /// Blocks whose minima the `*-regs` variants hold in registers at once:
    /// 8 of AVX-512's 32 vector registers (the rest hold the shingle and the
    /// temporaries; the coefficients are read from L1 as memory operands), or
    /// with AVX2 8 of 16 registers, i.e. half as many blocks.
    pub const GROUP: usize = 8;

    /// One block of 16 hash functions `c0..c15`, laid out for the 32-bit
    /// multiply kernels: low halves and `b` of the even functions
    /// (`c0, c2, …`) and of the odd ones as 64-bit lanes, high halves of `a`
    /// as 32-bit lanes in natural order. The first 8 functions of a block are
    /// the first halves of each array, so AVX2 uses the same layout.
    #[derive(Clone, Copy, Debug, Default)]
    #[repr(C, align(64))]
    struct Block {
        lo_even: [u64; 8],
        lo_odd: [u64; 8],
        b_even: [u64; 8],
        b_odd: [u64; 8],
        hi: [u32; 16],
    }

    /// The coefficients of a [`super::MinHasher`] in [`BLOCK`]s, zero-padded.
    #[derive(Clone, Debug, Default)]
    pub struct Packed {
        blocks: Vec<Block>,
    }

    impl Packed {
        pub(super) fn new(mul: &[u64], add: &[u64]) -> Self {
            let blocks = mul
                .chunks(BLOCK)
                .zip(add.chunks(BLOCK))
                .map(|(a, b)| {
                    let mut blk = Block::default();
                    for (j, (&a, &b)) in a.iter().zip(b).enumerate() {
                        let (lo, bb) = if j % 2 == 0 {
                            (&mut blk.lo_even, &mut blk.b_even)
                        } else {
                            (&mut blk.lo_odd, &mut blk.b_odd)
                        };
                        lo[j / 2] = a & 0xFFFF_FFFF;
                        bb[j / 2] = b;
                        blk.hi[j] = (a >> 32) as u32;
                    }
                    blk
                })
                .collect();
            Packed { blocks }
        }
    }

    /// The kernel variants, for benchmarks and tests (`sign_variant`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Variant {
        /// The plain loop for the x86-64 baseline (SSE2): the reference.
        Portable,
        /// The plain loop compiled for AVX2.
        Avx2Autovec,
        /// The plain loop compiled for AVX-512 (`vpmullq`).
        Avx512Autovec,
        /// 32-bit multiplies with AVX2 intrinsics.
        Avx2Mul32,
        /// 32-bit multiplies with AVX-512 intrinsics.
        Avx512Mul32,
        /// `Avx2Mul32` with the minima held in registers ([`GROUP`]).
        Avx2Regs,
        /// `Avx512Mul32` with the minima held in registers ([`GROUP`]).
        Avx512Regs,
    }

    impl KernelSet for Variant {
        const ALL: &'static [Variant] = &[
            Variant::Portable,
            Variant::Avx2Autovec,
            Variant::Avx512Autovec,
            Variant::Avx2Mul32,
            Variant::Avx512Mul32,
            Variant::Avx2Regs,
            Variant::Avx512Regs,
        ];

        /// Fastest first, as measured by `classic_sign_<variant>` in
        /// benches/kernels.rs (docs/PERFORMANCE.md); the `*-autovec` variants
        /// are slower than their `*-mul32` siblings and kept for the benches,
        /// and so is `avx2-regs`, which measured no faster than `avx2-mul32`
        /// (on the AMD EPYC of docs/PERFORMANCE.md; no CPU with AVX2 alone was
        /// at hand).
        const PREFERENCE: &'static [Variant] = &[
            Variant::Avx512Regs,
            Variant::Avx512Mul32,
            Variant::Avx2Mul32,
            Variant::Portable,
        ];

        fn name(self) -> &'static str {
            match self {
                Variant::Portable => "portable",
                Variant::Avx2Autovec => "avx2-autovec",
                Variant::Avx512Autovec => "avx512-autovec",
                Variant::Avx2Mul32 => "avx2-mul32",
                Variant::Avx512Mul32 => "avx512-mul32",
                Variant::Avx2Regs => "avx2-regs",
                Variant::Avx512Regs => "avx512-regs",
            }
        }

        #[inline]
        fn supported_by(self, f: &Features) -> bool {
            match self {
                Variant::Portable => true,
                Variant::Avx2Autovec | Variant::Avx2Mul32 | Variant::Avx2Regs => f.avx2,
                Variant::Avx512Autovec => f.avx512f && f.avx512dq && f.avx512vl,
                Variant::Avx512Mul32 | Variant::Avx512Regs => f.avx512f,
            }
        }
    }

    #[inline(always)]
    fn body(mul: &[u64], add: &[u64], shingles: &[u64], out: &mut [u32]) {
        out.fill(u32::MAX);
        for &shingle in shingles {
            let x = fold(shingle);
            for ((slot, &a), &b) in out.iter_mut().zip(mul).zip(add) {
                *slot = (*slot).min(permute(a, b, x));
            }
        }
    }

    pub(super) fn sign_portable(mul: &[u64], add: &[u64], shingles: &[u64], out: &mut [u32]) {
        body(mul, add, shingles, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn sign_avx2_autovec(mul: &[u64], add: &[u64], shingles: &[u64], out: &mut [u32]) {
        body(mul, add, shingles, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    fn sign_avx512_autovec(mul: &[u64], add: &[u64], shingles: &[u64], out: &mut [u32]) {
        body(mul, add, shingles, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn sign_avx2_mul32(packed: &Packed, shingles: &[u64], out: &mut [u32]) {
        use std::arch::x86_64::*;
        let n = out.len();
        debug_assert!(packed.blocks.len() * BLOCK >= n);
        out.fill(u32::MAX);
        // Lanes of a partial last vector: all-ones for the lanes below n.
        let tail = n % 8;
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let tail_mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(tail as i32), lane);
        let dst = out.as_mut_ptr();
        for &shingle in shingles {
            let x = _mm256_set1_epi32(fold(shingle) as i32);
            for (bi, blk) in packed.blocks.iter().enumerate() {
                for half in 0..2 {
                    let base = bi * BLOCK + half * 8;
                    if base >= n {
                        break;
                    }
                    // SAFETY: every array of a Block holds 8 (u64) or 16
                    // (u32) values, so offsets half * 4 and half * 8 leave a
                    // full vector; `out` is accessed below `n` only (full
                    // vectors when base + 8 <= n, masked lanes otherwise).
                    unsafe {
                        let ld = |p: *const u64| _mm256_loadu_si256(p.add(half * 4).cast());
                        let se = _mm256_add_epi64(
                            _mm256_mul_epu32(ld(blk.lo_even.as_ptr()), x),
                            ld(blk.b_even.as_ptr()),
                        );
                        let so = _mm256_add_epi64(
                            _mm256_mul_epu32(ld(blk.lo_odd.as_ptr()), x),
                            ld(blk.b_odd.as_ptr()),
                        );
                        // Bits 32..64 of each sum: even functions' moved down
                        // into the low lane, odd ones' already in the high lane.
                        let low_part =
                            _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(se), so);
                        let hi = _mm256_loadu_si256(blk.hi.as_ptr().add(half * 8).cast());
                        let v = _mm256_add_epi32(low_part, _mm256_mullo_epi32(hi, x));
                        let p = dst.add(base).cast::<__m256i>();
                        if base + 8 <= n {
                            _mm256_storeu_si256(p, _mm256_min_epu32(_mm256_loadu_si256(p), v));
                        } else {
                            let q = p.cast::<i32>();
                            let cur = _mm256_maskload_epi32(q, tail_mask);
                            _mm256_maskstore_epi32(q, tail_mask, _mm256_min_epu32(cur, v));
                        }
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn sign_avx512_mul32(packed: &Packed, shingles: &[u64], out: &mut [u32]) {
        use std::arch::x86_64::*;
        let n = out.len();
        debug_assert!(packed.blocks.len() * BLOCK >= n);
        out.fill(u32::MAX);
        let dst = out.as_mut_ptr();
        for &shingle in shingles {
            let x = _mm512_set1_epi32(fold(shingle) as i32);
            for (bi, blk) in packed.blocks.iter().enumerate() {
                let base = bi * BLOCK;
                let rem = n - base;
                let mask: __mmask16 = if rem >= BLOCK {
                    u16::MAX
                } else {
                    (1u16 << rem) - 1
                };
                // SAFETY: a Block is 64-byte aligned and each of its arrays
                // is one 512-bit vector; lanes of `out` at or beyond `n` are
                // masked off, so only `out[..n]` is read or written.
                unsafe {
                    let se = _mm512_add_epi64(
                        _mm512_mul_epu32(_mm512_load_si512(blk.lo_even.as_ptr().cast()), x),
                        _mm512_load_si512(blk.b_even.as_ptr().cast()),
                    );
                    let so = _mm512_add_epi64(
                        _mm512_mul_epu32(_mm512_load_si512(blk.lo_odd.as_ptr().cast()), x),
                        _mm512_load_si512(blk.b_odd.as_ptr().cast()),
                    );
                    let low_part = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(se), so);
                    let hi = _mm512_load_si512(blk.hi.as_ptr().cast());
                    let v = _mm512_add_epi32(low_part, _mm512_mullo_epi32(hi, x));
                    let p = dst.add(base).cast::<i32>();
                    let cur = _mm512_maskz_loadu_epi32(mask, p);
                    _mm512_mask_storeu_epi32(p, mask, _mm512_min_epu32(cur, v));
                }
            }
        }
    }

    /// The 16 values `(a·x + b) >> 32` of one block for the broadcast `x`
    /// (the identity in the module's comment).
    ///
    /// # Safety
    /// The CPU must support AVX-512 F.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn block_avx512(
        blk: &Block,
        x: std::arch::x86_64::__m512i,
    ) -> std::arch::x86_64::__m512i {
        use std::arch::x86_64::*;
        // SAFETY: a Block is 64-byte aligned and each of its arrays is one
        // 512-bit vector.
        unsafe {
            let se = _mm512_add_epi64(
                _mm512_mul_epu32(_mm512_load_si512(blk.lo_even.as_ptr().cast()), x),
                _mm512_load_si512(blk.b_even.as_ptr().cast()),
            );
            let so = _mm512_add_epi64(
                _mm512_mul_epu32(_mm512_load_si512(blk.lo_odd.as_ptr().cast()), x),
                _mm512_load_si512(blk.b_odd.as_ptr().cast()),
            );
            let low_part = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(se), so);
            let hi = _mm512_load_si512(blk.hi.as_ptr().cast());
            _mm512_add_epi32(low_part, _mm512_mullo_epi32(hi, x))
        }
    }

    /// The minima of `NB` blocks over every shingle, in registers, stored
    /// into `out` (the functions of those blocks: at most `NB · 16`, more
    /// than `(NB - 1) · 16`).
    ///
    /// # Safety
    /// The CPU must support AVX-512 F.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn group_avx512<const NB: usize>(
        blocks: &[Block; NB],
        shingles: &[u64],
        out: &mut [u32],
    ) {
        use std::arch::x86_64::*;
        debug_assert!(out.len() <= NB * BLOCK && out.len() > (NB - 1) * BLOCK);
        let mut acc = [_mm512_set1_epi32(-1); NB];
        for &shingle in shingles {
            let x = _mm512_set1_epi32(fold(shingle) as i32);
            for (m, blk) in acc.iter_mut().zip(blocks) {
                // SAFETY: this function's own requirement.
                *m = _mm512_min_epu32(*m, unsafe { block_avx512(blk, x) });
            }
        }
        for (j, m) in acc.iter().enumerate() {
            let base = j * BLOCK;
            let rem = out.len() - base;
            let mask: __mmask16 = if rem >= BLOCK {
                u16::MAX
            } else {
                (1u16 << rem) - 1
            };
            // SAFETY: `base < out.len()` (see the debug assertion) and the
            // lanes at or beyond `out.len()` are masked off.
            unsafe { _mm512_mask_storeu_epi32(out.as_mut_ptr().add(base).cast(), mask, *m) };
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn sign_avx512_regs(packed: &Packed, shingles: &[u64], out: &mut [u32]) {
        debug_assert!(packed.blocks.len() * BLOCK >= out.len());
        let groups = packed
            .blocks
            .chunks(GROUP)
            .zip(out.chunks_mut(GROUP * BLOCK));
        for (blocks, out) in groups {
            // SAFETY: (every arm) AVX-512 F is enabled here; the chunk of
            // `out` holds the functions of exactly these blocks.
            unsafe {
                match blocks.len() {
                    1 => group_avx512::<1>(array(blocks), shingles, out),
                    2 => group_avx512::<2>(array(blocks), shingles, out),
                    3 => group_avx512::<3>(array(blocks), shingles, out),
                    4 => group_avx512::<4>(array(blocks), shingles, out),
                    5 => group_avx512::<5>(array(blocks), shingles, out),
                    6 => group_avx512::<6>(array(blocks), shingles, out),
                    7 => group_avx512::<7>(array(blocks), shingles, out),
                    _ => group_avx512::<8>(array(blocks), shingles, out),
                }
            }
        }
    }

    /// The 8 values of one half of a block (functions `8·half ..`) for the
    /// broadcast `x`, as `sign_avx2_mul32` computes them.
    ///
    /// # Safety
    /// The CPU must support AVX2, and `half` must be 0 or 1.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn half_avx2(
        blk: &Block,
        half: usize,
        x: std::arch::x86_64::__m256i,
    ) -> std::arch::x86_64::__m256i {
        use std::arch::x86_64::*;
        debug_assert!(half < 2);
        // SAFETY: every array of a Block holds 8 (u64) or 16 (u32) values,
        // so offsets half · 4 and half · 8 leave a full vector.
        unsafe {
            let ld = |p: *const u64| _mm256_loadu_si256(p.add(half * 4).cast());
            let se = _mm256_add_epi64(
                _mm256_mul_epu32(ld(blk.lo_even.as_ptr()), x),
                ld(blk.b_even.as_ptr()),
            );
            let so = _mm256_add_epi64(
                _mm256_mul_epu32(ld(blk.lo_odd.as_ptr()), x),
                ld(blk.b_odd.as_ptr()),
            );
            let low_part = _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(se), so);
            let hi = _mm256_loadu_si256(blk.hi.as_ptr().add(half * 8).cast());
            _mm256_add_epi32(low_part, _mm256_mullo_epi32(hi, x))
        }
    }

    /// [`group_avx512`] with AVX2: the minima of `NB` blocks (two 256-bit
    /// halves each) in registers.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn group_avx2<const NB: usize>(blocks: &[Block; NB], shingles: &[u64], out: &mut [u32]) {
        use std::arch::x86_64::*;
        let n = out.len();
        debug_assert!(n <= NB * BLOCK && n > (NB - 1) * BLOCK);
        let mut acc = [[_mm256_set1_epi32(-1); 2]; NB];
        for &shingle in shingles {
            let x = _mm256_set1_epi32(fold(shingle) as i32);
            for (m, blk) in acc.iter_mut().zip(blocks) {
                // SAFETY: this function's own requirement; halves 0 and 1.
                unsafe {
                    m[0] = _mm256_min_epu32(m[0], half_avx2(blk, 0, x));
                    m[1] = _mm256_min_epu32(m[1], half_avx2(blk, 1, x));
                }
            }
        }
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        for (j, m) in acc.iter().flatten().enumerate() {
            let base = j * 8;
            if base >= n {
                break;
            }
            let p = out[base..].as_mut_ptr();
            // SAFETY: `base < n`; a full vector is stored only when 8 values
            // of `out` remain, else the lanes at or beyond `n` are masked off.
            unsafe {
                if base + 8 <= n {
                    _mm256_storeu_si256(p.cast(), *m);
                } else {
                    let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((n - base) as i32), lane);
                    _mm256_maskstore_epi32(p.cast(), mask, *m);
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn sign_avx2_regs(packed: &Packed, shingles: &[u64], out: &mut [u32]) {
        debug_assert!(packed.blocks.len() * BLOCK >= out.len());
        const HALF: usize = GROUP / 2;
        let groups = packed.blocks.chunks(HALF).zip(out.chunks_mut(HALF * BLOCK));
        for (blocks, out) in groups {
            // SAFETY: (every arm) AVX2 is enabled here; the chunk of `out`
            // holds the functions of exactly these blocks.
            unsafe {
                match blocks.len() {
                    1 => group_avx2::<1>(array(blocks), shingles, out),
                    2 => group_avx2::<2>(array(blocks), shingles, out),
                    3 => group_avx2::<3>(array(blocks), shingles, out),
                    _ => group_avx2::<4>(array(blocks), shingles, out),
                }
            }
        }
    }

    /// `blocks` as an array of the length the caller matched on.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn array<const NB: usize>(blocks: &[Block]) -> &[Block; NB] {
        blocks
            .try_into()
            .expect("the caller matched on the number of blocks")
    }

    /// Runs `variant`; `false` (and `out` left alone) if the CPU lacks its
    /// features.
    pub(super) fn sign_variant(
        variant: Variant,
        mul: &[u64],
        add: &[u64],
        packed: &Packed,
        shingles: &[u64],
        out: &mut [u32],
    ) -> bool {
        if !variant.supported() {
            return false;
        }
        run(variant, mul, add, packed, shingles, out);
        true
    }

    /// Signs with the variant [`simd::best`](crate::simd::best) picks for
    /// this CPU.
    pub(super) fn sign(
        mul: &[u64],
        add: &[u64],
        packed: &Packed,
        shingles: &[u64],
        out: &mut [u32],
    ) {
        run(crate::simd::best(), mul, add, packed, shingles, out);
    }

    /// Runs `variant`, which the CPU must support.
    #[inline]
    fn run(
        variant: Variant,
        mul: &[u64],
        add: &[u64],
        packed: &Packed,
        shingles: &[u64],
        out: &mut [u32],
    ) {
        debug_assert!(variant.supported());
        match variant {
            Variant::Portable => body(mul, add, shingles, out),
            // SAFETY: the callers run only supported variants, and this one
            // needs AVX2.
            #[cfg(target_arch = "x86_64")]
            Variant::Avx2Autovec => unsafe { sign_avx2_autovec(mul, add, shingles, out) },
            // SAFETY: supported, so the CPU has AVX-512 F, DQ and VL.
            #[cfg(target_arch = "x86_64")]
            Variant::Avx512Autovec => unsafe { sign_avx512_autovec(mul, add, shingles, out) },
            // SAFETY: supported, so the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Variant::Avx2Mul32 => unsafe { sign_avx2_mul32(packed, shingles, out) },
            // SAFETY: supported, so the CPU has AVX-512 F.
            #[cfg(target_arch = "x86_64")]
            Variant::Avx512Mul32 => unsafe { sign_avx512_mul32(packed, shingles, out) },
            // SAFETY: supported, so the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Variant::Avx2Regs => unsafe { sign_avx2_regs(packed, shingles, out) },
            // SAFETY: supported, so the CPU has AVX-512 F.
            #[cfg(target_arch = "x86_64")]
            Variant::Avx512Regs => unsafe { sign_avx512_regs(packed, shingles, out) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("only the portable variant is supported here"),
        }
    }
}

/// Fraction of positions in which two signatures agree: the MinHash estimate of
/// the Jaccard similarity of the underlying sets.
pub fn estimate(a: &[u32], b: &[u32]) -> f64 {
    assert_eq!(a.len(), b.len(), "signatures of different lengths");
    if a.is_empty() {
        return 0.0;
    }
    let agree = a.iter().zip(b).filter(|(x, y)| x == y).count();
    agree as f64 / a.len() as f64
}

/// The textbook algorithm of MMDS 3.3.5 for arbitrary hash functions over row
/// numbers: for each row `r` of the characteristic matrix that is in the set,
/// every signature slot takes `min(slot, h_i(r))`. Used as an oracle in tests
/// and to reproduce the book's worked example.
pub fn sign_with_functions<F: Fn(u64) -> u64>(rows: &[u64], functions: &[F]) -> Vec<u64> {
    functions
        .iter()
        .map(|h| rows.iter().map(|&r| h(r)).min().unwrap_or(u64::MAX))
        .collect()
}

/// Small, seedable, well-distributed generator for the coefficients (Steele et
/// al. 2014). Deterministic across platforms, which is what `--seed` promises.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::KernelSet;
    use crate::similarity::jaccard;

    #[test]
    fn mmds_example_3_8_signature_matrix() {
        // Rows 0..4 are a, b, c, d, e; S1 = {a, d}, S2 = {c}, S3 = {b, d, e},
        // S4 = {a, c, d}; h1 = x + 1 mod 5, h2 = 3x + 1 mod 5.
        let sets: [&[u64]; 4] = [&[0, 3], &[2], &[1, 3, 4], &[0, 2, 3]];
        let h1 = |x: u64| (x + 1) % 5;
        let h2 = |x: u64| (3 * x + 1) % 5;
        let functions: [&dyn Fn(u64) -> u64; 2] = [&h1, &h2];
        let sigs: Vec<Vec<u64>> = sets
            .iter()
            .map(|s| sign_with_functions(s, &functions))
            .collect();
        let by_row: Vec<Vec<u64>> = (0..2)
            .map(|i| sigs.iter().map(|s| s[i]).collect())
            .collect();
        assert_eq!(by_row, vec![vec![1, 3, 0, 1], vec![0, 2, 0, 0]]);
    }

    #[test]
    fn fast_kernel_equals_textbook_algorithm() {
        let hasher = MinHasher::new(64, 7);
        let hasher_ref = &hasher;
        let set: Vec<u64> = (0..500u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let functions: Vec<_> = (0..64)
            .map(|i| move |x: u64| hasher_ref.hash(i, x) as u64)
            .collect();
        let expected: Vec<u32> = sign_with_functions(&set, &functions)
            .iter()
            .map(|&v| v as u32)
            .collect();
        assert_eq!(hasher.sign(&set), expected);
    }

    #[test]
    fn dispatched_kernel_equals_portable_for_every_block_shape() {
        // n below, at and between multiples of the block width, and an empty set.
        for n in [1, 15, 16, 17, 100, 128] {
            let hasher = MinHasher::new(n, n as u64);
            for len in [0usize, 1, 7, 1000] {
                let set: Vec<u64> = (0..len as u64)
                    .map(|i| i.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ 0x1234)
                    .collect();
                let mut fast = vec![0; n];
                let mut slow = vec![0; n];
                hasher.sign_into(&set, &mut fast);
                hasher.sign_into_portable(&set, &mut slow);
                assert_eq!(
                    fast,
                    slow,
                    "n={n} len={len} ({})",
                    crate::simd::best::<kernel::Variant>().name()
                );
                let textbook: Vec<u32> = (0..n)
                    .map(|i| {
                        set.iter()
                            .map(|&x| hasher.hash(i, x))
                            .min()
                            .unwrap_or(u32::MAX)
                    })
                    .collect();
                assert_eq!(fast, textbook, "n={n} len={len}");
            }
        }
    }

    #[test]
    fn every_variant_equals_portable_on_random_coefficients_and_shingles() {
        // Random (not structured) coefficients exercise every bit of a_lo,
        // a_hi and b, and the carries of a_lo·x + b; n covers partial AVX2
        // and AVX-512 vectors, and one, several and partial groups of the
        // `*-regs` variants.
        let mut rng = SplitMix64(2024);
        for n in [
            1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 33, 64, 65, 100, 128, 129, 200, 257,
        ] {
            let hasher = MinHasher::new(n, rng.next_u64());
            for len in [0usize, 1, 2, 50, 777] {
                let mut set: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
                // Extremes of the folded 32-bit input.
                set.extend([0, u64::MAX, 0xFFFF_FFFF, 0xFFFF_FFFF_0000_0000]);
                let mut want = vec![0; n];
                hasher.sign_into_portable(&set, &mut want);
                for &v in kernel::Variant::ALL {
                    let mut got = vec![7; n];
                    if !v.supported() {
                        assert!(!hasher.sign_into_variant(v, &set, &mut got));
                        assert_eq!(got, vec![7; n], "unsupported leaves out alone");
                    }
                }
                crate::simd::for_each_supported::<kernel::Variant>(|v| {
                    let mut got = vec![7; n];
                    assert!(hasher.sign_into_variant(v, &set, &mut got));
                    assert_eq!(got, want, "{} n={n} len={len}", v.name());
                });
            }
        }
    }

    #[test]
    fn identical_sets_estimate_one_and_order_does_not_matter() {
        let hasher = MinHasher::new(100, 1);
        let a: Vec<u64> = (0..300).collect();
        let mut b = a.clone();
        b.reverse();
        assert_eq!(estimate(&hasher.sign(&a), &hasher.sign(&b)), 1.0);
    }

    #[test]
    fn seed_changes_the_functions() {
        let set: Vec<u64> = (0..100).collect();
        assert_ne!(
            MinHasher::new(16, 1).sign(&set),
            MinHasher::new(16, 2).sign(&set)
        );
    }

    /// The estimate is a mean of n Bernoulli(J) trials: standard deviation
    /// sqrt(J(1-J)/n) ≤ 0.5/sqrt(n). Over 60 pairs at n = 200 a deviation beyond
    /// 5σ (≈ 0.177) has probability < 60 · 6e-7; the mean error over the pairs
    /// has σ ≤ 0.5/sqrt(200·60), so |mean| < 0.02 is > 4σ as well.
    #[test]
    fn estimate_tracks_exact_jaccard_within_binomial_margin() {
        let n = 200;
        let hasher = MinHasher::new(n, 42);
        let mut rng = SplitMix64(99);
        let mut total_error = 0.0;
        let pairs = 60;
        for p in 0..pairs {
            let shared = 50 + (rng.next_u64() % 400) as usize;
            let only_a = (rng.next_u64() % 300) as usize;
            let only_b = (rng.next_u64() % 300) as usize;
            let common: Vec<u64> = (0..shared).map(|_| rng.next_u64()).collect();
            let mut a = common.clone();
            a.extend((0..only_a).map(|_| rng.next_u64()));
            let mut b = common;
            b.extend((0..only_b).map(|_| rng.next_u64()));
            a.sort_unstable();
            b.sort_unstable();
            let exact = jaccard(&a, &b);
            let est = estimate(&hasher.sign(&a), &hasher.sign(&b));
            let sigma = (exact * (1.0 - exact) / n as f64)
                .sqrt()
                .max(0.5 / n as f64);
            assert!(
                (est - exact).abs() <= 5.0 * sigma + 1e-9,
                "pair {p}: est {est} exact {exact}"
            );
            total_error += est - exact;
        }
        assert!((total_error / pairs as f64).abs() < 0.02);
    }
}
