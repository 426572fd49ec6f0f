//! CSV and TSV records (RFC 4180, through the `csv` crate): a header names
//! the columns; `--id-column` is the id, `--columns` the fields that make the
//! document (every other column by default). A quoted field may span lines.
//!
//! Rows are checked here, not by the crate: a row with another number of
//! fields than the header is a row error naming its line, as is a row with
//! an empty id or bytes that are not UTF-8. A physical line longer than the
//! cap is not passed to the parser past the cap (see [`Capped`]); the row
//! holding it is a row error.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

use csv::{ByteRecord, ReaderBuilder};

use super::{
    Hint, Origin, Record, RecordOptions, RowError, Source, line_cap_hint, not_utf8, too_long,
};
use crate::input::kind::InputKind;

/// What [`Capped`] saw of over-long lines: how many, the longest, and
/// where it dropped bytes, so that the parser's offsets (which count only
/// the bytes passed on) can be mapped back to the input's.
#[derive(Default)]
struct Overflow {
    lines: Cell<u64>,
    longest: Cell<u64>,
    /// The line (1 + the newlines before it) where each over-long line
    /// starts, in input order: its number where no row can carry it.
    starts: RefCell<Vec<u64>>,
    /// Per over-long line not yet behind the rows read: (bytes passed on
    /// before its drop, bytes dropped less bytes added), in input order.
    drops: RefCell<VecDeque<(u64, i64)>>,
}

impl Overflow {
    /// Counts a drop of `n` bytes after `passed` bytes were passed on.
    fn dropped(&self, passed: u64, n: i64) {
        let mut drops = self.drops.borrow_mut();
        match drops.back_mut() {
            Some((at, total)) if *at == passed => *total += n,
            _ => drops.push_back((passed, n)),
        }
    }
}

/// Where the CSV parser is in a row, as the `csv` crate's lexer moves
/// (RFC 4180 with doubled quotes; `\r` or `\n` ends a row outside quotes;
/// a quote inside an unquoted field is a plain byte).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lex {
    /// At the start of a field (or of a row).
    Start,
    /// In a field that did not open with a quote.
    Unquoted,
    /// In a quoted field: a delimiter or newline is part of it.
    Quoted,
    /// Just after a quote in a quoted field: it closes the field, unless
    /// another quote follows (a doubled quote).
    QuoteInQuoted,
}

impl Lex {
    fn next(self, byte: u8, delimiter: u8) -> Lex {
        let ends = byte == delimiter || byte == b'\n' || byte == b'\r';
        match self {
            Lex::Start if byte == b'"' => Lex::Quoted,
            Lex::Start | Lex::Unquoted | Lex::QuoteInQuoted if ends => Lex::Start,
            Lex::QuoteInQuoted if byte == b'"' => Lex::Quoted,
            Lex::Start | Lex::Unquoted | Lex::QuoteInQuoted => Lex::Unquoted,
            Lex::Quoted if byte == b'"' => Lex::QuoteInQuoted,
            Lex::Quoted => Lex::Quoted,
        }
    }

    fn over(mut self, bytes: &[u8], delimiter: u8) -> Lex {
        for &b in bytes {
            self = self.next(b, delimiter);
        }
        self
    }
}

/// A reader that passes at most `cap` bytes of each line; the rest of a
/// longer line is read and dropped (counted in `overflow`).
///
/// Dropped bytes can hold the quote that closes (or opens) a quoted field,
/// so the parser, which never sees them, would read the following rows as
/// one field (review N1.19/N1.20: rows lost without a word). `Capped`
/// therefore follows the quoting of the whole input and of what it passed
/// on ([`Lex`]); at the newline that ends a drop it adds the quote (or
/// delimiter and quote) that puts the parser where the input is: the
/// over-long row ends where it really ends, and every following row is
/// read as written.
struct Capped<R> {
    inner: R,
    /// Bytes taken from `inner` so far (passed on or dropped): where it is
    /// in its input, what [`Table::seek`] moves from.
    at: u64,
    cap: u64,
    /// Bytes of the current line passed on (or dropped) so far.
    in_line: u64,
    /// The current line is past the cap: its bytes are dropped.
    dropping: bool,
    /// Bytes passed on so far (the parser's byte positions count these).
    passed: u64,
    /// Newlines of the input passed on so far.
    newlines: u64,
    overflow: Rc<Overflow>,
    delimiter: u8,
    /// The parser's place, after the bytes passed on.
    passed_lex: Lex,
    /// The input's place, after the bytes of a drop.
    input_lex: Lex,
    /// Bytes added to bring the parser back in step, passed on next.
    added: Vec<u8>,
    /// A line over the cap is an error where it passes the cap, instead of
    /// being dropped to its end (the header's always; a row's where a bad
    /// row stops the run): nothing after the cap is read.
    stop_at_cap: bool,
}

