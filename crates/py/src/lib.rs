//! `simfind._simfind`: the native half of the `simfind` Python package, a thin
//! face over the library as the `simfind` command is the other.
//!
//! Role: turn Python arguments into the library's types, validate them with
//! errors that name the argument (`ValueError`), call the library with the
//! GIL released, and hand the values back. No rule, default or algorithm is
//! written here: the shingle kinds, their default k and stop words, the
//! normalisation and the measures are the library's, so a text measured here
//! and a file measured by `simfind compare` with the same settings agree.
//!
//! What a host process must be able to count on: nothing here prints, installs
//! a signal handler or touches process-wide state, and the only file it
//! opens is an `Index`'s, at the path the caller gives.

mod datasketch;
mod index;

use index::_Index;

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyString};
use simfind::cluster::{ClusterMethod, ClusterParams, FileFacts, KeepPolicy, cluster_contents};
use simfind::index::{Index, Params};
use simfind::pipeline::{ScanConfig, scan_texts};
use simfind::progress::Reporter;
use simfind::recipe::{MAX_K, shingle_set};
use simfind::similarity::measures;
use simfind::sketch::{AnyFamily, AnySketcher, Family, Features, SketchKind};
use simfind::spec::{Method, SpecBuilder, SpecError, Verification};
use simfind::text::normalize::Normalization;
use simfind::text::shingle::{ShingleKind, Shingler};

/// How texts become shingle sets: the kind and k given, everything else
/// (stop words, normalisation) the library's default, as on the command line.
struct Shingling {
    shingler: Shingler,
    normalization: Normalization,
}

impl Shingling {
    /// `shingle` and `k` as Python gave them (`k=None`: the kind's default).
    fn new(shingle: &str, k: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let kind: ShingleKind = shingle.parse().map_err(|_| {
            PyValueError::new_err(format!(
                "shingle must be one of {}, got {shingle:?}",
                ShingleKind::ALL.map(ShingleKind::name).join(", ")
            ))
        })?;
        let k = match k {
            None => kind.default_k(),
            Some(k) if !k.is_instance_of::<PyInt>() => {
                return Err(PyTypeError::new_err(format!(
                    "k must be an int, not {}",
                    k.get_type().name()?
                )));
            }
            // Extracted here rather than by PyO3, so that a negative or huge
            // k is a ValueError naming k, not an OverflowError.
            Some(k) => k
                .extract::<usize>()
                .ok()
                .filter(|k| (1..=MAX_K).contains(k))
                .ok_or_else(|| {
                    PyValueError::new_err(format!("k must be between 1 and {MAX_K}, got {k}"))
                })?,
        };
        Ok(Shingling {
            shingler: Shingler::new(kind, k, kind.default_stop_words()),
            normalization: Normalization::default(),
        })
    }

    fn set_of(&self, bytes: &[u8]) -> Vec<u64> {
        shingle_set(bytes, self.normalization, &self.shingler)
    }
}

/// The longest text a call takes unless its `max_length` says otherwise:
/// the command's cap on a record (`DEFAULT_MAX_LINE`, 16 MiB). A text's
/// shingle set takes about 8 bytes a character while it is made (a 1 GB
/// text, 8 GB), so a larger one is refused with a ValueError before any
/// work rather than left to exhaust the host's memory.
const MAX_TEXT: usize = simfind::input::records::DEFAULT_MAX_LINE;

/// A document's bytes: a `str` as its UTF-8, `bytes` as they are (invalid
/// UTF-8 is then replaced while normalising, as for a file). Borrowed: a
/// `str`'s UTF-8 is the one CPython keeps with it (made on first use when
/// the str is not ASCII), so a large text is not copied before shingling.
/// At most [`MAX_TEXT`] bytes.
fn text_of<'a>(arg: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Cow<'a, [u8]>> {
    checked_text(arg, name, MAX_TEXT, "")
}

/// [`text_of`] under the cap the caller's `max_length` argument sets (None:
/// [`MAX_TEXT`]).
fn text_within<'a>(
    arg: &'a Bound<'_, PyAny>,
    name: &str,
    max_length: Option<usize>,
) -> PyResult<Cow<'a, [u8]>> {
    checked_text(arg, name, max_length.unwrap_or(MAX_TEXT), CAP_HINT)
}

