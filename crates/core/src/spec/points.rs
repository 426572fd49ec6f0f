//! The validated description of a run over points: vectors compared by
//! cosine or L2 distance, bit strings by Hamming distance, and documents'
//! SimHash fingerprints by Hamming distance. Built by [`PointSpecBuilder`],
//! which holds every rule and default of these families in one place (the
//! MinHash runs' are [`super::SpecBuilder`]'s), so that a scan, a `sign`
//! for the exchange and any other face refuse the same fields the same way.
//!
//! What needs the points themselves stays with the engine: a Hamming radius
//! must be below the strings' width, and a banding is tuned to the points'
//! dimension ([`tuned_banding`]) once they are read.

use super::input::InputKind;
use super::{DEFAULT_BANDS, DEFAULT_MIN_RECALL, DEFAULT_ROWS, DEFAULT_SEED, Method, SpecError};
use super::{Verification, error::PointRule};
use crate::lsh::Banding;
use crate::lsh::family::{self, Metric};
use crate::measure::Measure;

/// Values per point a tuned family may use when no banding is given: more
/// than MinHash's default, because a vector's value is one bit (hyperplanes)
/// or one of few buckets, and signing costs `d` multiplications a value, not
/// one hash.
pub const FAMILY_HASHES: usize = 200;

/// SimHash's default radius in bits (text-dedup's and gaoya's).
pub const SIMHASH_RADIUS: u32 = 3;

/// Which pairs of points a run reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PointQuery {
    /// Vectors with cosine similarity ≥ `min_cosine` (random hyperplanes).
    Cosine { min_cosine: f64 },
    /// Vectors at L2 distance ≤ `radius`, hashed into buckets of `width`
    /// (p-stable projections); `width_given`: the width was asked for, else
    /// it is `2 × radius` and the engine may choose another by predicted work.
    Euclidean {
        radius: f64,
        width: f64,
        width_given: bool,
    },
    /// Bit strings within `radius` bits (bit sampling).
    Hamming { radius: u32 },
    /// Documents whose 64-bit SimHash fingerprints are within `radius` bits
    /// (banded into `radius + 1` bands by the pigeonhole rule).
    SimHash { radius: u32 },
}

impl PointQuery {
    /// The measure of the pairs reported.
    pub fn measure(self) -> Measure {
        match self {
            PointQuery::Cosine { .. } => Measure::Cosine,
            PointQuery::Euclidean { .. } => Measure::L2,
            PointQuery::Hamming { .. } | PointQuery::SimHash { .. } => Measure::Hamming,
        }
    }
}

/// How SimHash weighs a document's shingles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SimHashWeights {
    /// Each distinct shingle once.
    #[default]
    Set,
    /// By occurrences.
    Counts,
}

/// A validated run over points; see the module's documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointSpec {
    pub query: PointQuery,
    /// Bands and rows as given (one alone takes the other's default);
    /// `None`: tuned to the points (or SimHash's pigeonhole bands).
    pub banding: Option<Banding>,
    pub seed: u64,
    /// [`Method::Auto`], [`Method::Exact`] or [`Method::Lsh`].
    pub method: Method,
    pub verification: Verification,
    pub min_recall: f64,
    pub simhash_weights: SimHashWeights,
}

/// The fields of a run over points as a caller gives them.
#[derive(Clone, Debug, Default)]
pub struct PointSpecBuilder {
    input: Option<InputKind>,
    measure: Option<Measure>,
    simhash: bool,
    simhash_weights: Option<SimHashWeights>,
    threshold: Option<f64>,
    angle: Option<f64>,
    radius: Option<f64>,
    bucket_width: Option<f64>,
    bands: Option<usize>,
    rows: Option<usize>,
    seed: Option<u64>,
    method: Method,
    verification: Verification,
    min_recall: Option<f64>,
}

