//! [`ShardWriter`]: one shard's `docs`, `signatures` and `bands` files, each
//! written under a temporary name in its table directory and renamed into
//! place only when complete (after an fsync), so a run killed mid-way leaves
//! at most a `.`-prefixed `.tmp` file, which no reader takes for a table.

use std::fs::File;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use arrow_array::builder::TimestampMicrosecondBuilder;
use arrow_array::builder::{BinaryBuilder, Int16Builder, Int32Builder, Int64Builder, ListBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use tempfile::NamedTempFile;

use super::{
    ExchangeError, FORMAT_VERSION, KEY_FORMAT, KEY_KIND, KEY_SHARD, KEY_SIGNATURE_LEN, KEY_TABLE,
    ROW_GROUP_ROWS, Shard, recipe_metadata,
};
use crate::lsh::{self, Banding};
use crate::params::Params;
use crate::source::KeyKind;

/// Key of the run that wrote a shard: its three files carry the same one, so
/// a reader can tell a shard's files from a mix of two runs.
pub(crate) const KEY_RUN: &str = "simfind.run";

/// One signed document, as written to the exchange files.
#[derive(Clone, Copy, Debug)]
pub struct DocRecord<'a> {
    /// The path's bytes (or a record source's id).
    pub key: &'a [u8],
    pub size: u64,
    pub modified: Option<SystemTime>,
    /// XXH3-128 of the document's bytes.
    pub hash: u128,
    /// Distinct shingles (exact).
    pub shingles: u64,
    /// The signature (b·r values), `None` for an empty set.
    pub signature: Option<&'a [u32]>,
}

/// Where a record came from (record sources only): what `verify` reads it
/// again by.
#[derive(Clone, Copy, Debug)]
pub struct RecordOrigin<'a> {
    /// The input file as given to `sign`.
    pub source: &'a [u8],
    /// Its place in the list of inputs given (the records' order is the
    /// inputs' order, then the lines').
    pub input: u32,
    /// 1-based line of the record's first byte.
    pub line: u64,
    /// Byte offset of that line.
    pub offset: u64,
}

/// The columns a record source's `docs` adds after the six of files.
pub(crate) fn record_fields() -> Vec<Field> {
    vec![
        Field::new("source", DataType::Binary, false),
        Field::new("input", DataType::Int32, false),
        Field::new("line", DataType::Int64, false),
        Field::new("offset", DataType::Int64, false),
    ]
}

/// The arrow schemas of the three tables.
pub(crate) fn docs_schema() -> Schema {
    Schema::new(vec![
        Field::new("doc_id", DataType::Int64, false),
        Field::new("path", DataType::Binary, false),
        Field::new("size", DataType::Int64, false),
        Field::new(
            "mtime",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new("content_hash", DataType::Binary, false),
        Field::new("shingles", DataType::Int64, false),
    ])
}

pub(crate) fn signatures_schema() -> Schema {
    Schema::new(vec![
        Field::new("doc_id", DataType::Int64, false),
        Field::new(
            "signature",
            DataType::List(Arc::new(Field::new("item", DataType::Int32, false))),
            false,
        ),
    ])
}

pub(crate) fn bands_schema() -> Schema {
    Schema::new(vec![
        Field::new("doc_id", DataType::Int64, false),
        Field::new("band", DataType::Int16, false),
        Field::new("key", DataType::Int64, false),
    ])
}

/// One table file being written.
struct Table {
    target: PathBuf,
    temp: NamedTempFile,
    writer: ArrowWriter<File>,
    schema: SchemaRef,
}

impl Table {
    fn create(
        dir: &Path,
        table: &'static str,
        shard: Shard,
        schema: Schema,
        metadata: &[(String, String)],
    ) -> Result<Table, ExchangeError> {
        let dir = dir.join(table);
        let io = |path: &Path| {
            let path = path.to_owned();
            move |err| ExchangeError::Io { path, err }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let target = dir.join(shard.file_name());
        // Created 0666 less the umask, as a shell redirection would: the
        // shards are read by engines that often run as another user on a
        // shared file system (tempfile's default is 0600). The rename keeps
        // the mode.
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{}.", shard.file_name()))
            .suffix(".tmp")
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(&dir)
            .map_err(io(&dir))?;
        let file = temp.as_file().try_clone().map_err(io(temp.path()))?;
        let mut kv: Vec<KeyValue> = metadata
            .iter()
            .map(|(k, v)| KeyValue::new(k.clone(), v.clone()))
            .collect();
        kv.push(KeyValue::new(KEY_TABLE.to_string(), table.to_string()));
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_key_value_metadata(Some(kv))
            .build();
        let schema = Arc::new(schema);
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props))
            .map_err(|err| parquet_error(&target, err))?;
        Ok(Table {
            target,
            temp,
            writer,
            schema,
        })
    }

    fn write(&mut self, columns: Vec<ArrayRef>) -> Result<(), ExchangeError> {
        let batch = RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|err| parquet_error(&self.target, err))?;
        self.writer
            .write(&batch)
            .map_err(|err| parquet_error(&self.target, err))
    }

    /// Finishes the file and syncs it; the rename is [`Table::publish`].
    fn close(mut self) -> Result<(PathBuf, NamedTempFile), ExchangeError> {
        self.writer
            .finish()
            .map_err(|err| parquet_error(&self.target, err))?;
        self.temp
            .as_file()
            .sync_all()
            .map_err(|err| ExchangeError::Io {
                path: self.temp.path().to_owned(),
                err,
            })?;
        Ok((self.target, self.temp))
    }
}

