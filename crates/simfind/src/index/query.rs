//! The many-one question of MMDS §3.4: which indexed documents are similar to
//! this one?
//!
//! Role: a [`Query`] signs a document with the recipe stored in an index
//! ([`Params::recipe`](crate::index::Params::recipe)), looks its band keys up, and verifies the candidates
//! as `scan` does: exactly (each candidate that can still reach the
//! threshold — by its stored shingle count and signature, the rule-out
//! `scan` uses — re-read as a set with [`pipeline::reload_indexed`], refused
//! if the path now leads to another file or its content is no longer what
//! was indexed) or by the signature estimate. Contents re-read once stay
//! cached for later queries.
//!
//! Inputs: an open [`Index`] and a query document's bytes. Outputs: an
//! [`Answer`] per document (its matches ranked most similar first, ties by
//! path bytes); candidates that could not be re-read are warned about through
//! the [`Reporter`] and counted. Nothing is printed.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

use super::{Index, IndexError, ItemKind, ParamsError, StoredDoc};

mod walk;
use crate::input::read::ReadOptions;
use crate::lsh::{scurve, tune};
use crate::pipeline::{self, ReloadError, Verification};
use crate::progress::{Reporter, Warning};
use crate::recipe::Recipe;
use crate::similarity::ContainedPair;
use crate::similarity::{sets, verify};
use crate::sketch::{AnySketcher, Sketcher};
use crate::source::Document;
use crate::source::{self, Reopen};
pub use walk::MISS;

/// What to report for each query document.
#[derive(Clone, Copy, Debug)]
pub struct QueryOptions {
    /// Matches with similarity ≥ this are reported; in (0, 1].
    pub threshold: f64,
    /// At most this many matches per document (the most similar). Without
    /// `exact`, with exact verification: every stored document's signature
    /// is compared, and documents are verified in estimate order until the
    /// rest are ruled out at the `top`-th similarity (a document more
    /// similar than it is missed with probability ≤ [`MISS`]).
    pub top: Option<usize>,
    pub verification: Verification,
    /// Exact lookup: every indexed document whose shingle count lets it reach
    /// the threshold (the length filter of MMDS 3.9.3) is verified exactly,
    /// not only those sharing a band key, so nothing ≥ the threshold is
    /// missed and `top` is the true top N. Needs exact verification.
    pub exact: bool,
}

/// Documents re-read at once by an exact lookup: enough to keep every core
/// busy, few enough that their sets stay small in memory and a `top` lookup
/// stops soon after its answer is certain.
const EXACT_BATCH: usize = 64;

/// Candidate bytes up to which verification re-reads on the calling thread
/// instead of the rayon pool: handing a few small files to the pool costs
/// more than reading them (starting its threads, then waking them and waiting
/// to be woken, each wake-up a wait for a core on a busy machine); it was
/// what made a typical query's wall time with exact verification about twice
/// that with signature verification (docs/PERFORMANCE.md, round 6: "`query`
/// at a million documents, end to end").
const INLINE_BYTES: u64 = 256 * 1024;

/// What a lookup knows of the query document besides its set: the hash of
/// its bytes and, when they were read from a file, that file's device and
/// inode.
#[derive(Clone, Copy)]
pub(super) struct Own<'s> {
    pub(super) hash: u128,
    pub(super) set: &'s [u64],
    pub(super) identity: Option<(u64, u64)>,
}

impl Own<'_> {
    /// Whether `doc` is the very file the query's bytes were read from, and
    /// was indexed with those bytes: then its content is the query's and was
    /// checked by hashing them, so it is not read again.
    fn is(&self, doc: &StoredDoc) -> bool {
        self.identity.is_some()
            && doc.content_hash == self.hash
            && doc.stat.dev.zip(doc.stat.inode) == self.identity
    }
}

