//! Files of vectors and bit strings (`scan --input vectors|bits`, `compare
//! --input`): one point per line, `id,x1,…,xd` or `id,bits`.
//!
//! Format: CSV (RFC 4180 quoting) or, when the first line holds a tab, TSV;
//! blank lines are skipped; a leading UTF-8 byte-order mark is skipped; a
//! first line whose values are not numbers (for bit strings: a value with
//! no digit at all) is a header. Vectors: every row has the same number of
//! components, finite decimal numbers of any sign (as `f32`: NaN, infinity
//! and values beyond ±3.4 × 10³⁸ are refused). Bit strings: `0`/`1`
//! characters, or hexadecimal after `0x` (4 bits a digit), all of one length.
//! Ids are unique, non-empty UTF-8.
//!
//! A bad row is an error naming its line; with `skip_bad` it is reported to
//! the caller's callback and left out instead. A line longer than the cap
//! (the records' `--max-line-length`) is a bad row, read past, not held. Memory: `n × d × 4` bytes for
//! vectors, `n × ⌈bits/64⌉ × 8` for bit strings, plus the ids.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};

use super::records::{DEFAULT_MAX_LINE, Hint, Lines, line_cap_hint, too_long};

mod ahead;
#[cfg(test)]
use ahead::plain_number;
use ahead::{BATCH_BYTES, BATCH_LINES, Batch, parse_ahead};

/// Vectors of one dimension, row-major.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vectors {
    pub ids: Vec<String>,
    /// The line (from 1) of each point in its input.
    pub lines: Vec<u64>,
    pub dim: usize,
    pub values: Vec<f32>,
}

impl Vectors {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn row(&self, i: usize) -> &[f32] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }
}

/// Bit strings of one length, packed (see [`crate::similarity::vectors`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BitStrings {
    pub ids: Vec<String>,
    /// The line (from 1) of each string in its input.
    pub lines: Vec<u64>,
    /// Bits per string.
    pub bits: usize,
    pub words: Vec<u64>,
}

impl BitStrings {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn words_per_string(&self) -> usize {
        self.bits.div_ceil(64)
    }

    pub fn row(&self, i: usize) -> &[u64] {
        let w = self.words_per_string();
        &self.words[i * w..(i + 1) * w]
    }
}

/// One bad row: its line (from 1) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowError {
    pub line: u64,
    pub reason: String,
    /// What would get past it, if a setting would (the records' [`Hint`]).
    pub hint: Option<Hint>,
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)?;
        match &self.hint {
            Some(hint) => write!(f, "{hint}"),
            None => Ok(()),
        }
    }
}

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    Row(RowError),
    /// No row (after a header and skipped rows).
    Empty,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Row(e) => write!(f, "{e}"),
            ReadError::Empty => f.write_str("no rows"),
        }
    }
}

impl std::error::Error for ReadError {}

/// Parses one vector per row; lines are capped at the records' default
/// ([`DEFAULT_MAX_LINE`]).
pub fn read_vectors(
    input: impl Read,
    skip_bad: bool,
    on_skip: &mut dyn FnMut(RowError),
) -> Result<Vectors, ReadError> {
    read_vectors_capped(input, DEFAULT_MAX_LINE, skip_bad, on_skip)
}

/// Parses one vector per row; a line longer than `max_line` bytes is a bad
/// row, read past without being held.
pub fn read_vectors_capped(
    input: impl Read,
    max_line: usize,
    skip_bad: bool,
    on_skip: &mut dyn FnMut(RowError),
) -> Result<Vectors, ReadError> {
    let mut sink = VectorSink::default();
    read_rows(input, max_line, skip_bad, on_skip, &mut sink)?;
    if sink.out.is_empty() {
        return Err(ReadError::Empty);
    }
    Ok(sink.out)
}

