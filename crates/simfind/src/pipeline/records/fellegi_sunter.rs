//! The Fellegi–Sunter model on a per-field record scan: what the candidates
//! are scored by instead of the weighted Jaccard mean (the math is in
//! [`crate::similarity::fellegi_sunter`]).
//!
//! ```text
//! values      each field normalised as the recipe says (case, whitespace,
//!             --fold), trimmed; its term frequency among the records
//!             non-empty there
//! u           the levels of RANDOM_PAIRS random pairs (every pair when there
//!             are fewer; with link, one record of each input), fixed seed
//! m, λ        EM over the candidates' levels, u fixed
//! scored      each candidate's weight (term frequency at the exact level)
//!             and probability; reported when ≥ the threshold
//! ```
//!
//! Candidates come from the fields' bands and keys as for the Jaccard score
//! (chosen at `candidate_threshold`, the bands' S-curve threshold unless the
//! caller says otherwise): the model changes what is reported among them,
//! not which pairs are looked at.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};

use rayon::prelude::*;

use crate::similarity::char_profile::{CharProfile, close_profiled};
use crate::similarity::fellegi_sunter::{self as fs, Breakdown, EmOptions, Model, Tally};
use crate::sketch::SplitMix64;
use crate::text::{Normalization, normalize};

/// How a scan trains and applies the model.
#[derive(Clone, Debug, PartialEq)]
pub struct FsConfig {
    /// The weighted-Jaccard threshold the candidates are chosen for; the
    /// scan's threshold is the match probability a pair must reach.
    pub candidate_threshold: f64,
    /// Seed of the random pairs u is counted on.
    pub seed: u64,
    /// Whether an exact level's u is the value's frequency.
    pub term_frequency: bool,
}

/// Random pairs whose levels give u: the share of a level reached by one
/// pair in 10⁴ is then counted on 100 pairs (a relative error of 10 %), at
/// the cost of comparing 10⁶ pairs' fields once (Splink's default sample for
/// u is the same size).
pub const RANDOM_PAIRS: u64 = 1_000_000;

/// What the scan trained, for the caller to print and save.
#[derive(Clone, Debug, PartialEq)]
pub struct Trained {
    pub fields: Vec<String>,
    pub model: Model,
    /// The random pairs u was counted on.
    pub random_pairs: u64,
    /// The candidate pairs EM ran over.
    pub training_pairs: u64,
    /// The scan's candidate threshold (weighted Jaccard).
    pub candidate_threshold: f64,
    pub term_frequency: bool,
}

/// Every record's fields as compared: each field's distinct values
/// (normalised characters), which one each record holds, and how many
/// records hold each (the term frequencies).
pub struct Values {
    fields: Vec<Field>,
}

/// One field's values. A pair's level depends only on its two values, and
/// most fields of records have far fewer values than records (first names,
/// cities): the two million pairs a 10 k scan compares (10⁶ random, the
/// rest candidates) meet the same few hundred thousand value pairs again
/// and again, so a field with few values keeps each value pair's level once
/// computed.
struct Field {
    /// Record i's value, an index into `values`; [`EMPTY`] for none.
    ids: Vec<u32>,
    /// The distinct non-empty values, in the order first met.
    values: Vec<Box<[char]>>,
    /// Per value, the records holding it.
    counts: Vec<u32>,
    /// The records non-empty in this field.
    nonempty: u32,
    /// With at most [`KNOWN_MAX_VALUES`] values: the level code + 1 of value
    /// pair `(x, y)` at `x · values + y`, 0 while not computed. A level is
    /// a function of the two values, so threads that compute one at once
    /// store the same byte: relaxed atomics suffice.
    known: Option<Box<[AtomicU8]>>,
    /// Without `known`: each value's characters per class, which decide
    /// most value pairs' close level without Jaro–Winkler (a street, a zip
    /// of unrelated records).
    profiles: Vec<Option<CharProfile>>,
}

