//! The pairs of a vector family's run (`scan --input vectors|bits`, `scan
//! --sketch simhash`): CSV, TSV or JSON Lines with the columns `a`, `b`,
//! `metric` and `similarity` (cosine) or `distance` (euclidean, hamming).

use std::io::Write;

use anyhow::Result;
use simfind::pipeline::vectors::Found;

use super::text::{json_path, json_str};

/// How the measured value is named and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Cosine similarity, 6 decimals.
    Cosine,
    /// L2 distance, 6 decimals.
    Euclidean,
    /// Hamming distance, an integer.
    Hamming,
}

impl Measure {
    pub fn metric(self) -> &'static str {
        match self {
            Measure::Cosine => "cosine",
            Measure::Euclidean => "euclidean",
            Measure::Hamming => "hamming",
        }
    }

    /// `similarity` for a similarity, `distance` for a distance.
    pub fn column(self) -> &'static str {
        match self {
            Measure::Cosine => "similarity",
            Measure::Euclidean | Measure::Hamming => "distance",
        }
    }

    pub fn format(self, value: f64) -> String {
        match self {
            Measure::Cosine | Measure::Euclidean => format!("{value:.6}"),
            Measure::Hamming => format!("{}", value as u64),
        }
    }
}

/// Output formats a family run writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Tsv,
    Jsonl,
}

/// Writes `pairs`; `id` gives a point's id as bytes (a vector id, or a path).
pub fn write(
    sink: &mut impl Write,
    format: Format,
    measure: Measure,
    pairs: &[Found],
    id: &dyn Fn(u32) -> Vec<u8>,
) -> Result<()> {
    let header = ["a", "b", "metric", measure.column()];
    match format {
        Format::Csv => {
            let mut csv = csv::Writer::from_writer(sink);
            csv.write_record(header)?;
            for p in pairs {
                csv.write_record([
                    id(p.a),
                    id(p.b),
                    measure.metric().as_bytes().to_vec(),
                    measure.format(p.value).into_bytes(),
                ])?;
            }
            csv.flush()?;
        }
        Format::Tsv => {
            writeln!(sink, "{}", header.join("\t"))?;
            for p in pairs {
                tsv_field(sink, &id(p.a))?;
                sink.write_all(b"\t")?;
                tsv_field(sink, &id(p.b))?;
                writeln!(sink, "\t{}\t{}", measure.metric(), measure.format(p.value))?;
            }
        }
        Format::Jsonl => {
            for p in pairs {
                sink.write_all(b"{")?;
                json_path(sink, "a", &id(p.a))?;
                sink.write_all(b",")?;
                json_path(sink, "b", &id(p.b))?;
                sink.write_all(b",\"metric\":")?;
                json_str(sink, measure.metric())?;
                writeln!(
                    sink,
                    ",\"{}\":{}}}",
                    measure.column(),
                    measure.format(p.value)
                )?;
            }
        }
    }
    Ok(())
}

/// `bytes` with tab, newline, carriage return and backslash escaped, as the
/// pairs TSV does.
fn tsv_field(sink: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    for &byte in bytes {
        match byte {
            b'\t' => sink.write_all(b"\\t")?,
            b'\n' => sink.write_all(b"\\n")?,
            b'\r' => sink.write_all(b"\\r")?,
            b'\\' => sink.write_all(b"\\\\")?,
            _ => sink.write_all(&[byte])?,
        }
    }
    Ok(())
}
