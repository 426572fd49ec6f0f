//! `scan --input parquet` (issue #35 point 4), through the real binary: a
//! Parquet table is read as the same records as the JSON Lines file of the
//! same rows, across row groups and read batches; `--write-kept` writes the
//! kept rows as Parquet with every column and the file's metadata; bad
//! tables and rows are named (file, row, column, type) and the run goes on
//! where a row or an input can be skipped. The files written by pyarrow and
//! DuckDB are the engine test `records::parquet_from_pyarrow_and_duckdb_…`.

use std::path::Path;
use std::process::Output;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

use crate::util::*;

/// Rows of the table: 1,500 texts (more than one read batch), every tenth
/// a near copy of the one before (a word changed), some empty or null.
fn texts() -> Vec<Option<String>> {
    (0..1500u64)
        .map(|i| match i % 10 {
            0 if i % 70 == 0 => None,
            9 => {
                let mut words: Vec<String> =
                    prose(i - 1, 40).split(' ').map(str::to_owned).collect();
                words[20] = "changed".into();
                Some(words.join(" "))
            }
            _ => Some(prose(i, 40)),
        })
        .collect()
}

/// Writes `columns` as a Parquet file of row groups of 333 rows, with a
/// key-value pair in its footer.
fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef)>) {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(333))
        .set_key_value_metadata(Some(vec![parquet::file::metadata::KeyValue::new(
            "dataset".into(),
            "simfind-test".to_string(),
        )]))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// The table of [`texts`] with ids 1000, 1001, … and a float column that
/// is not text, as Parquet and as the same rows in JSON Lines.
fn table(dir: &Path) {
    let texts = texts();
    let ids: Vec<i64> = (1000..1000 + texts.len() as i64).collect();
    let scores: Vec<f64> = (0..texts.len()).map(|i| i as f64 / 7.0).collect();
    write_parquet(
        &dir.join("t.parquet"),
        vec![
            ("id", Arc::new(Int64Array::from(ids.clone())) as ArrayRef),
            ("score", Arc::new(Float64Array::from(scores))),
            ("text", Arc::new(StringArray::from(texts.clone()))),
        ],
    );
    let jsonl: String = ids
        .iter()
        .zip(&texts)
        .map(|(id, text)| {
            let text = text
                .as_deref()
                .map_or("null".to_string(), |t| format!("\"{t}\""));
            format!("{{\"id\":{id},\"text\":{text}}}\n")
        })
        .collect();
    write(dir, "t.jsonl", jsonl.as_bytes());
}

fn scan(dir: &Path, kind: &str, file: &str, extra: &[&str]) -> Output {
    let args = [&["scan", "--input", kind, file, "-t", "0.8"][..], extra].concat();
    run_in(dir, &args, b"")
}

fn ok(out: &Output) {
    assert_eq!(code(out), 0, "{}", stderr(out));
}

/// The ids of column `id` of a Parquet file, and its rows.
fn parquet_ids(path: &Path) -> (Vec<i64>, RecordBatch) {
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    let batch = arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
    let ids = batch
        .column_by_name("id")
        .unwrap()
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
        .values()
        .to_vec();
    (ids, batch)
}

#[test]
fn a_parquet_table_gives_the_pairs_of_the_same_rows_in_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    table(dir.path());
    let want = scan(dir.path(), "jsonl", "t.jsonl", &[]);
    ok(&want);
    // Every tenth row has its near copy: the pairs are there to compare.
    assert!(csv_rows(&want.stdout).len() > 100, "{}", stdout(&want));
    for extra in [
        &[][..],
        &["--text-column", "text"],
        &["--columns", "text", "--id-column", "id"],
    ] {
        let out = scan(dir.path(), "parquet", "t.parquet", extra);
        ok(&out);
        assert_eq!(stdout(&out), stdout(&want), "{extra:?}");
        assert!(
            stderr(&out).contains("1500 records (parquet)"),
            "{}",
            stderr(&out)
        );
    }
    // Threads do not change the answer.
    let one = scan(dir.path(), "parquet", "t.parquet", &["--threads", "1"]);
    assert_eq!(one.stdout, want.stdout);
}

