//! docs/TUNING.md quotes `simfind tune -t 0.8` and the shape `scan -t 0.8`
//! uses; these must be what the binary prints (issue #21: the page showed
//! 12 × 8 with fn-weight 16 while the binary printed 14 × 7 with 64).

use crate::util::*;

fn tuning_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/TUNING.md")).unwrap()
}

#[test]
fn the_quoted_tune_output_is_the_binarys() {
    let doc = tuning_md();
    let start = doc
        .find("```console\n$ simfind tune -t 0.8\n")
        .expect("TUNING.md quotes `simfind tune -t 0.8`")
        + "```console\n$ simfind tune -t 0.8\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let out = run(&["tune", "-t", "0.8"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(&doc[start..end], String::from_utf8(out.stdout).unwrap());
}

#[test]
fn the_quoted_scan_shape_is_tunes() {
    let out = run(&["tune", "-t", "0.8", "--format", "csv"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let row: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    let shape = format!("T ({}×{} chosen by tune", row[0], row[1]);
    let doc = tuning_md();
    assert!(doc.contains(&shape), "TUNING.md does not quote {shape}");
    assert!(
        doc.contains(&format!("{} × {} | `tune -t 0.8` ", row[0], row[1])),
        "TUNING.md's T = 0.8 table does not name {}×{} as `tune -t 0.8`",
        row[0],
        row[1]
    );
}
