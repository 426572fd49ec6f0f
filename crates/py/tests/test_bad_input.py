"""Bad input to `dedupe`: an exception naming the argument or the position,
never a crash of the interpreter; or a documented answer."""

import math
import re

import pyarrow as pa
import pytest

import simfind


def raises(error, message, call):
    with pytest.raises(error, match=re.escape(message)):
        call()


@pytest.mark.parametrize(
    "texts, message",
    [
        (["a text", None], "texts[1] is a missing value (None)"),
        (["a text", math.nan], "texts[1] is a missing value (nan)"),
        (pa.array(["a text", None, "more"]), "texts[1] is a missing value (None)"),
        (pa.chunked_array([["a"], ["b", None]]), "texts[2] is a missing value (None)"),
    ],
    ids=["none", "nan", "arrow-null", "chunked-null"],
)
def test_a_missing_value_is_named_by_position(texts, message):
    raises(ValueError, message, lambda: simfind.dedupe(texts))


def test_missing_values_in_pandas_columns():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"body": ["a text", None, "more"]})
    raises(ValueError, "texts[1] is a missing value", lambda: simfind.dedupe(frame, column="body"))
    series = pd.Series(["a text", "more", None], dtype="string")
    raises(ValueError, "texts[2] is a missing value", lambda: simfind.dedupe(series))
    # As the message says: dropped, the rest is deduplicated.
    assert len(simfind.dedupe(frame["body"].dropna()).keep) == 2


@pytest.mark.parametrize(
    "texts, message",
    [
        (["a text", 3], "texts[1] must be str or bytes, not int"),
        (["a text", ["a", "list"]], "texts[1] must be str or bytes, not list"),
        ("a text", "texts must be a collection of texts, not a single str or bytes"),
        (b"a text", "texts must be a collection of texts, not a single str or bytes"),
        (pa.array([1, 2]), "texts must hold strings or binary, not int64"),
        (3, "'int' object is not iterable"),
    ],
    ids=["int", "list", "str", "bytes", "arrow-int", "not-iterable"],
)
def test_an_item_that_is_not_text_is_a_type_error(texts, message):
    raises(TypeError, message, lambda: simfind.dedupe(texts))


def test_tables_need_their_text_column():
    table = pa.table({"body": ["a"], "n": [1]})
    raises(KeyError, "column 'text' is not in the table (it has body, n)",
           lambda: simfind.dedupe(table, column="text"))
    raises(TypeError, "texts is a table: name its text column with column=",
           lambda: simfind.dedupe(table))
    raises(TypeError, "column 'n' must hold strings or binary, not int64",
           lambda: simfind.dedupe(table, column="n"))
    raises(TypeError, "column is given, so texts must be a table",
           lambda: simfind.dedupe(iter(["a"]), column="text"))


def test_invalid_utf8_bytes_are_replaced_as_for_a_file():
    # Both texts decode to the same replaced text: one pair, not an error.
    bad = b"\xff\xfe the same text here"
    assert simfind.dedupe([bad, bad]).pairs.num_rows == 1
    assert simfind.dedupe([bad, "\ufffd\ufffd the same text here"]).pairs.num_rows == 1


def test_a_generator_is_read_once_and_its_errors_are_its_own():
    assert simfind.dedupe(t for t in ["one text", "one text"]).pairs.num_rows == 1

    def failing():
        yield "one text"
        raise RuntimeError("the source broke")

    raises(RuntimeError, "the source broke", lambda: simfind.dedupe(failing()))


