//! Reading exchange files back: the `docs` and `signatures` of every shard
//! under a directory ([`read_docs`], checked against one another), and an
//! engine's candidate pairs ([`read_pairs`], checked against the docs).

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;

use crate::input::extract::guard::caught;
use crate::input::records::chunks_outside;
use parquet::arrow::arrow_reader::{
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelectionPolicy, RowSelector,
};

use super::{
    ExchangeError, FAMILY_PREFIX, FORMAT_VERSION, KEY_FORMAT, KEY_KIND, KEY_SIGNATURE_LEN,
    KEY_TABLE, params_of,
};
use crate::params::Params;
use crate::source::KeyKind;

mod check;
use check::{Checker, check_inputs};

/// One row of `docs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangeDoc {
    pub doc_id: i64,
    /// The path's bytes (or a record id).
    pub path: Vec<u8>,
    pub size: u64,
    pub modified: Option<SystemTime>,
    pub hash: u128,
    pub shingles: u64,
    /// A record source's record: where it was read.
    pub origin: Option<DocOrigin>,
}

/// Where a record of a record source was read (`docs`' last four columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocOrigin {
    /// The input file as given to `sign`.
    pub source: Vec<u8>,
    /// Its place among the inputs given.
    pub input: u32,
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
}

/// Every shard's documents and signatures, in walk order (by path bytes, as
/// a scan of the same roots numbers them).
#[derive(Debug)]
pub struct Exchange {
    pub params: Params,
    /// The key kind as stored (`path`, `record` or `vector`: see the module
    /// documentation); [`Exchange::kind`] is its typed reading. Kept as
    /// stored so that a shard of an unknown kind can be named in a message.
    pub key_kind: String,
    /// A record source's reading options (`simfind.records.*`), the same in
    /// every docs file; empty for files.
    pub record_metadata: Vec<(String, String)>,
    /// A vector family's parameters (`simfind.family.*`), the same in every
    /// file; empty for MinHash shards.
    pub family: Vec<(String, String)>,
    /// Values in a signature row: `params.n`, or `fields × n` for records
    /// signed per field (`simfind.signature_len`).
    pub signature_len: usize,
    pub docs: Vec<ExchangeDoc>,
    /// Row `i` (`signature_len` values) is `docs[i]`'s signature when
    /// `docs[i].shingles > 0`.
    pub signatures: Vec<u32>,
    /// `(doc_id, index into docs)`, sorted by doc_id.
    ids: Vec<(i64, u32)>,
}

impl Exchange {
    /// The kind of key its documents have; `None` for a kind this version
    /// does not know ([`Exchange::key_kind`] names it).
    pub fn kind(&self) -> Option<KeyKind> {
        KeyKind::parse(&self.key_kind)
    }

    /// The index into `docs` of `doc_id`.
    pub fn index_of(&self, doc_id: i64) -> Option<u32> {
        self.ids
            .binary_search_by_key(&doc_id, |&(id, _)| id)
            .ok()
            .map(|i| self.ids[i].1)
    }

    /// The share of signature positions where documents `a` and `b`
    /// (indices into `docs`) agree: what the band join's `estimate` column
    /// holds for a pair joined from these signatures. `None` when either has
    /// no signature (an empty set: no row an engine could join).
    pub fn agreement(&self, a: u32, b: u32) -> Option<f64> {
        let (a, b) = (a as usize, b as usize);
        let n = self.signature_len;
        if n == 0 || self.docs[a].shingles == 0 || self.docs[b].shingles == 0 {
            return None;
        }
        let (ra, rb) = (
            &self.signatures[a * n..][..n],
            &self.signatures[b * n..][..n],
        );
        let agree = ra.iter().zip(rb).filter(|(x, y)| x == y).count();
        Some(agree as f64 / n as f64)
    }
}

