//! A run over points as one call: the method chosen from a [`PointSpec`]
//! and the points (or an index's signatures), then the pairs. The faces
//! read the points and write the pairs; what happens between is decided
//! here once, for `scan` on the command line and any other caller.

use super::Found;
use super::choose::{self, Asked, Choice, ChooseError, Given};
use super::{FamilyOutcome, RunOptions, VectorQuery};
use crate::input::vectors::{BitStrings, Vectors};
use crate::lsh::Banding;
use crate::measure::Measure;
use crate::model::SimilarPair;
use crate::pipeline::Verification;
use crate::progress::Reporter;
use crate::sketch::BitSampling;
use crate::spec::{self, PointQuery, PointSpec, TuneError};

/// Signatures made before the run: an index's hyperplane signatures of
/// every vector (row `i` is vector `i`'s), made with `banding` and `seed`.
#[derive(Debug)]
pub struct IndexedSignatures {
    pub banding: Banding,
    pub seed: u64,
    pub matrix: Vec<u32>,
}

/// Why a run over points could not start.
#[derive(Debug, PartialEq)]
pub enum PointRunError {
    /// The query does not fit the points read (a Hamming radius not below
    /// the strings' width).
    Tune(TuneError),
    /// No method answers the query as asked.
    Choose(ChooseError),
    /// The query's measure is not these points' (SimHash's fingerprints,
    /// or Hamming for vectors, cosine for bit strings).
    NotForPoints(crate::measure::Measure),
}

impl std::fmt::Display for PointRunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PointRunError::Tune(e) => e.fmt(f),
            PointRunError::Choose(e) => e.fmt(f),
            PointRunError::NotForPoints(measure) => {
                write!(f, "{measure} is not a measure of these points")
            }
        }
    }
}

impl std::error::Error for PointRunError {}

/// What the cost model is given: the spec's method, banding and recall
/// floor, and `link`'s split.
fn given(spec: &PointSpec, link: Option<u32>) -> Given {
    Given {
        asked: match spec.method {
            spec::Method::Exact => Asked::Exact,
            spec::Method::Lsh => Asked::Lsh,
            spec::Method::Auto | spec::Method::Banded => Asked::Auto,
        },
        banding: spec.banding,
        link,
        min_recall: spec.min_recall,
        by_signature: spec.verification == spec::Verification::Signature,
    }
}

fn options(spec: &PointSpec, link: Option<u32>) -> RunOptions {
    RunOptions {
        link,
        verification: match spec.verification {
            spec::Verification::Exact => Verification::Exact,
            spec::Verification::Signature => Verification::Signature,
        },
    }
}

/// The vectors' query of `spec` (cosine or L2): `None` for the bit
/// strings' and fingerprints' queries.
fn vector_query(query: PointQuery) -> Option<VectorQuery> {
    match query {
        PointQuery::Cosine { min_cosine } => Some(VectorQuery::Cosine { min_cosine }),
        PointQuery::Euclidean { radius, width, .. } => {
            Some(VectorQuery::Euclidean { radius, width })
        }
        PointQuery::Hamming { .. } | PointQuery::SimHash { .. } => None,
    }
}

/// The pairs of `points` under `spec`'s cosine or L2 query (a Hamming
/// query is [`run_bits`]'s): every pair measured or the LSH the cost model
/// prefers, or, with `presigned`, LSH over the index's signatures. `link`:
/// only pairs across that split.
pub fn run_vectors(
    spec: &PointSpec,
    points: &Vectors,
    link: Option<u32>,
    presigned: Option<IndexedSignatures>,
    reporter: &dyn Reporter,
) -> Result<(Choice, FamilyOutcome), PointRunError> {
    let Some(query) = vector_query(spec.query) else {
        return Err(PointRunError::NotForPoints(spec.query.measure()));
    };
    let given = given(spec, link);
    let (choice, presigned) = match presigned {
        Some(IndexedSignatures {
            banding,
            seed,
            matrix,
        }) => (index_choice(banding), Some((seed, matrix))),
        None => {
            let width_given = matches!(
                spec.query,
                PointQuery::Euclidean {
                    width_given: true,
                    ..
                }
            );
            let choice = choose::choose_vectors(points, query, width_given, given)
                .map_err(PointRunError::Choose)?;
            (choice, None)
        }
    };
    let outcome = match choice.method {
        choose::Method::Exact => super::exact_vectors(points, query, link, reporter),
        choose::Method::Lsh { banding, width } => {
            let query = match query {
                VectorQuery::Euclidean { radius, .. } => VectorQuery::Euclidean { radius, width },
                cosine => cosine,
            };
            let (seed, matrix) = match presigned {
                Some((seed, matrix)) => (seed, Some(matrix)),
                None => (spec.seed, None),
            };
            super::scan_vectors(
                points,
                query,
                (banding, seed, matrix),
                options(spec, link),
                reporter,
            )
        }
    };
    Ok((choice, outcome))
}

