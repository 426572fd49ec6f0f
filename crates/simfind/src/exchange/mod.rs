//! Exchange files: signed documents as Parquet, the contract between simfind
//! and an engine that does the all-to-all part (a Spark or DuckDB band join;
//! `spark/`, `docs/SCALE-OUT.md`).
//!
//! Role: simfind signs (per document, embarrassingly parallel, `--shard I/N`
//! on many machines), the engine joins the band keys of all shards, and
//! simfind verifies the engine's candidate pairs against the files again.
//! Inputs: signed documents ([`DocRecord`], a key and its signature), or
//! Parquet written earlier. Outputs: per shard, three Parquet files under one
//! directory, one sub-directory per table (so an engine reads a table as
//! `DIR/bands`):
//!
//! ```text
//! docs/shard-IIIII-of-NNNNN.parquet        doc_id int64, path binary, size int64,
//!                                          mtime timestamp[µs, UTC] (null: unknown),
//!                                          content_hash binary (16 bytes, XXH3-128
//!                                          big-endian), shingles int64
//! signatures/shard-IIIII-of-NNNNN.parquet  doc_id int64, signature list<int32>
//!                                          (b·r MinHash values, u32 bits as i32)
//! bands/shard-IIIII-of-NNNNN.parquet       doc_id int64, band int16, key int64
//!                                          (u64 bits as i64)
//! ```
//!
//! Invariants: `doc_id = shard << 40 | local index` (unique without
//! coordination: 2^40 documents a shard, 2^23 shards); only signed integers,
//! binary and µs timestamps (what Spark, DuckDB, pyarrow and polars all read
//! unchanged); every file carries the recipe in its key-value metadata
//! (`simfind.recipe.<name>`, the names `params::Params` stores) and a reader
//! refuses a set of files whose recipes differ; a document with an empty set
//! (shorter than one shingle) has a `docs` row and no signature or bands;
//! files are written under a temporary name starting with `.` (which Spark,
//! DuckDB's `*.parquet` globs and this reader skip) and renamed when complete.
//!
//! The key: files put their path in `path`; a record source puts its record id
//! there and says so with `simfind.key = record` (the reader takes either; a
//! record source then needs its own reload for verification); the points of a
//! vector family (`sign --input vectors|bits`) say `simfind.key = vector` and
//! name the family and its parameters under `simfind.family.*` (`exchange/vectors.rs`).
//! Records signed per field write `fields × n` values a signature
//! (`simfind.signature_len`) and their fields' bands as band `f·b + j`
//! (`exchange/records.rs`). A reader refuses files that were signed from different
//! kinds of input or with different options, whatever their recipes.

mod read;
mod records;
#[cfg(test)]
mod tests;
mod vectors;
mod write;

use std::fmt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use crate::params::Params;

/// The kind of key a shard's documents have (`simfind.key`).
pub use crate::source::KeyKind;
pub use read::{
    DocOrigin, Exchange, ExchangeDoc, read_components, read_docs, read_docs_where, read_pairs,
    read_pairs_where,
};
pub use records::{
    PerField, per_field_metadata, record_metadata, record_options, sign_records,
    sign_records_per_field, verify_records,
};
pub use vectors::{
    Family, VectorOutcome, bits_hash, family_metadata, family_of, line_offsets, sign_bits,
    sign_vectors, vector_hash, vector_params, vector_recipe, verify_vectors,
};
pub use write::{DocRecord, RecordOrigin, ShardWriter};

/// The format version written in `simfind.format`; a reader refuses others.
pub const FORMAT_VERSION: &str = "1";
/// Rows per row group: large enough for the engines' vectorised readers,
/// small enough that one group of bands (16 bytes a row) stays a few MB.
pub const ROW_GROUP_ROWS: usize = 128 * 1024;
/// Bits of the local index in a doc_id.
pub const LOCAL_BITS: u32 = 40;
/// The tables of one shard, each a directory of the output.
pub const TABLES: [&str; 3] = ["docs", "signatures", "bands"];

