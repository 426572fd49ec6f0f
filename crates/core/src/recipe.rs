//! The recipe: how a document becomes a set, a signature and band keys.
//!
//! Role: the one description of the signing setup (normalisation, shingling,
//! sketch, banding, and whether binary-looking files are signed). `scan`,
//! `index`, `scan --db`, `query` and `compare` all sign through it, so two
//! documents signed by any of them under one recipe are comparable.
//!
//! Invariants: `banding.signature_len()` is the signature length of `sketch`;
//! the same recipe and bytes give the same set and signature on every machine.
//!
//! Names: each setting's name as an index stores it is written once, here
//! ([`normalization_name`], `FromStr` for [`ShingleKind`]) or beside its type
//! ([`SketchKind::name`]).

use std::fmt;
use std::str::FromStr;

use crate::lsh::{self, Banding};
use crate::sketch::{AnySketcher, SketchKind, Sketcher};
use crate::text::{Normalization, normalize_into};
use crate::text::{Scratch, ShingleKind, Shingler};

/// Signatures hold bands × rows 32-bit values per document; beyond this the
/// signature costs more than exact methods would.
pub const MAX_SIGNATURE_LEN: usize = 1 << 16;

/// The longest shingle `--k` accepts. Every window of a file is hashed whole,
/// so shingling costs bytes × k (a 200 MB file: 1.2 s at k = 5, 11 s at
/// k = 1000). Near-duplicate detection wants k near the length at which a
/// shingle is rare in unrelated text (MMDS 3.2.2: 5 for short documents, 9
/// for long ones; a few words for word shingles); at k = 256 two files share
/// a shingle only through a verbatim run of 256 characters (or 256 words),
/// so one edit every few hundred characters already makes them look
/// unrelated. Larger values measure nothing useful and cost without bound.
pub const MAX_K: usize = 256;

/// Everything that decides a document's shingle set and signature.
#[derive(Clone, Debug)]
pub struct Recipe {
    pub normalization: Normalization,
    pub shingler: Shingler,
    /// The sketch family and kernel that signs the sets.
    pub sketch: SketchKind,
    /// Seed of the sketch's hash functions.
    pub seed: u64,
    /// b bands × r rows; the signature has b·r values.
    pub banding: Banding,
    /// Also shingle files that look binary (NUL in the first block).
    pub include_binary: bool,
}

impl Recipe {
    /// The sketch family that signs under this recipe, making signatures of
    /// `banding.signature_len()` values. Built once per scan, file list or
    /// query, not per document.
    pub fn sketcher(&self) -> AnySketcher {
        AnySketcher::new(self.sketch, self.banding.signature_len(), self.seed)
    }

    /// The shingle set of `bytes` held in memory: normalised, shingled,
    /// sorted and without duplicates. (Files are read as sets by
    /// `pipeline::reload_set`, which takes a large file a chunk at a time.)
    pub fn set_of(&self, bytes: &[u8]) -> Vec<u64> {
        shingle_set(bytes, self.normalization, &self.shingler)
    }

    /// The signature and band keys of a non-empty set of distinct hashes.
    pub fn sign(&self, set: &[u64]) -> (Vec<u32>, Vec<u64>) {
        let mut signature = vec![0; self.banding.signature_len()];
        self.sketcher().sign_into(set, &mut signature);
        let keys = lsh::band_keys(&signature, self.banding).collect();
        (signature, keys)
    }
}

/// The shingle set of `bytes` held in memory under a normalisation and a
/// shingler, without the rest of a recipe: what `compare` measures exact
/// Jaccard over, and what the Python face hands out.
pub fn shingle_set(bytes: &[u8], normalization: Normalization, shingler: &Shingler) -> Vec<u64> {
    let mut text = String::new();
    normalize_into(bytes, normalization, &mut text);
    let mut set = Vec::new();
    shingler.shingle_set_into(&text, &mut Scratch::default(), &mut set);
    set
}

/// A shingle kind name this simfind does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownShingleKind(pub String);

impl fmt::Display for UnknownShingleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown shingle kind {:?}", self.0)
    }
}

impl std::error::Error for UnknownShingleKind {}

/// The inverse of [`ShingleKind::name`].
impl FromStr for ShingleKind {
    type Err = UnknownShingleKind;

