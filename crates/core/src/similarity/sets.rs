//! Sorted-set algebra, written once: the intersection of two shingle sets
//! (with its early-exit bound and SIMD merge kernels), Jaccard similarity,
//! the overlap a threshold needs, and the union of two sets.
//!
//! Role: the exact arithmetic under verification ([`super::verify`]), the
//! measures of [`super::measures`] and the exact join's final similarity.
//!
//! Inputs: sets as `&[u64]`, strictly increasing (sorted, deduplicated), as
//! the shingling stage produces them. Outputs: counts and `f64` ratios.
//!
//! Invariants: every [`MergeKernel`] gives exactly the scalar merge's answer;
//! [`ratio`] is the one division every exact similarity goes through, so the
//! same pair gets the same `f64` on every path; [`overlap_needed`] never
//! rejects a pair that [`ratio`] would accept.

use std::sync::OnceLock;

use crate::simd::{self, Features, KernelSet};

/// Size of the intersection of two sorted, deduplicated sets.
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    intersection_at_least(a, b, 0).expect("every intersection has at least 0 elements")
}

/// Steps of the merge between two checks of the early-exit bound.
const CHECK_EVERY: usize = 128;

/// The size of the intersection of two sorted, deduplicated sets if it is at
/// least `need`, else `None` — as soon as the elements left cannot make up
/// the difference (the positional bound of MMDS 3.9.5, applied while merging).
/// A candidate far below the threshold is rejected after a fraction of its
/// merge.
///
/// Runs the fastest [`MergeKernel`] this CPU supports; every kernel gives the
/// same answer.
pub fn intersection_at_least(a: &[u64], b: &[u64], need: usize) -> Option<usize> {
    intersection_at_least_with(MergeKernel::best(), a, b, need)
}

/// Which implementation of the merge behind [`intersection_at_least`] runs.
/// All give the same answer; the SIMD ones leave the last partial blocks to
/// the scalar merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeKernel {
    /// The branch-free scalar merge (compare, then advance either side by a
    /// 0/1 step): whether the smaller element is in `a` or `b` is a coin toss
    /// the branch predictor loses half the time on real sets.
    Scalar,
    /// Blocks of 4 of each set compared all-pairs in AVX2 registers.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// Blocks of 8 of each set compared all-pairs with AVX-512F masks.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl KernelSet for MergeKernel {
    const ALL: &'static [MergeKernel] = &[
        MergeKernel::Scalar,
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx2,
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx512,
    ];

    const PREFERENCE: &'static [MergeKernel] = &[
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx512,
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx2,
        MergeKernel::Scalar,
    ];

    fn name(self) -> &'static str {
        match self {
            MergeKernel::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            MergeKernel::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            MergeKernel::Avx512 => "avx512",
        }
    }

    fn supported_by(self, features: &Features) -> bool {
        match self {
            MergeKernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            MergeKernel::Avx2 => features.avx2 && features.popcnt,
            #[cfg(target_arch = "x86_64")]
            MergeKernel::Avx512 => features.avx512f && features.popcnt,
        }
    }
}

impl MergeKernel {
    /// The fastest kernel this CPU runs, chosen once per process
    /// ([`simd::best`]); afterwards one atomic load per call.
    pub fn best() -> MergeKernel {
        static BEST: OnceLock<MergeKernel> = OnceLock::new();
        *BEST.get_or_init(simd::best::<MergeKernel>)
    }
}

/// [`intersection_at_least`] by a chosen kernel, for tests and benches.
///
/// # Panics
/// If this CPU does not support `kernel`.
#[doc(hidden)]
pub fn intersection_at_least_with(
    kernel: MergeKernel,
    a: &[u64],
    b: &[u64],
    need: usize,
) -> Option<usize> {
    assert!(
        kernel.supported(),
        "this CPU lacks the {} kernel",
        kernel.name()
    );
    let start = match kernel {
        MergeKernel::Scalar => Merged::default(),
        // SAFETY: the CPU has the kernel's features (asserted above).
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx2 => unsafe { blocks::blocks_avx2(a, b, need)? },
        // SAFETY: as above, the CPU has AVX-512F and POPCNT (asserted).
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx512 => unsafe { blocks::blocks_avx512(a, b, need)? },
    };
    merge_scalar(a, b, start, need)
}

/// How far a merge has got: `a[..i]` and `b[..j]` are done (nothing after
/// them can equal them) and `shared` of their elements were common.
#[derive(Clone, Copy, Debug, Default)]
struct Merged {
    i: usize,
    j: usize,
    shared: usize,
}

impl Merged {
    /// Whether the intersection can still reach `need`: every match to come
    /// pairs a distinct element of `a[i..]` with one of `b[j..]`.
    fn can_reach(&self, a: &[u64], b: &[u64], need: usize) -> bool {
        self.shared + (a.len() - self.i).min(b.len() - self.j) >= need
    }
}

/// The branch-free scalar merge, from `start` to the end of either set.
fn merge_scalar(a: &[u64], b: &[u64], start: Merged, need: usize) -> Option<usize> {
    let Merged {
        mut i,
        mut j,
        mut shared,
    } = start;
    while i < a.len() && j < b.len() {
        for _ in 0..CHECK_EVERY {
            let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) else {
                break;
            };
            shared += usize::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        if !(Merged { i, j, shared }).can_reach(a, b, need) {
            return None;
        }
    }
    (shared >= need).then_some(shared)
}