#[test]
fn without_an_id_column_the_rows_are_numbered_and_without_text_the_string_columns_are_taken() {
    let dir = tempfile::tempdir().unwrap();
    let a = "the lighthouse keeper climbed the stairs every evening to light the lamp";
    let b = "the lighthouse keeper climbed the stairs each evening to light the lamp";
    write_parquet(
        &dir.path().join("n.parquet"),
        vec![
            (
                "title",
                Arc::new(StringArray::from(vec!["x", "y", "x"])) as ArrayRef,
            ),
            (
                "body",
                Arc::new(StringArray::from(vec![a, "unrelated words here", b])),
            ),
            ("n", Arc::new(Int64Array::from(vec![1, 2, 3]))),
        ],
    );
    let args = ["scan", "--input", "parquet", "n.parquet", "-t", "0.5"];
    let out = run_in(dir.path(), &args, b"");
    ok(&out);
    let rows = csv_rows(&out.stdout);
    assert_eq!(rows.len(), 1, "{}", stdout(&out));
    assert_eq!((&rows[0][0], &rows[0][1]), (&b"1"[..], &b"3"[..]));
    // The string columns, not the number: title and body.
    assert!(
        stderr(&out).contains("shingles of title,body"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn write_kept_writes_the_rows_the_removable_list_leaves_with_every_column() {
    let dir = tempfile::tempdir().unwrap();
    table(dir.path());
    let listed = scan(dir.path(), "parquet", "t.parquet", &["--list-removable"]);
    ok(&listed);
    let removable: Vec<i64> = stdout(&listed)
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert!(removable.len() > 100, "{}", stdout(&listed));
    // The groups hold records, and the summary says so.
    let err = stderr(&listed);
    assert!(
        err.contains(" records in groups, ") && !err.contains("files in groups"),
        "{err}"
    );
    let out = scan(
        dir.path(),
        "parquet",
        "t.parquet",
        &["--write-kept", "kept.parquet"],
    );
    ok(&out);
    let (all, input) = parquet_ids(&dir.path().join("t.parquet"));
    let (kept, output) = parquet_ids(&dir.path().join("kept.parquet"));
    let expected: Vec<i64> = all
        .iter()
        .copied()
        .filter(|id| !removable.contains(id))
        .collect();
    assert_eq!(kept, expected);
    assert!(
        stderr(&out).contains(&format!("{} rows kept", kept.len())),
        "{}",
        stderr(&out)
    );
    // Every column as it was, row for row (the float and null texts too).
    assert_eq!(output.schema(), input.schema());
    let positions: Vec<u64> = all
        .iter()
        .enumerate()
        .filter(|(_, id)| !removable.contains(id))
        .map(|(i, _)| i as u64)
        .collect();
    let taken =
        arrow_select::take::take_record_batch(&input, &arrow_array::UInt64Array::from(positions))
            .unwrap();
    assert_eq!(output, taken);
    // The footer's own metadata is carried over.
    let file = std::fs::File::open(dir.path().join("kept.parquet")).unwrap();
    let metadata = parquet::file::reader::SerializedFileReader::new(file).unwrap();
    let kv = parquet::file::reader::FileReader::metadata(&metadata)
        .file_metadata()
        .key_value_metadata()
        .cloned()
        .unwrap_or_default();
    assert!(
        kv.iter()
            .any(|kv| kv.key == "dataset" && kv.value.as_deref() == Some("simfind-test")),
        "{kv:?}"
    );
}

#[test]
fn bad_tables_are_named_before_any_row_and_bad_rows_are_skipped_by_row() {
    let dir = tempfile::tempdir().unwrap();
    table(dir.path());
    // Stdin is refused before anything is read.
    let out = run_in(dir.path(), &["scan", "--input", "parquet", "-"], b"PAR1");
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("reads files, not stdin"),
        "{}",
        stderr(&out)
    );

    // A column that is not there, listed against the schema.
    let out = scan(
        dir.path(),
        "parquet",
        "t.parquet",
        &["--text-column", "body"],
    );
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("t.parquet: no column 'body' in its schema (id,score,text)"),
        "{err}"
    );
    assert!(err.contains("--columns"), "{err}");
    // A column that is not text, named with its type.
    let out = scan(
        dir.path(),
        "parquet",
        "t.parquet",
        &["--text-column", "score"],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("column 'score' is of type Float64, not text"),
        "{}",
        stderr(&out)
    );

    // A damaged file beside a good one: named, and with --skip-bad-rows the
    // good one is scanned.
    let bytes = std::fs::read(dir.path().join("t.parquet")).unwrap();
    write(dir.path(), "cut.parquet", &bytes[..bytes.len() / 2]);
    let both = [
        "scan",
        "--input",
        "parquet",
        "cut.parquet",
        "t.parquet",
        "-t",
        "0.8",
    ];
    let out = run_in(dir.path(), &both, b"");
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("cut.parquet: not a readable Parquet file"),
        "{}",
        stderr(&out)
    );
    let out = run_in(dir.path(), &[&both[..], &["--skip-bad-rows"]].concat(), b"");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let want = scan(dir.path(), "parquet", "t.parquet", &[]);
    assert_eq!(out.stdout, want.stdout);

    // A text over the cap is a row error naming the row; skipped, the run
    // goes on with the others.
    let long = "word ".repeat(100);
    write_parquet(
        &dir.path().join("long.parquet"),
        vec![
            (
                "id",
                Arc::new(StringArray::from(vec!["a", "b", "c", ""])) as ArrayRef,
            ),
            (
                "text",
                Arc::new(StringArray::from(vec![
                    "short text one here",
                    long.as_str(),
                    "short text one here",
                    "no id",
                ])),
            ),
        ],
    );
    let args = [
        "scan",
        "--input",
        "parquet",
        "long.parquet",
        "--max-line-length",
        "100",
    ];
    let out = run_in(dir.path(), &args, b"");
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("long.parquet:2: column 'text' holds 500 bytes"),
        "{}",
        stderr(&out)
    );
    let out = run_in(dir.path(), &[&args[..], &["--skip-bad-rows"]].concat(), b"");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("long.parquet:4: empty or null id"),
        "{}",
        stderr(&out)
    );
    let rows = csv_rows(&out.stdout);
    assert_eq!(rows.len(), 1, "{}", stdout(&out));
    assert_eq!((&rows[0][0], &rows[0][1]), (&b"a"[..], &b"c"[..]));
}

