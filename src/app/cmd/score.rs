//! `simfind score`: MMDS 3.8.2's entity resolution between two record files:
//! candidates share a field exactly, and are scored field by field.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use simfind::input::InputKind;
use simfind::input::records::{self, Record, RecordOptions};
use simfind::similarity::entity;

use crate::app::args::{self, ExitRow};
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::ui::{self, Verbosity};

const AFTER_HELP: &str = "EXAMPLES:
  simfind score a.csv b.csv --fields name,address,phone
  simfind score a.csv b.csv --fields name,address,phone --min-score 185
  simfind score a.csv b.csv --fields name,address,phone --equivalents nicknames.csv

As in MMDS 3.8.2, a pair of records (one from each file) is scored only when one of
the --fields is identical in both (the text sorts by each field in turn; this is
the same as one bucket per value). Each field is worth 100 points, less the square of
the edit distance of the two values (Section 3.5.5's: insertions and deletions; never
below 0): \"Bill\" and \"William\" (distance 5) score 75. Three identical fields score 300.
Values are compared exactly as written (no case folding, no trimming inside).

--equivalents lowers penalties as the text's \"publicly available tables\" do: each line
of the file lists words that may stand for one another (Bill,William). A word of one
value whose equivalent appears in the other counts as one edit, so \"Bill Jones\" and
\"William Jones\" differ by 1 and score 99; a field never scores less than without it.

OUTPUT: CSV `a,b,score,<field>,…`: the two ids, the total and each field's points, in
the order of the first file's records, then the second's.

";

const EXIT_STATUS: &[ExitRow] = &[
    (exit::OK, "success"),
    (
        exit::PARTIAL,
        "some rows were skipped (a warning names the file, line and reason);\n\
         every other pair was scored",
    ),
    (
        exit::FATAL,
        "usage error, or a file or its header could not be read",
    ),
];

/// Score record pairs field by field (MMDS 3.8.2's entity resolution): pairs sharing a
/// field exactly, each field 100 points less the square of its edit distance.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(AFTER_HELP, EXIT_STATUS))]
#[command(
    mut_args(defs::one("id_column", defs::id_column(defs::IdColumn::Score))),
    mut_args(defs::one("input", defs::input(defs::Input::Score))),
    mut_args(defs::one("delimiter", defs::delimiter())),
    mut_args(defs::one("encoding", defs::encoding()))
)]
pub struct Args {
    /// The first file of records (CSV or TSV with a header).
    #[arg(value_name = "A")]
    pub a: PathBuf,

    /// The second file of records.
    #[arg(value_name = "B")]
    pub b: PathBuf,

    /// The fields scored (columns of both headers), comma-separated.
    #[arg(long, value_name = "NAME,…", value_delimiter = ',', required = true)]
    pub fields: Vec<String>,

    // --id-column, --input: defs::id_column, defs::input.
    #[arg(long, default_value = "id")]
    pub id_column: String,

    #[arg(long, default_value = "csv")]
    pub input: String,

    // --delimiter, --encoding: defs::delimiter, defs::encoding.
    #[arg(long, value_parser = crate::app::flags::values::delimiter)]
    pub delimiter: Option<u8>,

    #[arg(long, value_parser = crate::app::flags::values::encoding)]
    pub encoding: Option<simfind::input::records::Encoding>,

    /// A table of equivalent words, one group a line separated by commas (Bill,William):
    /// a word of one value whose equivalent is in the other counts as one edit.
    #[arg(long, value_name = "FILE")]
    pub equivalents: Option<PathBuf>,

    /// Print only the pairs scoring at least this.
    #[arg(long, value_name = "POINTS", default_value_t = 0)]
    pub min_score: u32,

    #[command(flatten)]
    pub verbosity: Verbosity,
}

