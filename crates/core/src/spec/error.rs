//! Why a [`super::SpecBuilder`] refuses to build: one variant per rule, each
//! naming the *field* it is about. Faces map fields to their own words (the
//! CLI to flag names, in `src/app/flags/lower.rs`); the `Display` here is for
//! callers without flags, such as Python.

use std::fmt;

use super::input::InputKind;
use crate::lsh::tune::OutOfReach;
use crate::measure::Measure;

/// A rule of [`super::SpecBuilder::build`] that the given fields break.
#[derive(Clone, Debug, PartialEq)]
pub enum SpecError {
    /// `important_words` compares sets of single words: another shingle kind
    /// or a length other than 1 was given.
    ImportantWordsShingles,
    /// `k` outside `1..=max`.
    ShingleLength { given: usize, max: usize },
    /// A stop-word list given for a shingle kind that reads none.
    StopWordsUnused { kind: &'static str },
    /// The stop-word list given holds no word.
    StopWordsEmpty,
    /// The threshold is not in (0, 1].
    Threshold { given: f64 },
    /// A recall floor that no banding within the signature length reaches.
    OutOfReach(OutOfReach),
    /// Bands or rows of 0, or a signature longer than `max`.
    Banding {
        bands: usize,
        rows: usize,
        max: usize,
    },
    /// `field` does not combine with `with` as given.
    Conflict {
        field: &'static str,
        with: &'static str,
    },
    /// A measure the inputs of this kind have no values of (containment of
    /// vectors or bit strings).
    MeasureNotForInput { measure: Measure, input: InputKind },
    /// A record field given for an input kind that has no such field.
    NotForInput {
        field: &'static str,
        input: InputKind,
    },
    /// `field` is given without `needs`, which it qualifies.
    Requires {
        field: &'static str,
        needs: &'static str,
    },
    /// Every field weight is 0.
    WeightsAllZero,
    /// Linking pairs the records of exactly two inputs.
    LinkInputs { given: usize },
    /// Standard input named as more than one input.
    StdinTwice,
    /// A weight count other than the inputs' field count.
    WeightsCount { weights: usize, fields: Vec<String> },
    /// `field` names `name`, which the inputs do not have.
    UnknownField {
        field: &'static str,
        name: String,
        fields: Vec<String>,
    },
    /// `important_words` ranks the words of whole texts: files, or records
    /// of JSON Lines, CSV or TSV without per-field scores.
    ImportantWordsInput,
    /// A value of a point family's query outside what `rule` allows.
    PointValue {
        field: &'static str,
        given: f64,
        rule: PointRule,
    },
    /// A point family's query without the value it is defined by: cosine's
    /// threshold or angle, L2's or Hamming's radius.
    QueryMissing { measure: Measure },
    /// A measure that inputs of this kind are not compared by (Jaccard of
    /// vectors, cosine of bit strings, any point measure of records).
    MeasureOfOtherInput { measure: Measure, input: InputKind },
}

/// What a value of a point family's query must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointRule {
    /// A cosine similarity, in [-1, 1].
    Cosine,
    /// An angle, in [0, 180] degrees.
    Angle,
    /// A distance > 0.
    Distance,
    /// A bucket width > 0.
    Width,
    /// A whole number of bits ≥ 0.
    WholeBits,
    /// A whole number of bits below SimHash's 64.
    SimHashBits,
}

impl fmt::Display for PointRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PointRule::Cosine => "a cosine similarity is in [-1, 1]",
            PointRule::Angle => "an angle is in [0, 180] degrees",
            PointRule::Distance => "a distance > 0",
            PointRule::Width => "a width > 0",
            PointRule::WholeBits => "a Hamming radius is a whole number of bits ≥ 0",
            PointRule::SimHashBits => {
                "SimHash fingerprints have 64 bits; give a whole number of bits from 0 to 63"
            }
        })
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::ImportantWordsShingles => f.write_str(
                "important_words compares sets of single words: leave shingle_kind and k unset \
                 (or word and 1)",
            ),
            SpecError::ShingleLength { given, max } => {
                write!(f, "k must be in 1..={max}, got {given}")
            }
            SpecError::StopWordsUnused { kind } => write!(
                f,
                "stop_words apply only to stopword or important shingles, not {kind}"
            ),
            SpecError::StopWordsEmpty => f.write_str("stop_words holds no word"),
            SpecError::Threshold { given } => {
                write!(f, "threshold must be in (0, 1], got {given}")
            }
            SpecError::OutOfReach(e) => e.fmt(f),
            SpecError::Banding { bands, rows, max } => write!(
                f,
                "bands and rows must be at least 1 and bands × rows at most {max}, got \
                 {bands} × {rows}"
            ),
            SpecError::Conflict { field, with } => {
                write!(f, "{field} does not combine with {with} as given")
            }
            SpecError::MeasureNotForInput { measure, input } => write!(
                f,
                "{measure} compares sets of shingles or tokens: it does not apply to {input} inputs"
            ),
            SpecError::NotForInput { field, input } => {
                write!(f, "{field} does not apply to {input} inputs")
            }
            SpecError::Requires { field, needs } => write!(f, "{field} applies only with {needs}"),
            SpecError::WeightsAllZero => f.write_str("weights are all 0: one field must count"),
            SpecError::LinkInputs { given } => {
                write!(f, "link pairs the records of two inputs, got {given}")
            }
            SpecError::StdinTwice => f.write_str("standard input can be one input only"),
            SpecError::WeightsCount { weights, fields } => write!(
                f,
                "{weights} weights for {} fields ({})",
                fields.len(),
                fields.join(",")
            ),
            SpecError::UnknownField {
                field,
                name,
                fields,
            } => write!(
                f,
                "{field} names '{name}', which is not a field ({})",
                fields.join(",")
            ),
            SpecError::ImportantWordsInput => f.write_str(
                "important_words ranks the words of whole texts: files, or jsonl, csv or tsv \
                 records without per_field",
            ),
            SpecError::PointValue { field, given, rule } => write!(f, "{field} {given}: {rule}"),
            SpecError::QueryMissing { measure } => match measure {
                Measure::Cosine => f.write_str("cosine needs a threshold or an angle"),
                other => write!(f, "{other} needs a radius"),
            },
            SpecError::MeasureOfOtherInput { measure, input } => {
                write!(f, "{input} inputs are not compared by {measure}")
            }
        }
    }
}

impl std::error::Error for SpecError {}
