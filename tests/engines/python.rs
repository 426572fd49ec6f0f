//! The Python face: the `simfind` package that `scripts/setup-engines.sh`
//! builds from crates/py and installs into `target/engines/venv`, tested by
//! its own pytest files (crates/py/tests), which check its answers against
//! this build's `simfind` command: one test here runs them and fails when
//! any fails, so that `cargo test` is still the one command that tests all.

use std::process::Command;

use crate::util::*;

pub(crate) fn the_python_packages_tests_pass() {
    let out = Command::new(root().join("target/engines/venv/bin/python"))
        .current_dir(root())
        // The command the package is checked against (conftest.py).
        .env("SIMFIND_BIN", env!("CARGO_BIN_EXE_simfind"))
        // Nothing written into the source tree: no bytecode, no cache.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args([
            "-m",
            "pytest",
            "crates/py/tests",
            "-q",
            "-p",
            "no:cacheprovider",
            // Every test runs: a skip would hide a missing piece.
            "-rs",
        ])
        .output()
        .expect("the venv's python runs");
    let report = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "pytest failed:\n{report}");
    // Skips are expected only where an optional package is absent, and
    // the test names it; none for want of the command.
    assert!(
        !report.contains("SIMFIND_BIN is not set"),
        "the command was not found:\n{report}"
    );
    // datasketch is pinned in the engines' requirements: the compatible
    // layer's differential tests must have run against it.
    assert!(
        !report.contains("datasketch is not installed"),
        "the differential tests of simfind.datasketch were skipped:\n{report}"
    );
}

/// The streaming index of the Python package (`simfind.Index`, issue 35),
/// run in the venv's python: `insert`, `query` (pairs ≥ t, and `top`)
/// against the brute force of `simfind.jaccard` over every inserted text,
/// `add_if_new` (a near copy is seen, with its nearest; another text is
/// added), the options checked against a stored recipe, and the same file
/// read by this build's command (`query --db`, `--add-if-new`) and written
/// by it (`index`) for Python to read.
pub(crate) fn the_python_index_is_the_commands_index() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(root().join("target/engines/venv/bin/python"))
        .current_dir(dir.path())
        .env("SIMFIND_BIN", env!("CARGO_BIN_EXE_simfind"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(["-c", INDEX_SCRIPT])
        .output()
        .expect("the venv's python runs");
    let report = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "the script failed:\n{report}");
    assert!(report.contains("index checks passed"), "{report}");
}

const INDEX_SCRIPT: &str = r#"
import csv, io, os, pathlib, random, subprocess
import simfind

bin = os.environ["SIMFIND_BIN"]
rng = random.Random(7)
def words(n):
    return " ".join("".join(rng.choice("abcdefghij") for _ in range(rng.randint(3, 8))) for _ in range(n))
