"""Fixtures of the Python package's tests.

Run by `cargo test --test engines -- python` (tests/engines/python.rs), which
sets SIMFIND_BIN to the `simfind` binary it built, so that the package's answers
are checked against the command's. Run directly (`python -m pytest crates/py/tests`
from the venv of scripts/setup-engines.sh), the tests that need the command are
skipped unless SIMFIND_BIN names one.
"""

import csv
import io
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "huge: holds a 1 GB text or file (SIMFIND_SKIP_HUGE=1 skips it)"
    )


@pytest.fixture(scope="session")
def root():
    """The repository's root (where testdata/ lives)."""
    return ROOT


@pytest.fixture(scope="session")
def simfind_bin():
    """The `simfind` command, as a function of its arguments returning its
    stdout; the test is skipped when SIMFIND_BIN is not set."""
    path = os.environ.get("SIMFIND_BIN")
    if not path:
        pytest.skip("SIMFIND_BIN is not set (cargo test --test engines sets it)")

    def run(*args):
        out = subprocess.run([path, *map(str, args)], cwd=ROOT, capture_output=True)
        assert out.returncode == 0, f"simfind {args}: {out.stderr.decode()}"
        return out.stdout

    return run


def csv_rows(data):
    """The rows of CSV bytes, header first."""
    return list(csv.reader(io.StringIO(data.decode())))


def testdata_texts():
    """The texts of testdata/news and testdata/web: each file's paragraphs, then
    the whole file, in path order; near copies and unrelated texts."""
    texts = []
    for sub in ("news", "web"):
        for path in sorted((ROOT / "testdata" / sub).iterdir()):
            text = path.read_bytes().decode("utf-8", errors="replace")
            texts.extend(p for p in text.split("\n\n") if p.strip())
            texts.append(text)
    return texts


@pytest.fixture(scope="session")
def texts():
    return testdata_texts()


@pytest.fixture()
def texts_jsonl(tmp_path, texts):
    """`texts` as JSON Lines records `id`, `text` (ids are positions, as
    `dedupe` reports them)."""
    path = tmp_path / "texts.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            out.write(json.dumps({"id": str(i), "text": text}) + "\n")
    return path