/// Metadata keys.
pub(crate) const KEY_FORMAT: &str = "simfind.format";
pub(crate) const KEY_TABLE: &str = "simfind.table";
pub(crate) const KEY_SHARD: &str = "simfind.shard";
pub(crate) const KEY_KIND: &str = "simfind.key";
pub(crate) const RECIPE_PREFIX: &str = "simfind.recipe.";
/// A record source's reading options (`simfind.records.kind`, …).
pub const RECORDS_PREFIX: &str = "simfind.records.";
/// A vector family's parameters (`simfind.family.metric`, …).
pub(crate) const FAMILY_PREFIX: &str = "simfind.family.";
/// Values in one signature row (`n`, or `fields × n` for records signed per
/// field): what an engine divides agreeing positions by.
pub(crate) const KEY_SIGNATURE_LEN: &str = "simfind.signature_len";

/// One shard `index` of `count` (`--shard I/N`, 0 ≤ I < N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The one shard of an unsharded run.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The largest shard count: `shard << 40` stays a positive int64.
    pub const MAX_COUNT: u32 = 1 << 23;

    /// The doc_id of this shard's `local`-th document.
    pub fn doc_id(self, local: u64) -> i64 {
        ((u64::from(self.index) << LOCAL_BITS) | local) as i64
    }

    /// Whether the document at `relative` (its path relative to its root, or
    /// a record id) belongs to this shard: by XXH3-64 of the bytes, so any
    /// machine decides the same without coordination.
    pub fn holds(self, relative: &[u8]) -> bool {
        self.count <= 1 || xxh3_64(relative) % u64::from(self.count) == u64::from(self.index)
    }

    /// The file name of this shard in every table directory.
    pub fn file_name(self) -> String {
        format!("shard-{:05}-of-{:05}.parquet", self.index, self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A string that is no [`Shard`] (it is quoted in the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseShardError(pub String);

impl fmt::Display for ParseShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected I/N with 0 ≤ I < N ≤ {}, got {:?}",
            Shard::MAX_COUNT,
            self.0
        )
    }
}

impl std::error::Error for ParseShardError {}

impl std::str::FromStr for Shard {
    type Err = ParseShardError;

