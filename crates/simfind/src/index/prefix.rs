//! The prefix index of MMDS 3.9.4–3.9.5, stored in the index: exact
//! many-one queries (`query --exact`) that look only at the documents whose
//! prefix shares a token with the query's, instead of every document of a
//! size that can reach the threshold.
//!
//! Role: an index built with `index --exact-prefix T` stores, for every
//! document with shingles, the first `p = prefix_length(|d|, T)` tokens of its
//! shingle set under a global order, each with its position (the
//! `prefix_tokens` table). The global order is the textbook's rarest first,
//! fixed when the prefix index is built so that it never changes as
//! documents come and go (an update then never re-writes what it did not
//! touch): the tokens found in at least [`FREQUENT`] documents of a sample
//! of up to [`SAMPLE_DOCS`] (the `prefix_order` table, with that count) go
//! last, by count; every other token — rare, or new since — comes first,
//! and ties go by hash. Any fixed order keeps the filter exact; rarest-first
//! makes it prune: under the plain hash order common shingles sit in nearly
//! every prefix and the probe kept almost every document
//! (docs/PERFORMANCE.md, "Exact queries through the prefix index").
//!
//! A query at threshold `t ≥ T` probes with its own prefix
//! (`prefix_length(|q|, t)` tokens): a document with Jaccard ≥ t shares at
//! least `⌈t·max(|q|, |d|)⌉` tokens with it, so the first token they share
//! lies within both prefixes at `t` (3.9.4). The first shared token (the
//! probe goes in order) also bounds the overlap by the tokens after it in
//! each set (the position index of 3.9.5): a document whose bound cannot
//! reach `t` is dropped unread. The rest are verified exactly by the caller.
//!
//! Keeping it in step: every update that adds or changes a document re-reads
//! its set (checked against the content hash just stored) and rewrites its
//! rows; a removed document's rows go with it (`ON DELETE CASCADE`). Asking
//! for another `T` ([`Index::request_prefix`]) empties the table, records
//! `T` as pending and marks every document for re-reading: the next update
//! (`index DIR`, `scan --db`) re-reads them all, writes their prefixes and
//! only then records `T` as the index's `prefix_threshold`, in the same
//! transaction. Until then lookups use the length filter, so no state of the
//! file ever answers an exact query from an incomplete prefix index.
//!
//! Inputs: sorted shingle sets, thresholds. Outputs: rows in the index,
//! candidate documents. Nothing is printed.

use std::collections::HashMap;

use rayon::prelude::*;
use rusqlite::{OptionalExtension, params};

use super::schema::{MIGRATE, PREFIX_TABLE, TEXTS_TABLE, UNTRUSTED_MTIME, sql_to_u64, u64_to_sql};
use super::{FORMAT_VERSION, Index, IndexError, IndexedDoc, RowId, Update, classify};
use crate::input::read::ReadOptions;
use crate::pipeline::{self, ReloadError};
use crate::recipe::Recipe;
use crate::similarity::prefix_length;
use crate::similarity::sets;

/// `params` row of the threshold whose prefixes are complete.
const THRESHOLD: &str = "prefix_threshold";
/// `params` row of a threshold asked for and not yet filled in.
const PENDING: &str = "prefix_pending";

/// Reads a threshold stored in `params` (None when absent).
fn stored(conn: &rusqlite::Connection, name: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT value FROM params WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()
}

fn parse(index_path: &std::path::Path, name: &str, value: String) -> Result<f64, IndexError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|t| *t > 0.0 && *t <= 1.0)
        .ok_or_else(|| IndexError::NotAnIndex {
            path: index_path.to_owned(),
            reason: format!("parameter `{name}` has the malformed value {value:?}"),
        })
}

/// The first `prefix_length(|set|, t)` tokens of a set already in the
/// global order: its prefix.
pub(crate) fn prefix_of(set: &[u64], t: f64) -> &[u64] {
    let len = u32::try_from(set.len()).unwrap_or(u32::MAX);
    &set[..(prefix_length(len, t) as usize).min(set.len())]
}

/// Documents sampled to find the frequent tokens.
pub(crate) const SAMPLE_DOCS: usize = 1000;
/// Sampled documents a token must be in to be ordered as frequent.
pub(crate) const FREQUENT: u32 = 2;

