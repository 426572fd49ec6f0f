//! [`SpecBuilder`]: fields as given, defaults and rules applied by
//! [`SpecBuilder::build`] in one fixed order, so that the first refusal a
//! user sees does not depend on which command or face built the run.

use super::input::InputKind;
use super::{
    DEFAULT_BANDS, DEFAULT_MIN_RECALL, DEFAULT_ROWS, DEFAULT_SEED, Features, MAX_K,
    MAX_SIGNATURE_LEN, Method, Spec, SpecError, ThresholdSource, Verification,
};
use crate::lsh::{Banding, scurve, tune};
use crate::measure::Measure;
use crate::recipe::Recipe;
use crate::similarity::ExactIndex;
use crate::sketch::SketchKind;
use crate::text::Normalization;
use crate::text::{ShingleKind, StopWords};

/// The fields of a run as a caller gives them; unset fields take the
/// adopted recipe's value (an existing index's), else the default.
#[derive(Clone, Debug, Default)]
pub struct SpecBuilder {
    measure: Option<Measure>,
    input: Option<InputKind>,
    shingle_kind: Option<ShingleKind>,
    k: Option<usize>,
    stop_words: Option<Vec<String>>,
    keep_case: bool,
    keep_whitespace: bool,
    drop_whitespace: bool,
    fold_accents: bool,
    fold_punct: bool,
    adopted: Option<Recipe>,
    bands: Option<usize>,
    rows: Option<usize>,
    threshold: Option<f64>,
    min_recall: Option<f64>,
    seed: Option<u64>,
    sketch: Option<SketchKind>,
    include_binary: bool,
    method: Option<Method>,
    verification: Verification,
    exact_index: Option<ExactIndex>,
    stored: bool,
}

