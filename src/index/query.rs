//! The many-one question of MMDS §3.4: which indexed documents are similar to
//! this one?
//!
//! Role: a [`Query`] signs a document with the recipe stored in an index
//! ([`Params::recipe`](crate::index::Params::recipe)), looks its band keys up, and verifies the candidates
//! as `scan` does: exactly (each candidate file re-read as a set with
//! [`pipeline::reload_set`], refused if its content is no longer what was
//! indexed) or by the signature estimate. Contents re-read once stay cached
//! for later queries.
//!
//! Inputs: an open [`Index`] and a query document's bytes. Outputs: an
//! [`Answer`] per document (its matches ranked most similar first, ties by
//! path bytes); candidates that could not be re-read are warned about through
//! the [`Reporter`] and counted. Nothing is printed.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::os::unix::ffi::OsStrExt;

use rayon::prelude::*;

use super::{Index, IndexError, ParamsError, StoredDoc};
use crate::input::read::{self, ReadOptions};
use crate::lsh::scurve;
use crate::pipeline::{self, ReloadError, Verification};
use crate::progress::Reporter;
use crate::recipe::Recipe;
use crate::similarity::sets;
use crate::sketch::{AnySketcher, Sketcher};

/// What to report for each query document.
#[derive(Clone, Copy, Debug)]
pub struct QueryOptions {
    /// Matches with similarity ≥ this are reported; in (0, 1].
    pub threshold: f64,
    /// At most this many matches per document (the most similar).
    pub top: Option<usize>,
    pub verification: Verification,
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
            ReloadError::Changed => f.write_str(
                "changed since it was indexed; run `simfind index` to refresh the index",
            ),
            ReloadError::Read(err) => err.fmt(f),
        }
    }
}

/// Queries against one index, signed with its recipe.
pub struct Query<'a> {
    index: &'a Index,
    recipe: Recipe,
    sketcher: AnySketcher,
    read: ReadOptions,
    /// Shingle sets of indexed contents already re-read, by content hash
    /// (`None`: could not be).
    sets: HashMap<u128, Option<Vec<u64>>>,
}

impl<'a> Query<'a> {
    /// Queries of `index`; an error if its parameters are not understood.
    pub fn new(index: &'a Index) -> Result<Self, ParamsError> {
        let recipe = index.params().recipe()?;
        Ok(Query {
            index,
            sketcher: recipe.sketcher(),
            recipe,
            read: ReadOptions::default(),
            sets: HashMap::new(),
        })
    }

    /// The recipe the index was signed with.
    pub fn recipe(&self) -> &Recipe {
        &self.recipe
    }

    /// The S-curve threshold of the index's bands and rows.
    pub fn default_threshold(&self) -> f64 {
        scurve::threshold(self.recipe.banding.bands, self.recipe.banding.rows)
    }

    /// Looks up the document whose bytes are `bytes` (consumed: released once
    /// shingled, before any candidate is read).
    pub fn ask(
        &mut self,
        bytes: Vec<u8>,
        options: &QueryOptions,
        reporter: &dyn Reporter,
    ) -> Result<Answer, IndexError> {
        if !self.recipe.include_binary && read::looks_binary(&bytes) {
            return Ok(Answer::Binary);
        }
        let set = self.recipe.set_of(&bytes);
        drop(bytes);
        if set.is_empty() {
            return Ok(Answer::NoShingles);
        }
        let (signature, keys) = self.recipe.sign(&set);
        let ids = self.index.candidates(&keys)?;
        let candidates = ids.len();
        let mut docs = Vec::with_capacity(ids.len());
        for id in ids {
            docs.extend(self.index.document(id)?);
        }
        let mut unverified = 0;
        if options.verification == Verification::Exact {
            unverified = self.reload(&docs, reporter);
        }
        let mut matches = Vec::new();
        for doc in docs {
            let estimate = self.sketcher.estimate(&signature, &doc.signature);
            let (similarity, shared) = match options.verification {
                Verification::Signature => (estimate, None),
                Verification::Exact => {
                    let Some(Some(other)) = self.sets.get(&doc.content_hash) else {
                        continue;
                    };
                    let shared = sets::intersection_size(&set, other);
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
        matches.sort_by(|x, y| {
            y.similarity.total_cmp(&x.similarity).then_with(|| {
                x.doc
                    .path
                    .as_os_str()
                    .as_bytes()
                    .cmp(y.doc.path.as_os_str().as_bytes())
            })
        });
        if let Some(top) = options.top {
            matches.truncate(top);
        }
        Ok(Answer::Matches {
            shingles: set.len(),
            candidates,
            matches,
            unverified,
        })
    }

    /// Re-reads each content of `docs` not loaded yet (identical files once),
    /// in parallel: for a document with many candidates this is the cost.
    /// Returns how many could not be (each warned about).
    fn reload(&mut self, docs: &[StoredDoc], reporter: &dyn Reporter) -> u64 {
        let mut todo: Vec<&StoredDoc> = Vec::new();
        let mut planned = HashSet::new();
        for doc in docs {
            if !self.sets.contains_key(&doc.content_hash) && planned.insert(doc.content_hash) {
                todo.push(doc);
            }
        }
        let (recipe, read) = (&self.recipe, &self.read);
        let loaded: Vec<_> = todo
            .par_iter()
            .map(|doc| {
                let set = pipeline::reload_set(&doc.path, doc.content_hash, recipe, read);
                (doc.content_hash, doc.path.as_path(), set)
            })
            .collect();
        let mut failed = 0;
        for (hash, path, result) in loaded {
            let set = result
                .map_err(|err| {
                    reporter.warn(path, &NotVerified(err));
                    failed += 1;
                })
                .ok();
            self.sets.insert(hash, set);
        }
        failed
    }
}
