//! Sets: `id<TAB>token token …` per line (tokens split at spaces and tabs),
//! or with `--pairs` `id<TAB>token` per line, grouped by id in the order ids
//! first appear. A token is a whole string: never shingled, never split at
//! punctuation (`item-42` is one element).

use std::collections::HashMap;

use super::{Line, Lines, Origin, Record, RecordOptions, RowError, Source, not_utf8, too_long};

pub(super) struct Sets {
    lines: Lines,
    name: String,
    input: u32,
    pairs: bool,
    cap: usize,
    fields: Vec<String>,
    /// `--pairs`: every record, read whole before the first is given out,
    /// and the bad lines met on the way (given out first).
    grouped: Option<std::vec::IntoIter<Record>>,
    bad: std::vec::IntoIter<RowError>,
}

impl Sets {
    pub(super) fn new(lines: Lines, name: &str, input: u32, options: &RecordOptions) -> Self {
        Sets {
            lines,
            name: name.into(),
            input,
            pairs: options.pairs,
            cap: options.max_line,
            fields: vec!["tokens".into()],
            grouped: None,
            bad: Vec::new().into_iter(),
        }
    }

    fn error(&self, line: u64, reason: String) -> RowError {
        RowError {
            input: self.name.clone(),
            line,
            reason,
        }
    }

    /// The next non-blank line as `(id, rest, origin)`.
    fn next_row(&mut self) -> Option<Result<(String, String, Origin), RowError>> {
        loop {
            let (number, offset, text) = match self.lines.next_line()? {
                Err(err) => {
                    let line = self.lines.number + 1;
                    return Some(Err(self.error(line, format!("cannot read: {err}"))));
                }
                Ok(Line {
                    number,
                    offset,
                    bytes,
                }) => {
                    let text = match bytes {
                        Err(length) => Err(too_long(length, self.cap)),
                        Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => continue,
                        Ok(bytes) => std::str::from_utf8(bytes)
                            .map(str::to_owned)
                            .map_err(not_utf8),
                    };
                    (number, offset, text)
                }
            };
            let origin = Origin {
                input: self.input,
                line: number,
                offset,
            };
            let text = match text {
                Ok(text) => text,
                Err(reason) => return Some(Err(self.error(number, reason))),
            };
            let Some((id, rest)) = text.split_once('\t') else {
                let what = if self.pairs {
                    "id<TAB>token"
                } else {
                    "id<TAB>tokens"
                };
                return Some(Err(self.error(
                    number,
                    format!("no TAB after the id (each line is {what})"),
                )));
            };
            let id = id.trim();
            if id.is_empty() {
                return Some(Err(
                    self.error(number, "missing id (empty before the TAB)".into())
                ));
            }
            return Some(Ok((id.to_owned(), rest.to_owned(), origin)));
        }
    }

    /// Reads every `id<TAB>token` line and groups the tokens by id; a bad
    /// line is set aside (its token belongs to no set).
    fn group(&mut self) -> (Vec<Record>, Vec<RowError>) {
        let mut records: Vec<Record> = Vec::new();
        let mut bad = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        while let Some(row) = self.next_row() {
            let (id, token, origin) = match row {
                Ok(row) => row,
                Err(err) => {
                    bad.push(err);
                    continue;
                }
            };
            let token = token.trim();
            if token.is_empty() {
                bad.push(self.error(origin.line, "missing token after the TAB".into()));
                continue;
            }
            match at.get(&id) {
                Some(&i) => records[i].fields.push(token.to_owned()),
                None => {
                    at.insert(id.clone(), records.len());
                    records.push(Record {
                        id,
                        fields: vec![token.to_owned()],
                        origin,
                    });
                }
            }
        }
        (records, bad)
    }
}

impl Source for Sets {
    fn fields(&self) -> &[String] {
        &self.fields
    }

    fn next_record(&mut self) -> Option<Result<Record, RowError>> {
        if self.pairs {
            if self.grouped.is_none() {
                let (records, bad) = self.group();
                self.grouped = Some(records.into_iter());
                self.bad = bad.into_iter();
            }
            if let Some(err) = self.bad.next() {
                return Some(Err(err));
            }
            return self.grouped.as_mut()?.next().map(Ok);
        }
        let row = self.next_row()?;
        Some(row.map(|(id, rest, origin)| Record {
            id,
            fields: rest.split_ascii_whitespace().map(str::to_owned).collect(),
            origin,
        }))
    }
}
