//! Exact set-similarity self-join: every pair of sets with Jaccard ≥ `T`, with
//! no false negatives and no false positives.
//!
//! Implements the high-similarity methods of MMDS 3.9 (length-based filtering
//! 3.9.3, prefix indexing 3.9.4, position indexing 3.9.5 with the suffix-length
//! bound of 3.9.6) in the form of
//! the AllPairs / PPJoin join (Bayardo, Ma & Srikant, WWW 2007; Xiao, Wang, Lin
//! & Yu, WWW 2008).
//!
//! **Input**: one shingle set per document, `&[S]` with `S: AsRef<[u64]>`
//! (e.g. `Vec<Vec<u64>>`), each strictly increasing (sorted, no duplicates);
//! the document's id is its index. A threshold `T` in `(0, 1]`.
//!
//! **Output**: [`Join`], whose `pairs` hold every `(a, b)` with `a < b`, both
//! sets non-empty, and `|A ∩ B| / |A ∪ B| ≥ T`, where the ratio is evaluated
//! exactly as [`JoinPair::jaccard`] does (`f64` division of the two counts,
//! compared with `>=`) — the same predicate a reader of the ground-truth CSVs
//! applies. Pairs are sorted by `(a, b)` whatever the number of threads.
//! Empty sets never pair.
//!
//! **How** (all steps exact):
//! 1. Tokens are re-coded as ranks of a global order, rarest first (document
//!    frequency ascending, ties by the token's value), and each set is sorted
//!    in that order — so the prefixes below hold the rarest tokens, which few
//!    other sets share.
//! 2. Sets are processed in order of size (ties by id); a set `x` is only
//!    compared with sets `y` before it, so `|y| ≤ |x|`.
//! 3. Length filter: `y` can reach `T` only if `|y| ≥ T·|x|`.
//! 4. Prefix filter: two sets with overlap `o` share a token among the first
//!    `|x| − o + 1` of each. `x` probes with its first `|x| − ⌈T·|x|⌉ + 1`
//!    tokens; `y` is indexed under its first `|y| − ⌈2T/(1+T)·|y|⌉ + 1` tokens
//!    (PPJoin's shorter index prefix, valid because `|x| ≥ |y|`). Tokens that
//!    occur in one set only are never indexed.
//! 5. Position filter: on a match at positions `i` in `x` and `j` in `y`, with
//!    `c` common tokens seen before, the overlap is at most
//!    `c + 1 + min(|x|−i−1, |y|−j−1)`; below the required overlap `α` the
//!    candidate is dropped for good.
//! 6. Verification merges the two sets from just after the last prefix match,
//!    stopping as soon as the remaining tokens cannot reach `α`.
//!
//! Every `⌈T·…⌉` above is computed as "the smallest integer for which the
//! `f64` predicate holds" (a float guess corrected by exact integer steps), so
//! float rounding in `T·|x|` can never drop a true pair: the bounds are
//! derived from the same monotone predicate that decides the output.
//!
//! **Parallelism**: the index is built once, then documents probe it in
//! parallel (rayon), each thread with its own dense counters.
//!
//! **Peak memory**, with `N` = total tokens over all sets (Σ|set|), `V` =
//! distinct tokens, `n` = documents, `E` = index entries (`E ≤ N·(1−T)/(1+T) + n`:
//! the index prefixes, minus tokens held by one set only), `P` = output pairs
//! and `t` = threads, on top of the caller's input (`8·N` bytes plus vector
//! headers for `Vec<Vec<u64>>`), in bytes:
//! 1. counting frequencies: hash tables of `2·V..4·V` 16-byte slots
//!    (`32·V..64·V`);
//! 2. ranking: the tables + `20·V` (tokens by rarity, frequencies);
//! 3. re-coding the sets: `4·N` (ranked sets) + the tables + `4·V` + `16·n`;
//!    the tables are freed after this step;
//! 4. the join: `4·N` + `4·V` (frequencies) + `16·V` (index offsets,
//!    transient) + `8·E` (index) + `16·n·t` (per-thread counters, one set per
//!    rayon job split) + `16·P` (pairs).
//!
//! So the peak is at most `4·N + 68·V + 8·E + O(n·t + P)` — linear in the
//! corpus. [`all_pairs_owned`] takes the input over instead: step 3 then
//! writes the ranks into the input sets in place, frees the tables, and makes
//! the `4·N` copy while freeing each input set, so the input, the tables and
//! the ranked copy are never all alive; its peak is the input plus the
//! counting tables (step 1). Shingle sets of real text repeat most tokens across documents: on
//! `debian-docs` with char 5-shingles (`N` = 13.1 M over the distinct
//! contents, `V` = 1.25 M) that is about 140 MB beside the 105 MB of input
//! sets; on `django-docs` (`N` = 15.5 M, `V` = 0.33 M) about 90 MB.

