//! Sets: `id<TAB>token token …` per line (tokens split at spaces and tabs),
//! or with `--pairs` `id<TAB>token` per line, grouped by id in the order ids
//! first appear. A token is a whole string: never shingled, never split at
//! punctuation (`item-42` is one element).
//!
//! Weighted (`scan --sketch icws`): a token is `token:weight` (the weight
//! after its last colon; a token without one weighs 1), or with `--pairs`
//! `id<TAB>token<TAB>weight`. A weight is a finite number > 0; a token met
//! again in a set adds its weight, so `a a b` is the bag {a: 2, b: 1}. A
//! record's fields are then `token<TAB>weight`, each token once, in the order
//! first met ([`weighted_token`] reads one back).

use std::collections::HashMap;

use super::{
    Line, Lines, Origin, Record, RecordOptions, RowError, Source, line_cap_hint, not_utf8, too_long,
};

/// Sets parsed one line at a time, as they come: the items of a stream
/// of sets (`query --input sets --add-if-new`), which has no file to read
/// ahead. A line is the record it would be in a file of `--input sets`
/// without `--pairs` or weights; as for JSON Lines, ids are not checked
/// for being unique (a later set of an id replaces the earlier).
pub struct SetsLines {
    name: String,
    cap: usize,
}

impl SetsLines {
    /// Lines of the input called `name` in messages, capped as `options`
    /// say.
    pub fn new(name: &str, options: &RecordOptions) -> Self {
        SetsLines {
            name: name.to_owned(),
            cap: options.max_line,
        }
    }

    /// The set of line `number` (1-based): its bytes without the line
    /// end, or `Err(length)` for a line past the cap.
    pub fn parse(&self, line: Result<&[u8], u64>, number: u64) -> Result<Record, RowError> {
        let error = |reason: String| RowError {
            hint: None,
            input: self.name.clone(),
            line: number,
            reason,
        };
        let bytes = match line {
            Ok(bytes) => bytes,
            Err(length) => {
                return Err(RowError {
                    hint: Some(line_cap_hint()),
                    ..error(too_long(length, self.cap))
                });
            }
        };
        let text = std::str::from_utf8(bytes).map_err(|e| error(not_utf8(e)))?;
        let Some((id, rest)) = text.split_once('\t') else {
            return Err(error(
                "no TAB after the id (each line is id<TAB>tokens)".into(),
            ));
        };
        let id = id.trim();
        if id.is_empty() {
            return Err(error("missing id (empty before the TAB)".into()));
        }
        Ok(Record {
            id: id.to_owned(),
            fields: rest.split_ascii_whitespace().map(str::to_owned).collect(),
            origin: Origin {
                input: 0,
                line: number,
                offset: 0,
            },
        })
    }
}

pub(super) struct Sets {
    lines: Lines,
    name: String,
    input: u32,
    pairs: bool,
    weighted: bool,
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
            weighted: options.weighted,
            cap: options.max_line,
            fields: vec!["tokens".into()],
            grouped: None,
            bad: Vec::new().into_iter(),
        }
    }

    fn error(&self, line: u64, reason: String) -> RowError {
        RowError {
            hint: None,
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
                        Err(length) => {
                            return Some(Err(RowError {
                                hint: Some(line_cap_hint()),
                                ..self.error(number, too_long(length, self.cap))
                            }));
                        }
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
            let token = if self.weighted {
                let (token, weight) = match token.split_once('\t') {
                    Some((token, weight)) => (token.trim(), Some(weight.trim())),
                    None => (token, None),
                };
                match weighed(token, weight) {
                    Ok(weight) => format!("{token}\t{weight}"),
                    Err(why) => {
                        bad.push(self.error(origin.line, why.to_string()));
                        continue;
                    }
                }
            } else {
                token.to_owned()
            };
            let token = token.as_str();
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
        if self.weighted {
            for record in &mut records {
                record.fields = merged(std::mem::take(&mut record.fields));
            }
        }
        (records, bad)
    }
}

/// Why a `token<TAB>weight` field has no weight.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BadWeight<'a> {
    /// A weight with no token before it.
    NoToken { weight: &'a str },
    /// A weight that is not a finite number > 0.
    NotPositive { token: &'a str, weight: &'a str },
}

impl std::fmt::Display for BadWeight<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadWeight::NoToken { weight } => {
                write!(f, "empty token before the weight '{weight}'")
            }
            BadWeight::NotPositive { token, weight } => {
                write!(
                    f,
                    "weight '{weight}' of token '{token}' is not a number > 0"
                )
            }
        }
    }
}

/// A token's weight: 1 when none is given, else the number given, which
/// must be finite and > 0.
fn weighed<'a>(token: &'a str, weight: Option<&'a str>) -> Result<f64, BadWeight<'a>> {
    if token.is_empty() {
        return Err(BadWeight::NoToken {
            weight: weight.unwrap_or_default(),
        });
    }
    let Some(text) = weight else { return Ok(1.0) };
    match text.parse::<f64>() {
        Ok(w) if w.is_finite() && w > 0.0 => Ok(w),
        _ => Err(BadWeight::NotPositive {
            token,
            weight: text,
        }),
    }
}

/// `token<TAB>weight` fields with each token once, its weights summed in
/// the order met, tokens in the order first met.
fn merged(fields: Vec<String>) -> Vec<String> {
    let mut order: Vec<(String, f64)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for field in fields {
        let Some((token, weight)) = weighted_token(&field) else {
            continue;
        };
        match at.get(token) {
            Some(&i) => order[i].1 += weight,
            None => {
                at.insert(token.to_owned(), order.len());
                order.push((token.to_owned(), weight));
            }
        }
    }
    order
        .into_iter()
        .map(|(token, weight)| format!("{token}\t{weight}"))
        .collect()
}

/// A weighted record's field as `(token, weight)`; `None` for a field that
/// has no weight (one not read with [`super::RecordOptions::weighted`]).
pub fn weighted_token(field: &str) -> Option<(&str, f64)> {
    let (token, weight) = field.rsplit_once('\t')?;
    weight.parse().ok().map(|w| (token, w))
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
        if self.weighted {
            return Some(row.and_then(|(id, rest, origin)| {
                let mut fields = Vec::new();
                for token in rest.split_ascii_whitespace() {
                    let (token, weight) = match token.rsplit_once(':') {
                        Some((token, weight)) => (token, Some(weight)),
                        None => (token, None),
                    };
                    let weight = weighed(token, weight)
                        .map_err(|why| self.error(origin.line, why.to_string()))?;
                    fields.push(format!("{token}\t{weight}"));
                }
                Ok(Record {
                    id,
                    fields: merged(fields),
                    origin,
                })
            }));
        }
        Some(row.map(|(id, rest, origin)| Record {
            id,
            fields: rest.split_ascii_whitespace().map(str::to_owned).collect(),
            origin,
        }))
    }
}