/// `verify` applied to each of `todo`, in order: on this thread when there is
/// one or they are small in total ([`INLINE_BYTES`]), else on the rayon pool.
/// The results, and so the output, are the same either way.
fn each<'d, T: Send>(todo: &[&'d StoredDoc], verify: impl Fn(&'d StoredDoc) -> T + Sync) -> Vec<T> {
    let bytes: u64 = todo.iter().map(|doc| doc.stat.size).sum();
    if todo.len() < 2 || bytes <= INLINE_BYTES {
        todo.iter().map(|&doc| verify(doc)).collect()
    } else {
        todo.par_iter().map(|&doc| verify(doc)).collect()
    }
}

/// One verified match of a query document.
#[derive(Clone, Debug)]
pub struct Match {
    pub doc: StoredDoc,
    /// Exact Jaccard similarity, or the estimate with signature verification.
    pub similarity: f64,
    /// The signatures' estimate of the similarity.
    pub estimate: f64,
    /// Shingles in both (exact verification only).
    pub shared: Option<usize>,
}

/// What one query document found.
#[derive(Debug)]
pub enum Answer {
    /// It looks binary and the index skips binary files: no matches.
    Binary,
    /// It is shorter than one shingle: never similar to anything.
    NoShingles,
    Matches {
        /// Distinct shingles of the query document.
        shingles: usize,
        /// Indexed documents sharing a band key with it.
        candidates: usize,
        /// Ranked: most similar first, ties by path bytes.
        matches: Vec<Match>,
        /// Candidates that could not be re-read for exact verification
        /// (each warned about).
        unverified: u64,
    },
}

/// Why a candidate was not verified, as the warning words it.
struct NotVerified(ReloadError);

impl fmt::Display for NotVerified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ReloadError::Changed => write!(f, "{}", Warning::ChangedSinceIndexed),
            ReloadError::Read(err) => err.fmt(f),
        }
    }
}

/// Warns that a candidate was not verified, as a typed [`Warning`] when it
/// changed since it was indexed.
fn warn_not_verified(reporter: &dyn Reporter, path: &std::path::Path, err: ReloadError) {
    match err {
        ReloadError::Changed => reporter.warning(path, &Warning::ChangedSinceIndexed),
        err => reporter.warn(path, &NotVerified(err)),
    }
}

/// Queries against one index, signed with its recipe.
pub struct Query<'a> {
    index: &'a Index,
    /// The index's kind of item: how a text becomes a set.
    kind: ItemKind,
    recipe: Recipe,
    sketcher: AnySketcher,
    read: ReadOptions,
    /// Shingle sets of indexed contents already re-read, by content hash
    /// (`None`: could not be).
    sets: HashMap<u128, Option<Vec<u64>>>,
    /// The prefix index's token order, loaded by the first lookup of a
    /// large set (a small one looks its own tokens up).
    prefix_order: Option<crate::index::prefix::TokenOrder>,
    /// Where the stored relative paths are relative to, when that is not
    /// the current directory ([`Index::paths_base_elsewhere`]): joined to
    /// them before a candidate is re-read or answered.
    base: Option<PathBuf>,
}

/// Up to this many shingles, a query's tokens are looked up in the prefix
/// order one by one rather than the whole order loaded.
const POINT_LOOKUPS: usize = 2048;

impl<'a> Query<'a> {
    /// Queries of `index`; an error if its parameters are not understood.
    pub fn new(index: &'a Index) -> Result<Self, ParamsError> {
        Query::with_transform(index, None)
    }

    /// Queries of `index`, whose documents' text may have been made by the
    /// user's command `given` (`--transform`): an index that stored a
    /// command is queried only with the same one given again.
    pub fn with_transform(
        index: &'a Index,
        given: Option<&crate::input::extract::Transform>,
    ) -> Result<Self, ParamsError> {
        let recipe = index.params().recipe()?;
        // Queries and candidates are read as the index's documents were.
        let extract =
            crate::input::extract::Extract::from_recipe_name(&index.params().extraction, given)
                .map_err(ParamsError::Extraction)?;
        Ok(Query {
            index,
            kind: index.kind(),
            sketcher: recipe.sketcher(),
            recipe,
            read: ReadOptions {
                extract,
                ..ReadOptions::default()
            },
            sets: HashMap::new(),
            prefix_order: None,
            base: index.paths_base_elsewhere(),
        })
    }

