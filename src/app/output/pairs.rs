//! Writers for similar pairs: CSV (the default output), TSV and JSON Lines,
//! and the order of `--sort similarity`.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use anyhow::Result;
use simfind::model::nearest::Neighbour;
use simfind::pipeline::{Document, FieldScores, SimilarPair};

use rayon::prelude::*;

use super::text::{json_path, push_similarity, similarity};

/// The CSV schema documented in `--help` and README.md.
pub const PAIRS_HEADER: [&str; 7] = [
    "a",
    "b",
    "similarity",
    "estimate",
    "shingles_a",
    "shingles_b",
    "shared",
];

/// The column of field `name`'s similarity (`--per-field`), after the
/// pairs' columns.
pub fn field_column(name: &str) -> String {
    format!("similarity_{name}")
}

/// The per-field similarities of `pair`, as written (empty where the field
/// was not compared), when there are per-field scores.
fn field_values(fields: Option<&FieldScores>, pair: &SimilarPair) -> Vec<String> {
    let Some(fields) = fields else {
        return Vec::new();
    };
    match fields.of(pair.a, pair.b) {
        Some(values) => values
            .iter()
            .map(|v| v.map(similarity).unwrap_or_default())
            .collect(),
        None => vec![String::new(); fields.names.len() + usize::from(fields.match_weights)],
    }
}

/// The header: the pairs' columns, then one per field with `fields`.
fn header(fields: Option<&FieldScores>) -> Vec<String> {
    let mut header: Vec<String> = PAIRS_HEADER.iter().map(|s| s.to_string()).collect();
    if let Some(fields) = fields {
        if fields.match_weights {
            // Fellegi–Sunter: the total weight, then each field's.
            header.push("match_weight".to_string());
            header.extend(fields.names.iter().map(|n| format!("weight_{n}")));
        } else {
            header.extend(fields.names.iter().map(|n| field_column(n)));
        }
    }
    header
}

#[allow(
    dead_code,
    reason = "the fuzz properties (fuzz/src/props.rs) write through it"
)]
pub fn write_csv(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
    sink: &mut impl Write,
) -> Result<()> {
    write_csv_fields(documents, pairs, None, sink)
}

/// [`write_csv`] with each pair's per-field similarities after its columns.
///
/// The rows are formatted a batch at a time on every thread, each thread a
/// run of consecutive rows into its own buffer, and the buffers written in
/// order: the bytes are those of one writer going row by row (the csv
/// crate's quoting depends only on the field), but the formatting, a serial
/// tail after verification, is shared by the threads. A batch bounds what is
/// held besides the pairs themselves.
pub fn write_csv_fields(
    documents: &[Document],
    mut pairs: impl Iterator<Item = SimilarPair>,
    fields: Option<&FieldScores>,
    sink: &mut impl Write,
) -> Result<()> {
    let mut head = csv::WriterBuilder::new().from_writer(&mut *sink);
    head.write_record(header(fields))?;
    head.flush()?;
    drop(head);
    let mut batch = Vec::with_capacity(CSV_BATCH);
    loop {
        batch.clear();
        batch.extend(pairs.by_ref().take(CSV_BATCH));
        let parts: Vec<Result<Vec<u8>>> = batch
            .par_chunks(CSV_RUN)
            .map(|run| csv_rows(documents, run, fields))
            .collect();
        for part in parts {
            sink.write_all(&part?)?;
        }
        if batch.len() < CSV_BATCH {
            return Ok(());
        }
    }
}

/// Pairs taken from the iterator at a time by [`write_csv_fields`].
const CSV_BATCH: usize = 1 << 14;
/// Consecutive rows one thread formats into one buffer.
const CSV_RUN: usize = 1 << 10;

