//! Records: files (or stdin) of one document per line or row, the sources of
//! `scan --input jsonl|csv|tsv|sets`.
//!
//! Role: the record half of the Source seam. A [`Source`] yields [`Record`]s
//! in file order, each with its id (the key the output names), its fields
//! (the text of each chosen field, or a set's whole tokens) and its
//! [`Origin`] (input, line, byte offset). A row that cannot be a record is a
//! [`RowError`] naming the input and line; [`read_inputs`] stops at the first
//! one, or, with `skip_bad_rows`, reports each and goes on.
//!
//! Invariants: records come out in input order, then line order (document
//! ids follow it); a line is never held beyond `max_line` bytes (a longer one
//! is read past, not stored, and is a row error); ids are unique within a
//! run (within each input with `link`); nothing here panics on any bytes.

use std::fmt;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use super::kind::InputKind;

mod columns;
mod csv;
mod decode;
mod jsonl;
mod lines;
pub(crate) use lines::{Line, Lines, STOPPED};
#[cfg(feature = "parquet")]
mod parquet;
/// The footer check every reader of a Parquet file not written here makes
/// (records and the exchange's shards).
#[cfg(feature = "parquet")]
pub(crate) use parquet::chunks_outside;
mod sets;
pub use csv::{other_delimiter, show_delimiter};
pub use decode::Encoding;
pub use sets::{SetsLines, weighted_token};
#[cfg(test)]
mod tests;

/// The longest line (or CSV row) read by default: 16 MiB, far beyond any
/// record, small enough that a file without newlines cannot exhaust memory.
pub const DEFAULT_MAX_LINE: usize = 16 << 20;

/// How records are read: which fields make the document and what to do
/// with a bad row.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    pub kind: InputKind,
    /// JSON Lines: dotted path of the id (`meta.id`); default `id`.
    pub id_field: String,
    /// `id_field` was named (`--id-field`): a line without it is a bad row.
    /// Unnamed, an input whose first object has no `id` numbers its
    /// records (1 is its first line that is not blank), as a CSV without
    /// an id column does.
    pub id_field_given: bool,
    /// JSON Lines: dotted paths of the text fields; default `text`.
    pub text_fields: Vec<String>,
    /// CSV/TSV: the id column's header name; default `id`.
    pub id_column: String,
    /// `id_column` was named (`--id-column`): a header without it is an
    /// error. Unnamed, a header without an `id` column numbers the data
    /// rows (1 is the first row after the header) and those are the ids.
    pub id_column_given: bool,
    /// CSV/TSV: the columns that make the document; empty = every column
    /// but the id's, in header order.
    pub columns: Vec<String>,
    /// Sets: lines are `id<TAB>token` pairs, grouped by id.
    pub pairs: bool,
    /// Sets: tokens carry weights (`token:weight`, or with `pairs`
    /// `id<TAB>token<TAB>weight`); each field is then `token<TAB>weight`,
    /// a token once per set, its weights summed ([`weighted_token`]).
    pub weighted: bool,
    /// Ids are unique per input rather than over all inputs (`--link`).
    pub link: bool,
    /// The longest line or row kept, in bytes.
    pub max_line: usize,
    /// Report a bad row and go on, instead of stopping.
    pub skip_bad_rows: bool,
    /// CSV/TSV: the byte between fields; `None` is the kind's (`,` or tab).
    pub delimiter: Option<u8>,
    /// The inputs' text encoding; `None` detects each input's.
    pub encoding: Option<Encoding>,
}

impl RecordOptions {
    /// Defaults for `kind`.
    pub fn new(kind: InputKind) -> Self {
        RecordOptions {
            kind,
            id_field: "id".into(),
            id_field_given: false,
            text_fields: vec!["text".into()],
            id_column: "id".into(),
            id_column_given: false,
            columns: Vec::new(),
            pairs: false,
            weighted: false,
            link: false,
            max_line: DEFAULT_MAX_LINE,
            skip_bad_rows: false,
            delimiter: None,
            encoding: None,
        }
    }
}

/// Where a record came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Index of its input in the list given.
    pub input: u32,
    /// 1-based line of its first byte.
    pub line: u64,
    /// Byte offset of that line in its input.
    pub offset: u64,
}

