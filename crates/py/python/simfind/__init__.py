"""simfind: find near-duplicate documents (shingling, MinHash, LSH, exact verification).

The Python face of the library behind the `simfind` command: the same shingles and
measures, so a value computed here is the one the command reports for the same texts
and options. The code is native (``simfind._simfind``); this package is its public name.
"""

from ._simfind import __version__, _pairs, jaccard, shingles

__all__ = ["__version__", "dedupe", "jaccard", "shingles"]


def _texts_of(texts, column):
    """The items of `texts` as something the native half iterates: pyarrow
    arrays and table columns become Python lists (their scalars are not str),
    anything else is iterated as given (lists, iterators, pandas Series)."""
    if column is not None:
        names = getattr(texts, "column_names", None)
        if names is None:
            raise TypeError("column is given, so texts must be a pyarrow Table")
        if column not in names:
            raise KeyError(f"column {column!r} is not in the table (it has {', '.join(names)})")
        texts = texts.column(column)
    elif hasattr(texts, "column_names"):
        raise TypeError("texts is a table: name its text column with column=")
    if type(texts).__module__.startswith("pyarrow") and hasattr(texts, "to_pylist"):
        return texts.to_pylist()
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a collection of texts, not a single str or bytes")
    return texts


def dedupe(
    texts,
    *,
    column=None,
    shingle="char",
    k=None,
    threshold=None,
    bands=None,
    rows=None,
    method="auto",
    seed=None,
    verify="exact",
    threads=None,
):
    """The similar pairs among `texts`, as `simfind scan --input jsonl` finds them
    among records with one text field and the same options.

    `texts`: a list or iterator of str/bytes, a pandas Series, a pyarrow Array or
    ChunkedArray, or a pyarrow Table with `column=` naming the text column.
    Options (keyword-only) are the command's: `shingle` ("char", "word", "stopword",
    "important") and `k`; `threshold`; `bands` and `rows` (tuned from the threshold
    when unset); `method` ("auto", "exact", "lsh"); `seed`; `verify` ("exact" or
    "signature"); `threads` (the size of the call's own thread pool; all cores when
    None). Rules the options break raise ValueError naming the argument; an item
    that is not str or bytes raises TypeError naming its position.

    Returns a pyarrow Table with columns `left`, `right` (positions in `texts`,
    left < right) and `similarity`, sorted by (left, right). `.to_pandas()`
    converts it.
    """
    import pyarrow as pa

    left, right, similarity = _pairs(
        _texts_of(texts, column),
        shingle=shingle,
        k=k,
        threshold=threshold,
        bands=bands,
        rows=rows,
        method=method,
        seed=seed,
        verify=verify,
        threads=threads,
    )
    return pa.table(
        {
            "left": pa.array(left, pa.uint32()),
            "right": pa.array(right, pa.uint32()),
            "similarity": pa.array(similarity, pa.float64()),
        }
    )