    fn from_str(s: &str) -> Result<Shard, ParseShardError> {
        let bad = || ParseShardError(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count || count > Shard::MAX_COUNT {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The path of `file` relative to the root it was found under (the root's
/// own name for a root that is a file): what decides its shard, the same
/// whatever directory the root was given from.
pub fn relative_key<'a>(roots: &[PathBuf], file: &'a Path) -> &'a [u8] {
    use std::os::unix::ffi::OsStrExt;
    for root in roots {
        if let Ok(rest) = file.strip_prefix(root) {
            if rest.as_os_str().is_empty() {
                return file
                    .file_name()
                    .map_or(file.as_os_str().as_bytes(), |n| n.as_bytes());
            }
            return rest.as_os_str().as_bytes();
        }
    }
    file.as_os_str().as_bytes()
}

/// Which part of a verification split by component (`verify
/// --component-shard I/N`) a document belongs to: its component's (pairs of
/// different components share no document), or, for a document in no
/// component, its content's (identical copies with no shingle, which no
/// engine pairs, stay in one part).
pub fn component_part(component: Option<i64>, content_hash: u128, parts: u32) -> u32 {
    let h = match component {
        Some(c) => xxh3_64(&c.to_le_bytes()),
        None => xxh3_64(&content_hash.to_le_bytes()),
    };
    (h % u64::from(parts.max(1))) as u32
}

/// The recipe as key-value metadata.
pub(crate) fn recipe_metadata(params: &Params) -> Vec<(String, String)> {
    params
        .to_rows()
        .into_iter()
        .map(|(name, value)| (format!("{RECIPE_PREFIX}{name}"), value))
        .collect()
}

/// The recipe from key-value metadata; `Err` names what is missing or bad.
pub(crate) fn params_of(get: impl Fn(&str) -> Option<String>) -> Result<Params, MetadataError> {
    let field = |name: &str| {
        get(&format!("{RECIPE_PREFIX}{name}")).ok_or_else(|| MetadataError::Missing {
            key: format!("{RECIPE_PREFIX}{name}"),
        })
    };
    fn number<T: std::str::FromStr>(name: &str, value: String) -> Result<T, MetadataError> {
        value.parse().map_err(|_| MetadataError::NotANumber {
            key: format!("{RECIPE_PREFIX}{name}"),
            value: Some(value),
        })
    }
    Ok(Params {
        shingle_kind: field("shingle_kind")?,
        k: number("k", field("k")?)?,
        normalisation: field("normalisation")?,
        n: number("n", field("n")?)?,
        bands: number("bands", field("bands")?)?,
        rows: number("rows", field("rows")?)?,
        seed: number("seed", field("seed")?)?,
        minhash: field("minhash")?,
        stop_words: field("stop_words")?,
        include_binary: match field("binary_files")?.as_str() {
            "include" => true,
            "skip" => false,
            other => {
                return Err(MetadataError::Unknown {
                    key: format!("{RECIPE_PREFIX}binary_files"),
                    value: other.to_string(),
                });
            }
        },
        // Shards written before extraction existed compared bytes.
        extraction: field("extraction").unwrap_or_else(|_| "none".to_string()),
    })
}

/// Why a file's key-value metadata does not describe what it should. Every
/// variant names the key (`simfind.recipe.k`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataError {
    Missing {
        key: String,
    },
    /// Not a number; the value, when it is worth quoting.
    NotANumber {
        key: String,
        value: Option<String>,
    },
    /// Not a JSON list of `of` ("names", "numbers").
    NotAList {
        key: String,
        of: &'static str,
        reason: String,
    },
    /// A value its parser refused, with the parser's reason.
    Invalid {
        key: String,
        reason: String,
    },
    /// A value of the wrong sort (`expected`: "a record kind").
    Unexpected {
        key: String,
        value: String,
        expected: &'static str,
    },
    /// A value none of the known ones.
    Unknown {
        key: String,
        value: String,
    },
    /// A metric that no vector family measures.
    NotAFamily {
        key: String,
        value: String,
    },
    /// A count of 0 where one is needed.
    Zero {
        key: String,
    },
    /// A list of fields that names none.
    NoField {
        key: String,
    },
}

impl fmt::Display for MetadataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetadataError::Missing { key } => write!(f, "no {key} in its metadata"),
            MetadataError::NotANumber { key, value: None } => write!(f, "{key} is not a number"),
            MetadataError::NotANumber {
                key,
                value: Some(value),
            } => write!(f, "{key} is not a number: {value:?}"),
            MetadataError::NotAList { key, of, reason } => {
                write!(f, "{key} is not a list of {of}: {reason}")
            }
            MetadataError::Invalid { key, reason } => write!(f, "{key}: {reason}"),
            MetadataError::Unexpected {
                key,
                value,
                expected,
            } => write!(f, "{key} is {value}, not {expected}"),
            MetadataError::Unknown { key, value } => write!(f, "{key} is {value:?}"),
            MetadataError::NotAFamily { key, value } => {
                write!(f, "{key} {value:?} is not a vector family")
            }
            MetadataError::Zero { key } => write!(f, "{key} is 0"),
            MetadataError::NoField { key } => write!(f, "{key} names no field"),
        }
    }
}

impl std::error::Error for MetadataError {}

