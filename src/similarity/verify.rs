//! Verification of candidate pairs (MMDS 3.4.1, step 3): candidates in, the
//! pairs whose similarity reaches the threshold out, so that LSH's false
//! positives never reach the output.
//!
//! Exact verification needs both documents' shingle sets, which are not kept in
//! memory after signing (memory grows with the number of documents, not their
//! bytes). [`verify_exact`] therefore re-creates sets through a caller-supplied
//! loader and holds each set only while a pair still needs it:
//!
//! 1. The candidate pairs form a graph; its connected components (union–find)
//!    are clusters of near-copies, such as one page in eleven releases whose
//!    ids lie far apart. A pair never leaves its component.
//! 2. Each component gets a load order — ascending id or breadth-first from its
//!    smallest id, whichever needs the smaller *window*: the most bytes of sets
//!    alive at once when documents are loaded in that order and each is
//!    dropped as soon as its last partner has been loaded.
//! 3. Components whose window fits the working budget are laid end to end and
//!    streamed: the next documents are loaded in parallel, as many as fit
//!    beside the sets still alive, every pair whose later document has just
//!    arrived is verified, and finished sets are dropped. Small components are
//!    so batched together and both cores stay busy; each document is loaded
//!    exactly once.
//! 4. A component whose window exceeds the working budget but fits the cap is
//!    streamed alone under the cap (still one load per document). One whose
//!    window exceeds even the cap (a near-clique bigger than the cap) is cut
//!    in id order into blocks of half the cap and processed block pair by
//!    block pair, re-loading blocks: memory stays bounded, reads do not.
//!
//! **Invariants**: the output is the same whatever the budgets and the thread
//! count (pairs sorted by `(a, b)`, failures by document); the sets alive at
//! once never exceed [`Budget::cap`] by `set_bytes`' measure (and stay within
//! [`Budget::working`] when every window fits it), except that a single set
//! larger than half the cap is still loaded; a document whose load fails is
//! reported once, never loaded again, and its pairs are dropped.

use rayon::prelude::*;

/// Size of the intersection of two sorted, deduplicated sets.
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    intersection_at_least(a, b, 0).expect("every intersection has at least 0 elements")
}

/// The documents that occur in `pairs`, ascending, each once: the nodes of
/// the candidate graph, and what verification will load.
pub fn involved_documents(pairs: &[(u32, u32)]) -> Vec<u32> {
    let mut docs: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    docs.par_sort_unstable();
    docs.dedup();
    docs
}

/// Steps of the merge between two checks of the early-exit bound.
const CHECK_EVERY: usize = 128;

/// The size of the intersection of two sorted, deduplicated sets if it is at
/// least `need`, else `None` — as soon as the elements left cannot make up
/// the difference (the positional bound of MMDS 3.9.7, applied while merging).
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

impl MergeKernel {
    /// Every kernel this build has, slowest first.
    pub const ALL: &[MergeKernel] = &[
        MergeKernel::Scalar,
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx2,
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx512,
    ];

    /// Whether this CPU runs the kernel (`is_x86_feature_detected!` caches
    /// its answer: one atomic load).
    pub fn supported(self) -> bool {
        match self {
            MergeKernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            MergeKernel::Avx2 => {
                is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt")
            }
            #[cfg(target_arch = "x86_64")]
            MergeKernel::Avx512 => {
                is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("popcnt")
            }
        }
    }