/// The global token order of a prefix index: the frequent tokens with their
/// sample counts; every other token counts 0. A token's key is (count, hash).
#[derive(Clone, Debug, Default)]
pub struct TokenOrder {
    counts: HashMap<u64, u32>,
}

impl TokenOrder {
    /// The order of the sets `sample` (sorted, distinct): each token in at
    /// least [`FREQUENT`] of them is frequent.
    pub fn of_sample<S: AsRef<[u64]>>(sample: &[S]) -> TokenOrder {
        let mut counts: HashMap<u64, u32> = HashMap::new();
        for set in sample {
            for &token in set.as_ref() {
                *counts.entry(token).or_default() += 1;
            }
        }
        counts.retain(|_, c| *c >= FREQUENT);
        TokenOrder { counts }
    }

    /// `set` sorted into the global order.
    pub fn sort(&self, set: &mut [u64]) {
        if !self.counts.is_empty() {
            set.sort_unstable_by_key(|t| (self.counts.get(t).copied().unwrap_or(0), *t));
        }
    }
}

impl Index {
    /// Upgrades a file of an older readable format to [`FORMAT_VERSION`]
    /// (opened for writing; a read-only file is left as it is, and reads as
    /// an index without a prefix index or stored texts). [`Index::open_or_create`]
    /// does it; a writer that opened with [`Index::open_existing`] calls it.
    pub fn upgrade(&mut self) -> Result<(), IndexError> {
        if self.format == FORMAT_VERSION {
            return Ok(());
        }
        let (path, timeout) = (self.path.clone(), self.options.busy_timeout);
        let err = |e| classify(&path, e, timeout);
        if self.conn.is_readonly(rusqlite::MAIN_DB).map_err(err)? {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        // Another process may have upgraded it while this one waited.
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(err)?;
        if version < i64::from(FORMAT_VERSION) {
            tx.execute_batch(PREFIX_TABLE).map_err(err)?;
            tx.execute_batch(TEXTS_TABLE).map_err(err)?;
            tx.execute_batch(MIGRATE).map_err(err)?;
            super::tail::migrate(&tx).map_err(err)?;
        }
        tx.commit().map_err(err)?;
        self.format = FORMAT_VERSION;
        *self.tail.get_mut() = None;
        Ok(())
    }

    /// The format version of the file as opened.
    pub fn format_version(&self) -> u32 {
        self.format
    }

    /// The threshold `T` of the index's complete prefix index: exact lookups
    /// at `t ≥ T` can use [`Index::prefix_candidates`]. None when it has none
    /// (or one still being filled in).
    pub fn prefix_threshold(&self) -> Result<Option<f64>, IndexError> {
        let value = stored(&self.conn, THRESHOLD).map_err(|e| self.err(e))?;
        value.map(|v| parse(&self.path, THRESHOLD, v)).transpose()
    }

    /// The global token order of the prefix index (empty without one).
    pub fn prefix_order(&self) -> Result<TokenOrder, IndexError> {
        load_order(&self.conn).map_err(|e| self.err(e))
    }

    /// `set` sorted into the global token order of the prefix index,
    /// looking up only its own tokens (a lookup does not load the order).
    pub fn in_prefix_order(&self, set: &[u64]) -> Result<Vec<u64>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT count FROM prefix_order WHERE token = ?1")
            .map_err(|e| self.err(e))?;
        let mut keyed = Vec::with_capacity(set.len());
        for &token in set {
            let count: Option<u32> = stmt
                .query_row([u64_to_sql(token)], |r| r.get(0))
                .optional()
                .map_err(|e| self.err(e))?;
            keyed.push((count.unwrap_or(0), token));
        }
        keyed.sort_unstable();
        Ok(keyed.into_iter().map(|(_, token)| token).collect())
    }

