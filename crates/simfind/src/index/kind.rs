//! Which kind of item an index holds (format 5): files (and the texts the
//! Python `Index` stores), records of a JSON Lines, CSV or TSV input (each
//! record whole: its fields joined by one space, as `scan --input KIND`
//! compares them), or sets of whole tokens (`--input sets`).
//!
//! Role: every document of an index is one kind, stored in the `params` row
//! `item_kind` and fixed when the index is made; a command that would add or
//! look up an item of another kind is refused before any work, naming both
//! ([`super::IndexError::KindMismatch`]). Every kind here is signed by
//! MinHash and verified by the exact Jaccard of its set, so the one lookup of
//! [`super::query`] serves them all; what differs is how an item's stored
//! bytes become its set ([`ItemKind::set_of`]).
//!
//! Invariant: the set of a stored item is the set the matching scan makes
//! of it (`pipeline::record_set`), so an index answers what the
//! scan of the same items would.

use std::fmt;

use crate::input::kind::InputKind;
use crate::recipe::Recipe;
use crate::text::hash_shingle;

/// The kind of item an index holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// Files walked or added (and texts stored under an id): shingled.
    Files,
    /// Records, each whole: its fields joined by one space, shingled.
    Records,
    /// Sets of whole tokens, one token a line in the stored text.
    Sets,
    /// Vectors, compared by cosine (`index::points`): signed by random
    /// hyperplanes, stored as little-endian `f32`s.
    Vectors,
    /// Bit strings, compared by Hamming distance (`index::bits`): signed by
    /// bit sampling, stored as little-endian 64-bit words.
    Bits,
}

/// A stored `item_kind` this simfind does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownItemKind(pub String);

impl fmt::Display for UnknownItemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown item kind {:?}", self.0)
    }
}