/// Buffered columns of the three tables, written one batch at a time.
#[derive(Default)]
struct Columns {
    doc_id: Vec<i64>,
    path: Vec<Vec<u8>>,
    size: Vec<i64>,
    mtime: Vec<Option<i64>>,
    hash: Vec<[u8; 16]>,
    shingles: Vec<i64>,
    sig_id: Vec<i64>,
    signature: Vec<i32>,
    band_id: Vec<i64>,
    band: Vec<i16>,
    key: Vec<i64>,
    source: Vec<Vec<u8>>,
    input: Vec<i32>,
    line: Vec<i64>,
    offset: Vec<i64>,
}

/// Writes one shard. Documents are numbered in the order they are added.
pub struct ShardWriter {
    shard: Shard,
    banding: Banding,
    next: u64,
    docs: Table,
    signatures: Table,
    bands: Table,
    columns: Columns,
    /// A record source: `docs` carries each record's origin.
    records: bool,
    /// Signatures per document: one, or one per field (records signed per
    /// field), each `banding.signature_len()` values.
    fields: usize,
}

impl ShardWriter {
    /// Starts the shard's three files under `dir` (created if missing).
    /// `key_kind` is [`KeyKind::Path`] for files, [`KeyKind::Record`] for a
    /// record source, [`KeyKind::Point`] for points.
    pub fn create(
        dir: &Path,
        shard: Shard,
        params: &Params,
        key_kind: KeyKind,
    ) -> Result<ShardWriter, ExchangeError> {
        ShardWriter::create_with(dir, shard, params, key_kind, &[])
    }

    /// [`ShardWriter::create`] with more key-value metadata (a record
    /// source's reading options). With a row `key_kind`, documents are
    /// added by [`ShardWriter::add_record`].
    pub fn create_with(
        dir: &Path,
        shard: Shard,
        params: &Params,
        key_kind: KeyKind,
        extra: &[(String, String)],
    ) -> Result<ShardWriter, ExchangeError> {
        ShardWriter::create_fields(dir, shard, params, key_kind, extra, 1)
    }