    /// Asks for a prefix index at threshold `t` (0 < t ≤ 1). If the index
    /// has none at `t` (complete or pending), in one transaction: its
    /// prefix rows are dropped, `t` is recorded as pending and every
    /// document is marked for re-reading, so that the next update fills it
    /// in (see the module). Returns whether anything changed.
    pub fn request_prefix(&mut self, t: f64) -> Result<bool, IndexError> {
        let (path, timeout) = (self.path.clone(), self.options.busy_timeout);
        let err = |e| classify(&path, e, timeout);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let complete = stored(&tx, THRESHOLD).map_err(err)?;
        let pending = stored(&tx, PENDING).map_err(err)?;
        let wanted = t.to_string();
        let have = match (&complete, &pending) {
            (_, Some(p)) => p == &wanted,
            (Some(c), None) => c == &wanted,
            (None, None) => false,
        };
        if have {
            return Ok(false);
        }
        tx.execute_batch(
            "DELETE FROM prefix_tokens; DELETE FROM prefix_order; \
             DELETE FROM params WHERE name IN ('prefix_threshold', 'prefix_pending');",
        )
        .map_err(err)?;
        tx.execute(
            "INSERT INTO params (name, value) VALUES (?1, ?2)",
            params![PENDING, wanted],
        )
        .map_err(err)?;
        tx.execute("UPDATE documents SET mtime_ns = ?1", [UNTRUSTED_MTIME])
            .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(true)
    }

    /// The documents an exact lookup of `query` (in the global order,
    /// [`Index::prefix_order`]) at `t` must
    /// verify, by the prefix index (which must be complete at a threshold
    /// ≤ `t`; see [`Index::prefix_threshold`]): those whose prefix at `t`
    /// holds the first token they share with the query's prefix at `t`, and
    /// whose sizes and the positions of that token leave room to reach `t`.
    /// Sorted by id.
    pub fn prefix_candidates(&self, query: &[u64], t: f64) -> Result<Vec<RowId>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT doc, pos, len FROM prefix_tokens WHERE token = ?1")
            .map_err(|e| self.err(e))?;
        let q = query.len();
        // Per document met so far: whether its first shared token kept it.
        let mut decided: HashMap<i64, bool> = HashMap::new();
        for (i, &token) in prefix_of(query, t).iter().enumerate() {
            let rows = stmt
                .query_map([u64_to_sql(token)], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                })
                .map_err(|e| self.err(e))?;
            for row in rows {
                let (doc, j, d) = row.map_err(|e| self.err(e))?;
                if decided.contains_key(&doc) {
                    continue;
                }
                let (j, d) = (j.max(0) as usize, d.max(0) as usize);
                decided.insert(doc, keeps(q, i, d, j, t));
            }
        }
        let mut kept: Vec<RowId> = decided
            .into_iter()
            .filter(|(_, keep)| *keep)
            .map(|(doc, _)| RowId(doc))
            .collect();
        kept.sort_unstable();
        Ok(kept)
    }
}