/// How a text over the cap of a call's `max_length` is told it can pass.
const CAP_HINT: &str = ": a larger max_length= takes it, at about 8 bytes of memory a \
                        character while its shingles are made";

/// The bytes of `arg`, a TypeError naming it when it is neither `str` nor
/// `bytes`, a ValueError naming it and its length when it has more than
/// `cap` (`hint` says how to raise the cap).
fn checked_text<'a>(
    arg: &'a Bound<'_, PyAny>,
    name: &str,
    cap: usize,
    hint: &str,
) -> PyResult<Cow<'a, [u8]>> {
    Ok(match checked(arg, name, cap, hint)? {
        Text::Str(Cow::Borrowed(text)) => Cow::Borrowed(text.as_bytes()),
        Text::Str(Cow::Owned(text)) => Cow::Owned(text.into_bytes()),
        Text::Bytes(bytes) => Cow::Borrowed(bytes),
    })
}

/// A text as Python gave it: a `str`'s UTF-8 (valid, so never checked
/// again) or `bytes`.
enum Text<'a> {
    Str(Cow<'a, str>),
    Bytes(&'a [u8]),
}

/// [`checked_text`], a `str` kept as such.
fn checked<'a>(
    arg: &'a Bound<'_, PyAny>,
    name: &str,
    cap: usize,
    hint: &str,
) -> PyResult<Text<'a>> {
    let text = if let Ok(bytes) = arg.cast::<PyBytes>() {
        Text::Bytes(bytes.as_bytes())
    } else if let Ok(text) = arg.cast::<PyString>() {
        // Its UTF-8 has at least a byte a character: a str refused by its
        // length is not encoded first (for a str that is not ASCII the
        // encoding is made, and kept by the str, on first use).
        let chars = text.len()?;
        if chars > cap {
            return Err(PyValueError::new_err(format!(
                "{name} is {chars} characters long, over the cap of {cap} bytes (UTF-8) a \
                 text{hint}"
            )));
        }
        Text::Str(text.to_cow()?)
    } else {
        return Err(PyTypeError::new_err(format!(
            "{name} must be str or bytes, not {}",
            arg.get_type().name()?
        )));
    };
    let len = match &text {
        Text::Str(text) => text.len(),
        Text::Bytes(bytes) => bytes.len(),
    };
    if len > cap {
        return Err(PyValueError::new_err(format!(
            "{name} is {len} bytes long (UTF-8), over the cap of {cap} bytes a text{hint}"
        )));
    }
    Ok(text)
}

/// The shingle set of `text` (str or bytes) as `simfind scan` and `simfind
/// compare` build it: normalised (lowercased, whitespace runs collapsed),
/// shingled, each shingle hashed to 64 bits; sorted, without duplicates.
/// `shingle` is "char", "word", "stopword" or "important"; `k` defaults to
/// the kind's (5 characters, 3 words, 1 important word). A text shorter than
/// one shingle has the empty set.
#[pyfunction]
#[pyo3(signature = (text, *, shingle = "char", k = None, max_length = None))]
fn shingles(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    shingle: &str,
    k: Option<&Bound<'_, PyAny>>,
    max_length: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let shingling = Shingling::new(shingle, k)?;
    let max_length = count_arg("max_length", max_length)?;
    let text = text_within(text, "text", max_length)?;
    Ok(py.detach(|| shingling.set_of(&text)))
}

