//! [`Params`]: how the signatures in an index were made, stored beside them
//! so that an index is never mixed with signatures made another way.

use std::fmt;

use crate::lsh::Banding;
use crate::recipe::{
    MAX_K, MAX_SIGNATURE_LEN, Recipe, UnknownNormalization, UnknownShingleKind, normalization_name,
    parse_normalization,
};
use crate::sketch::{SketchKind, UnknownSketch};
use crate::text::{ShingleKind, Shingler, StopWords};

/// How the signatures in an index were made. Two indexes (or an index and a run)
/// are compatible only if every field is equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Shingle kind, e.g. `char` or `word`.
    pub shingle_kind: String,
    /// Shingle length (characters or words).
    pub k: u32,
    /// Canonical description of the normalisation applied before shingling.
    pub normalisation: String,
    /// Signature length (number of MinHash functions).
    pub n: u32,
    /// Number of LSH bands.
    pub bands: u32,
    /// Rows per band.
    pub rows: u32,
    /// Seed of the MinHash functions.
    pub seed: u64,
    /// MinHash kernel: `classic` or `oph` (the same seed gives different
    /// signatures in each).
    pub minhash: String,
    /// The stop words of stop-word shingles, sorted, one per line (empty for the
    /// other kinds). Stored in full so that the index alone can sign a query.
    pub stop_words: String,
    /// Whether files that look binary were shingled (`true`) or skipped.
    pub include_binary: bool,
    /// How documents' text was had from their files: `none` (the bytes are
    /// the text), or the formats extracted and the extractors' version
    /// (`pdf,docx,…@1`). Set by the engine, which extracts; stores written
    /// before extraction existed read as `none`.
    pub extraction: String,
}

/// Why stored parameters cannot be turned back into a [`Recipe`]: a value
/// this simfind does not understand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamsError {
    ShingleKind(UnknownShingleKind),
    Normalization(UnknownNormalization),
    Sketch(UnknownSketch),
    /// `k`, `bands` or `rows` is zero.
    Zero,
    /// `n` is not `bands × rows`.
    SignatureLength(u32),
    /// The extraction stored is not one this simfind can repeat.
    Extraction(ExtractionError),
    /// `k` or `n` beyond what simfind ever writes ([`MAX_K`],
    /// [`MAX_SIGNATURE_LEN`]): a damaged index, whose recipe would ask for
    /// gigabytes of hash functions.
    TooLarge(&'static str, u32),
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamsError::ShingleKind(err) => err.fmt(f),
            ParamsError::Normalization(err) => err.fmt(f),
            ParamsError::Sketch(err) => err.fmt(f),
            ParamsError::Zero => f.write_str("k, bands and rows must be at least 1"),
            ParamsError::SignatureLength(n) => write!(f, "n = {n} is not bands × rows"),
            ParamsError::Extraction(reason) => write!(f, "extraction: {reason}"),
            ParamsError::TooLarge(name, v) => write!(
                f,
                "{name} = {v} is larger than simfind allows (k ≤ {MAX_K}, n ≤ {MAX_SIGNATURE_LEN})"
            ),
        }
    }
}

impl std::error::Error for ParamsError {}

/// Why a stored extraction ([`Params::extraction`]) cannot be repeated by
/// this simfind: the text it made could not be made again here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtractionError {
    /// Not a name any simfind writes (the name).
    Unknown(String),
    /// Made by extractors of another version than this build's.
    Version { stored: String, ours: u32 },
    /// Names formats this build does not extract (the list's own reason).
    Formats(String),
    /// Its texts were made by the user's command, which is run again only
    /// when the user gives the same one: a command read from a file is
    /// never run on the file's word alone.
    TransformNotGiven { command: String, globs: Vec<String> },
}

impl fmt::Display for ExtractionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtractionError::Unknown(name) => {
                write!(f, "{name:?} is not an extraction this simfind knows")
            }
            ExtractionError::Version { stored, ours } => write!(
                f,
                "made by extractors of version {stored}; this simfind has version {ours}"
            ),
            ExtractionError::Formats(reason) => f.write_str(reason),
            ExtractionError::TransformNotGiven { command, globs } => {
                write!(f, "its texts were made by the command {command:?}")?;
                if globs.is_empty() {
                    write!(f, ": give the same {{transform}} to run it again")
                } else {
                    write!(
                        f,
                        " for the files matching {}: give the same {{transform}} and \
                         {{transform_globs}} to run it again",
                        globs.join(", ")
                    )
                }
            }
        }
    }
}

