//! The stored signatures of every document with shingles, held in memory
//! for lookups that rank the whole index by its signatures (`query --top`,
//! `query --metric containment`: [`crate::index::query`]).
//!
//! Role: such a lookup compares the query's signature with every stored
//! one (the estimate orders or rules out, exact verification decides), so
//! it needs them all; reading them from SQLite for each query cost more
//! than the comparison. They are read once and kept until the index
//! changes: another connection's commit changes `PRAGMA data_version`, this
//! connection's own writes change its `total_changes`, and either makes
//! the next lookup read them again. Memory: 4 bytes a signature value (the
//! width of the index's signatures) and 17 bytes a document beside.
//!
//! Inputs: the index's `documents` table (every format version has it).
//! Outputs: ids, shingle counts, signatures, and whether each signature's
//! positions are independent samples (what the binomial rule-out needs).

use std::cell::Ref;
use std::collections::HashMap;
use std::sync::Arc;

use super::schema::{blob_to_signature, sql_to_u64};
use super::{Index, IndexError, RowId, tail};
use crate::sketch::{AnySketcher, Sketcher};

/// Every document with shingles: its id, shingle count and signature.
pub(crate) struct Signatures {
    /// `PRAGMA data_version` and the connection's `total_changes` when read.
    version: (i64, u64),
    /// Values per signature (the query's length; a stored signature of
    /// another length is kept as not independent, so always verified).
    width: usize,
    ids: Vec<RowId>,
    counts: Vec<u64>,
    /// Whether the stored signature's positions are independent samples
    /// ([`Sketcher::positions_independent`]) and of `width` values.
    independent: Vec<bool>,
    /// `width` values a document, in the order of `ids`.
    values: Vec<u32>,
}

impl Signatures {
    fn load(
        index: &Index,
        version: (i64, u64),
        width: usize,
        sketcher: &AnySketcher,
    ) -> Result<Signatures, IndexError> {
        let sql = |e| index.err(e);
        let mut stmt = index
            .conn
            .prepare_cached(
                "SELECT id, shingle_count, signature FROM documents WHERE shingle_count > 0 \
                 ORDER BY id",
            )
            .map_err(sql)?;
        let mut rows = stmt.query([]).map_err(sql)?;
        let mut loaded = Signatures {
            version,
            width,
            ids: Vec::new(),
            counts: Vec::new(),
            independent: Vec::new(),
            values: Vec::new(),
        };
        let mut scratch = Vec::new();
        while let Some(row) = rows.next().map_err(sql)? {
            let id: i64 = row.get(0).map_err(sql)?;
            let count: i64 = row.get(1).map_err(sql)?;
            let blob: Vec<u8> = row.get(2).map_err(sql)?;
            let signature = blob_to_signature(&blob).ok_or_else(|| {
                index.not_index(format!("document {id} has a malformed signature"))
            })?;
            let fits = signature.len() == width;
            loaded.ids.push(RowId(id));
            loaded.counts.push(sql_to_u64(count));
            loaded
                .independent
                .push(fits && sketcher.positions_independent(&signature, &mut scratch));
            if fits {
                loaded.values.extend_from_slice(&signature);
            } else {
                loaded.values.resize(loaded.values.len() + width, 0);
            }
        }
        Ok(loaded)
    }

    /// How many documents.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The `i`-th document's id, shingle count and whether its signature
    /// can be compared position by position with a binomial bound.
    pub(crate) fn doc(&self, i: usize) -> (RowId, u64, bool) {
        (self.ids[i], self.counts[i], self.independent[i])
    }

    /// Positions in which the `i`-th signature agrees with `signature`
    /// (of the cache's width).
    pub(crate) fn agreements(&self, i: usize, signature: &[u32]) -> usize {
        let row = &self.values[i * self.width..(i + 1) * self.width];
        row.iter().zip(signature).filter(|(x, y)| x == y).count()
    }
}

impl Index {
    /// The signatures of every document with shingles, read again when the
    /// index changed since they were last read (module docs); `width` is
    /// the query's signature length.
    pub(crate) fn signatures(
        &self,
        width: usize,
        sketcher: &AnySketcher,
    ) -> Result<Ref<'_, Signatures>, IndexError> {
        let data = tail::data_version(&self.conn).map_err(|e| self.err(e))?;
        let version = (data, self.conn.total_changes());
        let stale = self
            .signatures
            .borrow()
            .as_ref()
            .is_none_or(|s| s.version != version || s.width != width);
        if stale {
            let loaded = Signatures::load(self, version, width, sketcher)?;
            *self.signatures.borrow_mut() = Some(loaded);
        }
        Ref::filter_map(self.signatures.borrow(), Option::as_ref)
            .map_err(|_| self.not_index("its signatures could not be held in memory".to_owned()))
    }
}

/// Bytes of shingle sets [`TextSets`] holds before it starts afresh.
const TEXT_SETS_BYTES: usize = 128 << 20;

/// The shingle sets of stored texts (documents that are not files: the
/// Python `Index`, records, sets) that lookups verified, by content hash,
/// so that the next lookup verifying the same text intersects instead of
/// shingling it again: what a top-k walk spends its time on (its
/// candidates recur from query to query). A stored text is what its hash
/// says ([`crate::index::query`] checks it), and the index's recipe makes
/// one set of it, so an entry never goes stale; files are not kept (a
/// file is re-read to see that it is unchanged). Bounded: at
/// [`TEXT_SETS_BYTES`] it is emptied and filled again.
#[derive(Default)]
pub(crate) struct TextSets {
    bytes: usize,
    sets: HashMap<u128, Arc<Vec<u64>>>,
}

impl Index {
    /// The set of the stored text with content `hash`, if a lookup of this
    /// process made it.
    pub(crate) fn text_set(&self, hash: u128) -> Option<Arc<Vec<u64>>> {
        self.text_sets.borrow().sets.get(&hash).cloned()
    }

    /// Keeps the set of the stored text with content `hash` ([`TextSets`]).
    pub(crate) fn keep_text_set(&self, hash: u128, set: Arc<Vec<u64>>) {
        let mut cache = self.text_sets.borrow_mut();
        let bytes = set.len() * std::mem::size_of::<u64>();
        if cache.bytes + bytes > TEXT_SETS_BYTES {
            cache.sets.clear();
            cache.bytes = 0;
        }
        if bytes <= TEXT_SETS_BYTES && cache.sets.insert(hash, set).is_none() {
            cache.bytes += bytes;
        }
    }
}