/// The exact Jaccard similarity |A ∩ B| / |A ∪ B| of the shingle sets of
/// texts `a` and `b` (str or bytes), built as `shingles` builds them: the
/// `jaccard` that `simfind compare` prints for two files with the same
/// contents and options. None when both texts are shorter than one shingle
/// (the similarity of two empty sets is undefined).
#[pyfunction]
#[pyo3(signature = (a, b, *, shingle = "char", k = None, max_length = None))]
fn jaccard(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    shingle: &str,
    k: Option<&Bound<'_, PyAny>>,
    max_length: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<f64>> {
    let shingling = Shingling::new(shingle, k)?;
    let max_length = count_arg("max_length", max_length)?;
    let (a, b) = (
        text_within(a, "a", max_length)?,
        text_within(b, "b", max_length)?,
    );
    Ok(py.detach(|| measures::jaccard(&shingling.set_of(&a), &shingling.set_of(&b))))
}

/// A rule of the library's `Spec` as a `ValueError` in this module's words:
/// the Spec names its fields, and the few whose Python argument is spelt
/// differently are renamed here (the rule itself stays the library's).
fn spec_error(error: SpecError) -> PyErr {
    let message = error
        .to_string()
        .replace("shingle_kind", "shingle")
        .replace("verification", "verify");
    PyValueError::new_err(message)
}

/// The items of `texts`, in order, each held (so that the texts
/// [`texts_of`] lends from them live as long as these do).
fn items_of<'py>(py: Python<'py>, texts: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut items = Vec::new();
    for (i, item) in texts.try_iter()?.enumerate() {
        // A long list is read without running Python code, which is where
        // Python notices Ctrl-C: asked here now and then.
        if i % 65536 == 65535 {
            py.check_signals()?;
        }
        items.push(item?);
    }
    Ok(items)
}

/// The texts of `items` in order: a `str`'s UTF-8 lent as it is (valid,
/// never checked again), `bytes` decoded with invalid UTF-8 replaced (as a
/// JSON Lines input cannot hold them either). Anything else is a
/// `TypeError` naming its position; a missing value or a text longer than
/// `max_length` (None: [`MAX_TEXT`]), a `ValueError`.
fn texts_of<'a>(
    py: Python<'_>,
    items: &'a [Bound<'_, PyAny>],
    max_length: Option<usize>,
) -> PyResult<Vec<Cow<'a, str>>> {
    let cap = max_length.unwrap_or(MAX_TEXT);
    let mut texts = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if i % 65536 == 65535 {
            py.check_signals()?;
        }
        if is_missing(item) {
            return Err(PyValueError::new_err(format!(
                "texts[{i}] is a missing value ({}): drop or fill missing values first \
                 (pandas: .dropna() or .fillna(\"\"))",
                item.repr()?
            )));
        }
        texts.push(
            match checked(item, &format!("texts[{i}]"), cap, CAP_HINT)? {
                Text::Str(text) => text,
                Text::Bytes(bytes) => String::from_utf8_lossy(bytes),
            },
        );
    }
    Ok(texts)
}

/// Whether `item` is what pandas and pyarrow put where a value is missing:
/// None, a float NaN (pandas' object columns hold `nan`), `pd.NA`.
fn is_missing(item: &Bound<'_, PyAny>) -> bool {
    item.is_none()
        || item
            .cast::<PyFloat>()
            .is_ok_and(|f| f.value().is_nan())
        // pandas' own missing values (`pd.NA` in its string columns).
        || item
            .get_type()
            .name()
            .is_ok_and(|name| name == "NAType" || name == "NaTType")
}

/// An optional count argument (`k`, `bands`, `rows`, `seed`, `threads`) as
/// Python gave it: an int, or a TypeError naming it; an int the type cannot
/// hold (negative, too large) is a ValueError naming it, not PyO3's
/// OverflowError. Ranges are the Spec's to check.
fn count_arg<'py, T>(name: &str, value: Option<&Bound<'py, PyAny>>) -> PyResult<Option<T>>
where
    T: for<'a> FromPyObject<'a, 'py>,
{
    let Some(value) = value else {
        return Ok(None);
    };
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, not {}",
            value.get_type().name()?
        )));
    }
    value.extract::<T>().map(Some).map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must be a non-negative int that fits in {} bits, got {value}",
            8 * std::mem::size_of::<T>()
        ))
    })
}

/// The reporter of a call run on a worker thread: silent, and asked to stop
/// when the calling thread sees Ctrl-C (see [`run_interruptibly`]).
#[derive(Default)]
struct Cancel(AtomicBool);

