//! `--summary-json FILE`: the counts of the stderr summary as one versioned
//! JSON object, for scripts and cron jobs that should not parse the human
//! line. Its schema is `docs/summary.schema.json` (documented in
//! `docs/OUTPUT.md`); `"schema": "simfind-summary/1"` changes only when a
//! field is renamed, removed or changes type (new fields may be added).
//!
//! The file is written like `-o`: atomically, complete or not at all, opened
//! before any work so that an unwritable destination fails at once. `-` is
//! standard output, allowed only when the data goes elsewhere (`-o FILE`):
//! stdout is for data, and two documents on one stream would need a parser
//! that knows where one ends.
//!
//! Any subcommand can use it: flatten [`SummaryArgs`], call
//! [`SummaryJson::open`] before the work and [`SummaryJson::write`] with a
//! [`document`] at the end (scan, index and query do; dedupe can).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};
use simfind::pipeline::Method;
use simfind::pipeline::{ScanConfig, ScanOutcome, ScanStats, Verification};
use simfind::similarity::ExactIndex;

use super::Sink;
use crate::app::config::ThresholdSource;
use crate::app::ui::{StageSeconds, plural, stage_key};

/// The value of `"schema"` in every summary this version writes.
pub const SCHEMA: &str = "simfind-summary/1";

/// The flag, flattened into each subcommand that writes a summary.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SummaryArgs {
    /// Also write the summary's counts (files, skipped by reason, pairs, groups, method,
    /// bands × rows, threshold, seconds per stage) as one JSON object to FILE, atomically;
    /// schema "simfind-summary/1" (docs/summary.schema.json). `-` is stdout, when the data
    /// goes to -o FILE. Family scans (--input vectors|bits, --sketch simhash|icws) write
    /// their documents, family and parameters, candidates, pairs, method, bands × rows.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub summary_json: Option<PathBuf>,
}

/// An open `--summary-json` destination.
pub struct SummaryJson {
    sink: Sink,
}

impl SummaryJson {
    /// Opens the destination before any work; `None` without the flag.
    /// `data_on_stdout`: the command's data goes to stdout (no `-o`), so `-`
    /// is refused.
    pub fn open(args: &SummaryArgs, data_on_stdout: bool) -> Result<Option<SummaryJson>> {
        let Some(path) = args.summary_json.as_deref() else {
            return Ok(None);
        };
        if path.as_os_str() == "-" && data_on_stdout {
            bail!(
                "--summary-json - would mix the summary into the data on standard output; \
                 give -o FILE for the data, or a file for the summary"
            );
        }
        let sink = Sink::create(Some(path))
            .with_context(|| format!("cannot write --summary-json {}", path.display()))?;
        Ok(Some(SummaryJson { sink }))
    }

    /// Writes `document` (one line, then a newline) and makes the file final.
    pub fn write(mut self, document: &Value) -> Result<()> {
        serde_json::to_writer(&mut self.sink, document)?;
        self.sink.write_all(b"\n")?;
        self.sink.commit()
    }
}

/// Opens, for a command whose data goes to `output` (`None` or `-`: stdout).
pub fn open(args: &SummaryArgs, output: Option<&Path>) -> Result<Option<SummaryJson>> {
    SummaryJson::open(args, output.is_none_or(|p| p.as_os_str() == "-"))
}

/// The whole document: the fields every command has (`schema`, `command`,
/// `version`, `exit_status`) and the command's own `fields`.
pub fn document(command: &str, exit_status: i32, fields: Map<String, Value>) -> Value {
    let mut object = Map::new();
    object.insert("schema".into(), SCHEMA.into());
    object.insert("command".into(), command.into());
    object.insert("version".into(), env!("CARGO_PKG_VERSION").into());
    object.insert("exit_status".into(), exit_status.into());
    object.extend(fields);
    Value::Object(object)
}

/// Files not paired, by reason (the summary's "not paired: …").
pub fn skipped(stats: &ScanStats) -> Value {
    json!({
        "binary": stats.binary,
        "not_extracted": stats
            .unextracted
            .iter()
            .map(|(category, count)| (crate::app::speak::settings(category), *count))
            .collect::<std::collections::BTreeMap<_, _>>(),
        "too_short": stats.no_shingles,
        "special": stats.walk_skips.special,
        "symlinks": stats.walk_skips.symlinks,
        "size_limits": stats.walk_skips.size,
        "same_file": stats.walk_skips.same_file,
        "errors": stats.errors,
    })
}

