//! `simfind.Index`'s native half: the SQLite index of `simfind index` and
//! `simfind query --db`, opened, queried and extended from Python (issue
//! #35's streaming index), every call under the index's own lock and with
//! the GIL released.

use std::sync::Mutex;

use pyo3::exceptions::{PyOSError, PyTimeoutError};
use simfind::index::{Answer, Query, QueryOptions};
use simfind::index::{Decision, Stream};
use simfind::index::{IndexError, OpenOptions};
use simfind::index::{NewDoc, add_and_remove};

use super::*;

/// An index error as a Python exception: another writer holding the lock
/// past `wait` is a `TimeoutError`; a file that is not a usable index, or
/// one built with other options, a `ValueError`; anything else (I/O, a
/// damaged page) an `OSError`. The message is the library's, naming the file.
fn index_error(error: IndexError) -> PyErr {
    match error {
        IndexError::Busy { .. } => PyTimeoutError::new_err(error.to_string()),
        IndexError::ParamsMismatch { .. }
        | IndexError::NotAnIndex { .. }
        | IndexError::FormatVersion { .. }
        | IndexError::Missing { .. } => PyValueError::new_err(error.to_string()),
        _ => PyOSError::new_err(error.to_string()),
    }
}

/// A persistent index of texts keyed by ids: the SQLite index `simfind
/// index`/`query --db` use, so each reads what the other wrote. The public
/// `simfind.Index` wraps it. Texts are stored with their bytes (the
/// `texts` table), from which exact verification reads them; documents a
/// command indexed are files, read from their paths.
#[pyclass(module = "simfind._simfind")]
pub(crate) struct _Index {
    /// None once closed.
    index: Mutex<Option<Index>>,
}

impl _Index {
    /// Runs `work` on the open index with the GIL released.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        work: impl FnOnce(&mut Index) -> Result<T, IndexError> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let mut guard = self
                .index
                .lock()
                .map_err(|_| PyRuntimeError::new_err("the index was poisoned by a panic"))?;
            let index = guard
                .as_mut()
                .ok_or_else(|| PyValueError::new_err("the index is closed"))?;
            work(index).map_err(index_error)
        })
    }
}

/// The query options of a lookup: `threshold` (None: the index's S-curve
/// threshold), `top` (the walk in signature-estimate order, or the exact
/// lookup's true top with `exact`), exact verification.
fn lookup_options(
    query: &Query<'_>,
    threshold: Option<f64>,
    top: Option<usize>,
    exact: bool,
) -> QueryOptions {
    QueryOptions {
        threshold: threshold.unwrap_or_else(|| query.default_threshold()),
        top,
        verification: simfind::pipeline::Verification::Exact,
        exact,
    }
}

/// The id of a text given none: the hex of the hash of its bytes (the
/// content hash the index stores), so that two writers never pick the same
/// id for different texts, as a count of the documents could.
fn default_id(bytes: &[u8]) -> String {
    format!("{:032x}", simfind::index::content_hash(bytes))
}

fn check_threshold(threshold: Option<f64>) -> PyResult<()> {
    match threshold {
        Some(t) if !(t > 0.0 && t <= 1.0) => Err(PyValueError::new_err(format!(
            "threshold must be in (0, 1], got {t}"
        ))),
        _ => Ok(()),
    }
}

/// The error for an index whose stored parameters this build cannot use.
fn unusable(index: &Index, reason: impl std::fmt::Display) -> IndexError {
    IndexError::Invalid {
        path: index.path().to_owned(),
        reason: format!("parameters this simfind cannot use ({reason})"),
    }
}

fn query_of(index: &Index) -> Result<Query<'_>, IndexError> {
    Query::new(index).map_err(|reason| unusable(index, reason))
}

fn recipe_of(index: &Index) -> Result<simfind::recipe::Recipe, IndexError> {
    index
        .params()
        .recipe()
        .map_err(|reason| unusable(index, reason))
}

