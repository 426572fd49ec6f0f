//! Rows of a vectors file parsed ahead of the row loop, on every thread
//! (see [`super::read_rows`]): the common form only, the same values as
//! the row-by-row path.

use std::ops::Range;

use rayon::prelude::*;

/// Lines read ahead of parsing: their bytes end to end, and for each its
/// number and span in `text` (or its length, when it was longer than the
/// cap and not kept).
#[derive(Default)]
pub(super) struct Batch {
    pub(super) text: Vec<u8>,
    pub(super) lines: Vec<(u64, Result<Range<usize>, u64>)>,
}

/// A batch is parsed once it holds this many bytes or lines: large enough
/// that two threads share it evenly, small enough to stay in cache.
pub(super) const BATCH_BYTES: usize = 1 << 20;
pub(super) const BATCH_LINES: usize = 1 << 13;
/// Lines one parallel task parses ahead.
const AHEAD_LINES: usize = 256;

/// The rows of some consecutive lines of a [`Batch`] parsed ahead: per line,
/// the span of its id in the batch's text and of its values in `values`, or
/// `None` when the line is not of the common form.
#[derive(Default)]
pub(super) struct Ahead {
    pub(super) rows: Vec<Option<(Range<usize>, Range<usize>)>>,
    pub(super) values: Vec<f32>,
}

/// Parses every line of `batch` of the common form — no quote anywhere, an
/// id of valid UTF-8, then at least one field, each a [`plain_number`]
/// after ASCII spaces are trimmed — in parallel,
/// [`AHEAD_LINES`] lines a task, in order. Such a row's values are the ones
/// [`super::parse_number`] gives, so only what [`super::RowSink`]'s `parse` would have done
/// with them is left to do; every other line (a header, a bad row, a quoted
/// field, Unicode spaces) gets `None` and goes through it, with its message.
pub(super) fn parse_ahead(batch: &Batch, delimiter: u8) -> Vec<Ahead> {
    batch
        .lines
        .par_chunks(AHEAD_LINES)
        .map(|lines| {
            let mut ahead = Ahead {
                rows: Vec::with_capacity(lines.len()),
                values: Vec::new(),
            };
            for (_, span) in lines {
                let row = span.as_ref().ok().and_then(|span| {
                    let start = ahead.values.len();
                    let id = common_row(&batch.text[span.clone()], delimiter, &mut ahead.values);
                    if id.is_none() {
                        ahead.values.truncate(start);
                    }
                    let id = id?;
                    Some((
                        span.start + id.start..span.start + id.end,
                        start..ahead.values.len(),
                    ))
                });
                ahead.rows.push(row);
            }
            ahead
        })
        .collect()
}

/// [`parse_ahead`]'s test of one line: the span of its id, its values
/// appended to `values` (partly, when it returns `None`).
fn common_row(line: &[u8], delimiter: u8, values: &mut Vec<f32>) -> Option<Range<usize>> {
    if line.contains(&b'"') {
        return None;
    }
    let mut fields = line.split(|&b| b == delimiter);
    let id = fields.next()?;
    std::str::from_utf8(id).ok()?;
    let before = values.len();
    for field in fields {
        values.push(plain_number(field.trim_ascii())?);
    }
    (values.len() > before).then_some(0..id.len())
}

/// A finite `f32` from a plain decimal numeral — `[+-]digits[.digits][e[+-]digits]`
/// with at least one digit before the exponent, which is the whole of what
/// `f32::from_str` reads but its `inf` and `nan` — by `fast_float2`, which
/// rounds to nearest as `f32::from_str` does (the same value, bit for bit),
/// in about half the time on short fields (docs/PERFORMANCE.md, "Round 5").
/// `None` for anything else.
pub(super) fn plain_number(field: &[u8]) -> Option<f32> {
    let digits = |i: &mut usize| {
        let start = *i;
        while field.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut i = usize::from(matches!(field.first(), Some(b'+' | b'-')));
    let mut mantissa = digits(&mut i);
    if field.get(i) == Some(&b'.') {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return None;
    }
    if matches!(field.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(field.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if i != field.len() {
        return None;
    }
    let x: f32 = fast_float2::parse(field).ok()?;
    x.is_finite().then_some(x)
}
