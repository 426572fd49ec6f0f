//! Writers for groups of near-duplicates: CSV (one row per file) and JSON Lines
//! (one object per group). Group ids count from 1 in output order; the
//! representative (the kept copy) is the first file of its group.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use anyhow::Result;
use simfind::cluster::{Clustering, Member};
use simfind::pipeline::Document;

use super::text::{json_path, json_str, rfc3339, similarity};

/// The CSV schema documented in `--help` and README.md.
pub const GROUPS_HEADER: [&str; 8] = [
    "group",
    "path",
    "size",
    "modified",
    "similarity",
    "representative",
    "reference",
    "kept",
];

/// The column (and JSON field) of a removal candidate's figure: the share
/// of its shingles its kept copy lacks, 6 decimals.
pub const ONLY_IN_REMOVED: &str = "only_in_removed";

/// `m`'s figure as written, when it was a removal candidate and measured.
fn only_in(clustering: &Clustering, doc: u32) -> Option<String> {
    clustering
        .only_in(doc)
        .flatten()
        .map(|f| similarity(f.share))
}

fn bool_str(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

pub fn write_csv(
    documents: &[Document],
    reference: &dyn Fn(u32) -> bool,
    clustering: &Clustering,
    limit: usize,
    sink: &mut impl Write,
) -> Result<()> {
    let mut csv = csv::WriterBuilder::new().from_writer(sink);
    // Files measured against their kept copies get one more column, last,
    // so a reader of the eight columns by position reads them unchanged;
    // groups of records keep their eight.
    let measured = clustering.measured();
    if measured {
        let mut header = GROUPS_HEADER.to_vec();
        header.push(ONLY_IN_REMOVED);
        csv.write_record(header)?;
    } else {
        csv.write_record(GROUPS_HEADER)?;
    }
    for (i, group) in clustering.groups().take(limit).enumerate() {
        let id = (i + 1).to_string();
        for m in group {
            let d = &documents[m.doc as usize];
            let mut row = vec![
                id.as_bytes().to_vec(),
                d.path.as_os_str().as_bytes().to_vec(),
                d.size.to_string().into_bytes(),
                d.modified.map(rfc3339).unwrap_or_default().into_bytes(),
                m.similarity
                    .map(similarity)
                    .unwrap_or_default()
                    .into_bytes(),
                bool_str(m.representative).as_bytes().to_vec(),
                bool_str(reference(m.doc)).as_bytes().to_vec(),
                bool_str(m.kept).as_bytes().to_vec(),
            ];
            if measured {
                row.push(only_in(clustering, m.doc).unwrap_or_default().into_bytes());
            }
            csv.write_record(row)?;
        }
    }
    csv.flush()?;
    Ok(())
}

/// `{"group":1,"files":[{"path":…,"size":…,"modified":…|null,"similarity":…|null,
/// "representative":…,"reference":…,"kept":…,"identical":…|null},…]}` per
/// line, files as in the CSV (with `"only_in_removed":…|null` before
/// `identical` when measured); `identical` says whether a file is
/// byte-identical to its group's representative (`identical(a, b)`), null
/// for the representative itself.
pub fn write_jsonl(
    documents: &[Document],
    reference: &dyn Fn(u32) -> bool,
    identical: &dyn Fn(u32, u32) -> bool,
    clustering: &Clustering,
    limit: usize,
    sink: &mut impl Write,
) -> Result<()> {
    for (i, group) in clustering.groups().take(limit).enumerate() {
        let representative = group.iter().find(|m| m.representative).map(|m| m.doc);
        write!(sink, "{{\"group\":{},\"files\":[", i + 1)?;
        for (j, m) in group.iter().enumerate() {
            if j > 0 {
                sink.write_all(b",")?;
            }
            write_member(sink, &documents[m.doc as usize], m, reference(m.doc))?;
            if clustering.measured() {
                write!(
                    sink,
                    ",\"{ONLY_IN_REMOVED}\":{}",
                    only_in(clustering, m.doc).as_deref().unwrap_or("null")
                )?;
            }
            match representative.filter(|&r| r != m.doc) {
                Some(r) => write!(sink, ",\"identical\":{}}}", identical(m.doc, r))?,
                None => sink.write_all(b",\"identical\":null}")?,
            }
        }
        sink.write_all(b"]}\n")?;
    }
    Ok(())
}

/// One file of a group, its object left open for the caller's last field.
fn write_member(sink: &mut impl Write, d: &Document, m: &Member, reference: bool) -> Result<()> {
    sink.write_all(b"{")?;
    json_path(sink, "path", d.path.as_os_str().as_bytes())?;
    write!(sink, ",\"size\":{},\"modified\":", d.size)?;
    match d.modified {
        Some(t) => json_str(sink, &rfc3339(t))?,
        None => sink.write_all(b"null")?,
    }
    sink.write_all(b",\"similarity\":")?;
    match m.similarity {
        Some(s) => sink.write_all(similarity(s).as_bytes())?,
        None => sink.write_all(b"null")?,
    }
    write!(
        sink,
        ",\"representative\":{},\"reference\":{},\"kept\":{}",
        m.representative, reference, m.kept
    )?;
    Ok(())
}

/// Paths of the files that are not kept, each followed by `separator`. With a
/// newline separator a path containing a newline would read as two paths, so
/// that is refused before anything is written.
pub fn write_removable(
    documents: &[Document],
    clustering: &Clustering,
    separator: u8,
    limit: usize,
    sink: &mut impl Write,
) -> Result<()> {
    let paths = || {
        clustering
            .removable()
            .take(limit)
            .map(|m| documents[m.doc as usize].path.as_os_str().as_bytes())
    };
    if separator == b'\n'
        && let Some(bad) = paths().find(|p| p.contains(&b'\n'))
    {
        anyhow::bail!(
            "cannot list {:?} one per line: the name contains a newline; use -0 (NUL-separated, for xargs -0)",
            String::from_utf8_lossy(bad)
        );
    }
    for path in paths() {
        sink.write_all(path)?;
        sink.write_all(&[separator])?;
    }
    Ok(())
}
