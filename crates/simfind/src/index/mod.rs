//! The persistent index: one SQLite file holding every document's MinHash
//! signature and LSH band keys, so that a later run re-signs only the files that
//! changed (incremental `index`/`scan`) and a new document can be looked up against
//! everything seen before (`query`, the "many-one" problem of MMDS §3.4–3.8 where
//! signatures must outlive one run).
//!
//! Role: storage only. It never walks, reads or shingles a file; callers hand it
//! values (paths, file metadata, hashes, signatures, band keys) and get values
//! back. The file-system side — deciding what changed and signing it — lives in the
//! pipeline.
//!
//! Inputs: [`Params`] (how signatures were made), [`IndexedDoc`]s to add or change,
//! paths to remove, band keys to look up. Outputs: [`StoredDoc`]s, [`StoredFile`]s
//! (path + metadata, to decide what changed without reading), candidate
//! [`RowId`]s, and typed [`IndexError`]s.
//!
//! Invariants:
//! - The parameters stored in the file are the parameters every signature in it was
//!   made with. Opening with different parameters, or a file of another format
//!   version, is an error ([`IndexError::ParamsMismatch`],
//!   [`IndexError::FormatVersion`]) — never silently mixed signatures.
//! - Every document has exactly `n` signature values and exactly one band key per
//!   band (a `doc_keys` blob of `bands` keys, each in `band_lookup` unless the
//!   document is in the lookup tail; `band_keys` rows before format 6).
//! - An update ([`Update`], or [`Index::apply`]) is one SQLite transaction: a
//!   process killed at any moment leaves the index exactly as the last committed
//!   update left it.
//! - A damaged or foreign file gives [`IndexError::NotAnIndex`], never a panic.
//!
//! Journal mode: SQLite's rollback journal (`journal_mode=DELETE`,
//! `synchronous=FULL`), not WAL. Both make a transaction atomic across a crash; the
//! rollback journal was chosen because (1) the index stays one self-contained file
//! at rest — no `-wal`/`-shm` companions that must travel with it; (2) it works on
//! file systems without shared memory (network shares, read-only media), where WAL
//! does not; (3) WAL's benefit — readers never block a writer's commit — matters
//! little here: updates are rare (nightly), queries are short, and while an
//! update is signing files (almost all of its time) readers still read freely;
//! they wait, up to the busy timeout, only during the final write burst.
//!
//! Concurrency: an update takes SQLite's write lock up front (`BEGIN IMMEDIATE`),
//! so a second writer waits up to the busy timeout and then fails with
//! [`IndexError::Busy`]; it never sees or produces a half-applied update.
//!
//! Schema (also in `docs/INDEX.md`): see [`SCHEMA`].
//!
//! Files: `schema.rs` (the layout and the value codecs), `params.rs` ([`Params`]),
//! `error.rs` ([`IndexError`]), `incremental.rs` (the `--db` glue that decides
//! what changed and signs it), `items.rs` (the same for the records or sets of
//! `scan --db --input`, by their texts' hashes), `query.rs` (the many-one lookup: [`query::Query`]), `add.rs` (single documents
//! added or removed without a walk), `tail.rs` (the band-key lookup and its
//! tail of recent documents); this file is the storage ([`Index`]), `update.rs` its write transaction ([`Update`]).

pub(crate) mod add;
pub mod bits;
mod error;
pub(crate) mod guard;
pub mod incremental;
pub mod items;
pub(crate) mod kind;
pub mod points;

pub(crate) mod prefix;
#[doc(hidden)]
pub mod query;
mod schema;
mod signatures;
pub(crate) mod stream;
mod tail;
mod update;

pub use crate::params::{Params, ParamsError};
pub use add::{NewDoc, add_and_remove};
use error::classify;
pub use error::{IndexError, Remedy};
pub use guard::MaxDelete;
pub use kind::ItemKind;
pub use query::{Answer, ContainmentAnswer, Query, QueryOptions};
pub use schema::{
    APPLICATION_ID, FORMAT_VERSION, OLDEST_READABLE, PREFIX_TABLE, SCHEMA, TEXTS_TABLE,
};
use schema::{
    DOC_COLUMNS, RawDoc, binary_to_reason, blob_to_hash, blob_to_path, blob_to_signature,
    hash_to_blob, path_to_blob, read_raw, reason_to_binary, signature_to_blob, sql_to_u64,
    u64_to_sql,
};
pub use stream::{Decision, Stream};
pub use update::Update;

/// The params row naming the directory stored relative paths are relative to.
const BASE: &str = "paths_relative_to";

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::input::extract::Unextracted;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