/// Parses one bit string per row; lines are capped at the records' default
/// ([`DEFAULT_MAX_LINE`]).
pub fn read_bits(
    input: impl Read,
    skip_bad: bool,
    on_skip: &mut dyn FnMut(RowError),
) -> Result<BitStrings, ReadError> {
    read_bits_capped(input, DEFAULT_MAX_LINE, skip_bad, on_skip)
}

/// Parses one bit string per row; a line longer than `max_line` bytes is a
/// bad row, read past without being held.
pub fn read_bits_capped(
    input: impl Read,
    max_line: usize,
    skip_bad: bool,
    on_skip: &mut dyn FnMut(RowError),
) -> Result<BitStrings, ReadError> {
    let mut sink = BitSink::default();
    read_rows(input, max_line, skip_bad, on_skip, &mut sink)?;
    if sink.out.is_empty() {
        return Err(ReadError::Empty);
    }
    Ok(sink.out)
}

/// What the row loop hands each row to.
trait RowSink {
    /// Checks a row's values (its fields; whether it is the first row) and
    /// keeps them aside for [`RowSink::keep`].
    fn parse(&mut self, fields: &[String], first: bool) -> Row;
    /// Stores the values just parsed under `id`, read on `line`.
    fn keep(&mut self, id: String, line: u64);
    /// Whether rows of the common form are parsed ahead, in parallel, by
    /// [`parse_ahead`] (vectors); the others go through [`RowSink::parse`].
    fn parses_ahead(&self) -> bool {
        false
    }
    /// A row parsed ahead: checks its `values` against the rows before, as
    /// [`RowSink::parse`] would have.
    fn check_ahead(&mut self, _values: &[f32]) -> Row {
        Row::Bad("no row is parsed ahead here".into())
    }
    /// Stores a row parsed ahead under `id`, read on `line`.
    fn keep_ahead(&mut self, _id: String, _line: u64, _values: &[f32]) {}
}

#[derive(Default)]
struct VectorSink {
    out: Vectors,
    scratch: Vec<f32>,
}

impl RowSink for VectorSink {
    fn parse(&mut self, fields: &[String], first: bool) -> Row {
        self.scratch.clear();
        if fields.len() < 2 {
            return Row::Bad("no components after the id".into());
        }
        for (k, field) in fields[1..].iter().enumerate() {
            match parse_number(field) {
                Ok(x) => self.scratch.push(x),
                // A header names its columns: none of them is a number.
                Err(_) if first && fields[1..].iter().all(|f| parse_number(f).is_err()) => {
                    return Row::Header;
                }
                Err(why) => return Row::Bad(format!("component {}: {why}", k + 1)),
            }
        }
        self.check_dim(self.scratch.len())
    }

    fn keep(&mut self, id: String, line: u64) {
        self.out.dim = self.scratch.len();
        self.out.ids.push(id);
        self.out.lines.push(line);
        self.out.values.extend_from_slice(&self.scratch);
    }

    fn parses_ahead(&self) -> bool {
        true
    }

    fn check_ahead(&mut self, values: &[f32]) -> Row {
        self.check_dim(values.len())
    }

    fn keep_ahead(&mut self, id: String, line: u64, values: &[f32]) {
        self.out.dim = values.len();
        self.out.ids.push(id);
        self.out.lines.push(line);
        self.out.values.extend_from_slice(values);
    }
}

impl VectorSink {
    /// A row of `len` components after the rows before.
    fn check_dim(&self, len: usize) -> Row {
        if !self.out.is_empty() && len != self.out.dim {
            return Row::Bad(format!(
                "{len} components where the rows before have {}",
                self.out.dim
            ));
        }
        Row::Good
    }
}

#[derive(Default)]
struct BitSink {
    out: BitStrings,
    scratch: Vec<u64>,
    len: usize,
}