/// A missing column is an argument error (exit 2, nothing printed), named by
/// the flag that asked for it, before any record is read. Only a regular
/// file is looked at twice: a FIFO or a pipe (`/dev/stdin`) can be read once,
/// so the record reader checks its header as it reads it (a missing column is
/// then a warning naming the file). The header line is held only up to the
/// records' line cap. It is read as the records are: decompressed, decoded
/// (`options.encoding`, or detected), split at `options`' delimiter.
fn check_header(
    path: &PathBuf,
    options: &RecordOptions,
    id: &str,
    fields: &[String],
) -> Result<()> {
    use std::io::{BufRead, Read};
    let shown = path.display();
    // Asked before opening: opening a FIFO to look would take its writer's
    // data (and close it) before the records are read.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return Ok(());
    }
    let text = records::open_text(path, options.encoding)
        .with_context(|| format!("cannot read {shown}"))?;
    let cap = records::DEFAULT_MAX_LINE;
    let mut line = Vec::new();
    text.take(cap as u64 + 2)
        .read_until(b'\n', &mut line)
        .with_context(|| format!("{shown}: cannot read the header"))?;
    if line.len() > cap && !line.ends_with(b"\n") {
        bail!("{shown}:1: the header is longer than the cap of {cap} bytes");
    }
    let header = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
    let delimiter = options
        .delimiter
        .unwrap_or(if options.kind == InputKind::Tsv {
            b'\t'
        } else {
            b','
        });
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .from_reader(header);
    let header = reader
        .headers()
        .with_context(|| format!("{shown}: cannot read the header"))?;
    let names: Vec<&str> = header.iter().map(str::trim).collect();
    let wanted =
        std::iter::once((id, "--id-column")).chain(fields.iter().map(|f| (f.as_str(), "--fields")));
    // A header of one column split by another usual byte (a European
    // spreadsheet's `;`): said, as the scan says it, not guessed.
    let other = match names.as_slice() {
        [only] => records::other_delimiter(only, delimiter).map(|d| {
            let shown = records::show_delimiter(d);
            format!("; it looks separated by '{shown}': read it with --delimiter '{shown}'")
        }),
        _ => None,
    };
    for (column, flag) in wanted {
        if !names.contains(&column) {
            bail!(
                "{shown}: no column {column:?} in the header ({}), as {flag} asks{}",
                names.join(","),
                other.as_deref().unwrap_or("")
            );
        }
    }
    Ok(())
}

pub fn run(args: Args) -> Result<i32> {
    let mut fields = args.fields.clone();
    fields.retain(|f| !f.is_empty());
    if fields.is_empty() {
        bail!("--fields names no column");
    }
    let mut seen = fields.clone();
    seen.sort();
    seen.dedup();
    if seen.len() != fields.len() {
        bail!("--fields names a column twice");
    }
    let kind = if args.input == "tsv" {
        InputKind::Tsv
    } else {
        InputKind::Csv
    };
    let table = match &args.equivalents {
        None => entity::Equivalents::default(),
        Some(path) => {
            let cap = simfind::input::bounded::caps::OPTION_FILE;
            let text = simfind::input::bounded::read_text(path, cap)
                .with_context(|| format!("cannot read --equivalents {}", path.display()))?;
            entity::Equivalents::parse(&text)
                .map_err(|(line, reason)| anyhow::anyhow!("{}:{line}: {reason}", path.display()))?
        }
    };
    crate::app::config::check_text_options(kind, args.delimiter, args.encoding)?;
    let mut options = RecordOptions::new(kind);
    options.delimiter = args.delimiter;
    options.encoding = args.encoding;
    for path in [&args.a, &args.b] {
        check_header(path, &options, &args.id_column, &fields)?;
    }
    options.columns = fields.clone();
    options.id_column = args.id_column.clone();
    options.id_column_given = true;
    options.skip_bad_rows = true;
    let mut skipped = 0;
    let mut read = |path: &PathBuf| -> Result<Vec<Record>> {
        let records = records::read_inputs(std::slice::from_ref(path), &options, &mut |err| {
            eprintln!(
                "{} {}",
                ui::warning_prefix(),
                crate::app::speak::row_error(err)
            );
        })
        .map_err(|err| anyhow::anyhow!("{}", crate::app::speak::row_error(&err)))?;
        skipped += records.skipped;
        Ok(records.records)
    };
    let a = read(&args.a)?;
    let b = read(&args.b)?;

    // One bucket per (field, value) of B: the text's sorting by each field.
    let mut buckets: Vec<HashMap<&str, Vec<u32>>> = vec![HashMap::new(); fields.len()];
    for (j, record) in b.iter().enumerate() {
        for (f, value) in record.fields.iter().enumerate() {
            if !value.is_empty() {
                buckets[f].entry(value.as_str()).or_default().push(j as u32);
            }
        }
    }
    let mut header = vec!["a".to_string(), "b".into(), "score".into()];
    header.extend(fields.iter().cloned());
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(&header)?;
    let (mut candidates, mut printed) = (0u64, 0u64);
    let mut partners: Vec<u32> = Vec::new();
    for record in &a {
        partners.clear();
        for (f, value) in record.fields.iter().enumerate() {
            if let Some(js) = buckets[f].get(value.as_str()) {
                partners.extend(js);
            }
        }
        partners.sort_unstable();
        partners.dedup();
        for &j in &partners {
            candidates += 1;
            let other = &b[j as usize];
            let points: Vec<u32> = record
                .fields
                .iter()
                .zip(&other.fields)
                .map(|(x, y)| entity::field_score_with(x, y, &table))
                .collect();
            let total: u32 = points.iter().sum();
            if total < args.min_score {
                continue;
            }
            printed += 1;
            let mut row = vec![record.id.clone(), other.id.clone(), total.to_string()];
            row.extend(points.iter().map(u32::to_string));
            out.write_record(&row)?;
        }
    }
    out.flush()?;
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: {} × {} records, {candidates} pairs share a field, {printed} printed",
            a.len(),
            b.len()
        );
    }
    Ok(if skipped > 0 { exit::PARTIAL } else { exit::OK })
}