/// Block-wise SIMD intersection of sorted sets (Schlegel, Willhalm and
/// Lehner, "Fast sorted-set intersection using SIMD instructions", 2011;
/// Lemire, Boytsov and Kurz, "SIMD compression and the intersection of
/// sorted integers", 2016): a block of `W` elements of `a` is compared with
/// a block of `W` of `b` all-pairs — each element of `a`'s block broadcast
/// and compared with `b`'s whole block — and the matched lanes of `b` are
/// counted. Then the block whose last element is smaller moves on (both when
/// equal): its elements are below everything after the other block, so they
/// can match nothing more. A lane of `b` equals at most one element of `a`
/// (no duplicates), so every common element is counted exactly once, in the
/// one pair of blocks that holds both copies.
///
/// Each kernel stops when either set has fewer than `W` elements left and
/// returns how far it got for the scalar merge to finish, or `None` as soon
/// as the bound of [`Merged::can_reach`] fails (checked about every
/// [`CHECK_EVERY`] elements, as the scalar merge does).
#[cfg(target_arch = "x86_64")]
mod blocks {
    use super::{CHECK_EVERY, Merged};
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must support AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn blocks_avx2(a: &[u64], b: &[u64], need: usize) -> Option<Merged> {
        const W: usize = 4;
        let mut m = Merged::default();
        while m.i + W <= a.len() && m.j + W <= b.len() {
            for _ in 0..CHECK_EVERY / W {
                let (Some(ab), Some(bb)) = (a.get(m.i..m.i + W), b.get(m.j..m.j + W)) else {
                    break;
                };
                // SAFETY: `bb` holds W = 4 u64, the 32 bytes loaded.
                let vb = unsafe { _mm256_loadu_si256(bb.as_ptr().cast()) };
                let mut eq = _mm256_setzero_si256();
                for &x in &ab[..W] {
                    eq = _mm256_or_si256(eq, _mm256_cmpeq_epi64(_mm256_set1_epi64x(x as i64), vb));
                }
                m.shared += _mm256_movemask_pd(_mm256_castsi256_pd(eq)).count_ones() as usize;
                let (last_a, last_b) = (ab[W - 1], bb[W - 1]);
                m.i += W * usize::from(last_a <= last_b);
                m.j += W * usize::from(last_b <= last_a);
            }
            if !m.can_reach(a, b, need) {
                return None;
            }
        }
        Some(m)
    }

    /// # Safety
    /// The CPU must support AVX-512F and POPCNT.
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) unsafe fn blocks_avx512(a: &[u64], b: &[u64], need: usize) -> Option<Merged> {
        const W: usize = 8;
        let mut m = Merged::default();
        while m.i + W <= a.len() && m.j + W <= b.len() {
            for _ in 0..CHECK_EVERY / W {
                let (Some(ab), Some(bb)) = (a.get(m.i..m.i + W), b.get(m.j..m.j + W)) else {
                    break;
                };
                // SAFETY: `bb` holds W = 8 u64, the 64 bytes loaded.
                let vb = unsafe { _mm512_loadu_si512(bb.as_ptr().cast()) };
                let mut hits: __mmask8 = 0;
                for &x in &ab[..W] {
                    hits |= _mm512_cmpeq_epi64_mask(_mm512_set1_epi64(x as i64), vb);
                }
                m.shared += hits.count_ones() as usize;
                let (last_a, last_b) = (ab[W - 1], bb[W - 1]);
                m.i += W * usize::from(last_a <= last_b);
                m.j += W * usize::from(last_b <= last_a);
            }
            if !m.can_reach(a, b, need) {
                return None;
            }
        }
        Some(m)
    }
}

/// The least intersection two sets of sizes `la` and `lb` can have when their
/// Jaccard similarity is at least `threshold`, rounded down by one element so
/// that floating-point rounding never rejects a pair [`ratio`] would accept
/// (the final decision is always `ratio(…) >= threshold`).
pub fn overlap_needed(la: usize, lb: usize, threshold: f64) -> usize {
    // J = o / (la + lb − o) ≥ t  ⟺  o ≥ t (la + lb) / (1 + t)
    let exact = threshold * (la + lb) as f64 / (1.0 + threshold);
    (exact.ceil() as usize).saturating_sub(1)
}

/// Jaccard similarity `|A ∩ B| / |A ∪ B|` of two sorted, deduplicated sets;
/// 0 when both are empty (two empty documents are not "identical").
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let shared = intersection_size(a, b);
    ratio(shared, a.len() + b.len() - shared)
}

/// `shared / union` as the f64 the ground truth uses, 0 for an empty union.
pub fn ratio(shared: usize, union: usize) -> f64 {
    if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    }
}

/// The union of two ascending, duplicate-free slices into `out` (cleared
/// first), ascending and duplicate-free.
pub fn merge_sorted(a: &[u64], b: &[u64], out: &mut Vec<u64>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

#[cfg(test)]
mod tests;