/// The Parquet files of a table directory (or the one file given), sorted by
/// name; names starting with `.` or `_` (temporary files, Spark's `_SUCCESS`)
/// are not tables.
pub(crate) fn parquet_files(
    path: &Path,
    what: &'static str,
) -> Result<Vec<PathBuf>, ExchangeError> {
    let io = |err| ExchangeError::Io {
        path: path.to_owned(),
        err,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_file() {
        return Ok(vec![path.to_owned()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".parquet") && !name.starts_with('.') && !name.starts_with('_') {
            files.push(entry.path());
        }
    }
    if files.is_empty() {
        return Err(ExchangeError::Empty {
            path: path.to_owned(),
            what,
        });
    }
    files.sort();
    Ok(files)
}

/// An open Parquet file with its key-value metadata.
struct Opened {
    path: PathBuf,
    builder: ParquetRecordBatchReaderBuilder<File>,
    metadata: HashMap<String, String>,
}

fn open(path: &Path) -> Result<Opened, ExchangeError> {
    let file = File::open(path).map_err(|err| ExchangeError::Io {
        path: path.to_owned(),
        err,
    })?;
    let length = file.metadata().map_or(u64::MAX, |m| m.len());
    let builder = caught(|| ParquetRecordBatchReaderBuilder::try_new(file))
        .map_err(|panic| panic.to_string())
        .and_then(|opened| opened.map_err(|err| err.to_string()))
        .map_err(|err| ExchangeError::Parquet {
            path: path.to_owned(),
            err,
        })?;
    check_chunks(path, &builder, length)?;
    let metadata = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .filter_map(|kv| Some((kv.key.clone(), kv.value.clone()?)))
                .collect()
        })
        .unwrap_or_default();
    Ok(Opened {
        path: path.to_owned(),
        builder,
        metadata,
    })
}

/// Every column chunk the footer names lies within the file: the parquet
/// crate asserts (panics on) a negative offset or size when it reads the
/// chunk (`ColumnChunkMetaData::byte_range`), so a damaged footer is refused
/// here, as an error naming the file.
fn check_chunks(
    path: &Path,
    builder: &ParquetRecordBatchReaderBuilder<File>,
    length: u64,
) -> Result<(), ExchangeError> {
    match chunks_outside(builder.metadata(), length) {
        None => Ok(()),
        Some(err) => Err(ExchangeError::Parquet {
            path: path.to_owned(),
            err,
        }),
    }
}

