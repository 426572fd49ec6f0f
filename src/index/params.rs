//! [`Params`]: how the signatures in an index were made, stored beside them
//! so that an index is never mixed with signatures made another way.

use std::fmt;

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
}

impl Params {
    /// `(name, value)` pairs as stored in the `params` table, in a fixed order.
    pub(super) fn to_rows(&self) -> Vec<(&'static str, String)> {
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
        ]
    }

    /// Names and (stored, requested) values of the fields that differ.
    pub(super) fn differences(&self, other: &Params) -> Vec<(&'static str, String, String)> {
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
