//! Streaming dedup: add an item to the index only if nothing indexed is
//! similar to it (`simfind query --db F --add-if-new -`, the Python
//! `Index.add_if_new`; rensa's inline deduplication, issue 37).
//!
//! Role: for each item, the lookup `query` makes (its matches ≥ the
//! threshold, verified exactly; or, with `exact`, every document whose size
//! can reach it) and, when it found none, the insert `index --add` makes —
//! both inside one write transaction of the index ([`Index::begin_locked`]),
//! so that no other writer can insert between the lookup and the insert: two
//! streams fed near-duplicates of each other never both insert theirs. The
//! item is read, shingled and signed before the lock is taken.
//!
//! Inputs: an open [`Index`] (upgraded for writing), items as
//! [`NewDoc`]s. Outputs: a [`Decision`] per item. Nothing is visible to
//! others, nor durable, until [`Stream::commit`]: a caller answers "new"
//! only after the commit that holds the item, so an answer given is never
//! lost by a crash. Items decided between two commits form a batch, all of
//! them under one lock: the lookups of a batch see its own inserts.
//!
//! Invariants: a document inserted has no match ≥ the threshold among the
//! documents committed before it and those inserted before it in its batch
//! (with `exact`: none at all; by default: none sharing a band key, the
//! recall of `query`); a batch dropped without commit is rolled back whole.

use std::path::PathBuf;

use xxhash_rust::xxh3::xxh3_128;

use super::add::{NewDoc, Prepared, prepare, store};
use super::prefix::Prefixes;
use super::query::{Match, Own, Query, QueryOptions};
use super::{Index, IndexError, RowId, Update, UpdateSummary};
use crate::input::read::ReadError;
use crate::progress::Reporter;

/// What became of one item.
#[derive(Debug)]
pub enum Decision {
    /// Nothing indexed is similar: it was inserted (visible, and durable,
    /// once the batch commits).
    New {
        id: RowId,
        /// Candidates that could not be re-read to verify them (each warned
        /// about): one of them may have been a match.
        unverified: u64,
    },
    /// It has `matches` matches ≥ the threshold, `nearest` the most
    /// similar (ties by path); it was not inserted.
    Seen {
        nearest: Match,
        matches: usize,
        unverified: u64,
    },
    /// It looks binary and the index skips binary files: not inserted.
    Binary,
    /// It could not be read: not inserted.
    Unreadable(PathBuf, ReadError),
}

/// Add-if-new against one index: the lookups of a [`Query`] and the
/// inserts of an update, under one lock per batch.
pub struct Stream<'a> {
    index: &'a Index,
    query: Query<'a>,
    open: Option<Batch<'a>>,
}

/// The write transaction of the items decided since the last commit.
struct Batch<'a> {
    update: Update<'a>,
    prefixes: Option<Prefixes>,
    items: usize,
}

impl<'a> Stream<'a> {
    /// A stream over `index` whose lookups are `query`'s (made on the same
    /// `index`).
    pub fn new(index: &'a Index, query: Query<'a>) -> Self {
        // Each insert adds one key per band to `band_keys_lookup`, each in a
        // page of its own (the keys are hashes): with SQLite's default 2 MB
        // cache a stream re-read most of them from the file at every batch.
        index.widen_cache();
        Stream {
            index,
            query,
            open: None,
        }
    }

    /// The lookups' reader of the index (its recipe, its read options).
    pub fn query(&self) -> &Query<'a> {
        &self.query
    }

    /// Items decided since the last commit.
    pub fn pending(&self) -> usize {
        self.open.as_ref().map_or(0, |b| b.items)
    }

    /// Decides `item`: inserts it when no indexed document (nor one
    /// inserted earlier in this batch) matches it at `options.threshold`.
    /// Takes the index's write lock if this batch does not hold it yet
    /// (waiting up to the index's busy timeout for another writer).
    pub fn add_if_new(
        &mut self,
        item: NewDoc<'_>,
        options: &QueryOptions,
        reporter: &dyn Reporter,
    ) -> Result<Decision, IndexError> {
        let (kind, recipe) = (self.index.kind(), self.query.recipe());
        let file = matches!(item, NewDoc::File(_));
        let mut prepared = match prepare(item, kind, recipe, self.query.read_options()) {
            Ok(prepared) => prepared,
            Err((path, err)) => return Ok(Decision::Unreadable(path, err)),
        };
        if prepared.doc.binary {
            return Ok(Decision::Binary);
        }
        if self.open.is_none() {
            let update = self.index.begin_locked()?;
            let prefixes = Prefixes::of(&update)?;
            self.open = Some(Batch {
                update,
                prefixes,
                items: 0,
            });
        }
        let mut unverified = 0;
        if !prepared.set.is_empty() {
            let doc = &prepared.doc;
            let own = Own {
                hash: doc.content_hash,
                set: &prepared.set,
                identity: doc.stat.dev.zip(doc.stat.inode),
            };
            let (_, matches, failed) =
                self.query
                    .lookup(own, &doc.signature, &doc.band_keys, options, reporter, true)?;
            unverified = failed;
            let count = matches.len();
            if let Some(nearest) = matches.into_iter().next() {
                let decision = Decision::Seen {
                    nearest,
                    matches: count,
                    unverified,
                };
                if let Some(batch) = &mut self.open {
                    batch.items += 1;
                }
                return Ok(decision);
            }
        }
        // An item shorter than one shingle is similar to nothing: new.
        if file {
            prepared.doc.path = self.query.storable(&prepared.doc.path);
        }
        let id = self.insert(&mut prepared)?;
        Ok(Decision::New { id, unverified })
    }

    fn insert(&mut self, prepared: &mut Prepared) -> Result<RowId, IndexError> {
        let Some(batch) = &mut self.open else {
            unreachable!("add_if_new opens the batch before it inserts")
        };
        let id = store(&mut batch.update, batch.prefixes.as_mut(), prepared)?;
        batch.items += 1;
        if !prepared.set.is_empty() {
            // Its set is known: later items of the stream verify against
            // it without reading it back.
            let hash = prepared.doc.content_hash;
            debug_assert!(prepared.text.as_ref().is_none_or(|t| xxh3_128(t) == hash));
            self.query.remember(hash, std::mem::take(&mut prepared.set));
        }
        Ok(id)
    }

    /// Makes every item decided since the last commit durable and visible,
    /// and releases the lock (another writer may take it before the next
    /// item). Nothing to do when no item is pending.
    pub fn commit(&mut self) -> Result<UpdateSummary, IndexError> {
        let Some(mut batch) = self.open.take() else {
            return Ok(UpdateSummary::default());
        };
        if let Some(prefixes) = &mut batch.prefixes {
            prefixes.write(&batch.update)?;
        }
        let summary = batch.update.commit()?;
        // The sets read for this batch are not kept: a long stream would
        // hold every candidate it ever verified.
        self.query.forget();
        Ok(summary)
    }
}