    /// `doc` with its stored path spelled from the current directory: a
    /// relative path indexed from elsewhere is joined to where it was
    /// indexed from, so the file re-read and the path answered are the
    /// indexed one.
    fn located(&self, mut doc: StoredDoc) -> StoredDoc {
        if let Some(base) = &self.base
            && doc.path.is_relative()
        {
            doc.path = base.join(&doc.path);
        }
        doc
    }

    /// The path to store for a file named `path` from the current
    /// directory ([`Index::spelled_for`]).
    pub(crate) fn storable(&self, path: &Path) -> PathBuf {
        Index::spelled_for(self.base.as_deref(), path)
    }

    /// How the index's documents (and so queries) are read.
    pub fn read_options(&self) -> &ReadOptions {
        &self.read
    }

    /// The recipe the index was signed with.
    pub fn recipe(&self) -> &Recipe {
        &self.recipe
    }

    /// The S-curve threshold of the index's bands and rows.
    pub fn default_threshold(&self) -> f64 {
        scurve::threshold(self.recipe.banding.bands, self.recipe.banding.rows)
    }

    /// Whether an exact lookup at `threshold` goes through the index's
    /// prefix index ([`crate::index::prefix`]: complete at a threshold ≤
    /// this one) rather than the length filter alone.
    pub fn uses_prefix_index(&self, threshold: f64) -> Result<bool, IndexError> {
        Ok(self
            .index
            .prefix_threshold()?
            .is_some_and(|stored| threshold >= stored))
    }

    /// Looks up the document whose bytes are `bytes` (consumed: released once
    /// shingled, before any candidate is read).
    pub fn ask(
        &mut self,
        bytes: Vec<u8>,
        options: &QueryOptions,
        reporter: &dyn Reporter,
    ) -> Result<Answer, IndexError> {
        let document = Document::from_bytes(bytes).extracted(&self.read.extract);
        self.ask_file(document, None, options, reporter)
    }

    /// [`Query::ask`] for bytes read from the file with `identity` (device,
    /// inode: [`Contents::identity`](crate::input::read::Contents::identity)):
    /// a candidate that is that very file, indexed with the hash of these
    /// bytes, is not read again to check it (the query's own file, when it is
    /// indexed, is its own first candidate).
    pub fn ask_file(
        &mut self,
        document: Document,
        identity: Option<(u64, u64)>,
        options: &QueryOptions,
        reporter: &dyn Reporter,
    ) -> Result<Answer, IndexError> {
        if self.kind.is_files()
            && !matches!(
                document.admit(self.recipe.include_binary),
                source::Admit::Text
            )
        {
            return Ok(Answer::Binary);
        }
        let set = self.kind.set_of(&self.recipe, &document);
        // A candidate with this content hash has the query's own set: it is
        // checked by hashing its file, not shingled again ([`same_content`]).
        // The hash is of the bytes, as the index stores it.
        let own = xxh3_128(document.raw());
        drop(document);
        if set.is_empty() {
            return Ok(Answer::NoShingles);
        }
        let (signature, keys) = self.recipe.sign(&set);
        let own = Own {
            hash: own,
            set: &set,
            identity,
        };
        let (candidates, matches, unverified) =
            self.lookup(own, &signature, &keys, options, reporter, false)?;
        Ok(Answer::Matches {
            shingles: set.len(),
            candidates,
            matches,
            unverified,
        })
    }

