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
//!    streamed: each thread takes the next document in that order when its
//!    set fits beside the sets alive and loading, a pair is verified as soon
//!    as its second set arrives, and a set is dropped after its last pair.
//!    No thread waits for another's load to finish a batch, so both cores
//!    stay busy; each document is loaded exactly once.
//! 4. A component whose window exceeds the working budget but fits the cap is
//!    streamed alone under the cap (still one load per document). One whose
//!    window exceeds even the cap (a near-clique bigger than the cap) is cut
//!    in id order into blocks of half the cap and processed block pair by
//!    block pair, re-loading blocks: memory stays bounded, reads do not.
//! 5. With [`verify_exact_parted`], a pair whose two sets alone exceed the cap
//!    is not loaded whole: it is verified in `P = ⌈need / cap⌉` passes, pass
//!    `p` loading only the values of both sets in [`Part`] `p` of the hash
//!    space, and `|A ∩ B|`, `|A|`, `|B|` are the sums over the passes (the
//!    parts are disjoint and cover every value, so the sums are exact). Each
//!    pass reads both files again: memory stays bounded, reads do not.
//!
//! **Invariants**: the output is the same whatever the budgets and the thread
//! count (pairs sorted by `(a, b)`, failures by document); the sets alive at
//! once never exceed [`Budget::cap`] by `set_bytes`' measure (and stay within
//! [`Budget::working`] when every window fits it), except that a single set
//! larger than half the cap is still loaded by [`verify_exact`] (not by
//! [`verify_exact_parted`], up to [`MAX_PASSES`]); a document whose load
//! fails is reported once, never loaded again, and its pairs are dropped.

use rayon::prelude::*;

use super::graph::UnionFind;
use super::sets::{intersection_at_least, intersection_size, overlap_needed, ratio};
// For `sketch::minhash`'s tests, which name it here (that file is not ours
// to edit during the SIMD conversion); everything else uses `sets`.
pub use super::sets::jaccard;

/// The documents that occur in `pairs`, ascending, each once: the nodes of
/// the candidate graph, and what verification will load.
pub fn involved_documents(pairs: &[(u32, u32)]) -> Vec<u32> {
    let mut docs: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    docs.par_sort_unstable();
    docs.dedup();
    docs
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

/// Whether `agree` agreeing positions of `n` rule a pair out at `threshold`:
/// `agree < agreements_needed(n, threshold, miss)`, in constant time (two
/// logarithms) where that scans the counts. What a lookup asks once per
/// stored document, each at a threshold of its own (containment: the Jaccard
/// a size pair needs), where a scan per document cost more than the rest of
/// the lookup. It holds because `KL(k/n ‖ t)` falls as `k` rises towards
/// `n·t`: the counts whose bound is within `miss` are `0..needed`.
pub fn ruled_out(agree: usize, n: usize, threshold: f64, miss: f64) -> bool {
    if n == 0 || miss.is_nan() || threshold.is_nan() || miss <= 0.0 || threshold <= 0.0 {
        return false;
    }
    let t = threshold.min(1.0);
    let budget = -miss.min(1.0).ln();
    let q = agree as f64 / n as f64;
    if (agree as f64) >= n as f64 * t {
        return false;
    }
    let term = |x: f64, y: f64| if x == 0.0 { 0.0 } else { x * (x / y).ln() };
    n as f64 * (term(q, t) + term(1.0 - q, 1.0 - t)) >= budget
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
    /// The pairs [`verify_exact_parted`] verified in passes over parts of the
    /// hash space, whether they were kept or not (in `(a, b)` order).
    pub parted: Vec<PartedPair>,
    /// The exact set sizes of the documents of `parted` pairs (summed over
    /// the parts, never loaded whole), once per document, ascending.
    pub part_counts: Vec<(u32, usize)>,
}

/// A pair whose two sets did not fit the cap together, verified in passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartedPair {
    pub a: u32,
    pub b: u32,
    /// Both sets' bytes by `set_bytes`' measure.
    pub need: usize,
    pub passes: u32,
}

