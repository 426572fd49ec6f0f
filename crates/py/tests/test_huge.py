"""A 1 GB single text: a clear Python exception naming it, before any work
(its shingle set would take about 8 GB while it is made), never a crash; a
text over the cap is taken when `max_length=` allows it; and the command
reads a 1 GB file (signed a chunk at a time) and skips a 1 GB JSON Lines
record as a bad row.

Marked `huge`: each test holds a 1 GB text (the command's tests write a
1 GB file). SIMFIND_SKIP_HUGE=1 skips them where memory or disk is short;
the engines step runs them (the CI machine has the memory).
"""

import os
import re

import pytest

import simfind

pytestmark = [
    pytest.mark.huge,
    pytest.mark.skipif(
        os.environ.get("SIMFIND_SKIP_HUGE") == "1", reason="SIMFIND_SKIP_HUGE=1: no 1 GB texts"
    ),
]

GB = 1 << 30
CAP = 16 << 20  # the default max_length: the command's cap on a record


@pytest.fixture(scope="module")
def huge_str():
    # An ASCII str: Python hands its UTF-8 over without a copy, so the
    # refusal costs no second gigabyte.
    return "abcdefghij" * (GB // 10)


def over_cap(name, length, unit, hint=True):
    if unit == "bytes":
        message = f"{name} is {length} bytes long (UTF-8), over the cap of {CAP} bytes a text"
    else:
        message = f"{name} is {length} characters long, over the cap of {CAP} bytes (UTF-8) a text"
    return re.escape(message + (": a larger max_length= takes it" if hint else ""))


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_a_1_gb_text_is_a_value_error_naming_it(huge_str, as_bytes):
    big = huge_str.encode() if as_bytes else huge_str
    length = len(big)
    assert length > GB - 10
    # A str is refused by its length in characters, before it is encoded.
    unit = "bytes" if as_bytes else "characters"
    with pytest.raises(ValueError, match=over_cap("texts[1]", length, unit)):
        simfind.dedupe(["a short text", big, "another"])
    with pytest.raises(ValueError, match=over_cap("texts[0]", length, unit)):
        simfind.minhash([big], bands=4, rows=2)
    with pytest.raises(ValueError, match=over_cap("a", length, unit)):
        simfind.jaccard(big, "a short text")
    with pytest.raises(ValueError, match=over_cap("text", length, unit)):
        simfind.shingles(big)
    # The rest of the collection was not consumed for nothing: the call
    # works again without it.
    assert simfind.dedupe(["a short text", "a short text"]).pairs.num_rows == 1


def test_a_1_gb_text_is_refused_by_the_index(tmp_path, huge_str):
    n = len(huge_str)
    with simfind.Index(tmp_path / "i.simfind", threshold=0.5) as index:
        with pytest.raises(ValueError, match=over_cap("texts[0]", n, "characters", hint=False)):
            index.insert([huge_str])
        with pytest.raises(ValueError, match=over_cap("text", n, "characters", hint=False)):
            index.add_if_new(huge_str)
        with pytest.raises(ValueError, match=over_cap("text", n, "characters", hint=False)):
            index.query(huge_str)
        assert len(index) == 0


def test_a_text_over_the_cap_is_taken_when_max_length_allows():
    # 17 MiB of few distinct shingles: over the default cap, cheap to sign.
    text = "the same words again " * ((CAP + (1 << 20)) // 21)
    assert len(text) > CAP
    with pytest.raises(ValueError, match=re.escape(f"over the cap of {CAP} bytes")):
        simfind.dedupe([text, text])
    found = simfind.dedupe([text, "another text", text], max_length=len(text))
    assert found.pairs.to_pylist() == [{"left": 0, "right": 2, "similarity": 1.0}]
    assert simfind.jaccard(text, text, max_length=len(text)) == 1.0
    assert len(simfind.minhash([text], max_length=len(text), bands=4, rows=2)) == 1
    # Fewer characters than the cap, more UTF-8 bytes: measured in bytes.
    wide = "é" * (CAP // 2 + 1)
    with pytest.raises(ValueError, match=over_cap("texts[0]", CAP + 2, "bytes")):
        simfind.dedupe([wide])
    with pytest.raises(ValueError, match="max_length must be a non-negative int"):
        simfind.dedupe([text], max_length=-1)


@pytest.fixture()
def gb_files():
    """Paths the test writes 1 GB into, removed after it (pytest keeps the
    temporary directories of its last runs: 2 GB each, otherwise)."""
    paths = []
    yield paths.append
    for path in paths:
        path.unlink(missing_ok=True)


def write_gb(path, head=b""):
    """`head`, then text up to 1 GB, written a block at a time."""
    block = b"lorem ipsum dolor sit amet " * (1 << 15)
    with open(path, "wb") as out:
        out.write(head)
        written = len(head)
        while written < GB:
            out.write(block)
            written += len(block)


def test_the_command_scans_a_1_gb_file_beside_small_ones(tmp_path, simfind_bin, gb_files):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    gb_files(corpus / "huge.txt")
    write_gb(corpus / "huge.txt")
    text = "The lighthouse keeper climbed the stairs at dusk and lit the lamp. " * 20
    (corpus / "a.txt").write_text(text)
    (corpus / "b.txt").write_text(text + "One more line.")
    # OPH signs a gigabyte in seconds; the path is the chunked one either way.
    out = simfind_bin("scan", corpus, "-q", "-t", "0.5", "--minhash", "oph").decode().splitlines()
    assert [row.split(",")[:2] for row in out[1:]] == [[str(corpus / "a.txt"), str(corpus / "b.txt")]]


def test_the_command_skips_a_1_gb_json_lines_record_as_a_bad_row(tmp_path, simfind_bin, gb_files):
    import subprocess

    path = tmp_path / "huge.jsonl"
    gb_files(path)
    short = b'{"id": "a", "text": "one short text here"}\n'
    write_gb(path, short + b'{"id": "big", "text": "')
    with open(path, "ab") as out:
        out.write(b'"}\n' + short.replace(b'"a"', b'"b"'))
    run = subprocess.run(
        [os.environ["SIMFIND_BIN"], "scan", "--input", "jsonl", path, "-q", "--skip-bad-rows"],
        capture_output=True,
    )
    assert run.returncode == 1, run.stderr.decode()
    assert f"{path}:2" in run.stderr.decode(), run.stderr.decode()
    assert run.stdout.decode().splitlines()[1].startswith("a,b,1.000000")