impl ItemKind {
    /// The stored name (`params.item_kind`).
    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Files => "files",
            ItemKind::Records => "records",
            ItemKind::Sets => "sets",
            ItemKind::Vectors => "vectors",
            ItemKind::Bits => "bits",
        }
    }

    /// The kind stored under `name`.
    pub fn parse(name: &str) -> Result<ItemKind, UnknownItemKind> {
        match name {
            "files" => Ok(ItemKind::Files),
            "records" => Ok(ItemKind::Records),
            "sets" => Ok(ItemKind::Sets),
            "vectors" => Ok(ItemKind::Vectors),
            "bits" => Ok(ItemKind::Bits),
            other => Err(UnknownItemKind(other.to_owned())),
        }
    }

    /// The kind of item an input of `kind` gives.
    pub fn of_input(kind: InputKind) -> Option<ItemKind> {
        match kind {
            InputKind::Files => Some(ItemKind::Files),
            InputKind::Jsonl | InputKind::Csv | InputKind::Tsv | InputKind::Parquet => {
                Some(ItemKind::Records)
            }
            InputKind::Sets => Some(ItemKind::Sets),
            InputKind::Vectors => Some(ItemKind::Vectors),
            InputKind::Bits => Some(ItemKind::Bits),
        }
    }

    /// Whether items of this kind are sets signed by MinHash (files,
    /// records, sets), looked up by [`super::query`]; vectors are looked
    /// up by [`super::points`], bit strings by [`super::bits`].
    pub fn is_minhash(self) -> bool {
        !matches!(self, ItemKind::Vectors | ItemKind::Bits)
    }

    /// Whether items of this kind are files, whose bytes may look binary
    /// and be skipped; a record or a set is always compared.
    pub fn is_files(self) -> bool {
        self == ItemKind::Files
    }

    /// The stored text of a record or set: what [`ItemKind::set_of`] makes
    /// its set from (a record's fields joined by one space; a set's tokens
    /// one a line, a token never holding a line break).
    pub fn text_of(self, fields: &[String]) -> String {
        match self {
            ItemKind::Sets => fields.join("\n"),
            ItemKind::Files | ItemKind::Records | ItemKind::Vectors | ItemKind::Bits => {
                fields.join(" ")
            }
        }
    }

    /// The set of an item whose (stored or query) text is `text`: shingled
    /// by `recipe`, or for sets its lines hashed whole, as the sets scan
    /// hashes tokens.
    pub fn set_of(self, recipe: &Recipe, text: &[u8]) -> Vec<u64> {
        match self {
            ItemKind::Sets => {
                let mut set: Vec<u64> = text
                    .split(|&b| b == b'\n')
                    .filter(|t| !t.is_empty())
                    .map(hash_shingle)
                    .collect();
                set.sort_unstable();
                set.dedup();
                set
            }
            ItemKind::Files | ItemKind::Records => recipe.set_of(text),
            // A vector or a bit string has no set (never asked: see
            // `is_minhash`).
            ItemKind::Vectors | ItemKind::Bits => Vec::new(),
        }
    }

    /// The kind and its recipe in words, for a message naming both sides
    /// of a clash: "records (MinHash, char 5-shingles, 16 bands × 8 rows)".
    pub fn describe(self, recipe: &crate::params::Params) -> String {
        if self == ItemKind::Vectors {
            return format!(
                "vectors (cosine, {} random hyperplanes: {} bands × {} rows, seed {}, {} \
                 dimensions)",
                recipe.n, recipe.bands, recipe.rows, recipe.seed, recipe.k
            );
        }
        if self == ItemKind::Bits {
            return format!(
                "bits (Hamming, {} sampled bits: {} bands × {} rows, seed {}, {}-bit strings)",
                recipe.n, recipe.bands, recipe.rows, recipe.seed, recipe.k
            );
        }
        let shingles = match self {
            ItemKind::Sets => "whole tokens".to_owned(),
            ItemKind::Files | ItemKind::Records | ItemKind::Vectors | ItemKind::Bits => {
                format!("{} {}-shingles", recipe.shingle_kind, recipe.k)
            }
        };
        format!(
            "{} (MinHash, {shingles}, {} bands × {} rows, seed {})",
            self.name(),
            recipe.bands,
            recipe.rows,
            recipe.seed
        )
    }
}

impl fmt::Display for ItemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_reads_back_from_its_name() {
        for kind in [
            ItemKind::Files,
            ItemKind::Records,
            ItemKind::Sets,
            ItemKind::Vectors,
            ItemKind::Bits,
        ] {
            assert_eq!(ItemKind::parse(kind.name()), Ok(kind));
        }
        assert!(ItemKind::parse("bytes").is_err());
    }

    #[test]
    fn a_stored_set_is_the_sets_scan_set() {
        use crate::lsh::Banding;
        use crate::sketch::SketchKind;
        use crate::text::Normalization;
        use crate::text::{ShingleKind, Shingler, StopWords};
        let recipe = Recipe {
            normalization: Normalization::default(),
            shingler: Shingler::new(ShingleKind::Char, 3, StopWords::default()),
            sketch: SketchKind::Classic,
            seed: 7,
            banding: Banding { bands: 4, rows: 2 },
            include_binary: false,
        };
        let tokens: Vec<String> = ["b", "a", "b", "c d"].map(String::from).to_vec();
        let stored = ItemKind::Sets.text_of(&tokens);
        let want = crate::pipeline::record_set(&tokens, &recipe, InputKind::Sets);
        assert_eq!(ItemKind::Sets.set_of(&recipe, stored.as_bytes()), want);
        let fields: Vec<String> = ["Jane Doe", "12 Elm St"].map(String::from).to_vec();
        let stored = ItemKind::Records.text_of(&fields);
        let want = crate::pipeline::record_set(&fields, &recipe, InputKind::Jsonl);
        assert_eq!(ItemKind::Records.set_of(&recipe, stored.as_bytes()), want);
    }
}
