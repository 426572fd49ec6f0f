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
        MinHasher { mul, add }
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
        kernel::sign(&self.mul, &self.add, shingles, out);
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
/// over the `n` coefficient arrays — a loop the compiler turns into vector
/// multiply, add, shift and min. The same body is compiled three times, for the
/// x86-64 baseline (SSE2, which has no 64-bit vector multiply), AVX2 and
/// AVX-512 (`vpmullq`), and the widest one the running CPU supports is chosen at
/// run time, so the release binary runs on any x86-64 (no `target-cpu` needed).
/// A variant that kept blocks of 16 minima in registers while the shingles
/// streamed past measured 1.6× *slower* (docs/PERFORMANCE.md), so the plain
/// loop stays.
pub mod kernel {
    use super::{fold, permute};

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
    fn sign_avx2(mul: &[u64], add: &[u64], shingles: &[u64], out: &mut [u32]) {
        body(mul, add, shingles, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    fn sign_avx512(mul: &[u64], add: &[u64], shingles: &[u64], out: &mut [u32]) {
        body(mul, add, shingles, out)
    }

    /// Name of the variant [`sign`] uses on this CPU.
    pub fn selected() -> &'static str {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vl")
            {
                return "avx512";
            }
            if is_x86_feature_detected!("avx2") {
                return "avx2";
            }
        }
        "portable"
    }

    pub(super) fn sign(mul: &[u64], add: &[u64], shingles: &[u64], out: &mut [u32]) {
        #[cfg(target_arch = "x86_64")]
        {
            // is_x86_feature_detected! caches its answer: a load and a test.
            if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vl")
            {
                // SAFETY: the CPU supports every feature the variant enables.
                return unsafe { sign_avx512(mul, add, shingles, out) };
            }
            if is_x86_feature_detected!("avx2") {
                // SAFETY: as above, for AVX2.
                return unsafe { sign_avx2(mul, add, shingles, out) };
            }
        }
        body(mul, add, shingles, out)
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
    use crate::verify::jaccard;

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
                assert_eq!(fast, slow, "n={n} len={len} ({})", kernel::selected());
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