    /// A short name for benches and messages.
    pub fn name(self) -> &'static str {
        match self {
            MergeKernel::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            MergeKernel::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            MergeKernel::Avx512 => "avx512",
        }
    }

    /// The fastest kernel this CPU runs.
    pub fn best() -> MergeKernel {
        let mut supported = MergeKernel::ALL.iter().rev().filter(|k| k.supported());
        *supported.next().expect("the scalar kernel runs everywhere")
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
        MergeKernel::Avx2 => unsafe { simd::blocks_avx2(a, b, need)? },
        #[cfg(target_arch = "x86_64")]
        MergeKernel::Avx512 => unsafe { simd::blocks_avx512(a, b, need)? },
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
mod simd {
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

/// The fewest positions in which two MinHash signatures of `n` values must
/// agree for their documents to be worth reading: a pair of similarity at
/// least `threshold` agrees in fewer with probability at most `miss`. 0 when
/// no count can be ruled out at that probability.
///
/// Why it holds: each position agrees with probability `J`, the pair's
/// Jaccard similarity (MMDS 3.3.3). For classic MinHash the positions are
/// independent; for one-permutation hashing without densification they are
/// the bin minima, a sample without replacement of the union (hypergeometric).
/// Either way the Chernoff bound `P[X ≤ k] ≤ exp(−n·KL(k/n ‖ J))` holds
/// (Hoeffding 1963, Theorem 4 for sampling without replacement), and it only
/// shrinks as `J` rises above `threshold`. So `k` is the largest count below
/// `n·threshold` whose bound at `J = threshold` is at most `miss`, and the
/// answer is `k + 1`. Densified OPH positions copy one element into several
/// bins and break the argument: callers must not apply this to such
/// signatures. Conservative next to the exact binomial tail (a unit test
/// checks both).
pub fn agreements_needed(n: usize, threshold: f64, miss: f64) -> usize {
    // Written to also catch NaN: no cut unless both are positive numbers.
    if n == 0 || miss.is_nan() || threshold.is_nan() || miss <= 0.0 || threshold <= 0.0 {
        return 0;
    }
    let t = threshold.min(1.0);
    let budget = -miss.min(1.0).ln();
    // KL divergence of Bernoulli(q) from Bernoulli(t), with 0·ln 0 = 0.
    let kl = |q: f64| {
        let term = |x: f64, y: f64| if x == 0.0 { 0.0 } else { x * (x / y).ln() };
        term(q, t) + term(1.0 - q, 1.0 - t)
    };
    // KL(k/n ‖ t) falls as k rises towards n·t: scan down from the top.
    (0..n)
        .rev()
        .filter(|&k| (k as f64) < n as f64 * t)
        .find(|&k| n as f64 * kl(k as f64 / n as f64) >= budget)
        .map_or(0, |k| k + 1)
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

/// A verified pair of documents (indices as given to [`verify_exact`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VerifiedPair {
    pub a: u32,
    pub b: u32,
    pub shared: usize,
    pub similarity: f64,
}

/// What [`verify_exact`] found: the pairs at or above the threshold (sorted by
/// `(a, b)`) and the documents whose sets could not be loaded (their pairs are
/// dropped).
pub struct ExactVerification<E> {
    pub pairs: Vec<VerifiedPair>,
    pub failures: Vec<(u32, E)>,
}

/// How many bytes of shingle sets exact verification may hold at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// What the verifier works within: batches of small components and the
    /// window over each component that fits it.
    pub working: usize,
    /// The most it may ever hold: a component whose window exceeds `working`
    /// may use up to this to still load each document once; beyond it,
    /// blocks are re-loaded. At least `working` (raised to it if smaller).
    pub cap: usize,
}

/// The working budget [`Budget::capped`] uses: 16 MiB. It is small beside
/// the issue #5 memory bound (64 MB + 1.5 × the signatures) and still holds
/// hundreds of typical sets (~24 KB each), so each parallel step loads many
/// documents. Measured (docs/PERFORMANCE.md, "Exact verification within the
/// memory bound"): the largest window on linux-scale is 5.5 MB, and at 16 MiB
/// exact verification no longer raises the peak RSS of a scan of it, while
/// 32 MiB does (by ~6 MB).
pub const WORKING_BUDGET: usize = 16 << 20;

impl Budget {
    /// The default split of a user's cap (`--verify-memory`): work within
    /// [`WORKING_BUDGET`] (or the cap, if smaller), and use up to the cap only
    /// for a component that would otherwise be re-loaded.
    pub fn capped(cap: usize) -> Self {
        Budget {
            working: cap.min(WORKING_BUDGET),
            cap,
        }
    }
}

impl From<usize> for Budget {
    /// One limit for both.
    fn from(bytes: usize) -> Self {
        Budget {
            working: bytes,
            cap: bytes,
        }
    }
}

/// Verifies `pairs` (`a < b`) by exact Jaccard similarity ≥ `threshold`.
///
/// `set_bytes(d)` is the memory of document `d`'s set (used for planning
/// only); `load(d)` produces its sorted, deduplicated set — any
/// `AsRef<[u64]>`, so a caller (or a test) can observe when it is dropped.
/// Loading and verifying run in parallel; see the module documentation for
/// the order, the memory bound and when a document is loaded more than once.
pub fn verify_exact<E, S, L>(
    pairs: &[(u32, u32)],
    threshold: f64,
    budget: impl Into<Budget>,
    set_bytes: impl Fn(u32) -> usize,
    load: L,
) -> ExactVerification<E>
where
    E: Send,
    S: AsRef<[u64]> + Send + Sync,
    L: Fn(u32) -> Result<S, E> + Sync,
{
    let budget = budget.into();
    let budget = Budget {
        working: budget.working.max(1),
        cap: budget.cap.max(budget.working).max(1),
    };
    let graph = Graph::new(pairs);
    let bytes: Vec<usize> = graph.docs.iter().map(|&d| set_bytes(d)).collect();
    let mut run = Run {
        graph: &graph,
        threshold,
        load: &load,
        verified: Vec::new(),
        failures: Vec::new(),
        failed: vec![false; graph.docs.len()],
    };

    // Components in order of their smallest document; those whose window fits
    // the working budget are streamed together, the others one by one.
    let mut streamed: Vec<u32> = Vec::new();
    let mut large: Vec<(Vec<u32>, usize)> = Vec::new();
    for component in graph.components() {
        let (order, window) = graph.load_order(&component, &bytes);
        if window <= budget.working {
            streamed.extend(order);
        } else {
            large.push((order, window));
        }
    }
    run.stream(&streamed, &bytes, budget.working);
    drop(streamed);
    for (order, window) in large {
        if window <= budget.cap {
            run.stream(&order, &bytes, budget.cap);
        } else {
            run.blockwise(order, &bytes, budget.cap);
        }
    }

    let Run {
        mut verified,
        mut failures,
        ..
    } = run;
    verified.par_sort_unstable_by_key(|p| (p.a, p.b));
    failures.sort_unstable_by_key(|f| f.0);
    ExactVerification {
        pairs: verified,
        failures,
    }
}

/// The candidate graph over local indices: document `docs[i]` is node `i`
/// (`docs` ascending, so local order is id order), and every pair keeps its
/// orientation.
struct Graph {
    docs: Vec<u32>,
    /// The pairs as local indices, `u < v`.
    pairs: Vec<(u32, u32)>,
    /// Neighbours of node `i`: `adjacent[starts[i]..starts[i + 1]]`, ascending.
    starts: Vec<usize>,
    adjacent: Vec<u32>,
}

impl Graph {
    fn new(pairs: &[(u32, u32)]) -> Self {
        let docs = involved_documents(pairs);
        let local = |d: u32| docs.binary_search(&d).expect("every endpoint is a node") as u32;
        let pairs: Vec<(u32, u32)> = pairs
            .par_iter()
            .map(|&(a, b)| (local(a), local(b)))
            .collect();
        let mut starts = vec![0usize; docs.len() + 1];
        for &(u, v) in &pairs {
            starts[u as usize + 1] += 1;
            starts[v as usize + 1] += 1;
        }
        for i in 0..docs.len() {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut adjacent = vec![0u32; starts[docs.len()]];
        for &(u, v) in &pairs {
            adjacent[fill[u as usize]] = v;
            fill[u as usize] += 1;
            adjacent[fill[v as usize]] = u;
            fill[v as usize] += 1;
        }
        for i in 0..docs.len() {
            adjacent[starts[i]..starts[i + 1]].sort_unstable();
        }
        Graph {
            docs,
            pairs,
            starts,
            adjacent,
        }
    }

    fn neighbours(&self, i: u32) -> &[u32] {
        &self.adjacent[self.starts[i as usize]..self.starts[i as usize + 1]]
    }

    /// The connected components, each as its nodes ascending, in order of
    /// their smallest node.
    fn components(&self) -> Vec<Vec<u32>> {
        let n = self.docs.len();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn root(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let up = parent[parent[x as usize] as usize];
                parent[x as usize] = up;
                x = up;
            }
            x
        }
        for &(u, v) in &self.pairs {
            let (ru, rv) = (root(&mut parent, u), root(&mut parent, v));
            if ru != rv {
                // The smaller node becomes the root, so a root is its
                // component's smallest node.
                parent[ru.max(rv) as usize] = ru.min(rv);
            }
        }
        let mut index_of_root = vec![u32::MAX; n];
        let mut components: Vec<Vec<u32>> = Vec::new();
        for x in 0..n as u32 {
            let r = root(&mut parent, x);
            if index_of_root[r as usize] == u32::MAX {
                index_of_root[r as usize] = components.len() as u32;
                components.push(Vec::new());
            }
            components[index_of_root[r as usize] as usize].push(x);
        }
        components
    }

    /// The cheaper of two load orders for `component` (its nodes ascending)
    /// and its window: ascending id, or breadth-first from the smallest node
    /// with neighbours in ascending order (Cuthill–McKee, which keeps a
    /// chain or a star of near-copies narrow whatever their ids).
    fn load_order(&self, component: &[u32], bytes: &[usize]) -> (Vec<u32>, usize) {
        let by_id = self.window(component, bytes);
        if component.len() <= 2 {
            return (component.to_vec(), by_id);
        }
        let mut seen = std::collections::HashSet::with_capacity(component.len());
        let mut bfs = Vec::with_capacity(component.len());
        seen.insert(component[0]);
        bfs.push(component[0]);
        let mut next = 0;
        while next < bfs.len() {
            let x = bfs[next];
            next += 1;
            for &y in self.neighbours(x) {
                if seen.insert(y) {
                    bfs.push(y);
                }
            }
        }
        let by_bfs = self.window(&bfs, bytes);
        if by_bfs < by_id {
            (bfs, by_bfs)
        } else {
            (component.to_vec(), by_id)
        }
    }

    /// The most bytes alive at once when `order` is loaded one node at a time
    /// and each node is dropped once it and all its neighbours are loaded.
    fn window(&self, order: &[u32], bytes: &[usize]) -> usize {
        let position: std::collections::HashMap<u32, usize> =
            order.iter().enumerate().map(|(p, &x)| (x, p)).collect();
        let mut freed_at = vec![0usize; order.len()];
        for (p, &x) in order.iter().enumerate() {
            let last = self
                .neighbours(x)
                .iter()
                .map(|y| position[y])
                .fold(p, usize::max);
            freed_at[last] += bytes[x as usize];
        }
        let (mut alive, mut peak) = (0usize, 0usize);
        for (p, &x) in order.iter().enumerate() {
            alive += bytes[x as usize];
            peak = peak.max(alive);
            alive -= freed_at[p];
        }
        peak
    }
}

/// The state of one verification: what was found and what failed.
struct Run<'a, E, L> {
    graph: &'a Graph,
    threshold: f64,
    load: &'a L,
    verified: Vec<VerifiedPair>,
    failures: Vec<(u32, E)>,
    /// By node: its load failed once, so it is never loaded again.
    failed: Vec<bool>,
}