    /// The matches of a document already shingled and signed (`own`, its
    /// `signature` and band `keys`): how many documents were verified, the
    /// matches ranked, and how many candidates could not be re-read. With
    /// `locked`, the caller holds the index's write transaction
    /// ([`Index::begin_locked`]), whose reads see its own writes; otherwise
    /// the candidates are read in one snapshot.
    pub(super) fn lookup(
        &mut self,
        own: Own<'_>,
        signature: &[u32],
        keys: &[u64],
        options: &QueryOptions,
        reporter: &dyn Reporter,
        locked: bool,
    ) -> Result<(usize, Vec<Match>, u64), IndexError> {
        if options.exact {
            return self.ask_exact(own, signature, options, reporter);
        }
        if let Some(top) = options.top
            && options.verification == Verification::Exact
        {
            return self.ask_top(own, signature, top, options.threshold, reporter);
        }
        let set = own.set;
        let read = |index: &Index| {
            let ids = index.candidates(keys)?;
            let mut docs = Vec::with_capacity(ids.len());
            for &id in &ids {
                docs.extend(index.document(id)?);
            }
            Ok((ids.len(), docs))
        };
        let located = |(count, docs): (usize, Vec<StoredDoc>)| {
            (
                count,
                docs.into_iter()
                    .map(|d| self.located(d))
                    .collect::<Vec<_>>(),
            )
        };
        let (candidates, mut docs) = located(if locked {
            read(self.index)?
        } else {
            self.index.snapshot(read)?
        });
        let mut unverified = 0;
        if options.verification == Verification::Exact {
            // Only candidates that can still reach the threshold are re-read:
            // re-reading many candidates was a query's slow tail.
            docs.retain(self.reachable(set.len(), signature, options.threshold));
            unverified = self.reload(&docs, own, reporter)?;
        }
        let mut matches = Vec::new();
        for doc in docs {
            let estimate = self.sketcher.estimate(signature, &doc.signature);
            let (similarity, shared) = match options.verification {
                Verification::Signature => (estimate, None),
                Verification::Exact => {
                    let Some(Some(other)) = self.sets.get(&doc.content_hash) else {
                        continue;
                    };
                    let shared = sets::intersection_size(set, other);
                    (
                        sets::ratio(shared, set.len() + other.len() - shared),
                        Some(shared),
                    )
                }
            };
            if similarity >= options.threshold {
                matches.push(Match {
                    doc,
                    similarity,
                    estimate,
                    shared,
                });
            }
        }
        rank(&mut matches);
        if let Some(top) = options.top {
            matches.truncate(top);
        }
        Ok((candidates, matches, unverified))
    }

    /// Remembers the set of content `hash` (a document just inserted), so
    /// that a later lookup verifying against it does not read it again.
    pub(super) fn remember(&mut self, hash: u128, set: Vec<u64>) {
        self.sets.insert(hash, Some(set));
    }

    /// Forgets every set re-read so far: a stream of lookups would
    /// otherwise hold every candidate it ever read.
    pub(super) fn forget(&mut self) {
        self.sets.clear();
    }

    /// The exact lookup ([`QueryOptions::exact`]): every stored document whose
    /// size passes the length filter (or, with a prefix index, every one the
    /// prefix probe keeps), re-read and verified a batch at a time,
    /// most promising size first. Jaccard is at most `min(|A|,|B|)/max(|A|,|B|)`
    /// (and the `f64` ratios keep that order, division being monotone), so
    /// with `top` the lookup stops once the N-th match is above that bound
    /// for every document not read yet.
    fn ask_exact(
        &mut self,
        own: Own<'_>,
        signature: &[u32],
        options: &QueryOptions,
        reporter: &dyn Reporter,
    ) -> Result<(usize, Vec<Match>, u64), IndexError> {
        let t = options.threshold;
        let set = own.set;
        let q = set.len() as u64;
        // A superset of the sizes that can reach t (one wider on each side of
        // the float bounds); the exact predicate below decides.
        let min = ((q as f64 * t).floor() as u64).saturating_sub(1).max(1);
        let max = ((q as f64 / t).ceil().min(i64::MAX as f64) as u64).saturating_add(1);
        let bound = |doc: &StoredDoc| {
            let d = doc.shingle_count as usize;
            sets::ratio(d.min(set.len()), d.max(set.len()))
        };
        let stored = if self.uses_prefix_index(t)? {
            let mut docs = Vec::new();
            let ordered = match &self.prefix_order {
                None if set.len() <= POINT_LOOKUPS => self.index.in_prefix_order(set)?,
                _ => {
                    if self.prefix_order.is_none() {
                        self.prefix_order = Some(self.index.prefix_order()?);
                    }
                    let mut ordered = set.to_vec();
                    if let Some(order) = &self.prefix_order {
                        order.sort(&mut ordered);
                    }
                    ordered
                }
            };
            for id in self.index.prefix_candidates(&ordered, t)? {
                docs.extend(self.index.document(id)?.map(|d| self.located(d)));
            }
            // The length filter's order, so that ties rank alike.
            docs.sort_by(|x, y| {
                x.path
                    .as_os_str()
                    .as_bytes()
                    .cmp(y.path.as_os_str().as_bytes())
            });
            docs
        } else {
            let stored = self
                .index
                .documents_with_shingles(min, max.min(i64::MAX as u64))?;
            stored.into_iter().map(|d| self.located(d)).collect()
        };
        let mut docs: Vec<(f64, StoredDoc)> = stored
            .into_iter()
            .map(|doc| (bound(&doc), doc))
            .filter(|(b, _)| *b >= t)
            .collect();
        // Stable: ties keep path order.
        docs.sort_by(|x, y| y.0.total_cmp(&x.0));
        let mut tally = Tally::default();
        let mut docs = docs.into_iter().peekable();
        while docs.peek().is_some() {
            if let Some(top) = options.top
                && tally.matches.len() >= top
            {
                rank(&mut tally.matches);
                tally.matches.truncate(top);
                let next = docs.peek().map_or(0.0, |(b, _)| *b);
                if tally.matches[top - 1].similarity > next {
                    break;
                }
            }
            let batch: Vec<StoredDoc> = docs.by_ref().take(EXACT_BATCH).map(|(_, d)| d).collect();
            self.verify_batch(batch, own, signature, t, &mut tally, reporter)?;
        }
        Ok(tally.finish(options.top))
    }