/// The CSV rows of `pairs`, in order, without the header.
fn csv_rows(
    documents: &[Document],
    pairs: &[SimilarPair],
    fields: Option<&FieldScores>,
) -> Result<Vec<u8>> {
    let mut csv = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::with_capacity(pairs.len() * 160));
    // The five number columns, written one after another into `numbers`.
    let mut numbers = Vec::with_capacity(64);
    let mut ends = [0; 5];
    for pair in pairs {
        let (a, b) = (&documents[pair.a as usize], &documents[pair.b as usize]);
        numbers.clear();
        push_similarity(&mut numbers, pair.similarity);
        ends[0] = numbers.len();
        if let Some(estimate) = pair.estimate {
            push_similarity(&mut numbers, estimate);
        }
        ends[1] = numbers.len();
        let mut digits = itoa::Buffer::new();
        numbers.extend_from_slice(digits.format(a.shingles).as_bytes());
        ends[2] = numbers.len();
        numbers.extend_from_slice(digits.format(b.shingles).as_bytes());
        ends[3] = numbers.len();
        if let Some(shared) = pair.shared {
            numbers.extend_from_slice(digits.format(shared).as_bytes());
        }
        ends[4] = numbers.len();
        let row = [
            a.path.as_os_str().as_bytes(),
            b.path.as_os_str().as_bytes(),
            &numbers[..ends[0]],
            &numbers[ends[0]..ends[1]],
            &numbers[ends[1]..ends[2]],
            &numbers[ends[2]..ends[3]],
            &numbers[ends[3]..ends[4]],
        ];
        if fields.is_none() {
            csv.write_record(row)?;
        } else {
            let extra = field_values(fields, pair);
            let all = row
                .iter()
                .copied()
                .chain(extra.iter().map(String::as_bytes));
            csv.write_record(all)?;
        }
    }
    csv.into_inner()
        .map_err(|err| anyhow::anyhow!("formatting CSV rows: {}", err.error()))
}

/// The CSV's columns, tab-separated, one pair per line, for `sort`, `cut`
/// and `awk -F'\t'`. A path's tab, newline, carriage return and backslash
/// are written `\t`, `\n`, `\r`, `\\` (PostgreSQL COPY's text format);
/// every other byte as it is, so no field ever holds a tab or a line break.
/// With `fields`, each pair's per-field similarities follow its columns.
pub fn write_tsv_fields(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
    fields: Option<&FieldScores>,
    sink: &mut impl Write,
) -> Result<()> {
    sink.write_all(header(fields).join("\t").as_bytes())?;
    sink.write_all(b"\n")?;
    for pair in pairs {
        let (a, b) = (&documents[pair.a as usize], &documents[pair.b as usize]);
        tsv_field(sink, a.path.as_os_str().as_bytes())?;
        sink.write_all(b"\t")?;
        tsv_field(sink, b.path.as_os_str().as_bytes())?;
        write!(
            sink,
            "\t{}\t{}\t{}\t{}\t{}",
            similarity(pair.similarity),
            pair.estimate.map(similarity).unwrap_or_default(),
            a.shingles,
            b.shingles,
            pair.shared.map(|s| s.to_string()).unwrap_or_default(),
        )?;
        for value in field_values(fields, &pair) {
            write!(sink, "\t{value}")?;
        }
        sink.write_all(b"\n")?;
    }
    Ok(())
}

/// The header of `scan --top K`: the pairs' columns with `rank` after `b`.
pub const NEIGHBOURS_HEADER: [&str; 8] = [
    "a",
    "b",
    "rank",
    "similarity",
    "estimate",
    "shingles_a",
    "shingles_b",
    "shared",
];

/// `scan --top K`: one row per item and neighbour (`a` the item, `b` its
/// `rank`-th nearest), CSV or, with `tsv`, the TSV of [`write_tsv_fields`].
pub fn write_neighbours(
    documents: &[Document],
    rows: impl Iterator<Item = Neighbour>,
    tsv: bool,
    sink: &mut impl Write,
) -> Result<()> {
    let mut csv = csv::WriterBuilder::new()
        .delimiter(if tsv { b'\t' } else { b',' })
        .quote_style(if tsv {
            csv::QuoteStyle::Never
        } else {
            csv::QuoteStyle::Necessary
        })
        .from_writer(&mut *sink);
    csv.write_record(NEIGHBOURS_HEADER)?;
    let mut escaped = (Vec::new(), Vec::new());
    for Neighbour { rank, pair } in rows {
        let (a, b) = (&documents[pair.a as usize], &documents[pair.b as usize]);
        let (a_path, b_path) = (a.path.as_os_str().as_bytes(), b.path.as_os_str().as_bytes());
        let (a_field, b_field) = if tsv {
            escaped.0.clear();
            escaped.1.clear();
            tsv_field(&mut escaped.0, a_path)?;
            tsv_field(&mut escaped.1, b_path)?;
            (&escaped.0[..], &escaped.1[..])
        } else {
            (a_path, b_path)
        };
        csv.write_record([
            a_field,
            b_field,
            rank.to_string().as_bytes(),
            similarity(pair.similarity).as_bytes(),
            pair.estimate.map(similarity).unwrap_or_default().as_bytes(),
            a.shingles.to_string().as_bytes(),
            b.shingles.to_string().as_bytes(),
            pair.shared
                .map(|s| s.to_string())
                .unwrap_or_default()
                .as_bytes(),
        ])?;
    }
    csv.flush()?;
    Ok(())
}

