//! Which pairs of records can reach a weighted per-field score, and which
//! per-field bandings find them at the fewest candidates (MMDS 3.8: AND within
//! a field's band, OR across the fields and bands).
//!
//! A record scan with per-field scores reports a pair when
//! `Σ_S w_f·J_f / Σ_S w_f ≥ t`, `S` the fields non-empty in both records.
//! Two facts follow, both exact:
//!
//! - [`field_bounds`]: a field `f` that both records have must reach
//!   `t − (1 − t)·(W − w_f)/w_f` (`W` the sum of the weights), since the other
//!   fields can add at most their weight each. Above 0 the field is
//!   *required*: a pair under its bound cannot qualify.
//! - [`cover_level`]: for a set of *cover* fields `C`, a qualifying pair with
//!   fields `S` has some field of `C ∩ S` at Jaccard ≥
//!   `t − (1 − t)·W(S∖C)/W(S∩C)`; were every one below, the score would be
//!   below `t`. A cover whose level is ≤ 0 promises nothing, and a pair with
//!   no cover field in common cannot be found by the cover at all.
//!
//! The level is a worst case (every field outside the cover at 1, every one
//! inside just under it); on short fields of 2-shingles, where two unrelated
//! names already share a shingle or two, banding for that worst case at a high
//! recall floor makes more candidates than it saves. So [`choose`] takes the
//! bound as what a cover must at least promise, and decides the rest on a
//! sample: the fields' similarities of random pairs (what a scheme costs) and
//! of qualifying pairs (what it finds), each pair found by a field's bands with
//! the S-curve's probability `1 − (1 − J^r)^b`.
//!
//! Pure: numbers in, numbers out; the engine samples, this module weighs.

use std::collections::HashMap;

use super::{Banding, scurve};

/// Per field, the least Jaccard similarity it has in any pair (that both
/// records have it in) whose weighted score reaches `t`; 0 when the other
/// fields' weights can make up for any value. `weights` are ≥ 0, not all 0;
/// `0 < t ≤ 1`. A field of weight 0 is never required.
pub fn field_bounds(weights: &[f64], t: f64) -> Vec<f64> {
    let total: f64 = weights.iter().sum();
    weights
        .iter()
        .map(|&w| {
            if w <= 0.0 {
                return 0.0;
            }
            (t - (1.0 - t) * (total - w) / w).max(0.0)
        })
        .collect()
}

/// The level some field of `cover` reaches in every pair with fields
/// `present` (non-empty in both records) that scores ≥ `t`: `None` when no
/// cover field of positive weight is present (the cover cannot find such a
/// pair). Never above `t`; at or below 0 the cover promises nothing.
pub fn cover_level(weights: &[f64], t: f64, cover: &[bool], present: &[bool]) -> Option<f64> {
    let (mut inside, mut outside) = (0.0, 0.0);
    for ((&w, &c), &p) in weights.iter().zip(cover).zip(present) {
        if !p {
            continue;
        }
        if c {
            inside += w;
        } else {
            outside += w;
        }
    }
    (inside > 0.0).then(|| t - (1.0 - t) * outside / inside)
}

/// One field's similarity in a sampled pair: `None` when a record has the
/// field empty (not compared, not banded).
pub type Similarities = Vec<Option<f64>>;

/// A sampled pair: its fields' similarities and which fields each record
/// has (non-empty).
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub similarities: Similarities,
    pub present: [Vec<bool>; 2],
}

/// Whether a record with fields `present` is beyond what `cover` promises
/// a whole record: the level its own fields leave is below the level of a
/// record with every field (a cover field missing lowers it: the fields left
/// out weigh more against those left), or there is none. Such a record's
/// pairs are made by every field's bands as well (the fallback): few
/// records miss a field, so the fallback costs little, and the cover's
/// banding answers for one level only.
pub fn beyond_cover(weights: &[f64], t: f64, cover: &[bool], present: &[bool]) -> bool {
    let whole = cover_level(weights, t, cover, &vec![true; weights.len()]);
    match (cover_level(weights, t, cover, present), whole) {
        (Some(own), Some(whole)) => own <= 0.0 || own < whole - 1e-12,
        _ => true,
    }
}

