//! Where a per-field record scan's candidates come from: each field's own
//! bands (a banding per field, or none), and blocking keys.
//!
//! ```text
//! given --block keys  → the keys' blocks, and the bands of the candidate
//!                       fields when some are named; nothing else
//! given candidate     → those fields' bands at the scan's banding
//! fields
//! neither, ≥ AUTO_MIN records
//!                     → lsh::cover::choose on a sample: random pairs (what
//!                       a scheme costs) and every partner ≥ t of sampled
//!                       records (what it finds); fields left out or banded
//!                       with more rows where that keeps the completeness
//! otherwise           → every field at the scan's banding
//! ```
//!
//! Candidates are the union of every source. A block over the cap is
//! skipped (reported): a common surname must not make a quadratic block.
//! Deterministic: the sample is drawn with a fixed seed, blocks are visited
//! in key order.

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::lsh::Banding;
use crate::lsh::{Choice, Pair, Sample, cover};
use crate::similarity::sets;
use crate::text::{KeyKind, key_of};

/// A blocking key: records whose `field` gives the same key are candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockKey {
    pub field: String,
    pub kind: KeyKind,
}

impl std::fmt::Display for BlockKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.field, self.kind)
    }
}

/// Largest block kept by default: its pairs, about 5 · 10⁵, are what a
/// scan verifies in well under a second.
pub const DEFAULT_BLOCK_CAP: usize = 1000;

/// Fewest records for which the candidates are chosen on a sample: below,
/// every field's bands cost little and the sample would be most of the input.
pub const AUTO_MIN_RECORDS: usize = 1000;

/// Fewest qualifying pairs in the sample for a choice: with fewer, what a
/// scheme finds is not measured (none at all would make every scheme look
/// complete), and every field's bands are kept.
pub(super) const MIN_QUALIFYING: usize = 100;

/// Random pairs sampled to predict a scheme's candidates.
const RANDOM_PAIRS: usize = 20_000;

/// Most pair scores spent finding sampled records' partners (records
/// sampled × records): each sampled record is scored against every record.
const PARTNER_BUDGET: usize = 20_000_000;

/// Qualifying pairs after which no more records are sampled.
const ENOUGH_QUALIFYING: usize = 800;

/// Records sampled at a time (in parallel) until there are enough
/// qualifying pairs or the budget is spent.
const SAMPLE_CHUNK: usize = 64;

/// The share of every field's predicted completeness a chosen scheme keeps:
/// the search goes down to it, and a sample of a few hundred records' pairs
/// predicts within a few tenths of a percent, so it sits that far above the
/// 0.99 the scan promises.
pub const KEEP: f64 = 0.998;

/// How the candidates were made, for the caller to print.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateReport {
    /// Field names, in order.
    pub fields: Vec<String>,
    /// Per field, its bands, or `None` when it made no candidates.
    pub scheme: Vec<Option<Banding>>,
    /// The keys blocked on, each with the number of blocks of ≥ 2 records
    /// kept.
    pub keys: Vec<(BlockKey, u64)>,
    /// Blocks over the cap, skipped: key, value, size.
    pub skipped: Vec<(BlockKey, String, usize)>,
    /// Set when the scheme was chosen on a sample.
    pub chosen: Option<Chosen>,
}

/// A scheme chosen on a sample, with what it was chosen from.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    pub choice: Choice,
    /// Records sampled for partners, and the qualifying pairs they had.
    pub sampled: usize,
    pub qualifying: usize,
    /// The level the chosen cover promises: every qualifying pair with
    /// every field has a cover field at or above it.
    pub level: f64,
}

/// What the candidate sources see of the scan.
pub(super) struct Fields<'a> {
    /// `sets[f][i]`: record `i`'s set for field `f`.
    pub sets: &'a [Vec<Vec<u64>>],
    pub weights: &'a [f64],
    pub threshold: f64,
    pub banding: Banding,
    /// `Some(input of each record)` when only pairs across inputs count.
    pub link: Option<&'a [u32]>,
}