/// `bytes` with `\t`, `\n`, `\r` and `\\` escaped.
pub(crate) fn tsv_field(sink: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let escaped: &[u8] = match byte {
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\\' => b"\\\\",
            _ => continue,
        };
        sink.write_all(&bytes[start..i])?;
        sink.write_all(escaped)?;
        start = i + 1;
    }
    sink.write_all(&bytes[start..])
}

/// `pairs` most similar first, as written (six decimals: pairs that print
/// the same similarity are tied), ties by a then b (walk order, so the order
/// does not depend on threads). With `limit`, only the first `limit` are
/// kept, found without sorting the rest.
pub fn by_similarity(pairs: impl Iterator<Item = SimilarPair>, limit: usize) -> Vec<SimilarPair> {
    let key = |p: &SimilarPair| (std::cmp::Reverse(micro(p.similarity)), p.a, p.b);
    let mut all: Vec<SimilarPair> = pairs.collect();
    if limit < all.len() {
        all.select_nth_unstable_by_key(limit, key);
        all.truncate(limit);
    }
    all.sort_unstable_by_key(key);
    all
}

/// The similarity as written, in millionths: `similarity(s)` without its dot.
fn micro(s: f64) -> u64 {
    similarity(s).replace('.', "").parse().unwrap_or(0)
}

/// One object per line with the CSV's fields: `a`, `b` (strings; plus
/// `a_bytes`/`b_bytes` when a path is not UTF-8), `similarity`, `estimate`
/// (numbers, 6 decimals; `estimate` null with the exact method),
/// `shingles_a`, `shingles_b`, `shared` (integer or null); from a scan,
/// `identical` (whether the two are byte-identical, which a similarity of 1
/// does not say); with per-field scores, `fields`: an object of each field's
/// similarity (null where the field was not compared).
#[allow(
    dead_code,
    reason = "the fuzz properties (fuzz/src/props.rs) write through it"
)]
pub fn write_jsonl(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
    sink: &mut impl Write,
) -> Result<()> {
    write_jsonl_fields(documents, pairs, None, None, sink)
}

