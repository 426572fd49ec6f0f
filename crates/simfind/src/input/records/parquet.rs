//! Parquet records: a table whose schema names the columns; the id column
//! and the text columns are chosen as a CSV's are, and only those columns
//! are decoded, a batch of rows at a time (never the file whole).
//!
//! Rows are numbered from 1 in file order; a record's [`Origin::line`] is its
//! row number and [`Origin::offset`] the row's index (its number less one),
//! what finds it again in the file. The schema is read as Parquet stores it,
//! not as the writer's Arrow schema said (`with_skip_arrow_metadata`), so a
//! column pandas wrote as a category or Arrow as a large or view string is a
//! plain string column here.
//!
//! A value is text when its column is a string (or binary holding UTF-8), a
//! whole number or a boolean (written as such); a null is an empty field,
//! as JSON Lines' `null` is. A column of another type (a list, a struct, a
//! float, a date) is refused when the file is opened, naming it and its type.
//! A text longer than the line cap is a row error, as a long line is.

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelectionPolicy, RowSelector,
};

use super::{Hint, Origin, Record, RecordOptions, RowError, Source, columns, line_cap_hint};
use crate::input::extract::guard::caught;

/// Rows decoded at a time: a few hundred kilobytes of text for typical
/// documents, and a bound on what one batch holds.
const BATCH_ROWS: usize = 1024;

/// The column a dataset's text is in when none is named: the name the
/// Hugging Face datasets, text-dedup and datatrove give it.
const DEFAULT_TEXT_COLUMN: &str = "text";

/// An open Parquet input and where its reading is.
pub(super) struct Table {
    reader: ParquetRecordBatchReader,
    name: String,
    input: u32,
    /// The id column's position in a batch, `None` to number the rows.
    id: Option<usize>,
    /// The text columns' positions in a batch, in the order of `fields`.
    chosen: Vec<usize>,
    fields: Vec<String>,
    cap: usize,
    batch: Option<RecordBatch>,
    /// The next row of `batch`.
    at: usize,
    /// Rows handed out so far (without `selected`, the next row's number
    /// less one).
    rows: u64,
    /// The indexes of the rows read, when only those are
    /// ([`read_rows`]): the n-th row handed out is number `selected[n] + 1`.
    selected: Option<Vec<u64>>,
    /// Reading failed: the rows end after the error.
    failed: bool,
}

/// Whether a column of this type can be an id or a text.
fn is_text_type(ty: &DataType) -> bool {
    matches!(
        ty,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::Boolean
            | DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
    )
}

/// Whether a column is a string column (what the default choice takes).
fn is_string_type(ty: &DataType) -> bool {
    matches!(
        ty,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    )
}

/// A value of a text column, borrowed from its batch where it is bytes.
enum Value<'a> {
    Text(&'a str),
    /// Binary: text once checked to be UTF-8.
    Bytes(&'a [u8]),
    /// A whole number or a boolean, written out.
    Written(String),
}

impl Value<'_> {
    /// Its bytes, known without copying (what the line cap is checked on).
    fn len(&self) -> usize {
        match self {
            Value::Text(text) => text.len(),
            Value::Bytes(bytes) => bytes.len(),
            Value::Written(text) => text.len(),
        }
    }

    /// The value as text, or why it is none (bytes that are not UTF-8).
    fn into_text(self) -> Result<String, CellError> {
        match self {
            Value::Text(text) => Ok(text.to_owned()),
            Value::Bytes(bytes) => std::str::from_utf8(bytes)
                .map(str::to_owned)
                .map_err(CellError::NotUtf8),
            Value::Written(text) => Ok(text),
        }
    }
}

/// Row `row` of `column`: `Ok(None)` for a null, `Err` for a column of a
/// type that is not text ([`is_text_type`] says which are).
fn value_at(column: &ArrayRef, row: usize) -> Result<Option<Value<'_>>, CellError> {
    if column.is_null(row) {
        return Ok(None);
    }
    Ok(Some(match column.data_type() {
        DataType::Utf8 => Value::Text(column.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Value::Text(column.as_string::<i64>().value(row)),
        DataType::Utf8View => Value::Text(column.as_string_view().value(row)),
        DataType::Binary => Value::Bytes(column.as_binary::<i32>().value(row)),
        DataType::LargeBinary => Value::Bytes(column.as_binary::<i64>().value(row)),
        DataType::BinaryView => Value::Bytes(column.as_binary_view().value(row)),
        DataType::Boolean => Value::Written(column.as_boolean().value(row).to_string()),
        DataType::Int8 => Value::Written(column.as_primitive::<Int8Type>().value(row).to_string()),
        DataType::Int16 => {
            Value::Written(column.as_primitive::<Int16Type>().value(row).to_string())
        }
        DataType::Int32 => {
            Value::Written(column.as_primitive::<Int32Type>().value(row).to_string())
        }
        DataType::Int64 => {
            Value::Written(column.as_primitive::<Int64Type>().value(row).to_string())
        }
        DataType::UInt8 => {
            Value::Written(column.as_primitive::<UInt8Type>().value(row).to_string())
        }
        DataType::UInt16 => {
            Value::Written(column.as_primitive::<UInt16Type>().value(row).to_string())
        }
        DataType::UInt32 => {
            Value::Written(column.as_primitive::<UInt32Type>().value(row).to_string())
        }
        DataType::UInt64 => {
            Value::Written(column.as_primitive::<UInt64Type>().value(row).to_string())
        }
        other => return Err(CellError::NotText(other.clone())),
    }))
}