/// The probability that a pair of these field similarities collides in some
/// band of some field of `scheme` (`None`: the field makes no candidates).
/// The fields' signatures are independent, so their misses multiply.
pub fn found_probability(scheme: &[Option<Banding>], pair: &[Option<f64>]) -> f64 {
    let mut miss = 1.0;
    for (banding, j) in scheme.iter().zip(pair) {
        if let (Some(b), Some(j)) = (banding, j) {
            miss *= scurve::miss_probability(*j, b.bands, b.rows);
        }
    }
    1.0 - miss
}

/// What a scheme is expected to do: the share of all pairs it makes
/// candidates, and the share of the qualifying pairs it finds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    pub candidate_share: f64,
    pub completeness: f64,
}

/// Predictions of schemes over one sample: each field's miss probability
/// per pair and banding computed once, and which records are
/// [`beyond_cover`] once per cover and set of fields.
struct Predictor<'s, 'a> {
    sample: &'s Sample<'a>,
    /// Per pair (random, then qualifying), each record's fields as bits.
    masks: Vec<[u64; 2]>,
    miss: HashMap<(usize, usize, usize), Vec<f64>>,
    beyond: HashMap<(u64, u64), bool>,
}

impl<'s, 'a> Predictor<'s, 'a> {
    /// `None` over 64 fields (one bit each).
    fn new(sample: &'s Sample<'a>) -> Option<Self> {
        if sample.weights.len() > 64 {
            return None;
        }
        let bits = |present: &[bool]| {
            present
                .iter()
                .enumerate()
                .filter(|(_, p)| **p)
                .fold(0u64, |m, (f, _)| m | 1 << f)
        };
        let masks = sample
            .random
            .iter()
            .chain(sample.qualifying)
            .map(|p| [bits(&p.present[0]), bits(&p.present[1])])
            .collect();
        Some(Self {
            sample,
            masks,
            miss: HashMap::new(),
            beyond: HashMap::new(),
        })
    }

    fn pairs(&self) -> impl Iterator<Item = &Pair> {
        self.sample.random.iter().chain(self.sample.qualifying)
    }

    /// Each pair's probability that field `f` at `banding` misses it (1 when
    /// a record has the field empty).
    fn ensure(&mut self, f: usize, banding: Banding) {
        let key = (f, banding.bands, banding.rows);
        if !self.miss.contains_key(&key) {
            let misses = self
                .pairs()
                .map(|p| {
                    p.similarities[f].map_or(1.0, |j| {
                        scurve::miss_probability(j, banding.bands, banding.rows)
                    })
                })
                .collect();
            self.miss.insert(key, misses);
        }
    }

    /// The [`Prediction`] of `scheme`: the random pairs' mean found
    /// probability is the candidates' share, the qualifying pairs' the
    /// completeness (1 when there are none). A pair with a record
    /// [`beyond_cover`] is found by `fallback`'s bands as well.
    fn predict(&mut self, scheme: &[Option<Banding>], fallback: &[Option<Banding>]) -> Prediction {
        for (f, b) in scheme.iter().chain(fallback).enumerate() {
            if let Some(b) = b {
                self.ensure(f % scheme.len(), *b);
            }
        }
        let weights = self.sample.weights;
        let t = self.sample.threshold;
        let cover: Vec<bool> = scheme.iter().map(Option::is_some).collect();
        let cover_bits = cover
            .iter()
            .enumerate()
            .filter(|(_, c)| **c)
            .fold(0u64, |m, (f, _)| m | 1 << f);
        let fields = weights.len();
        let mut beyond = |mask: u64| {
            *self.beyond.entry((cover_bits, mask)).or_insert_with(|| {
                let present: Vec<bool> = (0..fields).map(|f| mask & (1 << f) != 0).collect();
                beyond_cover(weights, t, &cover, &present)
            })
        };
        let flags: Vec<bool> = self
            .masks
            .iter()
            .map(|[a, b]| beyond(*a) || beyond(*b))
            .collect();
        let product = |bands: &[Option<Banding>], i: usize| {
            bands
                .iter()
                .enumerate()
                .filter_map(|(f, b)| b.map(|b| self.miss[&(f, b.bands, b.rows)][i]))
                .product::<f64>()
        };
        let found: Vec<f64> = (0..self.masks.len())
            .map(|i| {
                let own = product(scheme, i);
                if flags[i] {
                    1.0 - own * product(fallback, i)
                } else {
                    1.0 - own
                }
            })
            .collect();
        let random = self.sample.random.len();
        let mean = |found: &[f64], empty: f64| {
            if found.is_empty() {
                empty
            } else {
                found.iter().sum::<f64>() / found.len() as f64
            }
        };
        Prediction {
            candidate_share: mean(&found[..random], 0.0),
            completeness: mean(&found[random..], 1.0),
        }
    }
}

