//! The checks that every file of one exchange agrees with the others: one
//! kind of input signed one way, one recipe, one run per shard, and the same
//! inputs in the same order in every shard.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::super::write::KEY_RUN;
use super::super::{ExchangeError, FAMILY_PREFIX, KEY_KIND};
use super::{ExchangeDoc, Opened};
use crate::params::Params;

/// Every shard read the same inputs in the same order: one source per input
/// index and one index per source.
pub(super) fn check_inputs(dir: &Path, docs: &[ExchangeDoc]) -> Result<(), ExchangeError> {
    let mut by_input: HashMap<u32, &[u8]> = HashMap::new();
    let mut by_source: HashMap<&[u8], u32> = HashMap::new();
    for doc in docs {
        let o = doc.origin.as_ref().expect("record docs have origins");
        let a = *by_input.entry(o.input).or_insert(&o.source);
        let b = *by_source.entry(&o.source).or_insert(o.input);
        if a != o.source.as_slice() || b != o.input {
            return Err(ExchangeError::Format {
                path: dir.join("docs"),
                reason: format!(
                    "input {} is {} in one shard and {} in another: sign every shard \
                     with the same inputs in the same order",
                    o.input + 1,
                    String::from_utf8_lossy(a),
                    String::from_utf8_lossy(&o.source)
                ),
            });
        }
    }
    Ok(())
}

/// One kind of input and one recipe for every file, and one run for each
/// shard's files.
#[derive(Default)]
pub(super) struct Checker {
    pub(super) first: Option<(PathBuf, Params)>,
    /// What the first file signed ([`signed_from`]).
    kind: String,
    runs: HashMap<std::ffi::OsString, String>,
}

/// What a file's documents are and how they were signed, in words: files,
/// records (whole or per field), or a vector family with its parameters.
/// Files of one exchange must all say the same.
pub(crate) fn signed_from(metadata: &HashMap<String, String>) -> String {
    let get = |key: &str| metadata.get(key).map_or("", String::as_str);
    let records = |name: &str| get(&format!("{}{name}", super::super::RECORDS_PREFIX));
    let family = |name: &str| get(&format!("{FAMILY_PREFIX}{name}"));
    match get(KEY_KIND) {
        "path" => "files signed by MinHash".to_string(),
        "record" if records("per_field").is_empty() => {
            format!("{} records signed whole", records("kind"))
        }
        "record" => format!(
            "{} records signed per field (fields {}, weights {}, candidate fields {})",
            records("kind"),
            records("per_field"),
            records("weights"),
            records("candidate_fields")
        ),
        "vector" => {
            let query = match family("metric") {
                "cosine" => format!("cosine ≥ {}", family("min_cosine")),
                "euclidean" => format!(
                    "L2 distance ≤ {}, buckets of {}",
                    family("radius"),
                    family("bucket_width")
                ),
                _ => format!("within {} bits", family("radius")),
            };
            let (what, unit) = if family("metric") == "hamming" {
                ("bit strings", "bits")
            } else {
                ("vectors", "components")
            };
            format!(
                "{what} of {} {unit} signed by {} ({query})",
                family("width"),
                family("sketch"),
            )
        }
        other => format!("documents keyed by {other:?}"),
    }
}

impl Checker {
    pub(super) fn check(&mut self, opened: &Opened, table: &str) -> Result<(), ExchangeError> {
        let params = opened.simfind_table(table)?;
        let kind = signed_from(&opened.metadata);
        if let Some((first_path, _)) = &self.first
            && kind != self.kind
        {
            return Err(opened.format_error(format!(
                "{kind} here, but {} in {}: every shard of one exchange is signed from \
                 one kind of input with the same options; sign them again alike",
                self.kind,
                first_path.display()
            )));
        }
        self.kind = kind;
        match &self.first {
            None => self.first = Some((opened.path.clone(), params)),
            Some((first_path, first_params)) => {
                let differences = first_params.differences(&params);
                if !differences.is_empty() {
                    return Err(ExchangeError::Recipe {
                        path: opened.path.clone(),
                        first: first_path.clone(),
                        differences,
                    });
                }
            }
        }
        let run = opened.metadata.get(KEY_RUN).cloned().unwrap_or_default();
        let name = opened.path.file_name().unwrap_or_default().to_owned();
        match self.runs.get(&name) {
            Some(r) if *r != run => Err(opened.format_error(
                "written by another run than the shard's other files (a run that \
                 stopped half-way, or files copied from two runs): sign the shard again",
            )),
            Some(_) => Ok(()),
            None => {
                self.runs.insert(name, run);
                Ok(())
            }
        }
    }
}