impl Opened {
    fn format_error(&self, reason: impl Into<String>) -> ExchangeError {
        ExchangeError::Format {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// Checks that this is simfind's file of `table` and returns its recipe.
    fn simfind_table(&self, table: &str) -> Result<Params, ExchangeError> {
        match self.metadata.get(KEY_FORMAT) {
            None => {
                return Err(self.format_error(
                    "not an exchange file of simfind (no simfind.format in its metadata)",
                ));
            }
            Some(v) if v != FORMAT_VERSION => {
                return Err(self.format_error(format!(
                    "exchange format {v}, this simfind reads {FORMAT_VERSION}"
                )));
            }
            Some(_) => {}
        }
        match self.metadata.get(KEY_TABLE) {
            Some(t) if t == table => {}
            other => {
                return Err(self.format_error(format!(
                    "a {} table where {table} was expected",
                    other.map_or("(unnamed)", String::as_str)
                )));
            }
        }
        params_of(|key| self.metadata.get(key).cloned())
            .map_err(|reason| self.format_error(reason.to_string()))
    }

    /// The batches, each checked to have `columns` with these types.
    fn batches(self, columns: &[(&str, DataType)]) -> Result<Vec<RecordBatch>, ExchangeError> {
        self.batches_selected(columns, None)
    }

    /// [`Opened::batches`] of the rows `selection` keeps (all without one).
    fn batches_selected(
        self,
        columns: &[(&str, DataType)],
        selection: Option<RowSelection>,
    ) -> Result<Vec<RecordBatch>, ExchangeError> {
        let schema = self.builder.schema().clone();
        for (name, ty) in columns {
            match schema.field_with_name(name) {
                Ok(field) if matches_type(field.data_type(), ty) => {}
                Ok(field) => {
                    return Err(self.format_error(format!(
                        "column {name} is {}, expected {ty}",
                        field.data_type()
                    )));
                }
                Err(_) => return Err(self.format_error(format!("no column {name}"))),
            }
        }
        let path = self.path.clone();
        let parquet = |err: &dyn std::fmt::Display| ExchangeError::Parquet {
            path: path.clone(),
            err: err.to_string(),
        };
        let builder = match selection {
            // Skipped runs are skipped, not decoded and filtered: a part keeps
            // one row in N, scattered, which the default policy would decode
            // whole as a mask.
            Some(selection) => self
                .builder
                .with_row_selection(selection)
                .with_row_selection_policy(RowSelectionPolicy::Selectors),
            None => self.builder,
        };
        let reader = builder.build().map_err(|e| parquet(&e))?;
        caught(|| reader.map(|batch| batch.map_err(|e| parquet(&e))).collect())
            .unwrap_or_else(|panic| Err(parquet(&panic)))
    }
}

/// The rows of `path` that `keep` accepts, from a first pass that decodes
/// only the `projected` columns (ids, hashes: a few bytes a row, where paths
/// and signatures are hundreds), as a selection for the full read, which
/// then decodes nothing else of the rows left out. `None` where a projected
/// column is missing or of another type: the full read names that.
fn select_rows(
    path: &Path,
    projected: &[(&str, DataType)],
    keep: &mut dyn FnMut(&RecordBatch) -> Vec<bool>,
) -> Result<Option<RowSelection>, ExchangeError> {
    let opened = open(path)?;
    let schema = opened.builder.schema().clone();
    let mut roots = Vec::with_capacity(projected.len());
    for (name, ty) in projected {
        match schema.index_of(name) {
            Ok(i) if matches_type(schema.field(i).data_type(), ty) => roots.push(i),
            _ => return Ok(None),
        }
    }
    let mask = ProjectionMask::roots(opened.builder.parquet_schema(), roots);
    let builder = opened.builder.with_projection(mask);
    let parquet = |err: &dyn std::fmt::Display| ExchangeError::Parquet {
        path: path.to_owned(),
        err: err.to_string(),
    };
    let mut selectors: Vec<RowSelector> = Vec::new();
    let mut push = |kept: bool| match selectors.last_mut() {
        Some(last) if last.skip != kept => last.row_count += 1,
        _ => selectors.push(if kept {
            RowSelector::select(1)
        } else {
            RowSelector::skip(1)
        }),
    };
    let mut reader = builder.build().map_err(|e| parquet(&e))?;
    while let Some(batch) = caught(|| reader.next()).map_err(|panic| parquet(&panic))? {
        let batch = batch.map_err(|e| parquet(&e))?;
        for kept in keep(&batch) {
            push(kept);
        }
    }
    Ok(Some(RowSelection::from(selectors)))
}

/// Types as this reader takes them: any list of int32 (whatever its item
/// field is called), any timestamp in µs (whatever its zone).
fn matches_type(actual: &DataType, expected: &DataType) -> bool {
    match (actual, expected) {
        (DataType::List(a), DataType::List(e)) => a.data_type() == e.data_type(),
        (DataType::Timestamp(a, _), DataType::Timestamp(e, _)) => a == e,
        _ => actual == expected,
    }
}

fn i64_column<'a>(batch: &'a RecordBatch, name: &str) -> &'a arrow_array::Int64Array {
    batch
        .column_by_name(name)
        .expect("checked column")
        .as_primitive::<Int64Type>()
}

/// Reads `dir/docs` and `dir/signatures` of every shard: the same shards in
/// both, each shard's files from one run, one recipe throughout, no doc_id
/// twice.
pub fn read_docs(dir: &Path) -> Result<Exchange, ExchangeError> {
    read_docs_where(dir, None)
}