/// The fields' bandings: what [`CandidateReport::scheme`] holds and whether
/// it was chosen.
pub(super) fn scheme(
    fields: &Fields<'_>,
    names: &[String],
    candidate_fields: &[String],
    blocks: bool,
) -> (Vec<Option<Banding>>, Option<Chosen>) {
    let every = vec![Some(fields.banding); names.len()];
    if blocks || !candidate_fields.is_empty() {
        let named = names
            .iter()
            .map(|n| candidate_fields.contains(n).then_some(fields.banding))
            .collect();
        return (named, None);
    }
    let records = fields.sets.first().map_or(0, Vec::len);
    if records < AUTO_MIN_RECORDS || names.len() < 2 {
        return (every, None);
    }
    let (random, qualifying, sampled) = sample(fields);
    if qualifying.len() < MIN_QUALIFYING {
        return (every, None);
    }
    let choice = cover::choose(Sample {
        weights: fields.weights,
        threshold: fields.threshold,
        banding: fields.banding,
        random: &random,
        qualifying: &qualifying,
        keep: KEEP,
    });
    let cover: Vec<bool> = choice.scheme.iter().map(Option::is_some).collect();
    let level = cover::cover_level(
        fields.weights,
        fields.threshold,
        &cover,
        &vec![true; names.len()],
    )
    .unwrap_or(0.0);
    let scheme = choice.scheme.clone();
    let chosen = Chosen {
        choice,
        sampled,
        qualifying: qualifying.len(),
        level,
    };
    (scheme, Some(chosen))
}

/// SplitMix64: a fixed sequence from a fixed seed, for the sample.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The sample's seed: any fixed number; the same input gives the same
/// choice on every run and machine.
const SAMPLE_SEED: u64 = 0x5eed_b10c;

/// The fields record `i` has (non-empty).
fn present(fields: &Fields<'_>, i: usize) -> Vec<bool> {
    fields.sets.iter().map(|sets| !sets[i].is_empty()).collect()
}

/// Field `f`'s Jaccard similarity of records `a` and `b` (`None`: empty on
/// a side).
fn field_similarity(fields: &Fields<'_>, f: usize, a: usize, b: usize) -> Option<f64> {
    let (sa, sb) = (&fields.sets[f][a], &fields.sets[f][b]);
    if sa.is_empty() || sb.is_empty() {
        return None;
    }
    let common = sets::intersection_size(sa, sb);
    Some(sets::ratio(common, sa.len() + sb.len() - common))
}

/// The weighted score of records `a` and `b`, as verification computes it.
fn score(fields: &Fields<'_>, a: usize, b: usize) -> f64 {
    let (mut total, mut weight) = (0.0, 0.0);
    for (f, &w) in fields.weights.iter().enumerate() {
        if let Some(j) = field_similarity(fields, f, a, b) {
            total += w * j;
            weight += w;
        }
    }
    if weight > 0.0 { total / weight } else { 0.0 }
}

/// Whether records `a` and `b` score ≥ the threshold: [`score`], most
/// pairs rejected before any set is intersected. A field's Jaccard is at
/// most its smaller set's size over the larger's, so the weighted mean with
/// those bounds (and each field's own Jaccard once intersected) bounds the
/// score from above; the pair is dropped as soon as the bound falls below
/// the threshold. The partner search scores every sampled record against
/// every record, nearly all of them unrelated: this keeps the same pairs
/// at a fraction of the intersections.
fn qualifies(fields: &Fields<'_>, a: usize, b: usize) -> bool {
    // A hair of slack: the bound is summed in another order than the score.
    let floor = fields.threshold - 1e-9;
    let (mut bound, mut weight) = (0.0, 0.0);
    for (f, &w) in fields.weights.iter().enumerate() {
        let (x, y) = (fields.sets[f][a].len(), fields.sets[f][b].len());
        if x > 0 && y > 0 {
            bound += w * x.min(y) as f64 / x.max(y) as f64;
            weight += w;
        }
    }
    if weight == 0.0 || bound < floor * weight {
        return false;
    }
    for (f, &w) in fields.weights.iter().enumerate() {
        let (x, y) = (fields.sets[f][a].len(), fields.sets[f][b].len());
        if let Some(j) = field_similarity(fields, f, a, b) {
            bound -= w * (x.min(y) as f64 / x.max(y) as f64 - j);
            if bound < floor * weight {
                return false;
            }
        }
    }
    score(fields, a, b) >= fields.threshold
}

/// The sampled pair of records `a` and `b`.
fn pair(fields: &Fields<'_>, a: usize, b: usize) -> Pair {
    Pair {
        similarities: (0..fields.sets.len())
            .map(|f| field_similarity(fields, f, a, b))
            .collect(),
        present: [present(fields, a), present(fields, b)],
    }
}