use rayon::prelude::*;

mod indexes;
use crate::memory;
pub use indexes::{
    ExactIndex, all_pairs_by, all_pairs_owned_by, length_bounds, position_limit, prefix_length,
    suffix_range,
};

/// What the exact join's large tables are called in an out-of-memory message.
const JOIN: &str = "the exact join's index";

mod probing;
pub use probing::Work;
use probing::{Scratch, merge_until_unreachable, overlap_at_least, probe};
mod sampled;
pub use sampled::{Abandoned, HeldSet, Prediction};

/// A pair of documents whose sets have Jaccard ≥ the join's threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JoinPair {
    /// Index of the first document in the input; always `a < b`.
    pub a: u32,
    /// Index of the second document in the input.
    pub b: u32,
    /// `|A ∩ B|`.
    pub intersection: u32,
    /// `|A ∪ B|`.
    pub union: u32,
}

impl JoinPair {
    /// Exact Jaccard similarity `|A ∩ B| / |A ∪ B|` as an `f64` (the value the
    /// threshold is compared with).
    pub fn jaccard(&self) -> f64 {
        super::sets::ratio(self.intersection as usize, self.union as usize)
    }
}

/// Counters describing how much work the join did; they feed the cost model
/// that chooses between the exact method and LSH.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JoinStats {
    /// Documents given (including empty ones).
    pub documents: u64,
    /// Documents with a non-empty set.
    pub nonempty: u64,
    /// Σ |set|.
    pub tokens: u64,
    /// Distinct tokens over all sets.
    pub distinct_tokens: u64,
    /// Entries in the prefix index.
    pub index_entries: u64,
    /// Index entries scanned by all probes (after the length filter).
    pub probe_hits: u64,
    /// Candidate pairs that survived the position filter and were verified.
    pub verified: u64,
    /// Index buckets looked into ([`ExactIndex`] variants other than PPJoin;
    /// 0 for PPJoin, which does not count them).
    pub lookups: u64,
}

/// The result of [`all_pairs`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Join {
    /// Every pair with Jaccard ≥ T, sorted by `(a, b)`.
    pub pairs: Vec<JoinPair>,
    pub stats: JoinStats,
}

/// Why [`all_pairs`] refused its input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JoinError {
    /// The threshold is not in `(0, 1]` (or is NaN).
    Threshold(f64),
    /// More than `u32::MAX - 1` documents, or a set with more than `u32::MAX`
    /// tokens, or more than `u32::MAX` distinct tokens.
    TooLarge,
}

impl std::fmt::Display for JoinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JoinError::Threshold(t) => write!(f, "threshold must be in (0, 1], got {t}"),
            JoinError::TooLarge => write!(
                f,
                "corpus too large for the exact join (limit: 2^32-1 documents, tokens per set and distinct tokens)"
            ),
        }
    }
}

impl std::error::Error for JoinError {}

/// Finds every pair of sets with Jaccard similarity ≥ `threshold`; see the
/// module documentation for the method, the guarantees and the memory bound.
///
/// Each set must be strictly increasing (checked in debug builds only).
pub fn all_pairs<S: AsRef<[u64]> + Sync>(sets: &[S], threshold: f64) -> Result<Join, JoinError> {
    let order = size_order(sets, threshold)?;
    let ranked = RankedSets::build(sets, &order)?;
    Ok(join_ranked(ranked, &order, sets.len(), threshold, &|_| {}))
}