impl PointSpecBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// The kind of the inputs: vectors, bits, or files (for SimHash).
    pub fn input(mut self, input: InputKind) -> Self {
        self.input = Some(input);
        self
    }

    /// The measure asked for; the input's own when unset (cosine for
    /// vectors, Hamming for bit strings and fingerprints).
    pub fn measure(mut self, measure: Option<Measure>) -> Self {
        self.measure = measure;
        self
    }

    /// Documents are signed by SimHash fingerprints.
    pub fn simhash(mut self, simhash: bool) -> Self {
        self.simhash = simhash;
        self
    }

    /// How SimHash weighs shingles; only with [`Self::simhash`].
    pub fn simhash_weights(mut self, weights: Option<SimHashWeights>) -> Self {
        self.simhash_weights = weights;
        self
    }

    /// Cosine's floor, in [-1, 1].
    pub fn threshold(mut self, threshold: Option<f64>) -> Self {
        self.threshold = threshold;
        self
    }

    /// Cosine's floor as the largest angle, in degrees.
    pub fn angle(mut self, angle: Option<f64>) -> Self {
        self.angle = angle;
        self
    }

    /// L2's or Hamming's (bits) largest distance.
    pub fn radius(mut self, radius: Option<f64>) -> Self {
        self.radius = radius;
        self
    }

    /// L2's bucket width.
    pub fn bucket_width(mut self, width: Option<f64>) -> Self {
        self.bucket_width = width;
        self
    }

    pub fn bands(mut self, bands: Option<usize>) -> Self {
        self.bands = bands;
        self
    }

    pub fn rows(mut self, rows: Option<usize>) -> Self {
        self.rows = rows;
        self
    }

    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// Auto, exact or LSH.
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    pub fn verification(mut self, verification: Verification) -> Self {
        self.verification = verification;
        self
    }

    pub fn min_recall(mut self, min_recall: f64) -> Self {
        self.min_recall = Some(min_recall);
        self
    }

    /// The rules, in the order a user meets them: the weights' sketch, the
    /// family's inputs and measure, its query's values, the verification,
    /// the banding.
    pub fn build(self) -> Result<PointSpec, SpecError> {
        let input = self.input.unwrap_or(InputKind::Files);
        if self.simhash_weights.is_some() && !self.simhash {
            return Err(SpecError::Requires {
                field: "simhash_weights",
                needs: "simhash",
            });
        }
        let banding = match (self.bands, self.rows) {
            (None, None) => None,
            (b, r) => Some(Banding {
                bands: b.unwrap_or(DEFAULT_BANDS),
                rows: r.unwrap_or(DEFAULT_ROWS),
            }),
        };
        let query = if self.simhash {
            self.simhash_query(input, banding)?
        } else {
            match input {
                InputKind::Vectors => self.vector_query()?,
                InputKind::Bits => PointQuery::Hamming {
                    radius: self.hamming_radius()?,
                },
                other => {
                    return Err(SpecError::MeasureOfOtherInput {
                        measure: self.measure.unwrap_or(Measure::Jaccard),
                        input: other,
                    });
                }
            }
        };
        if self.verification == Verification::Signature
            && matches!(query, PointQuery::Euclidean { .. })
        {
            return Err(SpecError::Conflict {
                field: "verification",
                with: "measure",
            });
        }
        if let Some(b) = banding
            && (b.bands == 0 || b.rows == 0)
        {
            return Err(SpecError::Banding {
                bands: b.bands,
                rows: b.rows,
                max: usize::MAX,
            });
        }
        Ok(PointSpec {
            query,
            banding,
            seed: self.seed.unwrap_or(DEFAULT_SEED),
            method: self.method,
            verification: self.verification,
            min_recall: self.min_recall.unwrap_or(DEFAULT_MIN_RECALL),
            simhash_weights: self.simhash_weights.unwrap_or_default(),
        })
    }

    fn simhash_query(
        &self,
        input: InputKind,
        banding: Option<Banding>,
    ) -> Result<PointQuery, SpecError> {
        if input != InputKind::Files {
            return Err(SpecError::NotForInput {
                field: "simhash",
                input,
            });
        }
        if !matches!(self.measure, None | Some(Measure::Hamming)) {
            return Err(SpecError::Conflict {
                field: "simhash",
                with: "measure",
            });
        }
        if banding.is_some() {
            return Err(SpecError::Conflict {
                field: "simhash",
                with: "bands",
            });
        }
        let radius = match self.radius {
            None => SIMHASH_RADIUS,
            Some(r) if (0.0..64.0).contains(&r) && r.fract() == 0.0 => r as u32,
            Some(r) => return Err(point_value("radius", r, PointRule::SimHashBits)),
        };
        Ok(PointQuery::SimHash { radius })
    }

    fn vector_query(&self) -> Result<PointQuery, SpecError> {
        match self.measure.unwrap_or(Measure::Cosine) {
            Measure::Cosine => {
                if self.radius.is_some() || self.bucket_width.is_some() {
                    return Err(SpecError::Conflict {
                        field: "radius",
                        with: "measure",
                    });
                }
                let min_cosine = match (self.threshold, self.angle) {
                    (Some(t), None) if (-1.0..=1.0).contains(&t) => t,
                    (Some(t), None) => {
                        return Err(point_value("threshold", t, PointRule::Cosine));
                    }
                    (None, Some(deg)) if (0.0..=180.0).contains(&deg) => deg.to_radians().cos(),
                    (None, Some(deg)) => return Err(point_value("angle", deg, PointRule::Angle)),
                    _ => {
                        return Err(SpecError::QueryMissing {
                            measure: Measure::Cosine,
                        });
                    }
                };
                Ok(PointQuery::Cosine { min_cosine })
            }
            Measure::L2 => {
                if self.threshold.is_some() || self.angle.is_some() {
                    return Err(SpecError::Conflict {
                        field: "threshold",
                        with: "measure",
                    });
                }
                let radius = match self.radius {
                    Some(r) if r > 0.0 && r.is_finite() => r,
                    Some(r) => return Err(point_value("radius", r, PointRule::Distance)),
                    None => {
                        return Err(SpecError::QueryMissing {
                            measure: Measure::L2,
                        });
                    }
                };
                let width = match self.bucket_width {
                    None => 2.0 * radius,
                    Some(a) if a > 0.0 && a.is_finite() => a,
                    Some(a) => return Err(point_value("bucket_width", a, PointRule::Width)),
                };
                Ok(PointQuery::Euclidean {
                    radius,
                    width,
                    width_given: self.bucket_width.is_some(),
                })
            }
            measure => Err(SpecError::MeasureOfOtherInput {
                measure,
                input: InputKind::Vectors,
            }),
        }
    }

    fn hamming_radius(&self) -> Result<u32, SpecError> {
        if !matches!(self.measure, None | Some(Measure::Hamming)) {
            return Err(SpecError::MeasureOfOtherInput {
                measure: self.measure.unwrap_or(Measure::Hamming),
                input: InputKind::Bits,
            });
        }
        match self.radius {
            Some(r) if r >= 0.0 && r.fract() == 0.0 && r < f64::from(u32::MAX) => Ok(r as u32),
            Some(r) => Err(point_value("radius", r, PointRule::WholeBits)),
            None => Err(SpecError::QueryMissing {
                measure: Measure::Hamming,
            }),
        }
    }
}