/// A Parquet table's rows are records to the index and to explain too:
/// `index --input parquet` then `query --input parquet` finds, both ways,
/// every pair the scan finds with the same bands (the same candidates, both
/// verified exactly), and `explain --input parquet` compares two rows by id.
#[test]
fn the_index_and_explain_take_parquet_rows() {
    let dir = tempfile::tempdir().unwrap();
    table(dir.path());
    let bands = ["-b", "20", "-r", "5"];
    let scan = scan(
        dir.path(),
        "parquet",
        "t.parquet",
        &[&["--method", "lsh"][..], &bands].concat(),
    );
    ok(&scan);
    let index = [
        &["index", "--db", "i.db", "--input", "parquet", "t.parquet"][..],
        &bands,
    ]
    .concat();
    ok(&run_in(dir.path(), &index, b""));
    let args = [
        "query",
        "--db",
        "i.db",
        "--input",
        "parquet",
        "t.parquet",
        "-t",
        "0.8",
    ];
    let query = run_in(dir.path(), &args, b"");
    ok(&query);
    let found: std::collections::HashSet<(Vec<u8>, Vec<u8>)> = csv_rows(&query.stdout)
        .iter()
        .map(|r| (r[0].to_vec(), r[1].to_vec()))
        .collect();
    let pairs = csv_rows(&scan.stdout);
    assert!(pairs.len() > 100, "{}", stdout(&scan));
    for pair in &pairs {
        let (a, b) = (pair[0].to_vec(), pair[1].to_vec());
        assert!(
            found.contains(&(a.clone(), b.clone())) && found.contains(&(b, a)),
            "{pair:?} not found both ways"
        );
    }
    let (a, b) = (
        String::from_utf8(pairs[0][0].to_vec()).unwrap(),
        String::from_utf8(pairs[0][1].to_vec()).unwrap(),
    );
    let explain = ["explain", "--input", "parquet", "t.parquet", &a, &b];
    let out = run_in(dir.path(), &explain, b"");
    ok(&out);
    assert!(
        stdout(&out).contains(&format!("t.parquet#{a}")),
        "{}",
        stdout(&out)
    );
}