/// How many probed sets make one progress report: few enough calls that a
/// progress bar's lock costs nothing, many enough updates to move it.
const PROGRESS_EVERY: usize = 256;

/// [`all_pairs`] for a caller that no longer needs its sets: they are
/// re-coded to ranks in place, the counting tables are freed, and each set is
/// freed as soon as its ranks are copied out — so the input (`8·N` bytes),
/// the tables and the ranked copy (`4·N`) are never all held at once.
pub fn all_pairs_owned(sets: Vec<Vec<u64>>, threshold: f64) -> Result<Join, JoinError> {
    all_pairs_owned_with_progress(sets, threshold, &|_, _| {})
}

/// [`all_pairs_owned`], calling `progress(done, total)` as the probe of each
/// non-empty set finishes (in batches, from worker threads; the `done`
/// counts add up to `total`, the number of non-empty sets). The probe is the
/// join's long part; building the index is not counted.
pub fn all_pairs_owned_with_progress(
    sets: Vec<Vec<u64>>,
    threshold: f64,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Join, JoinError> {
    let joined = all_pairs_owned_within(sets, threshold, None, progress)?;
    Ok(joined.unwrap_or_else(|_| unreachable!("never given up")))
}

/// What decides, from the join's [`Prediction`], whether to give it up.
pub type GiveUp<'a> = &'a (dyn Fn(&Prediction) -> bool + Sync);

/// [`all_pairs_owned_with_progress`] that asks `give_up` once its index is
/// built, with the cost predicted from a sample of its probes
/// ([`Prediction`]), whether to go on — and a large join first from a
/// thinned copy of itself, before ranking; if not, the caller gets the sets
/// back ([`Abandoned`]) to find the pairs another way. `None` never gives
/// up, and a join of too few sets to sample is never given up.
pub fn all_pairs_owned_within(
    sets: Vec<Vec<u64>>,
    threshold: f64,
    give_up: Option<GiveUp<'_>>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Result<Join, Box<Abandoned>>, JoinError> {
    let order = size_order(&sets, threshold)?;
    if let Some(give_up) = give_up.filter(|_| sampled::worth_thinning(order.len())) {
        let look = sampled::look_thinned(&sets, &order, threshold)?;
        if give_up(&look) {
            return Ok(Err(Box::new(Abandoned::unranked(sets, order, look))));
        }
    }
    let documents = sets.len();
    let may_give_up = give_up.is_some() && sampled::worth_sampling(order.len());
    let ranked = RankedSets::build_owned(sets, &order, may_give_up)?;
    let total = order.len() as u64;
    Ok(join_ranked_within(
        ranked,
        &order,
        documents,
        threshold,
        give_up,
        &|done| progress(done, total),
    ))
}

/// Checks the input and returns the non-empty sets' indices in size order
/// (ties by id): `order[k]` is the input index of the k-th set.
fn size_order<S: AsRef<[u64]>>(sets: &[S], threshold: f64) -> Result<Vec<u32>, JoinError> {
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(JoinError::Threshold(threshold));
    }
    if sets.len() >= u32::MAX as usize || sets.iter().any(|s| s.as_ref().len() > u32::MAX as usize)
    {
        return Err(JoinError::TooLarge);
    }
    debug_assert!(
        sets.iter()
            .all(|s| s.as_ref().windows(2).all(|w| w[0] < w[1])),
        "every set must be sorted and free of duplicates"
    );
    let mut order: Vec<u32> = (0..sets.len() as u32)
        .filter(|&i| !sets[i as usize].as_ref().is_empty())
        .collect();
    order.sort_unstable_by_key(|&i| (sets[i as usize].as_ref().len(), i));
    Ok(order)
}

/// Steps 2–6 over the ranked sets of `documents` input sets.
fn join_ranked(
    ranked: RankedSets,
    order: &[u32],
    documents: usize,
    t: f64,
    progress: &(dyn Fn(u64) + Sync),
) -> Join {
    join_ranked_within(ranked, order, documents, t, None, progress)
        .unwrap_or_else(|_| unreachable!("never given up"))
}

