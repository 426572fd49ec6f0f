//! What a run's inputs are: directories of files (the default) or files of
//! records, vectors or bit strings. One name per kind, used by the faces and
//! in messages, from [`InputKind::name`] and its `FromStr`. Part of the
//! [`super::Spec`] rules (which record fields apply to which kind); the
//! engine reads each kind (`simfind::input`).

use std::fmt;
use std::str::FromStr;

/// The kind of input a scan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum InputKind {
    /// Directories (and single files), walked: one document per file.
    #[default]
    Files,
    /// JSON Lines: one document per line, its text and id at dotted paths.
    Jsonl,
    /// CSV with a header (RFC 4180): one record per row.
    Csv,
    /// As `Csv`, tab-separated.
    Tsv,
    /// A Parquet table: one record per row, as `Csv`'s columns (read by
    /// row group, its text columns only).
    Parquet,
    /// `id<TAB>token token …` per line (or `id<TAB>token` pairs): sets of
    /// whole tokens, not shingled.
    Sets,
    /// CSV/TSV `id,x1,…,xd`: real vectors (the engine's `input::vectors`).
    Vectors,
    /// CSV/TSV `id,0101…` or `id,0x…`: bit strings (the engine's `input::vectors`).
    Bits,
}

impl InputKind {
    /// Every kind, in the order `--help` lists them.
    pub const ALL: &[InputKind] = &[
        InputKind::Files,
        InputKind::Jsonl,
        InputKind::Csv,
        InputKind::Tsv,
        InputKind::Parquet,
        InputKind::Sets,
        InputKind::Vectors,
        InputKind::Bits,
    ];

    /// The kind's name (the CLI's `--input` takes it).
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Files => "files",
            InputKind::Jsonl => "jsonl",
            InputKind::Csv => "csv",
            InputKind::Tsv => "tsv",
            InputKind::Parquet => "parquet",
            InputKind::Sets => "sets",
            InputKind::Vectors => "vectors",
            InputKind::Bits => "bits",
        }
    }

    /// Whether the inputs are files of records whose text goes through the
    /// shingling path (one document per line or row), rather than directories
    /// walked for files or the vectors and bit strings of the other families.
    pub fn is_records(self) -> bool {
        !matches!(
            self,
            InputKind::Files | InputKind::Vectors | InputKind::Bits
        )
    }

    /// Whether the inputs are tables of named columns (a header's or a
    /// schema's), whose records are chosen columns of a row.
    pub fn is_table(self) -> bool {
        matches!(self, InputKind::Csv | InputKind::Tsv | InputKind::Parquet)
    }

    /// Whether the inputs are vectors or bit strings, found by the families
    /// of the engine's `pipeline::vectors` rather than by shingles and MinHash.
    pub fn is_vectors(self) -> bool {
        matches!(self, InputKind::Vectors | InputKind::Bits)
    }
}

impl fmt::Display for InputKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`InputKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownInputKind(pub String);

impl fmt::Display for UnknownInputKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = InputKind::ALL.iter().map(|k| k.name()).collect();
        write!(
            f,
            "unknown input kind '{}' (expected one of: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownInputKind {}

impl FromStr for InputKind {
    type Err = UnknownInputKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        InputKind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownInputKind(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_kind() {
        for &kind in InputKind::ALL {
            assert_eq!(kind.name().parse::<InputKind>(), Ok(kind));
        }
        let err = "arrow".parse::<InputKind>().unwrap_err();
        assert!(err.to_string().contains("'arrow'"), "{err}");
        assert!(err.to_string().contains("jsonl"), "{err}");
    }
}