/// One of `count` disjoint parts of the 64-bit hash space that together cover
/// it: a value belongs to part `⌊mix(h) · count / 2⁶⁴⌋`. The mix (splitmix64's
/// finaliser) spreads short shingles, whose "hash" may be their bytes, evenly
/// over the parts, so each part holds about `1 / count` of any large set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub index: u32,
    pub count: u32,
}

impl Part {
    /// The whole hash space: one part.
    pub const WHOLE: Part = Part { index: 0, count: 1 };

    /// Whether `h` is in this part.
    #[inline]
    pub fn contains(self, h: u64) -> bool {
        if self.count <= 1 {
            return true;
        }
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((u128::from(z) * u128::from(self.count)) >> 64) as u32 == self.index
    }

    /// The parts needed so that `need` bytes fit in `cap` bytes per part (at
    /// least 1, at most [`MAX_PASSES`]).
    pub fn count_for(need: usize, cap: usize) -> u32 {
        u32::try_from(need.div_ceil(cap.max(1)))
            .unwrap_or(u32::MAX)
            .clamp(1, MAX_PASSES)
    }
}

/// The most passes one pair (or one count) is split into: a cap far below
/// the sets (`--verify-memory 1K` on gigabyte files) would otherwise mean
/// millions of reads. Beyond it, a part exceeds the cap.
pub const MAX_PASSES: u32 = 4096;

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
/// the scan's memory bound and still holds hundreds of typical sets (~24 KB
/// each), so each parallel step loads many documents. Why 16 MiB and not
/// more: docs/PERFORMANCE.md, "Exact verification within the memory bound"
/// (the largest window on linux-scale fits it, and at 16 MiB exact
/// verification no longer raises a scan's peak RSS, while 32 MiB does, by
/// ~6 MB).
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
    let graph = CandidateGraph::new(pairs);
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
        parted: Vec::new(),
        part_counts: Vec::new(),
    }
}

/// [`verify_exact`], except that a pair whose two sets exceed the cap
/// together (by `set_bytes`) is verified in passes over [`Part`]s of the hash
/// space: `load_part(d, part)` produces the sorted values of `d`'s set in
/// `part`. Same pairs and similarities as [`verify_exact`]; memory within the
/// cap even for one pair of huge sets (module documentation, step 5).
pub fn verify_exact_parted<E, S, L, P>(
    pairs: &[(u32, u32)],
    threshold: f64,
    budget: impl Into<Budget>,
    set_bytes: impl Fn(u32) -> usize,
    load: L,
    load_part: P,
) -> ExactVerification<E>
where
    E: Send,
    S: AsRef<[u64]> + Send + Sync,
    L: Fn(u32) -> Result<S, E> + Sync,
    P: Fn(u32, Part) -> Result<Vec<u64>, E> + Sync,
{
    let budget = budget.into();
    let cap = budget.cap.max(budget.working).max(1);
    let need = |&(a, b): &(u32, u32)| set_bytes(a).saturating_add(set_bytes(b));
    let (mut parted, whole): (Vec<_>, Vec<_>) = pairs.iter().partition(|pair| need(pair) > cap);
    let mut out = verify_exact(&whole, threshold, budget, &set_bytes, load);
    if parted.is_empty() {
        return out;
    }
    let mut failed: std::collections::HashSet<u32> = out.failures.iter().map(|f| f.0).collect();
    let mut counts = std::collections::BTreeMap::new();
    parted.sort_unstable();
    for (a, b) in parted {
        if failed.contains(&a) || failed.contains(&b) {
            continue;
        }
        let need = need(&(a, b));
        let passes = Part::count_for(need, cap);
        let (mut shared, mut len_a, mut len_b) = (0usize, 0usize, 0usize);
        let mut complete = true;
        for index in 0..passes {
            let part = Part {
                index,
                count: passes,
            };
            let (set_a, set_b) = rayon::join(|| load_part(a, part), || load_part(b, part));
            match (set_a, set_b) {
                (Ok(set_a), Ok(set_b)) => {
                    shared += intersection_size(&set_a, &set_b);
                    len_a += set_a.len();
                    len_b += set_b.len();
                }
                (set_a, set_b) => {
                    for (d, result) in [(a, set_a), (b, set_b)] {
                        if let Err(e) = result {
                            failed.insert(d);
                            out.failures.push((d, e));
                        }
                    }
                    complete = false;
                    break;
                }
            }
        }
        if !complete {
            continue;
        }
        counts.insert(a, len_a);
        counts.insert(b, len_b);
        out.parted.push(PartedPair { a, b, need, passes });
        let similarity = ratio(shared, len_a + len_b - shared);
        if similarity >= threshold {
            out.pairs.push(VerifiedPair {
                a,
                b,
                shared,
                similarity,
            });
        }
    }
    out.pairs.sort_unstable_by_key(|p| (p.a, p.b));
    out.failures.sort_unstable_by_key(|f| f.0);
    out.part_counts = counts.into_iter().collect();
    out
}