/// The content hash the index stores for a document of these bytes
/// (XXH3-128; `content_hash`).
pub fn content_hash(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// The page cache of a streaming writer, in KiB: 64 MiB holds the
/// band-key pages of about a million documents' worth of recent inserts.
const STREAM_CACHE_KIB: i64 = 64 * 1024;

/// Row id of a document in the index. Stable while the document's path stays
/// indexed (a changed document keeps its id); not reused order-wise across files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowId(pub i64);

/// The file metadata that decides whether a stored signature is still valid: a file
/// whose `FileStat` is unchanged is not read again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStat {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (negative before it).
    pub mtime_ns: i64,
    /// Device id, where the platform has one.
    pub dev: Option<u64>,
    /// Inode number, where the platform has one.
    pub inode: Option<u64>,
}

/// A document to store: everything the index keeps about one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedDoc {
    pub path: PathBuf,
    pub stat: FileStat,
    /// 128-bit hash of the file's bytes.
    pub content_hash: u128,
    /// The file looked binary and was not shingled (only with
    /// `include_binary = false`); then `shingle_count` is 0.
    pub binary: bool,
    /// Why a `binary` file was not compared, when its kind or the failure of
    /// its extraction is known ("damaged docx", "image file").
    pub not_compared: Option<Unextracted>,
    /// Number of distinct shingles (0 = too short to have any, or binary; never
    /// pairs).
    pub shingle_count: u64,
    /// MinHash signature: exactly `Params::n` values, or none when
    /// `shingle_count` is 0.
    pub signature: Vec<u32>,
    /// One LSH bucket key per band (`Params::bands` values, band 0 first), or none
    /// when `shingle_count` is 0.
    pub band_keys: Vec<u64>,
}

/// A document as read back from the index (band keys via [`Index::band_keys`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredDoc {
    pub id: RowId,
    pub path: PathBuf,
    pub stat: FileStat,
    pub content_hash: u128,
    pub binary: bool,
    /// As [`IndexedDoc::not_compared`].
    pub not_compared: Option<Unextracted>,
    pub shingle_count: u64,
    pub signature: Vec<u32>,
}

/// Path and metadata of an indexed file: what a caller needs to decide which files
/// are unchanged, changed, new or gone, without loading signatures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFile {
    pub id: RowId,
    pub path: PathBuf,
    pub stat: FileStat,
}

/// A batch of changes applied by [`Index::apply`] in one transaction.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Documents whose path is not yet indexed.
    pub added: Vec<IndexedDoc>,
    /// Documents whose path is indexed; their stored values are replaced.
    pub changed: Vec<IndexedDoc>,
    /// Indexed paths to forget.
    pub removed: Vec<PathBuf>,
}

/// Counts of what a committed update did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateSummary {
    pub added: u64,
    pub changed: u64,
    pub removed: u64,
}

/// How to open an index.
#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    /// How long to wait for another process's lock before giving up with
    /// [`IndexError::Busy`].
    pub busy_timeout: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            busy_timeout: Duration::from_secs(30),
        }
    }
}

/// An open index. Reads are consistent snapshots; writes go through [`Update`].
pub struct Index {
    conn: Connection,
    path: PathBuf,
    params: Params,
    options: OpenOptions,
    /// The file's format version: [`FORMAT_VERSION`], or an older one still
    /// read ([`OLDEST_READABLE`]) by a lookup that did not upgrade it.
    format: u32,
    /// What every document is ([`ItemKind`]; files before format 5).
    kind: ItemKind,
    /// The lookup tail's keys as last read (format 6, `tail`).
    tail: RefCell<Option<tail::Tail>>,
    /// Every document's signature as last read (`signatures`).
    signatures: RefCell<Option<signatures::Signatures>>,
    /// Sets of stored texts lookups verified (`signatures::TextSets`).
    text_sets: RefCell<signatures::TextSets>,
}

impl fmt::Debug for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Index")
            .field("path", &self.path)
            .field("params", &self.params)
            .finish()
    }
}

impl Index {
    /// Opens the index at `path` for building or updating with `params`, creating it
    /// if the file does not exist (or is empty). An existing index must have been
    /// built with exactly `params` and the current [`FORMAT_VERSION`].
    pub fn open_or_create(
        path: &Path,
        params: &Params,
        options: OpenOptions,
    ) -> Result<Index, IndexError> {
        Self::open_or_create_kind(path, params, ItemKind::Files, options)
    }