impl std::error::Error for ExtractionError {}

impl Params {
    /// The parameters that make signatures comparable with `recipe`'s.
    pub fn of(recipe: &Recipe) -> Params {
        let kind = recipe.shingler.kind();
        Params {
            shingle_kind: kind.name().to_string(),
            k: recipe.shingler.k() as u32,
            normalisation: normalization_name(recipe.normalization),
            n: recipe.banding.signature_len() as u32,
            bands: recipe.banding.bands as u32,
            rows: recipe.banding.rows as u32,
            seed: recipe.seed,
            minhash: recipe.sketch.name().to_string(),
            stop_words: match kind {
                ShingleKind::StopWord | ShingleKind::Important => {
                    recipe.shingler.stop_words().sorted().join("\n")
                }
                _ => String::new(),
            },
            include_binary: recipe.include_binary,
            extraction: "none".to_string(),
        }
    }

    /// These parameters, with documents' text had as `extraction` says
    /// ([`Params::extraction`]).
    pub fn with_extraction(mut self, extraction: impl Into<String>) -> Params {
        self.extraction = extraction.into();
        self
    }

    /// The recipe these parameters describe; an error names the value this
    /// simfind does not understand.
    pub fn recipe(&self) -> Result<Recipe, ParamsError> {
        let kind: ShingleKind = self
            .shingle_kind
            .parse()
            .map_err(ParamsError::ShingleKind)?;
        let normalization =
            parse_normalization(&self.normalisation).map_err(ParamsError::Normalization)?;
        if self.k == 0 || self.bands == 0 || self.rows == 0 {
            return Err(ParamsError::Zero);
        }
        let banding = Banding {
            bands: self.bands as usize,
            rows: self.rows as usize,
        };
        if banding.signature_len() != self.n as usize {
            return Err(ParamsError::SignatureLength(self.n));
        }
        if self.k as usize > MAX_K {
            return Err(ParamsError::TooLarge("k", self.k));
        }
        if self.n as usize > MAX_SIGNATURE_LEN {
            return Err(ParamsError::TooLarge("n", self.n));
        }
        let sketch: SketchKind = self.minhash.parse().map_err(ParamsError::Sketch)?;
        let stop_words = StopWords::from_words(self.stop_words.lines());
        Ok(Recipe {
            normalization,
            shingler: Shingler::new(kind, self.k as usize, stop_words),
            sketch,
            seed: self.seed,
            banding,
            include_binary: self.include_binary,
        })
    }

    /// `(name, value)` pairs as stored in the `params` table, in a fixed order.
    pub fn to_rows(&self) -> Vec<(&'static str, String)> {
        vec![
            ("shingle_kind", self.shingle_kind.clone()),
            ("k", self.k.to_string()),
            ("normalisation", self.normalisation.clone()),
            ("n", self.n.to_string()),
            ("bands", self.bands.to_string()),
            ("rows", self.rows.to_string()),
            ("seed", self.seed.to_string()),
            ("minhash", self.minhash.clone()),
            ("stop_words", self.stop_words.clone()),
            (
                "binary_files",
                if self.include_binary {
                    "include"
                } else {
                    "skip"
                }
                .to_string(),
            ),
            ("extraction", self.extraction.clone()),
        ]
    }

