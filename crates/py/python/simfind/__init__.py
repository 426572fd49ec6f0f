"""simfind: find near-duplicate documents (shingling, MinHash, LSH, exact verification).

The Python face of the library behind the `simfind` command: the same shingles and
measures, so a value computed here is the one the command reports for the same texts
and options. The code is native (``simfind._simfind``); this package is its public name.
"""

from typing import NamedTuple, Optional

from ._simfind import _Index, __version__, _estimate, _minhash, _pairs, jaccard, shingles

__all__ = [
    "Decision",
    "Duplicates",
    "Index",
    "Signatures",
    "Sketch",
    "__version__",
    "dedupe",
    "jaccard",
    "minhash",
    "shingles",
]


class Duplicates:
    """What `dedupe` found, as pyarrow objects (`.to_pandas()` converts each).

    `pairs`: a Table of `left`, `right` (positions in the input, left < right) and
    `similarity`, sorted by (left, right).
    `groups`: a uint32 Array aligned with the input, each text's group id (null for
    a text in no group), the groups the command's `--format clusters` makes.
    `keep`: a boolean Array aligned with the input: False for the texts the keep
    policy removes (every group keeps one), True for the rest.
    """

    __slots__ = ("pairs", "groups", "keep")

    def __init__(self, pairs, groups, keep):
        self.pairs = pairs
        self.groups = groups
        self.keep = keep

    def __repr__(self):
        removed = len(self.keep) - self.keep.true_count if len(self.keep) else 0
        return (
            f"Duplicates({self.pairs.num_rows} pairs, {len(self.keep)} texts, "
            f"{removed} removable)"
        )


def _is_arrow(obj):
    return type(obj).__module__.startswith("pyarrow")


def _paths_of(texts, column):
    """`texts` as a list of file paths when it names files: a path object (or a
    list of them), or, with `column=`, a str (or a list of str). None when
    `texts` holds texts."""
    import os

    if isinstance(texts, os.PathLike) or (isinstance(texts, str) and column is not None):
        return [texts]
    if isinstance(texts, (list, tuple)) and texts:
        if all(isinstance(t, os.PathLike) for t in texts):
            return list(texts)
        if column is not None and all(isinstance(t, (str, os.PathLike)) for t in texts):
            return list(texts)
    return None


def _file_texts(paths, column):
    """The `column` values of the Parquet and JSON Lines files `paths`, in order,
    read lazily: Parquet one row group at a time, the column alone (through
    pyarrow, which the package's results need anyway); JSON Lines a line at a
    time. A file of another suffix is a ValueError; a missing column or field,
    a KeyError naming the file (and line)."""
    import json
    import os

    for path in paths:
        name = os.fspath(path)
        lower = name.lower()
        if lower.endswith((".parquet", ".parq", ".pq")):
            import pyarrow.parquet as pq

            with pq.ParquetFile(name) as parquet:
                names = parquet.schema_arrow.names
                if column not in names:
                    raise KeyError(
                        f"column {column!r} is not in {name} (it has {', '.join(names)})"
                    )
                for group in range(parquet.num_row_groups):
                    table = parquet.read_row_group(group, columns=[column])
                    yield from _texts_of(table, column)
        elif lower.endswith((".jsonl", ".ndjson", ".json")):
            with open(name, encoding="utf-8") as lines:
                for number, line in enumerate(lines, 1):
                    if not line.strip():
                        continue
                    record = json.loads(line)
                    if not isinstance(record, dict) or column not in record:
                        raise KeyError(f"{name}:{number}: the record has no field {column!r}")
                    yield record[column]
        else:
            raise ValueError(
                f"{name}: not a Parquet (.parquet) or JSON Lines (.jsonl, .ndjson) file"
            )