/// Why a cell cannot be had as text.
#[derive(Debug)]
enum CellError {
    /// A column of a type [`is_text_type`] refuses (checked when the file
    /// is opened, so met only if a later row group differs).
    NotText(DataType),
    NotUtf8(std::str::Utf8Error),
}

impl std::fmt::Display for CellError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CellError::NotText(ty) => write!(f, "a column of type {ty}, not text"),
            CellError::NotUtf8(err) => f.write_str(&super::not_utf8(*err)),
        }
    }
}

/// Opens `path` as Parquet, having checked that the footer's chunks lie
/// within the file (a damaged footer would make the crate panic when a
/// chunk is read). `as_written`: the columns have the types the writer's
/// Arrow schema gave them (what a copy keeps); else the types Parquet stores
/// (what the reader takes, a dictionary as its values).
fn open_builder(
    path: &Path,
    name: &str,
    as_written: bool,
) -> Result<ParquetRecordBatchReaderBuilder<File>, RowError> {
    let error = |reason: String| RowError {
        hint: None,
        input: name.to_owned(),
        line: 0,
        reason,
    };
    let file = File::open(path).map_err(|err| error(format!("cannot open: {err}")))?;
    let length = file
        .metadata()
        .map_err(|err| error(format!("cannot open: {err}")))?
        .len();
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(!as_written);
    let builder = caught(|| ParquetRecordBatchReaderBuilder::try_new_with_options(file, options))
        .map_err(|panic| panic.to_string())
        .and_then(|opened| opened.map_err(|err| err.to_string()))
        .map_err(|err| error(format!("not a readable Parquet file: {err}")))?;
    if let Some(reason) = chunks_outside(builder.metadata(), length) {
        return Err(error(format!("not a readable Parquet file: {reason}")));
    }
    Ok(builder)
}

impl Table {
    /// Opens input number `input`, `path`, named `name` in messages, and
    /// chooses its id and text columns by `options`.
    pub(super) fn open(
        path: &Path,
        name: &str,
        input: u32,
        options: &RecordOptions,
    ) -> Result<Table, RowError> {
        Table::open_rows(path, name, input, options, None)
    }

