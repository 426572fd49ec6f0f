//! Over-long rows in every line-oriented input, through the real binary:
//! after a line beyond `--max-line-length`, the rows that follow are named
//! at their own line (and, for records, signed at their own byte offset);
//! a vectors or bits file with a line beyond the cap is reported by file,
//! line and length, read past without being held, and the run goes on.

use std::path::Path;
use std::process::Output;

use crate::util::{self, simfind, stderr, stdout, write};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    simfind()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("simfind runs")
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited")
}

/// The byte offset of each line's first byte (index 0 is line 1), found
/// from the newlines alone.
fn line_starts(bytes: &[u8]) -> Vec<u64> {
    let mut starts = vec![0u64];
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' && i + 1 < bytes.len() {
            starts.push(i as u64 + 1);
        }
    }
    starts
}

/// A CSV whose line 4 is longer than a cap of 100 bytes, then good rows,
/// a quoted field spanning two lines and a ragged row after it.
fn long_line_csv() -> Vec<u8> {
    format!(
        "id,name,city\n\
         1,John Smith,Boston\n\
         2,Jon Smith,Boston\n\
         3,{},Denver\n\
         4,John Smith,Boston\n\
         5,\"John\nSmith\",Boston\n\
         6,Mary,Denver,extra\n\
         7,Jon Smith,Boston\n",
        "y".repeat(500)
    )
    .into_bytes()
}

#[test]
fn rows_after_an_over_long_csv_line_are_named_at_their_own_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "r.csv", &long_line_csv());
    let args = [
        "scan",
        "--input",
        "csv",
        "r.csv",
        "--max-line-length",
        "100",
        "--skip-bad-rows",
        "-t",
        "0.5",
    ];
    let out = run_in(dir.path(), &args);
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(err.contains("warning: r.csv:4: line of 509 bytes"), "{err}");
    assert!(err.contains("warning: r.csv:8: 4 fields"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let ids: Vec<String> = util::csv_rows(&out.stdout)
        .iter()
        .flat_map(|r| [r[0].to_vec(), r[1].to_vec()])
        .map(|id| String::from_utf8(id).unwrap())
        .collect();
    assert!(ids.iter().any(|id| id == "7"), "{}", stdout(&out));
}

#[test]
fn sign_gives_csv_records_after_an_over_long_line_their_byte_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let csv = long_line_csv();
    write(dir.path(), "r.csv", &csv);
    let sign = |kind: &str, file: &str| {
        run_in(
            dir.path(),
            &[
                "sign",
                "--input",
                kind,
                file,
                "--out",
                &format!("signed-{kind}"),
                "--max-line-length",
                "100",
                "--skip-bad-rows",
            ],
        )
    };
    let out = sign("csv", "r.csv");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let starts = line_starts(&csv);
    let exchange = simfind::exchange::read_docs(&dir.path().join("signed-csv")).unwrap();
    let mut seen = Vec::new();
    for doc in &exchange.docs {
        let id = String::from_utf8(doc.path.clone()).unwrap();
        let origin = doc.origin.as_ref().expect("a record's origin");
        let line = origin.line;
        // Each id sits on line id + 1 but for the row after the two-line one.
        let expected_line = id.parse::<u64>().unwrap() + 1 + u64::from(id == "7");
        assert_eq!(line, expected_line, "record {id}");
        assert_eq!(
            origin.offset,
            starts[line as usize - 1],
            "record {id} at line {line}"
        );
        seen.push(id);
    }
    seen.sort();
    assert_eq!(seen, ["1", "2", "4", "5", "7"]);

    // The same rows as TSV: tabs for commas.
    let tsv: Vec<u8> = csv
        .iter()
        .map(|&b| if b == b',' { b'\t' } else { b })
        .collect();
    write(dir.path(), "r.tsv", &tsv);
    let out = sign("tsv", "r.tsv");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let exchange = simfind::exchange::read_docs(&dir.path().join("signed-tsv")).unwrap();
    let offsets: Vec<u64> = exchange
        .docs
        .iter()
        .map(|d| d.origin.as_ref().unwrap().offset)
        .collect();
    let expected: Vec<u64> = [2, 3, 5, 6, 9].iter().map(|&l| starts[l - 1]).collect();
    assert_eq!(offsets, expected);
}

/// A bits file whose third line is 20 MB of bits with no newline after it:
/// beyond the default cap of 16 MiB.
fn bits_without_a_last_newline() -> (Vec<u8>, usize) {
    let mut file = b"x,10101\nz,10100\n".to_vec();
    let start = file.len();
    file.extend_from_slice(b"big,");
    file.resize(start + 20_000_000, b'1');
    let long = file.len() - start;
    (file, long)
}

#[test]
fn a_bits_line_beyond_the_cap_is_named_and_read_past_not_held() {
    let dir = tempfile::tempdir().unwrap();
    let (file, long) = bits_without_a_last_newline();
    write(dir.path(), "b.csv", &file);
    let args = ["scan", "--input", "bits", "b.csv", "--radius", "1", "-q"];
    let out = run_in(dir.path(), &args);
    let err = stderr(&out);
    assert_eq!(code(&out), 2, "{err}");
    // Without --skip-bad-rows the run stops where the line passes the cap
    // (#38, N1.31); with it, the line is read past and its length named.
    assert!(
        err.contains("b.csv: line 3: a line longer than the cap of 16777216 bytes, not read on"),
        "{err}"
    );
    assert!(err.contains("--max-line-length"), "{err}");
    assert_eq!(stdout(&out), "", "no partial output");

    let out = run_in(dir.path(), &[&args[..], &["--skip-bad-rows"]].concat());
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(
        err.contains(&format!(
            "b.csv: line 3: line of {long} bytes is longer than the cap of 16777216 bytes"
        )),
        "{err}"
    );
    assert_eq!(stdout(&out), "a,b,metric,distance\nx,z,hamming,1\n");
}

#[test]
fn a_vectors_line_beyond_a_given_cap_is_a_bad_row_and_the_rows_after_it_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let long_row = format!("c,{}\n", vec!["1"; 100].join(","));
    let file = format!("id,x,y\na,1,2\nb,1,2.1\n{long_row}d,-1,0\ne,2,4.1\n");
    write(dir.path(), "v.csv", file.as_bytes());
    let scan = |cap: &str| {
        run_in(
            dir.path(),
            &[
                "scan",
                "--input",
                "vectors",
                "v.csv",
                "-t",
                "0.99",
                "--max-line-length",
                cap,
                "--skip-bad-rows",
                "-q",
            ],
        )
    };
    let out = scan("64");
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    let length = long_row.len() - 1;
    assert!(
        err.contains(&format!(
            "v.csv: line 4: line of {length} bytes is longer than the cap of 64 bytes"
        )),
        "{err}"
    );
    let ids: Vec<String> = stdout(&out)
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(2).collect::<Vec<_>>().join(","))
        .collect();
    assert!(ids.contains(&"a,e".to_string()), "{}", stdout(&out));
    // Under a cap it fits, the same row is read: and refused for its width.
    let out = scan("1K");
    assert!(
        stderr(&out).contains("line 4: 100 components"),
        "{}",
        stderr(&out)
    );
}