    /// Verifies each of `batch` exactly against the query (`own`), each
    /// content once ([`Tally::known`]), and adds those at `t` or above to
    /// the tally's matches; one that could not be read is warned about and
    /// counted.
    fn verify_batch(
        &self,
        batch: Vec<StoredDoc>,
        own: Own<'_>,
        signature: &[u32],
        t: f64,
        tally: &mut Tally,
        reporter: &dyn Reporter,
    ) -> Result<(), IndexError> {
        let set = own.set;
        tally.verified += batch.len();
        let (known, matches) = (&mut tally.known, &mut tally.matches);
        let mut unverified = 0;
        let similarity = |other: &[u64]| {
            let shared = sets::intersection_size(set, other);
            (
                sets::ratio(shared, set.len() + other.len() - shared),
                shared,
            )
        };
        let mut todo: Vec<&StoredDoc> = Vec::new();
        let mut planned = HashSet::new();
        for doc in &batch {
            if known.contains_key(&doc.content_hash) || !planned.insert(doc.content_hash) {
                continue;
            }
            // A stored text this process already shingled (never a file,
            // whose content is checked by reading it).
            let text = doc.stat.dev.is_none() && doc.stat.inode.is_none();
            if text
                && doc.content_hash != own.hash
                && let Some(other) = self.index.text_set(doc.content_hash)
            {
                known.insert(doc.content_hash, Some(similarity(&other)));
                continue;
            }
            todo.push(doc);
        }
        let bodies = self.index.stored_texts(todo.iter().copied())?;
        let (kind, recipe, read) = (self.kind, &self.recipe, &self.read);
        let loaded = each(&todo, |doc| {
            let body = bodies.get(&doc.id);
            let mut kept = None;
            let result = if doc.content_hash == own.hash {
                own_content(doc, own, read, body)
                    .map(|()| (sets::ratio(set.len(), set.len()), set.len()))
            } else {
                reload(doc, kind, recipe, read, body).map(|other| {
                    let measured = similarity(&other);
                    if body.is_some() {
                        kept = Some(other);
                    }
                    measured
                })
            };
            (doc.content_hash, doc.path.as_path(), result, kept)
        });
        for (hash, path, result, kept) in loaded {
            if let Some(other) = kept {
                self.index.keep_text_set(hash, std::sync::Arc::new(other));
            }
            let result = result
                .map_err(|err| {
                    warn_not_verified(reporter, path, err);
                    unverified += 1;
                })
                .ok();
            known.insert(hash, result);
        }
        for doc in batch {
            let Some(Some((similarity, shared))) = known.get(&doc.content_hash).copied() else {
                continue;
            };
            if similarity >= t {
                matches.push(Match {
                    estimate: self.sketcher.estimate(signature, &doc.signature),
                    doc,
                    similarity,
                    shared: Some(shared),
                });
            }
        }
        tally.unverified += unverified;
        Ok(())
    }