impl Reporter for Cancel {
    fn cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// How often the calling thread asks Python for a pending Ctrl-C while the
/// work runs: prompt to a person, nothing to the work.
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a worker thread with the GIL released, while this thread
/// asks Python for signals every [`POLL`]: on KeyboardInterrupt (or whatever
/// a signal handler raised) the work is asked to stop through `cancel`, its
/// incomplete result is discarded once it has, and the exception is raised.
/// The work is thus stopped by the library's own checks, never killed.
fn run_interruptibly<T: Send>(
    py: Python<'_>,
    cancel: &Cancel,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|scope| {
        let caller = std::thread::current();
        let worker = scope.spawn(move || {
            // A panic unwinds past the unpark: the caller then sees the
            // worker finished at its next poll.
            let result = work();
            caller.unpark();
            result
        });
        while !worker.is_finished() {
            py.detach(|| std::thread::park_timeout(POLL));
            if worker.is_finished() {
                break;
            }
            if let Err(interrupt) = py.check_signals() {
                cancel.0.store(true, Ordering::Relaxed);
                // Waiting for the stop without the GIL, so that the host's
                // other threads run meanwhile.
                let _ = py.detach(|| worker.join());
                return Err(interrupt);
            }
        }
        match py.detach(|| worker.join()) {
            Ok(result) => Ok(result),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// The similar pairs among `texts` as `simfind scan --input jsonl` finds them
/// among records of one text field with the same options: three lists,
/// `(left, right, similarity)`, `left < right` being positions in `texts`,
/// sorted by `(left, right)`. The public `simfind.dedupe` wraps them.
#[pyfunction]
#[pyo3(signature = (
    texts, *, shingle = "char", k = None, threshold = None, bands = None, rows = None,
    method = "auto", seed = None, verify = "exact", cluster = "center", keep = "first",
    threads = None, max_length = None
))]
#[allow(clippy::too_many_arguments)]
fn _pairs<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    shingle: &str,
    k: Option<&Bound<'py, PyAny>>,
    threshold: Option<f64>,
    bands: Option<&Bound<'py, PyAny>>,
    rows: Option<&Bound<'py, PyAny>>,
    method: &str,
    seed: Option<&Bound<'py, PyAny>>,
    verify: &str,
    cluster: &str,
    keep: &str,
    threads: Option<&Bound<'py, PyAny>>,
    max_length: Option<&Bound<'py, PyAny>>,
) -> PyResult<Found<'py>> {
    let k: Option<usize> = count_arg("k", k)?;
    let bands: Option<usize> = count_arg("bands", bands)?;
    let rows: Option<usize> = count_arg("rows", rows)?;
    let seed: Option<u64> = count_arg("seed", seed)?;
    let threads: Option<usize> = count_arg("threads", threads)?;
    let max_length: Option<usize> = count_arg("max_length", max_length)?;
    let cluster = match cluster {
        "center" => ClusterMethod::Center,
        "connected" => ClusterMethod::Connected,
        _ => {
            return Err(PyValueError::new_err(format!(
                "cluster must be one of center, connected, got {cluster:?}"
            )));
        }
    };
    let keep = match keep {
        "first" => KeepPolicy::First,
        "largest" => KeepPolicy::Largest,
        "smallest" => KeepPolicy::Smallest,
        _ => {
            return Err(PyValueError::new_err(format!(
                "keep must be one of first, largest, smallest, got {keep:?}"
            )));
        }
    };
    let kind: ShingleKind = shingle.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "shingle must be one of {}, got {shingle:?}",
            ShingleKind::ALL.map(ShingleKind::name).join(", ")
        ))
    })?;
    let method = match method {
        "auto" => Method::Auto,
        "exact" => Method::Exact,
        "lsh" => Method::Lsh,
        _ => {
            return Err(PyValueError::new_err(format!(
                "method must be one of auto, exact, lsh, got {method:?}"
            )));
        }
    };
    let verification = match verify {
        "exact" => Verification::Exact,
        "signature" => Verification::Signature,
        _ => {
            return Err(PyValueError::new_err(format!(
                "verify must be one of exact, signature, got {verify:?}"
            )));
        }
    };
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1, got 0"));
    }
    let spec = SpecBuilder::new()
        .shingle_kind(Some(kind))
        .k(k)
        .threshold(threshold)
        .bands(bands)
        .rows(rows)
        .seed(seed)
        .method(method)
        .verification(verification)
        .build()
        .map_err(spec_error)?;
    let items = items_of(py, texts)?;
    let texts = texts_of(py, &items, max_length)?;
    let config = ScanConfig::from_spec(
        &spec,
        Vec::new(),
        Default::default(),
        Default::default(),
        simfind::pipeline::DEFAULT_VERIFY_MEMORY,
    );
    // Its own pool: the host's threads (and any global pool another
    // extension set up) are left alone.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let params = ClusterParams {
        threshold: config.threshold,
        method: cluster,
        keep,
    };
    let cancel = Cancel::default();
    let (pairs, groups, kept) = run_interruptibly(py, &cancel, || {
        pool.install(|| {
            let outcome = scan_texts(&texts, &config, &cancel).outcome;
            found(&outcome, &params)
        })
    })?;
    let bytes = |values: &[u8]| PyBytes::new(py, values);
    Ok((
        (bytes(&pairs.0), bytes(&pairs.1), bytes(&pairs.2)),
        (bytes(&groups.0), bytes(&groups.1)),
        bytes(&kept),
    ))
}