    /// As [`Table::open`], reading only the rows at the indexes `selected`
    /// (ascending, distinct), when given.
    fn open_rows(
        path: &Path,
        name: &str,
        input: u32,
        options: &RecordOptions,
        selected: Option<Vec<u64>>,
    ) -> Result<Table, RowError> {
        let error = |reason: String| RowError {
            hint: None,
            input: name.to_owned(),
            line: 0,
            reason,
        };
        let builder = open_builder(path, name, false)?;
        let schema = builder.schema().clone();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let listed = names.join(",");
        let refused = |(reason, hint): columns::Refusal| RowError {
            hint: Some(hint),
            ..error(reason)
        };
        let find = |wanted: &str, setting: &'static str| {
            columns::column(&names, wanted, setting, "its schema").map_err(refused)
        };
        let id = columns::id_column(&names, options, "its schema").map_err(refused)?;
        let chosen: Vec<usize> = if !options.columns.is_empty() {
            options
                .columns
                .iter()
                .map(|c| find(c, "columns"))
                .collect::<Result<_, _>>()?
        } else if let Some(text) = names.iter().position(|n| *n == DEFAULT_TEXT_COLUMN) {
            vec![text]
        } else {
            (0..names.len())
                .filter(|&i| Some(i) != id && is_string_type(schema.field(i).data_type()))
                .collect()
        };
        if chosen.is_empty() {
            return Err(RowError {
                hint: Some(Hint::new("; name the text's with {}", "columns")),
                ..error(format!(
                    "no column 'text' and no other string column besides the id ({listed})"
                ))
            });
        }
        for &i in id.iter().chain(&chosen) {
            let field = schema.field(i);
            if !is_text_type(field.data_type()) {
                return Err(error(format!(
                    "column '{}' is of type {}, not text (strings, whole numbers or booleans)",
                    field.name(),
                    field.data_type()
                )));
            }
        }
        // The projection keeps the schema's order: each chosen column's
        // position in a batch is its rank among the projected ones.
        let mut projected: Vec<usize> = id.iter().chain(&chosen).copied().collect();
        projected.sort_unstable();
        projected.dedup();
        let rank = |i: usize| projected.binary_search(&i).unwrap_or(0);
        let fields = chosen.iter().map(|&i| names[i].to_owned()).collect();
        let id_at = id.map(rank);
        let chosen_at = chosen.iter().map(|&i| rank(i)).collect();
        let mask = ProjectionMask::roots(builder.parquet_schema(), projected);
        let mut builder = builder.with_projection(mask).with_batch_size(BATCH_ROWS);
        if let Some(rows) = &selected {
            // Only the rows asked for are decoded: candidates are a few
            // scattered rows of each row group.
            let total = u64::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
            builder = builder
                .with_row_selection(selection_of(rows, total))
                .with_row_selection_policy(RowSelectionPolicy::Selectors);
        }
        let reader = builder
            .build()
            .map_err(|err| error(format!("not a readable Parquet file: {err}")))?;
        Ok(Table {
            reader,
            name: name.to_owned(),
            input,
            id: id_at,
            chosen: chosen_at,
            fields,
            cap: options.max_line,
            batch: None,
            at: 0,
            rows: 0,
            selected,
            failed: false,
        })
    }

    fn error(&self, line: u64, reason: String) -> RowError {
        RowError {
            hint: None,
            input: self.name.clone(),
            line,
            reason,
        }
    }

    /// The record of row `row` of `batch`, numbered `number`.
    fn record(&self, batch: &RecordBatch, row: usize, number: u64) -> Result<Record, RowError> {
        let id = match self.id {
            None => number.to_string(),
            Some(at) => match value_at(batch.column(at), row)
                .and_then(|v| v.map(Value::into_text).transpose())
            {
                Ok(Some(id)) if !id.is_empty() => id,
                Ok(_) => return Err(self.error(number, "empty or null id".into())),
                Err(reason) => return Err(self.error(number, format!("its id is {reason}"))),
            },
        };
        let mut fields = Vec::with_capacity(self.chosen.len());
        for (&at, name) in self.chosen.iter().zip(&self.fields) {
            let value = value_at(batch.column(at), row)
                .map_err(|reason| self.error(number, format!("column '{name}' is {reason}")))?;
            let length = value.as_ref().map_or(0, Value::len);
            if length > self.cap {
                return Err(RowError {
                    hint: Some(line_cap_hint()),
                    ..self.error(
                        number,
                        format!(
                            "column '{name}' holds {length} bytes, more than the cap of {} bytes",
                            self.cap
                        ),
                    )
                });
            }
            match value.map(Value::into_text).transpose() {
                Ok(text) => fields.push(text.unwrap_or_default()),
                Err(reason) => {
                    return Err(self.error(number, format!("column '{name}' is {reason}")));
                }
            }
        }
        Ok(Record {
            id,
            fields,
            origin: Origin {
                input: self.input,
                line: number,
                offset: number - 1,
            },
        })
    }
}

impl Source for Table {
    fn fields(&self) -> &[String] {
        &self.fields
    }

    fn next_record(&mut self) -> Option<Result<Record, RowError>> {
        if self.failed {
            return None;
        }
        loop {
            if let Some(batch) = &self.batch
                && self.at < batch.num_rows()
            {
                let row = self.at;
                self.at += 1;
                let number = match &self.selected {
                    Some(rows) => rows.get(self.rows as usize).map_or(0, |r| r + 1),
                    None => self.rows + 1,
                };
                self.rows += 1;
                return Some(self.record(batch, row, number));
            }
            // A page the crate panics on is a damaged page: this input ends
            // there, as at a decoding error.
            let next = caught(|| self.reader.next()).unwrap_or_else(|panic| {
                Some(Err(parquet::errors::ParquetError::General(
                    panic.to_string(),
                )
                .into()))
            });
            match next {
                None => return None,
                Some(Ok(batch)) => {
                    self.batch = Some(batch);
                    self.at = 0;
                }
                Some(Err(err)) => {
                    self.failed = true;
                    self.batch = None;
                    return Some(Err(self.error(
                        self.rows + 1,
                        format!("cannot read this row and those after it: {err}"),
                    )));
                }
            }
        }
    }

    /// A row is found again by its index ([`read_rows`]), which gives its
    /// number too, so a numbered row's id is found with it.
    fn found_at_offsets(&self) -> bool {
        true
    }
}

