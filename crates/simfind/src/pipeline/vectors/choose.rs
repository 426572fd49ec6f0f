//! How a point set's pairs are found: every pair measured
//! ([`crate::similarity::vectors::all_pairs`]) or LSH, and LSH's banding (and
//! Euclidean's bucket width) — by the predicted work of
//! [`crate::lsh::family::cost`], on a fixed-seed sample of the set's random
//! pairs. Counts only, no clock: the same input gives the same choice on
//! every run, machine and thread count.

use rayon::prelude::*;

use crate::input::vectors::{BitStrings, Vectors};
use crate::lsh::Banding;
use crate::lsh::family::Metric;
use crate::lsh::family::cost::{self, Priced, Work};
use crate::similarity::vectors::{self as measure, all_pairs};
use crate::sketch::SplitMix64;

use super::VectorQuery;

/// Random pairs whose distances price a banding: enough that the predicted
/// candidate count is within a few percent where it matters (a fraction `q`
/// of pairs is seen with relative error `√((1 − q)/(q·S))`).
pub const SAMPLE_PAIRS: usize = 2048;
/// The sample's seed: fixed, so the choice is too.
const SAMPLE_SEED: u64 = 0x005A_3ED1_5C0F_F1CE;

/// `--method` as asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    Auto,
    Exact,
    Lsh,
}

/// How the pairs will be found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Every pair measured.
    Exact,
    /// Banding, with Euclidean's bucket width (else 0).
    Lsh { banding: Banding, width: f64 },
}

/// The choice and what it rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub method: Method,
    /// Predicted work of measuring every pair, and of the LSH considered.
    pub exact_cost: f64,
    pub lsh_cost: Option<f64>,
    /// The LSH considered: its banding, width, expected candidates.
    pub lsh: Option<Priced>,
    /// Why (the summary line says it in a few words).
    pub reason: Reason,
}

/// Why the method was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The method asked for.
    Asked,
    /// LSH: similarity estimated from signatures, which only LSH makes.
    BySignature,
    /// LSH: bands and rows were given.
    BandingGiven,
    /// The predicted work of the method chosen is the smaller.
    PredictedCheaper,
    /// Exact: no banding within [`cost::MAX_HASHES`] reaches the recall floor.
    NoBandingReachesRecall,
    /// LSH: an index's hyperplanes and signatures are reused (`scan --db`).
    IndexSignatures,
}

impl Choice {
    /// The method's name and why, in a few words, naming parameters.
    pub fn describe(&self) -> String {
        let method = match self.method {
            Method::Exact => "exact",
            Method::Lsh { .. } => "lsh",
        };
        let why = match self.reason {
            Reason::Asked => "asked",
            Reason::BySignature => "verification by signature",
            Reason::BandingGiven => "bands and rows given",
            Reason::PredictedCheaper => "predicted cheaper",
            Reason::NoBandingReachesRecall => "no banding reaches min_recall",
            Reason::IndexSignatures => "the index's signatures",
        };
        format!("{method} ({why})")
    }
}

/// Why no method can be chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ChooseError {
    /// The exact method asked for, with similarity estimated from
    /// signatures, which only LSH makes.
    ExactBySignature,
    /// LSH needed, and no banding within `max_hashes` finds pairs at the
    /// threshold with probability at least `min_recall`.
    Unreachable { min_recall: f64, max_hashes: usize },
}

impl std::fmt::Display for ChooseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ChooseError::ExactBySignature => f.write_str(
                "verification by signature estimates from LSH's signatures: the exact method \
                 measures every pair (verify exactly instead)",
            ),
            ChooseError::Unreachable {
                min_recall,
                max_hashes,
            } => write!(
                f,
                "no b·r ≤ {max_hashes} finds pairs at the threshold with probability ≥ \
                 {min_recall}; give bands and rows, a lower min_recall, or the exact method"
            ),
        }
    }
}

impl std::error::Error for ChooseError {}

/// What the arguments fix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Given {
    pub asked: Asked,
    /// -b/-r as given.
    pub banding: Option<Banding>,
    /// Only pairs across the split (--link).
    pub link: Option<u32>,
    pub min_recall: f64,
    /// --verify signature: only LSH has an estimate.
    pub by_signature: bool,
}

/// `SAMPLE_PAIRS` pairs `a ≠ b` (across `link`'s split if given), drawn with
/// a fixed seed, measured by `distance` (in parallel, in the draw's order).
pub fn sample_distances(
    n: usize,
    link: Option<u32>,
    distance: impl Fn(usize, usize) -> f64 + Sync,
) -> Vec<f64> {
    let mut rng = SplitMix64(SAMPLE_SEED);
    let split = link.map(|s| s as usize);
    if all_pairs::pair_count(n, split) == 0 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(SAMPLE_PAIRS);
    while out.len() < SAMPLE_PAIRS {
        let (a, b) = match split {
            Some(s) => (
                rng.next_u64() as usize % s,
                s + rng.next_u64() as usize % (n - s),
            ),
            None => {
                let a = rng.next_u64() as usize % n;
                let b = rng.next_u64() as usize % n;
                if a == b {
                    continue;
                }
                (a, b)
            }
        };
        out.push((a, b));
    }
    out.par_iter().map(|&(a, b)| distance(a, b)).collect()
}