/// Random pairs' similarities, the qualifying partners' of sampled records,
/// and how many records were sampled.
fn sample(fields: &Fields<'_>) -> (Vec<Pair>, Vec<Pair>, usize) {
    let n = fields.sets[0].len();
    let cross = |a: usize, b: usize| fields.link.is_none_or(|input| input[a] != input[b]);
    let mut rng = SplitMix(SAMPLE_SEED);
    let mut random = Vec::with_capacity(RANDOM_PAIRS);
    // Bounded tries: with --link and one input far smaller, most draws are
    // within one input.
    for _ in 0..RANDOM_PAIRS * 4 {
        if random.len() == RANDOM_PAIRS {
            break;
        }
        let (a, b) = (rng.below(n), rng.below(n));
        if a != b && cross(a, b) {
            random.push(pair(fields, a, b));
        }
    }
    // Records in a fixed random order, a chunk at a time, until enough
    // qualifying pairs: the same records, and so the same choice, on every
    // run, whatever the threads.
    let most = (PARTNER_BUDGET / n).clamp(1, n);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let mut picked = 0;
    let mut qualifying: Vec<Pair> = Vec::new();
    while picked < most && qualifying.len() < ENOUGH_QUALIFYING {
        let chunk = &order[picked..(picked + SAMPLE_CHUNK).min(most)];
        picked += chunk.len();
        let found: Vec<Pair> = chunk
            .par_iter()
            .flat_map_iter(|&a| {
                (0..n)
                    .filter(move |&b| b != a && cross(a, b))
                    .filter(move |&b| qualifies(fields, a, b))
                    .map(move |b| pair(fields, a, b))
                    .collect::<Vec<_>>()
            })
            .collect();
        qualifying.extend(found);
    }
    (random, qualifying, picked)
}