/// One document of a record input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub id: String,
    /// One string per field ([`Records::fields`] names them); for `sets`,
    /// one per token.
    pub fields: Vec<String>,
    pub origin: Origin,
}

impl Record {
    /// Bytes of its text (fields summed), for the summary's size.
    pub fn len(&self) -> u64 {
        self.fields.iter().map(|f| f.len() as u64).sum()
    }

    /// Whether every field is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What gets past an error: a setting to give, named by its field in the
/// library's options (the name [`crate::spec`] gives it). The library words
/// it with that name; each face with its own (the command line as a flag,
/// in `app::speak`), so no message of the library spells a flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The words after the reason, `{}` where the setting goes:
    /// ` (name it with {})`.
    pub words: String,
    /// The setting: `id_field`, `max_line_length`.
    pub setting: &'static str,
}

impl Hint {
    pub fn new(words: impl Into<String>, setting: &'static str) -> Hint {
        Hint {
            words: words.into(),
            setting,
        }
    }

    /// The words, the setting called `name`.
    pub fn worded(&self, name: &str) -> String {
        self.words.replacen("{}", name, 1)
    }
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.worded(&format!("the {} setting", self.setting)))
    }
}

/// A row that is not a record (or an input that cannot be read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowError {
    /// The input as given (`-` shown as `stdin`).
    pub input: String,
    /// 1-based line, 0 when the problem is the whole input.
    pub line: u64,
    pub reason: String,
    /// What would get past it, if a setting would.
    pub hint: Option<Hint>,
}

impl RowError {
    /// Where, as `file:line` (or the file alone), for a warning's first part.
    pub fn place(&self) -> String {
        if self.line == 0 {
            self.input.clone()
        } else {
            format!("{}:{}", self.input, self.line)
        }
    }
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place(), self.reason)?;
        match &self.hint {
            Some(hint) => write!(f, "{hint}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for RowError {}

/// A source of records: rows in file order, each a record or the reason it
/// is not one. After an `Err` the source can go on to the next row.
pub trait Source {
    /// The names of the fields every record holds, known once the source is
    /// open (a CSV's chosen columns, JSON Lines' text paths, `tokens`).
    fn fields(&self) -> &[String];
    /// The next row, `None` at the end.
    fn next_record(&mut self) -> Option<Result<Record, RowError>>;
    /// Whether a record read again alone at its offset is the one read
    /// here (its id is not the count of the rows before it).
    fn found_at_offsets(&self) -> bool {
        true
    }
}

/// Everything read from the inputs, in document-id order.
#[derive(Debug, Default)]
pub struct Records {
    /// The field names (the same for every input).
    pub fields: Vec<String>,
    pub records: Vec<Record>,
    /// Rows reported and skipped (`skip_bad_rows`).
    pub skipped: u64,
    /// Some input was decompressed or transcoded: its records' lines and
    /// offsets count the text read, not the file's bytes.
    pub decoded: bool,
    /// How to read a record again at its origin, when every input allows it.
    pub reread: Option<Reread>,
}

/// Records read again one at a time at their byte offsets: JSON Lines, CSV
/// or TSV inputs that are all regular files (not stdin, not a pipe), as
/// [`read_inputs`] read them. What lets a scan drop a record's text once it
/// is signed and read only the candidates' again.
#[derive(Clone, Debug)]
pub struct Reread {
    inputs: Vec<PathBuf>,
    options: RecordOptions,
}

/// A CSV or TSV input read again ([`Reread::read_at`]).
type RowTable = csv::Table<io::BufReader<std::fs::File>>;

/// Why a record cannot be read again where it was.
#[derive(Debug)]
enum Again {
    /// Its input cannot be opened.
    CannotOpen(io::Error),
    /// Its input's header is no longer one (the reason the reader gives).
    Header(String),
    /// Its input cannot be read at the offset.
    CannotRead(io::Error),
    /// The input ends before the offset.
    Shorter,
    /// The line there is no record (the reason the reader gives).
    NotARecord(String),
}

impl fmt::Display for Again {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Again::CannotOpen(err) => write!(f, "cannot open again: {err}"),
            Again::Header(reason) => write!(f, "its header now: {reason}"),
            Again::CannotRead(err) => write!(f, "cannot read again: {err}"),
            Again::Shorter => f.write_str("no record there now (the input is shorter)"),
            Again::NotARecord(reason) => f.write_str(reason),
        }
    }
}