    /// Whether a candidate of a query document with `shingles` distinct
    /// shingles and `signature` is worth re-reading for exact verification at
    /// `threshold`, decided from what the index stores:
    ///
    /// * its shingle count (exact in an index): Jaccard is at most
    ///   `min(|A|, |B|) / max(|A|, |B|)` (the length filter of MMDS 3.9.3), so
    ///   a candidate whose count cannot reach the threshold never matches;
    /// * its signature: fewer agreeing positions than
    ///   [`verify::agreements_needed`] allows at the threshold rule it out,
    ///   with the miss probability `scan` allows itself there
    ///   ([`tune::RULE_OUT_SHARE`] of banding's own), and only when both
    ///   signatures' positions are independent samples (as in `scan`).
    fn reachable(
        &self,
        shingles: usize,
        signature: &[u32],
        threshold: f64,
    ) -> impl FnMut(&StoredDoc) -> bool + use<> {
        let banding = self.recipe.banding;
        let miss =
            tune::RULE_OUT_SHARE * scurve::miss_probability(threshold, banding.bands, banding.rows);
        let mut scratch = Vec::new();
        let needed = if self.sketcher.positions_independent(signature, &mut scratch) {
            verify::agreements_needed(signature.len(), threshold, miss)
        } else {
            0
        };
        let sketcher = self.sketcher.clone();
        let query = signature.to_vec();
        move |doc: &StoredDoc| {
            let count = usize::try_from(doc.shingle_count).unwrap_or(usize::MAX);
            if sets::ratio(count.min(shingles), count.max(shingles)) < threshold {
                return false;
            }
            if needed == 0 || doc.signature.len() != query.len() {
                return true;
            }
            let agree = query
                .iter()
                .zip(&doc.signature)
                .filter(|(x, y)| x == y)
                .count();
            agree >= needed || !sketcher.positions_independent(&doc.signature, &mut scratch)
        }
    }

    /// Re-reads each content of `docs` not loaded yet (identical files once),
    /// in parallel when there is much to read ([`each`]): for a document with
    /// many candidates this is the cost. The content of `own` (the query's
    /// hash and set) is only checked by its hash ([`own_content`]). Returns
    /// how many could not be (each warned about).
    fn reload(
        &mut self,
        docs: &[StoredDoc],
        own: Own<'_>,
        reporter: &dyn Reporter,
    ) -> Result<u64, IndexError> {
        let mut todo: Vec<&StoredDoc> = Vec::new();
        let mut planned = HashSet::new();
        for doc in docs {
            if !self.sets.contains_key(&doc.content_hash) && planned.insert(doc.content_hash) {
                todo.push(doc);
            }
        }
        let bodies = self.index.stored_texts(todo.iter().copied())?;
        let (kind, recipe, read) = (self.kind, &self.recipe, &self.read);
        let loaded = each(&todo, |doc| {
            let body = bodies.get(&doc.id);
            let set = if doc.content_hash == own.hash {
                own_content(doc, own, read, body).map(|()| own.set.to_vec())
            } else {
                reload(doc, kind, recipe, read, body)
            };
            (doc.content_hash, doc.path.as_path(), set)
        });
        let mut failed = 0;
        for (hash, path, result) in loaded {
            let set = result
                .map_err(|err| {
                    warn_not_verified(reporter, path, err);
                    failed += 1;
                })
                .ok();
            self.sets.insert(hash, set);
        }
        Ok(failed)
    }
}

/// What an exact lookup verified so far.
#[derive(Default)]
struct Tally {
    /// Similarity and overlap per content hash already verified (`None`:
    /// it could not be read).
    known: HashMap<u128, Option<(f64, usize)>>,
    matches: Vec<Match>,
    /// Documents verified (each content once, but every document counted).
    verified: usize,
    /// Contents that could not be read (each warned about).
    unverified: u64,
}