    /// [`Index::open_or_create`] for items of `kind`: a new index holds
    /// that kind; an existing one of another kind is
    /// [`IndexError::KindMismatch`], checked before its parameters.
    pub fn open_or_create_kind(
        path: &Path,
        params: &Params,
        kind: ItemKind,
        options: OpenOptions,
    ) -> Result<Index, IndexError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Self::connect(path, flags, options)?;
        let index = match Self::load(conn, path, options)? {
            Loaded::Existing(index) => *index,
            Loaded::Empty(conn) => Self::create(conn, path, params, kind, options)?,
        };
        index.require_kind(kind)?;
        if index.params != *params {
            return Err(IndexError::ParamsMismatch {
                path: path.to_owned(),
                stored: Box::new(index.params.clone()),
                requested: Box::new(params.clone()),
            });
        }
        let mut index = index;
        index.upgrade()?;
        Ok(index)
    }

    /// Opens an existing index with whatever parameters it was built with (for
    /// lookups: the caller signs its query documents with [`Index::params`]).
    pub fn open_existing(path: &Path, options: OpenOptions) -> Result<Index, IndexError> {
        if !path.exists() {
            return Err(IndexError::Missing {
                path: path.to_owned(),
            });
        }
        // READ_WRITE without CREATE: SQLite falls back to read-only when the file is
        // write-protected, and with write access it can roll back a journal left by a
        // killed update.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Self::connect(path, flags, options)?;
        match Self::load(conn, path, options)? {
            Loaded::Existing(index) => Ok(*index),
            Loaded::Empty(_) => Err(IndexError::Missing {
                path: path.to_owned(),
            }),
        }
    }

    fn connect(
        path: &Path,
        flags: OpenFlags,
        options: OpenOptions,
    ) -> Result<Connection, IndexError> {
        let err = |e| classify(path, e, options.busy_timeout);
        let conn = Connection::open_with_flags(path, flags).map_err(err)?;
        conn.busy_timeout(options.busy_timeout).map_err(err)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(err)?;
        // FULL: the journal is synced before the database is touched, which is what
        // makes a killed or power-cut update roll back cleanly.
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(err)?;
        Ok(conn)
    }

    /// Reads the header and parameters, telling a fresh empty database from a
    /// simfind index from anything else.
    fn load(conn: Connection, path: &Path, options: OpenOptions) -> Result<Loaded, IndexError> {
        let not_index = |reason: String| IndexError::NotAnIndex {
            path: path.to_owned(),
            reason,
        };
        let err = |e| classify(path, e, options.busy_timeout);

        // One read transaction, so that the header, the file length and the params
        // are seen at the same committed state.
        let (app_id, version, objects, page_count, page_size): (i32, i64, i64, i64, i64) = {
            let tx = conn.unchecked_transaction().map_err(err)?;
            let app_id = tx
                .pragma_query_value(None, "application_id", |r| r.get(0))
                .map_err(err)?;
            let version = tx
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .map_err(err)?;
            let objects = tx
                .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
                .map_err(err)?;
            let page_count = tx
                .pragma_query_value(None, "page_count", |r| r.get(0))
                .map_err(err)?;
            let page_size = tx
                .pragma_query_value(None, "page_size", |r| r.get(0))
                .map_err(err)?;
            tx.finish().map_err(err)?;
            (app_id, version, objects, page_count, page_size)
        };

        let file_len = std::fs::metadata(path)
            .map_err(|e| not_index(format!("cannot stat the file: {e}")))?
            .len();
        if app_id == 0 && objects == 0 {
            // SQLite reads a file too short to hold its header as an empty database;
            // such a file was something else (or a cut-off index), not a new index.
            if page_count == 0 && file_len > 0 {
                return Err(not_index(format!(
                    "{file_len} bytes, too short to be an SQLite database: truncated or not a database"
                )));
            }
            return Ok(Loaded::Empty(conn));
        }
        if app_id != APPLICATION_ID {
            return Err(not_index(format!(
                "an SQLite database of another application (application_id {app_id:#x})"
            )));
        }
        if !(i64::from(OLDEST_READABLE)..=i64::from(FORMAT_VERSION)).contains(&version) {
            return Err(IndexError::FormatVersion {
                path: path.to_owned(),
                found: version,
            });
        }
        // SQLite reads pages past the end of a truncated file as zeros and may notice
        // only much later; the header's page count makes truncation visible at once.
        let expected_len = page_count.saturating_mul(page_size);
        if i64::try_from(file_len).unwrap_or(i64::MAX) < expected_len {
            return Err(not_index(format!(
                "truncated: {file_len} bytes, the database header says {expected_len}"
            )));
        }

        let (params, kind) = Self::read_params(&conn, path, options, version)?;
        Ok(Loaded::Existing(Box::new(Index {
            conn,
            path: path.to_owned(),
            params,
            options,
            format: version as u32,
            kind,
            tail: RefCell::new(None),
            signatures: RefCell::new(None),
            text_sets: RefCell::default(),
        })))
    }

    fn read_params(
        conn: &Connection,
        path: &Path,
        options: OpenOptions,
        version: i64,
    ) -> Result<(Params, ItemKind), IndexError> {
        let not_index = |reason: String| IndexError::NotAnIndex {
            path: path.to_owned(),
            reason,
        };
        let err = |e| classify(path, e, options.busy_timeout);
        let mut stmt = conn
            .prepare("SELECT name, value FROM params")
            .map_err(err)?;
        let rows: Vec<(String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)?;
        let get = |name: &str| -> Result<&str, IndexError> {
            rows.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
                .ok_or_else(|| not_index(format!("parameter `{name}` is missing")))
        };
        fn num<T: std::str::FromStr>(path: &Path, name: &str, v: &str) -> Result<T, IndexError> {
            v.parse().map_err(|_| IndexError::NotAnIndex {
                path: path.to_owned(),
                reason: format!("parameter `{name}` has the malformed value {v:?}"),
            })
        }
        let format: u32 = num(path, "format_version", get("format_version")?)?;
        if i64::from(format) != version {
            return Err(IndexError::FormatVersion {
                path: path.to_owned(),
                found: i64::from(format),
            });
        }
        // Versions before 5 hold files only.
        let kind = ItemKind::parse(get("item_kind").unwrap_or("files"))
            .map_err(|e| not_index(format!("parameter `item_kind`: {e}")))?;
        let params = Params {
            shingle_kind: get("shingle_kind")?.to_owned(),
            k: num(path, "k", get("k")?)?,
            normalisation: get("normalisation")?.to_owned(),
            n: num(path, "n", get("n")?)?,
            bands: num(path, "bands", get("bands")?)?,
            rows: num(path, "rows", get("rows")?)?,
            seed: num(path, "seed", get("seed")?)?,
            minhash: get("minhash")?.to_owned(),
            stop_words: get("stop_words")?.to_owned(),
            include_binary: match get("binary_files")? {
                "include" => true,
                "skip" => false,
                other => {
                    return Err(not_index(format!(
                        "parameter `binary_files` has the malformed value {other:?}"
                    )));
                }
            },
            // Indexes made before extraction existed compared bytes.
            extraction: get("extraction").unwrap_or("none").to_owned(),
        };
        Ok((params, kind))
    }

    /// Creates the schema, parameters and header marks in one transaction, so that a
    /// crash during creation leaves an empty file (treated as new), never a
    /// half-made index.
    fn create(
        mut conn: Connection,
        path: &Path,
        params: &Params,
        kind: ItemKind,
        options: OpenOptions,
    ) -> Result<Index, IndexError> {
        let err = |e| classify(path, e, options.busy_timeout);
        conn.pragma_update(None, "journal_mode", "DELETE")
            .map_err(err)?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        // Another process may have created the index while this one waited for the lock.
        let objects: i64 = tx
            .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
            .map_err(err)?;
        if objects == 0 {
            tx.execute_batch(SCHEMA).map_err(err)?;
            tx.execute_batch(PREFIX_TABLE).map_err(err)?;
            tx.execute_batch(TEXTS_TABLE).map_err(err)?;
            // Version 6's band keys instead of the (empty) `band_keys`.
            tail::migrate(&tx).map_err(err)?;
            let mut rows = params.to_rows();
            rows.push(("format_version", FORMAT_VERSION.to_string()));
            rows.push(("item_kind", kind.name().to_owned()));
            for (name, value) in rows {
                tx.execute(
                    "INSERT INTO params (name, value) VALUES (?1, ?2)",
                    params![name, value],
                )
                .map_err(err)?;
            }
            tx.pragma_update(None, "application_id", APPLICATION_ID)
                .map_err(err)?;
            tx.pragma_update(None, "user_version", FORMAT_VERSION)
                .map_err(err)?;
        }
        tx.commit().map_err(err)?;
        match Self::load(conn, path, options)? {
            Loaded::Existing(index) => Ok(*index),
            Loaded::Empty(_) => Err(IndexError::NotAnIndex {
                path: path.to_owned(),
                reason: "the schema could not be created".into(),
            }),
        }
    }

    /// The parameters every signature in this index was made with.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// What every document of this index is.
    pub fn kind(&self) -> ItemKind {
        self.kind
    }

    /// Refuses items of `given` kind unless they are the index's, naming
    /// both (with the index's recipe): called before any work.
    pub fn require_kind(&self, given: ItemKind) -> Result<(), IndexError> {
        if given == self.kind {
            return Ok(());
        }
        Err(IndexError::KindMismatch {
            path: self.path.clone(),
            stored: self.kind.describe(&self.params),
            given,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: rusqlite::Error) -> IndexError {
        classify(&self.path, e, self.options.busy_timeout)
    }

    fn not_index(&self, reason: String) -> IndexError {
        IndexError::NotAnIndex {
            path: self.path.clone(),
            reason,
        }
    }

    /// Runs SQLite's `quick_check` over the whole file (reads every page, so it costs
    /// about as much as copying the file) and checks the index's own invariant that
    /// every document has one key per band.
    pub fn verify_integrity(&self) -> Result<(), IndexError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA quick_check")
            .map_err(|e| self.err(e))?;
        let problems: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        if problems != ["ok"] {
            return Err(self.not_index(format!("integrity check failed: {}", problems.join("; "))));
        }
        let bad: i64 = if self.format < 6 {
            self.conn.query_row(
                "SELECT count(*) FROM documents d WHERE \
                 (SELECT count(*) FROM band_keys b WHERE b.doc = d.id) \
                 != CASE WHEN d.shingle_count = 0 THEN 0 ELSE ?1 END",
                [i64::from(self.params.bands)],
                |r| r.get(0),
            )
        } else {
            self.conn.query_row(
                "SELECT count(*) FROM documents d LEFT JOIN doc_keys k ON k.doc = d.id WHERE \
                 coalesce(length(k.keys), 0) != CASE WHEN d.shingle_count = 0 THEN 0 ELSE 8 * ?1 END",
                [i64::from(self.params.bands)],
                |r| r.get(0),
            )
        }
        .map_err(|e| self.err(e))?;
        if bad != 0 {
            return Err(self.not_index(format!(
                "{bad} documents have the wrong number of band keys"
            )));
        }
        if self.format >= 6 {
            // Every key of a document outside the tail is in the lookup.
            let (looked_up, expected): (i64, i64) = self
                .conn
                .query_row(
                    "SELECT (SELECT count(*) FROM band_lookup), \
                     ?1 * (SELECT count(*) FROM doc_keys k \
                           WHERE k.doc NOT IN (SELECT doc FROM lookup_tail))",
                    [i64::from(self.params.bands)],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(|e| self.err(e))?;
            if looked_up != expected {
                return Err(self.not_index(format!(
                    "the band-key lookup holds {looked_up} keys, its documents have {expected}"
                )));
            }
        }
        Ok(())
    }

    /// Number of indexed documents.
    pub fn len(&self) -> Result<u64, IndexError> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(n as u64)
    }

    /// True if no document is indexed.
    pub fn is_empty(&self) -> Result<bool, IndexError> {
        Ok(self.len()? == 0)
    }

    /// Paths and metadata of every indexed file, sorted by path bytes.
    pub fn files(&self) -> Result<Vec<StoredFile>, IndexError> {
        stored_files(&self.conn).map_err(|e| self.err(e))
    }

    /// Every indexed document, sorted by path bytes.
    pub fn documents(&self) -> Result<Vec<StoredDoc>, IndexError> {
        all_documents(&self.conn, &self.path, &self.params).map_err(|e| self.err(e))?
    }

    /// The document with id `id`, if it is indexed.
    pub fn document(&self, id: RowId) -> Result<Option<StoredDoc>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {DOC_COLUMNS} FROM documents WHERE id = ?1"
            ))
            .map_err(|e| self.err(e))?;
        let raw = stmt
            .query_row([id.0], read_raw)
            .optional()
            .map_err(|e| self.err(e))?;
        raw.map(|raw| self.convert(raw)).transpose()
    }

    /// Every indexed document with between `min` and `max` shingles (both
    /// included), sorted by path bytes: the length filter of an exact lookup.
    pub fn documents_with_shingles(
        &self,
        min: u64,
        max: u64,
    ) -> Result<Vec<StoredDoc>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {DOC_COLUMNS} FROM documents WHERE shingle_count BETWEEN ?1 AND ?2 \
                 ORDER BY path"
            ))
            .map_err(|e| self.err(e))?;
        let raws: Vec<RawDoc> = stmt
            .query_map(params![u64_to_sql(min), u64_to_sql(max)], read_raw)
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        raws.into_iter().map(|raw| self.convert(raw)).collect()
    }

    /// The band keys stored for `id`, band 0 first (empty if `id` is not indexed).
    pub fn band_keys(&self, id: RowId) -> Result<Vec<u64>, IndexError> {
        if self.format >= 6 {
            let blob: Option<Vec<u8>> = self
                .conn
                .prepare_cached("SELECT keys FROM doc_keys WHERE doc = ?1")
                .and_then(|mut s| s.query_row([id.0], |r| r.get(0)).optional())
                .map_err(|e| self.err(e))?;
            return match blob {
                None => Ok(Vec::new()),
                Some(blob) => schema::blob_to_keys(&blob).ok_or_else(|| {
                    self.not_index(format!("document {} has malformed band keys", id.0))
                }),
            };
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT band, key FROM band_keys WHERE doc = ?1 ORDER BY band")
            .map_err(|e| self.err(e))?;
        let rows: Vec<(i64, i64)> = stmt
            .query_map([id.0], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        for (expected, (band, _)) in rows.iter().enumerate() {
            if *band != expected as i64 {
                return Err(self.not_index(format!("document {} has a gap in its band keys", id.0)));
            }
        }
        Ok(rows.into_iter().map(|(_, key)| sql_to_u64(key)).collect())
    }

    /// Ids of the indexed documents that share at least one band's key with
    /// `band_keys` (the LSH candidates of a document with these keys), sorted.
    pub fn candidates(&self, band_keys: &[u64]) -> Result<Vec<RowId>, IndexError> {
        if band_keys.len() != self.params.bands as usize {
            return Err(IndexError::Invalid {
                path: self.path.clone(),
                reason: format!(
                    "lookup with {} band keys, but the index has {} bands",
                    band_keys.len(),
                    self.params.bands
                ),
            });
        }
        let table = if self.format >= 6 {
            "band_lookup"
        } else {
            "band_keys"
        };
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT doc FROM {table} WHERE band = ?1 AND key = ?2"
            ))
            .map_err(|e| self.err(e))?;
        let mut found = BTreeSet::new();
        if self.format >= 6 {
            self.tail_candidates(band_keys, &mut found)?;
        }
        for (band, &key) in band_keys.iter().enumerate() {
            let rows = stmt
                .query_map(params![band as i64, u64_to_sql(key)], |r| {
                    r.get::<_, i64>(0)
                })
                .map_err(|e| self.err(e))?;
            for doc in rows {
                found.insert(RowId(doc.map_err(|e| self.err(e))?));
            }
        }
        Ok(found.into_iter().collect())
    }

    /// Adds to `found` the documents of the lookup tail (`tail`) that
    /// share a band key with `band_keys`, reading the tail again if
    /// another connection has committed since it was read.
    fn tail_candidates(
        &self,
        band_keys: &[u64],
        found: &mut BTreeSet<RowId>,
    ) -> Result<(), IndexError> {
        let version = tail::data_version(&self.conn).map_err(|e| self.err(e))?;
        let mut cached = self.tail.borrow_mut();
        if cached.as_ref().is_none_or(|t| t.version != version) {
            *cached = Some(tail::Tail::load(&self.conn, version).map_err(|e| self.err(e))?);
        }
        if let Some(tail) = cached.as_ref() {
            for (band, &key) in band_keys.iter().enumerate() {
                tail.find(band, key, found);
            }
        }
        Ok(())
    }

    /// The stored texts ([`Update::store_text`]) of those of `docs` that
    /// have one, by id: what exact verification reads for a document that
    /// is not a file. Only documents without a device and inode can have
    /// one (a file always has them where the platform does), so an index of
    /// files asks nothing; a file of a format before stored texts has none.
    pub fn stored_texts<'d>(
        &self,
        docs: impl IntoIterator<Item = &'d StoredDoc>,
    ) -> Result<HashMap<RowId, Vec<u8>>, IndexError> {
        let mut found = HashMap::new();
        if self.format < 4 {
            return Ok(found);
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT body FROM texts WHERE doc = ?1")
            .map_err(|e| self.err(e))?;
        for doc in docs {
            if doc.stat.dev.is_some() || doc.stat.inode.is_some() {
                continue;
            }
            let body: Option<Vec<u8>> = stmt
                .query_row([doc.id.0], |r| r.get(0))
                .optional()
                .map_err(|e| self.err(e))?;
            if let Some(body) = body {
                found.insert(doc.id, body);
            }
        }
        Ok(found)
    }

    /// The id of the document stored under `path` (a file's path, a text's
    /// id), if any.
    pub fn id_of(&self, path: &Path) -> Result<Option<RowId>, IndexError> {
        self.conn
            .prepare_cached("SELECT id FROM documents WHERE path = ?1")
            .and_then(|mut s| s.query_row([path_to_blob(path)], |r| r.get(0)).optional())
            .map(|id| id.map(RowId))
            .map_err(|e| self.err(e))
    }

    /// Runs `reads` in one read transaction: one consistent snapshot, and
    /// one shared lock (with its journal check and cache validation) for all
    /// of its statements instead of one per statement; a lookup's two dozen
    /// statements each took their own. Not for use inside an [`Update`].
    pub fn snapshot<T>(
        &self,
        reads: impl FnOnce(&Index) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let result = reads(self);
        // Nothing was written: ending the transaction only releases the lock.
        tx.finish().map_err(|e| self.err(e))?;
        result
    }

    /// The directory the stored relative paths are relative to, when it is
    /// not this process's current directory: a reader joins it to them, or
    /// reads another file (or none) by the same name. `None` when they are
    /// spelled from here, or the index predates the record (then read
    /// against the current directory, as they always were).
    pub(crate) fn paths_base_elsewhere(&self) -> Option<PathBuf> {
        if self.kind != ItemKind::Files {
            return None; // Other items are stored under ids, not paths.
        }
        let base: PathBuf = self
            .conn
            .prepare_cached("SELECT value FROM params WHERE name = ?1")
            .and_then(|mut s| s.query_row([BASE], |r| r.get::<_, String>(0)).optional())
            .ok()
            .flatten()?
            .into();
        let here = std::env::current_dir().and_then(|d| d.canonicalize()).ok();
        (here.as_deref() != Some(base.as_path())).then_some(base)
    }

    /// How a file named `path` from the current directory is stored (and
    /// looked up) in an index whose relative paths are relative to `base`
    /// ([`Index::paths_base_elsewhere`]): relative to `base` when it lies
    /// below it, else absolute. So every relative path stored keeps one
    /// base, and `--remove docs/a.txt` finds what `docs/a.txt` added.
    pub(crate) fn spelled_for(base: Option<&Path>, path: &Path) -> PathBuf {
        let Some(base) = base.filter(|_| path.is_relative()) else {
            return path.to_path_buf();
        };
        let Ok(here) = std::env::current_dir().and_then(|d| d.canonicalize()) else {
            return path.to_path_buf();
        };
        let joined = here.join(path);
        // `../share/a.txt` from a sibling: the directory resolved by the
        // file system (as the walk's root was), the name kept as given.
        let absolute = match (joined.parent().map(Path::canonicalize), joined.file_name()) {
            (Some(Ok(directory)), Some(name)) => directory.join(name),
            _ => joined,
        };
        match absolute.strip_prefix(base) {
            Ok(below) if !below.as_os_str().is_empty() => below.to_path_buf(),
            _ => absolute,
        }
    }

    fn convert(&self, raw: RawDoc) -> Result<StoredDoc, IndexError> {
        convert(&self.path, &self.params, raw)
    }

    /// Starts an update: takes the write lock (waiting up to the busy timeout for
    /// another writer), so that what the caller reads through [`Update::files`] is
    /// what its changes will apply to. Nothing is visible to others until
    /// [`Update::commit`]; dropping the `Update` (or the process dying) discards it.
    ///
    /// An index SQLite could open only read-only (write-protected file or
    /// directory, read-only medium) gets a read transaction instead: an update
    /// that finds nothing to change commits as a no-op (`scan --db` on an
    /// index that is up to date), and one that would write fails at its first
    /// change with SQLite's "attempt to write a readonly database".
    ///
    /// Its commit merges the lookup tail (`tail`) when it changed anything:
    /// a bulk update's keys go into the lookup in key order, and a tail a
    /// stream left behind goes with them.
    pub fn begin_update(&mut self) -> Result<Update<'_>, IndexError> {
        let path = &self.path;
        let options = self.options;
        let read_only = self
            .conn
            .is_readonly(rusqlite::MAIN_DB)
            .map_err(|e| classify(path, e, options.busy_timeout))?;
        let behavior = if read_only {
            TransactionBehavior::Deferred
        } else {
            TransactionBehavior::Immediate
        };
        let tx = self
            .conn
            .transaction_with_behavior(behavior)
            .map_err(|e| classify(path, e, options.busy_timeout))?;
        Ok(Update {
            tx,
            path,
            params: &self.params,
            options,
            summary: UpdateSummary::default(),
            tail: tail::TailCache::new(&self.tail),
            merge_at: 0,
        })
    }

    /// Gives this connection a page cache of [`STREAM_CACHE_KIB`]: for a
    /// writer that touches pages across the whole band-key index, batch
    /// after batch ([`stream::Stream`]). Best effort: SQLite only refuses
    /// it for a value out of range, which this is not.
    pub fn widen_cache(&self) {
        let _ = self
            .conn
            .pragma_update(None, "cache_size", -STREAM_CACHE_KIB);
    }

    /// [`Index::begin_update`] for a caller that keeps reading through this
    /// `Index` while the update is open ([`crate::index::stream`]: a lookup
    /// and the insert it decides, under one lock): the same transaction, on
    /// the same connection, so those reads see the update's own writes.
    /// Not to be mixed with [`Index::snapshot`] (SQLite has no nested
    /// transactions: that would fail, not corrupt) nor with a second update.
    /// Its commit merges the lookup tail only once it holds
    /// `tail::TAIL_KEYS` keys: a stream's inserts stay appends.
    pub fn begin_locked(&self) -> Result<Update<'_>, IndexError> {
        let read_only = self
            .conn
            .is_readonly(rusqlite::MAIN_DB)
            .map_err(|e| self.err(e))?;
        let behavior = if read_only {
            TransactionBehavior::Deferred
        } else {
            TransactionBehavior::Immediate
        };
        let tx =
            rusqlite::Transaction::new_unchecked(&self.conn, behavior).map_err(|e| self.err(e))?;
        Ok(Update {
            tx,
            path: &self.path,
            params: &self.params,
            options: self.options,
            summary: UpdateSummary::default(),
            tail: tail::TailCache::new(&self.tail),
            merge_at: tail::TAIL_KEYS,
        })
    }

    /// Applies `changes` in one transaction: all of them or, on any error, none.
    pub fn apply(&mut self, changes: &Changes) -> Result<UpdateSummary, IndexError> {
        let mut update = self.begin_update()?;
        for path in &changes.removed {
            update.remove(path)?;
        }
        for doc in &changes.changed {
            update.change(doc)?;
        }
        for doc in &changes.added {
            update.add(doc)?;
        }
        update.commit()
    }
}