/// [`read_docs`] keeping only the documents `keep` accepts (by doc_id and
/// content hash) and their signatures: one part of a verification split by
/// component. A document left out is never built (no path copied); its
/// signature is never decoded (a first pass over the signatures' ids selects
/// the rows, and the signature lists of the others are skipped).
pub fn read_docs_where(
    dir: &Path,
    keep: Option<&dyn Fn(i64, u128) -> bool>,
) -> Result<Exchange, ExchangeError> {
    let doc_files = parquet_files(&dir.join("docs"), "docs")?;
    let sig_files = parquet_files(&dir.join("signatures"), "signatures")?;
    let names = |files: &[PathBuf]| -> Vec<std::ffi::OsString> {
        files
            .iter()
            .filter_map(|f| f.file_name().map(Into::into))
            .collect()
    };
    if names(&doc_files) != names(&sig_files) {
        let missing = doc_files
            .iter()
            .find(|f| !names(&sig_files).contains(&f.file_name().unwrap_or_default().into()))
            .map(|f| {
                dir.join("signatures")
                    .join(f.file_name().unwrap_or_default())
            })
            .unwrap_or_else(|| dir.join("docs"));
        return Err(ExchangeError::Format {
            path: missing,
            reason: "docs and signatures hold different shards (a shard's file is missing)".into(),
        });
    }
    let mut checker = Checker::default();
    let mut key_kind = String::new();
    let mut record_metadata: Option<Vec<(String, String)>> = None;
    let mut family: Vec<(String, String)> = Vec::new();
    let mut signature_len: Option<usize> = None;
    let mut docs: Vec<ExchangeDoc> = Vec::new();
    for path in &doc_files {
        let opened = open(path)?;
        checker.check(&opened, "docs")?;
        key_kind = opened.metadata.get(KEY_KIND).cloned().unwrap_or_default();
        // Records and vectors say where each document was read.
        let records = KeyKind::parse(&key_kind).is_some_and(KeyKind::is_row);
        let mut these: Vec<(String, String)> = opened
            .metadata
            .iter()
            .filter(|(k, _)| k.starts_with(super::RECORDS_PREFIX))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        these.sort();
        match &record_metadata {
            None => record_metadata = Some(these),
            Some(first) if *first != these => {
                return Err(ExchangeError::ReadOptions {
                    path: opened.path.clone(),
                    first: doc_files[0].clone(),
                });
            }
            Some(_) => {}
        }
        family = opened
            .metadata
            .iter()
            .filter(|(k, _)| k.starts_with(FAMILY_PREFIX))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        family.sort();
        if signature_len.is_none() {
            let n = match opened.metadata.get(KEY_SIGNATURE_LEN) {
                None => None,
                Some(v) => Some(v.parse::<usize>().map_err(|_| {
                    opened.format_error(format!("{KEY_SIGNATURE_LEN} is not a number: {v:?}"))
                })?),
            };
            signature_len = n.or(checker.first.as_ref().map(|(_, p)| p.n as usize));
        }
        let mut columns: Vec<(String, DataType)> = [
            ("doc_id", DataType::Int64),
            ("path", DataType::Binary),
            ("size", DataType::Int64),
            (
                "mtime",
                DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None),
            ),
            ("content_hash", DataType::Binary),
            ("shingles", DataType::Int64),
        ]
        .into_iter()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
        if records {
            columns.extend(
                super::write::record_fields()
                    .into_iter()
                    .map(|f| (f.name().clone(), f.data_type().clone())),
            );
        }
        let columns: Vec<(&str, DataType)> = columns
            .iter()
            .map(|(n, t)| (n.as_ref(), t.clone()))
            .collect();
        // A part of a split verification builds its own documents only (the
        // columns are decoded whole: a first pass over ids to select rows
        // costs more than the paths it would spare, measured in SCALE-OUT.md).
        let opened_path = opened.path.clone();
        for batch in opened.batches(&columns)? {
            let ids = i64_column(&batch, "doc_id");
            let paths = batch
                .column_by_name("path")
                .expect("checked")
                .as_binary::<i32>();
            let sizes = i64_column(&batch, "size");
            let mtimes = batch
                .column_by_name("mtime")
                .expect("checked")
                .as_primitive::<TimestampMicrosecondType>();
            let hashes = batch
                .column_by_name("content_hash")
                .expect("checked")
                .as_binary::<i32>();
            let shingles = i64_column(&batch, "shingles");
            let origins = records.then(|| {
                (
                    batch
                        .column_by_name("source")
                        .expect("checked")
                        .as_binary::<i32>(),
                    batch
                        .column_by_name("input")
                        .expect("checked")
                        .as_primitive::<Int32Type>(),
                    i64_column(&batch, "line"),
                    i64_column(&batch, "offset"),
                )
            });
            for i in 0..batch.num_rows() {
                let hash: [u8; 16] =
                    hashes
                        .value(i)
                        .try_into()
                        .map_err(|_| ExchangeError::Format {
                            path: opened_path.clone(),
                            reason: format!("row {i}: content_hash is not 16 bytes"),
                        })?;
                let (doc_id, hash) = (ids.value(i), u128::from_be_bytes(hash));
                if !keep.is_none_or(|keep| keep(doc_id, hash)) {
                    continue;
                }
                docs.push(ExchangeDoc {
                    doc_id,
                    path: paths.value(i).to_vec(),
                    size: sizes.value(i).max(0) as u64,
                    modified: (!mtimes.is_null(i)).then(|| time_of(mtimes.value(i))),
                    hash,
                    shingles: shingles.value(i).max(0) as u64,
                    origin: origins.map(|(source, input, line, offset)| DocOrigin {
                        source: source.value(i).to_vec(),
                        input: input.value(i).max(0) as u32,
                        line: line.value(i).max(0) as u64,
                        offset: offset.value(i).max(0) as u64,
                    }),
                });
            }
        }
    }
    let params = checker
        .first
        .as_ref()
        .map(|(_, p)| p.clone())
        .expect("at least one docs file");
    if KeyKind::parse(&key_kind).is_some_and(KeyKind::is_row) {
        // A scan numbers records (and points) by input, then line.
        docs.sort_by_key(|d| {
            let o = d.origin.as_ref().expect("record docs have origins");
            (o.input, o.offset, d.doc_id)
        });
        check_inputs(dir, &docs)?;
    } else {
        docs.sort_by(|a, b| a.path.cmp(&b.path).then(a.doc_id.cmp(&b.doc_id)));
    }
    let mut ids: Vec<(i64, u32)> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.doc_id, i as u32))
        .collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(ExchangeError::Duplicate {
            path: dir.join("docs"),
            doc_id: w[0].0,
        });
    }

    let n = signature_len.unwrap_or(params.n as usize);
    let mut signatures = vec![u32::MAX; docs.len() * n];
    let mut signed = vec![false; docs.len()];
    let exchange_ids = ids;
    let index_of = |id: i64| {
        exchange_ids
            .binary_search_by_key(&id, |&(d, _)| d)
            .ok()
            .map(|i| exchange_ids[i].1 as usize)
    };
    for path in &sig_files {
        let opened = open(path)?;
        checker.check(&opened, "signatures")?;
        let columns = [
            ("doc_id", DataType::Int64),
            (
                "signature",
                DataType::List(std::sync::Arc::new(arrow_schema::Field::new(
                    "item",
                    DataType::Int32,
                    true,
                ))),
            ),
        ];
        // A part of a split verification decodes only its own signatures.
        let selection = match keep {
            None => None,
            Some(_) => select_rows(path, &[("doc_id", DataType::Int64)], &mut |batch| {
                let ids = i64_column(batch, "doc_id");
                (0..batch.num_rows())
                    .map(|i| index_of(ids.value(i)).is_some())
                    .collect()
            })?,
        };
        let opened_path = opened.path.clone();
        for batch in opened.batches_selected(&columns, selection)? {
            let ids = i64_column(&batch, "doc_id");
            let lists = batch
                .column_by_name("signature")
                .expect("checked")
                .as_list::<i32>();
            for i in 0..batch.num_rows() {
                let bad = |reason: String| ExchangeError::Format {
                    path: opened_path.clone(),
                    reason,
                };
                let id = ids.value(i);
                let at = match index_of(id) {
                    Some(at) => at,
                    None if keep.is_some() => continue,
                    None => {
                        return Err(bad(format!(
                            "signature of doc_id {id}, which no docs file has"
                        )));
                    }
                };
                if std::mem::replace(&mut signed[at], true) {
                    return Err(ExchangeError::Duplicate {
                        path: opened_path.clone(),
                        doc_id: id,
                    });
                }
                let values = lists.value(i);
                let values = values.as_primitive::<Int32Type>();
                if values.len() != n || values.null_count() > 0 {
                    return Err(bad(format!(
                        "doc_id {id}: signature of {} values where {n} were signed",
                        values.len()
                    )));
                }
                for (slot, v) in signatures[at * n..][..n].iter_mut().zip(values.values()) {
                    *slot = *v as u32;
                }
            }
        }
    }
    if let Some(i) = (0..docs.len()).find(|&i| docs[i].shingles > 0 && !signed[i]) {
        return Err(ExchangeError::Format {
            path: dir.join("signatures"),
            reason: format!("no signature for doc_id {}", docs[i].doc_id),
        });
    }
    Ok(Exchange {
        params,
        key_kind,
        record_metadata: record_metadata.unwrap_or_default(),
        family,
        signature_len: n,
        docs,
        signatures,
        ids: exchange_ids,
    })
}