/// Why exchange files cannot be written or read. Every variant names the file.
#[derive(Debug)]
pub enum ExchangeError {
    Io {
        path: PathBuf,
        err: std::io::Error,
    },
    Parquet {
        path: PathBuf,
        err: String,
    },
    /// Not simfind's, of another format version, or with a bad column.
    Format {
        path: PathBuf,
        reason: String,
    },
    /// Made with another recipe than the first file read.
    Recipe {
        path: PathBuf,
        first: PathBuf,
        differences: Vec<(&'static str, String, String)>,
    },
    /// The same doc_id twice.
    Duplicate {
        path: PathBuf,
        doc_id: i64,
    },
    /// A pair names a doc_id that no `docs` file has.
    Unknown {
        path: PathBuf,
        doc_id: i64,
    },
    /// Pairs whose `estimate` is not the agreement of the signatures given:
    /// joined from other shards' signatures (`count` of `total`; the first
    /// is `a`, `b`).
    NotCandidates {
        path: PathBuf,
        count: usize,
        total: usize,
        a: i64,
        b: i64,
    },
    /// A directory with no Parquet file of the table.
    Empty {
        path: PathBuf,
        what: &'static str,
    },
    /// Records read with other reading options than those of `first`.
    ReadOptions {
        path: PathBuf,
        first: PathBuf,
    },
}

impl fmt::Display for ExchangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExchangeError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            ExchangeError::Parquet { path, err } => {
                write!(f, "{}: not a readable Parquet file: {err}", path.display())
            }
            ExchangeError::Format { path, reason } => write!(f, "{}: {reason}", path.display()),
            ExchangeError::Recipe {
                path,
                first,
                differences,
            } => {
                write!(
                    f,
                    "{}: made with another recipe than {}:",
                    path.display(),
                    first.display()
                )?;
                for (name, a, b) in differences {
                    write!(f, " {name} {b:?} here, {a:?} there;")?;
                }
                f.write_str(" sign every shard with the same options")
            }
            ExchangeError::Duplicate { path, doc_id } => write!(
                f,
                "{}: doc_id {doc_id} (shard {}, document {}) appears twice: two shards \
                 signed as the same shard, or one shard given twice",
                path.display(),
                doc_id >> LOCAL_BITS,
                doc_id & ((1 << LOCAL_BITS) - 1)
            ),
            ExchangeError::Unknown { path, doc_id } => write!(
                f,
                "{}: pair names doc_id {doc_id}, which no docs file has (pairs of other \
                 shards than the docs given?)",
                path.display()
            ),
            ExchangeError::NotCandidates {
                path,
                count,
                total,
                a,
                b,
            } => write!(
                f,
                "{}: {count} of its {total} pairs (the first: doc_ids {a} and {b}) have an \
                 estimate that is not the agreement of the signatures given: these pairs were \
                 joined from another signing run or with other options; join the shards \
                 given again",
                path.display()
            ),
            ExchangeError::Empty { path, what } => {
                write!(f, "{}: no {what} Parquet file there", path.display())
            }
            ExchangeError::ReadOptions { path, first } => write!(
                f,
                "{}: read its records with other options than {} ({}*): sign every shard \
                 with the same reading options",
                path.display(),
                first.display(),
                RECORDS_PREFIX
            ),
        }
    }
}

impl std::error::Error for ExchangeError {}

/// Verifies an engine's candidate pairs (indices into `exchange.docs`, as
/// [`read_pairs`] gives them) as a scan verifies its own: the documents in
/// walk order, identical contents grouped (copies pair at 1.0), candidates
/// ruled out by signature, then exact Jaccard from the files re-read and
/// checked against their content hash. `config` must carry the exchange's
/// recipe; its roots, walk and read options are the reload's.
pub fn verify(
    exchange: Exchange,
    candidates: Vec<(u32, u32)>,
    config: &crate::pipeline::ScanConfig,
    pairs_from: &Path,
    reporter: &dyn crate::progress::Reporter,
) -> crate::pipeline::ScanOutcome {
    use std::collections::HashSet;
    use std::os::unix::ffi::OsStrExt;

    use crate::input::walk::FileEntry;
    use crate::pipeline::plan::{Decision, Method, Reason};
    use crate::pipeline::{ScanStats, SignOutcome, SignedContent};

    let Exchange {
        docs, signatures, ..
    } = exchange;
    let mut seen: HashSet<u128> = HashSet::with_capacity(docs.len());
    let mut outcomes = Vec::with_capacity(docs.len());
    let mut files = Vec::with_capacity(docs.len());
    for doc in docs {
        outcomes.push(if seen.insert(doc.hash) {
            SignOutcome::Unique(SignedContent {
                hash: doc.hash,
                shingles: u32::try_from(doc.shingles).unwrap_or(u32::MAX - 1),
                counted: true,
                set: Vec::new(),
            })
        } else {
            SignOutcome::SameAs(doc.hash)
        });
        files.push(FileEntry {
            path: PathBuf::from(std::ffi::OsStr::from_bytes(&doc.path)),
            size: doc.size,
            modified: doc.modified,
            dev: 0,
            ino: 0,
        });
    }
    let stats = ScanStats {
        files: files.len() as u64,
        ..ScanStats::default()
    };
    let decision = Decision {
        method: Method::Lsh,
        reason: Reason::BandJoin(pairs_from.to_path_buf()),
    };
    crate::pipeline::find_given_pairs(
        config, files, outcomes, signatures, candidates, decision, stats, reporter,
    )
}