    /// [`ShardWriter::create_with`] for documents of `fields` signatures
    /// each (records signed per field): rows of `fields × n` values, field
    /// `f`'s band `j` written as band `f·b + j`. With key kind
    /// [`KeyKind::Record`] or [`KeyKind::Point`], documents are added by [`ShardWriter::add_record`] (or
    /// [`ShardWriter::add_record_fields`]).
    pub fn create_fields(
        dir: &Path,
        shard: Shard,
        params: &Params,
        key_kind: KeyKind,
        extra: &[(String, String)],
        fields: usize,
    ) -> Result<ShardWriter, ExchangeError> {
        let fields = fields.max(1);
        let run = format!(
            "{}-{}",
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
            std::process::id()
        );
        let mut metadata = vec![
            (KEY_FORMAT.to_string(), FORMAT_VERSION.to_string()),
            (KEY_SHARD.to_string(), shard.to_string()),
            (KEY_KIND.to_string(), key_kind.as_str().to_string()),
            (KEY_RUN.to_string(), run),
        ];
        metadata.extend(recipe_metadata(params));
        metadata.push((
            KEY_SIGNATURE_LEN.to_string(),
            (fields * params.n as usize).to_string(),
        ));
        metadata.extend(extra.iter().cloned());
        let records = key_kind.is_row();
        let mut docs_schema = docs_schema();
        if records {
            let mut fields: Vec<Field> = docs_schema
                .fields()
                .iter()
                .map(|f| f.as_ref().clone())
                .collect();
            fields.extend(record_fields());
            docs_schema = Schema::new(fields);
        }
        let banding = Banding {
            bands: params.bands as usize,
            rows: params.rows as usize,
        };
        if banding.bands * fields > i16::MAX as usize + 1 {
            return Err(ExchangeError::Format {
                path: dir.to_owned(),
                reason: format!(
                    "{} bands do not fit the int16 band column",
                    banding.bands * fields
                ),
            });
        }
        Ok(ShardWriter {
            shard,
            banding,
            next: 0,
            docs: Table::create(dir, "docs", shard, docs_schema, &metadata)?,
            signatures: Table::create(dir, "signatures", shard, signatures_schema(), &metadata)?,
            bands: Table::create(dir, "bands", shard, bands_schema(), &metadata)?,
            columns: Columns::default(),
            records,
            fields,
        })
    }

    /// Adds the next record of a record source (a writer made with key kind
    /// `record`); returns its doc_id.
    pub fn add_record(
        &mut self,
        doc: DocRecord<'_>,
        origin: RecordOrigin<'_>,
    ) -> Result<i64, ExchangeError> {
        self.add_record_fields(doc, origin, &[true])
    }

    /// [`ShardWriter::add_record`] of a record signed per field: its
    /// signature holds every field's values in field order, and only the
    /// fields `banded` names get band rows (non-empty candidate fields).
    pub fn add_record_fields(
        &mut self,
        doc: DocRecord<'_>,
        origin: RecordOrigin<'_>,
        banded: &[bool],
    ) -> Result<i64, ExchangeError> {
        debug_assert!(self.records);
        let c = &mut self.columns;
        c.source.push(origin.source.to_vec());
        c.input
            .push(i32::try_from(origin.input).unwrap_or(i32::MAX));
        c.line.push(i64::try_from(origin.line).unwrap_or(i64::MAX));
        c.offset
            .push(i64::try_from(origin.offset).unwrap_or(i64::MAX));
        self.add_banded(doc, banded)
    }

    /// Adds the next document; returns its doc_id.
    pub fn add(&mut self, doc: DocRecord<'_>) -> Result<i64, ExchangeError> {
        self.add_banded(doc, &[true])
    }

    fn add_banded(&mut self, doc: DocRecord<'_>, banded: &[bool]) -> Result<i64, ExchangeError> {
        let id = self.shard.doc_id(self.next);
        self.next += 1;
        let c = &mut self.columns;
        c.doc_id.push(id);
        c.path.push(doc.key.to_vec());
        c.size.push(i64::try_from(doc.size).unwrap_or(i64::MAX));
        c.mtime.push(doc.modified.map(micros));
        c.hash.push(doc.hash.to_be_bytes());
        c.shingles
            .push(i64::try_from(doc.shingles).unwrap_or(i64::MAX));
        if let Some(signature) = doc.signature.filter(|_| doc.shingles > 0) {
            let n = self.banding.signature_len();
            debug_assert_eq!(signature.len(), n * self.fields);
            c.sig_id.push(id);
            c.signature.extend(signature.iter().map(|&v| v as i32));
            for (f, field) in signature.chunks_exact(n).enumerate() {
                if !banded.get(f).copied().unwrap_or(false) {
                    continue;
                }
                let first = f * self.banding.bands;
                for (band, key) in lsh::band_keys(field, self.banding).enumerate() {
                    c.band_id.push(id);
                    c.band.push((first + band) as i16);
                    c.key.push(key as i64);
                }
            }
        }
        if c.doc_id.len() >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(id)
    }