/// What `_pairs` hands back, as the buffers of Arrow arrays (native byte
/// order, validity and booleans one bit each, least significant first), so
/// that `simfind.dedupe` builds its pyarrow arrays without a Python object
/// per value: the pairs' `left` and `right` (`u32`) and `similarity`
/// (`f64`); per text, its group (`u32`) with its validity (a text in no
/// group is null); per text, whether it is kept (a bitmap).
type Found<'py> = (
    (
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    ),
    (Bound<'py, PyBytes>, Bound<'py, PyBytes>),
    Bound<'py, PyBytes>,
);

/// [`Found`]'s buffers, made without the GIL.
type Buffers = ((Vec<u8>, Vec<u8>, Vec<u8>), (Vec<u8>, Vec<u8>), Vec<u8>);

/// The pairs of `outcome` and its groups as the command's `--format
/// clusters` makes them (the library's clustering and keep policy).
fn found(outcome: &simfind::pipeline::ScanOutcome, params: &ClusterParams) -> Buffers {
    use std::os::unix::ffi::OsStrExt;
    let count = outcome.pairs.len() as usize;
    let mut pairs = (
        Vec::with_capacity(count * 4),
        Vec::with_capacity(count * 4),
        Vec::with_capacity(count * 8),
    );
    for pair in outcome.pairs.iter() {
        pairs.0.extend_from_slice(&pair.a.to_ne_bytes());
        pairs.1.extend_from_slice(&pair.b.to_ne_bytes());
        pairs.2.extend_from_slice(&pair.similarity.to_ne_bytes());
    }
    let facts: Vec<FileFacts<'_>> = outcome
        .documents
        .iter()
        .map(|d| FileFacts {
            path: d.path.as_os_str().as_bytes(),
            size: d.size,
            modified: d.modified,
            reference: false,
        })
        .collect();
    let clustering = cluster_contents(&facts, &outcome.pairs, params);
    let texts = facts.len();
    let mut groups = vec![0u32; texts];
    let mut grouped = vec![0u8; texts.div_ceil(8)];
    let mut kept = vec![0xffu8; texts.div_ceil(8)];
    for (g, members) in clustering.groups().enumerate() {
        for m in members {
            let i = m.doc as usize;
            groups[i] = g as u32;
            grouped[i / 8] |= 1 << (i % 8);
            if !m.kept {
                kept[i / 8] &= !(1 << (i % 8));
            }
        }
    }
    let groups = groups.iter().flat_map(|g| g.to_ne_bytes()).collect();
    (pairs, (groups, grouped), kept)
}

/// The recipe a `Signatures` carries, so that two are compared only when
/// signed alike: `(shingle, k, seed, sketch, bands, rows)`.
type RecipeTuple = (&'static str, usize, u64, &'static str, usize, usize);