fn load_order(conn: &rusqlite::Connection) -> rusqlite::Result<TokenOrder> {
    let mut stmt = conn.prepare_cached("SELECT token, count FROM prefix_order")?;
    let counts = stmt
        .query_map([], |r| Ok((sql_to_u64(r.get(0)?), r.get::<_, u32>(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(TokenOrder { counts })
}

/// Whether a document of `d` tokens whose first token shared with a query of
/// `q` tokens is at position `j` (the query's at `i`, both 0-based) can
/// reach Jaccard `t`: the token must lie in its prefix at `t` (3.9.4), the
/// sizes must pass the length filter (3.9.3), and the overlap can be at most
/// that token plus the fewer tokens after it (3.9.5). Every test evaluates
/// `a / b ≥ t` as verification does, so no pair verification would keep is
/// dropped.
fn keeps(q: usize, i: usize, d: usize, j: usize, t: f64) -> bool {
    let len = u32::try_from(d).unwrap_or(u32::MAX);
    if j >= prefix_length(len, t) as usize || i >= q || j >= d {
        return false;
    }
    if sets::ratio(q.min(d), q.max(d)) < t {
        return false;
    }
    let most = 1 + (q - i - 1).min(d - j - 1);
    sets::ratio(most, q + d - most) >= t
}

/// What an update writes to the prefix index: the target threshold and each
/// added or changed document's prefix.
pub(super) struct Prefixes {
    threshold: f64,
    /// Whether this update completes a pending prefix index.
    pending: bool,
    /// Rows (token, doc, pos) not written yet: written sorted by token, a
    /// batch at a time, because B-tree inserts in key order touch each page
    /// once where the documents' own order touches pages at random
    /// (docs/PERFORMANCE.md, "Exact queries through the prefix index").
    rows: Vec<(i64, i64, i64, i64)>,
    /// The global order (built by [`Prefixes::prepare`] when pending).
    order: TokenOrder,
}

/// Rows buffered before a sorted write: 48 MB.
const BATCH_ROWS: usize = 1 << 21;

/// SQLite's page cache while prefix rows are written (KiB, as `cache_size`
/// takes a negative number): the table's B-tree is touched across its width.
const WRITE_CACHE_KIB: i64 = 64 * 1024;

impl Prefixes {
    /// The prefix index this update keeps in step (pending or complete), or
    /// None when the index has none.
    pub(super) fn of(update: &Update<'_>) -> Result<Option<Prefixes>, IndexError> {
        let err = |e| classify(update.path, e, update.options.busy_timeout);
        if let Some(p) = stored(&update.tx, PENDING).map_err(err)? {
            return Ok(Some(Prefixes {
                threshold: parse(update.path, PENDING, p)?,
                pending: true,
                rows: Vec::new(),
                order: TokenOrder::default(),
            }));
        }
        Ok(match stored(&update.tx, THRESHOLD).map_err(err)? {
            Some(c) => Some(Prefixes {
                threshold: parse(update.path, THRESHOLD, c)?,
                pending: false,
                rows: Vec::new(),
                order: load_order(&update.tx).map_err(err)?,
            }),
            None => None,
        })
    }

    /// Whether this update fills in a prefix index asked for (every
    /// document is re-read).
    pub(super) fn pending(&self) -> bool {
        self.pending
    }

    /// When pending: the global order from a sample of `docs` (the update's
    /// documents: all of them), stored in `prefix_order`. Evenly spaced in
    /// the given order, so the same documents give the same order whatever
    /// the thread count.
    pub(super) fn prepare(
        &mut self,
        update: &Update<'_>,
        docs: &[&IndexedDoc],
        recipe: &Recipe,
        read: &ReadOptions,
    ) -> Result<(), IndexError> {
        if !self.pending {
            return Ok(());
        }
        let with_shingles: Vec<&IndexedDoc> = docs
            .iter()
            .copied()
            .filter(|d| d.shingle_count > 0)
            .collect();
        let n = with_shingles.len();
        let take = n.min(SAMPLE_DOCS);
        let sample: Vec<Vec<u64>> = (0..take)
            .into_par_iter()
            .filter_map(|k| {
                let doc = with_shingles[k * n / take];
                let identity = doc.stat.dev.zip(doc.stat.inode);
                pipeline::reload_indexed(&doc.path, identity, doc.content_hash, recipe, read).ok()
            })
            .collect();
        self.order = TokenOrder::of_sample(&sample);
        drop(sample);
        let err = |e| classify(update.path, e, update.options.busy_timeout);
        update
            .tx
            .execute("DELETE FROM prefix_order", [])
            .map_err(err)?;
        let mut rows: Vec<(u64, u32)> = self.order.counts.iter().map(|(t, c)| (*t, *c)).collect();
        rows.sort_unstable();
        let mut insert = update
            .tx
            .prepare_cached("INSERT INTO prefix_order (token, count) VALUES (?1, ?2)")
            .map_err(err)?;
        for (token, count) in rows {
            insert
                .execute(params![u64_to_sql(token), count])
                .map_err(err)?;
        }
        Ok(())
    }

    /// The prefix of each of `docs` at this threshold, each set re-read from
    /// its file (in parallel) and checked against the content hash being
    /// stored: a document's set is not kept by the signing stage.
    pub(super) fn read(
        &self,
        docs: &[IndexedDoc],
        recipe: &Recipe,
        read: &ReadOptions,
    ) -> Vec<Result<Vec<u64>, ReloadError>> {
        docs.par_iter()
            .map(|doc| {
                if doc.shingle_count == 0 {
                    return Ok(Vec::new());
                }
                let identity = doc.stat.dev.zip(doc.stat.inode);
                let mut set =
                    pipeline::reload_indexed(&doc.path, identity, doc.content_hash, recipe, read)?;
                self.order.sort(&mut set);
                Ok(prefix_of(&set, self.threshold).to_vec())
            })
            .collect()
    }

    /// The prefix of one set held in memory.
    pub(super) fn of_set(&self, set: &[u64]) -> Vec<u64> {
        let mut set = set.to_vec();
        self.order.sort(&mut set);
        prefix_of(&set, self.threshold).to_vec()
    }

    /// Replaces document `id`'s prefix rows with `prefix`, of a set of
    /// `len` tokens (the new rows are written by a later batch, at the
    /// latest by [`Prefixes::finish`]).
    pub(super) fn store(
        &mut self,
        update: &Update<'_>,
        id: RowId,
        prefix: &[u64],
        len: u64,
    ) -> Result<(), IndexError> {
        let err = |e| classify(update.path, e, update.options.busy_timeout);
        update
            .tx
            .prepare_cached("DELETE FROM prefix_tokens WHERE doc = ?1")
            .and_then(|mut s| s.execute([id.0]))
            .map_err(err)?;
        self.rows.extend(
            prefix
                .iter()
                .enumerate()
                .map(|(pos, &token)| (u64_to_sql(token), id.0, pos as i64, u64_to_sql(len))),
        );
        if self.rows.len() >= BATCH_ROWS {
            self.write(update)?;
        }
        Ok(())
    }

    /// Writes the buffered rows, sorted by key. Must be called before the
    /// update commits (or [`Prefixes::finish`]).
    pub(super) fn write(&mut self, update: &Update<'_>) -> Result<(), IndexError> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let err = |e| classify(update.path, e, update.options.busy_timeout);
        update
            .tx
            .pragma_update(None, "cache_size", -WRITE_CACHE_KIB)
            .map_err(err)?;
        self.rows.sort_unstable();
        let mut insert = update
            .tx
            .prepare_cached(
                "INSERT INTO prefix_tokens (token, doc, pos, len) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(err)?;
        for &(token, doc, pos, len) in &self.rows {
            insert.execute(params![token, doc, pos, len]).map_err(err)?;
        }
        self.rows.clear();
        Ok(())
    }

    /// Writes what is buffered and, after a walk that re-read every
    /// document, makes a pending threshold the index's (all in this
    /// update's transaction). Must be called before the update commits.
    pub(super) fn finish(&mut self, update: &Update<'_>) -> Result<(), IndexError> {
        self.write(update)?;
        if !self.pending {
            return Ok(());
        }
        let err = |e| classify(update.path, e, update.options.busy_timeout);
        update
            .tx
            .execute(
                "UPDATE params SET name = ?1 WHERE name = ?2",
                params![THRESHOLD, PENDING],
            )
            .map_err(err)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `keeps` against its definition: a brute force over every pair of
    /// small sorted sets drawn from a small universe, the first shared
    /// token found by scanning, and the true Jaccard. A pair at ≥ t must
    /// be kept (the filter is exact); one dropped must be below t.
    #[test]
    fn the_probe_keeps_every_pair_that_reaches_the_threshold() {
        let universe = 9u64;
        let sets: Vec<Vec<u64>> = (1u32..(1 << universe))
            .step_by(3)
            .map(|bits| (0..universe).filter(|b| bits & (1 << b) != 0).collect())
            .collect();
        for t in [0.2, 0.5, 0.6, 0.75, 0.8, 1.0] {
            let mut dropped = 0;
            for q in &sets {
                for d in &sets {
                    let shared = sets::intersection_size(q, d);
                    let jaccard = sets::ratio(shared, q.len() + d.len() - shared);
                    let probe = prefix_of(q, t);
                    let first = probe
                        .iter()
                        .enumerate()
                        .find_map(|(i, x)| d.iter().position(|y| y == x).map(|j| (i, j)));
                    let kept = first.is_some_and(|(i, j)| keeps(q.len(), i, d.len(), j, t));
                    if jaccard >= t {
                        assert!(kept, "{q:?} {d:?} at {t}: J = {jaccard}");
                    } else if !kept {
                        dropped += 1;
                    }
                }
            }
            // The filter does prune (not a test that cannot fail the other way).
            assert!(dropped > 0, "{t}");
        }
    }

    #[test]
    fn the_prefix_is_the_textbooks() {
        // 3.9.4: p = ⌊(1 − J)·L⌋ + 1; L = 10 at J = 0.9 gives 2, L = 9 gives 1.
        let set: Vec<u64> = (0..10).collect();
        assert_eq!(prefix_of(&set, 0.9), &[0, 1]);
        assert_eq!(prefix_of(&set[..9], 0.9), &[0]);
        assert_eq!(prefix_of(&set, 0.5).len(), 6);
        assert!(prefix_of(&[], 0.5).is_empty());
    }
}