/// The read buffer of [`Reread::read_at`]: a record is read with one
/// buffer's worth, so small (records are short and candidates far apart;
/// 64 KB a candidate read 3.4 GB at ten million records).
const BUFFER: usize = 8 << 10;

impl Reread {
    /// For `inputs` read with `options`, if they can be read again: `plain`
    /// when every input was read as its own bytes (not decompressed, not
    /// transcoded), so that a record's offset is one in its file.
    fn of(inputs: &[PathBuf], options: &RecordOptions, plain: bool) -> Option<Reread> {
        let regular =
            |p: &PathBuf| p.as_os_str() != "-" && std::fs::metadata(p).is_ok_and(|m| m.is_file());
        let kind = matches!(
            options.kind,
            InputKind::Jsonl | InputKind::Csv | InputKind::Tsv | InputKind::Parquet
        );
        (plain && kind && inputs.iter().all(regular)).then(|| Reread {
            inputs: inputs.to_vec(),
            options: options.clone(),
        })
    }

    /// Reads the record starting at each `(input, offset)` of `at` (sorted),
    /// handing `found` its index in `at` and the record there now, or why
    /// there is none (the input cannot be opened or read, or the line is no
    /// record). The records' lines are numbered 0: see [`Reread::lines_of`].
    pub fn read_at(
        &self,
        at: &[(u32, u64)],
        found: &mut dyn FnMut(usize, Result<Record, RowError>),
    ) {
        match self.options.kind {
            InputKind::Parquet => self.rows_at(at, found),
            // Each input's header read again (the columns are found by name,
            // as when first read), then each row parsed at its offset by the
            // same reader.
            InputKind::Csv | InputKind::Tsv => self.each_at(
                at,
                found,
                |reader, name, input| {
                    csv::Table::open(reader, name, input, &self.options)
                        .map_err(|err| Again::Header(err.reason))
                },
                |table: &mut RowTable, offset| {
                    table.seek(offset).map_err(Again::CannotRead)?;
                    match table.next_record() {
                        None => Err(Again::Shorter),
                        Some(Err(err)) => Err(Again::NotARecord(err.reason)),
                        Some(Ok(record)) => Ok(record),
                    }
                },
            ),
            _ => self.each_at(
                at,
                found,
                |reader, name, input| {
                    let parser = jsonl::Parser::new(name, input, &self.options).with_ids();
                    Ok((Lines::new(reader, self.options.max_line), parser))
                },
                |(lines, parser): &mut (Lines<io::BufReader<std::fs::File>>, jsonl::Parser),
                 offset| {
                    lines.seek(offset).map_err(Again::CannotRead)?;
                    match lines.next_line() {
                        None => Err(Again::Shorter),
                        Some(Err(err)) => Err(Again::CannotRead(err)),
                        Some(Ok(line)) => parser
                            .parse(line.bytes, 0, offset)
                            .map_err(|e| Again::NotARecord(e.reason)),
                    }
                },
            ),
        }
    }

    /// The loop of [`Reread::read_at`] for every kind: each input opened
    /// once, when its first record comes (`open` makes its reader from the
    /// file, given its name and number, or says why it cannot), and each
    /// record read from it at its offset by `read`; every failure is
    /// `found`'s error naming the input.
    fn each_at<T>(
        &self,
        at: &[(u32, u64)],
        found: &mut dyn FnMut(usize, Result<Record, RowError>),
        open: impl Fn(io::BufReader<std::fs::File>, &str, u32) -> Result<T, Again>,
        mut read: impl FnMut(&mut T, u64) -> Result<Record, Again>,
    ) {
        let error = |name: &str, why: Again| RowError {
            hint: None,
            input: name.to_string(),
            line: 0,
            reason: why.to_string(),
        };
        // The input open: its number, name and reader (or why it has none).
        let mut current: Option<(u32, String, Result<T, RowError>)> = None;
        for (k, &(input, offset)) in at.iter().enumerate() {
            if current.as_ref().is_none_or(|(i, _, _)| *i != input) {
                let name = display_name(&self.inputs[input as usize]);
                let reader = std::fs::File::open(&self.inputs[input as usize])
                    .map_err(Again::CannotOpen)
                    .and_then(|file| open(io::BufReader::with_capacity(BUFFER, file), &name, input))
                    .map_err(|why| error(&name, why));
                current = Some((input, name, reader));
            }
            let Some((_, name, reader)) = current.as_mut() else {
                continue;
            };
            let record = match reader {
                Ok(reader) => read(reader, offset).map_err(|why| error(name, why)),
                Err(err) => Err(err.clone()),
            };
            found(k, record);
        }
    }