def test_texts_shorter_than_a_shingle_are_never_paired():
    found = simfind.dedupe(["", "", "abc", "abc"])
    assert found.pairs.num_rows == 0
    assert found.keep.to_pylist() == [True] * 4


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"threshold": 1.5}, ValueError, "threshold must be in (0, 1], got 1.5"),
        ({"threshold": 0}, ValueError, "threshold must be in (0, 1], got 0"),
        ({"threshold": "high"}, TypeError, "threshold"),
        ({"k": 0}, ValueError, "k must be in 1..=256, got 0"),
        ({"k": -1}, ValueError, "k must be a non-negative int that fits in 64 bits, got -1"),
        ({"k": 2**70}, ValueError, "k must be a non-negative int"),
        ({"k": 2.0}, TypeError, "k must be an int, not float"),
        ({"k": True}, TypeError, "k must be an int, not bool"),
        ({"bands": -2}, ValueError, "bands must be a non-negative int"),
        ({"rows": "4"}, TypeError, "rows must be an int, not str"),
        ({"seed": -1}, ValueError, "seed must be a non-negative int"),
        ({"threads": 0}, ValueError, "threads must be at least 1, got 0"),
        ({"threads": -1}, ValueError, "threads must be a non-negative int"),
        ({"shingle": "line"}, ValueError, "shingle must be one of char, word"),
        ({"method": "fast"}, ValueError, "method must be one of auto, exact, lsh"),
        ({"verify": "maybe"}, ValueError, "verify must be one of exact, signature"),
        ({"cluster": "star"}, ValueError, "cluster must be one of center, connected"),
        ({"keep": "last"}, ValueError, "keep must be one of first, largest, smallest"),
    ],
)
def test_bad_options_name_the_argument(kwargs, error, message):
    raises(error, message, lambda: simfind.dedupe(["a text"], **kwargs))


def test_an_unknown_option_is_a_type_error():
    raises(TypeError, "unexpected keyword argument 'treshold'",
           lambda: simfind.dedupe(["a text"], treshold=0.5))


@pytest.mark.parametrize(
    "make, position",
    [
        (lambda pd, np: pd.Series(["a text", np.nan, "more"], dtype=object), 1),
        (lambda pd, np: pd.Series(["a text", "more", None], dtype="string[pyarrow]"), 2),
        (lambda pd, np: pd.Series(["a text", None], dtype="category"), 1),
        (lambda pd, np: pa.array(["a text", None], pa.large_string()), 1),
        (lambda pd, np: pa.array(["a text", "b", None]).dictionary_encode(), 2),
    ],
    ids=["pandas-object-nan", "pandas-arrow-string-na", "pandas-category", "arrow-large-string",
         "arrow-dictionary"],
)
def test_a_missing_value_in_any_column_kind_is_named_by_position(make, position):
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    texts = make(pd, np)
    raises(ValueError, f"texts[{position}] is a missing value", lambda: simfind.dedupe(texts))
    raises(ValueError, f"texts[{position}] is a missing value", lambda: simfind.minhash(texts))


def test_a_missing_value_in_a_parquet_dictionary_column(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "t.parquet"
    column = pa.array(["one text", None, "one text"]).dictionary_encode()
    pq.write_table(pa.table({"body": column}), path)
    assert pa.types.is_dictionary(pq.read_table(path).column("body").type)
    raises(ValueError, "texts[1] is a missing value", lambda: simfind.dedupe(path, column="body"))


def test_a_missing_column_of_a_dataframe_names_the_columns():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"body": ["a"], "n": [1]})
    raises(KeyError, "column 'text' is not in the table (it has body, n)",
           lambda: simfind.dedupe(frame, column="text"))


@pytest.mark.parametrize(
    "make",
    [
        lambda: [],
        lambda: iter([]),
        lambda: pa.array([], pa.string()),
        lambda: pa.chunked_array([], pa.large_string()),
        lambda: pa.table({"body": pa.array([], pa.string())}),
    ],
    ids=["list", "iterator", "arrow", "chunked", "table"],
)
def test_empty_collections_give_empty_results(make):
    column = "body" if isinstance(make(), pa.Table) else None
    found = simfind.dedupe(make(), column=column)
    assert found.pairs.num_rows == 0
    assert found.pairs.schema.types == [pa.uint32(), pa.uint32(), pa.float64()]
    assert len(found.keep) == 0 and len(found.groups) == 0
    signatures = simfind.minhash(make(), column=column, bands=4, rows=2)
    assert signatures.values.shape == (0, 8) and len(signatures.empty) == 0


def test_an_empty_parquet_file_gives_empty_results(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "empty.parquet"
    pq.write_table(pa.table({"body": pa.array([], pa.string())}), path)
    assert simfind.dedupe(path, column="body").pairs.num_rows == 0


def test_invalid_utf8_in_an_arrow_binary_column_is_replaced():
    column = pa.array([b"\xc3\x28 the same text here", b"\xc3\x28 the same text here"], pa.binary())
    assert simfind.dedupe(column).pairs.num_rows == 1
    assert simfind.jaccard(b"\xc3\x28 the same text", "\ufffd( the same text") == 1.0
