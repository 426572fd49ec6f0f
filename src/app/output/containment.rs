//! The pairs of a containment scan (`crate::app::containment`): CSV or TSV
//! with the header [`HEADER`], or JSON Lines objects with the same keys and
//! `"metric":"containment"`; one pair a row, `a` before `b` in input order,
//! both directions' containment and `contained`, the side held inside the
//! other at ≥ the threshold (`a`, `b` or `both`).

use std::io::Write;

use anyhow::Result;
use simfind::measure::Measure;
use simfind::similarity::ContainedPair;

use super::families::tsv_field;
use super::text::{json_path, json_str};
use crate::app::flags::values::FormatArg;

/// The CSV and TSV header of a containment scan.
pub const HEADER: [&str; 8] = [
    "a",
    "b",
    "a_in_b",
    "b_in_a",
    "contained",
    "size_a",
    "size_b",
    "shared",
];

/// The pairs in `format` (csv, tsv or jsonl); `ids[i]` names set `i`.
pub fn write(
    sink: &mut impl Write,
    format: FormatArg,
    t: f64,
    pairs: &[ContainedPair],
    ids: &[Vec<u8>],
) -> Result<()> {
    let value = |v: f64| Measure::Containment.format_value(v);
    let id = |i: u32| &ids[i as usize];
    match format {
        FormatArg::Tsv => {
            writeln!(sink, "{}", HEADER.join("\t"))?;
            for p in pairs {
                tsv_field(sink, id(p.a))?;
                sink.write_all(b"\t")?;
                tsv_field(sink, id(p.b))?;
                writeln!(
                    sink,
                    "\t{}\t{}\t{}\t{}\t{}\t{}",
                    value(p.a_in_b),
                    value(p.b_in_a),
                    p.contained(t),
                    p.size_a,
                    p.size_b,
                    p.shared
                )?;
            }
        }
        FormatArg::Jsonl => {
            for p in pairs {
                sink.write_all(b"{")?;
                json_path(sink, "a", id(p.a))?;
                sink.write_all(b",")?;
                json_path(sink, "b", id(p.b))?;
                sink.write_all(b",\"metric\":")?;
                json_str(sink, Measure::Containment.name())?;
                writeln!(
                    sink,
                    ",\"a_in_b\":{},\"b_in_a\":{},\"contained\":\"{}\",\"size_a\":{},\
                     \"size_b\":{},\"shared\":{}}}",
                    value(p.a_in_b),
                    value(p.b_in_a),
                    p.contained(t),
                    p.size_a,
                    p.size_b,
                    p.shared
                )?;
            }
        }
        _ => {
            let mut csv = csv::Writer::from_writer(sink);
            csv.write_record(HEADER)?;
            for p in pairs {
                csv.write_record([
                    id(p.a).clone(),
                    id(p.b).clone(),
                    value(p.a_in_b).into_bytes(),
                    value(p.b_in_a).into_bytes(),
                    p.contained(t).as_bytes().to_vec(),
                    p.size_a.to_string().into_bytes(),
                    p.size_b.to_string().into_bytes(),
                    p.shared.to_string().into_bytes(),
                ])?;
            }
            csv.flush()?;
        }
    }
    Ok(())
}
