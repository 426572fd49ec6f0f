//! Writers for similar pairs: CSV (the default output), TSV and JSON Lines,
//! and the order of `--sort similarity`.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use anyhow::Result;
use simfind::pipeline::{Document, SimilarPair};

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

pub fn write_csv(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
    sink: &mut impl Write,
) -> Result<()> {
    let mut csv = csv::WriterBuilder::new().from_writer(sink);
    csv.write_record(PAIRS_HEADER)?;
    for pair in pairs {
        let (a, b) = (&documents[pair.a as usize], &documents[pair.b as usize]);
        csv.write_record([
            a.path.as_os_str().as_bytes(),
            b.path.as_os_str().as_bytes(),
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

/// The CSV's columns, tab-separated, one pair per line, for `sort`, `cut`
/// and `awk -F'\t'`. A path's tab, newline, carriage return and backslash
/// are written `\t`, `\n`, `\r`, `\\` (PostgreSQL COPY's text format);
/// every other byte as it is, so no field ever holds a tab or a line break.
pub fn write_tsv(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
    sink: &mut impl Write,
) -> Result<()> {
    sink.write_all(PAIRS_HEADER.join("\t").as_bytes())?;
    sink.write_all(b"\n")?;
    for pair in pairs {
        let (a, b) = (&documents[pair.a as usize], &documents[pair.b as usize]);
        tsv_field(sink, a.path.as_os_str().as_bytes())?;
        sink.write_all(b"\t")?;
        tsv_field(sink, b.path.as_os_str().as_bytes())?;
        writeln!(
            sink,
            "\t{}\t{}\t{}\t{}\t{}",
            similarity(pair.similarity),
            pair.estimate.map(similarity).unwrap_or_default(),
            a.shingles,
            b.shingles,
            pair.shared.map(|s| s.to_string()).unwrap_or_default(),
        )?;
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
/// `shingles_a`, `shingles_b`, `shared` (integer or null).
pub fn write_jsonl(
    documents: &[Document],
    pairs: impl Iterator<Item = SimilarPair>,
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
        sink.write_all(b"}\n")?;
    }
    Ok(())
}