fn work(n: usize, dim: usize, link: Option<u32>) -> Work {
    Work {
        points: n as u64,
        dim,
        pairs: all_pairs::pair_count(n, link.map(|s| s as usize)),
    }
}

/// The choice between the exact method and the cheapest LSH (or the given
/// banding, priced).
fn decide(
    metric: Metric,
    work: Work,
    given: Given,
    lsh: Option<Priced>,
) -> Result<Choice, ChooseError> {
    let exact_cost = cost::exact_cost(metric, work);
    let lsh_cost = lsh.map(|p| p.cost);
    let lsh_method = |p: Priced| Method::Lsh {
        banding: Banding {
            bands: p.bands,
            rows: p.rows,
        },
        width: p.width,
    };
    let (method, reason) = match given.asked {
        Asked::Exact if given.by_signature => return Err(ChooseError::ExactBySignature),
        Asked::Exact => (Method::Exact, Reason::Asked),
        Asked::Lsh => match lsh {
            Some(p) => (lsh_method(p), Reason::Asked),
            None => return Err(unreachable_recall(given.min_recall)),
        },
        Asked::Auto => match lsh {
            Some(p) if given.by_signature => (lsh_method(p), Reason::BySignature),
            Some(p) if given.banding.is_some() => (lsh_method(p), Reason::BandingGiven),
            Some(p) if p.cost < exact_cost => (lsh_method(p), Reason::PredictedCheaper),
            _ if given.by_signature => return Err(unreachable_recall(given.min_recall)),
            Some(_) => (Method::Exact, Reason::PredictedCheaper),
            None => (Method::Exact, Reason::NoBandingReachesRecall),
        },
    };
    Ok(Choice {
        method,
        exact_cost,
        lsh_cost,
        lsh,
        reason,
    })
}

fn unreachable_recall(min_recall: f64) -> ChooseError {
    ChooseError::Unreachable {
        min_recall,
        max_hashes: cost::MAX_HASHES,
    }
}

/// The given banding priced, or the cheapest; for Euclidean with no width
/// given, the cheapest width too.
fn priced(
    metric: Metric,
    threshold: f64,
    sample: &[f64],
    work: Work,
    given: Given,
) -> Option<Priced> {
    match given.banding {
        Some(b) => {
            let candidates = cost::expected_candidates(metric, sample, work.pairs, b.bands, b.rows);
            Some(Priced {
                bands: b.bands,
                rows: b.rows,
                width: 0.0,
                candidates,
                cost: cost::lsh_cost(metric, work, b.bands, b.rows, candidates),
                recall: metric.probability(threshold, &crate::lsh::scurve::banded(b.bands, b.rows)),
            })
        }
        None => cost::cheapest(metric, threshold, sample, work, given.min_recall),
    }
}

/// The choice for `points` under `query`; `width_given` is whether the
/// query's bucket width was given (else it is chosen here).
pub fn choose_vectors(
    points: &Vectors,
    query: VectorQuery,
    width_given: bool,
    given: Given,
) -> Result<Choice, ChooseError> {
    let n = points.len();
    let w = work(n, points.dim, given.link);
    let row = |i: usize| points.row(i);
    match query {
        VectorQuery::Cosine { min_cosine } => {
            let sample = sample_distances(n, given.link, |a, b| {
                measure::angle_degrees(measure::cosine(row(a), row(b)).unwrap_or(0.0))
            });
            let t = measure::angle_degrees(min_cosine);
            let lsh = priced(Metric::Cosine, t, &sample, w, given);
            decide(Metric::Cosine, w, given, lsh)
        }
        VectorQuery::Euclidean { radius, width } => {
            let sample = sample_distances(n, given.link, |a, b| measure::euclidean(row(a), row(b)));
            // A width given, or bands given (tuned for some width: the old
            // default 2R, kept): priced as they are. Otherwise the cheapest
            // width and banding together.
            let lsh = if width_given || given.banding.is_some() {
                let scaled: Vec<f64> = sample.iter().map(|d| d / width).collect();
                priced(Metric::Euclidean, radius / width, &scaled, w, given).map(|mut p| {
                    p.width = width;
                    p
                })
            } else {
                cost::cheapest_width(radius, &sample, w, given.min_recall)
            };
            decide(Metric::Euclidean, w, given, lsh)
        }
    }
}

/// The choice for bit strings within `radius` bits.
pub fn choose_bits(strings: &BitStrings, radius: f64, given: Given) -> Result<Choice, ChooseError> {
    let n = strings.len();
    let w = work(n, strings.bits, given.link);
    let sample = sample_distances(n, given.link, |a, b| {
        f64::from(measure::hamming_bits(strings.row(a), strings.row(b)))
    });
    let metric = Metric::Hamming { bits: strings.bits };
    let lsh = priced(metric, radius, &sample, w, given);
    decide(metric, w, given, lsh)
}

#[cfg(test)]
mod tests;