impl RowSink for BitSink {
    fn parse(&mut self, fields: &[String], first: bool) -> Row {
        if fields.len() != 2 {
            return Row::Bad(format!("{} fields: a row is `id,bits`", fields.len()));
        }
        match parse_bits(&fields[1], &mut self.scratch) {
            Ok(n) => self.len = n,
            // A header names its column; a value with a digit in it (of any
            // script) is a bit string written wrong, an error like on any
            // other line (review N1.41: `a,0101x101` was dropped silently).
            Err(_) if first && !fields[1].chars().any(char::is_numeric) => return Row::Header,
            Err(why) => return Row::Bad(why.to_string()),
        }
        if !self.out.is_empty() && self.len != self.out.bits {
            return Row::Bad(format!(
                "{} bits where the rows before have {}",
                self.len, self.out.bits
            ));
        }
        Row::Good
    }

    fn keep(&mut self, id: String, line: u64) {
        self.out.bits = self.len;
        self.out.ids.push(id);
        self.out.lines.push(line);
        self.out.words.extend_from_slice(&self.scratch);
    }
}

/// Points of one kind read from several inputs and joined in input order
/// ([`concat()`]).
pub trait Points: Sized {
    fn ids(&self) -> &[String];
    fn lines(&self) -> &[u64];
    /// Components of a vector, or bits of a string.
    fn width(&self) -> usize;
    /// Appends the rows of `other` whose index `keep` accepts (same width).
    fn append(&mut self, other: &Self, keep: &dyn Fn(usize) -> bool);
}

impl Points for Vectors {
    fn ids(&self) -> &[String] {
        &self.ids
    }
    fn lines(&self) -> &[u64] {
        &self.lines
    }
    fn width(&self) -> usize {
        self.dim
    }
    fn append(&mut self, other: &Self, keep: &dyn Fn(usize) -> bool) {
        self.dim = other.dim;
        for i in (0..other.len()).filter(|&i| keep(i)) {
            self.ids.push(other.ids[i].clone());
            self.lines.push(other.lines[i]);
            self.values.extend_from_slice(other.row(i));
        }
    }
}

impl Points for BitStrings {
    fn ids(&self) -> &[String] {
        &self.ids
    }
    fn lines(&self) -> &[u64] {
        &self.lines
    }
    fn width(&self) -> usize {
        self.bits
    }
    fn append(&mut self, other: &Self, keep: &dyn Fn(usize) -> bool) {
        self.bits = other.bits;
        for i in (0..other.len()).filter(|&i| keep(i)) {
            self.ids.push(other.ids[i].clone());
            self.lines.push(other.lines[i]);
            self.words.extend_from_slice(other.row(i));
        }
    }
}

/// Why several inputs cannot be joined; inputs are named by their index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConcatError {
    /// Input `input` has points of `width` where input 0's have `expected`.
    Width {
        input: usize,
        width: usize,
        expected: usize,
    },
    /// The id at `(input, line)` is also at `(first_input, first_line)`.
    Duplicate {
        id: String,
        first_input: usize,
        first_line: u64,
        input: usize,
        line: u64,
    },
}

/// Joins points read from several inputs, in input order, and the index of
/// each input's first point (`starts[k]`; a last entry is the total). Ids
/// must be unique across inputs unless `unique` is false; with `skip_bad`, a
/// repeated id is handed to `on_skip` (a [`ConcatError::Duplicate`]) and left
/// out instead of being an error.
pub fn concat<P: Points + Default>(
    inputs: Vec<P>,
    unique: bool,
    skip_bad: bool,
    on_skip: &mut dyn FnMut(ConcatError),
) -> Result<(P, Vec<u32>), ConcatError> {
    let mut out = P::default();
    let mut starts = Vec::with_capacity(inputs.len() + 1);
    let mut seen: HashMap<String, (usize, u64)> = HashMap::new();
    for (k, points) in inputs.into_iter().enumerate() {
        if k > 0 && points.width() != out.width() {
            return Err(ConcatError::Width {
                input: k,
                width: points.width(),
                expected: out.width(),
            });
        }
        starts.push(out.ids().len() as u32);
        let mut keep = vec![true; points.ids().len()];
        if unique {
            for (i, id) in points.ids().iter().enumerate() {
                let line = points.lines()[i];
                match seen.get(id) {
                    Some(&(first_input, first_line)) => {
                        let repeated = ConcatError::Duplicate {
                            id: id.clone(),
                            first_input,
                            first_line,
                            input: k,
                            line,
                        };
                        if !skip_bad {
                            return Err(repeated);
                        }
                        on_skip(repeated);
                        keep[i] = false;
                    }
                    None => {
                        seen.insert(id.clone(), (k, line));
                    }
                }
            }
        }
        if k == 0 && keep.iter().all(|&k| k) {
            // The first input whole: moved, not copied row by row.
            out = points;
        } else {
            out.append(&points, &|i| keep[i]);
        }
    }
    starts.push(out.ids().len() as u32);
    Ok((out, starts))
}