/// The selection of the rows at the indexes `rows` (ascending, distinct)
/// of a file of `total` rows; indexes past its end are left out.
fn selection_of(rows: &[u64], total: u64) -> RowSelection {
    let mut selectors = Vec::new();
    let mut next = 0u64;
    for &row in rows.iter().filter(|&&r| r < total) {
        if row > next {
            selectors.push(RowSelector::skip((row - next) as usize));
        }
        selectors.push(RowSelector::select(1));
        next = row + 1;
    }
    RowSelection::from(selectors)
}

/// Reads again the rows at the indexes `rows` (ascending, distinct: records'
/// [`Origin::offset`]s) of input number `input`, `path`, as [`Table::open`]
/// read it, handing `found` each one's place in `rows` and its record now,
/// or why there is none (the file cannot be opened, or is shorter now).
pub(super) fn read_rows(
    path: &Path,
    name: &str,
    input: u32,
    options: &RecordOptions,
    rows: &[u64],
    found: &mut dyn FnMut(usize, Result<Record, RowError>),
) {
    let mut table = match Table::open_rows(path, name, input, options, Some(rows.to_vec())) {
        Ok(table) => table,
        Err(err) => {
            for k in 0..rows.len() {
                found(k, Err(err.clone()));
            }
            return;
        }
    };
    let mut k = 0;
    while k < rows.len() {
        match table.next_record() {
            Some(record) => found(k, record),
            None => break,
        }
        k += 1;
    }
    for (k, &row) in rows.iter().enumerate().skip(k) {
        found(
            k,
            Err(RowError {
                hint: None,
                input: name.to_owned(),
                line: row + 1,
                reason: "no row there now (the table is shorter)".into(),
            }),
        );
    }
}

/// Writes the rows of the Parquet file `path` (named `name`) whose number
/// `keep` holds, every column as the file has it (its Arrow schema and its
/// other key-value metadata, such as pandas' or a dataset's, carried over),
/// as one Parquet file to `out`. Returns the rows written.
pub(super) fn write_kept(
    path: &Path,
    name: &str,
    keep: &dyn Fn(u64) -> bool,
    out: &mut (dyn std::io::Write + Send),
) -> Result<u64, RowError> {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;

    let error = |reason: String| RowError {
        hint: None,
        input: name.to_owned(),
        line: 0,
        reason,
    };
    let builder = open_builder(path, name, true)?;
    let metadata: Vec<parquet::file::metadata::KeyValue> = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .filter(|kv| kv.key != "ARROW:schema")
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let schema = builder.schema().clone();
    let reader = builder
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|err| error(format!("not a readable Parquet file: {err}")))?;
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_key_value_metadata((!metadata.is_empty()).then_some(metadata))
        .build();
    let failed = |err: &dyn std::fmt::Display| error(format!("cannot write its kept rows: {err}"));
    let mut writer =
        ArrowWriter::try_new(out, schema, Some(properties)).map_err(|err| failed(&err))?;
    let (mut number, mut written) = (0u64, 0u64);
    let mut reader = reader;
    loop {
        let next = caught(|| reader.next()).unwrap_or_else(|panic| {
            Some(Err(arrow_schema::ArrowError::ParquetError(
                panic.to_string(),
            )))
        });
        let Some(batch) = next else { break };
        let batch = batch.map_err(|err| RowError {
            line: number + 1,
            ..error(format!("cannot read this row and those after it: {err}"))
        })?;
        let mask: arrow_array::BooleanArray = (0..batch.num_rows())
            .map(|_| {
                number += 1;
                Some(keep(number))
            })
            .collect();
        written += mask.true_count() as u64;
        let kept =
            arrow_select::filter::filter_record_batch(&batch, &mask).map_err(|err| failed(&err))?;
        if kept.num_rows() > 0 {
            writer.write(&kept).map_err(|err| failed(&err))?;
        }
    }
    writer.close().map_err(|err| failed(&err))?;
    Ok(written)
}

/// The first column chunk of `metadata` that does not lie within a file of
/// `length` bytes, described, or `None` when every one does. What any
/// reader of a Parquet file not written here checks before it reads.
pub(crate) fn chunks_outside(
    metadata: &parquet::file::metadata::ParquetMetaData,
    length: u64,
) -> Option<String> {
    for (g, group) in metadata.row_groups().iter().enumerate() {
        for column in group.columns() {
            let start = column
                .dictionary_page_offset()
                .unwrap_or(column.data_page_offset());
            let size = column.compressed_size();
            let inside = u64::try_from(start)
                .ok()
                .zip(u64::try_from(size).ok())
                .and_then(|(start, size)| start.checked_add(size))
                .is_some_and(|end| end <= length);
            if !inside {
                return Some(format!(
                    "damaged footer: row group {g}, column {} at offset {start}, {size} bytes, \
                     is not within the file's {length} bytes",
                    column.column_path()
                ));
            }
        }
    }
    None
}