/// The bytes of each text (each checked to be `str` or `bytes`, named by
/// its place) and their ids: those given, one per text, or each text's
/// content hash.
fn texts_and_ids(
    texts: &[Bound<'_, PyAny>],
    ids: Option<Vec<String>>,
) -> PyResult<(Vec<Vec<u8>>, Vec<String>)> {
    let mut bodies = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        bodies.push(text_of(text, &format!("texts[{i}]"))?.into_owned());
    }
    let ids = ids.unwrap_or_else(|| bodies.iter().map(|b| default_id(b)).collect());
    if texts.len() != ids.len() {
        return Err(PyValueError::new_err(format!(
            "ids has {} items for {} texts",
            ids.len(),
            texts.len()
        )));
    }
    Ok((bodies, ids))
}

#[pymethods]
impl _Index {
    /// Opens the index at `path`, creating it with the given options (the
    /// library's `Spec` validates them, and its defaults fill in the rest)
    /// if there is none. An existing index keeps its own recipe: an option
    /// given must equal its stored value, else a ValueError names both.
    #[new]
    #[pyo3(signature = (
        path, *, shingle = None, k = None, threshold = None, bands = None, rows = None,
        seed = None, sketch = None, wait = 30.0
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: std::path::PathBuf,
        shingle: Option<&str>,
        k: Option<&Bound<'_, PyAny>>,
        threshold: Option<f64>,
        bands: Option<&Bound<'_, PyAny>>,
        rows: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        sketch: Option<&str>,
        wait: f64,
    ) -> PyResult<Self> {
        let kind: Option<ShingleKind> = shingle
            .map(|shingle| {
                shingle.parse().map_err(|_| {
                    PyValueError::new_err(format!(
                        "shingle must be one of {}, got {shingle:?}",
                        ShingleKind::ALL.map(ShingleKind::name).join(", ")
                    ))
                })
            })
            .transpose()?;
        let k: Option<usize> = count_arg("k", k)?;
        let bands: Option<usize> = count_arg("bands", bands)?;
        let rows: Option<usize> = count_arg("rows", rows)?;
        let seed: Option<u64> = count_arg("seed", seed)?;
        let sketch = sketch.map(sketch_kind).transpose()?;
        if !(wait.is_finite() && wait >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "wait must be a number of seconds ≥ 0, got {wait}"
            )));
        }
        let spec = SpecBuilder::new()
            .shingle_kind(kind)
            .k(k)
            .threshold(threshold)
            .bands(bands)
            .rows(rows)
            .seed(seed)
            .sketch(sketch)
            .build()
            .map_err(spec_error)?;
        let options = OpenOptions {
            busy_timeout: Duration::from_secs_f64(wait),
        };
        let index = py.detach(|| -> Result<Index, IndexError> {
            match Index::open_existing(&path, options) {
                Ok(mut index) => {
                    index.upgrade()?;
                    Ok(index)
                }
                Err(IndexError::Missing { .. }) => {
                    Index::open_or_create(&path, &Params::of(&spec.recipe()), options)
                }
                Err(err) => Err(err),
            }
        });
        let index = index.map_err(index_error)?;
        // Only what was given is held against the stored recipe: an index
        // is opened with no option at all.
        let stored = index.params();
        let given: [(&str, Option<String>, String); 6] = [
            (
                "shingle",
                kind.map(|k| k.name().to_owned()),
                stored.shingle_kind.clone(),
            ),
            ("k", k.map(|k| k.to_string()), stored.k.to_string()),
            (
                "bands",
                bands.map(|b| b.to_string()),
                stored.bands.to_string(),
            ),
            ("rows", rows.map(|r| r.to_string()), stored.rows.to_string()),
            ("seed", seed.map(|s| s.to_string()), stored.seed.to_string()),
            (
                "sketch",
                sketch.map(|s| s.name().to_owned()),
                stored.minhash.clone(),
            ),
        ];
        for (name, given, stored) in given {
            if let Some(given) = given
                && given != stored
            {
                return Err(PyValueError::new_err(format!(
                    "{name}={given} differs from the index's {name} {stored} ({}): open it \
                     without {name}, or give another path for a new index",
                    path.display()
                )));
            }
        }
        Ok(_Index {
            index: Mutex::new(Some(index)),
        })
    }

    /// The number of documents in the index.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |index| index.len().map(|n| n as usize))
    }

    /// The recipe the index signs with: `(shingle, k, bands, rows, seed,
    /// sketch)`.
    fn recipe(&self, py: Python<'_>) -> PyResult<(String, u32, u32, u32, u64, String)> {
        self.with(py, |index| {
            let p = index.params();
            Ok((
                p.shingle_kind.clone(),
                p.k,
                p.bands,
                p.rows,
                p.seed,
                p.minhash.clone(),
            ))
        })
    }

    /// Stores each text under its id (replacing the document an id already
    /// has), in one transaction; returns how many were stored.
    #[pyo3(signature = (texts, ids = None))]
    fn insert(
        &self,
        py: Python<'_>,
        texts: Vec<Bound<'_, PyAny>>,
        ids: Option<Vec<String>>,
    ) -> PyResult<Vec<String>> {
        let (bodies, ids) = texts_and_ids(&texts, ids)?;
        let paths: Vec<std::path::PathBuf> = ids.iter().map(std::path::PathBuf::from).collect();
        self.with(py, move |index| {
            let recipe = recipe_of(index)?;
            let read = simfind::input::ReadOptions::default();
            let docs = paths
                .iter()
                .zip(bodies)
                .map(|(id, bytes)| NewDoc::Text { id, bytes })
                .collect();
            add_and_remove(index, &recipe, &read, docs, &[], &Cancel::default())?;
            Ok(())
        })?;
        Ok(ids)
    }

    /// The indexed documents similar to `text`: `(id, similarity)` pairs,
    /// most similar first (ties by id). See `simfind.Index.query`.
    #[pyo3(signature = (text, threshold = None, top = None, exact = false))]
    fn query(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        threshold: Option<f64>,
        top: Option<&Bound<'_, PyAny>>,
        exact: bool,
    ) -> PyResult<Vec<(String, f64)>> {
        check_threshold(threshold)?;
        let top: Option<usize> = count_arg("top", top)?;
        if top == Some(0) {
            return Err(PyValueError::new_err("top must be at least 1, got 0"));
        }
        let bytes = text_of(text, "text")?.into_owned();
        self.with(py, move |index| {
            let mut query = query_of(index)?;
            let options = lookup_options(&query, threshold, top, exact);
            let answer = query.ask(bytes, &options, &Cancel::default())?;
            Ok(match answer {
                Answer::Matches { matches, .. } => matches
                    .into_iter()
                    .map(|m| (m.doc.path.to_string_lossy().into_owned(), m.similarity))
                    .collect(),
                Answer::Binary | Answer::NoShingles => Vec::new(),
            })
        })
    }

    /// Adds `text` under `id` unless an indexed document is similar to it
    /// at `threshold`, the lookup and the insert under one write lock and
    /// committed before it returns: `(added, id, nearest, similarity)`.
    #[pyo3(signature = (text, id = None, threshold = None, exact = false))]
    fn add_if_new(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        id: Option<String>,
        threshold: Option<f64>,
        exact: bool,
    ) -> PyResult<(bool, String, Option<String>, Option<f64>)> {
        check_threshold(threshold)?;
        let bytes = text_of(text, "text")?.into_owned();
        let id = id.unwrap_or_else(|| default_id(&bytes));
        let name = std::path::PathBuf::from(&id);
        let decided = self.with(py, move |index| {
            let index: &Index = index;
            let query = query_of(index)?;
            let options = lookup_options(&query, threshold, None, exact);
            let mut stream = Stream::new(index, query);
            let decision = stream.add_if_new(
                NewDoc::Text { id: &name, bytes },
                &options,
                &Cancel::default(),
            )?;
            stream.commit()?;
            Ok(decision)
        })?;
        match decided {
            Decision::New { .. } => Ok((true, id, None, None)),
            Decision::Seen { nearest, .. } => Ok((
                false,
                id,
                Some(nearest.doc.path.to_string_lossy().into_owned()),
                Some(nearest.similarity),
            )),
            Decision::Binary => Err(PyValueError::new_err(
                "text looks binary (it holds NUL bytes) and the index skips binary documents",
            )),
            Decision::Unreadable(_, err) => Err(PyOSError::new_err(err.to_string())),
        }
    }

    /// Decides each text of `texts` in order as `add_if_new` decides one,
    /// all under one write lock and committed once at the end: a text sees
    /// the documents committed before the call and the texts added before
    /// it in the batch. A text that looks binary (or any error) rolls the
    /// whole batch back: nothing is added. Returns one `(added, id,
    /// nearest, similarity)` per text.
    #[pyo3(signature = (texts, ids = None, threshold = None, exact = false))]
    #[allow(clippy::type_complexity)]
    fn add_if_new_batch(
        &self,
        py: Python<'_>,
        texts: Vec<Bound<'_, PyAny>>,
        ids: Option<Vec<String>>,
        threshold: Option<f64>,
        exact: bool,
    ) -> PyResult<Vec<(bool, String, Option<String>, Option<f64>)>> {
        check_threshold(threshold)?;
        let (bodies, ids) = texts_and_ids(&texts, ids)?;
        let names: Vec<std::path::PathBuf> = ids.iter().map(std::path::PathBuf::from).collect();
        // A text the batch cannot take, found under the lock: the batch is
        // dropped (rolled back) and this is raised.
        enum Refused {
            Binary(usize),
            Unreadable(usize, String),
        }
        let decided = self.with(py, move |index| {
            let index: &Index = index;
            let query = query_of(index)?;
            let options = lookup_options(&query, threshold, None, exact);
            let mut stream = Stream::new(index, query);
            let mut decisions = Vec::with_capacity(bodies.len());
            for (i, (name, bytes)) in names.iter().zip(bodies).enumerate() {
                let decision = stream.add_if_new(
                    NewDoc::Text { id: name, bytes },
                    &options,
                    &Cancel::default(),
                )?;
                decisions.push(match decision {
                    Decision::New { .. } => (true, None, None),
                    Decision::Seen { nearest, .. } => (
                        false,
                        Some(nearest.doc.path.to_string_lossy().into_owned()),
                        Some(nearest.similarity),
                    ),
                    Decision::Binary => return Ok(Err(Refused::Binary(i))),
                    Decision::Unreadable(_, err) => {
                        return Ok(Err(Refused::Unreadable(i, err.to_string())));
                    }
                });
            }
            stream.commit()?;
            Ok(Ok(decisions))
        })?;
        match decided {
            Ok(decided) => Ok(ids
                .into_iter()
                .zip(decided)
                .map(|(id, (new, nearest, similarity))| (new, id, nearest, similarity))
                .collect()),
            Err(Refused::Binary(i)) => Err(PyValueError::new_err(format!(
                "texts[{i}] looks binary (it holds NUL bytes) and the index skips binary \
                 documents: nothing of the batch was added"
            ))),
            Err(Refused::Unreadable(i, err)) => Err(PyOSError::new_err(format!(
                "texts[{i}]: {err}: nothing of the batch was added"
            ))),
        }
    }

    /// Removes the documents of `ids` in one transaction. An id the index
    /// does not hold is a KeyError naming it, raised before anything is
    /// removed.
    fn remove(&self, py: Python<'_>, ids: Vec<String>) -> PyResult<()> {
        let paths: Vec<std::path::PathBuf> = ids.iter().map(std::path::PathBuf::from).collect();
        let missing = self.with(py, move |index| {
            for (id, path) in ids.iter().zip(&paths) {
                if index.id_of(path)?.is_none() {
                    return Ok(Some(id.clone()));
                }
            }
            let recipe = recipe_of(index)?;
            let read = simfind::input::ReadOptions::default();
            add_and_remove(
                index,
                &recipe,
                &read,
                Vec::new(),
                &paths,
                &Cancel::default(),
            )?;
            Ok(None)
        })?;
        match missing {
            Some(id) => Err(pyo3::exceptions::PyKeyError::new_err(format!(
                "{id:?} is not in the index: nothing was removed"
            ))),
            None => Ok(()),
        }
    }

    /// Closes the index (later calls raise ValueError); idempotent.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| {
            if let Ok(mut guard) = self.index.lock() {
                guard.take();
            }
        });
        Ok(())
    }
}