    /// [`Reread::read_at`] for Parquet inputs: the offsets are row indexes,
    /// each input's rows read in one pass that decodes only them.
    fn rows_at(&self, at: &[(u32, u64)], found: &mut dyn FnMut(usize, Result<Record, RowError>)) {
        let mut start = 0;
        for group in at.chunk_by(|x, y| x.0 == y.0) {
            let input = group[0].0;
            let rows: Vec<u64> = group.iter().map(|&(_, row)| row).collect();
            let path = &self.inputs[input as usize];
            read_parquet_rows(
                path,
                &display_name(path),
                input,
                &self.options,
                &rows,
                &mut |k, r| found(start + k, r),
            );
            start += group.len();
        }
    }

    /// Input `input`'s name in messages.
    pub fn name(&self, input: u32) -> String {
        display_name(&self.inputs[input as usize])
    }

    /// The 1-based line of each byte offset of `offsets` (ascending) in input
    /// `input` as it is now, for messages about the records there, in one
    /// pass over it; 0 where it cannot be read.
    pub fn lines_of(&self, input: u32, offsets: &[u64]) -> Vec<u64> {
        if self.options.kind == InputKind::Parquet {
            // A row's offset is its index.
            return offsets.iter().map(|&row| row + 1).collect();
        }
        let mut out = vec![0; offsets.len()];
        let Ok(file) = std::fs::File::open(&self.inputs[input as usize]) else {
            return out;
        };
        // A cap of 0: lines are counted, not kept.
        let mut lines = Lines::new(io::BufReader::new(file), 0);
        let mut k = 0;
        while k < offsets.len() {
            let Some(Ok(line)) = lines.next_line() else {
                break;
            };
            while k < offsets.len() && offsets[k] <= line.offset {
                out[k] = line.number;
                k += 1;
            }
        }
        out
    }
}

/// JSON Lines records parsed one line at a time, as they come: the items
/// of a stream (`query --add-if-new` of records), which has no file to read
/// ahead or again. The same parser as [`read_inputs`]'s, so a line is the
/// record it would be there; unlike there, ids are not checked for being
/// unique (a stream's later record of an id replaces the earlier).
pub struct JsonlLines {
    parser: jsonl::Parser,
}

impl JsonlLines {
    /// Lines of the input called `name` in messages, read with `options`
    /// (the id and text fields, the line cap).
    pub fn new(name: &str, options: &RecordOptions) -> Self {
        JsonlLines {
            parser: jsonl::Parser::new(name, 0, options).with_ids(),
        }
    }

    /// The record of line `number` (1-based): its bytes without the line
    /// end, or `Err(length)` for a line past the cap, read past and not
    /// held. A byte-order mark is skipped on line 1 only.
    pub fn parse(&self, line: Result<&[u8], u64>, number: u64) -> Result<Record, RowError> {
        // The parser skips a byte-order mark at offset 0 only; a stream's
        // other offsets are not known, nor needed.
        let offset = u64::from(number != 1);
        self.parser.parse(line, number, offset)
    }
}

