//! What the exchange tests of both binaries sign, write and read: a corpus
//! of files, points and bit strings, `simfind sign` in shards, a pairs file
//! as an engine writes it, the rows of an output, the engines' Python, and
//! the split of an engine's pairs by component.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use simfind::exchange;

use super::{SplitMix64, prose, root, run, simfind, stderr, write};

/// A corpus with near-copies, an identical copy, a short file, a binary
/// file and unrelated files, in nested directories.
pub fn corpus(dir: &Path) {
    for i in 0..12u64 {
        let text = prose(i, 300);
        write(dir, &format!("d{}/doc{i}.txt", i % 3), text.as_bytes());
        if i % 4 == 0 {
            // A near-copy: the same text with a few words changed at the end.
            let near = format!("{} lantern bridge candle", &text[..text.len() - 20]);
            write(dir, &format!("near/doc{i}-edited.txt"), near.as_bytes());
        }
    }
    write(dir, "copy/doc1.txt", prose(1, 300).as_bytes());
    write(dir, "short.txt", b"hi");
    write(dir, "blob.bin", b"\0\x01\x02binary");
}

pub fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}\nstderr: {}",
        out.status,
        stderr(out)
    );
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn sign(roots: &[&Path], out: &Path, extra: &[&str]) -> Output {
    let mut cmd = simfind();
    cmd.arg("sign");
    cmd.args(roots).arg("--out").arg(out).args(extra);
    cmd.output().unwrap()
}

/// Writes a pairs Parquet file (`a`, `b`) as an engine would.
pub fn write_pairs(path: &Path, pairs: &[(i64, i64)]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from_iter_values(pairs.iter().map(|p| p.0))),
            Arc::new(Int64Array::from_iter_values(pairs.iter().map(|p| p.1))),
        ],
    )
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Writes a pairs Parquet file (`a`, `b`, `estimate`) as the band join of
/// `spark/` writes it.
pub fn write_estimated_pairs(path: &Path, pairs: &[(i64, i64, f64)]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, false),
        Field::new("estimate", DataType::Float64, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from_iter_values(pairs.iter().map(|p| p.0))),
            Arc::new(Int64Array::from_iter_values(pairs.iter().map(|p| p.1))),
            Arc::new(arrow_array::Float64Array::from_iter_values(
                pairs.iter().map(|p| p.2),
            )),
        ],
    )
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Every pair of documents with a signature, with the engine's estimate
/// (agreeing positions over the signature's length) of the signatures in
/// `signed`.
pub fn estimated_pairs(signed: &Path) -> Vec<(i64, i64, f64)> {
    let ex = exchange::read_docs(signed).unwrap();
    let n = ex.signature_len;
    let rows: Vec<(i64, &[u32])> = ex
        .docs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.shingles > 0)
        .map(|(i, d)| (d.doc_id, &ex.signatures[i * n..(i + 1) * n]))
        .collect();
    let mut pairs = Vec::new();
    for (i, &(a, sa)) in rows.iter().enumerate() {
        for &(b, sb) in &rows[i + 1..] {
            let agree = sa.iter().zip(sb).filter(|(x, y)| x == y).count();
            pairs.push((a.min(b), a.max(b), agree as f64 / n as f64));
        }
    }
    pairs
}

/// The data rows of any CSV output (its header dropped unchecked: the
/// families' and per-field outputs have columns of their own).
pub fn data_rows(bytes: &[u8]) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .from_reader(bytes)
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

/// The (a, b) columns of every row.
pub fn ab(bytes: &[u8]) -> Vec<(String, String)> {
    data_rows(bytes)
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect()
}

/// Every pair of documents with a signature: candidates that leave the
/// decision wholly to verification.
pub fn all_pairs(signed: &Path) -> Vec<(i64, i64)> {
    let ex = exchange::read_docs(signed).unwrap();
    let ids: Vec<i64> = ex
        .docs
        .iter()
        .filter(|d| d.shingles > 0)
        .map(|d| d.doc_id)
        .collect();
    let mut pairs = Vec::new();
    for (i, &a) in ids.iter().enumerate() {
        for &b in &ids[i + 1..] {
            pairs.push((a, b));
        }
    }
    pairs
}

pub fn python() -> Command {
    Command::new(root().join("target/engines/venv/bin/python"))
}

