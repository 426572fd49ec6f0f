//! One-permutation hashing (OPH) with optimal densification: a MinHash signature
//! of `n` values from **one** hash evaluation per shingle instead of `n`.
//!
//! Role: the `--minhash oph` signing kernel, the "compute minhashes over blocks of
//! rows" speed-up of MMDS 3.3.5 made rigorous by
//!
//! * P. Li, A. Owen, C.-H. Zhang, "One Permutation Hashing", NIPS 2012 — split the
//!   range of one random permutation into `n` equal bins and keep the minimum of
//!   each bin; and
//! * A. Shrivastava, "Optimal Densification for Fast and Accurate Minwise
//!   Hashing", ICML 2017 — fill each bin that received no element by copying the
//!   value of the first non-empty bin along a probe sequence `h(j, 1), h(j, 2), …`
//!   that depends only on the bin index `j` and the seed, never on the data.
//!
//! Input: a slice of 64-bit shingle hashes (the set of distinct hashes or every
//! occurrence — duplicates cannot change a minimum, so both give the same
//! signature) and a seed. Output: `n = out.len()` values of `u32`.
//!
//! Invariants:
//! * Deterministic: the signature depends only on the *set* of hashes, `n` and the
//!   seed (not on order or multiplicity).
//! * The estimator [`similarity`] (fraction of equal positions) is an unbiased
//!   estimate of the Jaccard similarity of two non-empty sets, as for classic
//!   MinHash. Why densification keeps it unbiased: for a bin `j` that is empty in
//!   the union of both sets, both signatures walk the *same* probe sequence; the
//!   first bin on it that is non-empty for the union decides, and its minimum lies
//!   in the intersection with probability `J`. A bin whose union is non-empty
//!   matches exactly when its union minimum is in the intersection, also with
//!   probability `J`. Values copied from different bins belong to different
//!   elements, so (up to a 2⁻³² collision of 32-bit values) they never match.
//! * Only bins that were non-empty *before* densification are copied from, as the
//!   paper requires.
//! * An empty input has no minimum anywhere: every value is [`EMPTY`]. Callers
//!   must keep empty documents out of banding (they never form a pair).
//!
//! Inside a bin, elements are ranked by the low 32 bits of a 64-bit mix of the
//! hash, the bin is chosen from the high 32 bits (so the rank inside a bin is
//! independent of the bin). Real values lie in `0..=u32::MAX - 1`; `u32::MAX`
//! marks a bin no element reached.
//!
//! Speed: [`Sketch::add`] is the scalar definition; [`Sketch::add_batch`]
//! (what [`sign`] and the scan use) computes the mix, bin and rank of 8 hashes
//! per AVX-512 vector and updates only the bins a hash lowers, bit-identical
//! (see [`kernel`]).
//!
//! The variance differs from classic MinHash's `J(1−J)/n`: slightly *lower* for
//! sets much larger than `n` (bins are disjoint samples, drawn without
//! replacement), somewhat higher when most bins are empty and densification
//! copies the same few minima into many positions. The unit tests below bound both.

/// The value of every position of an empty set's signature. Never produced for a
/// non-empty set.
pub const EMPTY: u32 = u32::MAX;

/// MurmurHash3's 64-bit finaliser: a bijection whose every output bit depends on
/// every input bit. The shingle hashes are already XXH3 outputs, but mixing with
/// the seed must still give an unrelated permutation for every seed, and callers
/// (tests, other hash functions) may pass structured values.
#[inline(always)]
fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Maps a uniform 32-bit value to `0..n` without division (Lemire's
/// multiply-shift range reduction).
#[inline(always)]
fn reduce(x32: u64, n: u64) -> usize {
    ((x32 * n) >> 32) as usize
}

/// Per-seed keys: one for the permutation of shingles, an independent one for
/// the densification probe sequences.
#[inline]
fn keys(seed: u64) -> (u64, u64) {
    (
        fmix64(seed ^ 0x6f70_6870_6173_6831),
        fmix64(seed ^ 0x6f70_6870_726f_6265),
    )
}

/// Signs `hashes` into `out` (`n = out.len()` values, `1 ≤ n < 2³²`) by
/// one-permutation hashing with optimal densification.
///
/// Allocates only when some bins stay empty (small documents), never per shingle.
///
/// # Panics
/// If `out` is empty or longer than `u32::MAX`.
pub fn sign(hashes: &[u64], seed: u64, out: &mut [u32]) {
    let mut sketch = Sketch::new(seed, out);
    sketch.add_batch(hashes);
    sketch.finish();
}

/// A signature under construction, fed one hash at a time: what [`sign`]
/// does, for a caller that produces hashes in a stream (every window of a
/// text) and should not have to store them first. Adding a hash twice changes
/// nothing, so the stream may repeat values.
pub struct Sketch<'a> {
    out: &'a mut [u32],
    perm_key: u64,
    probe_key: u64,
}