/// The pairs of `strings` within `spec`'s Hamming radius: every pair
/// measured or bit sampling banded, as the cost model prefers, or, with
/// `indexed`, the index's sampled positions over its signatures.
pub fn run_bits(
    spec: &PointSpec,
    strings: &BitStrings,
    link: Option<u32>,
    indexed: Option<IndexedSignatures>,
    reporter: &dyn Reporter,
) -> Result<(Choice, FamilyOutcome), PointRunError> {
    let PointQuery::Hamming { radius } = spec.query else {
        return Err(PointRunError::NotForPoints(spec.query.measure()));
    };
    spec::check_radius(spec.query, strings.bits).map_err(PointRunError::Tune)?;
    let given = given(spec, link);
    let (choice, seed, presigned) = match indexed {
        Some(indexed) => (
            index_choice(indexed.banding),
            indexed.seed,
            Some(indexed.matrix),
        ),
        None => {
            let choice = choose::choose_bits(strings, f64::from(radius), given)
                .map_err(PointRunError::Choose)?;
            (choice, spec.seed, None)
        }
    };
    let outcome = match choice.method {
        choose::Method::Exact => super::exact_bits(strings, radius, link, reporter),
        choose::Method::Lsh { banding, .. } => {
            let sampling = BitSampling::random(strings.bits, banding.signature_len(), seed);
            super::scan_bits(
                strings,
                radius,
                (&sampling, banding, presigned),
                options(spec, link),
                reporter,
            )
        }
    };
    Ok((choice, outcome))
}

/// The choice when an index's signatures are used: LSH with its banding.
fn index_choice(banding: Banding) -> Choice {
    Choice {
        method: choose::Method::Lsh {
            banding,
            width: 0.0,
        },
        exact_cost: 0.0,
        lsh_cost: None,
        lsh: None,
        reason: choose::Reason::IndexSignatures,
    }
}

/// Each point's `k` nearest neighbours among the verified `pairs` (`scan
/// --top K` of points or fingerprints): rows `(rank, pair)` with `pair.a`
/// the item and `pair.b` its neighbour, items in id order, nearest first
/// (the largest similarity, the smallest distance, as `measure` reads its
/// values), ties by the neighbour's id, so the rows do not depend on the
/// threads. Both ends of a pair rank it; [`crate::model::nearest`] is the
/// one ranking, shared with the MinHash scans.
pub fn nearest_points(pairs: &[Found], measure: Measure, k: usize) -> Vec<(u32, Found)> {
    // Distances are ranked as similarities by their negation.
    let closer = if measure.larger_is_more_similar() {
        1.0
    } else {
        -1.0
    };
    let similar = pairs.iter().map(|p| SimilarPair {
        a: p.a,
        b: p.b,
        similarity: closer * p.value,
        estimate: None,
        shared: None,
    });
    crate::model::nearest::nearest(similar, k)
        .into_iter()
        .map(|n| {
            let found = Found {
                a: n.pair.a,
                b: n.pair.b,
                value: closer * n.pair.similarity,
            };
            (n.rank, found)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(a: u32, b: u32, value: f64) -> Found {
        Found { a, b, value }
    }

    #[test]
    fn distances_rank_the_nearest_first_and_similarities_the_most_similar() {
        let pairs = [found(0, 1, 3.0), found(0, 2, 1.0), found(1, 2, 0.0)];
        let by_distance = nearest_points(&pairs, Measure::Hamming, 1);
        assert_eq!(
            by_distance,
            vec![
                (1, found(0, 2, 1.0)),
                (1, found(1, 2, 0.0)),
                (1, found(2, 1, 0.0))
            ]
        );
        let by_similarity = nearest_points(&pairs, Measure::Cosine, 1);
        assert_eq!(
            by_similarity,
            vec![
                (1, found(0, 1, 3.0)),
                (1, found(1, 0, 3.0)),
                (1, found(2, 0, 1.0))
            ]
        );
        // Ties by the neighbour's id; k beyond the neighbours gives them all.
        let tied = [found(0, 2, 1.0), found(0, 1, 1.0)];
        let all = nearest_points(&tied, Measure::L2, 5);
        assert_eq!(
            all,
            vec![
                (1, found(0, 1, 1.0)),
                (2, found(0, 2, 1.0)),
                (1, found(1, 0, 1.0)),
                (1, found(2, 0, 1.0)),
            ]
        );
    }
}