impl Tally {
    /// The lookup's answer: documents verified, the matches ranked (the
    /// `top` best), and how many could not be read.
    fn finish(mut self, top: Option<usize>) -> (usize, Vec<Match>, u64) {
        rank(&mut self.matches);
        if let Some(top) = top {
            self.matches.truncate(top);
        }
        (self.verified, self.matches, self.unverified)
    }
}

/// Most similar first, ties by path bytes.
fn rank(matches: &mut [Match]) {
    matches.sort_by(|x, y| {
        y.similarity.total_cmp(&x.similarity).then_with(|| {
            x.doc
                .path
                .as_os_str()
                .as_bytes()
                .cmp(y.doc.path.as_os_str().as_bytes())
        })
    });
}

/// A stored document's set again: from its stored text (`body`) when it is
/// not a file, else from the very file the index recorded (its device and
/// inode): a link or a swapped directory now in its path is never read
/// through.
fn reload(
    doc: &StoredDoc,
    kind: ItemKind,
    recipe: &crate::recipe::Recipe,
    read: &crate::input::read::ReadOptions,
    body: Option<&Vec<u8>>,
) -> Result<Vec<u64>, pipeline::ReloadError> {
    if let Some(body) = body {
        stored_text_unchanged(doc, body)?;
        let document = Document::from_bytes(body.clone()).extracted(&read.extract);
        return Ok(kind.set_of(recipe, &document));
    }
    let identity = doc.stat.dev.zip(doc.stat.inode);
    pipeline::reload_indexed(&doc.path, identity, doc.content_hash, recipe, read)
}

/// Whether the file of a stored document whose content hash is the query's
/// still has that content: known without reading it when it is the query's
/// own file ([`Own::is`]: its bytes were just hashed), else [`same_content`].
fn own_content(
    doc: &StoredDoc,
    own: Own<'_>,
    read: &crate::input::read::ReadOptions,
    body: Option<&Vec<u8>>,
) -> Result<(), pipeline::ReloadError> {
    if own.is(doc) {
        return Ok(());
    }
    if let Some(body) = body {
        return stored_text_unchanged(doc, body);
    }
    same_content(doc, read)
}

/// A stored text is what its document was signed from: its hash is the
/// stored content hash (a text row left behind by another writer's change
/// of the document is refused, never compared).
fn stored_text_unchanged(doc: &StoredDoc, body: &[u8]) -> Result<(), pipeline::ReloadError> {
    if xxh3_128(body) != doc.content_hash {
        return Err(pipeline::ReloadError::Changed);
    }
    Ok(())
}

/// Whether the file of a stored document whose content hash is the query's
/// still has that content: opened as [`reload`] opens it (the very file the
/// index recorded), its bytes hashed, not shingled. Its set is then the
/// query's own (one recipe, the same bytes), so shingling it again, half of
/// the slowest queries' time, is not needed; a file changed since it was
/// indexed is still found, by its hash, and refused as [`reload`] refuses it.
fn same_content(
    doc: &StoredDoc,
    read: &crate::input::read::ReadOptions,
) -> Result<(), pipeline::ReloadError> {
    let how = match doc.stat.dev.zip(doc.stat.inode) {
        Some((dev, ino)) => Reopen::Identified(dev, ino),
        None => Reopen::NoFollow,
    };
    let contents = source::reopen_path(&doc.path, how, read)?;
    // A chunk at a time, each released once hashed, as a large file's
    // reload reads: its pages need not all stay resident.
    let mut digest = Xxh3::new();
    let chunk = read.chunk_size.max(1);
    let raw = contents.raw();
    for start in (0..raw.len()).step_by(chunk) {
        let end = raw.len().min(start + chunk);
        digest.update(&raw[start..end]);
        contents.release_before(end);
    }
    if digest.digest128() != doc.content_hash {
        return Err(pipeline::ReloadError::Changed);
    }
    contents.verify_unchanged()?;
    Ok(())
}