impl SpecBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// The measure pairs are found by; Jaccard when unset.
    pub fn measure(mut self, measure: Option<Measure>) -> Self {
        self.measure = measure;
        self
    }

    /// The kind of the inputs, which decides the measures that apply.
    pub fn input(mut self, input: InputKind) -> Self {
        self.input = Some(input);
        self
    }

    pub fn shingle_kind(mut self, kind: Option<ShingleKind>) -> Self {
        self.shingle_kind = kind;
        self
    }

    pub fn k(mut self, k: Option<usize>) -> Self {
        self.k = k;
        self
    }

    /// The stop words, as read by the caller (one word a line of a list, say).
    pub fn stop_words(mut self, words: Option<Vec<String>>) -> Self {
        self.stop_words = words;
        self
    }

    /// Keep letter case (the default lowercases).
    pub fn keep_case(mut self, keep: bool) -> Self {
        self.keep_case = keep;
        self
    }

    /// Keep whitespace runs (the default collapses them).
    pub fn keep_whitespace(mut self, keep: bool) -> Self {
        self.keep_whitespace = keep;
        self
    }

    /// Remove all whitespace (character shingles only).
    pub fn drop_whitespace(mut self, drop: bool) -> Self {
        self.drop_whitespace = drop;
        self
    }

    /// Fold accents (NFKD without combining marks) and punctuation (to a
    /// space) before the other steps.
    pub fn fold(mut self, accents: bool, punct: bool) -> Self {
        self.fold_accents = accents;
        self.fold_punct = punct;
        self
    }

    /// The recipe of an existing index: its values stand for the fields left
    /// unset, and a threshold given alone keeps its banding.
    pub fn adopted(mut self, recipe: Option<Recipe>) -> Self {
        self.adopted = recipe;
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

    pub fn threshold(mut self, threshold: Option<f64>) -> Self {
        self.threshold = threshold;
        self
    }

    /// The recall a pair at the threshold can count on when bands and rows
    /// are tuned; [`DEFAULT_MIN_RECALL`] when unset.
    pub fn min_recall(mut self, min_recall: f64) -> Self {
        self.min_recall = Some(min_recall);
        self
    }

    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    pub fn sketch(mut self, sketch: Option<SketchKind>) -> Self {
        self.sketch = sketch;
        self
    }

    pub fn include_binary(mut self, include: bool) -> Self {
        self.include_binary = include;
        self
    }

    /// [`Method::Auto`], [`Method::Exact`] or [`Method::Lsh`] (auto becomes
    /// [`Method::Banded`] where the rules say so); auto when unset.
    pub fn method(mut self, method: Method) -> Self {
        self.method = Some(method);
        self
    }

    pub fn verification(mut self, verification: Verification) -> Self {
        self.verification = verification;
        self
    }

    pub fn exact_index(mut self, index: Option<ExactIndex>) -> Self {
        self.exact_index = index;
        self
    }

    /// Whether the signatures are kept in a store (an index), which only
    /// the LSH method reads.
    pub fn stored(mut self, stored: bool) -> Self {
        self.stored = stored;
        self
    }

    /// The validated spec, or the first rule the fields break, in this
    /// order: measure and input, features (k, stop words, whitespace),
    /// threshold, the measure's method, recall floor, banding, method.
    pub fn build(mut self) -> Result<Spec, SpecError> {
        let measure = self.measure.unwrap_or(Measure::Jaccard);
        if let Some(input) = self.input {
            super::check_measure(measure, input)?;
            super::check_shingling(input, self.shingle_kind.is_some(), self.k.is_some())?;
        }
        let features = self.features()?;
        if let Some(t) = self.threshold
            && !(t > 0.0 && t <= 1.0)
        {
            return Err(SpecError::Threshold { given: t });
        }
        if measure == Measure::Containment {
            self.containment_method()?;
        }
        let adopted = self.adopted.as_ref();
        let min_recall = self.min_recall.unwrap_or(DEFAULT_MIN_RECALL);
        // A threshold alone: bands and rows are tuned (docs/TUNING.md),
        // unless an adopted index fixes them, its signatures being made
        // with its bands and rows.
        let fallback = adopted.map_or((DEFAULT_BANDS, DEFAULT_ROWS), |r| {
            (r.banding.bands, r.banding.rows)
        });
        let shape = match tune::scan_shape(
            self.bands,
            self.rows,
            self.threshold.filter(|_| adopted.is_none()),
            min_recall,
            fallback,
        ) {
            Ok(shape) => shape,
            // The exact method bands nothing, so a recall floor no banding
            // reaches does not stop it: the shape is then only the
            // signatures' (given, or the defaults), as with no threshold.
            // Containment's LSH tunes per size partition, not here.
            Err(_) if self.method == Some(Method::Exact) || measure == Measure::Containment => {
                tune::scan_shape(self.bands, self.rows, None, min_recall, fallback)
                    .map_err(SpecError::OutOfReach)?
            }
            Err(err) => return Err(SpecError::OutOfReach(err)),
        };
        let banding = banding(shape.bands, shape.rows)?;
        let given_shape = self.bands.is_some() || self.rows.is_some();
        let (threshold, threshold_source) = match self.threshold {
            Some(t) if shape.tuned.is_some() => (t, ThresholdSource::Tuned),
            Some(t) if adopted.is_some() && !given_shape => (t, ThresholdSource::IndexShape),
            Some(t) => (t, ThresholdSource::Given),
            None => (
                scurve::threshold(banding.bands, banding.rows),
                ThresholdSource::SCurve,
            ),
        };
        let method = self.method.unwrap_or_default();
        if method == Method::Exact && self.stored {
            return Err(SpecError::Conflict {
                field: "stored",
                with: "method",
            });
        }
        if self.exact_index.is_some() && method != Method::Exact {
            return Err(SpecError::Conflict {
                field: "exact_index",
                with: "method",
            });
        }
        if method == Method::Exact && self.verification == Verification::Signature {
            return Err(SpecError::Conflict {
                field: "verification",
                with: "method",
            });
        }
        // Auto with a given banding: LSH with it, unless its recall at the
        // threshold is below the floor; then the cost model decides as for
        // plain auto (docs/TUNING.md, "A recall floor").
        let method = match method {
            Method::Auto if given_shape => {
                match tune::recall_below_floor(banding.bands, banding.rows, threshold, min_recall) {
                    Some(_) => Method::Auto,
                    None => Method::Banded,
                }
            }
            other => other,
        };
        Ok(Spec {
            measure,
            features,
            sketch: self
                .sketch
                .or(adopted.map(|r| r.sketch))
                .unwrap_or(SketchKind::Classic),
            banding,
            seed: self
                .seed
                .or(adopted.map(|r| r.seed))
                .unwrap_or(DEFAULT_SEED),
            include_binary: self.include_binary || adopted.is_some_and(|r| r.include_binary),
            threshold,
            threshold_source,
            min_recall,
            method,
            verification: self.verification,
            exact_index: self.exact_index,
        })
    }

    /// Containment's rules: its threshold is given (no banding's S-curve
    /// speaks of containment); pairs are found by the exact join (auto
    /// means exact) or by LSH Ensemble, which chooses a banding per pair of
    /// size partitions (so none is given); neither reads an index's
    /// signatures nor estimates.
    fn containment_method(&mut self) -> Result<(), SpecError> {
        if self.threshold.is_none() {
            return Err(SpecError::Requires {
                field: "measure",
                needs: "threshold",
            });
        }
        let conflict = |with| {
            Err(SpecError::Conflict {
                field: "measure",
                with,
            })
        };
        if self.stored {
            return conflict("stored");
        }
        if self.method == Some(Method::Lsh) && (self.bands.is_some() || self.rows.is_some()) {
            return conflict("bands");
        }
        if self.verification == Verification::Signature {
            return conflict("verification");
        }
        if self.method != Some(Method::Lsh) {
            self.method = Some(Method::Exact);
        }
        Ok(())
    }

    /// Shingle kind and length, stop words and normalisation: given, else
    /// the adopted recipe's, else the defaults.
    fn features(&self) -> Result<Features, SpecError> {
        let adopted = self.adopted.as_ref();
        let kind = self
            .shingle_kind
            .or(adopted.map(|r| r.shingler.kind()))
            .unwrap_or_default();
        let k = self.k.unwrap_or_else(|| match adopted {
            Some(r) if r.shingler.kind() == kind => r.shingler.k(),
            _ => kind.default_k(),
        });
        if k == 0 || k > MAX_K {
            return Err(SpecError::ShingleLength {
                given: k,
                max: MAX_K,
            });
        }
        let reads_stop_words = matches!(kind, ShingleKind::StopWord | ShingleKind::Important);
        let stop_words = match (&self.stop_words, reads_stop_words) {
            (Some(words), true) => {
                let words = StopWords::from_words(words.iter().map(String::as_str));
                if words.is_empty() {
                    return Err(SpecError::StopWordsEmpty);
                }
                words
            }
            (Some(_), false) => return Err(SpecError::StopWordsUnused { kind: kind.name() }),
            (None, true) => match adopted {
                Some(r) if r.shingler.kind() == kind => r.shingler.stop_words().clone(),
                _ => kind.default_stop_words(),
            },
            (None, false) => kind.default_stop_words(),
        };
        if self.drop_whitespace && kind != ShingleKind::Char {
            // Words are what whitespace separates: without it there are none.
            return Err(SpecError::Conflict {
                field: "drop_whitespace",
                with: "shingle_kind",
            });
        }
        let normalization = Normalization {
            lowercase: !self.keep_case && adopted.is_none_or(|r| r.normalization.lowercase),
            collapse_whitespace: !self.keep_whitespace
                && !self.drop_whitespace
                && adopted.is_none_or(|r| r.normalization.collapse_whitespace),
            drop_whitespace: self.drop_whitespace
                || adopted.is_some_and(|r| r.normalization.drop_whitespace),
            fold_accents: self.fold_accents
                || adopted.is_some_and(|r| r.normalization.fold_accents),
            fold_punct: self.fold_punct || adopted.is_some_and(|r| r.normalization.fold_punct),
        };
        Ok(Features {
            normalization,
            shingle_kind: kind,
            k,
            stop_words,
        })
    }
}

/// A b × r shape with b, r ≥ 1 and b·r ≤ [`MAX_SIGNATURE_LEN`].
fn banding(bands: usize, rows: usize) -> Result<Banding, SpecError> {
    let fits = bands
        .checked_mul(rows)
        .is_some_and(|n| n <= MAX_SIGNATURE_LEN);
    if bands == 0 || rows == 0 || !fits {
        return Err(SpecError::Banding {
            bands,
            rows,
            max: MAX_SIGNATURE_LEN,
        });
    }
    Ok(Banding { bands, rows })
}
