//! `verify --component-shard I/N --components DIR`: one part of an engine's
//! pairs, split by its components. The parts' rows together are the single
//! run's, whatever the thread count; components that do not fit the pairs
//! are refused.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use crate::util::exchange::{check_split, corpus, ok, path_str, sign, write_pairs};
use crate::util::{self, run, stderr};

/// Writes a components Parquet file (`doc_id`, `component`) as an engine would.
fn write_components(path: &Path, rows: &[(i64, i64)]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("doc_id", DataType::Int64, false),
        Field::new("component", DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|p| p.0))),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|p| p.1))),
        ],
    )
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// The connected components of `pairs`, each labelled by its smallest
/// doc_id (what the engines write), by plain repeated relabelling.
fn components(pairs: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut label: HashMap<i64, i64> = HashMap::new();
    for &(a, b) in pairs {
        label.insert(a, a);
        label.insert(b, b);
    }
    loop {
        let mut changed = false;
        for &(a, b) in pairs {
            let m = label[&a].min(label[&b]);
            for x in [a, b] {
                if label[&x] != m {
                    label.insert(x, m);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut rows: Vec<(i64, i64)> = label.into_iter().collect();
    rows.sort_unstable();
    rows
}

#[test]
fn verify_split_by_component_gives_the_single_runs_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    corpus(&files);
    let signed = tmp.path().join("signed");
    ok(&sign(&[&files], &signed, &["--shard", "0/2"]));
    ok(&sign(&[&files], &signed, &["--shard", "1/2"]));
    // The engine's candidates: the pairs a scan reports, as doc_ids.
    let ex = simfind::exchange::read_docs(&signed).unwrap();
    let id_of: HashMap<String, i64> = ex
        .docs
        .iter()
        .map(|d| (String::from_utf8(d.path.clone()).unwrap(), d.doc_id))
        .collect();
    // The near-copies and the copy: several components.
    let scan = run(&["scan", path_str(&files), "--method", "lsh", "-t", "0.7"]);
    ok(&scan);
    let pairs: Vec<(i64, i64)> = util::pair_paths(&scan.stdout)
        .into_iter()
        .map(|(a, b)| {
            let (a, b) = (id_of[&a], id_of[&b]);
            (a.min(b), a.max(b))
        })
        .collect();
    let pairs_file = tmp.path().join("joined/pairs/part-0.parquet");
    write_pairs(&pairs_file, &pairs);
    let components_dir = tmp.path().join("joined/components");
    write_components(&components_dir.join("part-0.parquet"), &components(&pairs));
    let pairs_dir = pairs_file.parent().unwrap();
    // Four components: over 2, 3 and 5 parts they spread (which part a
    // component goes to is a hash; some split must use more than one).
    let spread: Vec<usize> = [1, 2, 3, 5]
        .into_iter()
        .map(|parts| check_split(pairs_dir, &components_dir, &signed, parts))
        .collect();
    assert_eq!(spread[0], 1);
    assert!(spread[1..].iter().any(|&n| n >= 2), "{spread:?}");

    // Components that are not these pairs': refused, naming the file.
    write_components(
        &components_dir.join("part-0.parquet"),
        &[(pairs[0].0, 1), (pairs[0].1, 2)],
    );
    let out = run(&[
        "verify",
        "--pairs",
        path_str(pairs_dir),
        "--docs",
        path_str(&signed),
        "--components",
        path_str(&components_dir),
        "--component-shard",
        "0/2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(path_str(&components_dir))
            && stderr(&out).contains("not within one component"),
        "{}",
        stderr(&out)
    );
    // --component-shard needs --components, and a valid I/N.
    for args in [
        vec!["--component-shard", "0/2"],
        vec!["--components", path_str(&components_dir)],
        vec![
            "--components",
            path_str(&components_dir),
            "--component-shard",
            "2/2",
        ],
    ] {
        let mut full = vec![
            "verify",
            "--pairs",
            path_str(pairs_dir),
            "--docs",
            path_str(&signed),
        ];
        full.extend(args);
        let out = run(&full);
        assert_eq!(out.status.code(), Some(2), "{full:?}");
        assert!(out.stdout.is_empty());
    }
}