bases = [words(80) for _ in range(30)]
texts = {}
for i, b in enumerate(bases):
    texts[f"t{i}"] = b
    if i % 3 == 0:
        cut = b.split(" ")
        texts[f"t{i}-near"] = " ".join(cut[: len(cut) * 9 // 10])
        texts[f"t{i}-far"] = " ".join(cut[: len(cut) // 3])
T = 0.5
db = pathlib.Path("py.simfind")
with simfind.Index(db, threshold=T, seed=3) as index:
    assert len(index) == 0
    assert index.insert(list(texts.values()), ids=list(texts)) == list(texts)
    assert len(index) == len(texts)
    for qid in ["t0", "t3-near", "t7", "t9-far"]:
        q = texts[qid]
        truth = sorted(
            ((i, simfind.jaccard(q, t)) for i, t in texts.items()),
            key=lambda p: (-p[1], p[0]),
        )
        above = [(i, s) for i, s in truth if s >= T]
        got = index.query(q, exact=True)
        assert [i for i, _ in got] == [i for i, _ in above], (qid, got, above)
        assert all(abs(s - t) < 1e-12 for (_, s), (_, t) in zip(got, above))
        # LSH candidates, verified: a subset of the truth.
        assert set(index.query(q)) <= set(got)
        top = index.query(q, top=2, threshold=0.01)
        best = [p for p in truth if p[1] >= 0.01][:2]
        assert [i for i, _ in top] == [i for i, _ in best], (top, best)
    # top=K walks the signature estimates: every answer exact, the K best
    # the brute force's but for a miss probability <= 0.001 each.
    differ = 0
    for qid, q in texts.items():
        sims = sorted((simfind.jaccard(q, t) for t in texts.values()), reverse=True)
        best = [round(s, 12) for s in sims if s >= 0.01][:3]
        got = index.query(q, top=3, threshold=0.01)
        for i, s in got:
            assert abs(s - simfind.jaccard(q, texts[i])) < 1e-12, (qid, i, s)
        differ += [round(s, 12) for _, s in got] != best
        exact = index.query(q, top=3, threshold=0.01, exact=True)
        assert [round(s, 12) for _, s in exact] == best, (qid, exact, best)
    # 50 texts x 3 answers, each missed with probability <= 0.001: expected
    # <= 0.15 texts differ, P[>= 2] < 0.01.
    assert differ <= 1, differ
    # add_if_new: a near copy of t6 is seen, with t6 (or its near copy)
    # as its nearest; a new text is added, then seen under its id.
    copy = " ".join(texts["t6"].split(" ")[:76])
    d = index.add_if_new(copy, id="copy")
    assert not d.new and d.id == "copy", d
    assert d.nearest in ("t6", "t6-near"), d
    assert abs(d.similarity - simfind.jaccard(copy, texts[d.nearest])) < 1e-12
    fresh = words(80)
    d = index.add_if_new(fresh)
    assert d.new and d.nearest is None, d
    assert len(index) == len(texts) + 1
    assert index.add_if_new(fresh, id="again") == simfind.Decision(False, "again", d.id, 1.0)
    # The signatures a top= lookup holds are read again after a write:
    # this Index's own (the text just added), and another's on the file.
    assert index.query(fresh, top=1, threshold=0.5) == [(d.id, 1.0)]
    other_text = words(80)
    with simfind.Index(db, threshold=T, seed=3) as other:
        other.insert([other_text], ids=["from-other"])
    assert index.query(other_text, top=1, threshold=0.5) == [("from-other", 1.0)]
    # Bad arguments name themselves.
    for kwargs, word in [({"threshold": 1.5}, "threshold"), ({"top": 0}, "top")]:
        try:
            index.query(fresh, **kwargs)
        except ValueError as e:
            assert word in str(e), e
        else:
            raise AssertionError(kwargs)
try:
    simfind.Index(db, shingle="word")
except ValueError as e:
    assert "shingle" in str(e) and "char" in str(e), e
else:
    raise AssertionError("another recipe was accepted")
try:
    simfind.Index("other.simfind", k=0)
except ValueError as e:
    assert "k" in str(e), e
else:
    raise AssertionError("k=0 was accepted")
try:
    index.query("x")
except ValueError as e:
    assert "closed" in str(e)

# The command reads what Python wrote: the same rows as index.query.
pathlib.Path("q.txt").write_text(texts["t3"])
run = lambda *a: subprocess.run([bin, *a], capture_output=True, check=True).stdout.decode()
rows = list(csv.reader(io.StringIO(run("query", "q.txt", "--db", str(db), "--exact", "-t", str(T)))))
with simfind.Index(db) as index:
    assert [(r[1], round(float(r[2]), 6)) for r in rows[1:]] == [
        (i, round(s, 6)) for i, s in index.query(texts["t3"], threshold=T, exact=True)
    ], rows
    n = len(index)
# and adds to it by --add-if-new: the file's text is a stored text's.
out = subprocess.run(
    [bin, "query", "--db", str(db), "--add-if-new", "-", "-t", str(T)],
    input=b"q.txt\n", capture_output=True, check=True,
).stdout.decode()
rows = list(csv.reader(io.StringIO(out)))
assert rows[1][:4] == ["q.txt", "seen", "t3", "1.000000"], rows

# Python reads what the command wrote.
pathlib.Path("docs").mkdir()
pathlib.Path("docs/a.txt").write_text(texts["t12"])
pathlib.Path("docs/b.txt").write_text(texts["t13"])
run("index", "docs", "--db", "cli.simfind")
with simfind.Index("cli.simfind") as index:
    assert len(index) == 2
    assert index.query(texts["t12"], threshold=T) == [("docs/a.txt", 1.0)]
    d = index.add_if_new(texts["t12-near"])
    assert not d.new and d.nearest == "docs/a.txt", d
print("index checks passed")
"#;

/// The PySpark example (`spark/simfind_pyspark.py`, issue 35 point 5): texts
/// signed inside the executors by the package (`mapInArrow`), the band join
/// in Spark SQL and exact verification give exactly the pairs of `simfind
/// scan --method lsh` on the same Parquet file with the same recipe, on
/// `local[2]` with four partitions (so several executors sign).
pub(crate) fn the_pyspark_example_gives_the_commands_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let python = root().join("target/engines/venv/bin/python");
    // 300 texts of README words; every sixth a copy of the one before with
    // one to three words changed, so that pairs fall on both sides of t.
    let make = r#"
import sys, random, pyarrow as pa, pyarrow.parquet as pq
rng = random.Random(3)
words = [w for w in open(sys.argv[2]).read().split() if w.isalpha()]
ids, texts = [], []
for i in range(300):
    if i % 6 == 5:
        t = texts[-1].split(" ")
        for _ in range(1 + i % 3):
            t[rng.randrange(len(t))] = rng.choice(["edited", "changed", "new"])
        text = " ".join(t)
    else:
        text = " ".join(rng.choice(words) for _ in range(50))
    ids.append(f"r{i:04}"); texts.append(text)
ids.append("short"); texts.append("abc")
pq.write_table(pa.table({"id": ids, "text": texts}), sys.argv[1], row_group_size=64)
"#;
    let table = dir.path().join("texts.parquet");
    let out = Command::new(&python)
        .args(["-c", make])
        .arg(&table)
        .arg(root().join("README.md"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let recipe = [
        "-k", "5", "--bands", "16", "--rows", "4", "--seed", "7", "-t", "0.75",
    ];
    let spark_pairs = dir.path().join("spark.csv");
    let out = Command::new(&python)
        .arg(root().join("spark/simfind_pyspark.py"))
        .arg(&table)
        .arg(&spark_pairs)
        .args(["--master", "local[2]", "--partitions", "4"])
        .args(recipe)
        .env("PYSPARK_PYTHON", &python)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let table_arg = table.to_str().unwrap();
    let scan = run(&[
        &[
            "scan", "--input", "parquet", table_arg, "--method", "lsh", "-q",
        ][..],
        &recipe,
    ]
    .concat());
    assert_eq!(scan.status.code(), Some(0), "{}", stderr(&scan));
    // The command writes a pair in input order; the example by id, which is
    // the same order here (ids rise with the rows).
    let want: Vec<String> = stdout(&scan)
        .lines()
        .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(","))
        .collect();
    let got: Vec<String> = std::fs::read_to_string(&spark_pairs)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(want.len() > 30, "too few pairs to compare: {want:?}");
    let mut sorted = want.clone();
    sorted[1..].sort();
    assert_eq!(got, sorted);
}