impl<R> Capped<R> {
    /// The end of a dropped line (at its newline, or at the end of the
    /// input): one more over-long line, of the length read.
    fn end_drop(&mut self) {
        let length = self.in_line;
        self.overflow.lines.set(self.overflow.lines.get() + 1);
        self.overflow
            .longest
            .set(self.overflow.longest.get().max(length));
        self.dropping = false;
        self.in_line = 0;
    }

    /// At the newline that ends a drop: the bytes that take the parser
    /// from `passed_lex` to where the input is (`input_lex`), so that the
    /// newline ends the row, or stays in a quoted field, as in the input.
    fn resync(&mut self) {
        let inside = self.input_lex == Lex::Quoted;
        let add: &[u8] = match (inside, self.passed_lex) {
            (true, Lex::Quoted) | (false, Lex::Start | Lex::Unquoted | Lex::QuoteInQuoted) => &[],
            (true, Lex::Start | Lex::QuoteInQuoted) | (false, Lex::Quoted) => b"\"",
            (true, Lex::Unquoted) => &[self.delimiter, b'"'],
        };
        if !add.is_empty() {
            self.overflow.dropped(self.passed, -(add.len() as i64));
            self.added.extend_from_slice(add);
        }
        self.passed_lex = self.input_lex;
    }
}

impl<R: BufRead> Read for Capped<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if !self.added.is_empty() {
                let n = self.added.len().min(out.len());
                out[..n].copy_from_slice(&self.added[..n]);
                self.added.drain(..n);
                self.passed += n as u64;
                return Ok(n);
            }
            if self.dropping && self.inner.fill_buf()?.is_empty() {
                // An over-long last line without a newline ends here: it is
                // counted like any other, so that its row is reported
                // instead of read as what was passed on, cut at the cap.
                self.end_drop();
            }
            let available = self.inner.fill_buf()?;
            if available.is_empty() || out.is_empty() {
                return Ok(0);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let content = newline.unwrap_or(available.len());
            if self.dropping {
                // The rest of an over-long line, up to (not including) its
                // newline, which is then passed on so that the parser ends
                // the row.
                self.in_line += content as u64;
                self.overflow.dropped(self.passed, content as i64);
                self.input_lex = self.input_lex.over(&available[..content], self.delimiter);
                self.inner.consume(content);
                self.at += content as u64;
                if newline.is_some() {
                    self.end_drop();
                    self.resync();
                }
                continue;
            }
            let room = usize::try_from(self.cap - self.in_line).unwrap_or(usize::MAX);
            if room == 0 && content > 0 {
                if self.stop_at_cap {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        CapStop(too_long(super::STOPPED, self.cap as usize)),
                    ));
                }
                self.dropping = true;
                self.overflow.starts.borrow_mut().push(self.newlines + 1);
                self.input_lex = self.passed_lex;
                continue;
            }
            let whole = newline.map_or(available.len(), |at| at + 1);
            let n = if content <= room { whole } else { room }.min(out.len());
            out[..n].copy_from_slice(&available[..n]);
            self.passed_lex = self.passed_lex.over(&available[..n], self.delimiter);
            self.inner.consume(n);
            self.at += n as u64;
            self.passed += n as u64;
            if newline.is_some_and(|at| at < n) {
                self.in_line = 0;
                self.newlines += 1;
            } else {
                self.in_line += n as u64;
            }
            return Ok(n);
        }
    }
}