/// Reads every record of `inputs` (`-` is stdin). A bad row is `Err`, or
/// with `options.skip_bad_rows`, passed to `warn` and skipped.
pub fn read_inputs(
    inputs: &[PathBuf],
    options: &RecordOptions,
    warn: &mut dyn FnMut(&RowError),
) -> Result<Records, RowError> {
    let mut out = Records::default();
    let mut first_at: std::collections::HashMap<String, (u32, u64)> =
        std::collections::HashMap::new();
    let mut plain = true;
    for (index, path) in inputs.iter().enumerate() {
        let input = u32::try_from(index).unwrap_or(u32::MAX);
        let name = display_name(path);
        let mut bad = |err: RowError, out: &mut Records| -> Result<(), RowError> {
            if options.skip_bad_rows {
                warn(&err);
                out.skipped += 1;
                Ok(())
            } else {
                Err(err)
            }
        };
        let mut source = match open_input(path, &name, input, options) {
            Ok((source, decoded)) => {
                plain &= !decoded;
                out.decoded |= decoded;
                source
            }
            Err(err) => {
                bad(err, &mut out)?;
                continue;
            }
        };
        if index == 0 || out.fields.is_empty() {
            out.fields = source.fields().to_vec();
        } else if source.fields() != out.fields {
            let err = RowError {
                hint: None,
                input: name.clone(),
                line: 1,
                reason: format!(
                    "its fields ({}) differ from the first input's ({})",
                    source.fields().join(","),
                    out.fields.join(",")
                ),
            };
            return Err(err);
        }
        if options.link {
            first_at.clear();
        }
        let before = out.records.len();
        let skipped_before = out.skipped;
        while let Some(row) = source.next_record() {
            match row {
                Ok(record) => {
                    if let Some(&(at_input, at_line)) = first_at.get(&record.id) {
                        let first = if at_input == input {
                            format!("line {at_line}")
                        } else {
                            format!("{}:{at_line}", display_name(&inputs[at_input as usize]))
                        };
                        let err = RowError {
                            hint: None,
                            input: name.clone(),
                            line: record.origin.line,
                            reason: format!(
                                "duplicate id '{}' (first at {first}); ids must be unique",
                                record.id
                            ),
                        };
                        bad(err, &mut out)?;
                        continue;
                    }
                    first_at.insert(record.id.clone(), (input, record.origin.line));
                    out.records.push(record);
                }
                Err(err) => bad(err, &mut out)?,
            }
        }
        // Asked once read: a JSON Lines input numbers its records when its
        // first object has no id, which is known only then.
        plain &= source.found_at_offsets();
        if out.records.len() == before {
            // An input whose every row was reported and skipped is not
            // empty: saying so would send the reader looking for a wrong
            // file instead of at the warnings above.
            let reason = if out.skipped > skipped_before {
                "no records: every row was skipped"
            } else {
                "no records (empty input)"
            };
            let err = RowError {
                hint: None,
                input: name,
                line: 0,
                reason: reason.into(),
            };
            bad(err, &mut out)?;
        }
    }
    if out.records.len() >= u32::MAX as usize {
        return Err(RowError {
            hint: None,
            input: display_name(inputs.last().map_or(Path::new("-"), |p| p)),
            line: 0,
            reason: format!("more than {} records", u32::MAX - 1),
        });
    }
    out.reread = Reread::of(inputs, options, plain);
    Ok(out)
}

/// Reads one input again, as [`read_inputs`] read it as input number
/// `input`, and hands every record to `found` (bad rows are passed over:
/// they were reported when it was first read). What `verify --pairs` finds
/// signed records by (their origin) to re-build their sets.
pub fn reread(
    path: &Path,
    input: u32,
    options: &RecordOptions,
    found: &mut dyn FnMut(Record),
) -> Result<(), RowError> {
    let name = display_name(path);
    let (mut source, _) = open_input(path, &name, input, options)?;
    while let Some(row) = source.next_record() {
        if let Ok(record) = row {
            found(record);
        }
    }
    Ok(())
}