/// `{"total": s, "stages": {"walk": s, …}}`: wall-clock seconds.
pub fn seconds(total: f64, stages: &StageSeconds) -> Value {
    let stages: Map<String, Value> = stages
        .iter()
        .map(|&(stage, s)| (stage_key(stage).to_string(), json!(s)))
        .collect();
    json!({ "total": total, "stages": stages })
}

/// What the exact join's index did, for the summary: only when `--exact-index`
/// was given, so that the chapter's claims (MMDS 3.9: each refinement looks
/// into fewer buckets and compares fewer pairs) can be measured; empty
/// otherwise, leaving the default summary as it was.
pub fn join_work(exact_index: Option<ExactIndex>, s: &ScanStats) -> String {
    match exact_index {
        None => String::new(),
        Some(ExactIndex::Length) => " (length filter, no index)".to_string(),
        Some(ExactIndex::PpJoin) => format!(
            " (ppjoin index: {}; probes found {})",
            plural(s.join_index_entries, "entry", "entries"),
            plural(s.join_probe_hits, "entry", "entries")
        ),
        Some(index) => format!(
            " ({} index: {}; probes looked into {} and found {})",
            index.name(),
            plural(s.join_index_entries, "entry", "entries"),
            plural(s.join_lookups, "bucket", "buckets"),
            plural(s.join_probe_hits, "entry", "entries")
        ),
    }
}

/// What a family scan (`--input vectors|bits`, `--sketch simhash|icws`) did:
/// the fields of its summary, named as a Jaccard scan names them where they
/// mean the same (`candidates`, `pairs`, `method`, `lsh`, `verification`,
/// `seconds`), and its own `family`.
pub struct FamilyRun {
    /// `vectors`, `bits`, `files` or `sets`.
    pub input: &'static str,
    /// `cosine`, `euclidean`, `hamming` or `weighted_jaccard`.
    pub metric: &'static str,
    /// `hyperplanes`, `p-stable`, `bit-sampling`, `simhash` or `icws`.
    pub sketch: &'static str,
    /// The family's own parameters (threshold or radius, width, seed …).
    pub parameters: Map<String, Value>,
    /// Points, bit strings, weighted sets or files read.
    pub documents: u64,
    /// Of those, signed (sketched); 0 when every pair was measured.
    pub signed: u64,
    /// Rows or files left out with a warning.
    pub errors: u64,
    pub candidates: u64,
    pub pairs: u64,
    /// `lsh` or `exact`, and why.
    pub method: (&'static str, &'static str),
    /// The banding used (`None`: every pair measured, no bands).
    pub banding: Option<simfind::lsh::Banding>,
    pub verification: simfind::pipeline::Verification,
}

impl FamilyRun {
    /// Writes the run's summary (schema: the `scan` family variant of
    /// `docs/summary.schema.json`).
    pub fn write(
        self,
        out: SummaryJson,
        status: i32,
        total: f64,
        stages: &StageSeconds,
    ) -> Result<()> {
        let fields = json!({
            "family": {
                "input": self.input,
                "metric": self.metric,
                "sketch": self.sketch,
                "parameters": self.parameters,
            },
            "documents": self.documents,
            "signed": self.signed,
            "errors": self.errors,
            "candidates": self.candidates,
            "pairs": self.pairs,
            "method": { "name": self.method.0, "reason": self.method.1 },
            "lsh": self.banding.map(|b| json!({
                "bands": b.bands,
                "rows": b.rows,
                "hashes": b.bands * b.rows,
            })),
            "verification": match self.verification {
                simfind::pipeline::Verification::Exact => "exact",
                simfind::pipeline::Verification::Signature => "signature",
            },
            "seconds": seconds(total, stages),
        });
        let Value::Object(fields) = fields else {
            unreachable!("json! of an object literal")
        };
        out.write(&document("scan", status, fields))
    }
}

/// `{"kind": …, "k": …}`: the shingles a scan of files used.
pub fn shingles(config: &simfind::pipeline::ScanConfig) -> Value {
    json!({
        "kind": config.recipe.shingler.kind().name(),
        "k": config.recipe.shingler.k(),
    })
}