    /// Names and (stored, requested) values of the fields that differ.
    pub fn differences(&self, other: &Params) -> Vec<(&'static str, String, String)> {
        self.to_rows()
            .into_iter()
            .zip(other.to_rows())
            .filter(|((_, a), (_, b))| a != b)
            .map(|((name, a), (_, b))| (name, a, b))
            .collect()
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows = self.to_rows();
        for (i, (name, value)) in rows.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if *name == "stop_words" {
                write!(f, "{name}=({} words)", value.lines().count())?;
            } else {
                write!(f, "{name}={value}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::MinHasher;
    use crate::text::{Normalization, normalize_into};

    fn recipe(kind: ShingleKind, stop_words: StopWords, norm: Normalization) -> Recipe {
        Recipe {
            include_binary: true,
            normalization: norm,
            shingler: Shingler::new(kind, 4, stop_words),
            banding: Banding { bands: 7, rows: 3 },
            seed: 99,
            sketch: SketchKind::Classic,
        }
    }

    #[test]
    fn a_recipe_from_stored_params_signs_like_the_recipe_that_made_them() {
        let text = b"The  Cat sat on THE mat, and the dog sat on a log by the cat.";
        for (kind, words) in [
            (ShingleKind::Char, StopWords::default()),
            (ShingleKind::Word, StopWords::default()),
            (
                ShingleKind::StopWord,
                StopWords::from_words(["the", "on", "a"]),
            ),
        ] {
            for norm in [
                Normalization::default(),
                Normalization {
                    lowercase: false,
                    collapse_whitespace: false,
                    drop_whitespace: false,
                    fold_accents: false,
                    fold_punct: false,
                },
            ] {
                let original = recipe(kind, words.clone(), norm);
                let params = Params::of(&original);
                assert_eq!(params.n, 21);
                let rebuilt = params.recipe().unwrap();
                assert_eq!(Params::of(&rebuilt), params);
                let mut expected_text = String::new();
                normalize_into(text, norm, &mut expected_text);
                let expected = original.shingler.shingle_set(&expected_text);
                let set = rebuilt.set_of(text);
                assert_eq!(set, expected);
                let (signature, keys) = rebuilt.sign(&set);
                assert_eq!(signature, MinHasher::new(21, 99).sign(&expected));
                assert_eq!(
                    keys,
                    crate::lsh::band_keys(&signature, original.banding).collect::<Vec<_>>()
                );
                assert!(rebuilt.include_binary);
            }
        }
    }

    #[test]
    fn unknown_stored_values_are_refused() {
        let good = Params::of(&recipe(
            ShingleKind::Char,
            StopWords::default(),
            Normalization::default(),
        ));
        for (bad, message) in [
            (
                Params {
                    shingle_kind: "syllable".into(),
                    ..good.clone()
                },
                "unknown shingle kind \"syllable\"",
            ),
            (
                Params {
                    normalisation: "ascii".into(),
                    ..good.clone()
                },
                "unknown normalisation \"ascii\"",
            ),
            (
                Params {
                    normalisation: "utf8-lossy,stemming".into(),
                    ..good.clone()
                },
                "unknown normalisation step \"stemming\"",
            ),
            (
                Params {
                    n: 20,
                    ..good.clone()
                },
                "n = 20 is not bands × rows",
            ),
            (
                Params {
                    k: 0,
                    ..good.clone()
                },
                "k, bands and rows must be at least 1",
            ),
            (
                Params {
                    minhash: "bottom-k".into(),
                    ..good.clone()
                },
                "unknown MinHash kind \"bottom-k\"",
            ),
        ] {
            assert_eq!(bad.recipe().unwrap_err().to_string(), message, "{bad}");
        }
    }

    /// Found by the `index` fuzz target: a damaged index whose `n` (with
    /// `bands × rows` to match) or `k` is huge gave a recipe whose sketcher
    /// asked for gigabytes of hash functions (an abort or an out-of-memory
    /// exit blaming the options) instead of a "damaged index" error.
    #[test]
    fn stored_values_beyond_the_limits_are_refused() {
        let good = Params::of(&recipe(
            ShingleKind::Char,
            StopWords::default(),
            Normalization::default(),
        ));
        let too_long = Params {
            bands: 1,
            rows: 2_000_000_000,
            n: 2_000_000_000,
            ..good.clone()
        };
        assert_eq!(
            too_long.recipe().unwrap_err(),
            ParamsError::TooLarge("n", 2_000_000_000)
        );
        let too_wide = Params {
            k: 1 << 30,
            ..good.clone()
        };
        assert_eq!(
            too_wide.recipe().unwrap_err(),
            ParamsError::TooLarge("k", 1 << 30)
        );
        let at_the_limits = Params {
            k: MAX_K as u32,
            bands: 1,
            rows: MAX_SIGNATURE_LEN as u32,
            n: MAX_SIGNATURE_LEN as u32,
            ..good
        };
        assert!(at_the_limits.recipe().is_ok());
    }
}