/// The candidate graph over local indices: document `docs[i]` is node `i`
/// (`docs` ascending, so local order is id order), and every pair keeps its
/// orientation.
struct CandidateGraph {
    docs: Vec<u32>,
    /// The pairs as local indices, `u < v`.
    pairs: Vec<(u32, u32)>,
    /// Neighbours of node `i`: `adjacent[starts[i]..starts[i + 1]]`, ascending.
    starts: Vec<usize>,
    adjacent: Vec<u32>,
}

impl CandidateGraph {
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
        CandidateGraph {
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
        let mut sets = UnionFind::new(self.docs.len());
        for &(u, v) in &self.pairs {
            sets.union(u, v);
        }
        sets.components()
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
    graph: &'a CandidateGraph,
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
    /// once each, verifies every pair as soon as both its sets are there, and
    /// drops each set after its last pair: within `budget` beside the sets
    /// still needed (one node at a time may exceed it, as a set larger than
    /// the budget must).
    ///
    /// No step waits for the slowest load of a batch: each thread takes the
    /// next node in load order when its bytes fit beside those alive and
    /// loading, loads it, and verifies the pairs this node completes (the
    /// second of a pair's two sets to arrive verifies it, so each pair is
    /// verified once, whichever thread loads first). A thread whose node does
    /// not fit waits until a set is dropped or the loads in flight are done;
    /// with nothing in flight, every pair among the loaded nodes has been
    /// verified, which is the state the window was measured in, so the sets
    /// alive are those of the sequential order and the window bounds them.
    /// (A `load` that itself waited on rayon work could let its thread take
    /// up another of these loops and wait on its own node: the one caller's
    /// loads do not use rayon.)
    fn stream(&mut self, order: &[u32], bytes: &[usize], budget: usize) {
        use std::sync::atomic::{AtomicU8, AtomicU32, Ordering::AcqRel};
        use std::sync::{Arc, Condvar, Mutex};

        let graph = self.graph;
        let n = order.len();
        let mut position = vec![u32::MAX; graph.docs.len()];
        for (p, &x) in order.iter().enumerate() {
            position[x as usize] = p as u32;
        }
        let (pairs, _) = self.pairs_by_later(order, &position);
        // The pairs of each position: incident[starts[p]..starts[p + 1]].
        let at = |x: u32| position[x as usize] as usize;
        let mut starts = vec![0usize; n + 1];
        for &(u, v) in &pairs {
            starts[at(u) + 1] += 1;
            starts[at(v) + 1] += 1;
        }
        for p in 0..n {
            starts[p + 1] += starts[p];
        }
        let mut fill = starts.clone();
        let mut incident = vec![0u32; starts[n]];
        for (i, &(u, v)) in pairs.iter().enumerate() {
            for p in [at(u), at(v)] {
                incident[fill[p]] = i as u32;
                fill[p] += 1;
            }
        }
        drop(fill);
        // Pairs of each node not yet verified: its set goes at 0.
        let pending: Vec<AtomicU32> = (0..n)
            .map(|p| AtomicU32::new((starts[p + 1] - starts[p]) as u32))
            .collect();
        // Sets of each pair that have arrived (loaded or failed).
        let arrived: Vec<AtomicU8> = (0..pairs.len()).map(|_| AtomicU8::new(0)).collect();
        let slots: Vec<Mutex<Option<Arc<S>>>> = (0..n).map(|_| Mutex::new(None)).collect();

        struct Schedule {
            /// The next position to load.
            next: usize,
            /// Bytes of the sets alive or being loaded.
            alive: usize,
            /// Nodes taken whose pairs are not all handled yet.
            in_flight: usize,
        }
        let schedule = Mutex::new(Schedule {
            next: 0,
            alive: 0,
            in_flight: 0,
        });
        let changed = Condvar::new();
        let lock = || schedule.lock().unwrap_or_else(|e| e.into_inner());
        let found: Mutex<Vec<VerifiedPair>> = Mutex::new(Vec::new());
        let failures: Mutex<Vec<(u32, E)>> = Mutex::new(Vec::new());
        let (load, failed, threshold) = (self.load, &self.failed, self.threshold);
        let size = |p: usize| bytes[order[p] as usize];
        let slot = |p: usize| slots[p].lock().unwrap_or_else(|e| e.into_inner()).clone();
        // The set at position p has no pair left: dropped, its bytes freed.
        let release = |p: usize| {
            if pending[p].fetch_sub(1, AcqRel) == 1 {
                drop(slots[p].lock().unwrap_or_else(|e| e.into_inner()).take());
                lock().alive -= size(p);
                changed.notify_all();
            }
        };
        let worker = || {
            let mut here: Vec<VerifiedPair> = Vec::new();
            loop {
                let p = {
                    let mut s = lock();
                    loop {
                        if s.next == n {
                            break None;
                        }
                        let b = size(s.next);
                        if s.in_flight == 0 || s.alive + b <= budget {
                            s.next += 1;
                            s.alive += b;
                            s.in_flight += 1;
                            break Some(s.next - 1);
                        }
                        s = changed.wait(s).unwrap_or_else(|e| e.into_inner());
                    }
                };
                let Some(p) = p else { break };
                let x = order[p];
                let set = if failed[x as usize] {
                    None
                } else {
                    match load(graph.docs[x as usize]) {
                        Ok(set) => Some(Arc::new(set)),
                        Err(e) => {
                            failures
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push((x, e));
                            None
                        }
                    }
                };
                *slots[p].lock().unwrap_or_else(|e| e.into_inner()) = set;
                for &i in &incident[starts[p]..starts[p + 1]] {
                    if arrived[i as usize].fetch_add(1, AcqRel) == 0 {
                        continue;
                    }
                    let (u, v) = pairs[i as usize];
                    if let (Some(sa), Some(sb)) = (slot(at(u)), slot(at(v))) {
                        let (sa, sb) = ((*sa).as_ref(), (*sb).as_ref());
                        let need = overlap_needed(sa.len(), sb.len(), threshold);
                        if let Some(shared) = intersection_at_least(sa, sb, need) {
                            let similarity = ratio(shared, sa.len() + sb.len() - shared);
                            if similarity >= threshold {
                                here.push(VerifiedPair {
                                    a: graph.docs[u as usize],
                                    b: graph.docs[v as usize],
                                    shared,
                                    similarity,
                                });
                            }
                        }
                    }
                    // Both clones are gone: the last release drops the set.
                    release(at(u));
                    release(at(v));
                }
                lock().in_flight -= 1;
                changed.notify_all();
            }
            found
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .append(&mut here);
        };
        rayon::scope(|scope| {
            for _ in 0..rayon::current_num_threads().min(n) {
                scope.spawn(|_| worker());
            }
        });
        self.verified
            .append(&mut found.into_inner().unwrap_or_else(|e| e.into_inner()));
        for (x, e) in failures.into_inner().unwrap_or_else(|e| e.into_inner()) {
            self.failed[x as usize] = true;
            self.failures.push((graph.docs[x as usize], e));
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
mod tests;