/// The summary of a vector or bit-string run: the family's name and
/// parameters (with the seed when it banded), and what the choice and the
/// outcome counted.
pub fn family_run(
    (input, metric, sketch, mut parameters, seed): (
        &'static str,
        &'static str,
        &'static str,
        Map<String, Value>,
        u64,
    ),
    documents: u64,
    choice: &simfind::pipeline::vectors::choose::Choice,
    outcome: &simfind::pipeline::vectors::FamilyOutcome,
    verification: simfind::pipeline::Verification,
) -> FamilyRun {
    let banding = match choice.method {
        simfind::pipeline::vectors::choose::Method::Lsh { banding, .. } => {
            parameters.insert("seed".into(), seed.into());
            Some(banding)
        }
        simfind::pipeline::vectors::choose::Method::Exact => None,
    };
    FamilyRun {
        input,
        metric,
        sketch,
        parameters,
        documents,
        signed: if banding.is_some() { documents } else { 0 },
        errors: 0,
        candidates: outcome.candidates,
        pairs: outcome.pairs.len() as u64,
        method: (
            if banding.is_some() { "lsh" } else { "exact" },
            crate::app::speak::vector_reason(choice),
        ),
        banding,
        verification,
    }
}

/// The `--summary-json` fields of the scan itself (the report adds its own):
/// every count of [`summary`]'s line, by name.
pub fn scan_fields(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    (source, min_recall, missed): (ThresholdSource, f64, Option<f64>),
    important_words: Option<usize>,
) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let s = &outcome.stats;
    let banding = config.recipe.banding;
    let value = json!({
        "files": s.files,
        "bytes": s.bytes,
        "skipped": skipped(s),
        "errors": s.errors,
        "distinct_contents": s.unique_contents,
        "identical_files": s.identical_files,
        "signatures": s.signatures,
        "candidates": s.candidates,
        "ruled_out": s.ruled_out,
        "pairs": s.pairs,
        "likely_missed": missed,
        "method": {
            "name": match outcome.decision.method {
                Method::Lsh => "lsh",
                Method::Exact => "exact",
            },
            "reason": crate::app::speak::decision(&outcome.decision),
        },
        "lsh": {
            "bands": banding.bands,
            "rows": banding.rows,
            "hashes": banding.bands * banding.rows,
        },
        "shingles": {
            "kind": config.recipe.shingler.kind().name(),
            "k": config.recipe.shingler.k(),
            "important_words": important_words,
        },
        "threshold": {
            "value": config.threshold,
            "source": match source {
                ThresholdSource::Given => "given",
                ThresholdSource::Tuned => "tuned",
                ThresholdSource::SCurve => "s-curve",
                ThresholdSource::IndexShape => "index",
                ThresholdSource::TopFloor => "top-floor",
                ThresholdSource::Model => "model",
            },
            "min_recall": min_recall,
        },
        "verification": match config.verification {
            Verification::Exact => "exact",
            Verification::Signature => "signature",
        },
    });
    match value {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("json! of an object literal"),
    }
}

/// The files not compared, each paired only with byte-identical copies:
/// those that look binary, then those whose text could not be had, by
/// reason ("2 damaged docx", "3 image files"). Worded alike by `scan` and
/// `index`.
pub fn not_compared(s: &ScanStats) -> Vec<String> {
    let mut phrases = Vec::new();
    if s.binary > 0 {
        phrases.push(format!("{} binary (identical copies only)", s.binary));
    }
    for (category, count) in &s.unextracted {
        let category = crate::app::speak::settings(category);
        // Kinds of binary file are named "image file": plural by count.
        let category = match category.strip_suffix(" file") {
            Some(kind) if *count != 1 => format!("{kind} files"),
            _ => category,
        };
        phrases.push(format!("{count} {category} (identical copies only)"));
    }
    phrases
}