def _texts_of(texts, column):
    """The items of `texts` as something the native half iterates: the texts of
    files, a table's column picked by `column`, pyarrow arrays as Python lists
    (their scalars are not str), anything else as given (lists, iterators,
    pandas Series)."""
    paths = _paths_of(texts, column)
    if paths is not None:
        if column is None:
            raise TypeError("texts names files: name their text column with column=")
        return _file_texts(paths, column)
    if column is not None:
        if type(texts).__module__.startswith("datasets"):  # a Hugging Face Dataset
            names = list(texts.column_names)
            if column not in names:
                raise KeyError(
                    f"column {column!r} is not in the dataset (it has {', '.join(names)})"
                )
            return texts[column]
        if hasattr(texts, "column_names"):  # a pyarrow Table or RecordBatch
            names = list(texts.column_names)
        elif hasattr(texts, "columns") and hasattr(texts, "iloc"):  # a pandas DataFrame
            names = list(texts.columns)
        else:
            raise TypeError(
                "column is given, so texts must be a table (pyarrow Table or RecordBatch, "
                f"pandas DataFrame), not {type(texts).__name__}"
            )
        if column not in names:
            raise KeyError(
                f"column {column!r} is not in the table (it has {', '.join(map(str, names))})"
            )
        texts = texts.column(column) if hasattr(texts, "column_names") else texts[column]
    elif hasattr(texts, "column_names") or (hasattr(texts, "columns") and hasattr(texts, "iloc")):
        raise TypeError("texts is a table: name its text column with column=")
    if _is_arrow(texts) and hasattr(texts, "to_pylist"):
        import pyarrow as pa

        kind = texts.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if not (
            pa.types.is_string(kind)
            or pa.types.is_large_string(kind)
            or pa.types.is_binary(kind)
            or pa.types.is_large_binary(kind)
            or getattr(pa.types, "is_string_view", lambda _: False)(kind)
            or getattr(pa.types, "is_binary_view", lambda _: False)(kind)
        ):
            what = f"column {column!r}" if column is not None else "texts"
            raise TypeError(f"{what} must hold strings or binary, not {texts.type}")
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
    cluster="center",
    keep="first",
    threads=None,
    max_length=None,
):
    """The similar pairs among `texts`, as `simfind scan --input jsonl` finds them
    among records with one text field and the same options.

    `texts`: a list or iterator of str/bytes, a pandas Series, a pyarrow Array or
    ChunkedArray, or a pyarrow Table with `column=` naming the text column.
    Options (keyword-only) are the command's: `shingle` ("char", "word", "stopword",
    "important") and `k`; `threshold`; `bands` and `rows` (tuned from the threshold
    when unset); `method` ("auto", "exact", "lsh"); `seed`; `verify` ("exact" or
    "signature"); `cluster` ("center" or "connected") and `keep` ("first",
    "largest", "smallest"), how groups are made and which text of each is kept;
    `threads` (the size of the call's own thread pool; all cores when
    None); `max_length`, the longest text taken in UTF-8 bytes (None: 16 MiB,
    the command's cap on a record). Rules the options break raise ValueError
    naming the argument; an item that is not str or bytes raises TypeError
    naming its position, a text over `max_length` ValueError.

    Returns `Duplicates`: `.pairs` (a pyarrow Table of `left`, `right`,
    `similarity`), `.groups` and `.keep` (pyarrow Arrays aligned with `texts`).
    """
    import pyarrow as pa

    (left, right, similarity), (groups, grouped), kept = _pairs(
        _texts_of(texts, column),
        shingle=shingle,
        k=k,
        threshold=threshold,
        bands=bands,
        rows=rows,
        method=method,
        seed=seed,
        verify=verify,
        cluster=cluster,
        keep=keep,
        threads=threads,
        max_length=max_length,
    )
    # Arrays made from the native buffers, not from Python lists: no object
    # per value, and no pandas import (pyarrow's first `pa.array` of a list
    # imports pandas when it is installed: 0.4 s).
    n = len(left) // 4
    texts_count = len(groups) // 4

    def array(kind, length, data, validity=None):
        buffers = [None if validity is None else pa.py_buffer(validity), pa.py_buffer(data)]
        return pa.Array.from_buffers(kind, length, buffers)

    pairs = pa.table(
        {
            "left": array(pa.uint32(), n, left),
            "right": array(pa.uint32(), n, right),
            "similarity": array(pa.float64(), n, similarity),
        }
    )
    return Duplicates(
        pairs,
        array(pa.uint32(), texts_count, groups, grouped),
        array(pa.bool_(), texts_count, kept),
    )