/// Writes the rows of input `path` (read with `options`, as
/// [`read_inputs`] read it) whose records start on a line `keep` holds, in
/// input order and in the input's form: a CSV or TSV with its header and
/// delimiter (fields quoted where they need it), JSON Lines and sets line
/// for line; a Parquet file as Parquet, every column. Rows that were no
/// record are not written (they were reported when read). The text written is UTF-8, whatever the input's encoding or
/// compression. Returns the rows written.
pub fn write_kept(
    path: &Path,
    options: &RecordOptions,
    keep: &dyn Fn(u64) -> bool,
    out: &mut (dyn io::Write + Send),
) -> Result<u64, RowError> {
    let name = display_name(path);
    if options.kind == InputKind::Parquet {
        return write_kept_parquet(path, &name, keep, out);
    }
    let failed = |err: io::Error| RowError {
        hint: None,
        input: name.clone(),
        line: 0,
        reason: format!("cannot write its kept rows: {err}"),
    };
    let reader = open(path).map_err(|err| RowError {
        hint: None,
        input: name.clone(),
        line: 0,
        reason: format!("cannot open: {err}"),
    })?;
    let reader = decode::decode(reader, options.encoding)
        .map_err(|err| cannot_read(&name, &err))?
        .reader;
    let mut written = 0u64;
    match options.kind {
        InputKind::Csv | InputKind::Tsv => {
            let mut table = csv::Table::open(reader, &name, 0, options)?;
            let mut writer = ::csv::WriterBuilder::new()
                .delimiter(table.delimiter())
                .flexible(true)
                .from_writer(out);
            writer
                .write_byte_record(table.header())
                .map_err(|e| failed(e.into()))?;
            while let Some(row) = table.next_record() {
                if let Ok(record) = row
                    && keep(record.origin.line)
                {
                    writer
                        .write_byte_record(table.row())
                        .map_err(|e| failed(e.into()))?;
                    written += 1;
                }
            }
            writer.flush().map_err(failed)?;
        }
        InputKind::Jsonl | InputKind::Sets if !options.pairs => {
            let mut lines = Lines::new(reader, options.max_line);
            while let Some(line) = lines.next_line() {
                let line = line.map_err(|err| cannot_read(&name, &err))?;
                if let Ok(bytes) = line.bytes
                    && keep(line.number)
                {
                    out.write_all(bytes).map_err(failed)?;
                    out.write_all(b"\n").map_err(failed)?;
                    written += 1;
                }
            }
            out.flush().map_err(failed)?;
        }
        _ => {
            return Err(RowError {
                hint: None,
                input: name,
                line: 0,
                reason: "its records are not rows of their own (sets given as pairs, points)"
                    .into(),
            });
        }
    }
    Ok(written)
}

/// `-` is stdin; anything else a file.
/// The input at `path` (`-` is stdin) as the record readers read its text:
/// decompressed (gzip, zstd) and transcoded to UTF-8 (from `encoding`, or
/// the one detected). A UTF-8 byte-order mark is left for the caller, as
/// the readers skip it themselves. What a caller reads a header from before
/// the records are read.
pub fn open_text(path: &Path, encoding: Option<Encoding>) -> io::Result<Box<dyn BufRead>> {
    Ok(decode::decode(open(path)?, encoding)?.reader)
}

fn open(path: &Path) -> io::Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(io::BufReader::with_capacity(
            1 << 16,
            io::stdin().lock(),
        )))
    } else {
        let file = std::fs::File::open(path)?;
        if file.metadata()?.is_dir() {
            // The command line refuses a directory before it reads
            // (`app::config`); this is the library's own refusal.
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory, not a file of records",
            ));
        }
        Ok(Box::new(io::BufReader::with_capacity(1 << 16, file)))
    }
}

/// An input that cannot be read from its start (not decompressed, not
/// decoded).
fn cannot_read(name: &str, err: &io::Error) -> RowError {
    RowError {
        hint: None,
        input: name.into(),
        line: 0,
        reason: format!("cannot read: {err}"),
    }
}

/// The name of an input in messages.
pub fn display_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "stdin".into()
    } else {
        path.display().to_string()
    }
}

#[cfg(feature = "parquet")]
fn read_parquet_rows(
    path: &Path,
    name: &str,
    input: u32,
    options: &RecordOptions,
    rows: &[u64],
    found: &mut dyn FnMut(usize, Result<Record, RowError>),
) {
    parquet::read_rows(path, name, input, options, rows, found)
}

#[cfg(not(feature = "parquet"))]
fn read_parquet_rows(
    _: &Path,
    name: &str,
    _: u32,
    _: &RecordOptions,
    rows: &[u64],
    found: &mut dyn FnMut(usize, Result<Record, RowError>),
) {
    for k in 0..rows.len() {
        found(k, Err(no_parquet(name)));
    }
}

#[cfg(feature = "parquet")]
fn write_kept_parquet(
    path: &Path,
    name: &str,
    keep: &dyn Fn(u64) -> bool,
    out: &mut (dyn io::Write + Send),
) -> Result<u64, RowError> {
    parquet::write_kept(path, name, keep, out)
}