/// A record's id in [`Field::ids`] when its value is empty.
const EMPTY: u32 = u32::MAX;

/// Most distinct values of a field whose value pairs' levels are kept: the
/// table is a byte per ordered pair, 4 MiB at 2,048 values. A field with
/// more values (a street, a zip) has pairs that rarely meet twice.
const KNOWN_MAX_VALUES: usize = 2048;

impl Field {
    fn level(&self, a: u32, b: u32) -> u8 {
        let (x, y) = (self.ids[a as usize], self.ids[b as usize]);
        if x == EMPTY || y == EMPTY {
            return fs::NULL;
        }
        if x == y {
            return fs::Level::Exact as u8;
        }
        let Some(known) = &self.known else {
            return self.compare(x, y);
        };
        let slot = &known[x as usize * self.values.len() + y as usize];
        match slot.load(Ordering::Relaxed) {
            0 => {
                let code = self.compare(x, y);
                slot.store(code + 1, Ordering::Relaxed);
                code
            }
            known => known - 1,
        }
    }

    /// The level of two different values (never exact: values are
    /// distinct, and neither is empty).
    fn compare(&self, x: u32, y: u32) -> u8 {
        let (a, b) = (&self.values[x as usize], &self.values[y as usize]);
        (if fs::within_one_edit(a, b) {
            fs::Level::OneEdit
        } else if match &self.profiles[..] {
            [] => fs::close(a, b),
            profiles => close_profiled(
                a,
                profiles[x as usize].as_ref(),
                b,
                profiles[y as usize].as_ref(),
            ),
        } {
            fs::Level::Close
        } else {
            fs::Level::Else
        }) as u8
    }

    /// The share of the records non-empty here whose value is record i's
    /// (0 where it is empty).
    fn frequency(&self, i: u32) -> f64 {
        match self.ids[i as usize] {
            EMPTY => 0.0,
            id => self.counts[id as usize] as f64 / self.nonempty as f64,
        }
    }
}