/// Moves to a byte offset of the input (only [`io::SeekFrom::Start`]),
/// within the buffer when it holds it: what a row read again at its offset
/// ([`Table::seek`]) costs. The parser's offsets then count from there.
impl io::Seek for Capped<io::BufReader<std::fs::File>> {
    fn seek(&mut self, to: io::SeekFrom) -> io::Result<u64> {
        let io::SeekFrom::Start(to) = to else {
            return Err(io::Error::other("rows are sought by their offset"));
        };
        let by = i64::try_from(to).map_err(io::Error::other)? - self.at as i64;
        self.inner.seek_relative(by)?;
        self.at = to;
        self.passed = to;
        self.in_line = 0;
        self.dropping = false;
        self.passed_lex = Lex::Start;
        self.added.clear();
        self.overflow.drops.borrow_mut().clear();
        Ok(to)
    }
}

pub(super) struct Table<R = Box<dyn BufRead>> {
    reader: csv::Reader<Capped<R>>,
    overflow: Rc<Overflow>,
    seen_overflow: u64,
    /// Bytes dropped (less bytes added) before the rows read so far: a
    /// parser offset plus this is the input's.
    shift: i64,
    name: String,
    input: u32,
    width: usize,
    /// The id column; `None`: ids are the data rows' numbers.
    id: Option<usize>,
    /// Data rows read so far (blank lines not counted): the last row's
    /// number, its id when there is no id column.
    rows: u64,
    chosen: Vec<usize>,
    fields: Vec<String>,
    cap: usize,
    row: ByteRecord,
    /// The header row as read, for a copy of the table ([`Table::header`]).
    header: ByteRecord,
    delimiter: u8,
    failed: bool,
}