/// Why a field is not a component or a bit string; the text quotes the
/// field (trimmed) or the character at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldError {
    NotANumber(String),
    /// Infinite, NaN or beyond `f32`'s range.
    NotFinite(String),
    /// `0x` and nothing after it.
    NoHexDigits,
    NotAHexDigit(char),
    NoBits,
    NotABit(char),
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldError::NotANumber(text) => write!(f, "{text:?} is not a number"),
            FieldError::NotFinite(text) => {
                write!(f, "{text:?} is not a finite number (or is beyond ±3.4e38)")
            }
            FieldError::NoHexDigits => f.write_str("\"0x\" without hexadecimal digits"),
            FieldError::NotAHexDigit(c) => write!(f, "{c:?} is not a hexadecimal digit"),
            FieldError::NoBits => f.write_str("an empty bit string"),
            FieldError::NotABit(c) => {
                write!(f, "{c:?} is not a bit (0 or 1; hexadecimal needs 0x)")
            }
        }
    }
}

impl std::error::Error for FieldError {}

/// A finite `f32` from a decimal field (surrounding spaces allowed).
pub fn parse_number(field: &str) -> Result<f32, FieldError> {
    let text = field.trim();
    let x: f32 = text
        .parse()
        .map_err(|_| FieldError::NotANumber(text.to_string()))?;
    if !x.is_finite() {
        return Err(FieldError::NotFinite(text.to_string()));
    }
    Ok(x)
}

/// Packs `0101…` or `0x…` into `words`; returns the number of bits.
pub fn parse_bits(field: &str, words: &mut Vec<u64>) -> Result<usize, FieldError> {
    let text = field.trim();
    words.clear();
    let mut set = |i: usize, on: bool| {
        if i / 64 == words.len() {
            words.push(0);
        }
        if on {
            words[i / 64] |= 1 << (i % 64);
        }
    };
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if hex.is_empty() {
            return Err(FieldError::NoHexDigits);
        }
        for (k, c) in hex.chars().enumerate() {
            let digit = c.to_digit(16).ok_or(FieldError::NotAHexDigit(c))?;
            // Most significant bit of the digit first, as the digits are read.
            for b in 0..4 {
                set(4 * k + b, digit >> (3 - b) & 1 == 1);
            }
        }
        Ok(4 * hex.chars().count())
    } else {
        if text.is_empty() {
            return Err(FieldError::NoBits);
        }
        for (i, c) in text.chars().enumerate() {
            match c {
                '0' => set(i, false),
                '1' => set(i, true),
                _ => return Err(FieldError::NotABit(c)),
            }
        }
        Ok(text.chars().count())
    }
}

enum Row {
    Good,
    Header,
    Bad(String),
}

/// The state of the row loop between lines.
struct RowLoop<'a> {
    max_line: usize,
    skip_bad: bool,
    delimiter: u8,
    on_skip: &'a mut dyn FnMut(RowError),
    seen: HashMap<String, u64>,
    fields: Vec<String>,
    spare: Vec<String>,
    first: bool,
}

