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

use rayon::prelude::*;

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

/// Every record's fields as compared: normalised characters, and the
/// frequency of each record's value among the records non-empty in that
/// field.
pub struct Values {
    /// `chars[f][i]`: record i's field f.
    chars: Vec<Vec<Box<[char]>>>,
    /// `frequency[f][i]`: the share of the records non-empty in field f
    /// whose value is record i's (0 where it is empty).
    frequency: Vec<Vec<f64>>,
}

impl Values {
    /// `records[i][f]`: record i's field f as read.
    pub fn new(records: &[Vec<String>], fields: usize, normalization: Normalization) -> Self {
        let per_record: Vec<Vec<Box<[char]>>> = records
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
        let mut chars: Vec<Vec<Box<[char]>>> = (0..fields)
            .map(|_| Vec::with_capacity(records.len()))
            .collect();
        for record in per_record {
            for (f, value) in record.into_iter().enumerate() {
                chars[f].push(value);
            }
        }
        let frequency = chars
            .iter()
            .map(|values| {
                let mut counts: HashMap<&[char], u32> = HashMap::new();
                for v in values.iter().filter(|v| !v.is_empty()) {
                    *counts.entry(v).or_insert(0) += 1;
                }
                let nonempty: u32 = counts.values().sum();
                values
                    .iter()
                    .map(|v| match counts.get(&v[..]) {
                        Some(&c) if !v.is_empty() => c as f64 / nonempty as f64,
                        _ => 0.0,
                    })
                    .collect()
            })
            .collect();
        Values { chars, frequency }
    }

    /// The comparison vector of records `a` and `b`.
    pub fn codes(&self, a: u32, b: u32) -> Vec<u8> {
        let mut codes = vec![0; self.chars.len()];
        self.codes_into(a, b, &mut codes);
        codes
    }

    /// [`Values::codes`] written into `out` (one byte per field), so that
    /// a million pairs' vectors are one flat buffer, not a million vectors.
    fn codes_into(&self, a: u32, b: u32, out: &mut [u8]) {
        for (values, code) in self.chars.iter().zip(out) {
            let (x, y) = (&values[a as usize], &values[b as usize]);
            *code = level_of_chars(x, y).map_or(fs::NULL, |l| l as u8);
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
            term_frequency.then(|| self.frequency[f][a as usize])
        })
    }

    /// The comparison vectors of `pairs`, one after another (`fields`
    /// bytes each), computed in parallel in the pairs' order.
    fn codes_of(&self, pairs: &[(u32, u32)]) -> Vec<u8> {
        let fields = self.chars.len().max(1);
        let mut codes = vec![0u8; pairs.len() * fields];
        codes
            .par_chunks_mut(fields)
            .zip(pairs.par_iter())
            .for_each(|(out, &(a, b))| self.codes_into(a, b, out));
        codes
    }
}

/// [`fs::level_of`] on characters already split.
fn level_of_chars(a: &[char], b: &[char]) -> Option<fs::Level> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    Some(if a == b {
        fs::Level::Exact
    } else if fs::within_one_edit(a, b) {
        fs::Level::OneEdit
    } else if fs::close(a, b) {
        fs::Level::Close
    } else {
        fs::Level::Else
    })
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
    let records = values.chars.first().map_or(0, |f| f.len()) as u32;
    let fields = values.chars.len();
    let (random, u) = {
        let random = random_pairs(records, first, config.seed);
        let u = fs::u_of(&tally(&values.codes_of(&random), fields));
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

    #[test]
    fn values_are_normalised_and_their_frequencies_counted() {
        let records: Vec<Vec<String>> =
            [["Smith ", "a"], ["smith", ""], ["Jones", "b"], ["x", "b"]]
                .iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .collect();
        let values = Values::new(&records, 2, Normalization::default());
        assert_eq!(values.codes(0, 1), vec![0, fs::NULL]);
        assert_eq!(values.frequency[0], vec![0.5, 0.5, 0.25, 0.25]);
        assert_eq!(
            values.frequency[1],
            vec![1.0 / 3.0, 0.0, 2.0 / 3.0, 2.0 / 3.0]
        );
    }
}