    fn from_str(s: &str) -> Result<Self, UnknownShingleKind> {
        ShingleKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownShingleKind(s.to_string()))
    }
}

/// The canonical name of a normalisation, as an index stores it: its steps in
/// order, comma-separated (`utf8-lossy,lowercase,collapse-whitespace`).
pub fn normalization_name(n: Normalization) -> String {
    let mut steps = vec![UTF8_LOSSY];
    if n.lowercase {
        steps.push(LOWERCASE);
    }
    if n.collapse_whitespace {
        steps.push(COLLAPSE_WHITESPACE);
    }
    if n.drop_whitespace {
        steps.push(DROP_WHITESPACE);
    }
    // Named after the older steps, and only when on, so that every
    // normalisation without them keeps the name an index already stores.
    if n.fold_accents {
        steps.push(FOLD_ACCENTS);
    }
    if n.fold_punct {
        steps.push(FOLD_PUNCT);
    }
    steps.join(",")
}

const UTF8_LOSSY: &str = "utf8-lossy";
const LOWERCASE: &str = "lowercase";
const COLLAPSE_WHITESPACE: &str = "collapse-whitespace";
const DROP_WHITESPACE: &str = "drop-whitespace";
const FOLD_ACCENTS: &str = "fold-accents";
const FOLD_PUNCT: &str = "fold-punct";

/// A normalisation name this simfind does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownNormalization {
    /// It does not start with `utf8-lossy`.
    Name(String),
    /// One of its later steps is unknown.
    Step(String),
}

impl fmt::Display for UnknownNormalization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownNormalization::Name(name) => write!(f, "unknown normalisation {name:?}"),
            UnknownNormalization::Step(step) => write!(f, "unknown normalisation step {step:?}"),
        }
    }
}

impl std::error::Error for UnknownNormalization {}

/// The inverse of [`normalization_name`].
pub fn parse_normalization(name: &str) -> Result<Normalization, UnknownNormalization> {
    let mut normalization = Normalization {
        lowercase: false,
        collapse_whitespace: false,
        drop_whitespace: false,
        fold_accents: false,
        fold_punct: false,
    };
    let mut steps = name.split(',');
    if steps.next() != Some(UTF8_LOSSY) {
        return Err(UnknownNormalization::Name(name.to_string()));
    }
    for step in steps {
        match step {
            LOWERCASE => normalization.lowercase = true,
            COLLAPSE_WHITESPACE => normalization.collapse_whitespace = true,
            DROP_WHITESPACE => normalization.drop_whitespace = true,
            FOLD_ACCENTS => normalization.fold_accents = true,
            FOLD_PUNCT => normalization.fold_punct = true,
            other => return Err(UnknownNormalization::Step(other.to_string())),
        }
    }
    Ok(normalization)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in [
            ShingleKind::Char,
            ShingleKind::Word,
            ShingleKind::StopWord,
            ShingleKind::Important,
        ] {
            assert_eq!(kind.name().parse::<ShingleKind>(), Ok(kind));
        }
        for n in Normalization::ALL {
            assert_eq!(parse_normalization(&normalization_name(n)), Ok(n));
        }
        let dropped = Normalization {
            lowercase: true,
            collapse_whitespace: false,
            drop_whitespace: true,
            fold_accents: false,
            fold_punct: false,
        };
        assert_eq!(
            normalization_name(dropped),
            "utf8-lossy,lowercase,drop-whitespace"
        );
        let folded = Normalization {
            fold_accents: true,
            fold_punct: true,
            ..Normalization::default()
        };
        assert_eq!(
            normalization_name(folded),
            "utf8-lossy,lowercase,collapse-whitespace,fold-accents,fold-punct"
        );
        assert_eq!(parse_normalization(&normalization_name(folded)), Ok(folded));
        assert_eq!(
            parse_normalization(&normalization_name(dropped)),
            Ok(dropped)
        );
        assert_eq!(
            parse_normalization("ascii").unwrap_err().to_string(),
            "unknown normalisation \"ascii\""
        );
        assert_eq!(
            parse_normalization("utf8-lossy,stemming")
                .unwrap_err()
                .to_string(),
            "unknown normalisation step \"stemming\""
        );
    }
}