pub fn script(name: &str) -> PathBuf {
    root().join("spark").join(name)
}

/// The rows of a pairs CSV after its header, sorted.
pub fn sorted_rows(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let mut rows: Vec<String> = text.lines().skip(1).map(String::from).collect();
    rows.sort();
    rows
}

/// Splits `pairs` (with `components`) into `parts` verify runs: their rows,
/// concatenated and sorted, are the single run's; each part is the same
/// with -j 1 and -j 2. Returns how many parts had rows.
pub fn check_split(pairs: &Path, components: &Path, signed: &Path, parts: u32) -> usize {
    let single = run(&[
        "verify",
        "--pairs",
        path_str(pairs),
        "--docs",
        path_str(signed),
    ]);
    ok(&single);
    let mut joined = Vec::new();
    let mut nonempty = 0;
    for i in 0..parts {
        let shard = format!("{i}/{parts}");
        let part = |threads: &str| {
            run(&[
                "verify",
                "--pairs",
                path_str(pairs),
                "--docs",
                path_str(signed),
                "--components",
                path_str(components),
                "--component-shard",
                &shard,
                "-j",
                threads,
            ])
        };
        let one = part("1");
        ok(&one);
        assert_eq!(one.stdout, part("2").stdout, "part {shard}: -j 1 and -j 2");
        assert!(
            one.stdout.starts_with(b"a,b,"),
            "part {shard} has the header"
        );
        let rows = sorted_rows(&one.stdout);
        nonempty += usize::from(!rows.is_empty());
        joined.extend(rows);
    }
    joined.sort();
    let whole = sorted_rows(&single.stdout);
    assert!(whole.len() >= 4, "{} rows", whole.len());
    assert_eq!(joined, whole);
    nonempty
}

/// 300 vectors of 12 components of both signs, every 4th followed by a
/// near-copy (each component moved by at most 0.05), under a header.
pub fn vectors(dir: &Path) -> PathBuf {
    let mut rng = SplitMix64(7);
    let mut text = String::from("id,x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,x11,x12\n");
    for i in 0..300 {
        let v: Vec<f64> = (0..12).map(|_| rng.signed()).collect();
        let row = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.4}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        writeln!(text, "v{i},{}", row(&v)).unwrap();
        if i % 4 == 0 {
            let near: Vec<f64> = v.iter().map(|x| x + 0.05 * rng.signed()).collect();
            writeln!(text, "v{i}-near,{}", row(&near)).unwrap();
        }
    }
    write(dir, "points.csv", text.as_bytes())
}

/// 300 bit strings of 96 bits, every 3rd followed by a copy with 1–6 bits
/// flipped.
pub fn bit_strings(dir: &Path) -> PathBuf {
    let mut rng = SplitMix64(11);
    let mut text = String::new();
    for i in 0..300 {
        let mut bits: Vec<u8> = (0..96).map(|_| b'0' + (rng.next() & 1) as u8).collect();
        writeln!(text, "s{i},{}", String::from_utf8_lossy(&bits)).unwrap();
        if i % 3 == 0 {
            for _ in 0..1 + i % 6 {
                let k = (rng.next() % 96) as usize;
                bits[k] ^= 1;
            }
            writeln!(text, "s{i}-near,{}", String::from_utf8_lossy(&bits)).unwrap();
        }
    }
    write(dir, "bits.csv", text.as_bytes())
}

pub fn sign_points(kind: &str, input: &Path, out: &Path, shards: u32, query: &[&str]) {
    for i in 0..shards {
        let shard = format!("{i}/{shards}");
        let mut extra = vec!["--input", kind, "--shard", &shard];
        extra.extend_from_slice(query);
        ok(&sign(&[input], out, &extra));
    }
}

pub fn sign_shards(kind: &str, inputs: &[&Path], out: &Path, shards: u32, extra: &[&str]) {
    for i in 0..shards {
        let shard = format!("{i}/{shards}");
        let mut args = vec![
            "sign",
            "--input",
            kind,
            "--out",
            path_str(out),
            "--shard",
            &shard,
        ];
        args.extend(inputs.iter().map(|p| path_str(p)));
        args.extend_from_slice(extra);
        ok(&run(&args));
    }
}
