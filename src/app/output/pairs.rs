//! Writers for similar pairs: CSV (the default output) and JSON Lines.

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