    fn flush(&mut self) -> Result<(), ExchangeError> {
        let c = std::mem::take(&mut self.columns);
        if !c.doc_id.is_empty() {
            let mut path = BinaryBuilder::new();
            for p in &c.path {
                path.append_value(p);
            }
            let mut hash = BinaryBuilder::new();
            for h in &c.hash {
                hash.append_value(h);
            }
            let mut mtime = TimestampMicrosecondBuilder::with_capacity(c.mtime.len());
            mtime.extend(c.mtime.iter().copied());
            let mut columns: Vec<ArrayRef> = vec![
                Arc::new(Int64Builder::new().tap(&c.doc_id).finish()),
                Arc::new(path.finish()),
                Arc::new(Int64Builder::new().tap(&c.size).finish()),
                Arc::new(mtime.finish().with_timezone("UTC")),
                Arc::new(hash.finish()),
                Arc::new(Int64Builder::new().tap(&c.shingles).finish()),
            ];
            if self.records {
                let mut source = BinaryBuilder::new();
                for s in &c.source {
                    source.append_value(s);
                }
                columns.push(Arc::new(source.finish()));
                columns.push(Arc::new(Int32Builder::new().tap(&c.input).finish()));
                columns.push(Arc::new(Int64Builder::new().tap(&c.line).finish()));
                columns.push(Arc::new(Int64Builder::new().tap(&c.offset).finish()));
            }
            self.docs.write(columns)?;
        }
        if !c.sig_id.is_empty() {
            let n = self.banding.signature_len() * self.fields;
            let values = Int32Builder::with_capacity(c.signature.len());
            let mut list = ListBuilder::new(values).with_field(Arc::new(Field::new(
                "item",
                DataType::Int32,
                false,
            )));
            for row in c.signature.chunks_exact(n) {
                list.values().append_slice(row);
                list.append(true);
            }
            self.signatures.write(vec![
                Arc::new(Int64Builder::new().tap(&c.sig_id).finish()),
                Arc::new(list.finish()),
            ])?;
            self.bands.write(vec![
                Arc::new(Int64Builder::new().tap(&c.band_id).finish()),
                Arc::new(Int16Builder::new().tap(&c.band).finish()),
                Arc::new(Int64Builder::new().tap(&c.key).finish()),
            ])?;
        }
        Ok(())
    }

    /// Documents added so far.
    pub fn len(&self) -> u64 {
        self.next
    }

    pub fn is_empty(&self) -> bool {
        self.next == 0
    }

    /// Writes what is buffered, closes and syncs the three files, then renames
    /// them into place (bands, signatures, then docs: a shard whose docs file
    /// is there has its other two). Returns the three final paths.
    pub fn finish(mut self) -> Result<Vec<PathBuf>, ExchangeError> {
        self.flush()?;
        let closed = [
            self.bands.close()?,
            self.signatures.close()?,
            self.docs.close()?,
        ];
        let mut done = Vec::new();
        for (target, temp) in closed {
            temp.persist(&target).map_err(|err| ExchangeError::Io {
                path: target.clone(),
                err: err.error,
            })?;
            done.push(target);
        }
        if let Some(dir) = done
            .first()
            .and_then(|p| p.parent())
            .and_then(|p| p.parent())
        {
            for table in super::TABLES {
                // The renames reach the disk with the directories' entries.
                if let Ok(d) = File::open(dir.join(table)) {
                    let _ = d.sync_all();
                }
            }
        }
        Ok(done)
    }
}

fn parquet_error(path: &Path, err: impl std::fmt::Display) -> ExchangeError {
    ExchangeError::Parquet {
        path: path.to_owned(),
        err: err.to_string(),
    }
}

/// Microseconds since the Unix epoch (negative before it).
fn micros(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_micros()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_micros()).unwrap_or(i64::MAX),
    }
}

/// Appends a slice in one call (the builders' own `append_slice` borrows
/// mutably; this reads as one expression).
trait Tap<T> {
    fn tap(self, values: &[T]) -> Self;
}

impl<P: arrow_array::types::ArrowPrimitiveType> Tap<P::Native>
    for arrow_array::builder::PrimitiveBuilder<P>
{
    fn tap(mut self, values: &[P::Native]) -> Self {
        self.append_slice(values);
        self
    }
}