impl<'a> Sketch<'a> {
    /// An empty sketch writing `out.len()` bins into `out`.
    ///
    /// # Panics
    /// If `out` is empty or longer than `u32::MAX`.
    pub fn new(seed: u64, out: &'a mut [u32]) -> Self {
        let n = out.len();
        assert!(
            n > 0 && n <= u32::MAX as usize,
            "OPH needs 1..2^32 bins, got {n}"
        );
        let (perm_key, probe_key) = keys(seed);
        out.fill(EMPTY);
        Sketch {
            out,
            perm_key,
            probe_key,
        }
    }

    /// Adds one hash: the scalar definition of the sketch, which
    /// [`Sketch::add_batch`] equals bit for bit.
    #[inline(always)]
    pub fn add(&mut self, h: u64) {
        add_one(self.out, self.perm_key, h);
    }

    /// [`Sketch::add`] for every hash of `hashes`, eight at a time on a CPU
    /// with AVX-512 (the variant [`simd::best`](crate::simd::best) picks):
    /// the same bins, bit for bit.
    #[inline]
    pub fn add_batch(&mut self, hashes: &[u64]) {
        // `best` returns only a supported variant.
        kernel::add_batch(crate::simd::best(), self.out, self.perm_key, hashes);
    }

    /// [`Sketch::add_batch`] with a chosen variant; `false` (nothing added)
    /// if the CPU lacks its features.
    pub fn add_batch_variant(&mut self, variant: kernel::Variant, hashes: &[u64]) -> bool {
        use crate::simd::KernelSet;
        if !variant.supported() {
            return false;
        }
        kernel::add_batch(variant, self.out, self.perm_key, hashes);
        true
    }

    /// Densifies the bins: `out` then holds the signature of every hash added
    /// (all [`EMPTY`] if none was).
    pub fn finish(self) {
        densify(self.out, self.probe_key);
    }
}

/// Vector kernels for [`Sketch::add_batch`], selected at run time.
///
/// Per hash, [`Sketch::add`] is `fmix64` (two 64-bit multiplies), a 32×32-bit
/// multiply for the bin and a min into the bin. AVX-512 computes the first
/// three for 8 hashes per vector (`vpmullq`, AVX-512DQ; `vpmuludq` for the bin)
/// and packs each as `bin << 32 | rank`; the min-updates stay scalar, since
/// two hashes of one vector may fall into the same bin.
pub mod kernel {
    use super::add_one;
    use crate::simd::{Features, KernelSet};

