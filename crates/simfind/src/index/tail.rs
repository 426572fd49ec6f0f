//! The band-key lookup of format 6: the keys of most documents in
//! `band_lookup`, ordered by (band, key), and those of the documents added
//! since the last merge (the tail, `lookup_tail`) only in their `doc_keys`
//! blob, read into memory by the lookups ([`Tail`]).
//!
//! Role: why a tail. A document's band keys are hashes, so inserting them
//! into the lookup B-tree puts each in a page of its own: a stream of
//! add-if-new items wrote (twice, with the rollback journal) about one page
//! per band key per item, which bounded its speed at a million documents
//! (docs/PERFORMANCE.md, "Streaming dedup"). A document added to
//! the tail appends one row to `doc_keys` and one to `lookup_tail`, in id
//! order; a merge ([`merge`]) later inserts the tail's keys into
//! `band_lookup` in key order, so that a page takes all of its new keys at
//! once. A bulk update (`index`, `index --add`) merges its tail when it
//! commits; a stream ([`Index::begin_locked`](super::Index::begin_locked))
//! only once the tail holds [`TAIL_KEYS`] keys.
//!
//! Invariants: every document with shingles has one `doc_keys` row of
//! `bands` keys; its keys are in `band_lookup` exactly when it is not in
//! `lookup_tail`. A [`Tail`] read in memory holds the keys of the documents
//! in `lookup_tail` as this connection sees them: an update adds to it what
//! it appends ([`TailCache`]) and forgets it when it takes a document out of
//! the tail, merges it or is rolled back; a lookup reads it again when
//! another connection has committed since (`PRAGMA data_version`).

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use foldhash::fast::FixedState;
use rusqlite::{Connection, params};

use super::RowId;
use super::schema::{LOOKUP_TABLES, blob_to_keys, keys_to_blob, sql_to_u64, u64_to_sql};

/// The tail a stream lets grow before it merges it, in band keys: a
/// merge writes at most every page of `band_lookup` once, so a longer tail
/// shares those writes among more documents, but every `query` run reads
/// the whole tail into memory at its first lookup (both measured in
/// docs/PERFORMANCE.md, "Band keys in a tail").
pub(super) const TAIL_KEYS: usize = 1 << 20;

/// The band keys of the tail's documents, by band and key.
pub(super) struct Tail {
    /// `PRAGMA data_version` when it was read: it changes when another
    /// connection commits.
    pub(super) version: i64,
    /// First entry of each (band, key), by [`slot`].
    heads: HashMap<u64, u32, FixedState>,
    /// (document, next entry of the same slot or `u32::MAX`).
    entries: Vec<(i64, u32)>,
}

/// The band keys of one band mixed into one `u64`. Two (band, key)
/// pairs mixed alike (about 2⁻⁶⁴ for any two) only add a candidate,
/// which verification drops.
fn slot(band: usize, key: u64) -> u64 {
    key ^ (band as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl Tail {
    /// The tail as this connection sees it (in its transaction, if one is
    /// open).
    pub(super) fn load(conn: &Connection, version: i64) -> rusqlite::Result<Tail> {
        let mut tail = Tail {
            version,
            heads: HashMap::with_hasher(FixedState::default()),
            entries: Vec::new(),
        };
        let mut stmt = conn.prepare_cached(
            "SELECT k.doc, k.keys FROM lookup_tail t JOIN doc_keys k ON k.doc = t.doc",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let doc: i64 = row.get(0)?;
            let keys = row.get_ref(1)?.as_blob().ok().and_then(blob_to_keys);
            // A malformed blob is reported by `verify_integrity`; a lookup
            // just finds nothing through it.
            tail.add(doc, &keys.unwrap_or_default());
        }
        Ok(tail)
    }

    /// Adds document `doc` with band keys `keys` (band 0 first).
    pub(super) fn add(&mut self, doc: i64, keys: &[u64]) {
        for (band, &key) in keys.iter().enumerate() {
            let Ok(at) = u32::try_from(self.entries.len()) else {
                return;
            };
            let head = self.heads.entry(slot(band, key)).or_insert(u32::MAX);
            self.entries.push((doc, *head));
            *head = at;
        }
    }

    /// Adds to `found` the documents of the tail with key `key` in band
    /// `band`.
    pub(super) fn find(&self, band: usize, key: u64, found: &mut BTreeSet<RowId>) {
        let mut at = self
            .heads
            .get(&slot(band, key))
            .copied()
            .unwrap_or(u32::MAX);
        while let Some(&(doc, next)) = self.entries.get(at as usize) {
            found.insert(RowId(doc));
            at = next;
        }
    }
}

/// An update's hold on its index's [`Tail`]: keeps it equal to the tail
/// its transaction sees, and forgets it when the transaction is rolled
/// back (dropped without [`TailCache::kept`]), whose inserts it holds.
pub(super) struct TailCache<'a> {
    tail: &'a RefCell<Option<Tail>>,
    committed: bool,
}

impl<'a> TailCache<'a> {
    pub(super) fn new(tail: &'a RefCell<Option<Tail>>) -> Self {
        TailCache {
            tail,
            committed: false,
        }
    }

    /// Adds a document just put in the tail, if the tail is in memory.
    pub(super) fn add(&self, doc: i64, keys: &[u64]) {
        if let Some(tail) = self.tail.borrow_mut().as_mut() {
            tail.add(doc, keys);
        }
    }

    /// Forgets the tail in memory: the next lookup reads it again.
    pub(super) fn reset(&self) {
        *self.tail.borrow_mut() = None;
    }

    /// The transaction committed: what was added stays.
    pub(super) fn kept(mut self) {
        self.committed = true;
    }
}

impl Drop for TailCache<'_> {
    fn drop(&mut self) {
        if !self.committed {
            self.reset();
        }
    }
}