class Sketch:
    """One text's MinHash signature: `values` (a 1-D numpy uint32 array, None for
    a text with no shingle) and the `recipe` it was signed with (a dict of
    `shingle`, `k`, `seed`, `sketch`, `bands`, `rows`). Picklable.
    """

    __slots__ = ("values", "recipe")

    def __init__(self, values, recipe):
        self.values = values
        self.recipe = dict(recipe)

    def __getstate__(self):
        return (self.values, self.recipe)

    def __setstate__(self, state):
        self.values, self.recipe = state

    def __eq__(self, other):
        if not isinstance(other, Sketch):
            return NotImplemented
        if self.recipe != other.recipe or (self.values is None) != (other.values is None):
            return False
        return self.values is None or bool((self.values == other.values).all())

    def __repr__(self):
        if self.values is None:
            return f"Sketch(empty, {self.recipe['sketch']})"
        return f"Sketch({len(self.values)} values, {self.recipe['sketch']}, seed {self.recipe['seed']})"

    def jaccard(self, other):
        """The estimate of the Jaccard similarity of the two texts' shingle sets
        from their signatures, the library's (`--verify signature`'s); None when
        either text has no shingle. ValueError for sketches of different
        recipes (their values are not comparable)."""
        if self.recipe != other.recipe:
            raise ValueError(
                f"sketches of different recipes cannot be compared: {self.recipe} and {other.recipe}"
            )
        if self.values is None or other.values is None:
            return None
        return _estimate(
            self.values.tolist(), other.values.tolist(), self.recipe["sketch"], self.recipe["seed"]
        )


class Signatures:
    """The MinHash signatures of a collection of texts (what `minhash` returns).

    `values`: a 2-D numpy uint32 array, one row of `bands * rows` values per text,
    in input order (zeros for a text with no shingle). `empty`: a numpy bool array,
    True for the texts with no shingle. `recipe`: how they were signed (a dict of
    `shingle`, `k`, `seed`, `sketch`, `bands`, `rows`). `len()` is the number of
    texts; `signatures[i]` is text i's `Sketch`. Picklable.
    """

    __slots__ = ("values", "empty", "recipe")

    def __init__(self, values, empty, recipe):
        self.values = values
        self.empty = empty
        self.recipe = dict(recipe)

    def __getstate__(self):
        return (self.values, self.empty, self.recipe)

    def __setstate__(self, state):
        self.values, self.empty, self.recipe = state

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        return Sketch(None if self.empty[i] else self.values[i], self.recipe)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self):
        r = self.recipe
        return (
            f"Signatures({len(self)} texts x {r['bands'] * r['rows']} values, "
            f"{r['sketch']}, seed {r['seed']})"
        )


def minhash(
    texts,
    *,
    column=None,
    shingle="char",
    k=None,
    threshold=None,
    bands=None,
    rows=None,
    seed=None,
    sketch=None,
    threads=None,
    max_length=None,
):
    """The MinHash signatures of `texts`, the values `simfind sign --input jsonl`
    writes for records with one text field and the same options.

    `texts` and `column` as for `dedupe`. Each signature has `bands * rows`
    values: give both, or a `threshold` they are tuned for (as `dedupe` does);
    `seed` and `sketch` ("classic", "oph", "block"; the command's default when
    None) choose the hash functions; `threads` and `max_length` as for `dedupe`.
    Two signatures are comparable only with the same recipe. Returns `Signatures`.
    """
    import numpy as np

    data, empty, recipe = _minhash(
        _texts_of(texts, column),
        shingle=shingle,
        k=k,
        threshold=threshold,
        bands=bands,
        rows=rows,
        seed=seed,
        sketch=sketch,
        threads=threads,
        max_length=max_length,
    )
    names = ("shingle", "k", "seed", "sketch", "bands", "rows")
    recipe = dict(zip(names, recipe))
    values = np.frombuffer(data, dtype="<u4").reshape(len(empty), recipe["bands"] * recipe["rows"])
    return Signatures(values, np.array(empty, dtype=bool), recipe)


class Decision(NamedTuple):
    """What `Index.add_if_new` did with a text.

    `new`: True when nothing indexed was similar and the text was added under `id`;
    False when it was not added, `nearest` then being the id (or, for a document
    `simfind index` added, the path) of the most similar indexed document and
    `similarity` their exact Jaccard similarity.
    """

    new: bool
    id: str
    nearest: Optional[str]
    similarity: Optional[float]


