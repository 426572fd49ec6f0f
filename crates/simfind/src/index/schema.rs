//! The on-disk layout of an index: the SQLite schema, its format version and
//! application id, and the codecs between Rust values and stored columns
//! (paths as bytes, signatures as little-endian `u32`s, content hashes as
//! big-endian 16 bytes, unsigned integers bit for bit in SQLite's `i64`).
//!
//! Invariant: a value written by these codecs reads back equal; a malformed
//! column reads back as `None` (an error for the caller), never a panic.

use std::path::{Path, PathBuf};

use crate::input::extract::Unextracted;

/// Version of the on-disk layout. Bump it whenever the schema or the meaning of a
/// stored value changes; older files are then refused with a rebuild hint.
///
/// Version 2: the MinHash kernel (`minhash`: `classic` or `oph`) is a parameter;
/// version 1 indexes were all `classic` but are rebuilt rather than migrated.
/// Version 3: the `prefix_tokens` table (the prefix index of MMDS 3.9.4, for
/// exact queries); a version 2 file is upgraded in place (the table added)
/// when it is opened for writing, and read as it is (no prefix index) by
/// lookups.
/// Version 4: the `texts` table (documents stored with their text, keyed by
/// an id rather than a file: what the Python `Index` inserts); a version 2
/// or 3 file is upgraded in place by `TEXTS_TABLE` and `MIGRATE` when
/// opened for writing, and read as it is (no stored texts) by lookups. An
/// older simfind refuses a version 4 file rather than reading its texts'
/// ids as paths of files it cannot find.
/// Version 5: the `params` row `item_kind` (`files`, `records` or `sets`:
/// what every document of the index is, `index::kind`). A file without it
/// (versions 2–4) holds files, and is upgraded by [`MIGRATE`] when opened
/// for writing. An older simfind refuses a version 5 file rather than
/// shingling a query file against stored records or sets.
/// Version 6: band keys in [`LOOKUP_TABLES`] instead of the `band_keys`
/// table and its index: each key once in `band_lookup`, ordered by band
/// and key, each document's keys once as one blob in `doc_keys`, and the
/// documents whose keys are not in `band_lookup` yet listed in
/// `lookup_tail` (`index::tail`). A version 2–5 file is upgraded by
/// `index::tail::migrate` when opened for writing, and read as it is by
/// lookups. An older simfind refuses a version 6 file, whose `band_keys`
/// it would not find.
pub const FORMAT_VERSION: u32 = 6;

/// The oldest version this simfind reads (and upgrades when it writes).
pub const OLDEST_READABLE: u32 = 2;

/// Stored as the modification time of a file whose stored signature must not be
/// trusted on the next run (no modification time, or modified too recently).
pub const UNTRUSTED_MTIME: i64 = i64::MIN;

/// SQLite `application_id` marking a file as a simfind index ("SMFD"), so that an
/// unrelated SQLite database is recognised as such before anything is read from it.
pub const APPLICATION_ID: i32 = 0x534D_4644;