/// [`join_ranked`], given up when `give_up` says so of the prediction from a
/// sample of the probes.
fn join_ranked_within(
    ranked: RankedSets,
    order: &[u32],
    documents: usize,
    t: f64,
    give_up: Option<GiveUp<'_>>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Join, Box<Abandoned>> {
    let index = PrefixIndex::build(&ranked, t);
    let n = order.len();

    // The sampled probes' results are kept: the join, if it goes on, skips them.
    let mut sample = None;
    if let Some(give_up) = give_up.filter(|_| sampled::worth_sampling(n)) {
        match sampled::probe_sample(&ranked, &index, order, t, give_up) {
            Ok(kept) => sample = Some(kept),
            Err(prediction) => {
                drop(index);
                return Err(Box::new(Abandoned::ranked(
                    ranked,
                    order.to_vec(),
                    prediction,
                )));
            }
        }
    }
    // Kept only for a way out that is no longer taken.
    let mut ranked = ranked;
    ranked.token_of_rank = Vec::new();
    let skip = |x: usize| sample.is_some() && sampled::is_sampled(x);

    let per_doc: Vec<(Vec<JoinPair>, Work)> = (0..n)
        .into_par_iter()
        .map_init(
            || Scratch::new(n),
            |scratch, x| {
                let mut found = Vec::new();
                let work = if skip(x) {
                    Work::default()
                } else {
                    probe(&ranked, &index, order, t, x, scratch, &mut found)
                };
                if x % PROGRESS_EVERY == PROGRESS_EVERY - 1 {
                    progress(PROGRESS_EVERY as u64);
                }
                (found, work)
            },
        )
        .collect();
    if !n.is_multiple_of(PROGRESS_EVERY) {
        progress((n % PROGRESS_EVERY) as u64);
    }

    let mut stats = JoinStats {
        documents: documents as u64,
        nonempty: n as u64,
        tokens: ranked.tokens.len() as u64,
        distinct_tokens: ranked.distinct as u64,
        index_entries: index.entries.len() as u64,
        ..JoinStats::default()
    };
    let (sampled_pairs, sampled_work) = match sample {
        Some((found, prediction)) => (found, prediction.work),
        None => (Vec::new(), Work::default()),
    };
    let mut pairs =
        Vec::with_capacity(sampled_pairs.len() + per_doc.iter().map(|p| p.0.len()).sum::<usize>());
    pairs.extend(sampled_pairs);
    for work in std::iter::once(sampled_work).chain(per_doc.iter().map(|p| p.1)) {
        stats.probe_hits += work.hits;
        stats.verified += work.verified;
    }
    for (found, _) in per_doc {
        pairs.extend(found);
    }
    pairs.par_sort_unstable();
    Ok(Join { pairs, stats })
}

/// Smallest `o` in `0..=max` for which the monotone predicate `holds(o)` is
/// true, or `max + 1` if none is. `guess` need only be close: the answer is
/// reached from it by exact integer steps, which is what makes the filters
/// immune to rounding in the float guess.
fn smallest_satisfying(guess: f64, max: u32, holds: impl Fn(u32) -> bool) -> u32 {
    let mut o = if guess.is_nan() || guess <= 0.0 {
        0
    } else if guess >= max as f64 {
        max
    } else {
        guess as u32
    };
    while o > 0 && holds(o - 1) {
        o -= 1;
    }
    while o <= max && !holds(o) {
        o += 1;
    }
    o
}

/// Jaccard ≥ t for overlap `o` of sets of sizes `sx` and `sy`, evaluated
/// exactly as the output predicate is.
fn jaccard_reaches(o: u32, sx: u32, sy: u32, t: f64) -> bool {
    let union = sx as u64 + sy as u64 - o as u64;
    o as f64 / union as f64 >= t
}

/// Overlap needed by a pair of sizes `sx`, `sy` (MMDS's `⌈T(|x|+|y|)/(1+T)⌉`).
fn required_overlap(sx: u32, sy: u32, t: f64) -> u32 {
    let guess = (t * (sx as f64 + sy as f64) / (1.0 + t)).ceil();
    smallest_satisfying(guess, sx.min(sy), |o| jaccard_reaches(o, sx, sy, t))
}