#[cfg(not(feature = "parquet"))]
fn write_kept_parquet(
    _: &Path,
    name: &str,
    _: &dyn Fn(u64) -> bool,
    _: &mut (dyn io::Write + Send),
) -> Result<u64, RowError> {
    Err(no_parquet(name))
}

/// Opens input number `input`, `path` (named `name` in messages), as a
/// source of records, and says whether its text was decoded (decompressed
/// or transcoded), so that its lines and offsets are not the file's.
fn open_input(
    path: &Path,
    name: &str,
    input: u32,
    options: &RecordOptions,
) -> Result<(Box<dyn Source>, bool), RowError> {
    if options.kind == InputKind::Parquet {
        return open_parquet(path, name, input, options).map(|table| (table, false));
    }
    let reader = open(path).map_err(|err| RowError {
        hint: None,
        input: name.to_owned(),
        line: 0,
        reason: format!("cannot open: {err}"),
    })?;
    let decoded =
        decode::decode(reader, options.encoding).map_err(|err| cannot_read(name, &err))?;
    let source = open_source(decoded.reader, name, input, options)?;
    Ok((source, !decoded.plain))
}

/// A Parquet input: a file, since its schema and row groups are found from
/// its end.
#[cfg(feature = "parquet")]
fn open_parquet(
    path: &Path,
    name: &str,
    input: u32,
    options: &RecordOptions,
) -> Result<Box<dyn Source>, RowError> {
    if path.as_os_str() == "-" {
        return Err(parquet_from_stdin(name));
    }
    Ok(Box::new(parquet::Table::open(path, name, input, options)?))
}

#[cfg(not(feature = "parquet"))]
fn open_parquet(
    _: &Path,
    name: &str,
    _: u32,
    _: &RecordOptions,
) -> Result<Box<dyn Source>, RowError> {
    Err(no_parquet(name))
}

/// Why a build without the `parquet` feature reads no Parquet input.
#[cfg(not(feature = "parquet"))]
fn no_parquet(name: &str) -> RowError {
    RowError {
        hint: None,
        input: name.to_owned(),
        line: 0,
        reason: "this build of simfind reads no Parquet (built without its `parquet` feature)"
            .into(),
    }
}

/// Why standard input cannot be Parquet.
fn parquet_from_stdin(name: &str) -> RowError {
    RowError {
        hint: None,
        input: name.to_owned(),
        line: 0,
        reason: "Parquet is read from a file, not a stream (its schema is at its end): \
                 give the file's path"
            .into(),
    }
}

fn open_source(
    reader: Box<dyn BufRead>,
    name: &str,
    input: u32,
    options: &RecordOptions,
) -> Result<Box<dyn Source>, RowError> {
    let cap = options.max_line;
    Ok(match options.kind {
        InputKind::Jsonl => Box::new(jsonl::Jsonl::new(
            Lines::new(reader, cap).stopping_at_cap(!options.skip_bad_rows),
            name,
            input,
            options,
        )),
        InputKind::Csv | InputKind::Tsv => {
            Box::new(csv::Table::open(reader, name, input, options)?)
        }
        InputKind::Sets => Box::new(sets::Sets::new(
            Lines::new(reader, cap).stopping_at_cap(!options.skip_bad_rows),
            name,
            input,
            options,
        )),
        InputKind::Parquet => return Err(parquet_from_stdin(name)),
        InputKind::Files | InputKind::Vectors | InputKind::Bits => {
            return Err(RowError {
                hint: None,
                input: name.into(),
                line: 0,
                reason: "files are walked, not read as records".into(),
            });
        }
    })
}

/// The reason given for a line longer than the cap.
pub(crate) fn too_long(length: u64, cap: usize) -> String {
    if length == STOPPED {
        return format!("a line longer than the cap of {cap} bytes, not read on");
    }
    format!("line of {length} bytes is longer than the cap of {cap} bytes")
}

/// What raises the line cap, said after [`too_long`]'s reason.
pub(crate) fn line_cap_hint() -> Hint {
    Hint::new(" (raise it with {} SIZE)", "max_line_length")
}

/// The reason given for bytes that are not UTF-8.
pub(crate) fn not_utf8(err: std::str::Utf8Error) -> String {
    format!(
        "not valid UTF-8 (invalid byte at column {})",
        err.valid_up_to() + 1
    )
}