impl<E, S, L> Run<'_, E, L>
where
    E: Send,
    S: AsRef<[u64]> + Send + Sync,
    L: Fn(u32) -> Result<S, E> + Sync,
{
    /// Loads `nodes` in parallel; failures are recorded and leave `None`.
    fn load_all(&mut self, nodes: &[u32]) -> Vec<Option<S>> {
        let (graph, load, failed) = (self.graph, self.load, &self.failed);
        let results: Vec<Option<Result<S, E>>> = nodes
            .par_iter()
            .map(|&x| (!failed[x as usize]).then(|| load(graph.docs[x as usize])))
            .collect();
        results
            .into_iter()
            .zip(nodes)
            .map(|(result, &x)| match result? {
                Ok(set) => Some(set),
                Err(e) => {
                    self.failed[x as usize] = true;
                    self.failures.push((self.graph.docs[x as usize], e));
                    None
                }
            })
            .collect()
    }

    /// Verifies `pairs` (local, `u < v`) with both sets from `set`.
    fn check<'s>(&mut self, pairs: &[(u32, u32)], set: impl Fn(u32) -> Option<&'s S> + Sync)
    where
        S: 's,
    {
        let (docs, threshold) = (&self.graph.docs, self.threshold);
        let found: Vec<VerifiedPair> = pairs
            .par_iter()
            .filter_map(|&(u, v)| {
                let (sa, sb) = (set(u)?.as_ref(), set(v)?.as_ref());
                let need = overlap_needed(sa.len(), sb.len(), threshold);
                let shared = intersection_at_least(sa, sb, need)?;
                let similarity = ratio(shared, sa.len() + sb.len() - shared);
                (similarity >= threshold).then_some(VerifiedPair {
                    a: docs[u as usize],
                    b: docs[v as usize],
                    shared,
                    similarity,
                })
            })
            .collect();
        self.verified.extend(found);
    }

    /// The pairs among the nodes of `order` (whole components), grouped by
    /// the position of their later node: those completed by node `order[p]`
    /// are `pairs[offsets[p]..offsets[p + 1]]`. `position[x]` is `x`'s index
    /// in `order`.
    fn pairs_by_later(&self, order: &[u32], position: &[u32]) -> (Vec<(u32, u32)>, Vec<usize>) {
        let graph = self.graph;
        let mut pairs = Vec::new();
        let mut offsets = Vec::with_capacity(order.len() + 1);
        offsets.push(0);
        for (p, &x) in order.iter().enumerate() {
            for &y in graph.neighbours(x) {
                if (position[y as usize] as usize) < p {
                    pairs.push((x.min(y), x.max(y)));
                }
            }
            offsets.push(pairs.len());
        }
        (pairs, offsets)
    }

    /// Loads the nodes of `order` (whole components, each in its load order)
    /// once each, in parallel steps that fit in `budget` beside the sets still
    /// needed (a step holds at least one node), verifies every pair whose
    /// later node has arrived, and drops each set after its last pair.
    fn stream(&mut self, order: &[u32], bytes: &[usize], budget: usize) {
        let mut position = vec![u32::MAX; self.graph.docs.len()];
        for (p, &x) in order.iter().enumerate() {
            position[x as usize] = p as u32;
        }
        let (pairs, offsets) = self.pairs_by_later(order, &position);
        // Position after whose step nothing needs the node at position p.
        let last_use: Vec<u32> = order
            .iter()
            .enumerate()
            .map(|(p, &x)| {
                self.graph
                    .neighbours(x)
                    .iter()
                    .map(|&y| position[y as usize])
                    .fold(p as u32, u32::max)
            })
            .collect();
        let mut by_last_use: Vec<u32> = (0..order.len() as u32).collect();
        by_last_use.sort_unstable_by_key(|&p| (last_use[p as usize], p));

        let mut sets: Vec<Option<S>> = (0..order.len()).map(|_| None).collect();
        let (mut start, mut next_free, mut alive) = (0usize, 0usize, 0usize);
        while start < order.len() {
            let mut end = start;
            let mut step = 0usize;
            while end < order.len()
                && (end == start || alive + step + bytes[order[end] as usize] <= budget)
            {
                step += bytes[order[end] as usize];
                end += 1;
            }
            for (p, set) in (start..end).zip(self.load_all(&order[start..end])) {
                sets[p] = set;
            }
            alive += step;
            self.check(&pairs[offsets[start]..offsets[end]], |x| {
                sets[position[x as usize] as usize].as_ref()
            });
            while next_free < by_last_use.len()
                && (last_use[by_last_use[next_free] as usize] as usize) < end
            {
                let p = by_last_use[next_free] as usize;
                sets[p] = None;
                alive -= bytes[order[p] as usize];
                next_free += 1;
            }
            start = end;
        }
    }

    /// The fallback for a component whose window exceeds the budget: its
    /// nodes, in id order, are cut into blocks of at most half the budget,
    /// and pairs are verified block pair by block pair, so each block's sets
    /// are loaded once per block it pairs with.
    fn blockwise(&mut self, mut nodes: Vec<u32>, bytes: &[usize], budget: usize) {
        nodes.sort_unstable();
        let half = (budget / 2).max(1);
        let mut block_of = vec![u32::MAX; self.graph.docs.len()];
        let mut blocks: Vec<Vec<u32>> = vec![Vec::new()];
        let mut used = 0usize;
        for &x in &nodes {
            let size = bytes[x as usize];
            if !blocks.last().expect("one block").is_empty() && used + size > half {
                blocks.push(Vec::new());
                used = 0;
            }
            used += size;
            blocks.last_mut().expect("one block").push(x);
            block_of[x as usize] = blocks.len() as u32 - 1;
        }
        let mut by_blocks: Vec<(u32, u32, u32, u32)> = Vec::new();
        for &x in &nodes {
            for &y in self.graph.neighbours(x) {
                if x < y {
                    by_blocks.push((block_of[x as usize], block_of[y as usize], x, y));
                }
            }
        }
        by_blocks.sort_unstable();

        let mut slot = vec![u32::MAX; self.graph.docs.len()];
        for left_group in by_blocks.chunk_by(|p, q| p.0 == q.0) {
            let left_block = &blocks[left_group[0].0 as usize];
            let left = self.load_all(left_block);
            for (i, &x) in left_block.iter().enumerate() {
                slot[x as usize] = i as u32;
            }
            for group in left_group.chunk_by(|p, q| p.1 == q.1) {
                let right_index = group[0].1;
                let pairs: Vec<(u32, u32)> = group.iter().map(|&(_, _, x, y)| (x, y)).collect();
                if right_index == left_group[0].0 {
                    self.check(&pairs, |x| left[slot[x as usize] as usize].as_ref());
                    continue;
                }
                let right_block = &blocks[right_index as usize];
                let right = self.load_all(right_block);
                let in_left = |x: u32| block_of[x as usize] == left_group[0].0;
                let right_slot: std::collections::HashMap<u32, usize> = right_block
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| (x, i))
                    .collect();
                self.check(&pairs, |x| {
                    if in_left(x) {
                        left[slot[x as usize] as usize].as_ref()
                    } else {
                        right[right_slot[&x]].as_ref()
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// `P[Binomial(n, p) < m]`, summed in log space.
    fn binomial_below(n: usize, p: f64, m: usize) -> f64 {
        let ln_choose = |k: usize| -> f64 {
            (1..=k)
                .map(|i| ((n - k + i) as f64).ln() - (i as f64).ln())
                .sum()
        };
        (0..m)
            .map(|k| (ln_choose(k) + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp())
            .sum()
    }

    #[test]
    fn agreements_needed_misses_at_most_the_allowed_share_at_the_threshold() {
        for (n, t, miss) in [
            (100, 0.8, 1e-6),
            (96, 0.8, 3.5e-6),
            (100, 0.5, 5e-3),
            (128, 0.9, 1e-9),
            (20, 0.6, 1e-2),
        ] {
            let m = agreements_needed(n, t, miss);
            assert!(m > 0 && (m as f64) < n as f64 * t, "{n} {t} {miss}: {m}");
            // The exact tail at the threshold is within the bound, and so is
            // every similarity above it.
            for j in [t, (t + 1.0) / 2.0] {
                let p = binomial_below(n, j, m);
                assert!(p <= miss, "{n} {t} {miss}: P[X < {m}] = {p:e} at J = {j}");
            }
            // Not vacuous: one more agreement needed would still be a rare
            // miss (within 10 000 × the allowance), so the cut is near the tail.
            assert!(binomial_below(n, t, m + 1) <= miss * 1e4, "{n} {t} {miss}");
        }
    }

    #[test]
    fn agreements_needed_at_the_edges() {
        assert_eq!(
            agreements_needed(100, 0.8, 0.0),
            0,
            "no miss allowed: no cut"
        );
        assert_eq!(agreements_needed(0, 0.8, 1e-6), 0);
        assert_eq!(agreements_needed(100, 0.0, 1e-6), 0);
        // J = 1 agrees everywhere: anything less is ruled out.
        assert_eq!(agreements_needed(100, 1.0, 1e-6), 100);
        // A larger allowance never needs fewer agreements.
        let cuts: Vec<usize> = [1e-12, 1e-9, 1e-6, 1e-3, 1e-1]
            .iter()
            .map(|&miss| agreements_needed(100, 0.8, miss))
            .collect();
        assert!(cuts.windows(2).all(|w| w[0] <= w[1]), "{cuts:?}");
    }

    /// Every merge kernel this CPU runs (the SIMD ones are tested only where
    /// the CPU has them; the scalar one everywhere).
    /// Every kernel's early-exit answer for `need`, given the true `shared`.
    fn every_kernel_agrees(
        a: &[u64],
        b: &[u64],
        need: usize,
        shared: usize,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        for kernel in kernels() {
            proptest::prop_assert_eq!(
                intersection_at_least_with(kernel, a, b, need),
                (shared >= need).then_some(shared),
                "{}",
                kernel.name()
            );
        }
        Ok(())
    }

    fn kernels() -> Vec<MergeKernel> {
        MergeKernel::ALL
            .iter()
            .copied()
            .filter(|k| k.supported())
            .collect()
    }

    /// Sets of every length 0..=40 (across the SIMD block sizes 4 and 8 and
    /// their multiples) in shapes that exercise the block advance: heavy
    /// overlap at every offset, disjoint ranges either side, fine and coarse
    /// interleaving, pseudo-random subsets, and the same near `u64::MAX`
    /// (values the kernels compare as signed lanes). `need` runs around the
    /// answer, where an early exit would show.
    #[test]
    fn every_kernel_equals_the_textbook_merge_on_small_sets() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let kernels = kernels();
        let mut checked = 0usize;
        for la in 0..=40u64 {
            for lb in 0..=40u64 {
                let mask = random();
                let shapes: Vec<(Vec<u64>, Vec<u64>)> = vec![
                    // Overlapping ranges at several offsets, from identical
                    // to just touching.
                    ((0..la).collect(), (0..lb).collect()),
                    ((0..la).collect(), (la / 2..la / 2 + lb).collect()),
                    ((3..3 + la).collect(), (0..lb).collect()),
                    ((0..la).collect(), (la.saturating_sub(1)..la + lb).collect()),
                    // Disjoint, `b` after `a` and before it.
                    ((0..la).collect(), (la..la + lb).collect()),
                    ((100..100 + la).collect(), (0..lb).collect()),
                    // Interleaved: evens and odds (nothing shared), and
                    // multiples of 2 and of 3 (every sixth shared).
                    (
                        (0..la).map(|x| 2 * x).collect(),
                        (0..lb).map(|x| 2 * x + 1).collect(),
                    ),
                    (
                        (0..la).map(|x| 2 * x).collect(),
                        (0..lb).map(|x| 3 * x).collect(),
                    ),
                    // Pseudo-random subsets of a small universe.
                    (
                        (0..64)
                            .filter(|x| mask >> x & 1 == 1)
                            .take(la as usize)
                            .collect(),
                        (0..64)
                            .filter(|x| (mask >> x) & 3 != 0)
                            .take(lb as usize)
                            .collect(),
                    ),
                ];
                for (a, b) in shapes {
                    let high =
                        |s: &[u64]| -> Vec<u64> { s.iter().map(|&x| u64::MAX - 200 + x).collect() };
                    let (ha, hb) = (high(&a), high(&b));
                    for (a, b) in [(&a, &b), (&b, &a), (&ha, &hb)] {
                        let shared = merge_reference(a, b);
                        for need in [0, shared.saturating_sub(1), shared, shared + 1, shared + 9] {
                            for &kernel in &kernels {
                                assert_eq!(
                                    intersection_at_least_with(kernel, a, b, need),
                                    (shared >= need).then_some(shared),
                                    "{} a {a:?} b {b:?} need {need}",
                                    kernel.name()
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked >= 41 * 41 * 9 * 3 * 5, "{checked}");
    }

    #[test]
    fn best_kernel_is_supported() {
        assert!(MergeKernel::best().supported());
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("popcnt") {
            assert_eq!(MergeKernel::best(), MergeKernel::Avx512);
        }
    }

    /// The textbook merge, as the oracle for the branch-free one.
    fn merge_reference(a: &[u64], b: &[u64]) -> usize {
        let (mut i, mut j, mut shared) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        shared
    }

    fn sorted_set(v: Vec<u64>) -> Vec<u64> {
        let mut v = v;
        v.sort_unstable();
        v.dedup();
        v
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0xB7A1_C4F3),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]

        #[test]
        fn branch_free_merge_equals_the_textbook_one(
            a in proptest::collection::vec(0u64..3000, 0..1500),
            b in proptest::collection::vec(0u64..3000, 0..1500),
            need in 0usize..1200,
        ) {
            let (a, b) = (sorted_set(a), sorted_set(b));
            let shared = merge_reference(&a, &b);
            proptest::prop_assert_eq!(intersection_size(&a, &b), shared);
            proptest::prop_assert_eq!(
                intersection_at_least(&a, &b, need),
                (shared >= need).then_some(shared)
            );
            every_kernel_agrees(&a, &b, need, shared)?;
        }

        /// Near-copies, as verification sees them: two samples of one set
        /// of hash-like values, each keeping most of it, and `need` within
        /// a few of the answer (where an early exit would be wrong).
        #[test]
        fn every_kernel_equals_the_textbook_merge_on_near_copies(
            base in proptest::collection::btree_set(proptest::num::u64::ANY, 0..600),
            keep in proptest::collection::vec((0u8..100, 0u8..100), 600),
            keep_percent in 50u8..=100,
            delta in -3isize..=3,
        ) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (&x, &(ka, kb)) in base.iter().zip(&keep) {
                if ka < keep_percent { a.push(x) }
                if kb < keep_percent { b.push(x) }
            }
            let shared = merge_reference(&a, &b);
            let need = shared.saturating_add_signed(delta);
            every_kernel_agrees(&a, &b, need, shared)?;
        }

        #[test]
        fn overlap_needed_never_rejects_a_pair_at_the_threshold(
            la in 1usize..100_000,
            lb in 1usize..100_000,
            t in 0.01f64..=1.0,
        ) {
            // Every overlap whose ratio reaches t is at least overlap_needed.
            let need = overlap_needed(la, lb, t);
            for o in need.saturating_sub(2)..=la.min(lb).min(need + 2) {
                if ratio(o, la + lb - o) >= t {
                    proptest::prop_assert!(o >= need, "o {} need {}", o, need);
                }
            }
        }
    }

    #[test]
    fn the_bound_rejects_disjoint_sets_and_keeps_identical_ones() {
        // Disjoint halves: after the first check nothing can reach `need`, so
        // the merge gives up there (the answer is what this test can see).
        let a: Vec<u64> = (0..10_000).map(|x| 2 * x).collect();
        let b: Vec<u64> = (0..10_000).map(|x| 2 * x + 1).collect();
        for kernel in kernels() {
            let at_least =
                |a: &[u64], b: &[u64], need| intersection_at_least_with(kernel, a, b, need);
            assert_eq!(at_least(&a, &b, 9_000), None);
            assert_eq!(at_least(&a, &b, 0), Some(0));
            assert_eq!(at_least(&a, &a, 10_000), Some(10_000));
            assert_eq!(at_least(&a, &a, 10_001), None);
        }
    }

    #[test]
    fn jaccard_of_known_sets() {
        assert_eq!(jaccard(&[1, 2, 3, 4], &[3, 4, 5]), 2.0 / 5.0);
        assert_eq!(jaccard(&[1, 2], &[1, 2]), 1.0);
        assert_eq!(jaccard(&[], &[]), 0.0);
        assert_eq!(jaccard(&[1], &[]), 0.0);
    }

    fn corpus() -> Vec<Vec<u64>> {
        vec![
            (0..100).collect(),
            (10..110).collect(),  // J with 0 = 90/110
            (0..100).collect(),   // identical to 0
            (500..600).collect(), // unrelated
        ]
    }

    #[test]
    fn keeps_pairs_at_or_above_threshold() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2)];
        let out = verify_exact(
            &pairs,
            90.0 / 110.0,
            1 << 20,
            |_| 800,
            |d| Ok::<_, ()>(sets[d as usize].clone()),
        );
        let got: Vec<(u32, u32, usize)> = out.pairs.iter().map(|p| (p.a, p.b, p.shared)).collect();
        assert_eq!(got, vec![(0, 1, 90), (0, 2, 100), (1, 2, 90)]);
    }

    #[test]
    fn loads_each_document_once_when_the_budget_allows() {
        let sets = corpus();
        let loads = AtomicUsize::new(0);
        let pairs = [(0, 1), (0, 2), (1, 2), (2, 3)];
        verify_exact(
            &pairs,
            0.5,
            1 << 20,
            |_| 800,
            |d| {
                loads.fetch_add(1, Ordering::Relaxed);
                Ok::<_, ()>(sets[d as usize].clone())
            },
        );
        assert_eq!(loads.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn tiny_budget_gives_the_same_answer() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        let load = |d: u32| Ok::<_, ()>(sets[d as usize].clone());
        let roomy = verify_exact(&pairs, 0.5, 1 << 20, |_| 800, load);
        let tight = verify_exact(&pairs, 0.5, 1000, |_| 800, load);
        assert_eq!(roomy.pairs, tight.pairs);
    }

    #[test]
    fn failed_loads_drop_their_pairs_and_are_reported_once() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (1, 2)];
        let out = verify_exact(
            &pairs,
            0.5,
            1 << 20,
            |_| 800,
            |d| {
                if d == 1 {
                    Err("gone")
                } else {
                    Ok(sets[d as usize].clone())
                }
            },
        );
        assert_eq!(
            out.pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(),
            vec![(0, 2)]
        );
        assert_eq!(out.failures, vec![(1, "gone")]);
    }
}

/// The new verifier against brute force on random candidate graphs, with
/// tracked loads: how often each document is loaded and how many bytes of
/// sets are alive at once (counted by the loaded values' `Drop`).
#[cfg(test)]
mod streaming_tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// What a tracked loader saw.
    #[derive(Default)]
    struct Tracker {
        loads: Mutex<Vec<u32>>,
        alive: AtomicUsize,
        peak: AtomicUsize,
    }

    /// A loaded set that reports its bytes as alive until dropped.
    struct Tracked<'t> {
        set: Vec<u64>,
        bytes: usize,
        tracker: &'t Tracker,
    }

    impl AsRef<[u64]> for Tracked<'_> {
        fn as_ref(&self) -> &[u64] {
            &self.set
        }
    }

    impl Drop for Tracked<'_> {
        fn drop(&mut self) {
            self.tracker.alive.fetch_sub(self.bytes, Ordering::SeqCst);
        }
    }

    fn bytes_of(set: &[u64]) -> usize {
        8 * set.len()
    }

    /// Runs the verifier with a tracked loader; `fails` lists documents whose
    /// load fails.
    fn run(
        sets: &[Vec<u64>],
        pairs: &[(u32, u32)],
        threshold: f64,
        budget: Budget,
        fails: &[u32],
    ) -> (ExactVerification<u32>, Tracker) {
        let tracker = Tracker::default();
        let out = verify_exact(
            pairs,
            threshold,
            budget,
            |d| bytes_of(&sets[d as usize]),
            |d| {
                tracker.loads.lock().unwrap().push(d);
                if fails.contains(&d) {
                    return Err(d);
                }
                let set = sets[d as usize].clone();
                let bytes = bytes_of(&set);
                let now = tracker.alive.fetch_add(bytes, Ordering::SeqCst) + bytes;
                tracker.peak.fetch_max(now, Ordering::SeqCst);
                Ok(Tracked {
                    set,
                    bytes,
                    tracker: &tracker,
                })
            },
        );
        assert_eq!(tracker.alive.load(Ordering::SeqCst), 0, "every set dropped");
        (out, tracker)
    }

    /// What the verifier must return: every listed pair that reaches the
    /// threshold and whose documents both load, sorted (the old block-wise
    /// verifier's answer).
    fn expected(
        sets: &[Vec<u64>],
        pairs: &[(u32, u32)],
        threshold: f64,
        fails: &[u32],
    ) -> Vec<(u32, u32, usize)> {
        let mut out: Vec<(u32, u32, usize)> = pairs
            .iter()
            .filter(|(a, b)| !fails.contains(a) && !fails.contains(b))
            .filter(|&&(a, b)| jaccard(&sets[a as usize], &sets[b as usize]) >= threshold)
            .map(|&(a, b)| {
                (
                    a,
                    b,
                    intersection_size(&sets[a as usize], &sets[b as usize]),
                )
            })
            .collect();
        out.sort_unstable();
        out
    }

    fn got(out: &ExactVerification<u32>) -> Vec<(u32, u32, usize)> {
        out.pairs.iter().map(|p| (p.a, p.b, p.shared)).collect()
    }

    /// `count` sets of 10 values; set `i` shares 9 of them with set `i ± 1`
    /// in `chain` order, so consecutive chain members have J = 9/11.
    fn chain_sets(chain: &[u32]) -> Vec<Vec<u64>> {
        let mut sets = vec![Vec::new(); chain.len()];
        for (k, &d) in chain.iter().enumerate() {
            sets[d as usize] = (k as u64..k as u64 + 10).collect();
        }
        sets
    }

    #[test]
    fn clusters_with_far_apart_ids_are_loaded_once_within_the_working_budget() {
        // 8 clusters of 11 near-copies each; member k of cluster c has id
        // c + 8k, like one page in 11 releases walked in path order.
        let (clusters, copies) = (8u32, 11u32);
        let id = |c: u32, k: u32| c + clusters * k;
        let mut sets = vec![Vec::new(); (clusters * copies) as usize];
        let mut pairs = Vec::new();
        for c in 0..clusters {
            for k in 0..copies {
                sets[id(c, k) as usize] =
                    (1000 * c as u64..1000 * c as u64 + 20 + k as u64).collect();
                for l in k + 1..copies {
                    pairs.push((id(c, k).min(id(c, l)), id(c, k).max(id(c, l))));
                }
            }
        }
        pairs.sort_unstable();
        let cluster_bytes = (0..copies).map(|k| 8 * (20 + k as usize)).sum::<usize>();
        // Room for two clusters, not for all eight (a window over ids would
        // need all of them: every cluster spans the whole id range).
        let budget = Budget {
            working: 2 * cluster_bytes,
            cap: 2 * cluster_bytes,
        };
        let (out, tracker) = run(&sets, &pairs, 0.8, budget, &[]);
        assert_eq!(got(&out), expected(&sets, &pairs, 0.8, &[]));
        let mut loads = tracker.loads.into_inner().unwrap();
        loads.sort_unstable();
        assert_eq!(
            loads,
            (0..clusters * copies).collect::<Vec<_>>(),
            "each once"
        );
        assert!(tracker.peak.load(Ordering::SeqCst) <= budget.working);
    }

    #[test]
    fn a_chain_with_scattered_ids_is_streamed_in_breadth_first_order() {
        // 60 documents in a chain whose ids are a scrambled permutation: in id
        // order every set stays alive until the far end of the chain is
        // loaded; breadth-first, at most three are needed at once.
        let chain: Vec<u32> = (0..60u32).map(|k| (k * 37) % 60).collect();
        let sets = chain_sets(&chain);
        let mut pairs: Vec<(u32, u32)> = chain
            .windows(2)
            .map(|w| (w[0].min(w[1]), w[0].max(w[1])))
            .collect();
        pairs.sort_unstable();
        let budget = Budget::from(3 * 80);
        let (out, tracker) = run(&sets, &pairs, 0.8, budget, &[]);
        assert_eq!(got(&out), expected(&sets, &pairs, 0.8, &[]));
        assert_eq!(out.pairs.len(), 59);
        assert_eq!(tracker.loads.into_inner().unwrap().len(), 60, "each once");
        assert!(tracker.peak.load(Ordering::SeqCst) <= 3 * 80);
    }

    #[test]
    fn a_component_over_the_working_budget_uses_the_cap_and_still_loads_once() {
        let chain: Vec<u32> = (0..10).collect();
        let sets = chain_sets(&chain);
        // A clique: its window is all ten sets (800 bytes).
        let pairs: Vec<(u32, u32)> = (0..10)
            .flat_map(|a| (a + 1..10).map(move |b| (a, b)))
            .collect();
        let budget = Budget {
            working: 200,
            cap: 800,
        };
        let (out, tracker) = run(&sets, &pairs, 0.5, budget, &[]);
        assert_eq!(got(&out), expected(&sets, &pairs, 0.5, &[]));
        assert_eq!(tracker.loads.into_inner().unwrap().len(), 10);
        assert!(tracker.peak.load(Ordering::SeqCst) <= 800);
    }

    #[test]
    fn a_component_over_the_cap_is_verified_in_blocks_within_it() {
        let chain: Vec<u32> = (0..10).collect();
        let sets = chain_sets(&chain);
        let pairs: Vec<(u32, u32)> = (0..10)
            .flat_map(|a| (a + 1..10).map(move |b| (a, b)))
            .collect();
        let budget = Budget::from(320);
        let (out, tracker) = run(&sets, &pairs, 0.5, budget, &[]);
        assert_eq!(got(&out), expected(&sets, &pairs, 0.5, &[]));
        assert!(
            tracker.loads.into_inner().unwrap().len() > 10,
            "blocks re-loaded"
        );
        assert!(tracker.peak.load(Ordering::SeqCst) <= 320);
    }

    #[test]
    fn output_does_not_depend_on_the_thread_count() {
        let chain: Vec<u32> = (0..40u32).map(|k| (k * 17) % 40).collect();
        let sets = chain_sets(&chain);
        let mut pairs: Vec<(u32, u32)> = (0..40u32)
            .flat_map(|a| (a + 1..40).map(move |b| (a, b)))
            .filter(|&(a, b)| (a * b) % 3 != 1)
            .collect();
        pairs.sort_unstable();
        let with = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let (out, _) = run(&sets, &pairs, 0.3, Budget::from(400), &[3, 17]);
                (out.pairs, out.failures)
            })
        };
        assert_eq!(with(1), with(4));
    }

    /// A random corpus: sets drawn from a small universe (so that many pairs
    /// are similar) and a random candidate graph over them, plus a clique of
    /// the first `giant` documents (one component larger than small budgets).
    fn corpus() -> impl Strategy<Value = (Vec<Vec<u64>>, Vec<(u32, u32)>)> {
        (2usize..40)
            .prop_flat_map(|docs| {
                (
                    prop::collection::vec(prop::collection::btree_set(0u64..40, 0..25), docs),
                    prop::collection::vec((0..docs as u32, 0..docs as u32), 0..80),
                    0..docs.min(12),
                )
            })
            .prop_map(|(sets, raw, giant)| {
                let sets: Vec<Vec<u64>> =
                    sets.into_iter().map(|s| s.into_iter().collect()).collect();
                let mut pairs: Vec<(u32, u32)> = raw
                    .into_iter()
                    .filter(|(a, b)| a != b)
                    .map(|(a, b)| (a.min(b), a.max(b)))
                    .chain(
                        (0..giant as u32).flat_map(|a| (a + 1..giant as u32).map(move |b| (a, b))),
                    )
                    .collect();
                pairs.sort_unstable();
                pairs.dedup();
                (sets, pairs)
            })
    }

    proptest! {
        #![proptest_config(Config {
            cases: 400,
            rng_seed: RngSeed::Fixed(0x7E41_F1ED),
            failure_persistence: None,
            ..Config::default()
        })]

        /// Same pairs as brute force (the old verifier's answer) under any
        /// budgets, with failing loads; never more than the cap alive (or two
        /// of the largest sets, when one set alone exceeds half the cap); and
        /// each document loaded once when the cap holds all sets.
        #[test]
        fn streaming_equals_brute_force_within_the_budget(
            (sets, pairs) in corpus(),
            threshold in 0.05f64..=1.0,
            working in 1usize..400,
            extra in 0usize..800,
            fail_mask in any::<u64>(),
        ) {
            let fails: Vec<u32> = (0..sets.len() as u32).filter(|d| fail_mask >> (d % 64) & 1 == 1 && d % 5 == 0).collect();
            let budget = Budget { working, cap: working + extra };
            let (out, tracker) = run(&sets, &pairs, threshold, budget, &fails);
            prop_assert_eq!(got(&out), expected(&sets, &pairs, threshold, &fails));

            let involved = involved_documents(&pairs);
            let failed: Vec<u32> = out.failures.iter().map(|f| f.0).collect();
            let expected_failed: Vec<u32> = involved.iter().copied().filter(|d| fails.contains(d)).collect();
            prop_assert_eq!(failed, expected_failed, "each failure reported once");

            let largest = involved.iter().map(|&d| bytes_of(&sets[d as usize])).max().unwrap_or(0);
            prop_assert!(tracker.peak.load(Ordering::SeqCst) <= budget.cap.max(2 * largest));
            let loads = tracker.loads.into_inner().unwrap();
            let total: usize = involved.iter().map(|&d| bytes_of(&sets[d as usize])).sum();
            if total <= budget.cap {
                prop_assert_eq!(loads.len(), involved.len(), "each document loaded once");
            }
            // A failed document is never loaded again.
            for d in &fails {
                prop_assert!(loads.iter().filter(|&&x| x == *d).count() <= 1);
            }
        }
    }
}