    /// The batch variants, for benchmarks and tests.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Variant {
        /// [`super::Sketch::add`] per hash: the reference.
        Scalar,
        /// Eight hashes per 512-bit vector (AVX-512 F, DQ), every bin
        /// update scalar.
        Avx512,
        /// Eight hashes per vector, the bins gathered and only lanes that
        /// lower their bin updated (AVX-512 F, DQ, VL).
        Avx512Gather,
    }

    impl KernelSet for Variant {
        const ALL: &'static [Variant] = &[Variant::Scalar, Variant::Avx512, Variant::Avx512Gather];
        const PREFERENCE: &'static [Variant] =
            &[Variant::Avx512Gather, Variant::Avx512, Variant::Scalar];

        fn name(self) -> &'static str {
            match self {
                Variant::Scalar => "scalar",
                Variant::Avx512 => "avx512",
                Variant::Avx512Gather => "avx512-gather",
            }
        }

        #[inline]
        fn supported_by(self, f: &Features) -> bool {
            match self {
                Variant::Scalar => true,
                Variant::Avx512 => f.avx512f && f.avx512dq,
                Variant::Avx512Gather => f.avx512f && f.avx512dq && f.avx512vl,
            }
        }

        /// Where a gather is slow, [`Variant::Avx512`]'s eight scalar
        /// updates per vector cost less than the gather that skips most of
        /// them.
        #[inline]
        fn preferred_by(self, f: &Features) -> bool {
            self.supported_by(f) && !(self == Variant::Avx512Gather && f.slow_gather)
        }
    }

    /// Adds `hashes` to the bins `out` of a sketch keyed by `perm_key`;
    /// `variant` must be supported.
    #[inline]
    pub(super) fn add_batch(variant: Variant, out: &mut [u32], perm_key: u64, hashes: &[u64]) {
        match variant {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: every caller checked the variant's features; a Sketch
            // has 1..2^32 bins.
            Variant::Avx512 => unsafe { add_batch_avx512(out, perm_key, hashes) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Variant::Avx512Gather => unsafe { add_batch_avx512_gather(out, perm_key, hashes) },
            _ => hashes.iter().for_each(|&h| add_one(out, perm_key, h)),
        }
    }

    /// # Safety
    /// The CPU has AVX-512 F and DQ; `1 <= out.len() <= u32::MAX`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) unsafe fn add_batch_avx512(out: &mut [u32], perm_key: u64, hashes: &[u64]) {
        use super::{EMPTY, add_one};
        use std::arch::x86_64::*;

        let key = _mm512_set1_epi64(perm_key as i64);
        let m1 = _mm512_set1_epi64(0xff51_afd7_ed55_8ccd_u64 as i64);
        let m2 = _mm512_set1_epi64(0xc4ce_b9fe_1a85_ec53_u64 as i64);
        let n = _mm512_set1_epi64(out.len() as i64);
        let max_rank = _mm512_set1_epi32((EMPTY - 1) as i32);
        let mut chunks = hashes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut packed = [0u64; 8];
            // SAFETY: `chunk` and `packed` hold 8 u64 each.
            unsafe {
                // fmix64(h ^ perm_key), as in super::fmix64.
                let mut v = _mm512_xor_si512(_mm512_loadu_si512(chunk.as_ptr().cast()), key);
                v = _mm512_xor_si512(v, _mm512_srli_epi64::<33>(v));
                v = _mm512_mullo_epi64(v, m1);
                v = _mm512_xor_si512(v, _mm512_srli_epi64::<33>(v));
                v = _mm512_mullo_epi64(v, m2);
                v = _mm512_xor_si512(v, _mm512_srli_epi64::<33>(v));
                // reduce(v >> 32, n): the bin is the high half of the product.
                let product = _mm512_mul_epu32(_mm512_srli_epi64::<32>(v), n);
                // Low dwords from v (the rank), high dwords from the product
                // (the bin); then the rank's min with EMPTY - 1.
                let both = _mm512_mask_blend_epi32(0x5555, product, v);
                let both = _mm512_mask_min_epu32(both, 0x5555, both, max_rank);
                _mm512_storeu_si512(packed.as_mut_ptr().cast(), both);
            }
            for p in packed {
                let slot = &mut out[(p >> 32) as usize];
                *slot = (*slot).min(p as u32);
            }
        }
        for &h in chunks.remainder() {
            add_one(out, perm_key, h);
        }
    }

    /// [`add_batch_avx512`], but the bins' current values are gathered first
    /// and only lanes whose rank is below them go to the scalar update. After
    /// the first few hundred windows of a document almost no rank beats its
    /// bin (about `n·ln(windows/n)` updates in all), so most vectors need no
    /// scalar work. Exact: a gathered value can only be larger than the bin's
    /// value at update time (bins only decrease), so a skipped lane would not
    /// have changed its bin.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, DQ and VL; `1 <= out.len() <= u32::MAX`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    pub(super) unsafe fn add_batch_avx512_gather(out: &mut [u32], perm_key: u64, hashes: &[u64]) {
        use super::EMPTY;
        use std::arch::x86_64::*;

        let key = _mm512_set1_epi64(perm_key as i64);
        let m1 = _mm512_set1_epi64(0xff51_afd7_ed55_8ccd_u64 as i64);
        let m2 = _mm512_set1_epi64(0xc4ce_b9fe_1a85_ec53_u64 as i64);
        let n = _mm512_set1_epi64(out.len() as i64);
        let low = _mm512_set1_epi64(0xFFFF_FFFF);
        let max_rank = _mm512_set1_epi64((EMPTY - 1) as i64);
        let mut chunks = hashes.chunks_exact(8);
        for chunk in &mut chunks {
            // SAFETY: `chunk` holds 8 u64; every gathered index is a bin,
            // `reduce`'s result, below `out.len()`.
            let (bins, ranks, mut todo) = unsafe {
                let mut v = _mm512_xor_si512(_mm512_loadu_si512(chunk.as_ptr().cast()), key);
                v = _mm512_xor_si512(v, _mm512_srli_epi64::<33>(v));
                v = _mm512_mullo_epi64(v, m1);
                v = _mm512_xor_si512(v, _mm512_srli_epi64::<33>(v));
                v = _mm512_mullo_epi64(v, m2);
                v = _mm512_xor_si512(v, _mm512_srli_epi64::<33>(v));
                let bins = _mm512_srli_epi64::<32>(_mm512_mul_epu32(_mm512_srli_epi64::<32>(v), n));
                let ranks =
                    _mm512_cvtepi64_epi32(_mm512_min_epu64(_mm512_and_si512(v, low), max_rank));
                let current = _mm512_i64gather_epi32::<4>(bins, out.as_ptr().cast());
                (bins, ranks, _mm256_cmplt_epu32_mask(ranks, current))
            };
            if todo != 0 {
                let mut bin = [0u64; 8];
                let mut rank = [0u32; 8];
                // SAFETY: 8 u64 and 8 u32 stores into arrays of that size.
                unsafe {
                    _mm512_storeu_si512(bin.as_mut_ptr().cast(), bins);
                    _mm256_storeu_si256(rank.as_mut_ptr().cast(), ranks);
                }
                while todo != 0 {
                    let i = todo.trailing_zeros() as usize;
                    todo &= todo - 1;
                    let slot = &mut out[bin[i] as usize];
                    *slot = (*slot).min(rank[i]);
                }
            }
        }
        for &h in chunks.remainder() {
            add_one(out, perm_key, h);
        }
    }
}

