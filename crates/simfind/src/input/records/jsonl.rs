//! JSON Lines: one JSON object per line; the id and the text fields are found
//! at dotted paths (`meta.id`), the object parsed by serde_json one line at a
//! time (lines are capped by [`super::Lines`]).

use serde_json::Value;

use super::{
    Hint, Line, Lines, Origin, Record, RecordOptions, RowError, Source, line_cap_hint, not_utf8,
    too_long,
};

pub(super) struct Jsonl {
    lines: Lines,
    parser: Parser,
    /// Lines that are not blank, read so far: a numbered record's id.
    rows: u64,
}

/// What makes a record of one line: where its id and text fields are.
pub(super) struct Parser {
    name: String,
    input: u32,
    id: Vec<String>,
    texts: Vec<Vec<String>>,
    fields: Vec<String>,
    cap: usize,
    /// Whether the ids are the records' numbers: `Some(false)` when the id
    /// field was named, else decided by the first object (`None` until
    /// then): numbered when it has no id field.
    numbered: std::cell::Cell<Option<bool>>,
}

impl Jsonl {
    pub(super) fn new(lines: Lines, name: &str, input: u32, options: &RecordOptions) -> Self {
        Jsonl {
            lines,
            parser: Parser::new(name, input, options),
            rows: 0,
        }
    }
}

impl Parser {
    /// A parser of single lines, with no input of its own (what
    /// [`super::Reread`] parses a line read again at its offset with).
    pub(super) fn new(name: &str, input: u32, options: &RecordOptions) -> Self {
        let path = |p: &str| p.split('.').map(str::to_owned).collect();
        Parser {
            name: name.into(),
            input,
            id: path(&options.id_field),
            texts: options.text_fields.iter().map(|p| path(p)).collect(),
            fields: options.text_fields.clone(),
            cap: options.max_line,
            numbered: std::cell::Cell::new(options.id_field_given.then_some(false)),
        }
    }

    /// The same parser for lines whose ids are never numbers (a stream's, or
    /// an input read again, which is read so only when it had its ids).
    pub(super) fn with_ids(self) -> Self {
        self.numbered.set(Some(false));
        self
    }

    fn error(&self, line: u64, reason: String) -> RowError {
        RowError {
            hint: None,
            input: self.name.clone(),
            line,
            reason,
        }
    }
}

/// The value at `path` in `value`, object key by object key.
fn at<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter()
        .try_fold(value, |v, key| v.as_object()?.get(key))
}

impl Source for Jsonl {
    fn fields(&self) -> &[String] {
        &self.parser.fields
    }

    fn found_at_offsets(&self) -> bool {
        // A line read alone at its offset does not know its number.
        self.parser.numbered.get() != Some(true)
    }

    fn next_record(&mut self) -> Option<Result<Record, RowError>> {
        loop {
            let (number, offset, parsed) = match self.lines.next_line()? {
                Err(err) => {
                    let line = self.lines.number + 1;
                    return Some(Err(self.parser.error(line, format!("cannot read: {err}"))));
                }
                Ok(Line {
                    number,
                    offset,
                    bytes,
                }) => {
                    if bytes.is_ok_and(|bytes| bytes.iter().all(u8::is_ascii_whitespace)) {
                        continue;
                    }
                    (number, offset, bytes)
                }
            };
            self.rows += 1;
            let parsed = self.parser.parse(parsed, number, offset);
            return Some(match parsed {
                Ok(mut record) if self.parser.numbered.get() == Some(true) => {
                    record.id = self.rows.to_string();
                    Ok(record)
                }
                other => other,
            });
        }
    }
}

impl Parser {
    /// The record of one line that is not blank (its bytes, or its length
    /// when it was over the cap).
    pub(super) fn parse(
        &self,
        bytes: Result<&[u8], u64>,
        number: u64,
        offset: u64,
    ) -> Result<Record, RowError> {
        let parsed = match bytes {
            Err(length) => {
                return Err(RowError {
                    hint: Some(line_cap_hint()),
                    ..self.error(number, too_long(length, self.cap))
                });
            }
            // A UTF-8 byte-order mark before the first line is skipped, as
            // the CSV reader does (review N1.24: it was "not JSON" at column 1).
            // (The first line is the one at offset 0, also when read again.)
            Ok(bytes) => match std::str::from_utf8(match offset {
                0 => bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes),
                _ => bytes,
            }) {
                Err(err) => Err(not_utf8(err)),
                Ok(text) => {
                    serde_json::from_str::<Value>(text).map_err(|err| format!("not JSON: {err}"))
                }
            },
        };
        match parsed {
            Ok(value) => self.record(&value, number, offset),
            Err(reason) => Err(self.error(number, reason)),
        }
    }

    fn record(&self, value: &Value, number: u64, offset: u64) -> Result<Record, RowError> {
        if !value.is_object() {
            return Err(self.error(number, "not a JSON object".into()));
        }
        let id_path = self.id.join(".");
        if self.numbered.get().is_none() {
            self.numbered.set(Some(at(value, &self.id).is_none()));
        }
        if self.numbered.get() == Some(true) {
            // The reader gives the number; the id field is not looked at.
            return self.texts_of(value, number, offset, String::new());
        }
        let id = match at(value, &self.id) {
            None | Some(Value::Null) => {
                return Err(RowError {
                    hint: Some(Hint::new(" (name it with {})", "id_field")),
                    ..self.error(number, format!("missing id field '{id_path}'"))
                });
            }
            Some(Value::String(s)) => s.clone(),
            // A number id that is not a 64-bit integer is held as a float:
            // beyond 2^64 two ids would round to one and be called
            // duplicates (review N1.23), and `-0` or `1e2` would be written
            // in another form. Refused, naming the way out.
            Some(Value::Number(n)) if n.is_f64() => {
                return Err(self.error(
                    number,
                    format!(
                        "id field '{id_path}' is a number that is not a 64-bit integer \
                         ({n}, not kept exactly); write the id as a JSON string"
                    ),
                ));
            }
            Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
            Some(_) => {
                return Err(self.error(
                    number,
                    format!("id field '{id_path}' is not a string or a number"),
                ));
            }
        };
        if id.is_empty() {
            return Err(self.error(number, format!("empty id in field '{id_path}'")));
        }
        self.texts_of(value, number, offset, id)
    }

    /// The record of `value` under `id`: its text fields.
    fn texts_of(
        &self,
        value: &Value,
        number: u64,
        offset: u64,
        id: String,
    ) -> Result<Record, RowError> {
        let mut fields = Vec::with_capacity(self.texts.len());
        for (path, name) in self.texts.iter().zip(&self.fields) {
            match at(value, path) {
                None => {
                    return Err(RowError {
                        hint: Some(Hint::new(" (name it with {})", "text_fields")),
                        ..self.error(number, format!("missing text field '{name}'"))
                    });
                }
                Some(Value::Null) => fields.push(String::new()),
                Some(Value::String(s)) => fields.push(s.clone()),
                Some(v @ (Value::Number(_) | Value::Bool(_))) => fields.push(v.to_string()),
                Some(_) => {
                    return Err(self.error(
                        number,
                        format!("text field '{name}' is not a string (an array or an object)"),
                    ));
                }
            }
        }
        Ok(Record {
            id,
            fields,
            origin: Origin {
                input: self.input,
                line: number,
                offset,
            },
        })
    }
}