impl RowLoop<'_> {
    /// One line: its bytes (or its length, when too long) and, when it was
    /// parsed ahead, its id and values. A bad row ends the loop with its
    /// error, or, with `skip_bad`, is handed to `on_skip`.
    fn line(
        &mut self,
        sink: &mut dyn RowSink,
        line: u64,
        bytes: Result<&[u8], u64>,
        ahead: Option<(&[u8], &[f32])>,
    ) -> Result<(), ReadError> {
        let mut bytes = match bytes {
            Ok(bytes) => bytes,
            Err(length) => {
                self.first = false;
                let bad = RowError {
                    line,
                    reason: too_long(length, self.max_line),
                    hint: Some(line_cap_hint()),
                };
                return self.bad(bad);
            }
        };
        while let Some(rest) = bytes.strip_suffix(b"\r") {
            bytes = rest;
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let verdict = match ahead {
            Some((id, values)) => match sink.check_ahead(values) {
                Row::Good => Ok(Some(std::str::from_utf8(id).unwrap_or_default())),
                Row::Header => Ok(None),
                Row::Bad(why) => Err(why),
            },
            None => split_fields(bytes, self.delimiter, &mut self.fields, &mut self.spare)
                .map_err(|why| why.to_string())
                .and_then(|()| match sink.parse(&self.fields, self.first) {
                    Row::Good => Ok(Some(self.fields[0].as_str())),
                    Row::Header => Ok(None),
                    Row::Bad(why) => Err(why),
                }),
        };
        self.first = false;
        let verdict = verdict.and_then(|id| {
            let Some(id) = id else {
                return Ok(None);
            };
            let id = id.trim().to_string();
            if id.is_empty() {
                return Err("empty id".to_string());
            }
            if let Some(before) = self.seen.get(&id) {
                return Err(format!("id {id:?} is also on line {before}"));
            }
            Ok(Some(id))
        });
        match verdict {
            Ok(Some(id)) => {
                self.seen.insert(id.clone(), line);
                match ahead {
                    Some((_, values)) => sink.keep_ahead(id, line, values),
                    None => sink.keep(id, line),
                }
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(reason) => self.bad(RowError {
                line,
                reason,
                hint: None,
            }),
        }
    }

    fn bad(&mut self, bad: RowError) -> Result<(), ReadError> {
        if !self.skip_bad {
            return Err(ReadError::Row(bad));
        }
        (self.on_skip)(bad);
        Ok(())
    }
}

/// The shared row loop: delimiter, header, ids (non-empty, unique, UTF-8),
/// bad rows. Lines are counted here (a CSV reader's record numbers skip blank
/// lines), so a quoted field cannot hold a line break. A line is held only
/// up to `max_line` bytes (the records' [`Lines`]): a longer one is a bad
/// row, so a file without newlines cannot fill memory.
///
/// Lines are read in batches; when the sink parses ahead, a batch's rows of
/// the common form are parsed on every thread first ([`parse_ahead`]), and
/// then every line is taken in order, so the rows kept, the errors and
/// their order are those of one line after the other.
fn read_rows(
    input: impl Read,
    max_line: usize,
    skip_bad: bool,
    on_skip: &mut dyn FnMut(RowError),
    sink: &mut dyn RowSink,
) -> Result<(), ReadError> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    // A UTF-8 byte-order mark (spreadsheets write one) is not part of the
    // first id (review N1.38), as the CSV records reader skips it too.
    if input
        .fill_buf()
        .map_err(ReadError::Io)?
        .starts_with(b"\xEF\xBB\xBF")
    {
        input.consume(3);
    }
    let head = input.fill_buf().map_err(ReadError::Io)?;
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let delimiter = if first_line.contains(&b'\t') {
        b'\t'
    } else {
        b','
    };
    let mut rows = RowLoop {
        max_line,
        skip_bad,
        delimiter,
        on_skip,
        seen: HashMap::new(),
        fields: Vec::new(),
        spare: Vec::new(),
        first: true,
    };
    let mut lines = Lines::new(input, max_line).stopping_at_cap(!skip_bad);
    let mut batch = Batch::default();
    loop {
        batch.text.clear();
        batch.lines.clear();
        let mut failed = None;
        let mut ended = false;
        while batch.text.len() < BATCH_BYTES && batch.lines.len() < BATCH_LINES {
            match lines.next_line() {
                None => {
                    ended = true;
                    break;
                }
                Some(Err(err)) => {
                    failed = Some(err);
                    break;
                }
                Some(Ok(next)) => {
                    let span = next.bytes.map(|bytes| {
                        let start = batch.text.len();
                        batch.text.extend_from_slice(bytes);
                        start..batch.text.len()
                    });
                    batch.lines.push((next.number, span));
                }
            }
        }
        let ahead = if sink.parses_ahead() {
            parse_ahead(&batch, delimiter)
        } else {
            Vec::new()
        };
        let mut parsed = ahead
            .iter()
            .flat_map(|a| a.rows.iter().map(move |row| (a, row)));
        for (line, span) in &batch.lines {
            let row = parsed.next().and_then(|(a, row)| {
                let (id, values) = row.as_ref()?;
                Some((&batch.text[id.clone()], &a.values[values.clone()]))
            });
            let bytes = span
                .as_ref()
                .map(|s| &batch.text[s.clone()])
                .map_err(|&n| n);
            rows.line(sink, *line, bytes, row)?;
        }
        if let Some(err) = failed {
            return Err(ReadError::Io(err));
        }
        if ended {
            return Ok(());
        }
    }
}

