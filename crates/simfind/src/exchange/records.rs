//! Record sources in the exchange files: `sign --input jsonl|csv|tsv|sets`
//! writes each record (whole-record mode: its fields joined, as `scan
//! --input` without `--per-field` makes one set of them) keyed by its id,
//! with its origin (input file, input number, line, byte offset) in `docs`
//! and the reading options in every file's metadata (`simfind.records.*`);
//! `verify --pairs` reads each candidate's record again at its origin,
//! checks that the id and text are the ones signed, re-builds its set and
//! scores the pair exactly as `scan --input` does.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_128;

use super::{Exchange, ExchangeError, MetadataError, RECORDS_PREFIX};
use crate::input::kind::InputKind;
use crate::input::records::{self, Record, RecordOptions};
use crate::model::{DocPairs, DocStatus, Document, SimilarPair};
use crate::pipeline::plan::{Decision, Method, Reason};
use crate::pipeline::{FieldScores, ScanOutcome, ScanStats, record_set};
use crate::progress::{Reporter, Stage, Warning};
use crate::recipe::Recipe;
use crate::similarity::sets;

/// The reading options of a record source as key-value metadata: what
/// `verify` needs to read the records again as `sign` read them.
pub fn record_metadata(options: &RecordOptions) -> Vec<(String, String)> {
    let list = |v: &[String]| serde_json::to_string(v).unwrap_or_default();
    [
        ("kind", options.kind.name().to_string()),
        ("id_field", options.id_field.clone()),
        ("text_fields", list(&options.text_fields)),
        ("id_column", options.id_column.clone()),
        ("columns", list(&options.columns)),
        ("pairs", options.pairs.to_string()),
        ("max_line", options.max_line.to_string()),
    ]
    .into_iter()
    // Written only when given, so that files signed without them keep
    // their metadata as it was.
    .chain(
        options
            .delimiter
            .map(|d| ("delimiter", char::from(d).to_string())),
    )
    .chain(options.encoding.map(|e| ("encoding", e.name().to_string())))
    .map(|(k, v)| (format!("{RECORDS_PREFIX}{k}"), v))
    .collect()
}

/// The reading options back from [`record_metadata`]'s pairs; `Err` names
/// what is missing or bad.
pub fn record_options(metadata: &[(String, String)]) -> Result<RecordOptions, MetadataError> {
    let key = |name: &str| format!("{RECORDS_PREFIX}{name}");
    let get = |name: &str| {
        let key = key(name);
        metadata
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .ok_or(MetadataError::Missing { key })
    };
    let list = |name: &str| -> Result<Vec<String>, MetadataError> {
        serde_json::from_str(&get(name)?).map_err(|e| MetadataError::NotAList {
            key: key(name),
            of: "names",
            reason: e.to_string(),
        })
    };
    let kind: InputKind = get("kind")?.parse().map_err(|e| MetadataError::Invalid {
        key: key("kind"),
        reason: format!("{e}"),
    })?;
    if !kind.is_records() {
        return Err(MetadataError::Unexpected {
            key: key("kind"),
            value: kind.to_string(),
            expected: "a record kind",
        });
    }
    let mut options = RecordOptions::new(kind);
    options.id_field = get("id_field")?;
    options.text_fields = list("text_fields")?;
    options.id_column = get("id_column")?;
    options.columns = list("columns")?;
    options.pairs = get("pairs")? == "true";
    options.max_line = get("max_line")?
        .parse()
        .map_err(|_| MetadataError::NotANumber {
            key: key("max_line"),
            value: None,
        })?;
    if let Ok(delimiter) = get("delimiter") {
        match delimiter.as_bytes() {
            [byte] => options.delimiter = Some(*byte),
            _ => {
                return Err(MetadataError::Invalid {
                    key: key("delimiter"),
                    reason: "not one byte".into(),
                });
            }
        }
    }
    if let Ok(label) = get("encoding") {
        options.encoding =
            Some(
                records::Encoding::for_label(&label).ok_or_else(|| MetadataError::Invalid {
                    key: key("encoding"),
                    reason: format!("'{label}' is not an encoding"),
                })?,
            );
    }
    Ok(options)
}

/// Records signed per field (`sign --per-field`): the fields' names (in the
/// order of their signatures), their weights (empty: equal) and the fields
/// whose bands make candidates (empty: every field), as `scan --per-field`
/// takes them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerField {
    pub names: Vec<String>,
    pub weights: Vec<f64>,
    pub candidate_fields: Vec<String>,
}