impl<R: BufRead> Table<R> {
    pub(super) fn open(
        reader: R,
        name: &str,
        input: u32,
        options: &RecordOptions,
    ) -> Result<Table<R>, RowError> {
        let error = |line, reason: String| RowError {
            hint: None,
            input: name.into(),
            line,
            reason,
        };
        let overflow = Rc::new(Overflow::default());
        let delimiter = options
            .delimiter
            .unwrap_or(if options.kind == InputKind::Tsv {
                b'\t'
            } else {
                b','
            });
        let capped = Capped {
            inner: reader,
            at: 0,
            cap: options.max_line as u64,
            in_line: 0,
            dropping: false,
            passed: 0,
            newlines: 0,
            overflow: Rc::clone(&overflow),
            delimiter,
            passed_lex: Lex::Start,
            input_lex: Lex::Start,
            added: Vec::new(),
            stop_at_cap: true,
        };
        let mut reader = ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .flexible(true)
            .from_reader(capped);
        let mut header = ByteRecord::new();
        match reader.read_byte_record(&mut header) {
            Ok(true) => {}
            Ok(false) => return Err(error(0, "empty: no header row".into())),
            Err(err) => {
                return Err(RowError {
                    hint: stopped_at_cap(&err).then(line_cap_hint),
                    ..error(1, format!("cannot read the header: {err}"))
                });
            }
        }
        if overflow.lines.get() > 0 {
            return Err(RowError {
                hint: Some(line_cap_hint()),
                ..error(1, too_long(overflow.longest.get(), options.max_line))
            });
        }
        reader.get_mut().stop_at_cap = !options.skip_bad_rows;
        let mut names = Vec::with_capacity(header.len());
        for field in &header {
            match std::str::from_utf8(field) {
                Ok(name) => names.push(name.trim().to_owned()),
                Err(err) => return Err(error(1, format!("header {}", not_utf8(err)))),
            }
        }
        if let [only] = &names[..] {
            // One column is never a table of records: most likely a file
            // separated by another byte (a European spreadsheet's `;`).
            // Named, not guessed: a guess would pick wrong columns without
            // a word on a file whose text holds the byte.
            if let Some(other) = other_delimiter(only, delimiter) {
                let shown = show_delimiter(other);
                return Err(RowError {
                    hint: Some(Hint::new(
                        format!("; read it with {{}} '{shown}'"),
                        "delimiter",
                    )),
                    ..error(
                        1,
                        format!(
                            "the header is one column ({only}): it looks separated by '{shown}'"
                        ),
                    )
                });
            }
        }
        let refused = |(reason, hint): super::columns::Refusal| RowError {
            hint: Some(hint),
            ..error(1, reason)
        };
        let column = |wanted: &str, setting: &'static str| {
            super::columns::column(&names, wanted, setting, "the header").map_err(refused)
        };
        let id = super::columns::id_column(&names, options, "the header").map_err(refused)?;
        let chosen: Vec<usize> = if options.columns.is_empty() {
            (0..names.len()).filter(|&i| Some(i) != id).collect()
        } else {
            options
                .columns
                .iter()
                .map(|c| column(c, "columns"))
                .collect::<Result<_, _>>()?
        };
        if chosen.is_empty() {
            return Err(error(
                1,
                "no column besides the id to make the document from".into(),
            ));
        }
        let fields = chosen.iter().map(|&i| names[i].clone()).collect();
        Ok(Table {
            reader,
            overflow,
            seen_overflow: 0,
            shift: 0,
            name: name.into(),
            input,
            width: names.len(),
            id,
            rows: 0,
            chosen,
            fields,
            cap: options.max_line,
            row: ByteRecord::new(),
            header,
            delimiter,
            failed: false,
        })
    }

    /// Bytes [`Capped`] dropped before the parser's offset `passed` (a row's
    /// start, never inside a dropped line). Rows come in order, so drops
    /// behind one are folded into `shift` and forgotten.
    fn dropped_before(&mut self, passed: u64) -> i64 {
        let mut drops = self.overflow.drops.borrow_mut();
        while let Some(&(at, n)) = drops.front() {
            if at >= passed {
                break;
            }
            self.shift += n;
            drops.pop_front();
        }
        self.shift
    }

    fn error(&self, line: u64, reason: String) -> RowError {
        RowError {
            hint: None,
            input: self.name.clone(),
            line,
            reason,
        }
    }

    /// A line over the cap, with what raises it.
    fn capped(&self, line: u64, reason: String) -> RowError {
        RowError {
            hint: Some(line_cap_hint()),
            ..self.error(line, reason)
        }
    }

    /// The header row, as read.
    pub(super) fn header(&self) -> &ByteRecord {
        &self.header
    }

    /// The row of the last record read, every column as read (the id's
    /// too): what a copy of the table writes.
    pub(super) fn row(&self) -> &ByteRecord {
        &self.row
    }

    /// The byte between fields.
    pub(super) fn delimiter(&self) -> u8 {
        self.delimiter
    }
}

/// The byte among the usual delimiters (other than `used`) that splits a
/// one-column `header` into the most fields, if any does.
pub fn other_delimiter(header: &str, used: u8) -> Option<u8> {
    [b',', b'|', b'\t', b';']
        .into_iter()
        .filter(|&d| d != used)
        .map(|d| (header.bytes().filter(|&b| b == d).count(), d))
        .filter(|&(n, _)| n > 0)
        .max_by_key(|&(n, _)| n)
        .map(|(_, d)| d)
}

/// A delimiter as `--delimiter` takes it (`\t` for a tab).
pub fn show_delimiter(delimiter: u8) -> String {
    match delimiter {
        b'\t' => "\\t".into(),
        d => char::from(d).to_string(),
    }
}

impl Table<io::BufReader<std::fs::File>> {
    /// Goes to the row starting at byte `offset` of the input (a record's
    /// [`Origin::offset`]): the next record is the one there now.
    pub(super) fn seek(&mut self, offset: u64) -> io::Result<()> {
        let mut at = csv::Position::new();
        at.set_byte(offset);
        self.reader
            .seek_raw(io::SeekFrom::Start(offset), at)
            .map_err(io::Error::other)?;
        self.shift = 0;
        self.failed = false;
        Ok(())
    }
}

