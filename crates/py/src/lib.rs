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
//! a signal handler, reads a file or touches process-wide state.

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyString};
use simfind::recipe::{MAX_K, shingle_set};
use simfind::similarity::measures;
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

/// A document's bytes: a `str` as its UTF-8, `bytes` as they are (invalid
/// UTF-8 is then replaced while normalising, as for a file). Borrowed where
/// Python allows it, so a large text is not copied before shingling.
fn text_of<'a>(arg: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(bytes) = arg.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(bytes.as_bytes()));
    }
    if let Ok(text) = arg.cast::<PyString>() {
        return Ok(match text.to_cow()? {
            Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
            Cow::Owned(text) => Cow::Owned(text.into_bytes()),
        });
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be str or bytes, not {}",
        arg.get_type().name()?
    )))
}

/// The shingle set of `text` (str or bytes) as `simfind scan` and `simfind
/// compare` build it: normalised (lowercased, whitespace runs collapsed),
/// shingled, each shingle hashed to 64 bits; sorted, without duplicates.
/// `shingle` is "char", "word", "stopword" or "important"; `k` defaults to
/// the kind's (5 characters, 3 words, 1 important word). A text shorter than
/// one shingle has the empty set.
#[pyfunction]
#[pyo3(signature = (text, *, shingle = "char", k = None))]
fn shingles(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    shingle: &str,
    k: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let shingling = Shingling::new(shingle, k)?;
    let text = text_of(text, "text")?;
    Ok(py.detach(|| shingling.set_of(&text)))
}

/// The exact Jaccard similarity |A ∩ B| / |A ∪ B| of the shingle sets of
/// texts `a` and `b` (str or bytes), built as `shingles` builds them: the
/// `jaccard` that `simfind compare` prints for two files with the same
/// contents and options. None when both texts are shorter than one shingle
/// (the similarity of two empty sets is undefined).
#[pyfunction]
#[pyo3(signature = (a, b, *, shingle = "char", k = None))]
fn jaccard(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    shingle: &str,
    k: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<f64>> {
    let shingling = Shingling::new(shingle, k)?;
    let (a, b) = (text_of(a, "a")?, text_of(b, "b")?);
    Ok(py.detach(|| measures::jaccard(&shingling.set_of(&a), &shingling.set_of(&b))))
}

#[pymodule]
fn _simfind(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_function(wrap_pyfunction!(shingles, module)?)?;
    module.add_function(wrap_pyfunction!(jaccard, module)?)?;
    Ok(())
}