/// Why a line does not split into fields; each names the field's 1-based
/// number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SplitError {
    NoClosingQuote(usize),
    TextAfterQuote(usize),
    NotUtf8(usize),
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitError::NoClosingQuote(n) => write!(f, "field {n} has no closing quote"),
            SplitError::TextAfterQuote(n) => write!(f, "field {n}: text after the closing quote"),
            SplitError::NotUtf8(n) => write!(f, "field {n} is not valid UTF-8"),
        }
    }
}

/// Splits `line` into `fields` (RFC 4180 quotes; `""` inside quotes is one
/// quote). The strings of the previous row are written over, not made anew:
/// a row of `d` numbers costs no allocation once the first row has been read
/// (the previous row's strings wait in `spare` to be written over).
fn split_fields(
    line: &[u8],
    delimiter: u8,
    fields: &mut Vec<String>,
    spare: &mut Vec<String>,
) -> Result<(), SplitError> {
    spare.append(fields);
    let mut quoted: Vec<u8> = Vec::new();
    let mut i = 0;
    loop {
        let number = fields.len() + 1;
        let bytes: &[u8] = if line.get(i) == Some(&b'"') {
            quoted.clear();
            i += 1;
            loop {
                match line.get(i) {
                    None => return Err(SplitError::NoClosingQuote(number)),
                    Some(b'"') if line.get(i + 1) == Some(&b'"') => {
                        quoted.push(b'"');
                        i += 2;
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(&b) => {
                        quoted.push(b);
                        i += 1;
                    }
                }
            }
            if i < line.len() && line[i] != delimiter {
                return Err(SplitError::TextAfterQuote(number));
            }
            &quoted
        } else {
            let start = i;
            while i < line.len() && line[i] != delimiter {
                i += 1;
            }
            &line[start..i]
        };
        let text = std::str::from_utf8(bytes).map_err(|_| SplitError::NotUtf8(number))?;
        let mut field = spare.pop().unwrap_or_default();
        field.clear();
        field.push_str(text);
        fields.push(field);
        if i >= line.len() {
            return Ok(());
        }
        i += 1; // the delimiter
    }
}

#[cfg(test)]
mod tests;
