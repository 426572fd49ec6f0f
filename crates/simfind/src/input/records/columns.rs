//! Which columns of a table (a CSV header, a Parquet schema) are a record's
//! id and text: one rule for every table format, so that a CSV file and the
//! same rows as Parquet are read alike.

use super::{Hint, RecordOptions};

/// Why a table's columns cannot be chosen: the reason, and the hint naming
/// the setting that gets past it. The table's reader adds where (the input
/// and its line).
pub(super) type Refusal = (String, Hint);

/// The column called `wanted` among `names`, read from `place` ("the
/// header", "its schema"); refused naming `setting`, which chooses another.
pub(super) fn column<S: AsRef<str>>(
    names: &[S],
    wanted: &str,
    setting: &'static str,
    place: &str,
) -> Result<usize, Refusal> {
    names
        .iter()
        .position(|n| n.as_ref() == wanted)
        .ok_or_else(|| {
            (
                format!("no column '{wanted}' in {place} ({})", listed(names)),
                Hint::new("; name one with {}", setting),
            )
        })
}

/// The id column: the one `options` names; none when `id` was not named and
/// is absent (the rows are then numbered: what a spreadsheet export without
/// keys has, and the number finds the row again). Refused when a named
/// column is absent, or when one differs from `id` only in case: taken for
/// absent, it would be compared as text.
pub(super) fn id_column<S: AsRef<str>>(
    names: &[S],
    options: &RecordOptions,
    place: &str,
) -> Result<Option<usize>, Refusal> {
    if let Some(id) = names.iter().position(|n| n.as_ref() == options.id_column) {
        return Ok(Some(id));
    }
    let listed = listed(names);
    if options.id_column_given {
        return Err((
            format!("no column '{}' in {place} ({listed})", options.id_column),
            Hint::new(
                "; name another with {}, or leave it out to number the rows 1, 2, …",
                "id_column",
            ),
        ));
    }
    match names.iter().find(|n| n.as_ref().eq_ignore_ascii_case("id")) {
        Some(near) => Err((
            format!("no column 'id' in {place} ({listed})"),
            Hint::new(
                format!("; name it with {{}} {}", near.as_ref()),
                "id_column",
            ),
        )),
        None => Ok(None),
    }
}

fn listed<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(",")
}