/// [`write_jsonl`] with, given `identical`, whether the two documents of a
/// pair are byte-identical, and each pair's per-field similarities after its
/// columns.
pub fn write_jsonl_fields(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
    identical: Option<&dyn Fn(u32, u32) -> bool>,
    fields: Option<&FieldScores>,
    sink: &mut impl Write,
) -> Result<()> {
    for pair in pairs {
        let (a, b) = (&documents[pair.a as usize], &documents[pair.b as usize]);
        sink.write_all(b"{")?;
        json_path(sink, "a", a.path.as_os_str().as_bytes())?;
        sink.write_all(b",")?;
        json_path(sink, "b", b.path.as_os_str().as_bytes())?;
        write!(
            sink,
            ",\"similarity\":{},\"estimate\":{},\"shingles_a\":{},\"shingles_b\":{},\"shared\":",
            similarity(pair.similarity),
            pair.estimate.map(similarity).as_deref().unwrap_or("null"),
            a.shingles,
            b.shingles
        )?;
        match pair.shared {
            Some(n) => write!(sink, "{n}")?,
            None => sink.write_all(b"null")?,
        }
        if let Some(identical) = identical {
            write!(sink, ",\"identical\":{}", identical(pair.a, pair.b))?;
        }
        if let Some(fields) = fields {
            // Per field, its similarity (or match weight) or null (not
            // compared).
            let mut values = fields.of(pair.a, pair.b).unwrap_or(&[]);
            if fields.match_weights {
                let total = values.first().copied().flatten();
                match total {
                    Some(w) => write!(sink, ",\"match_weight\":{}", similarity(w))?,
                    None => sink.write_all(b",\"match_weight\":null")?,
                }
                values = values.get(1..).unwrap_or(&[]);
                sink.write_all(b",\"weights\":{")?;
            } else {
                sink.write_all(b",\"fields\":{")?;
            }
            for (i, name) in fields.names.iter().enumerate() {
                if i > 0 {
                    sink.write_all(b",")?;
                }
                super::text::json_str(sink, name)?;
                match values.get(i).copied().flatten() {
                    Some(v) => write!(sink, ":{}", similarity(v))?,
                    None => sink.write_all(b":null")?,
                }
            }
            sink.write_all(b"}")?;
        }
        sink.write_all(b"}\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::path::Path;

    use simfind::model::DocStatus;

    use super::*;

    /// What [`write_csv_fields`] wrote before its rows were batched: one csv
    /// writer, row by row, numbers through `format!`. The reference.
    fn one_by_one(documents: &[Document], pairs: &[SimilarPair]) -> Vec<u8> {
        let mut csv = csv::WriterBuilder::new().from_writer(Vec::new());
        csv.write_record(PAIRS_HEADER).unwrap();
        for pair in pairs {
            let (a, b) = (&documents[pair.a as usize], &documents[pair.b as usize]);
            let estimate = pair.estimate.map(|e| format!("{e:.6}"));
            csv.write_record([
                a.path.as_os_str().as_bytes(),
                b.path.as_os_str().as_bytes(),
                format!("{:.6}", pair.similarity).as_bytes(),
                estimate.unwrap_or_default().as_bytes(),
                a.shingles.to_string().as_bytes(),
                b.shingles.to_string().as_bytes(),
                pair.shared
                    .map(|s| s.to_string())
                    .unwrap_or_default()
                    .as_bytes(),
            ])
            .unwrap();
        }
        csv.into_inner().unwrap()
    }

    #[test]
    fn batched_rows_are_the_row_by_row_bytes_on_any_thread_count() {
        // Paths the csv crate must quote (comma, quote, line break, space,
        // bytes that are not UTF-8) beside plain ones.
        let names: [&[u8]; 6] = [
            b"plain/a.txt",
            b"with,comma",
            b"with \"quote\"",
            b"line\nbreak",
            b" lead space",
            b"caf\xe9",
        ];
        let documents: Vec<Document> = (0..60u32)
            .map(|i| {
                let mut path = names[i as usize % names.len()].to_vec();
                path.extend_from_slice(format!("/{i}").as_bytes());
                Document {
                    path: Path::new(OsStr::from_bytes(&path)).into(),
                    size: 1,
                    modified: None,
                    shingles: i * 7919,
                    status: DocStatus::Read,
                }
            })
            .collect();
        // More rows than two batches, the last one partial; every kind of
        // value (ties of six decimals, missing estimate and overlap).
        let pairs: Vec<SimilarPair> = (0..2 * CSV_BATCH as u32 + 1234)
            .map(|i| SimilarPair {
                a: i % 59,
                b: i % 59 + 1,
                similarity: f64::from(i % 1000) / 999.0,
                estimate: (i % 3 != 0).then(|| f64::from(i % 129) / 128.0),
                shared: (i % 5 != 0).then_some(i as usize * 31),
            })
            .collect();
        let want = one_by_one(&documents, &pairs);
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut got = Vec::new();
            pool.install(|| write_csv_fields(&documents, pairs.iter().copied(), None, &mut got))
                .unwrap();
            assert!(got == want, "{threads} threads");
        }
        // No pairs: the header alone.
        let mut got = Vec::new();
        write_csv_fields(&documents, std::iter::empty(), None, &mut got).unwrap();
        assert_eq!(got, one_by_one(&documents, &[]));
    }
}
