//! The records benchmark (`tests/records-data/`) against its generator.

use crate::util::root;

/// The checked-in benchmark is what the generator makes with its defaults.
pub(crate) fn the_benchmark_is_what_the_generator_makes() {
    let dir = tempfile::tempdir().unwrap();
    let python = root().join("target/engines/venv/bin/python");
    let status = std::process::Command::new(python)
        .arg(root().join("bench/gen_records.py"))
        .arg(dir.path())
        .status()
        .expect("python runs");
    assert!(status.success());
    for name in [
        "people.csv",
        "truth.csv",
        "link_a.csv",
        "link_b.csv",
        "link_truth.csv",
    ] {
        let made = std::fs::read(dir.path().join(name)).unwrap();
        let kept = std::fs::read(root().join("tests/records-data").join(name)).unwrap();
        assert!(made == kept, "{name} differs from bench/gen_records.py's");
    }
}

/// `scan --input parquet` on tables written by real producers (issue #35
/// point 4): pyarrow (a large-string text column, a dictionary-encoded
/// column as pandas' categories are written, nulls, row groups of 50) and
/// DuckDB (`COPY … TO … (FORMAT parquet)`) give exactly the pairs of the
/// same rows as JSON Lines, and `--write-kept` writes the rows the removable
/// list leaves, which pyarrow and DuckDB read back with every column.
pub(crate) fn parquet_from_pyarrow_and_duckdb_scans_as_its_json_lines_and_keeps_the_right_rows() {
    use crate::util::exchange::{ok, python};
    use crate::util::{run_in, stdout};

    let dir = tempfile::tempdir().unwrap();
    let code = r#"
import sys, json, random, pyarrow as pa, pyarrow.parquet as pq, duckdb
d = sys.argv[1]
rng = random.Random(7)
words = [w for w in open(sys.argv[2]).read().split() if w.isalpha()]
texts, ids, kinds = [], [], []
for i in range(400):
    if i % 8 == 7:
        t = texts[-1].split(" ")
        t[rng.randrange(len(t))] = "edited"
        text = " ".join(t)
    elif i % 97 == 0:
        text = None
    else:
        text = " ".join(rng.choice(words) for _ in range(60))
    texts.append(text); ids.append(f"doc-{i:04}"); kinds.append(rng.choice(["news", "mail", "web"]))
table = pa.table({
    "id": pa.array(ids),
    "kind": pa.array(kinds).dictionary_encode(),
    "text": pa.array(texts, pa.large_string()),
    "n": pa.array(range(400), pa.int32()),
})
pq.write_table(table, f"{d}/pyarrow.parquet", row_group_size=50)
duckdb.sql(f"COPY (SELECT * FROM read_parquet('{d}/pyarrow.parquet')) TO '{d}/duckdb.parquet' (FORMAT parquet)")
with open(f"{d}/rows.jsonl", "w") as f:
    for i, t in zip(ids, texts):
        f.write(json.dumps({"id": i, "text": t}) + "\n")
"#;
    let words = crate::util::root().join("README.md");
    ok(&python()
        .arg("-c")
        .arg(code)
        .arg(dir.path())
        .arg(&words)
        .output()
        .unwrap());
    let scan = |kind: &str, file: &str, extra: &[&str]| {
        let args = [&["scan", "--input", kind, file, "-t", "0.8"][..], extra].concat();
        let out = run_in(dir.path(), &args, b"");
        assert_eq!(out.status.code(), Some(0), "{}", crate::util::stderr(&out));
        out
    };
    let want = scan("jsonl", "rows.jsonl", &[]);
    assert!(stdout(&want).lines().count() > 40, "{}", stdout(&want));
    for file in ["pyarrow.parquet", "duckdb.parquet"] {
        assert_eq!(stdout(&scan("parquet", file, &[])), stdout(&want), "{file}");
        let removable = stdout(&scan("parquet", file, &["--list-removable"]));
        let kept = format!("kept-{file}");
        scan("parquet", file, &["--write-kept", &kept]);
        let check = r#"
import sys, json, pyarrow.parquet as pq, duckdb
d, src, kept, removable = sys.argv[1:5]
removable = set(open(removable).read().split())
a, b = pq.read_table(f"{d}/{src}"), pq.read_table(f"{d}/{kept}")
want = [r for r in a.to_pylist() if r["id"] not in removable]
assert b.to_pylist() == want, (len(b), len(want))
assert b.schema == a.schema, (b.schema, a.schema)
n = duckdb.connect().execute(f"SELECT count(*), count(DISTINCT id) FROM read_parquet('{d}/{kept}')").fetchone()
assert n == (len(want), len(want)), n
print(len(want), len(removable))
"#;
        let list = dir.path().join(format!("{file}.removable"));
        std::fs::write(&list, &removable).unwrap();
        let out = python()
            .arg("-c")
            .arg(check)
            .arg(dir.path())
            .arg(file)
            .arg(&kept)
            .arg(&list)
            .output()
            .unwrap();
        ok(&out);
        let counts = stdout(&out);
        let (written, removed) = counts.trim().split_once(' ').unwrap();
        assert_eq!(
            written.parse::<usize>().unwrap() + removed.parse::<usize>().unwrap(),
            400,
            "{counts}"
        );
        assert!(removed.parse::<usize>().unwrap() >= 40, "{counts}");
    }
}