/// The current `PRAGMA data_version` of `conn`.
pub(super) fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "data_version", |r| r.get(0))
}

/// Keys in the tail.
pub(super) fn tail_keys(conn: &Connection, bands: u32) -> rusqlite::Result<usize> {
    let docs: i64 = conn.query_row("SELECT count(*) FROM lookup_tail", [], |r| r.get(0))?;
    Ok(usize::try_from(docs)
        .unwrap_or(usize::MAX)
        .saturating_mul(bands as usize))
}

/// Stores the band keys of a document just added or changed, in the tail.
pub(super) fn store(conn: &Connection, doc: i64, keys: &[u64]) -> rusqlite::Result<()> {
    if keys.is_empty() {
        // No shingles: no keys, never a candidate.
        return Ok(());
    }
    conn.prepare_cached("INSERT OR REPLACE INTO doc_keys (doc, keys) VALUES (?1, ?2)")?
        .execute(params![doc, keys_to_blob(keys)])?;
    conn.prepare_cached("INSERT OR IGNORE INTO lookup_tail (doc) VALUES (?1)")?
        .execute([doc])?;
    Ok(())
}

/// Forgets the band keys of `doc` (before it is removed or its keys
/// replaced): its `band_lookup` rows, its `doc_keys` row and its place
/// in the tail. True if it was in the tail.
pub(super) fn forget(conn: &Connection, doc: i64) -> rusqlite::Result<bool> {
    let keys: Option<Vec<u8>> = conn
        .prepare_cached("SELECT keys FROM doc_keys WHERE doc = ?1")?
        .query_row([doc], |r| r.get(0))
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    let Some(keys) = keys else { return Ok(false) };
    let in_tail = conn
        .prepare_cached("DELETE FROM lookup_tail WHERE doc = ?1")?
        .execute([doc])?
        > 0;
    if !in_tail {
        let mut delete = conn
            .prepare_cached("DELETE FROM band_lookup WHERE band = ?1 AND key = ?2 AND doc = ?3")?;
        for (band, key) in blob_to_keys(&keys)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            delete.execute(params![band as i64, u64_to_sql(key), doc])?;
        }
    }
    conn.prepare_cached("DELETE FROM doc_keys WHERE doc = ?1")?
        .execute([doc])?;
    Ok(in_tail)
}

/// Moves every key of the tail into `band_lookup`, in the lookup's order
/// (band, then key as SQLite orders integers, then document), and empties
/// the tail. Returns how many keys moved.
pub(super) fn merge(conn: &Connection) -> rusqlite::Result<usize> {
    let mut rows: Vec<(i64, i64, i64)> = Vec::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT k.doc, k.keys FROM lookup_tail t JOIN doc_keys k ON k.doc = t.doc",
        )?;
        let mut found = stmt.query([])?;
        while let Some(row) = found.next()? {
            let doc: i64 = row.get(0)?;
            let keys = row.get_ref(1)?.as_blob().ok().and_then(blob_to_keys);
            for (band, key) in keys.unwrap_or_default().into_iter().enumerate() {
                rows.push((band as i64, u64_to_sql(key), doc));
            }
        }
    }
    if rows.is_empty() {
        // Documents without shingles are never in the tail.
        return Ok(0);
    }
    rows.sort_unstable();
    let mut insert = conn
        .prepare_cached("INSERT OR IGNORE INTO band_lookup (band, key, doc) VALUES (?1, ?2, ?3)")?;
    for (band, key, doc) in &rows {
        insert.execute(params![band, key, doc])?;
    }
    conn.execute("DELETE FROM lookup_tail", [])?;
    Ok(rows.len())
}

/// Upgrades the band keys of a version 2–5 index (the `band_keys` table
/// and its `band_keys_lookup` index) to version 6's [`LOOKUP_TABLES`], and
/// writes the version marks; in the caller's upgrade transaction. Every
/// key goes to `band_lookup` (read in its order from the old lookup
/// index), none to the tail.
pub(super) fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(LOOKUP_TABLES)?;
    let old: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'band_keys'",
        [],
        |r| r.get(0),
    )?;
    if old != 0 {
        conn.execute_batch(
            "INSERT INTO band_lookup (band, key, doc) \
             SELECT band, key, doc FROM band_keys ORDER BY band, key, doc;",
        )?;
        let mut insert = conn.prepare("INSERT INTO doc_keys (doc, keys) VALUES (?1, ?2)")?;
        let mut stmt = conn.prepare("SELECT doc, key FROM band_keys ORDER BY doc, band")?;
        let mut rows = stmt.query([])?;
        let mut current: Option<(i64, Vec<u64>)> = None;
        while let Some(row) = rows.next()? {
            let (doc, key): (i64, i64) = (row.get(0)?, row.get(1)?);
            match &mut current {
                Some((d, keys)) if *d == doc => keys.push(sql_to_u64(key)),
                _ => {
                    if let Some((d, keys)) = current.take() {
                        insert.execute(params![d, keys_to_blob(&keys)])?;
                    }
                    current = Some((doc, vec![sql_to_u64(key)]));
                }
            }
        }
        if let Some((d, keys)) = current {
            insert.execute(params![d, keys_to_blob(&keys)])?;
        }
        drop(rows);
        drop(stmt);
        drop(insert);
        conn.execute_batch("DROP TABLE band_keys;")?;
    }
    conn.execute_batch(&format!(
        "UPDATE params SET value = '{v}' WHERE name = 'format_version'; PRAGMA user_version = {v};",
        v = super::FORMAT_VERSION
    ))
}