impl Values {
    /// `records[i][f]`: record i's field f as read.
    pub fn new(records: &[Vec<String>], fields: usize, normalization: Normalization) -> Self {
        let normalised: Vec<Vec<Box<[char]>>> = records
            .par_iter()
            .map(|r| {
                (0..fields)
                    .map(|f| {
                        let text = r.get(f).map(String::as_str).unwrap_or("");
                        normalize(text.as_bytes(), normalization)
                            .trim()
                            .chars()
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let fields = (0..fields)
            .map(|f| {
                let mut index: HashMap<&[char], u32> = HashMap::new();
                let mut values: Vec<Box<[char]>> = Vec::new();
                let mut counts: Vec<u32> = Vec::new();
                let ids: Vec<u32> = normalised
                    .iter()
                    .map(|record| {
                        let value = &record[f];
                        if value.is_empty() {
                            return EMPTY;
                        }
                        let id = *index.entry(value).or_insert_with(|| {
                            values.push(value.clone());
                            counts.push(0);
                            (values.len() - 1) as u32
                        });
                        counts[id as usize] += 1;
                        id
                    })
                    .collect();
                let nonempty = counts.iter().sum();
                let known = (values.len() <= KNOWN_MAX_VALUES).then(|| {
                    (0..values.len() * values.len())
                        .map(|_| AtomicU8::new(0))
                        .collect()
                });
                let profiles = match known {
                    Some(_) => Vec::new(),
                    None => values.iter().map(|v| CharProfile::of(v)).collect(),
                };
                Field {
                    ids,
                    values,
                    counts,
                    nonempty,
                    known,
                    profiles,
                }
            })
            .collect();
        Values { fields }
    }

    /// The records.
    fn records(&self) -> usize {
        self.fields.first().map_or(0, |f| f.ids.len())
    }

    /// The comparison vector of records `a` and `b`.
    pub fn codes(&self, a: u32, b: u32) -> Vec<u8> {
        let mut codes = vec![0; self.fields.len()];
        self.codes_into(a, b, &mut codes);
        codes
    }

    /// [`Values::codes`] written into `out` (one byte per field), so that
    /// a million pairs' vectors are one flat buffer, not a million vectors.
    fn codes_into(&self, a: u32, b: u32, out: &mut [u8]) {
        for (field, code) in self.fields.iter().zip(out) {
            *code = field.level(a, b);
        }
    }

    /// The weights of records `a` and `b` under `model`.
    pub fn breakdown(&self, model: &Model, a: u32, b: u32, term_frequency: bool) -> Breakdown {
        self.breakdown_of(model, &self.codes(a, b), a, term_frequency)
    }

    /// The weights of a pair whose first record is `a` and whose comparison
    /// vector is `codes` (as [`train`] returns it for a candidate).
    pub fn breakdown_of(
        &self,
        model: &Model,
        codes: &[u8],
        a: u32,
        term_frequency: bool,
    ) -> Breakdown {
        model.breakdown(codes, |f| {
            term_frequency.then(|| self.fields[f].frequency(a))
        })
    }

    /// `model`'s weights looked up instead of computed, for scoring many
    /// pairs: [`Weights::total`] is [`Values::breakdown_of`]'s total.
    pub fn weights(&self, model: &Model, term_frequency: bool) -> Weights {
        let level_weight = |f: usize, l: usize| (model.m[f][l] / model.u[f][l]).log2();
        Weights {
            prior: (model.lambda / (1.0 - model.lambda)).log2(),
            levels: (0..self.fields.len())
                .map(|f| std::array::from_fn(|l| level_weight(f, l)))
                .collect(),
            exact: self
                .fields
                .iter()
                .enumerate()
                .map(|(f, field)| {
                    if !term_frequency {
                        return Vec::new();
                    }
                    let m = model.m[f][fs::Level::Exact as usize];
                    field
                        .counts
                        .iter()
                        .map(|&c| (m / (c as f64 / field.nonempty as f64)).log2())
                        .collect()
                })
                .collect(),
        }
    }

    /// The comparison vectors of `pairs`, one after another (`fields`
    /// bytes each), computed in parallel in the pairs' order.
    fn codes_of(&self, pairs: &[(u32, u32)]) -> Vec<u8> {
        let fields = self.fields.len().max(1);
        let mut codes = vec![0u8; pairs.len() * fields];
        codes
            .par_chunks_mut(fields)
            .zip(pairs.par_iter())
            .for_each(|(out, &(a, b))| self.codes_into(a, b, out));
        codes
    }

    /// Per field, the pairs of `pairs` at each level (nulls not counted):
    /// all that u needs of them, without their vectors.
    fn level_counts(&self, pairs: &[(u32, u32)]) -> Vec<[u64; fs::LEVELS]> {
        self.fields
            .iter()
            .map(|field| {
                pairs
                    .par_iter()
                    .fold(
                        || [0u64; fs::LEVELS],
                        |mut counts, &(a, b)| {
                            if let Some(slot) = counts.get_mut(field.level(a, b) as usize) {
                                *slot += 1;
                            }
                            counts
                        },
                    )
                    .reduce(
                        || [0u64; fs::LEVELS],
                        |mut x, y| {
                            for (s, t) in x.iter_mut().zip(y) {
                                *s += t;
                            }
                            x
                        },
                    )
            })
            .collect()
    }
}

/// A model's weights per field and level, and with term frequencies, per
/// value at the exact level: a million candidates' totals without a
/// logarithm or an allocation each, the same sums in the same order as
/// [`Model::breakdown`] makes.
pub struct Weights {
    prior: f64,
    levels: Vec<[f64; fs::LEVELS]>,
    /// `exact[f][v]`: the exact level's weight for value v of field f
    /// (empty without term frequencies).
    exact: Vec<Vec<f64>>,
}

impl Weights {
    /// The match weight of a pair whose first record is `a` and whose
    /// comparison vector is `codes`, in `values`.
    pub fn total(&self, values: &Values, codes: &[u8], a: u32) -> f64 {
        let mut total = self.prior;
        for (f, &code) in codes.iter().enumerate() {
            let Some(level) = fs::Level::of_code(code) else {
                continue;
            };
            total += match (&self.exact[f][..], level) {
                (exact, fs::Level::Exact) if !exact.is_empty() => {
                    exact[values.fields[f].ids[a as usize] as usize]
                }
                _ => self.levels[f][level as usize],
            };
        }
        total
    }
}

/// The pairs u is counted on: every pair when there are at most
/// [`RANDOM_PAIRS`], else that many drawn with `seed` (a record is not
/// paired with itself; with `first` records of the first input under
/// linkage, one record of each input).
fn random_pairs(records: u32, first: Option<u32>, seed: u64) -> Vec<(u32, u32)> {
    let n = records as u64;
    let all = all_pairs(records, first);
    if all <= RANDOM_PAIRS {
        return match first {
            Some(k) => (0..k)
                .flat_map(|a| (k..records).map(move |b| (a, b)))
                .collect(),
            None => (0..records)
                .flat_map(|a| (a + 1..records).map(move |b| (a, b)))
                .collect(),
        };
    }
    // A seed of its own: the same scan seed also draws the MinHash functions.
    let mut rng = SplitMix64(seed ^ 0x6673_5f75_5f70_6169);
    let mut below = |bound: u64| ((rng.next_u64() as u128 * bound as u128) >> 64) as u32;
    let mut pairs = Vec::with_capacity(RANDOM_PAIRS as usize);
    while pairs.len() < RANDOM_PAIRS as usize {
        let (a, b) = match first {
            Some(k) => (below(k as u64), k + below(n - k as u64)),
            None => (below(n), below(n)),
        };
        if a != b {
            pairs.push((a.min(b), a.max(b)));
        }
    }
    pairs
}

/// The pairs of `records` (with `first` under linkage: across the inputs).
fn all_pairs(records: u32, first: Option<u32>) -> u64 {
    let n = records as u64;
    match first {
        Some(k) => k as u64 * (n - k as u64),
        None => n * n.saturating_sub(1) / 2,
    }
}

/// Comparison vectors (`fields` bytes each, one after another), tallied:
/// counted in a hash map, each distinct vector copied once.
fn tally(codes: &[u8], fields: usize) -> Tally {
    let mut counts: HashMap<&[u8], u64> = HashMap::new();
    if fields > 0 {
        for c in codes.chunks_exact(fields) {
            *counts.entry(c).or_insert(0) += 1;
        }
    }
    let mut tally = Tally::new(fields);
    for (c, n) in counts {
        tally.add(c.to_vec(), n);
    }
    tally
}

/// Trains the model: u on random pairs of the records, then λ and m by EM
/// over `candidates`. `first`: under linkage, the first input's records
/// (ids below it). Also returns the candidates' comparison vectors, one
/// after another (a byte per field), in their order: what they are scored
/// by, so that no candidate is compared twice.
pub(super) fn train(
    values: &Values,
    names: &[String],
    candidates: &[(u32, u32)],
    first: Option<u32>,
    config: &FsConfig,
) -> (Trained, Vec<u8>) {
    let records = values.records() as u32;
    let fields = values.fields.len();
    let (random, u) = {
        let random = random_pairs(records, first, config.seed);
        let u = fs::u_of_counts(values.level_counts(&random));
        (random.len() as u64, u)
    };
    let population = all_pairs(records, first);
    // Each candidate's vector is compared once, for EM and for its score.
    let codes = values.codes_of(candidates);
    let model = fs::estimate(&tally(&codes, fields), population, &u, EmOptions::default());
    let trained = Trained {
        fields: names.to_vec(),
        model,
        random_pairs: random,
        training_pairs: candidates.len() as u64,
        candidate_threshold: config.candidate_threshold,
        term_frequency: config.term_frequency,
    };
    (trained, codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_pairs_are_all_pairs_when_few_and_cross_inputs_under_linkage() {
        assert_eq!(random_pairs(3, None, 1), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(random_pairs(3, Some(1), 1), vec![(0, 1), (0, 2)]);
        let drawn = random_pairs(3000, Some(1000), 7);
        assert_eq!(drawn.len() as u64, RANDOM_PAIRS);
        assert!(
            drawn
                .iter()
                .all(|&(a, b)| a < 1000 && (1000..3000).contains(&b))
        );
        assert_eq!(drawn, random_pairs(3000, Some(1000), 7));
        let dedupe = random_pairs(3000, None, 7);
        assert!(dedupe.iter().all(|&(a, b)| a < b && b < 3000));
    }

    /// The levels kept per value pair (a field of few values) and decided
    /// with character profiles (a field of more than KNOWN_MAX_VALUES) are
    /// the levels of the two strings, asked twice (the second time from the
    /// table) and in both orders.
    #[test]
    fn kept_and_profiled_levels_are_the_strings_levels() {
        let mut rng = SplitMix64(39);
        let mut word = |len: u64, letters: u8| -> String {
            (0..2 + rng.next_u64() % len)
                .map(|_| (b'a' + (rng.next_u64() % letters as u64) as u8) as char)
                .collect()
        };
        // Field 0: 40 short words of 4 letters (many one edit or close);
        // field 1: 3,000 longer ones, past the table.
        let few: Vec<String> = (0..40).map(|_| word(4, 4)).collect();
        let many: Vec<String> = (0..3000).map(|i| format!("{} {i}", word(8, 6))).collect();
        let records: Vec<Vec<String>> = (0..3000)
            .map(|i| vec![few[i % few.len()].clone(), many[i].clone()])
            .collect();
        let values = Values::new(&records, 2, Normalization::default());
        assert!(values.fields[0].known.is_some() && values.fields[1].known.is_none());
        let mut levels = [[0usize; fs::LEVELS]; 2];
        for a in (0..3000u32).step_by(7) {
            for b in (0..3000u32).step_by(11) {
                let want: Vec<u8> = fs::codes(
                    records[a as usize].iter().map(String::as_str),
                    records[b as usize].iter().map(String::as_str),
                );
                assert_eq!(values.codes(a, b), want, "{a} {b}");
                assert_eq!(values.codes(a, b), want, "{a} {b}, kept");
                assert_eq!(
                    values.codes(b, a),
                    fs::codes(
                        records[b as usize].iter().map(String::as_str),
                        records[a as usize].iter().map(String::as_str),
                    )
                );
                for (f, &c) in want.iter().enumerate() {
                    levels[f][c as usize] += 1;
                }
            }
        }
        // Every level met in each field, so each path was taken.
        assert!(levels.iter().flatten().all(|&n| n > 0), "{levels:?}");
    }

    #[test]
    fn values_are_normalised_and_their_frequencies_counted() {
        let records: Vec<Vec<String>> =
            [["Smith ", "a"], ["smith", ""], ["Jones", "b"], ["x", "b"]]
                .iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .collect();
        let values = Values::new(&records, 2, Normalization::default());
        assert_eq!(values.codes(0, 1), vec![0, fs::NULL]);
        let frequency =
            |f: usize| -> Vec<f64> { (0..4).map(|i| values.fields[f].frequency(i)).collect() };
        assert_eq!(frequency(0), vec![0.5, 0.5, 0.25, 0.25]);
        assert_eq!(frequency(1), vec![1.0 / 3.0, 0.0, 2.0 / 3.0, 2.0 / 3.0]);
    }
}