fn time_of(micros: i64) -> SystemTime {
    if micros >= 0 {
        UNIX_EPOCH + Duration::from_micros(micros as u64)
    } else {
        UNIX_EPOCH - Duration::from_micros(micros.unsigned_abs())
    }
}

/// An engine's pairs (`a`, `b`: int64 doc_ids; other columns ignored) under
/// `path` (a directory of Parquet files, or one file), as indices into
/// `exchange.docs`. A pair naming an id no docs file has is an error.
pub fn read_pairs(path: &Path, exchange: &Exchange) -> Result<Vec<(u32, u32)>, ExchangeError> {
    read_pairs_where(path, exchange, None)
}

/// [`read_pairs`] keeping only the pairs `keep` accepts (by doc_ids); the
/// others are not looked up.
pub fn read_pairs_where(
    path: &Path,
    exchange: &Exchange,
    keep: Option<&dyn Fn(i64, i64) -> bool>,
) -> Result<Vec<(u32, u32)>, ExchangeError> {
    let mut pairs = Vec::new();
    let mut foreign = Foreign::default();
    for file in parquet_files(path, "pairs")? {
        let opened = open(&file)?;
        for batch in opened.batches(&[("a", DataType::Int64), ("b", DataType::Int64)])? {
            let a = i64_column(&batch, "a");
            let b = i64_column(&batch, "b");
            // The band join's estimate, where the engine wrote one: the
            // agreement of the two signatures it joined, which must be that
            // of the signatures given.
            let estimate = batch
                .column_by_name("estimate")
                .and_then(|c| c.as_primitive_opt::<Float64Type>());
            for i in 0..batch.num_rows() {
                let index = |id: i64| {
                    exchange.index_of(id).ok_or_else(|| ExchangeError::Unknown {
                        path: file.clone(),
                        doc_id: id,
                    })
                };
                if keep.is_none_or(|keep| keep(a.value(i), b.value(i))) {
                    let pair = (index(a.value(i))?, index(b.value(i))?);
                    let claimed = estimate.filter(|e| e.is_valid(i)).map(|e| e.value(i));
                    if claimed.is_some_and(|claimed| {
                        exchange
                            .agreement(pair.0, pair.1)
                            .is_none_or(|agreement| (agreement - claimed).abs() > 1e-9)
                    }) {
                        foreign.count += 1;
                        foreign
                            .first
                            .get_or_insert((file.clone(), a.value(i), b.value(i)));
                    }
                    pairs.push(pair);
                }
            }
        }
    }
    if let Some((file, a, b)) = foreign.first {
        return Err(ExchangeError::NotCandidates {
            path: file,
            count: foreign.count,
            total: pairs.len(),
            a,
            b,
        });
    }
    Ok(pairs)
}

/// Pairs whose estimate is not the agreement of the signatures read, and the
/// first of them.
#[derive(Default)]
struct Foreign {
    count: usize,
    first: Option<(PathBuf, i64, i64)>,
}

/// An engine's components (`doc_id`, `component`: int64; other columns
/// ignored) under `path` (a directory of Parquet files, or one file), as a
/// map from doc_id to component. A doc_id listed twice is an error.
pub fn read_components(path: &Path) -> Result<HashMap<i64, i64>, ExchangeError> {
    let mut components = HashMap::new();
    for file in parquet_files(path, "components")? {
        let opened = open(&file)?;
        let columns = [("doc_id", DataType::Int64), ("component", DataType::Int64)];
        for batch in opened.batches(&columns)? {
            let ids = i64_column(&batch, "doc_id");
            let of = i64_column(&batch, "component");
            for i in 0..batch.num_rows() {
                if components.insert(ids.value(i), of.value(i)).is_some() {
                    return Err(ExchangeError::Duplicate {
                        path: file.clone(),
                        doc_id: ids.value(i),
                    });
                }
            }
        }
    }
    Ok(components)
}