/// What one query document found by containment ([`Query::ask_containment`]).
#[derive(Debug)]
pub enum ContainmentAnswer {
    /// It looks binary and the index skips binary files: no matches.
    Binary,
    /// It is shorter than one shingle: the empty set, inside nothing and
    /// holding nothing (`C(∅, B) = C(B, ∅) = 0`).
    NoShingles,
    Matches {
        /// Distinct shingles of the query document.
        shingles: usize,
        /// Indexed documents verified.
        verified: usize,
        /// Each match's document, and the pair: `a` the query (0), `b`
        /// the index of the document in this list plus one; ranked by how
        /// much of the query the document holds (`a_in_b`), then how much
        /// of it the query holds, then path bytes.
        matches: Vec<(StoredDoc, ContainedPair)>,
        /// Documents that could not be re-read (each warned about).
        unverified: u64,
    },
}

impl Query<'_> {
    /// Which indexed documents contain the query document (`C(q, d) ≥ t`)
    /// and which it contains (`C(d, q) ≥ t`), verified exactly from the
    /// sets. No band key narrows the search: the index's banding is made
    /// for Jaccard, under which a small query inside a large document is a
    /// pair of low similarity, and no size bounds both directions at once
    /// (`C(q, d) ≥ t` needs `|d| ≥ t·|q|`, `C(d, q) ≥ t` needs
    /// `|d| ≤ |q| / t`: every size passes one of them). Instead each stored
    /// signature is compared with the query's at the Jaccard its size needs
    /// ([`Query::containment_candidates`]: a document that reaches `t` is
    /// dropped with probability ≤ [`MISS`]), and the rest are re-read.
    /// With `top`, the `top` documents that hold the most of the query.
    pub fn ask_containment(
        &mut self,
        document: Document,
        identity: Option<(u64, u64)>,
        t: f64,
        top: Option<usize>,
        reporter: &dyn Reporter,
    ) -> Result<ContainmentAnswer, IndexError> {
        if self.kind.is_files()
            && !matches!(
                document.admit(self.recipe.include_binary),
                source::Admit::Text
            )
        {
            return Ok(ContainmentAnswer::Binary);
        }
        let set = self.kind.set_of(&self.recipe, &document);
        let own = xxh3_128(document.raw());
        drop(document);
        if set.is_empty() {
            return Ok(ContainmentAnswer::NoShingles);
        }
        let own = Own {
            hash: own,
            set: &set,
            identity,
        };
        let (signature, _) = self.recipe.sign(&set);
        let kept = self.containment_candidates(&set, &signature, t)?;
        let mut docs = self.stored(kept.into_iter())?;
        docs.sort_by(|x, y| {
            x.path
                .as_os_str()
                .as_bytes()
                .cmp(y.path.as_os_str().as_bytes())
        });
        let verified = docs.len();
        let mut unverified = 0;
        let mut matches = Vec::new();
        for batch in docs.chunks(EXACT_BATCH) {
            unverified += self.reload(batch, own, reporter)?;
            for doc in batch {
                let Some(Some(other)) = self.sets.get(&doc.content_hash) else {
                    continue;
                };
                let shared = sets::intersection_size(&set, other);
                let pair = ContainedPair::of(0, 0, set.len(), other.len(), shared);
                if pair.a_in_b >= t || pair.b_in_a >= t {
                    matches.push((doc.clone(), pair));
                }
            }
            // Sets re-read for this question are not kept: every document
            // is read, and holding them all would hold the index in memory.
            self.sets.clear();
        }
        matches.sort_by(|(x, p), (y, q)| {
            q.a_in_b
                .total_cmp(&p.a_in_b)
                .then(q.b_in_a.total_cmp(&p.b_in_a))
                .then_with(|| {
                    x.path
                        .as_os_str()
                        .as_bytes()
                        .cmp(y.path.as_os_str().as_bytes())
                })
        });
        if let Some(top) = top {
            matches.truncate(top);
        }
        for (i, (_, pair)) in matches.iter_mut().enumerate() {
            pair.b = u32::try_from(i + 1).unwrap_or(u32::MAX);
        }
        Ok(ContainmentAnswer::Matches {
            shingles: set.len(),
            verified,
            matches,
            unverified,
        })
    }
}