enum Loaded {
    // Boxed: an index holds its lookup tail's cell beside the connection.
    Existing(Box<Index>),
    Empty(Connection),
}

/// Checks and converts one raw `documents` row.
fn convert(path: &Path, params: &Params, raw: RawDoc) -> Result<StoredDoc, IndexError> {
    let not_index = |reason: String| IndexError::NotAnIndex {
        path: path.to_owned(),
        reason,
    };
    let (id, doc_path, size, mtime_ns, dev, inode, hash, binary, shingle_count, signature) = raw;
    let expected = if shingle_count == 0 {
        0
    } else {
        params.n as usize
    };
    let content_hash = blob_to_hash(&hash)
        .ok_or_else(|| not_index(format!("document {id} has a malformed content hash")))?;
    let signature = blob_to_signature(&signature)
        .filter(|s| s.len() == expected)
        .ok_or_else(|| {
            not_index(format!(
                "document {id} has a signature of {} bytes, expected {}",
                signature.len(),
                4 * expected
            ))
        })?;
    Ok(StoredDoc {
        id: RowId(id),
        path: blob_to_path(doc_path),
        stat: FileStat {
            size: sql_to_u64(size),
            mtime_ns,
            dev: dev.map(sql_to_u64),
            inode: inode.map(sql_to_u64),
        },
        content_hash,
        binary: binary != 0,
        not_compared: binary_to_reason(binary),
        shingle_count: sql_to_u64(shingle_count),
        signature,
    })
}