class Index:
    """A persistent index of texts for ingestion pipelines: the SQLite index the
    `simfind` command uses (`simfind query --db PATH` reads what this writes, and
    this reads what `simfind index` wrote).

    ``Index(path, shingle=..., k=..., threshold=..., bands=..., rows=..., seed=...,
    sketch=..., wait=30.0)`` opens the index at `path`, creating it with these
    options (the command's defaults for the rest; bands and rows tuned to
    `threshold` when not given) if there is none. An existing index keeps its
    recipe: an option given must equal its stored value (ValueError otherwise).
    `threshold` is also the default of `query` and `add_if_new` (else the S-curve
    threshold of the index's bands and rows). `wait` is how long a write waits for
    another process's lock before TimeoutError.

    Use it as a context manager, or call `close()`.
    """

    def __init__(
        self,
        path,
        *,
        shingle=None,
        k=None,
        threshold=None,
        bands=None,
        rows=None,
        seed=None,
        sketch=None,
        wait=30.0,
    ):
        import os

        if isinstance(wait, bool) or not isinstance(wait, (int, float)):
            raise TypeError(f"wait must be a number of seconds, not {type(wait).__name__}")
        self._index = _Index(
            os.fspath(path),
            shingle=shingle,
            k=k,
            threshold=threshold,
            bands=bands,
            rows=rows,
            seed=seed,
            sketch=sketch,
            wait=float(wait),
        )
        self._path = os.fspath(path)
        self._threshold = threshold

    def __len__(self):
        return self._index.__len__()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"simfind.Index({self._path!r})"

    @property
    def recipe(self):
        """The recipe the index signs with: a dict of shingle, k, bands, rows, seed, sketch."""
        names = ("shingle", "k", "bands", "rows", "seed", "sketch")
        return dict(zip(names, self._index.recipe()))

    def close(self):
        """Closes the index; later calls raise ValueError. Idempotent."""
        self._index.close()

    def insert(self, texts, ids=None):
        """Stores `texts` (an iterable of str/bytes) under `ids` (str, one per text;
        default: the hex of each text's 128-bit content hash, which concurrent
        writers cannot give to two different texts), in one transaction: all of
        them or, on an error, none. A text under an id already indexed replaces it.
        Returns the ids."""
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a collection of str or bytes, not a single text")
        texts = list(texts)
        if ids is not None:
            ids = [_id_of(i, "ids") for i in ids]
        return self._index.insert(texts, ids)

    def query(self, text, threshold=None, top=None, exact=False):
        """The indexed documents similar to `text`: a list of ``(id, similarity)``
        pairs with similarity ≥ `threshold`, most similar first (ties by id), the
        similarity exact (Jaccard of the shingle sets). Candidates are the documents
        sharing an LSH bucket with it, as `simfind query` finds them; `exact=True`
        verifies every document whose size can reach the threshold (none missed).
        `top=N` keeps the N most similar: every stored signature is compared with the
        text's and documents are verified exactly in order of the estimate until the
        rest are ruled out at the N-th similarity (one more similar than the N-th is
        missed with probability at most 0.001); with `exact=True`, the true N most
        similar."""
        if threshold is None:
            threshold = self._threshold
        return self._index.query(text, threshold, top, exact)

    def add_if_new(self, text, id=None, threshold=None, exact=False, *, ids=None):
        """Adds `text` under `id` (default: its content hash, as `insert`) unless an indexed
        document is similar to it at `threshold`: rensa's inline deduplication. The
        lookup and the insert happen under the index's write lock, so two processes
        adding near-duplicates of each other never both add theirs; a text added is
        committed before this returns. Returns a `Decision`.

        Given a collection of texts instead of one (and their `ids`, or none),
        decides each in order, all in one transaction under one lock: a text is
        compared with what was indexed before the call and with the texts of the
        batch added before it. Returns a list of `Decision`s, one per text. A
        text that cannot be added (binary) raises and nothing of the batch is
        added."""
        if threshold is None:
            threshold = self._threshold
        if isinstance(text, (str, bytes)):
            if ids is not None:
                raise TypeError("ids= goes with a collection of texts; for one text, give id=")
            if id is not None:
                id = _id_of(id, "id")
            return Decision(*self._index.add_if_new(text, id, threshold, exact))
        if id is not None:
            if ids is not None:
                raise TypeError("give the ids of a batch once, as ids=")
            ids = id
        if isinstance(ids, (str, bytes)):
            raise TypeError("ids must be a collection of str, one per text, not a single id")
        texts = list(text)
        if ids is not None:
            ids = [_id_of(i, "ids") for i in ids]
        decided = self._index.add_if_new_batch(texts, ids, threshold, exact)
        return [Decision(*d) for d in decided]

    def remove(self, ids):
        """Removes the documents of `ids` (an id, or a collection of them) in one
        transaction. An id the index does not hold is a KeyError, and then
        nothing is removed."""
        if isinstance(ids, str):
            ids = [ids]
        ids = [_id_of(i, "ids") for i in ids]
        self._index.remove(ids)


def _id_of(value, name):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be str, not {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} must not be empty")
    return value