/// The pairs of the records [`cover::beyond_cover`] of `scheme` (their own
/// fields hold no cover field, or too little of one to promise anything):
/// each with every record it shares a band with in any field it has, at the
/// scan's banding (`matrices[f]`: field `f`'s signatures, `n` values a
/// record). Such records are few (most of their fields empty), so their
/// band keys are held and every record's looked up.
pub(super) fn beyond_pairs(
    fields: &Fields<'_>,
    scheme: &[Option<Banding>],
    matrices: &[Vec<u32>],
    n: usize,
) -> Vec<(u32, u32)> {
    let cover: Vec<bool> = scheme.iter().map(Option::is_some).collect();
    if cover.iter().all(|&c| c) {
        return Vec::new();
    }
    let records = fields.sets.first().map_or(0, Vec::len);
    let beyond: Vec<usize> = (0..records)
        .filter(|&i| {
            let has = present(fields, i);
            has.iter().any(|&p| p)
                && cover::beyond_cover(fields.weights, fields.threshold, &cover, &has)
        })
        .collect();
    let Banding { bands, rows } = fields.banding;
    let mut pairs = Vec::new();
    for (f, matrix) in matrices.iter().enumerate() {
        let sets = &fields.sets[f];
        let band = |i: usize, b: usize| &matrix[i * n + b * rows..i * n + (b + 1) * rows];
        let mut table: std::collections::HashMap<(usize, &[u32]), Vec<u32>> =
            std::collections::HashMap::new();
        for &w in beyond.iter().filter(|&&w| !sets[w].is_empty()) {
            for b in 0..bands {
                table.entry((b, band(w, b))).or_default().push(w as u32);
            }
        }
        if table.is_empty() {
            continue;
        }
        let found: Vec<(u32, u32)> = (0..records)
            .into_par_iter()
            .filter(|&i| !sets[i].is_empty())
            .flat_map_iter(|i| {
                let mut out = Vec::new();
                for b in 0..bands {
                    if let Some(ws) = table.get(&(b, band(i, b))) {
                        out.extend(
                            ws.iter()
                                .filter(|&&w| w as usize != i)
                                .map(|&w| (w.min(i as u32), w.max(i as u32))),
                        );
                    }
                }
                // A partner met in several bands is one pair: kept once
                // here, these lists are not the scan's peak.
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        pairs.extend(found);
    }
    pairs
}

/// What [`blocks`] gives: the pairs, per key the blocks kept, and the
/// blocks skipped (key, value, size).
pub(super) type Blocks = (
    Vec<(u32, u32)>,
    Vec<(BlockKey, u64)>,
    Vec<(BlockKey, String, usize)>,
);

/// The candidate pairs `(a, b)`, `a < b`, of `keys` over the records'
/// `values` (`values[i][f]`: record `i`'s field `f`; `field_of` maps a key
/// to its field's position); blocks over `cap` records are skipped and
/// reported. Per key, the number of blocks kept.
pub(super) fn blocks(
    values: &[Vec<String>],
    keys: &[BlockKey],
    field_of: impl Fn(&str) -> usize,
    cap: usize,
) -> Blocks {
    let mut pairs = Vec::new();
    let mut kept = Vec::with_capacity(keys.len());
    let mut skipped = Vec::new();
    for key in keys {
        let f = field_of(&key.field);
        let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (i, record) in values.iter().enumerate() {
            if let Some(k) = record.get(f).and_then(|v| key_of(v, key.kind)) {
                groups.entry(k).or_default().push(i as u32);
            }
        }
        let mut count = 0;
        for (value, members) in groups {
            if members.len() < 2 {
                continue;
            }
            if members.len() > cap {
                skipped.push((key.clone(), value, members.len()));
                continue;
            }
            count += 1;
            for (x, &a) in members.iter().enumerate() {
                pairs.extend(members[x + 1..].iter().map(|&b| (a, b)));
            }
        }
        kept.push((key.clone(), count));
    }
    (pairs, kept, skipped)
}

/// The candidate pairs of `matrix`'s rows (`n` values a record; empty
/// records skipped) by `banding`, which takes each row's first
/// `bands × rows ≤ n` values.
pub(super) fn banded(
    matrix: &[u32],
    n: usize,
    set_sizes: impl Fn(usize) -> bool,
    banding: Banding,
) -> Vec<(u32, u32)> {
    let records = matrix.len() / n;
    let items: Vec<u32> = (0..records as u32)
        .filter(|&i| set_sizes(i as usize))
        .collect();
    if items.is_empty() {
        return Vec::new();
    }
    let used = banding.signature_len().min(n);
    let mut rows = Vec::with_capacity(items.len() * used);
    for &i in &items {
        let start = i as usize * n;
        rows.extend_from_slice(&matrix[start..start + used]);
    }
    crate::lsh::candidate_pairs(&rows, banding)
        .into_iter()
        .map(|(a, b)| (items[a as usize], items[b as usize]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_pair_equal_keys_and_skip_blocks_over_the_cap() {
        let values: Vec<Vec<String>> = ["Smith", "smith ", "Smyth", "Jones", "", "SMITH"]
            .iter()
            .map(|v| vec![v.to_string()])
            .collect();
        let exact = BlockKey {
            field: "last".into(),
            kind: KeyKind::Exact,
        };
        let (pairs, kept, skipped) = blocks(&values, std::slice::from_ref(&exact), |_| 0, 10);
        assert_eq!(pairs, vec![(0, 1), (0, 5), (1, 5)]);
        assert_eq!(kept, vec![(exact.clone(), 1)]);
        assert!(skipped.is_empty());
        let soundex = BlockKey {
            field: "last".into(),
            kind: KeyKind::Soundex,
        };
        let (pairs, _, skipped) = blocks(&values, std::slice::from_ref(&soundex), |_| 0, 3);
        // Smith, smith, Smyth, SMITH: one block of 4, over the cap of 3.
        assert!(pairs.is_empty(), "{pairs:?}");
        assert_eq!(skipped, vec![(soundex, "S530".to_string(), 4)]);
    }

    #[test]
    fn the_sample_is_the_same_on_every_run() {
        let sets: Vec<Vec<Vec<u64>>> = vec![
            (0..1500u64).map(|i| vec![i % 40, 100 + i % 7]).collect(),
            (0..1500u64).map(|i| vec![i % 3]).collect(),
        ];
        let fields = Fields {
            sets: &sets,
            weights: &[1.0, 1.0],
            threshold: 0.7,
            banding: Banding { bands: 20, rows: 5 },
            link: None,
        };
        let one = sample(&fields);
        let two = sample(&fields);
        assert_eq!(one, two);
        assert_eq!(one.0.len(), RANDOM_PAIRS);
        assert!(!one.1.is_empty());
    }
}
