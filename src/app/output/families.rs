//! The pairs of a vector family's run (`scan --input vectors|bits`, `scan
//! --sketch simhash`): CSV, TSV or JSON Lines with the columns `a`, `b`,
//! `metric` and `similarity` (cosine) or `distance` (euclidean, hamming); or
//! their groups ([`simfind::cluster`], the keep order being the points'
//! order): CSV `group,id,representative,metric,similarity|distance` (the
//! member's value against its representative; empty when a connected
//! component did not pair them) or JSON Lines `{"group":…,"metric":…,
//! "members":[{"id":…,"similarity|distance":…|null,"representative":…},…]}`.

use std::io::Write;

use anyhow::Result;
use simfind::cluster::{self, ClusterMethod, ClusterParams, FileFacts, KeepPolicy, ScoredPair};
use simfind::pipeline::vectors::Found;

use super::text::{json_path, json_str};

/// How the measured value is named and written: the library's one measure
/// ([`Measure::name`], [`Measure::column`], [`Measure::format_value`]).
pub use simfind::measure::Measure;

/// Output formats a family run writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Tsv,
    Jsonl,
    /// Groups, one member a row.
    GroupsCsv,
    /// Groups, one group a line.
    GroupsJsonl,
}

/// Writes `pairs` (or their groups by `method`); `id` gives a point's id as
/// bytes (a vector id, or a path).
pub fn write(
    sink: &mut impl Write,
    format: Format,
    measure: Measure,
    method: ClusterMethod,
    pairs: &[Found],
    id: &dyn Fn(u32) -> Vec<u8>,
) -> Result<()> {
    let header = ["a", "b", "metric", measure.column()];
    match format {
        Format::GroupsCsv | Format::GroupsJsonl => {
            write_groups(
                sink,
                format == Format::GroupsJsonl,
                measure,
                method,
                pairs,
                id,
            )?;
        }
        Format::Csv => {
            let mut csv = csv::Writer::from_writer(sink);
            csv.write_record(header)?;
            for p in pairs {
                csv.write_record([
                    id(p.a),
                    id(p.b),
                    measure.name().as_bytes().to_vec(),
                    measure.format_value(p.value).into_bytes(),
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
                writeln!(
                    sink,
                    "\t{}\t{}",
                    measure.name(),
                    measure.format_value(p.value)
                )?;
            }
        }
        Format::Jsonl => {
            for p in pairs {
                sink.write_all(b"{")?;
                json_path(sink, "a", &id(p.a))?;
                sink.write_all(b",")?;
                json_path(sink, "b", &id(p.b))?;
                sink.write_all(b",\"metric\":")?;
                json_str(sink, measure.name())?;
                writeln!(
                    sink,
                    ",\"{}\":{}}}",
                    measure.column(),
                    measure.format_value(p.value)
                )?;
            }
        }
    }
    Ok(())
}

/// `scan --top K` of points or fingerprints: each row an item, one of its
/// nearest neighbours and that neighbour's rank (`rows` as
/// [`simfind::pipeline::vectors::nearest_points`] gives them), CSV or TSV
/// with the columns `a`, `b`, `rank`, `metric` and `similarity|distance`.
pub fn write_top(
    sink: &mut impl Write,
    tsv: bool,
    measure: Measure,
    rows: &[(u32, Found)],
    id: &dyn Fn(u32) -> Vec<u8>,
) -> Result<()> {
    let header = ["a", "b", "rank", "metric", measure.column()];
    if tsv {
        writeln!(sink, "{}", header.join("\t"))?;
        for (rank, p) in rows {
            tsv_field(sink, &id(p.a))?;
            sink.write_all(b"\t")?;
            tsv_field(sink, &id(p.b))?;
            writeln!(
                sink,
                "\t{rank}\t{}\t{}",
                measure.name(),
                measure.format_value(p.value)
            )?;
        }
        return Ok(());
    }
    let mut csv = csv::Writer::from_writer(sink);
    csv.write_record(header)?;
    for (rank, p) in rows {
        csv.write_record([
            id(p.a),
            id(p.b),
            rank.to_string().into_bytes(),
            measure.name().as_bytes().to_vec(),
            measure.format_value(p.value).into_bytes(),
        ])?;
    }
    csv.flush()?;
    Ok(())
}

/// Groups of the points that `pairs` link. Clustering is by similarity, so
/// a distance `d` is handed over as `−d` (every pair given is within the
/// query, hence the lowest threshold); documents are ordered by id, which
/// `--keep first` ranks.
fn write_groups(
    sink: &mut impl Write,
    jsonl: bool,
    measure: Measure,
    method: ClusterMethod,
    pairs: &[Found],
    id: &dyn Fn(u32) -> Vec<u8>,
) -> Result<()> {
    let distance = measure.column() == "distance";
    let scored: Vec<ScoredPair> = pairs
        .iter()
        .map(|p| ScoredPair {
            a: p.a,
            b: p.b,
            similarity: if distance { -p.value } else { p.value },
        })
        .collect();
    let n = pairs.iter().map(|p| p.b.max(p.a) + 1).max().unwrap_or(0) as usize;
    let ids: Vec<Vec<u8>> = (0..n as u32).map(id).collect();
    let facts: Vec<FileFacts> = ids
        .iter()
        .map(|path| FileFacts {
            path,
            size: 0,
            modified: None,
            reference: false,
        })
        .collect();
    let params = ClusterParams {
        threshold: f64::MIN,
        method,
        keep: KeepPolicy::First,
    };
    let clustering = cluster::cluster(&facts, &scored, &params);
    let value = |m: &cluster::Member| -> Option<String> {
        if m.representative {
            Some(measure.format_value(if distance { 0.0 } else { 1.0 }))
        } else {
            m.similarity
                .map(|s| measure.format_value(if distance { -s } else { s }))
        }
    };
    if jsonl {
        for (g, group) in clustering.groups().enumerate() {
            write!(sink, "{{\"group\":{},\"metric\":", g + 1)?;
            json_str(sink, measure.name())?;
            sink.write_all(b",\"members\":[")?;
            for (k, m) in group.iter().enumerate() {
                if k > 0 {
                    sink.write_all(b",")?;
                }
                sink.write_all(b"{")?;
                json_path(sink, "id", &ids[m.doc as usize])?;
                write!(
                    sink,
                    ",\"{}\":{},\"representative\":{}}}",
                    measure.column(),
                    value(m).as_deref().unwrap_or("null"),
                    m.representative
                )?;
            }
            sink.write_all(b"]}\n")?;
        }
        return Ok(());
    }
    let mut csv = csv::Writer::from_writer(sink);
    csv.write_record(["group", "id", "representative", "metric", measure.column()])?;
    for (g, group) in clustering.groups().enumerate() {
        let group_id = (g + 1).to_string();
        for m in group {
            csv.write_record([
                group_id.as_bytes(),
                &ids[m.doc as usize],
                if m.representative { b"true" } else { b"false" },
                measure.name().as_bytes(),
                value(m).unwrap_or_default().as_bytes(),
            ])?;
        }
    }
    csv.flush()?;
    Ok(())
}

/// `bytes` with tab, newline, carriage return and backslash escaped, as the
/// pairs TSV does.
pub(super) fn tsv_field(sink: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
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