/// The MinHash signatures of `texts` as `simfind sign --input jsonl` computes
/// them for records of one text field with the same options (bands × rows
/// values each, through the library's `AnyFamily`): the rows one after the
/// other as little-endian `u32` bytes (numpy reads them without a copy),
/// per text whether it has no shingle (its row is zeros, never compared),
/// and the recipe. The public `simfind.minhash` wraps them.
#[pyfunction]
#[pyo3(signature = (
    texts, *, shingle = "char", k = None, threshold = None, bands = None, rows = None,
    seed = None, sketch = None, threads = None, max_length = None
))]
#[allow(clippy::too_many_arguments)]
fn _minhash<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    shingle: &str,
    k: Option<&Bound<'py, PyAny>>,
    threshold: Option<f64>,
    bands: Option<&Bound<'py, PyAny>>,
    rows: Option<&Bound<'py, PyAny>>,
    seed: Option<&Bound<'py, PyAny>>,
    sketch: Option<&str>,
    threads: Option<&Bound<'py, PyAny>>,
    max_length: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyBytes>, Vec<bool>, RecipeTuple)> {
    let kind: ShingleKind = shingle.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "shingle must be one of {}, got {shingle:?}",
            ShingleKind::ALL.map(ShingleKind::name).join(", ")
        ))
    })?;
    let sketch = sketch.map(sketch_kind).transpose()?;
    let threads: Option<usize> = count_arg("threads", threads)?;
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1, got 0"));
    }
    let spec = SpecBuilder::new()
        .shingle_kind(Some(kind))
        .k(count_arg("k", k)?)
        .threshold(threshold)
        .bands(count_arg("bands", bands)?)
        .rows(count_arg("rows", rows)?)
        .seed(count_arg("seed", seed)?)
        .sketch(sketch)
        .build()
        .map_err(spec_error)?;
    let recipe = spec.recipe();
    let items = items_of(py, texts)?;
    let texts = texts_of(py, &items, count_arg("max_length", max_length)?)?;
    let family = AnyFamily::from(recipe.sketcher());
    let n = family.signature_len();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let cancel = Cancel::default();
    let (matrix, empty) = run_interruptibly(py, &cancel, || {
        use rayon::prelude::*;
        let mut matrix = vec![0u32; texts.len() * n];
        let mut empty = vec![false; texts.len()];
        pool.install(|| {
            matrix
                .par_chunks_mut(n.max(1))
                .zip(empty.par_iter_mut())
                .zip(texts.par_iter())
                .for_each(|((row, empty), text)| {
                    if cancel.cancelled() {
                        return;
                    }
                    let set = recipe.set_of(text.as_bytes());
                    *empty = set.is_empty();
                    if !set.is_empty() {
                        family.sign_into(Features::Set(&set), row);
                    }
                });
        });
        (matrix, empty)
    })?;
    let bytes: Vec<u8> = matrix.iter().flat_map(|v| v.to_le_bytes()).collect();
    let recipe = (
        recipe.shingler.kind().name(),
        recipe.shingler.k(),
        recipe.seed,
        recipe.sketch.name(),
        recipe.banding.bands,
        recipe.banding.rows,
    );
    Ok((PyBytes::new(py, &bytes), empty, recipe))
}

/// `sketch` as Python gave it: a MinHash kind's name.
fn sketch_kind(sketch: &str) -> PyResult<SketchKind> {
    sketch.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "sketch must be one of classic, oph, block, got {sketch:?}"
        ))
    })
}

/// The library's estimate of the similarity of two signatures of the same
/// `sketch` kind and `seed` (the fraction of positions that agree; for
/// "block", a/(a+d) over the positions not empty in both).
#[pyfunction]
fn _estimate(a: Vec<u32>, b: Vec<u32>, sketch: &str, seed: u64) -> PyResult<f64> {
    if a.len() != b.len() || a.is_empty() {
        return Err(PyValueError::new_err(format!(
            "signatures of different lengths ({} and {}) cannot be compared",
            a.len(),
            b.len()
        )));
    }
    let family = AnyFamily::from(AnySketcher::new(sketch_kind(sketch)?, a.len(), seed));
    Ok(family.estimate(&a, &b))
}

#[pymodule]
fn _simfind(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<_Index>()?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_function(wrap_pyfunction!(shingles, module)?)?;
    module.add_function(wrap_pyfunction!(jaccard, module)?)?;
    module.add_function(wrap_pyfunction!(_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(_minhash, module)?)?;
    module.add_function(wrap_pyfunction!(_estimate, module)?)?;
    module.add_function(wrap_pyfunction!(datasketch::_ds_sign, module)?)?;
    Ok(())
}