/// The outcome of [`choose`]: a banding per field (`None`: left out of the
/// candidates), its prediction, and the prediction of every field at the
/// given banding (what the scan did before choosing).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub scheme: Vec<Option<Banding>>,
    pub predicted: Prediction,
    pub baseline: Prediction,
}

/// What [`choose`] weighs.
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    pub weights: &'a [f64],
    pub threshold: f64,
    /// The signature each field has; a field's bands take its first
    /// `bands × rows` values.
    pub banding: Banding,
    pub random: &'a [Pair],
    pub qualifying: &'a [Pair],
    /// The share of the baseline's predicted completeness a choice must keep.
    pub keep: f64,
}

/// How far [`choose`] may raise a field's rows per band over the given rows.
/// Each row makes the S-curve's step steeper and higher; a sample of a few
/// hundred qualifying pairs cannot vouch for the few that a step near 1
/// loses (a single band of many rows found every sampled pair of the
/// generated linkage and lost true pairs the sample did not hold), so the
/// search stops at twice the rows.
pub const MAX_ROWS_FACTOR: usize = 2;

/// The cheapest per-field scheme found by local search from every field at
/// `banding` (the baseline), the pairs of records [`beyond_cover`] made by the
/// baseline's bands as well: each step either leaves a field out of the
/// candidates or gives it more rows per band (fewer bands, within the same
/// signature, at most [`MAX_ROWS_FACTOR`] × the given rows), whichever
/// predicts the fewest candidates while keeping
/// `keep` × the baseline's completeness. A cover is admissible only when its
/// [`cover_level`] over all fields is above 0 (it promises something of every
/// pair that has all fields). Deterministic: ties go to the lower field.
pub fn choose(sample: Sample<'_>) -> Choice {
    let fields = sample.weights.len();
    let hashes = sample.banding.signature_len();
    let most_rows = hashes.min(MAX_ROWS_FACTOR * sample.banding.rows);
    let baseline_scheme: Vec<Option<Banding>> = vec![Some(sample.banding); fields];
    let Some(mut predictor) = Predictor::new(&sample) else {
        // Over 64 fields: every field's bands, unpredicted.
        let unknown = Prediction {
            candidate_share: f64::NAN,
            completeness: f64::NAN,
        };
        return Choice {
            scheme: baseline_scheme,
            predicted: unknown,
            baseline: unknown,
        };
    };
    let baseline = predictor.predict(&baseline_scheme, &baseline_scheme);
    let floor = sample.keep * baseline.completeness;
    let all = vec![true; fields];
    let admissible = |scheme: &[Option<Banding>]| {
        let cover: Vec<bool> = scheme.iter().map(Option::is_some).collect();
        cover_level(sample.weights, sample.threshold, &cover, &all).is_some_and(|l| l > 0.0)
    };
    let mut scheme = baseline_scheme.clone();
    let mut predicted = baseline;
    loop {
        let mut best: Option<(Vec<Option<Banding>>, Prediction)> = None;
        for f in 0..fields {
            let Some(now) = scheme[f] else { continue };
            let mut moves = vec![None];
            if let Some(rows) = (now.rows + 1..=most_rows).find(|&r| hashes / r < now.bands) {
                moves.push(Some(Banding {
                    bands: hashes / rows,
                    rows,
                }));
            }
            for next in moves {
                let mut tried = scheme.clone();
                tried[f] = next;
                if !admissible(&tried) {
                    continue;
                }
                let p = predictor.predict(&tried, &baseline_scheme);
                let better = p.candidate_share < predicted.candidate_share
                    && best
                        .as_ref()
                        .is_none_or(|(_, b)| p.candidate_share < b.candidate_share);
                if p.completeness >= floor && better {
                    best = Some((tried, p));
                }
            }
        }
        match best {
            Some((next, p)) => {
                scheme = next;
                predicted = p;
            }
            None => break,
        }
    }
    Choice {
        scheme,
        predicted,
        baseline,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn a_heavy_field_is_required_and_equal_weights_require_none() {
        // Weights 3, 1: at t = 0.8, the light field alone can add 1 of 4,
        // so the heavy one needs 0.8 − 0.2·1/3 = 0.7333…; the light one
        // 0.8 − 0.2·3 = 0.2.
        let b = field_bounds(&[3.0, 1.0], 0.8);
        assert!(close(b[0], 0.8 - 0.2 / 3.0), "{b:?}");
        assert!(close(b[1], 0.2), "{b:?}");
        // Five equal fields at 0.549: any one field can be 0.
        assert_eq!(field_bounds(&[1.0; 5], 0.549), vec![0.0; 5]);
        // One field: its bound is t itself.
        assert!(close(field_bounds(&[2.0], 0.6)[0], 0.6));
        assert_eq!(field_bounds(&[0.0, 1.0], 0.9)[0], 0.0);
    }

    #[test]
    fn a_pair_at_a_bound_scores_exactly_t() {
        // The bound is tight: the field at its bound, every other at 1.
        let w = [3.0, 1.0, 2.0];
        let t = 0.85;
        for (f, &lb) in field_bounds(&w, t).iter().enumerate() {
            let score: f64 = w
                .iter()
                .enumerate()
                .map(|(g, &wg)| wg * if g == f { lb } else { 1.0 })
                .sum::<f64>()
                / w.iter().sum::<f64>();
            assert!(close(score, t), "field {f}: {score}");
        }
    }

    #[test]
    fn cover_levels_follow_the_weights_left_out_and_the_fields_present() {
        let w = [1.0; 5];
        let t = 0.549;
        let all = [true; 5];
        // The whole cover: some field reaches t (a mean is at most its
        // largest term).
        assert!(close(cover_level(&w, t, &all, &all).unwrap(), t));
        // Four of five: 0.549 − 0.451/4.
        let no_city = [true, true, true, false, true];
        let level = cover_level(&w, t, &no_city, &all).unwrap();
        assert!(close(level, t - (1.0 - t) / 4.0), "{level}");
        // Two of five promise nothing.
        let two = [false, false, true, false, true];
        assert!(cover_level(&w, t, &two, &all).unwrap() < 0.0);
        // The left-out field missing: the cover is whole over what is there.
        let no_city_present = [true, true, true, false, true];
        assert!(close(
            cover_level(&w, t, &no_city, &no_city_present).unwrap(),
            t
        ));
        // No cover field present: the cover cannot find the pair.
        let city_only = [false, false, false, true, false];
        assert_eq!(cover_level(&w, t, &no_city, &city_only), None);
        // One field alone is its own bound.
        let heavy = [3.0, 1.0];
        assert!(close(
            cover_level(&heavy, 0.8, &[true, false], &[true, true]).unwrap(),
            field_bounds(&heavy, 0.8)[0]
        ));
    }

    #[test]
    fn under_the_cover_level_no_pair_qualifies() {
        // Exhaustively on a grid: every field of the cover just under the
        // level, every other at 1, scores under t.
        let w = [1.0, 2.0, 0.5, 1.5];
        let t = 0.7;
        for mask in 1u32..16 {
            let cover: Vec<bool> = (0..4).map(|f| mask & (1 << f) != 0).collect();
            let level = cover_level(&w, t, &cover, &[true; 4]).unwrap();
            let below = (level - 1e-9).max(0.0);
            let score: f64 = (0..4)
                .map(|f| w[f] * if cover[f] { below } else { 1.0 })
                .sum::<f64>()
                / w.iter().sum::<f64>();
            assert!(score < t || level <= 0.0, "{cover:?}: {score}");
        }
    }

    #[test]
    fn found_probability_multiplies_the_fields_misses() {
        let b = Banding { bands: 2, rows: 1 };
        // Each field misses with (1 − 0.5)^2 = 0.25; two fields 0.0625.
        let p = found_probability(&[Some(b), Some(b)], &[Some(0.5), Some(0.5)]);
        assert!(close(p, 1.0 - 0.0625), "{p}");
        // A field left out or empty on a side does not count.
        let p = found_probability(&[Some(b), None], &[None, Some(1.0)]);
        assert!(close(p, 0.0), "{p}");
    }

    /// A pair of records that have every field.
    fn whole(similarities: &[f64]) -> Pair {
        let present = vec![true; similarities.len()];
        Pair {
            similarities: similarities.iter().map(|&j| Some(j)).collect(),
            present: [present.clone(), present],
        }
    }

    #[test]
    fn choose_leaves_out_a_field_whose_buckets_pair_random_records() {
        // Field 1 is equal in half of the random pairs (a city), field 0
        // never similar at random; qualifying pairs are equal on field 0.
        let random: Vec<Pair> = (0..100)
            .map(|i| whole(&[0.05, if i % 2 == 0 { 1.0 } else { 0.0 }]))
            .collect();
        let qualifying = vec![whole(&[1.0, 1.0]); 10];
        let banding = Banding { bands: 20, rows: 5 };
        let choice = choose(Sample {
            weights: &[2.0, 1.0],
            threshold: 0.8,
            banding,
            random: &random,
            qualifying: &qualifying,
            keep: 0.995,
        });
        assert_eq!(choice.scheme[1], None, "{choice:?}");
        assert!(choice.scheme[0].is_some());
        assert!(choice.predicted.candidate_share < 0.01, "{choice:?}");
        assert!(close(choice.predicted.completeness, 1.0));
        let random_field_0 = found_probability(&[Some(banding)], &[Some(0.05)]);
        assert!(close(
            choice.baseline.candidate_share,
            0.5 + 0.5 * random_field_0
        ));
    }

    #[test]
    fn a_record_beyond_the_cover_is_paired_by_every_field() {
        // The qualifying pair's first record has only field 1: leaving
        // field 1 out cannot find it by field 0, but the fallback's bands
        // do, so leaving it out costs no completeness.
        let random: Vec<Pair> = (0..100)
            .map(|i| whole(&[0.05, if i % 2 == 0 { 1.0 } else { 0.0 }]))
            .collect();
        let qualifying = vec![Pair {
            similarities: vec![None, Some(1.0)],
            present: [vec![false, true], vec![true, true]],
        }];
        assert!(beyond_cover(
            &[2.0, 1.0],
            0.8,
            &[true, false],
            &[false, true]
        ));
        assert!(!beyond_cover(
            &[2.0, 1.0],
            0.8,
            &[true, false],
            &[true, true]
        ));
        let choice = choose(Sample {
            weights: &[2.0, 1.0],
            threshold: 0.8,
            banding: Banding { bands: 20, rows: 5 },
            random: &random,
            qualifying: &qualifying,
            keep: 0.995,
        });
        assert_eq!(choice.scheme[1], None, "{choice:?}");
        assert!(close(choice.predicted.completeness, 1.0), "{choice:?}");
    }

    #[test]
    fn choose_keeps_a_field_the_bound_needs() {
        // Equal weights at t = 0.9: leaving either field out keeps a level
        // of 0.9 − 0.1 = 0.8, leaving both promises nothing; so one stays
        // though the random pairs would have both go.
        let random: Vec<Pair> = (0..10)
            .map(|i| whole(if i % 2 == 0 { &[1.0, 0.0] } else { &[0.0, 1.0] }))
            .collect();
        let qualifying = vec![whole(&[1.0, 1.0]); 10];
        let choice = choose(Sample {
            weights: &[1.0, 1.0],
            threshold: 0.9,
            banding: Banding { bands: 20, rows: 5 },
            random: &random,
            qualifying: &qualifying,
            keep: 0.995,
        });
        assert_eq!(
            choice.scheme.iter().filter(|b| b.is_some()).count(),
            1,
            "{choice:?}"
        );
    }

    #[test]
    fn choose_keeps_the_baseline_when_nothing_is_cheaper_at_the_same_completeness() {
        // Qualifying pairs are found by one field each, alternately: neither
        // can go, and more rows per band would lose them at 0.6.
        let random = vec![whole(&[0.3, 0.3]); 10];
        let qualifying: Vec<Pair> = (0..10)
            .map(|i| whole(if i % 2 == 0 { &[0.6, 0.0] } else { &[0.0, 0.6] }))
            .collect();
        let banding = Banding { bands: 20, rows: 5 };
        let choice = choose(Sample {
            weights: &[1.0, 1.0],
            threshold: 0.3,
            banding,
            random: &random,
            qualifying: &qualifying,
            keep: 0.995,
        });
        assert_eq!(choice.scheme, vec![Some(banding); 2]);
        assert_eq!(choice.predicted, choice.baseline);
    }
}