/// Every document, sorted by path bytes. The outer error is SQLite's, the inner
/// one a malformed row.
fn all_documents(
    conn: &Connection,
    path: &Path,
    params: &Params,
) -> rusqlite::Result<Result<Vec<StoredDoc>, IndexError>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {DOC_COLUMNS} FROM documents ORDER BY path"
    ))?;
    let raws: Vec<RawDoc> = stmt.query_map([], read_raw)?.collect::<Result<_, _>>()?;
    Ok(raws
        .into_iter()
        .map(|raw| convert(path, params, raw))
        .collect())
}

fn stored_files(conn: &Connection) -> rusqlite::Result<Vec<StoredFile>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, path, size, mtime_ns, dev, inode FROM documents ORDER BY path",
    )?;
    stmt.query_map([], |r| {
        Ok(StoredFile {
            id: RowId(r.get(0)?),
            path: blob_to_path(r.get(1)?),
            stat: FileStat {
                size: sql_to_u64(r.get(2)?),
                mtime_ns: r.get(3)?,
                dev: r.get::<_, Option<i64>>(4)?.map(sql_to_u64),
                inode: r.get::<_, Option<i64>>(5)?.map(sql_to_u64),
            },
        })
    })?
    .collect()
}

#[cfg(test)]
mod tests;
