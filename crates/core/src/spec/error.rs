//! Why a [`super::SpecBuilder`] refuses to build: one variant per rule, each
//! naming the *field* it is about. Faces map fields to their own words (the
//! CLI to flag names, in `src/app/flags/lower.rs`); the `Display` here is for
//! callers without flags, such as Python.

use std::fmt;

use crate::lsh::tune::OutOfReach;

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
        }
    }
}

impl std::error::Error for SpecError {}