/// Smallest size (and smallest overlap) a set `y` with `|y| ≤ |x|` needs to
/// reach `t` with `x`: the least `s` with `s / |x| ≥ t` (MMDS's `⌈T·|x|⌉`).
/// Because `|x ∩ y| / |x ∪ y| ≤ |y| / |x|` and `≤ |x ∩ y| / |x|`, this bounds
/// both the length filter and the probe prefix.
fn min_partner_size(sx: u32, t: f64) -> u32 {
    smallest_satisfying((t * sx as f64).ceil(), sx, |s| s as f64 / sx as f64 >= t)
}

/// Probe-prefix length of `x`: `|x| − ⌈T·|x|⌉ + 1`.
fn probe_prefix_len(sx: u32, t: f64) -> u32 {
    sx - min_partner_size(sx, t) + 1
}

/// Index-prefix length of `y`, which is only ever the smaller set of a pair:
/// `|y| − ⌈2T/(1+T)·|y|⌉ + 1`, the overlap `y` needs with an equal-sized
/// partner (the cheapest partner it can have).
fn index_prefix_len(sy: u32, t: f64) -> u32 {
    let guess = (2.0 * t * sy as f64 / (1.0 + t)).ceil();
    let need = smallest_satisfying(guess, sy, |o| jaccard_reaches(o, sy, sy, t));
    sy - need + 1
}

/// The sets re-coded as ranks of the global rarest-first order, stored flat
/// in size order: set `k` (the k-th smallest) is `tokens[offsets[k]..offsets[k+1]]`,
/// ascending, so its rarest tokens come first.
struct RankedSets {
    tokens: Vec<u32>,
    offsets: Vec<usize>,
    /// Document frequency of each rank.
    frequency: Vec<u32>,
    distinct: usize,
    /// The input token of each rank, when asked for (a join that may be
    /// given up hands its sets back as the input's tokens); else empty.
    token_of_rank: Vec<u64>,
}

impl RankedSets {
    /// Counts each token's document frequency over sets `set(0..n)` and
    /// ranks the tokens rarest first: returns the token → rank tables (by
    /// shard), the shard bits, the frequency of each rank and the number of
    /// distinct tokens.
    #[allow(clippy::type_complexity)]
    fn rank_tokens<'s>(
        set: &(dyn Fn(usize) -> &'s [u64] + Sync),
        n: usize,
    ) -> Result<(Vec<TokenTable>, u32, Vec<u32>, usize), JoinError> {
        // Count document frequencies in hash tables sharded by the token's
        // hash, one shard per task: each task reads every set but touches
        // only its own table, so counting runs in parallel without locks.
        // (Sorting a copy of every token took 8 bytes per token and, with
        // the lookups that followed, 3 cache misses per token.)
        let shard_bits = (4 * rayon::current_num_threads())
            .next_power_of_two()
            .trailing_zeros();
        let mut shards: Vec<TokenTable> = (0..1u64 << shard_bits)
            .into_par_iter()
            .map(|shard| {
                let mut table = TokenTable::new(shard_bits);
                for k in 0..n {
                    for &token in set(k) {
                        if TokenTable::shard_of(token, shard_bits) == shard {
                            // A token occurs at most once per set, so a count
                            // is at most the number of sets, which fits in u32.
                            table.increment(token);
                        }
                    }
                }
                table
            })
            .collect();
        let distinct: usize = shards.iter().map(|t| t.len).sum();
        if distinct >= u32::MAX as usize {
            return Err(JoinError::TooLarge);
        }

        // Rarest first, ties by value.
        let mut by_rarity: Vec<(u32, u64)> = Vec::with_capacity(distinct);
        for table in &shards {
            by_rarity.extend(table.entries());
        }
        by_rarity.par_sort_unstable();
        let frequency: Vec<u32> = by_rarity.iter().map(|&(f, _)| f).collect();
        // The tables now map each token to its rank.
        for (rank, &(_, token)) in by_rarity.iter().enumerate() {
            shards[TokenTable::shard_of(token, shard_bits) as usize].set(token, rank as u32);
        }
        drop(by_rarity);
        Ok((shards, shard_bits, frequency, distinct))
    }