fn point_value(field: &'static str, given: f64, rule: PointRule) -> SpecError {
    SpecError::PointValue { field, given, rule }
}

/// Why a banding cannot be tuned for points.
#[derive(Clone, Debug, PartialEq)]
pub enum TuneError {
    /// A Hamming radius not below the strings' width: every pair would be
    /// within it.
    RadiusNotBelowWidth { radius: u32, bits: usize },
    /// No banding within [`FAMILY_HASHES`] values reaches the recall floor.
    Unreachable {
        min_recall: f64,
        hashes: usize,
        why: String,
    },
}

impl std::fmt::Display for TuneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TuneError::RadiusNotBelowWidth { radius, bits } => write!(
                f,
                "radius {radius} is not below the strings' {bits} bits: every pair would be \
                 within it"
            ),
            TuneError::Unreachable {
                min_recall,
                hashes,
                why,
            } => write!(
                f,
                "no b·r ≤ {hashes} finds pairs at the threshold with probability ≥ \
                 {min_recall} ({why})"
            ),
        }
    }
}

impl std::error::Error for TuneError {}

/// Whether a Hamming radius can be asked of strings of `bits` bits.
pub fn check_radius(query: PointQuery, bits: usize) -> Result<(), TuneError> {
    match query {
        PointQuery::Hamming { radius } if radius as usize >= bits => {
            Err(TuneError::RadiusNotBelowWidth { radius, bits })
        }
        _ => Ok(()),
    }
}

/// The banding of `spec` over points of `width` components (bits): the one
/// given, or the cheapest one finding pairs at the query's distance with
/// probability ≥ the recall floor within [`FAMILY_HASHES`] values.
pub fn tuned_banding(spec: &PointSpec, width: usize) -> Result<Banding, TuneError> {
    check_radius(spec.query, width)?;
    if let Some(b) = spec.banding {
        return Ok(b);
    }
    let (metric, distance) = match spec.query {
        PointQuery::Cosine { min_cosine } => {
            (Metric::Cosine, Measure::Cosine.to_distance(min_cosine))
        }
        PointQuery::Euclidean { radius, width, .. } => (Metric::Euclidean, radius / width),
        PointQuery::Hamming { radius } | PointQuery::SimHash { radius } => {
            (Metric::Hamming { bits: width }, f64::from(radius))
        }
    };
    let t = family::tune(metric, distance, FAMILY_HASHES, spec.min_recall).map_err(|e| {
        TuneError::Unreachable {
            min_recall: spec.min_recall,
            hashes: FAMILY_HASHES,
            why: e.to_string(),
        }
    })?;
    Ok(Banding {
        bands: t.bands,
        rows: t.rows,
    })
}

#[cfg(test)]
mod tests;
