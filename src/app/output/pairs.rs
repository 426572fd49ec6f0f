//! Writers for similar pairs: CSV (the default output), TSV and JSON Lines,
//! and the order of `--sort similarity`.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use anyhow::Result;
use simfind::pipeline::{Document, FieldScores, SimilarPair};

use super::text::{json_path, similarity};

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
        None => vec![String::new(); fields.names.len()],
    }
}

/// The header: the pairs' columns, then one per field with `fields`.
fn header(fields: Option<&FieldScores>) -> Vec<String> {
    let mut header: Vec<String> = PAIRS_HEADER.iter().map(|s| s.to_string()).collect();
    if let Some(fields) = fields {
        header.extend(fields.names.iter().map(|n| field_column(n)));
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
pub fn write_csv_fields(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
    fields: Option<&FieldScores>,
    sink: &mut impl Write,
) -> Result<()> {
    let mut csv = csv::WriterBuilder::new().from_writer(sink);
    csv.write_record(header(fields))?;
    for pair in pairs {
        let (a, b) = (&documents[pair.a as usize], &documents[pair.b as usize]);
        let (sim, estimate) = (
            similarity(pair.similarity),
            pair.estimate.map(similarity).unwrap_or_default(),
        );
        let (count_a, count_b) = (a.shingles.to_string(), b.shingles.to_string());
        let shared = pair.shared.map(|s| s.to_string()).unwrap_or_default();
        let row = [
            a.path.as_os_str().as_bytes(),
            b.path.as_os_str().as_bytes(),
            sim.as_bytes(),
            estimate.as_bytes(),
            count_a.as_bytes(),
            count_b.as_bytes(),
            shared.as_bytes(),
        ];
        if fields.is_none() {
            csv.write_record(row)?;
        } else {
            let extra = field_values(fields, &pair);
            let all = row
                .iter()
                .copied()
                .chain(extra.iter().map(String::as_bytes));
            csv.write_record(all)?;
        }
    }
    csv.flush()?;
    Ok(())
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

/// `bytes` with `\t`, `\n`, `\r` and `\\` escaped.
fn tsv_field(sink: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
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
/// `shingles_a`, `shingles_b`, `shared` (integer or null); with per-field
/// scores, `fields`: an object of each field's similarity (null where the
/// field was not compared).
#[allow(
    dead_code,
    reason = "the fuzz properties (fuzz/src/props.rs) write through it"
)]
pub fn write_jsonl(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
    sink: &mut impl Write,
) -> Result<()> {
    write_jsonl_fields(documents, pairs, None, sink)
}

/// [`write_jsonl`] with each pair's per-field similarities after its columns.
pub fn write_jsonl_fields(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
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
        if let Some(fields) = fields {
            // Per field, its similarity or null (not compared).
            sink.write_all(b",\"fields\":{")?;
            let values = fields.of(pair.a, pair.b).unwrap_or(&[]);
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