impl<R: BufRead> Source for Table<R> {
    fn fields(&self) -> &[String] {
        &self.fields
    }

    fn found_at_offsets(&self) -> bool {
        // A row read alone at its offset does not know its number.
        self.id.is_some()
    }

    fn next_record(&mut self) -> Option<Result<Record, RowError>> {
        if self.failed {
            return None;
        }
        let more = self.reader.read_byte_record(&mut self.row);
        let position = self.row.position().cloned();
        let line = position.as_ref().map_or(0, csv::Position::line);
        let offset = position.as_ref().map_or(0, csv::Position::byte);
        let offset = offset.saturating_add_signed(self.dropped_before(offset));
        match more {
            Ok(false) => {
                // A last line over the cap whose head the parser took as
                // whole rows (ended by lone CRs) and whose rest was dropped
                // left no row to report it on: it is reported here, or
                // the rest would vanish without a word.
                if self.overflow.lines.get() > self.seen_overflow {
                    // The first line not yet reported, counted by newlines:
                    // the parser's count is past it, and lone CRs it took
                    // for row ends are not lines.
                    let line = self
                        .overflow
                        .starts
                        .borrow()
                        .get(self.seen_overflow as usize)
                        .copied();
                    let line = line.unwrap_or_else(|| self.reader.position().line());
                    self.seen_overflow = self.overflow.lines.get();
                    let longest = self.overflow.longest.get();
                    return Some(Err(self.capped(line, too_long(longest, self.cap))));
                }
                return None;
            }
            Ok(true) => {}
            Err(err) => {
                // The crate's errors on this path are I/O (UTF-8 is checked
                // below): the input cannot go on.
                self.failed = true;
                let line = err.position().map_or(line, csv::Position::line);
                return Some(Err(RowError {
                    hint: stopped_at_cap(&err).then(line_cap_hint),
                    ..self.error(line, format!("cannot read: {err}"))
                }));
            }
        }
        if self.overflow.lines.get() > self.seen_overflow {
            self.seen_overflow = self.overflow.lines.get();
            let longest = self.overflow.longest.get();
            return Some(Err(self.capped(line, too_long(longest, self.cap))));
        }
        if self.row.len() == 1 && self.row[0].is_empty() {
            // A blank line.
            return self.next_record();
        }
        self.rows += 1;
        if self.row.len() != self.width {
            let reason = format!(
                "{} fields where the header has {} (a ragged row)",
                self.row.len(),
                self.width
            );
            return Some(Err(self.error(line, reason)));
        }
        let text = |i: usize| {
            std::str::from_utf8(&self.row[i])
                .map(str::to_owned)
                .map_err(|err| self.error(line, format!("field {}: {}", i + 1, not_utf8(err))))
        };
        let id = match self.id.map(text) {
            Some(Ok(id)) => id.trim().to_owned(),
            Some(Err(err)) => return Some(Err(err)),
            None => self.rows.to_string(),
        };
        if id.is_empty() {
            return Some(Err(self.error(line, "missing id (empty id column)".into())));
        }
        let mut fields = Vec::with_capacity(self.chosen.len());
        for &i in &self.chosen {
            match text(i) {
                Ok(field) => fields.push(field),
                Err(err) => return Some(Err(err)),
            }
        }
        Some(Ok(Record {
            id,
            fields,
            origin: Origin {
                input: self.input,
                line,
                offset,
            },
        }))
    }
}

/// The capped reader's stop at a line over the cap, as the I/O error the CSV
/// parser passes on: its reason is [`too_long`]'s, and the place that turns
/// the parser's error into a row's adds what raises the cap.
#[derive(Debug)]
struct CapStop(String);

impl std::fmt::Display for CapStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CapStop {}

/// Whether the parser's error is the capped reader's stop ([`CapStop`]).
fn stopped_at_cap(err: &csv::Error) -> bool {
    match err.kind() {
        csv::ErrorKind::Io(io) => io.get_ref().is_some_and(|inner| inner.is::<CapStop>()),
        _ => false,
    }
}