impl PerField {
    /// Whether field `f`'s bands make candidates.
    pub fn candidate(&self, f: usize) -> bool {
        self.candidate_fields.is_empty() || self.candidate_fields.contains(&self.names[f])
    }

    /// The weight of each field.
    pub fn weights(&self) -> Vec<f64> {
        if self.weights.len() == self.names.len() {
            self.weights.clone()
        } else {
            vec![1.0; self.names.len()]
        }
    }

    /// From the metadata [`per_field_metadata`] wrote; `None` for records
    /// signed whole.
    pub fn of(metadata: &[(String, String)]) -> Result<Option<PerField>, MetadataError> {
        let get = |name: &str| {
            let key = format!("{RECORDS_PREFIX}{name}");
            metadata
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.as_str())
        };
        let Some(names) = get("per_field") else {
            return Ok(None);
        };
        let not_a_list = |name: &str, of, e: serde_json::Error| MetadataError::NotAList {
            key: format!("{RECORDS_PREFIX}{name}"),
            of,
            reason: e.to_string(),
        };
        let list = |name: &str, v: Option<&str>| -> Result<Vec<String>, MetadataError> {
            serde_json::from_str(v.unwrap_or("[]")).map_err(|e| not_a_list(name, "names", e))
        };
        let per_field = PerField {
            names: list("per_field", Some(names))?,
            weights: serde_json::from_str(get("weights").unwrap_or("[]"))
                .map_err(|e| not_a_list("weights", "numbers", e))?,
            candidate_fields: list("candidate_fields", get("candidate_fields"))?,
        };
        if per_field.names.is_empty() {
            return Err(MetadataError::NoField {
                key: format!("{RECORDS_PREFIX}per_field"),
            });
        }
        Ok(Some(per_field))
    }
}

/// [`PerField`] as key-value metadata (beside [`record_metadata`]'s).
pub fn per_field_metadata(per_field: &PerField) -> Vec<(String, String)> {
    [
        ("per_field", serde_json::to_string(&per_field.names)),
        ("weights", serde_json::to_string(&per_field.weights)),
        (
            "candidate_fields",
            serde_json::to_string(&per_field.candidate_fields),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (format!("{RECORDS_PREFIX}{k}"), v.unwrap_or_default()))
    .collect()
}

/// A record's content hash: XXH3-128 of its fields, each ended by a unit
/// separator (so that fields split differently hash differently).
fn record_hash(fields: &[String]) -> u128 {
    let mut bytes = Vec::with_capacity(fields.iter().map(|f| f.len() + 1).sum());
    for f in fields {
        bytes.extend_from_slice(f.as_bytes());
        bytes.push(0x1f);
    }
    xxh3_128(&bytes)
}

/// One record signed: its content hash, distinct shingles, and signature
/// (empty for an empty set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedRecord {
    pub hash: u128,
    pub shingles: u64,
    pub signature: Vec<u32>,
}

/// Signs `records` as `scan --input KIND --method lsh` signs them (whole
/// records), in parallel; the result is in `records`' order whatever the
/// number of threads.
pub fn sign_records(records: &[Record], recipe: &Recipe, kind: InputKind) -> Vec<SignedRecord> {
    let sketcher = recipe.sketcher();
    let n = recipe.banding.signature_len();
    records
        .par_iter()
        .map(|r| {
            let set = record_set(&r.fields, recipe, kind);
            let mut signature = Vec::new();
            if !set.is_empty() {
                signature = vec![0u32; n];
                crate::sketch::Sketcher::sign_into(&sketcher, &set, &mut signature);
            }
            SignedRecord {
                hash: record_hash(&r.fields),
                shingles: set.len() as u64,
                signature,
            }
        })
        .collect()
}

/// One record signed per field: its content hash, distinct shingles over
/// its fields, the signatures of every field in field order (an empty
/// field's values are 0 and never banded), and which fields have bands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedFields {
    pub hash: u128,
    pub shingles: u64,
    pub signature: Vec<u32>,
    pub banded: Vec<bool>,
}