    fn build<S: AsRef<[u64]> + Sync>(sets: &[S], order: &[u32]) -> Result<Self, JoinError> {
        let set = |k: usize| sets[order[k] as usize].as_ref();
        let (shards, shard_bits, frequency, distinct) = Self::rank_tokens(&set, order.len())?;

        let mut offsets = Vec::with_capacity(order.len() + 1);
        offsets.push(0usize);
        for k in 0..order.len() {
            offsets.push(offsets[k] + set(k).len());
        }
        let mut tokens = memory::filled(0u32, offsets[order.len()], 1, JOIN, memory::Lower::Join);
        let mut slots: Vec<&mut [u32]> = Vec::with_capacity(order.len());
        let mut rest: &mut [u32] = &mut tokens;
        for k in 0..order.len() {
            let (head, tail) = rest.split_at_mut(set(k).len());
            slots.push(head);
            rest = tail;
        }
        slots.into_par_iter().enumerate().for_each(|(k, slot)| {
            for (out, &token) in slot.iter_mut().zip(set(k)) {
                *out = shards[TokenTable::shard_of(token, shard_bits) as usize].get(token);
            }
            slot.sort_unstable();
        });
        Ok(RankedSets {
            tokens,
            offsets,
            frequency,
            distinct,
            token_of_rank: Vec::new(),
        })
    }

    /// [`RankedSets::build`] over sets it may overwrite and free: each token
    /// is replaced by its rank in place (a rank fits in the `u64` slot), the
    /// tables are freed, and only then is the compact `u32` copy made, each
    /// set freed once copied.
    fn build_owned(
        mut sets: Vec<Vec<u64>>,
        order: &[u32],
        keep_tokens: bool,
    ) -> Result<Self, JoinError> {
        let (shards, shard_bits, frequency, distinct) = {
            let set = |k: usize| sets[order[k] as usize].as_slice();
            Self::rank_tokens(&set, order.len())?
        };
        sets.par_iter_mut().for_each(|set| {
            for token in set.iter_mut() {
                *token =
                    shards[TokenTable::shard_of(*token, shard_bits) as usize].get(*token) as u64;
            }
            set.sort_unstable();
        });
        let mut token_of_rank = Vec::new();
        if keep_tokens {
            token_of_rank = memory::filled(0u64, distinct, 1, JOIN, memory::Lower::Join);
            for (rank, token) in shards.iter().flat_map(|shard| shard.entries()) {
                token_of_rank[rank as usize] = token;
            }
        }
        drop(shards);

        let mut in_order: Vec<Vec<u64>> = order
            .iter()
            .map(|&i| std::mem::take(&mut sets[i as usize]))
            .collect();
        drop(sets);
        let mut offsets = Vec::with_capacity(order.len() + 1);
        offsets.push(0usize);
        for (k, set) in in_order.iter().enumerate() {
            offsets.push(offsets[k] + set.len());
        }
        let mut tokens = memory::filled(0u32, offsets[order.len()], 1, JOIN, memory::Lower::Join);
        let mut slots: Vec<&mut [u32]> = Vec::with_capacity(order.len());
        let mut rest: &mut [u32] = &mut tokens;
        for set in &in_order {
            let (head, tail) = rest.split_at_mut(set.len());
            slots.push(head);
            rest = tail;
        }
        slots
            .into_par_iter()
            .zip(in_order.par_iter_mut())
            .for_each(|(slot, set)| {
                for (out, &rank) in slot.iter_mut().zip(set.iter()) {
                    *out = rank as u32;
                }
                *set = Vec::new();
            });
        drop(in_order);
        Ok(RankedSets {
            tokens,
            offsets,
            frequency,
            distinct,
            token_of_rank,
        })
    }

    fn set(&self, k: usize) -> &[u32] {
        &self.tokens[self.offsets[k]..self.offsets[k + 1]]
    }

    fn len(&self, k: usize) -> u32 {
        (self.offsets[k + 1] - self.offsets[k]) as u32
    }
}