/// The scalar definition of adding one hash to the bins `out`.
#[inline(always)]
fn add_one(out: &mut [u32], perm_key: u64, h: u64) {
    let v = fmix64(h ^ perm_key);
    let bin = reduce(v >> 32, out.len() as u64);
    // Keep EMPTY free as the marker; merging the two largest ranks changes an
    // order with probability 2^-32.
    let rank = (v as u32).min(EMPTY - 1);
    let slot = &mut out[bin];
    *slot = (*slot).min(rank);
}

/// Optimal densification (Shrivastava 2017, Algorithm 2): every empty bin `j`
/// copies the value of the first originally non-empty bin on its probe sequence.
fn densify(out: &mut [u32], probe_key: u64) {
    let n = out.len();
    let empty = out.iter().filter(|&&v| v == EMPTY).count();
    if empty == 0 || empty == n {
        return;
    }
    // Copies are computed before any is written, so that only bins that were
    // non-empty before densification are ever copied from.
    let mut fills: Vec<(u32, u32)> = Vec::with_capacity(empty);
    for (j, _) in out.iter().enumerate().filter(|&(_, &v)| v == EMPTY) {
        fills.push((j as u32, out[probe(out, j, probe_key)]));
    }
    for (j, v) in fills {
        out[j as usize] = v;
    }
}