/// The stderr line of a file scan. `source`: where the threshold came from, `--min-recall`, and for a tuned
/// LSH scan the pairs ≥ T it likely missed.
pub fn scan_line(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    (source, min_recall, missed): (ThresholdSource, f64, Option<f64>),
    seconds: f64,
    important_words: Option<usize>,
) -> String {
    let s = &outcome.stats;
    let mut skipped = not_compared(s);
    for (count, one, many) in [
        (
            s.no_shingles,
            "shorter than one shingle",
            "shorter than one shingle",
        ),
        (s.walk_skips.special, "special file", "special files"),
        (
            s.walk_skips.symlinks,
            "symlink not followed",
            "symlinks not followed",
        ),
        (
            s.walk_skips.size,
            "outside size limits",
            "outside size limits",
        ),
        (s.walk_skips.same_file, "same file twice", "same file twice"),
        (
            s.walk_skips.hard_links,
            "hard link counted once",
            "hard links counted once",
        ),
        (s.walk_skips.hidden, "hidden", "hidden"),
        (s.walk_skips.excluded, "excluded", "excluded"),
        (
            s.walk_skips.ignored,
            "ignored by ignore files",
            "ignored by ignore files",
        ),
        (s.errors, "error", "errors"),
    ] {
        if count > 0 {
            skipped.push(plural(count, one, many));
        }
    }
    let threshold = match source {
        ThresholdSource::Given => format!("{:.3}", config.threshold),
        ThresholdSource::Tuned => format!(
            "{t:.3} ({}×{} chosen by tune: a pair at {t:.3} is found with probability ≥ {min_recall})",
            config.recipe.banding.bands,
            config.recipe.banding.rows,
            t = config.threshold,
        ),
        ThresholdSource::IndexShape => format!(
            "{:.3} ({}×{} from the index: its signatures were made with them)",
            config.threshold, config.recipe.banding.bands, config.recipe.banding.rows
        ),
        ThresholdSource::TopFloor => format!(
            "{:.3} (--top's floor: {}×{} makes a pair a candidate with probability {} there)",
            config.threshold,
            config.recipe.banding.bands,
            config.recipe.banding.rows,
            simfind::spec::TOP_FLOOR_CHANCE
        ),
        ThresholdSource::SCurve => format!(
            "{:.3} (S-curve threshold of {}×{})",
            config.threshold, config.recipe.banding.bands, config.recipe.banding.rows
        ),
        ThresholdSource::Model => format!("{:.3} (the model's default)", config.threshold),
    };
    // The join has no LSH candidates: what it counts is the pairs it verified.
    let candidates = match outcome.decision.method {
        Method::Lsh if s.ruled_out > 0 => format!(
            "{} ({} ruled out by their signatures)",
            plural(s.candidates, "candidate", "candidates"),
            s.ruled_out
        ),
        Method::Lsh => plural(s.candidates, "candidate", "candidates"),
        Method::Exact => format!(
            "{} verified by the join{}",
            plural(s.candidates, "pair", "pairs"),
            join_work(config.exact_index, s)
        ),
    };
    format!(
        "simfind: {}, {:.1} MB in {:.2} s ({:.1} MB/s); not paired: {}; {}, \
         {}; {}; {} with similarity ≥ {} ({}, {} bands × {} rows, {} verification)",
        plural(s.files, "file", "files"),
        s.bytes as f64 / 1e6,
        seconds,
        s.bytes as f64 / 1e6 / seconds.max(1e-9),
        if skipped.is_empty() {
            "none".to_string()
        } else {
            skipped.join(", ")
        },
        plural(s.unique_contents, "distinct content", "distinct contents"),
        plural(s.identical_files, "identical file", "identical files"),
        candidates,
        plural(s.pairs, "pair", "pairs"),
        threshold,
        match important_words {
            Some(n) => format!(
                "each file's {}",
                plural(n as u64, "most important word", "most important words")
            ),
            None => format!(
                "{} {}-shingles",
                config.recipe.shingler.k(),
                config.recipe.shingler.kind().name()
            ),
        },
        config.recipe.banding.bands,
        config.recipe.banding.rows,
        match config.verification {
            Verification::Exact => "exact",
            Verification::Signature => "signature",
        },
    ) + &format!(
        "; method {}",
        crate::app::speak::decision(&outcome.decision)
    ) + &match missed {
        // A sum of tiny negative rounding errors printed "~-0.0".
        Some(m) => format!(
            "; ~{:.1} pairs ≥ {:.3} likely missed (S-curve over the similarities of the pairs found)",
            if m > 0.0 { m } else { 0.0 },
            config.threshold
        ),
        None => String::new(),
    }
}