/// An open-addressing hash table from token to a `u32` (a count, later a
/// rank), for one shard of the tokens. A slot is `(token, value + 1)`, so
/// `0` marks an empty slot and any `u64` can be a token; one slot is one
/// 16-byte load, so a lookup usually costs one cache miss. Kept at most half
/// full: `16·2..16·4` bytes per distinct token.
struct TokenTable {
    slots: Vec<(u64, u32)>,
    len: usize,
    /// Bits of the mixed hash used for the shard (the top ones).
    shard_bits: u32,
}

impl TokenTable {
    fn new(shard_bits: u32) -> Self {
        TokenTable {
            slots: vec![(0, 0); 1024],
            len: 0,
            shard_bits,
        }
    }

    /// Tokens may be anything (tests use small integers), so they are mixed
    /// by a Fibonacci multiply before their top bits pick shard and slot.
    fn mix(token: u64) -> u64 {
        token.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn shard_of(token: u64, shard_bits: u32) -> u64 {
        if shard_bits == 0 {
            0
        } else {
            Self::mix(token) >> (64 - shard_bits)
        }
    }

    fn home(&self, token: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        ((Self::mix(token) << self.shard_bits) >> (64 - bits)) as usize
    }

    /// The slot holding `token`, or the empty slot where it belongs.
    fn find(&self, token: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(token);
        while self.slots[i].1 != 0 && self.slots[i].0 != token {
            i = (i + 1) & mask;
        }
        i
    }

    fn increment(&mut self, token: u64) {
        let i = self.find(token);
        if self.slots[i].1 == 0 {
            self.slots[i] = (token, 2);
            self.len += 1;
            if 2 * self.len > self.slots.len() {
                self.grow();
            }
        } else {
            self.slots[i].1 += 1;
        }
    }

    fn grow(&mut self) {
        let bigger = vec![(0, 0); 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, bigger);
        for slot in old.into_iter().filter(|s| s.1 != 0) {
            let i = self.find(slot.0);
            self.slots[i] = slot;
        }
    }

    /// `(value, token)` of every entry.
    fn entries(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.1 != 0)
            .map(|&(token, v)| (v - 1, token))
    }

    /// Replaces the value of `token`, which must be present.
    fn set(&mut self, token: u64, value: u32) {
        let i = self.find(token);
        self.slots[i].1 = value + 1;
    }

    /// The value of `token`, which must be present.
    fn get(&self, token: u64) -> u32 {
        self.slots[self.find(token)].1 - 1
    }
}

/// One posting: the set (by size-order position) and the token's position in it.
#[derive(Clone, Copy)]
struct Posting {
    set: u32,
    position: u32,
}

/// Inverted index from rank to the sets whose index prefix holds it, in CSR
/// form; each list is in size order.
struct PrefixIndex {
    entries: Vec<Posting>,
    starts: Vec<usize>,
}

impl PrefixIndex {
    fn build(ranked: &RankedSets, t: f64) -> Self {
        let n = ranked.offsets.len() - 1;
        let prefix = |k: usize| {
            let set = ranked.set(k);
            &set[..index_prefix_len(set.len() as u32, t) as usize]
        };
        // A token held by one set only can never match another set.
        let shared = |r: u32| ranked.frequency[r as usize] >= 2;
        let mut starts = vec![0usize; ranked.distinct + 1];
        for k in 0..n {
            for &r in prefix(k).iter().filter(|&&r| shared(r)) {
                starts[r as usize + 1] += 1;
            }
        }
        for r in 0..ranked.distinct {
            starts[r + 1] += starts[r];
        }
        let mut fill = starts.clone();
        let none = Posting {
            set: 0,
            position: 0,
        };
        let mut entries =
            memory::filled(none, starts[ranked.distinct], 1, JOIN, memory::Lower::Join);
        for k in 0..n {
            for (j, &r) in prefix(k).iter().enumerate() {
                if shared(r) {
                    entries[fill[r as usize]] = Posting {
                        set: k as u32,
                        position: j as u32,
                    };
                    fill[r as usize] += 1;
                }
            }
        }
        PrefixIndex { entries, starts }
    }

    fn postings(&self, rank: u32) -> &[Posting] {
        &self.entries[self.starts[rank as usize]..self.starts[rank as usize + 1]]
    }
}

#[cfg(test)]
mod tests;