/// The first originally non-empty bin on bin `j`'s probe sequence. The sequence
/// is pseudo-random in `(seed, j, attempt)`; with `m ≥ 1` non-empty bins out of
/// `n`, the chance that `64·n` probes all miss is `(1 − m/n)^(64n) ≤ e^-64`, so
/// the deterministic linear fallback after that only guarantees termination.
fn probe(out: &[u32], j: usize, probe_key: u64) -> usize {
    let n = out.len();
    let n64 = n as u64;
    let base = probe_key ^ ((j as u64) << 32);
    for attempt in 1..=64 * n64 {
        let k = reduce(fmix64(base.wrapping_add(attempt)) >> 32, n64);
        if out[k] != EMPTY {
            return k;
        }
    }
    (1..n)
        .map(|d| (j + d) % n)
        .find(|&k| out[k] != EMPTY)
        .expect("densify is only called with at least one non-empty bin")
}

/// The MinHash estimate of Jaccard similarity: the fraction of positions where
/// the two signatures agree. Both must have the same length and come from the
/// same seed and kernel.
///
/// # Panics
/// If the lengths differ or are zero.
pub fn similarity(a: &[u32], b: &[u32]) -> f64 {
    assert!(
        a.len() == b.len() && !a.is_empty(),
        "signatures must have the same non-zero length ({} vs {})",
        a.len(),
        b.len()
    );
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f64 / a.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::KernelSet;
    use std::collections::HashSet;

    /// Random-looking 64-bit "shingle hashes", like XXH3 outputs.
    fn elements(start: u64, count: u64) -> Vec<u64> {
        (start..start + count)
            .map(|i| fmix64(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5eed))
            .collect()
    }

    /// Two sets with `common` shared elements and `only_a` / `only_b` private
    /// ones; returns the sets and their exact Jaccard similarity.
    fn pair(common: u64, only_a: u64, only_b: u64) -> (Vec<u64>, Vec<u64>, f64) {
        let shared = elements(0, common);
        let mut a = shared.clone();
        a.extend(elements(1_000_000, only_a));
        let mut b = shared;
        b.extend(elements(2_000_000, only_b));
        let j = common as f64 / (common + only_a + only_b) as f64;
        (a, b, j)
    }

    /// Reference classic MinHash: `n` independent multiply-add-shift hashes of
    /// the hash folded to 32 bits, `h_i(x) = (a_i·x + b_i) >> 32` (strongly
    /// universal for 32-bit keys), minimum per function.
    fn classic(hashes: &[u64], seed: u64, n: usize) -> Vec<u32> {
        let coeffs: Vec<(u64, u64)> = (0..n as u64)
            .map(|i| {
                (
                    fmix64(seed ^ (2 * i + 1).wrapping_mul(0xa076_1d64_78bd_642f)) | 1,
                    fmix64(seed ^ (2 * i + 2).wrapping_mul(0xe703_7ed1_a0b4_28db)),
                )
            })
            .collect();
        let mut sig = vec![u32::MAX; n];
        for &h in hashes {
            let x = (h ^ (h >> 32)) as u32 as u64;
            for (s, &(a, b)) in sig.iter_mut().zip(&coeffs) {
                *s = (*s).min((a.wrapping_mul(x).wrapping_add(b) >> 32) as u32);
            }
        }
        sig
    }

    struct Stats {
        mean_error: f64,
        variance: f64,
    }

    /// Estimates over `trials` seeds of one fixed pair of sets.
    fn stats(estimates: &[f64], j: f64) -> Stats {
        let t = estimates.len() as f64;
        let mean = estimates.iter().sum::<f64>() / t;
        let variance = estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (t - 1.0);
        Stats {
            mean_error: mean - j,
            variance,
        }
    }

    /// The statistical contract, for a pair of exact Jaccard `j` signed with
    /// `n` positions under `trials` independent seeds.
    ///
    /// Classic MinHash's estimate is Binomial(n, J)/n: variance `σ² = J(1−J)/n`.
    /// For OPH we allow variance up to `slack · σ²` (see each caller for why).
    /// * Bias: the mean of `trials` estimates has standard error at most
    ///   `sqrt(slack·σ²/trials)`; we require |mean − J| below 5 of those
    ///   (a false alarm has probability < 1e-6 under the normal approximation).
    /// * Spread: the sample variance of `T` roughly normal estimates has relative
    ///   standard deviation `sqrt(2/(T−1))`; we allow 5 of those around the bound.
    fn check(name: &str, j: f64, n: usize, slack: f64, oph: &[f64], cls: &[f64]) {
        let trials = oph.len() as f64;
        let sigma2 = j * (1.0 - j) / n as f64;
        let rel = 5.0 * (2.0 / (trials - 1.0)).sqrt();
        let o = stats(oph, j);
        let c = stats(cls, j);
        eprintln!(
            "{name}: J={j:.4} n={n} σ²={sigma2:.3e} | OPH bias {:+.5} var {:.3e} ({:.2}σ²) | classic bias {:+.5} var {:.3e} ({:.2}σ²)",
            o.mean_error,
            o.variance,
            o.variance / sigma2,
            c.mean_error,
            c.variance,
            c.variance / sigma2
        );
        let bias_bound = 5.0 * (slack * sigma2 / trials).sqrt();
        assert!(
            o.mean_error.abs() < bias_bound,
            "{name}: OPH bias {} exceeds {bias_bound}",
            o.mean_error
        );
        assert!(
            o.variance < slack * sigma2 * (1.0 + rel),
            "{name}: OPH variance {} above {slack}·J(1−J)/n = {}",
            o.variance,
            slack * sigma2
        );
        // Comparable to classic: not degenerate either (a broken kernel that
        // returns the same signature for every seed would have variance 0).
        assert!(
            o.variance > 0.5 * sigma2 * (1.0 - rel),
            "{name}: OPH variance {} implausibly low",
            o.variance
        );
        // The reference itself must behave like the binomial it claims to be,
        // otherwise the comparison above means nothing.
        let classic_bound = 5.0 * (sigma2 / trials).sqrt();
        assert!(
            c.mean_error.abs() < classic_bound,
            "{name}: classic bias {}",
            c.mean_error
        );
        assert!(
            (c.variance / sigma2 - 1.0).abs() < rel,
            "{name}: classic variance {} vs J(1−J)/n = {sigma2}",
            c.variance
        );
    }

    fn run(name: &str, common: u64, only_a: u64, only_b: u64, n: usize, trials: u64, slack: f64) {
        let (a, b, j) = pair(common, only_a, only_b);
        let mut oph = Vec::new();
        let mut cls = Vec::new();
        let (mut sa, mut sb) = (vec![0; n], vec![0; n]);
        for seed in 0..trials {
            sign(&a, seed, &mut sa);
            sign(&b, seed, &mut sb);
            oph.push(similarity(&sa, &sb));
            cls.push(similarity(&classic(&a, seed, n), &classic(&b, seed, n)));
        }
        check(name, j, n, slack, &oph, &cls);
    }

    #[test]
    fn unbiased_on_large_sets_with_variance_at_most_binomial() {
        // 1,300-element union, n = 128: each set leaves a bin empty with
        // probability e^-7.8, so this is plain OPH, whose bins are disjoint
        // samples: variance ≈ J(1−J)/n · (1 − (n−1)/(|A∪B|−1)) ≤ binomial. Slack
        // 1.0 states exactly that.
        run("large J=0.538", 700, 300, 300, 128, 1500, 1.0);
    }

    #[test]
    fn unbiased_when_densification_fills_most_bins() {
        // A 50-element union with n = 128: each set fills at most 40 bins, so
        // ≥ 69 % of every signature is densified. Shrivastava 2017 shows the
        // variance of optimal densification stays close to classic MinHash;
        // we allow 1.5 × J(1−J)/n.
        run("sparse J=0.6", 30, 10, 10, 128, 3000, 1.5);
    }

    #[test]
    fn unbiased_for_unequal_sizes_and_high_similarity() {
        // 200 vs 180 elements, J = 0.9, n = 64: a few empty bins per signature.
        run("unequal J=0.9", 180, 20, 0, 64, 3000, 1.5);
    }

    #[test]
    fn identical_sets_give_identical_signatures() {
        let a = elements(7, 500);
        let mut b = a.clone();
        b.reverse();
        b.extend_from_slice(&a[..100]); // every occurrence, not just the set
        let (mut sa, mut sb) = (vec![0; 100], vec![0; 100]);
        sign(&a, 42, &mut sa);
        sign(&b, 42, &mut sb);
        assert_eq!(sa, sb);
        assert_eq!(similarity(&sa, &sb), 1.0);
    }

    #[test]
    fn every_bin_is_filled_and_values_come_from_the_set() {
        for size in [1u64, 2, 5, 99, 1000] {
            let a = elements(size * 10_000, size);
            let mut sig = vec![0; 100];
            sign(&a, 3, &mut sig);
            assert!(sig.iter().all(|&v| v != EMPTY), "size {size}");
            // Non-empty bins keep one element each: never more distinct values
            // than elements.
            let distinct: HashSet<u32> = sig.iter().copied().collect();
            assert!(distinct.len() as u64 <= size, "size {size}");
        }
    }

    #[test]
    fn single_element_fills_every_position_with_its_value() {
        let mut sig = vec![0; 37];
        sign(&[12345], 9, &mut sig);
        assert!(sig.iter().all(|&v| v == sig[0] && v != EMPTY));
    }

    #[test]
    fn empty_input_is_all_empty_marker() {
        let mut sig = vec![0; 16];
        sign(&[], 1, &mut sig);
        assert!(sig.iter().all(|&v| v == EMPTY));
    }

    #[test]
    fn disjoint_sets_rarely_agree() {
        let (a, b, _) = pair(0, 2000, 2000);
        let (mut sa, mut sb) = (vec![0; 256], vec![0; 256]);
        sign(&a, 5, &mut sa);
        sign(&b, 5, &mut sb);
        // Agreement needs a 32-bit collision: expected 256·2^-32.
        assert_eq!(similarity(&sa, &sb), 0.0);
    }

    #[test]
    fn seed_changes_the_permutation() {
        let a = elements(0, 1000);
        let (mut s1, mut s2) = (vec![0; 64], vec![0; 64]);
        sign(&a, 1, &mut s1);
        sign(&a, 2, &mut s2);
        assert!(similarity(&s1, &s2) < 0.1);
    }

    #[test]
    fn densified_positions_are_deterministic_per_seed() {
        let a = elements(50, 3);
        let (mut s1, mut s2) = (vec![0; 64], vec![0; 64]);
        sign(&a, 11, &mut s1);
        sign(&a, 11, &mut s2);
        assert_eq!(s1, s2);
    }

    /// The bins after adding `hashes` one at a time ([`Sketch::add`]) and
    /// through `variant`'s [`Sketch::add_batch`], before densification.
    fn bins_both_ways(
        variant: kernel::Variant,
        hashes: &[u64],
        seed: u64,
        n: usize,
    ) -> Option<(Vec<u32>, Vec<u32>)> {
        let mut one = vec![0; n];
        let mut sketch = Sketch::new(seed, &mut one);
        hashes.iter().for_each(|&h| sketch.add(h));
        let mut batch = vec![0; n];
        Sketch::new(seed, &mut batch)
            .add_batch_variant(variant, hashes)
            .then_some((one, batch))
    }

    #[test]
    fn every_batch_variant_equals_add_on_edge_values_and_bin_counts() {
        let mut hashes = elements(9, 1000);
        // Inputs whose mix hits EMPTY (rank clamped to EMPTY - 1) are
        // unlikely; the extremes of the input and of the bin range are not.
        hashes.extend([0, u64::MAX, 1 << 63, 0xFFFF_FFFF, 0xFFFF_FFFF_0000_0000]);
        for &v in kernel::Variant::ALL {
            if !v.supported() {
                assert!(bins_both_ways(v, &hashes, 1, 64).is_none());
            }
        }
        crate::simd::for_each_supported::<kernel::Variant>(|v| {
            for n in [1usize, 2, 7, 64, 100, 128, 1000, u32::MAX as usize >> 20] {
                for len in [0, 1, 7, 8, 9, 17, hashes.len()] {
                    let (one, batch) = bins_both_ways(v, &hashes[..len], n as u64 ^ 77, n)
                        .expect("a supported variant runs");
                    assert_eq!(one, batch, "{} n {n} len {len}", v.name())
                }
            }
        });
    }

    #[test]
    fn the_rank_clamp_at_empty_is_kept_by_every_variant() {
        // Find inputs whose mix has low 32 bits 0xFFFF_FFFF by inverting
        // fmix64: x ^ perm_key = fmix64⁻¹(v).
        fn unmix(mut x: u64) -> u64 {
            // Inverses of the two multipliers mod 2^64, and of x ^= x >> 33
            // (an involution for shifts ≥ 32).
            const INV1: u64 = 0x4f74_430c_22a5_4005;
            const INV2: u64 = 0x9cb4_b2f8_1293_37db;
            x ^= x >> 33;
            x = x.wrapping_mul(INV2);
            x ^= x >> 33;
            x = x.wrapping_mul(INV1);
            x ^ (x >> 33)
        }
        assert_eq!(
            0xff51_afd7_ed55_8ccd_u64.wrapping_mul(0x4f74_430c_22a5_4005),
            1
        );
        assert_eq!(
            0xc4ce_b9fe_1a85_ec53_u64.wrapping_mul(0x9cb4_b2f8_1293_37db),
            1
        );
        let seed = 5;
        let (perm_key, _) = keys(seed);
        let hashes: Vec<u64> = (0..16u64)
            .map(|i| unmix((i << 40) | 0xFFFF_FFFF) ^ perm_key)
            .collect();
        assert!(
            hashes
                .iter()
                .all(|&h| fmix64(h ^ perm_key) as u32 == u32::MAX)
        );
        crate::simd::for_each_supported::<kernel::Variant>(|v| {
            let (one, batch) = bins_both_ways(v, &hashes, seed, 64).unwrap();
            assert_eq!(one, batch, "{}", v.name());
            assert!(batch.iter().all(|&b| b == EMPTY || b == EMPTY - 1));
            assert!(batch.contains(&(EMPTY - 1)));
        });
    }

    proptest::proptest! {
        // A fixed seed and no regression file: a failure reproduces on any clone.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x0F11_5EED),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        #[test]
        fn add_batch_equals_add_for_random_batches_and_seeds(
            hashes in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..200),
            seed in proptest::prelude::any::<u64>(),
            n in 1usize..300,
        ) {
            let mut got = Vec::new();
            crate::simd::for_each_supported::<kernel::Variant>(|v| {
                got.push((v, bins_both_ways(v, &hashes, seed, n).unwrap()));
            });
            for (v, (one, batch)) in got {
                proptest::prop_assert_eq!(one, batch, "{}", v.name());
            }
        }
    }

    #[test]
    fn the_gather_is_passed_over_only_where_gathers_are_slow() {
        let avx512 = crate::simd::Features {
            avx512f: true,
            avx512dq: true,
            avx512vl: true,
            ..Default::default()
        };
        let slow = crate::simd::Features {
            slow_gather: true,
            ..avx512
        };
        use kernel::Variant::{Avx512, Avx512Gather, Scalar};
        let first = |f: &crate::simd::Features| {
            *<kernel::Variant as KernelSet>::PREFERENCE
                .iter()
                .find(|v| v.preferred_by(f))
                .unwrap()
        };
        assert_eq!(first(&avx512), Avx512Gather);
        assert_eq!(first(&slow), Avx512);
        assert!(Avx512Gather.supported_by(&slow), "still run by the tests");
        assert_eq!(first(&crate::simd::Features::default()), Scalar);
    }

    #[test]
    #[should_panic(expected = "OPH needs")]
    fn zero_bins_is_rejected() {
        sign(&[1], 0, &mut []);
    }
}