/// The schema of version 2, created in one transaction together with the
/// parameters and [`PREFIX_TABLE`] (what version 3 adds); a new index
/// then trades its `band_keys` for [`LOOKUP_TABLES`] (version 6).
pub const SCHEMA: &str = "
CREATE TABLE params (
    name  TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
CREATE TABLE documents (
    id            INTEGER PRIMARY KEY,
    path          BLOB NOT NULL UNIQUE,
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    dev           INTEGER,
    inode         INTEGER,
        content_hash  BLOB NOT NULL,
    binary        INTEGER NOT NULL,
    shingle_count INTEGER NOT NULL,
    signature     BLOB NOT NULL
);
CREATE TABLE band_keys (
    doc  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    band INTEGER NOT NULL,
    key  INTEGER NOT NULL,
    PRIMARY KEY (doc, band)
) WITHOUT ROWID;
CREATE INDEX band_keys_lookup ON band_keys(band, key);
";

/// The prefix index (format version 3): for each document with shingles
/// and an index built with `--exact-prefix T`, the first
/// `prefix_length(|d|, T)` shingle hashes of its set in the global order
/// (`token`, stored bit for bit), each with its 0-based position `pos` and
/// the document's shingle count `len` (so that a probe reads one B-tree);
/// `prefix_order` holds the frequent tokens that order puts last (see
/// `index::prefix`).
/// Kept in step with `documents` by every update; empty (and `params` has no
/// `prefix_threshold`) when the index has no prefix index.
pub const PREFIX_TABLE: &str = "
CREATE TABLE IF NOT EXISTS prefix_tokens (
    token INTEGER NOT NULL,
    doc   INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    pos   INTEGER NOT NULL,
    len   INTEGER NOT NULL,
    PRIMARY KEY (token, doc)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS prefix_tokens_doc ON prefix_tokens(doc);
CREATE TABLE IF NOT EXISTS prefix_order (
    token INTEGER PRIMARY KEY,
    count INTEGER NOT NULL
);
";

/// The stored texts (format version 4): the bytes of each document that
/// is not a file (`NewDoc::Text`), so that exact verification re-reads it
/// from here instead of from a path. A document with a row here has no
/// device or inode; its `path` is its id. Its rows go with the document.
pub const TEXTS_TABLE: &str = "
CREATE TABLE IF NOT EXISTS texts (
    doc  INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    body BLOB NOT NULL
);
";

/// How version 6 stores band keys (`index::tail`):
/// - `band_lookup`: one row per band key of every document not in the
///   tail, in (band, key) order: what a lookup probes. `WITHOUT ROWID`,
///   so the row is the key, stored once (version 5 kept each key twice,
///   in `band_keys` and in its lookup index).
/// - `doc_keys`: a document's `bands` keys as one blob of little-endian
///   `u64`s, band 0 first (8 bytes a key, where a `band_keys` row took
///   about 20): what removing or changing it deletes from `band_lookup`,
///   and what the tail is looked up in.
/// - `lookup_tail`: the documents added since the last merge, whose keys
///   are in `doc_keys` only. Adding a document then appends three rows
///   instead of inserting `bands` keys at random places in the lookup
///   B-tree (each in a page of its own); the tail is merged into
///   `band_lookup` in key order, a page written once for many keys.
pub(super) const LOOKUP_TABLES: &str = "
CREATE TABLE IF NOT EXISTS doc_keys (
    doc  INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    keys BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS band_lookup (
    band INTEGER NOT NULL,
    key  INTEGER NOT NULL,
    doc  INTEGER NOT NULL,
    PRIMARY KEY (band, key, doc)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lookup_tail (
    doc INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE
);
";

/// Upgrades a version 2, 3 or 4 index to version 5's content, run after
/// [`PREFIX_TABLE`] and [`TEXTS_TABLE`] in one transaction: the new tables
/// are empty, an index of those versions holds files, and nothing stored
/// changes meaning, so only the kind is written (a no-op on version 5).
/// `index::tail::migrate` then moves the band keys and writes the two
/// version marks, in the same transaction.
pub(super) const MIGRATE: &str = "
INSERT OR IGNORE INTO params (name, value) VALUES ('item_kind', 'files');
";

pub(super) fn path_to_blob(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        // Windows paths are UTF-16; the index stores their UTF-8 form. Unpaired
        // surrogates do not round-trip, which only affects such pathological names.
        path.to_string_lossy().into_owned().into_bytes()
    }
}

pub(super) fn blob_to_path(bytes: Vec<u8>) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}

pub(super) fn signature_to_blob(signature: &[u32]) -> Vec<u8> {
    signature.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub(super) fn keys_to_blob(keys: &[u64]) -> Vec<u8> {
    keys.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub(super) fn blob_to_keys(blob: &[u8]) -> Option<Vec<u64>> {
    if !blob.len().is_multiple_of(8) {
        return None;
    }
    Some(
        blob.chunks_exact(8)
            .map(|c| {
                let mut bytes = [0; 8];
                bytes.copy_from_slice(c);
                u64::from_le_bytes(bytes)
            })
            .collect(),
    )
}

pub(super) fn blob_to_signature(blob: &[u8]) -> Option<Vec<u32>> {
    if !blob.len().is_multiple_of(4) {
        return None;
    }
    Some(
        blob.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// SQLite integers are signed 64-bit; unsigned values are stored bit for bit.
pub(super) fn u64_to_sql(v: u64) -> i64 {
    v as i64
}

pub(super) fn sql_to_u64(v: i64) -> u64 {
    v as u64
}

/// Big-endian, so `hex(content_hash)` in `sqlite3` prints the usual hex form.
pub(super) fn hash_to_blob(hash: u128) -> [u8; 16] {
    hash.to_be_bytes()
}

pub(super) fn blob_to_hash(blob: &[u8]) -> Option<u128> {
    Some(u128::from_be_bytes(blob.try_into().ok()?))
}

/// Raw column values of one `documents` row, converted after the row is read so
/// that a malformed value becomes an error rather than a panic.
pub(super) type RawDoc = (
    i64,
    Vec<u8>,
    i64,
    i64,
    Option<i64>,
    Option<i64>,
    Vec<u8>,
    i64,
    i64,
    Vec<u8>,
);

pub(super) const DOC_COLUMNS: &str =
    "id, path, size, mtime_ns, dev, inode, content_hash, binary, shingle_count, signature";

/// The `binary` column: 0 for a document compared by its text, 1 for one
/// that looked binary, and 1 + [`Unextracted::stored_code`] when why it was
/// not compared is known. Simfind before the codes reads any non-zero value
/// as binary, so the column keeps its meaning and the format its version.
pub(super) fn reason_to_binary(binary: bool, reason: Option<&Unextracted>) -> i64 {
    match (binary, reason) {
        (false, _) => 0,
        (true, None) => 1,
        (true, Some(reason)) => 1 + i64::from(reason.stored_code()),
    }
}

/// The reason a `binary` column holds, if it holds one this build knows.
pub(super) fn binary_to_reason(binary: i64) -> Option<Unextracted> {
    u32::try_from(binary.checked_sub(1)?)
        .ok()
        .filter(|&code| code != 0)
        .and_then(Unextracted::from_stored_code)
}

pub(super) fn read_raw(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawDoc> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
        row.get(7)?,
        row.get(8)?,
        row.get(9)?,
    ))
}
