//! The validated description of a run: what a document's features are, how
//! they are signed and banded, the threshold and where it came from, and how
//! pairs are found and confirmed. Built by [`SpecBuilder`], which holds every
//! rule and default in one place, so that each face (the CLI, Python) means
//! the same thing by the same fields; refusals are [`SpecError`]s that name
//! fields, never a face's option names.
//!
//! A `Spec` is plain data. What needs the file system (roots, globs, list
//! files, reading a stop-word file, an existing index) stays with the engine
//! and the faces: the builder takes their *results* (the words read, the
//! index's [`Recipe`]) as data.
//!
//! Not here yet: the one stored form of a Spec (`codec.rs`), which is to
//! replace the parameter names of `params.rs` and `recipe.rs` (the index's
//! stored recipe) and the exchange's Parquet metadata keys.

mod builder;
mod error;
pub(crate) mod input;
mod points;
mod records;
pub(crate) mod setting;

pub use builder::SpecBuilder;
pub use error::{PointRule, SpecError};
pub use points::{
    FAMILY_HASHES, PointQuery, PointSpec, PointSpecBuilder, SIMHASH_RADIUS, SimHashWeights,
    TuneError, check_radius, tuned_banding,
};
pub use records::{Beside, RecordFields, important_words_shingles, important_words_with};

use crate::lsh::Banding;
use crate::measure::Measure;
use crate::recipe::Recipe;
use crate::similarity::ExactIndex;
use crate::sketch::SketchKind;
use crate::text::Normalization;
use crate::text::{ShingleKind, Shingler, StopWords};

/// The seed of the sketch's hash functions when none is given.
pub const DEFAULT_SEED: u64 = 42;
pub use crate::lsh::tune::{DEFAULT_BANDS, DEFAULT_MIN_RECALL, DEFAULT_ROWS};
pub use crate::recipe::{MAX_K, MAX_SIGNATURE_LEN};

/// How a document becomes a set: normalisation, then shingles.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    pub normalization: Normalization,
    pub shingle_kind: ShingleKind,
    /// 1 ≤ k ≤ [`MAX_K`].
    pub k: usize,
    /// The kind's default list unless one was given (or adopted).
    pub stop_words: StopWords,
}

impl Features {
    /// The shingler of these features.
    pub fn shingler(&self) -> Shingler {
        Shingler::new(self.shingle_kind, self.k, self.stop_words.clone())
    }
}

/// Where the threshold came from, for a run's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThresholdSource {
    Given,
    /// The S-curve's threshold of the banding.
    SCurve,
    /// Given alone; bands and rows were chosen by tuning.
    Tuned,
    /// Given alone with an adopted index: bands and rows are the index's
    /// (its signatures were made with them), not tuning's.
    IndexShape,
    /// Not given to a top-K scan (`scan --top K`): a floor under the
    /// neighbours, the similarity below which the banding makes a pair a
    /// candidate only by chance.
    TopFloor,
    /// Not given to a scan scored by a model whose threshold is a match
    /// probability: the model's default.
    Model,
}

/// The chance of becoming a candidate at a top-K scan's default floor.
pub const TOP_FLOOR_CHANCE: f64 = 0.05;

/// A top-K scan's floor when no threshold is given
/// ([`ThresholdSource::TopFloor`]): the similarity where `bands` × `rows`
/// makes a pair a candidate with probability [`TOP_FLOOR_CHANCE`], rounded
/// down to hundredths. Below it a neighbour would be found by chance, and
/// verifying what LSH offers there costs without ranking anything reliably.
pub fn top_floor(bands: usize, rows: usize) -> f64 {
    let floor = crate::lsh::scurve::similarity_at(TOP_FLOOR_CHANCE, bands, rows);
    ((floor * 100.0).floor() / 100.0).max(0.01)
}

/// How pairs are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// The cost model decides.
    #[default]
    Auto,
    /// Auto with a given banding that meets the recall floor: LSH with it.
    Banded,
    /// The exact set-similarity join.
    Exact,
    /// Signatures, banding, verification.
    Lsh,
}

/// How candidates are confirmed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Verification {
    /// Exact Jaccard similarity of the sets.
    #[default]
    Exact,
    /// The share of agreeing signature values (LSH only).
    Signature,
}

/// A validated run description; see the module's documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// What pairs are measured by: Jaccard unless set; containment only for
    /// sets and the exact method.
    pub measure: Measure,
    pub features: Features,
    pub sketch: SketchKind,
    pub banding: Banding,
    pub seed: u64,
    /// Also shingle documents that look binary.
    pub include_binary: bool,
    /// In (0, 1].
    pub threshold: f64,
    pub threshold_source: ThresholdSource,
    pub min_recall: f64,
    pub method: Method,
    pub verification: Verification,
    /// The exact join's index; `None`: the default, unnamed in summaries.
    pub exact_index: Option<ExactIndex>,
}

/// Whether `measure` has values for inputs of `kind`: containment compares
/// sets (of shingles, or of tokens), so vectors and bit strings have none.
/// [`SpecBuilder::build`] holds a run to it; a face comparing two items
/// (`compare`, `explain`) asks it directly.
pub fn check_measure(measure: Measure, kind: input::InputKind) -> Result<(), SpecError> {
    if measure == Measure::Containment && kind.is_vectors() {
        return Err(SpecError::MeasureNotForInput {
            measure,
            input: kind,
        });
    }
    Ok(())
}

/// Whether shingling may be asked of inputs of `kind`: the tokens of sets
/// are compared whole, so a shingle kind or length given for them is
/// refused (`shingle_kind` named first). [`SpecBuilder::build`] holds a run
/// to it; a face that reads sets before it builds a Spec asks it directly.
pub fn check_shingling(
    kind: input::InputKind,
    shingle_kind_given: bool,
    k_given: bool,
) -> Result<(), SpecError> {
    if kind == input::InputKind::Sets && (shingle_kind_given || k_given) {
        return Err(SpecError::NotForInput {
            field: if shingle_kind_given {
                "shingle_kind"
            } else {
                "k"
            },
            input: kind,
        });
    }
    Ok(())
}

impl Spec {
    /// The signing recipe of this run.
    pub fn recipe(&self) -> Recipe {
        Recipe {
            normalization: self.features.normalization,
            shingler: self.features.shingler(),
            sketch: self.sketch,
            seed: self.seed,
            banding: self.banding,
            include_binary: self.include_binary,
        }
    }
}

#[cfg(test)]
mod tests;

pub use input::{InputKind, UnknownInputKind};
pub use setting::{plain, spelled};