/// Signs `records` field by field as `scan --input KIND --per-field
/// --method lsh` does (one sketcher for every field), in parallel; in
/// `records`' order whatever the number of threads.
pub fn sign_records_per_field(
    records: &[Record],
    recipe: &Recipe,
    per_field: &PerField,
) -> Vec<SignedFields> {
    let sketcher = recipe.sketcher();
    let n = recipe.banding.signature_len();
    let fields = per_field.names.len();
    records
        .par_iter()
        .map(|r| {
            let mut signature = vec![0u32; n * fields];
            let mut banded = vec![false; fields];
            let mut shingles = 0u64;
            for (f, text) in r.fields.iter().enumerate().take(fields) {
                let set = recipe.set_of(text.as_bytes());
                if !set.is_empty() {
                    crate::sketch::Sketcher::sign_into(
                        &sketcher,
                        &set,
                        &mut signature[f * n..(f + 1) * n],
                    );
                    banded[f] = per_field.candidate(f);
                }
                shingles += set.len() as u64;
            }
            SignedFields {
                hash: record_hash(&r.fields),
                shingles,
                signature,
                banded,
            }
        })
        .collect()
}

/// Verifies an engine's candidate pairs of a record source as `scan --input
/// KIND --method lsh` verifies its own: the records numbered by input and
/// line, each candidate's record read again at its origin (an id or text
/// other than the one signed is a warning naming file and line: the file
/// changed since `sign`; its pairs are dropped and counted as errors), exact
/// Jaccard of the re-built sets, pairs ≥ `threshold` reported with the
/// signatures' estimate.
pub fn verify_records(
    exchange: Exchange,
    candidates: Vec<(u32, u32)>,
    recipe: &Recipe,
    threshold: f64,
    pairs_from: &Path,
    docs_from: &Path,
    reporter: &dyn Reporter,
) -> Result<(ScanOutcome, Option<FieldScores>), ExchangeError> {
    let bad_metadata = |reason| ExchangeError::Format {
        path: docs_from.join("docs"),
        reason,
    };
    let options =
        record_options(&exchange.record_metadata).map_err(|e| bad_metadata(e.to_string()))?;
    let per_field =
        PerField::of(&exchange.record_metadata).map_err(|e| bad_metadata(e.to_string()))?;
    let kind = options.kind;
    let Exchange {
        docs,
        signatures,
        signature_len,
        ..
    } = exchange;
    let n = recipe.banding.signature_len();
    let fields = per_field.as_ref().map_or(1, |p| p.names.len());
    let weights = per_field.as_ref().map_or(vec![1.0], PerField::weights);
    if signature_len != n * fields {
        return Err(bad_metadata(format!(
            "signatures of {signature_len} values, where {fields} field(s) of the recipe's \
             {n} were signed"
        )));
    }
    let mut stats = ScanStats {
        files: docs.len() as u64,
        ..ScanStats::default()
    };

    let mut candidates: Vec<(u32, u32)> = candidates
        .into_iter()
        .filter(|&(a, b)| a != b)
        .map(|(a, b)| (a.min(b), a.max(b)))
        .filter(|&(a, b)| docs[a as usize].shingles > 0 && docs[b as usize].shingles > 0)
        .collect();
    candidates.sort_unstable();
    candidates.dedup();

    // The records to read again, by input: offset → index into docs.
    let mut wanted: Vec<bool> = vec![false; docs.len()];
    for &(a, b) in &candidates {
        wanted[a as usize] = true;
        wanted[b as usize] = true;
    }
    let mut by_input: HashMap<u32, (PathBuf, HashMap<u64, u32>)> = HashMap::new();
    for (i, doc) in docs.iter().enumerate().filter(|(i, _)| wanted[*i]) {
        let origin = doc.origin.as_ref().expect("record docs have origins");
        by_input
            .entry(origin.input)
            .or_insert_with(|| {
                (
                    PathBuf::from(OsStr::from_bytes(&origin.source)),
                    HashMap::new(),
                )
            })
            .1
            .insert(origin.offset, i as u32);
    }
    let mut inputs: Vec<_> = by_input.into_iter().collect();
    inputs.sort_by_key(|(input, _)| *input);

    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let mut found: Vec<Option<Record>> = vec![None; docs.len()];
    for (input, (path, at)) in &inputs {
        let result = records::reread(path, *input, &options, &mut |record| {
            if let Some(&i) = at.get(&record.origin.offset) {
                found[i as usize] = Some(record);
            }
        });
        if let Err(err) = result {
            reporter.warn(
                Path::new(&err.place()),
                &format!(
                    "{}; {} of its records in candidate pairs not verified",
                    err.reason,
                    at.len()
                ),
            );
            stats.errors += at.len() as u64;
            continue;
        }
        for &i in at.values() {
            let doc = &docs[i as usize];
            let origin = doc.origin.as_ref().expect("record docs have origins");
            let place = PathBuf::from(format!("{}:{}", path.display(), origin.line));
            let id = String::from_utf8_lossy(&doc.path);
            let moved = |now: String| Warning::ChangedSinceSigned {
                now,
                id: id.to_string(),
            };
            let problem = match &found[i as usize] {
                None => Some(moved("no record starts there now".to_string())),
                Some(r) if r.id.as_bytes() != doc.path.as_slice() => {
                    Some(moved(format!("record '{}' there now", r.id)))
                }
                Some(r) if record_hash(&r.fields) != doc.hash => {
                    Some(Warning::ContentChangedSinceSigned {
                        what: format!("record '{id}' has another text"),
                    })
                }
                Some(_) => None,
            };
            if let Some(problem) = problem {
                reporter.warning(&place, &problem);
                found[i as usize] = None;
                stats.errors += 1;
            }
        }
    }
    // Each record's sets: one of the whole record, or one per field.
    let sets: Vec<Option<Vec<Vec<u64>>>> = found
        .into_par_iter()
        .map(|r| {
            r.map(|r| match &per_field {
                None => vec![record_set(&r.fields, recipe, kind)],
                Some(_) => (0..fields)
                    .map(|f| recipe.set_of(r.fields.get(f).map_or(&[][..], |t| t.as_bytes())))
                    .collect(),
            })
        })
        .collect();

    // Scored as scan_records scores: the weighted mean over the fields
    // non-empty in both records (one field of weight 1 for whole records).
    let width = n * fields;
    let scored: Vec<Option<(SimilarPair, Vec<Option<f64>>)>> = candidates
        .par_iter()
        .map(|&(a, b)| {
            reporter.advance(1);
            let (sa, sb) = (sets[a as usize].as_ref()?, sets[b as usize].as_ref()?);
            let (mut total, mut weight, mut estimated, mut shared) = (0.0, 0.0, 0.0, 0usize);
            let mut scores = Vec::with_capacity(fields);
            for f in 0..fields {
                let (fa, fb) = (&sa[f], &sb[f]);
                if fa.is_empty() || fb.is_empty() {
                    scores.push(None);
                    continue;
                }
                let (ra, rb) = (
                    &signatures[a as usize * width + f * n..][..n],
                    &signatures[b as usize * width + f * n..][..n],
                );
                let estimate = ra.iter().zip(rb).filter(|(x, y)| x == y).count() as f64 / n as f64;
                let common = sets::intersection_size(fa, fb);
                shared += common;
                let similarity = sets::ratio(common, fa.len() + fb.len() - common);
                total += weights[f] * similarity;
                estimated += weights[f] * estimate;
                weight += weights[f];
                scores.push(Some(similarity));
            }
            if weight <= 0.0 {
                return None;
            }
            let score = total / weight;
            (score >= threshold).then(|| {
                let pair = SimilarPair {
                    a,
                    b,
                    similarity: score,
                    estimate: Some(estimated / weight),
                    shared: per_field.is_none().then_some(shared),
                };
                (pair, scores)
            })
        })
        .collect();
    reporter.end(Stage::Verify);
    let scored: Vec<(SimilarPair, Vec<Option<f64>>)> = scored.into_iter().flatten().collect();
    let between: Vec<SimilarPair> = scored.iter().map(|(p, _)| *p).collect();
    let field_scores = per_field.map(|p| FieldScores {
        names: p.names,
        pairs: scored.into_iter().map(|(p, f)| ((p.a, p.b), f)).collect(),
        match_weights: false,
    });

    let documents: Vec<Document> = docs
        .iter()
        .map(|doc| Document {
            size: doc.size,
            path: PathBuf::from(OsStr::from_bytes(&doc.path)).into_boxed_path(),
            modified: None,
            shingles: u32::try_from(doc.shingles).unwrap_or(u32::MAX),
            status: DocStatus::Read,
        })
        .collect();
    stats.bytes = documents.iter().map(|d| d.size).sum();
    stats.no_shingles = documents.iter().filter(|d| d.shingles == 0).count() as u64;
    stats.unique_contents = stats.files - stats.no_shingles;
    stats.signatures = stats.unique_contents;
    stats.candidates = candidates.len() as u64;
    stats.pairs = between.len() as u64;
    let ids: Vec<u32> = (0..documents.len() as u32).collect();
    let contents = ids.iter().map(|i| (std::slice::from_ref(i), None));
    let pairs = DocPairs::new(contents, between);
    let outcome = ScanOutcome {
        documents,
        pairs,
        stats,
        decision: Decision {
            method: Method::Lsh,
            reason: Reason::BandJoin(pairs_from.to_path_buf()),
        },
    };
    Ok((outcome, field_scores))
}
