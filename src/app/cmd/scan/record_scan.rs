//! `scan --input jsonl|csv|tsv|sets`: the records scan, beside the file
//! scan of its parent (same matching options, writers and exit status).

use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use simfind::index::{ItemKind, items};
use simfind::input::InputKind;
use simfind::input::records;
use simfind::lsh::tune;
use simfind::pipeline::{self, RecordOutcome};
use simfind::pipeline::{Method, MethodChoice};

use super::arguments::Args;
use super::finish::finish;
use crate::app::args;
use crate::app::config::{self, ThresholdSource};
use crate::app::output::summary;
use crate::app::output::{self, Sink, html};
use crate::app::report::Report;
use crate::app::speak;
use crate::app::ui::{Ui, plural, warning_prefix};

/// The default shingle size of `--input csv|tsv` (char shingles).
const RECORD_CHAR_K: usize = 2;

/// The match probability a pair must reach under `--model fellegi-sunter`
/// when `-t` is not given: the threshold Splink's tutorials predict with.
const DEFAULT_MATCH_PROBABILITY: f64 = 0.9;

/// `scan --input jsonl|csv|tsv|sets`: records read from files (or stdin)
/// instead of files walked; the same matching options and writers.
pub(super) fn run(args: Args) -> Result<i32> {
    let kind = args.input.input;
    let files_from = args.files.files_from.is_some() || args.files.files0_from.is_some();
    for (given, flag) in [
        (args.matching.isolate, "--isolate (--link pairs two inputs)"),
        (files_from, "--files-from"),
        (!args.report.reference.is_empty(), "--reference"),
        (args.report.plan.is_some(), "--plan"),
    ] {
        if given {
            bail!("{flag} does not apply to --input {kind}: records are not files");
        }
    }
    crate::app::lower::shingling(kind, &args.signing.shingles)?;
    let (options, mut record) = config::records(&args.input, &args.roots)?;
    let model = record.model.is_some();
    // With --db: the index's kind (a clash refused now, naming both) and
    // recipe, which stands for every signing option not given.
    let indexed = match &args.db {
        Some(db) => Some(indexed_items(&args, db, &record)?),
        None => None,
    };
    if model {
        if args.top.is_some() {
            bail!(
                "--top does not apply to --model fellegi-sunter: give -t, the match probability \
                 a pair must reach"
            );
        }
        if args.matching.verify == args::VerifyArg::Signature {
            bail!(
                "--verify signature does not apply to --model fellegi-sunter: the model compares \
                 the fields' values, not their signatures"
            );
        }
        if args.input.important_words.is_some() {
            bail!("--important-words does not apply to --model fellegi-sunter: it compares fields");
        }
    }
    if args.write_kept.is_some() {
        if args.roots.len() != 1 && !record.link {
            bail!(
                "--write-kept writes the kept rows of one input: give one file (or, with \
                 --link A B, the rows of B with no partner in A)"
            );
        }
        if kind == InputKind::Sets && args.input.pairs {
            bail!("--write-kept does not apply to --input sets --pairs: a set is many lines");
        }
    }
    // A table's fields are short (names, addresses): char 2-shingles unless
    // -k says otherwise (docs/RECORDS.md, the benchmark that chose it).
    let mut signing = args.signing.clone();
    crate::app::important::shingles(&args.input, &mut signing.shingles)?;
    let adopted = indexed.as_ref().and_then(|(_, recipe)| recipe.as_ref());
    if adopted.is_none()
        && matches!(kind, InputKind::Csv | InputKind::Tsv)
        && signing.shingles.k.is_none()
        && matches!(
            signing.shingles.shingle,
            None | Some(args::ShingleArg::Char)
        )
    {
        signing.shingles.k = Some(RECORD_CHAR_K);
    }
    // Records decide removals by the same rule as files; writing the kept
    // rows decides them as listing the others does.
    let mut matching = args.matching.clone();
    let mut removal = args.report.removal_run();
    removal.lists_removable |= args.write_kept.is_some();
    let removal_default = super::removal_default::removal_threshold_of(removal, &mut matching);
    // Under the model -t is a match probability: the banding and the
    // candidates' threshold are chosen without it, as when -t is not given.
    let probability = if model {
        matching.threshold.take()
    } else {
        None
    };
    let (mut config, threshold_source) = config::scan(
        &[],
        &signing,
        &matching,
        &args.files,
        args.db.is_some(),
        adopted,
    )?;
    // A record's text is decoded by the records reader: an index of records
    // stores `none` for extraction, as `index --input` makes it.
    let mut index = match (&args.db, &indexed) {
        (Some(db), Some((item, _))) => {
            config.read.extract = simfind::input::Extract::NONE;
            Some((
                db,
                config::open_index_of(db, &config, *item, args.wait)?,
                *item,
            ))
        }
        _ => None,
    };
    let mut threshold_source =
        crate::app::config::top_floor(args.top, threshold_source, &mut config);
    if let Some(fs) = &mut record.model {
        fs.candidate_threshold = config.threshold;
        fs.seed = config.recipe.seed;
        config.threshold = probability.unwrap_or(DEFAULT_MATCH_PROBABILITY);
        threshold_source = match probability {
            Some(_) => ThresholdSource::Given,
            None => ThresholdSource::Model,
        };
    }
    if removal_default && !args.verbosity.quiet && !model {
        eprintln!(
            "{}",
            super::removal_default::removal_default_note(&args.signing, "records")
        );
    }
    if !model
        && threshold_source == ThresholdSource::Given
        && let Some(warning) = tune::steep_part_warning(
            config.recipe.banding.bands,
            config.recipe.banding.rows,
            config.threshold,
        )
        && matches!(
            config.method,
            MethodChoice::Fixed(Method::Lsh) | MethodChoice::Banded
        )
    {
        eprintln!(
            "{} {}",
            warning_prefix(),
            crate::app::speak::steep_part(&warning)
        );
    }
    let mut report = Report::from_args(&args.report, &mut Vec::new())?;
    report.for_records();
    if let Some(k) = args.top {
        report.set_top(usize::try_from(k).unwrap_or(usize::MAX))?;
    }
    let summary_json = summary::open(&args.summary_json, args.output.as_deref())?;
    let mut sink = Sink::create(args.output.as_deref())?;
    // Created before any work, as -o is: a bad FILE fails first.
    let kept_file = match &args.write_kept {
        Some(path) => Some((path, Sink::create(Some(path.as_path()))?)),
        None => None,
    };
    let mut model_file = match &args.input.save_model {
        Some(path) => Some(Sink::create(Some(path.as_path()))?),
        None => None,
    };
    output::install_interrupt_handler();

    let started = Instant::now();
    let quiet = args.verbosity.quiet;
    let ui = Ui::with(args.verbosity);
    // --write-kept reads its input again (with --link, the second): stdin
    // is first copied to a file beside the kept one (removed when the run
    // ends), read from there and named `stdin` in messages as it would be.
    let again = usize::from(record.link);
    let spool = match (&kept_file, args.roots.get(again)) {
        (Some((path, _)), Some(one)) if one.as_os_str() == "-" => Some(spool_stdin(path)?),
        _ => None,
    };
    let mut roots: Vec<std::path::PathBuf> = args.roots.clone();
    if let Some(file) = &spool {
        roots[again] = file.path().to_path_buf();
    }
    let spool_name = roots[again].display().to_string();
    let named = |mut err: records::RowError| {
        if spool.is_some() && err.input == spool_name {
            err.input = "stdin".into();
        }
        err
    };
    let mut records = records::read_inputs(&roots, &options, &mut |err| {
        let err = named(err.clone());
        simfind::progress::Reporter::warn(
            &ui,
            std::path::Path::new(&err.place()),
            &speak::row_reason(&err),
        )
    })
    .map_err(|err| speak::row_failure(named(err)))?;
    let normalization = config.recipe.normalization;
    crate::app::important::apply(&mut records, args.input.important_words, normalization);
    config::check_record_fields(&record, &records.fields)?;
    let fields_used = records.fields.join(",");
    // Each document's input and first line (documents are the records, in
    // order).
    let lines: Vec<(u32, u64)> = match kept_file {
        Some(_) => records
            .records
            .iter()
            .map(|r| (r.origin.input, r.origin.line))
            .collect(),
        None => Vec::new(),
    };
    let mut extra = serde_json::Map::new();
    let RecordOutcome {
        mut outcome,
        fields,
        candidates,
        model: trained,
    } = match index.as_mut() {
        Some((db, index, item)) => {
            let texts: Vec<(std::path::PathBuf, Vec<u8>)> = records
                .records
                .iter()
                .map(|r| (r.id.clone().into(), item.text_of(&r.fields).into_bytes()))
                .collect();
            let refreshed = items::refresh(index, (&config.recipe, &config.read), &texts)
                .with_context(|| format!("cannot update the index {}", db.display()))?;
            drop(texts);
            if !quiet {
                eprintln!("simfind: {}", describe(&refreshed, kind));
            }
            extra.insert(
                "index".into(),
                serde_json::json!({
                    "unchanged": refreshed.unchanged,
                    "signed": refreshed.signed,
                    "added": refreshed.update.added,
                    "changed": refreshed.update.changed,
                    "removed": refreshed.update.removed,
                }),
            );
            let presigned = pipeline::Presigned {
                matrix: refreshed.matrix,
                shingles: refreshed.shingles,
            };
            let mut scanned =
                pipeline::scan_records_signed(records, &config, &record, presigned, &ui);
            scanned.outcome.stats.signatures = refreshed.signed;
            scanned
        }
        None => pipeline::scan_records(records, &config, &record, &ui),
    };
    if let Some(trained) = &trained {
        if !quiet {
            eprintln!("{}", crate::app::fs_model::table(trained));
        }
        let json = crate::app::fs_model::to_json(trained);
        if let Some(mut file) = model_file.take() {
            let mut text = serde_json::to_vec_pretty(&json)?;
            text.push(b'\n');
            std::io::Write::write_all(&mut file, &text)?;
            file.commit()?;
        }
        extra.insert("model".into(), json);
    }
    if let Some(report) = &candidates {
        for (key, value, size) in &report.skipped {
            eprintln!(
                "{} --block {key}: the block '{value}' of {size} records skipped (over \
                 --block-cap {})",
                warning_prefix(),
                record.block_cap
            );
        }
        // The threshold the candidates were chosen for (under the model, not
        // the probability).
        let threshold = record
            .model
            .as_ref()
            .map_or(config.threshold, |m| m.candidate_threshold);
        if !quiet && let Some(line) = candidates_line(report, threshold) {
            eprintln!("{line}");
        }
        extra.insert("candidate_scheme".into(), scheme_json(report));
    }
    let line = |outcome: &pipeline::ScanOutcome, seconds: f64| {
        summary_line(
            &args,
            kind,
            &config,
            &record,
            &fields_used,
            outcome,
            seconds,
        )
    };
    let threshold = (threshold_source, args.matching.min_recall, None);
    if report.is_html() {
        let seconds = started.elapsed().as_secs_f64();
        let facts = (
            line(&outcome, seconds),
            summary::scan_fields(&outcome, &config, threshold, args.input.important_words),
        );
        let run = html::Run::of(&outcome, &config, facts, seconds, args.report.html_budget);
        report.set_run(run.of_records());
    }
    let reported =
        report.write_with_fields(&mut outcome, config.threshold, fields.as_ref(), &mut sink)?;
    sink.commit()?;
    if let Some((path, mut file)) = kept_file {
        // Without --link, the records the removal rule keeps; with it, the
        // second input's records that no pair joins to the first: the new
        // records of a batch linked against a master file.
        let removable: std::collections::HashSet<u32> = if record.link {
            outcome
                .pairs
                .iter()
                .filter(|p| p.similarity >= config.threshold)
                .map(|p| p.b)
                .collect()
        } else {
            report
                .removable(&outcome, config.threshold)
                .into_iter()
                .collect()
        };
        let kept: std::collections::HashSet<u64> = (0u32..)
            .zip(&lines)
            .filter(|&(doc, &(input, _))| input as usize == again && !removable.contains(&doc))
            .map(|(_, &(_, line))| line)
            .collect();
        let written = records::write_kept(
            &roots[again],
            &options,
            &|line| kept.contains(&line),
            &mut file,
        )
        .map_err(|err| anyhow!("{}", named(err)))?;
        file.commit()?;
        if !quiet && record.link {
            eprintln!(
                "simfind: {} of {} with no partner in {} ({} with one) written to {}",
                plural(written, "row", "rows"),
                args.roots[1].display(),
                args.roots[0].display(),
                removable.len(),
                path.display()
            );
        } else if !quiet {
            eprintln!(
                "simfind: {} kept ({} removable) written to {}",
                plural(written, "row", "rows"),
                removable.len(),
                path.display()
            );
        }
    }

    let seconds = started.elapsed().as_secs_f64();
    if !quiet {
        eprintln!("{}", line(&outcome, seconds));
        eprintln!("{}", reported.summary());
    }
    finish(
        &outcome,
        &config,
        (&report, &reported),
        summary_json,
        threshold,
        (seconds, &ui),
        (args.input.important_words, extra),
    )
}

/// A copy of stdin in a hidden temporary file beside `kept` (on the file
/// system the kept rows go to, which must hold about as much), for a
/// `--write-kept` that reads its input again. Removed when dropped.
fn spool_stdin(kept: &std::path::Path) -> Result<tempfile::NamedTempFile> {
    let dir = match kept.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => std::path::Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".simfind-stdin-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot copy stdin beside {}", kept.display()))?;
    std::io::copy(&mut std::io::stdin().lock(), file.as_file_mut())
        .with_context(|| format!("cannot copy stdin beside {}", kept.display()))?;
    Ok(file)
}

/// Where a per-field scan's candidates came from, for `--summary-json`: what
/// the stderr line says (and says also when nothing was chosen), as data.
fn scheme_json(report: &pipeline::CandidateReport) -> serde_json::Value {
    use serde_json::json;
    let fields: Vec<_> = report
        .fields
        .iter()
        .zip(&report.scheme)
        .map(|(name, banding)| match banding {
            Some(b) => json!({"name": name, "bands": b.bands, "rows": b.rows}),
            None => json!({"name": name, "bands": null, "rows": null}),
        })
        .collect();
    let keys: Vec<_> = report
        .keys
        .iter()
        .map(|(key, blocks)| json!({"key": key.to_string(), "blocks": blocks}))
        .collect();
    let skipped: Vec<_> = report
        .skipped
        .iter()
        .map(|(key, value, size)| json!({"key": key.to_string(), "value": value, "records": size}))
        .collect();
    let chosen = report.chosen.as_ref().map(|chosen| {
        let choice = &chosen.choice;
        json!({
            "sampled_records": chosen.sampled,
            "qualifying_pairs": chosen.qualifying,
            "level": chosen.level,
            "predicted_share": choice.predicted.candidate_share,
            "every_field_share": choice.baseline.candidate_share,
            "completeness": choice.predicted.completeness
                / choice.baseline.completeness.max(f64::MIN_POSITIVE),
        })
    });
    json!({"fields": fields, "keys": keys, "skipped_blocks": skipped, "chosen": chosen})
}

/// `scan --db I --input KIND`: the kind of item the index holds (refused,
/// naming both, when it holds another) and its recipe when it exists; the
/// options an index of whole records cannot serve refused before any work.
fn indexed_items(
    args: &Args,
    db: &std::path::Path,
    record: &pipeline::RecordConfig,
) -> Result<(ItemKind, Option<simfind::recipe::Recipe>)> {
    let kind = args.input.input;
    for (given, flag) in [
        (
            record.per_field,
            "--per-field (an index holds each record whole)",
        ),
        (record.model.is_some(), "--model"),
        (
            args.input.important_words.is_some(),
            "--important-words (an index holds each record's shingles)",
        ),
    ] {
        if given {
            bail!("{flag} does not apply to scan --db --input {kind}");
        }
    }
    output::refuse_overwriting_index(args.output.as_deref(), db)?;
    let Some(item) = ItemKind::of_input(kind).filter(|k| k.is_minhash()) else {
        bail!("--db does not apply to --input {kind}: records are not files");
    };
    let recipe = config::existing_recipe_of(db, item, args.wait)?;
    Ok((item, recipe))
}

/// One line for stderr on what `scan --db` did to an index of items, worded
/// as the files' (`incremental::describe`).
fn describe(refreshed: &items::RefreshedItems, kind: InputKind) -> String {
    let what = if kind == InputKind::Sets {
        "sets"
    } else {
        "records"
    };
    format!(
        "{} {what}: {} unchanged (not signed), {} signed; index: {} added, {} changed, {} \
         removed",
        refreshed.unchanged + refreshed.signed,
        refreshed.unchanged,
        refreshed.signed,
        refreshed.update.added,
        refreshed.update.changed,
        refreshed.update.removed
    )
}

/// Where a per-field scan's candidates came from, when keys were given or
/// the scheme was chosen on a sample (docs/RECORDS.md, "Candidates").
fn candidates_line(report: &pipeline::CandidateReport, threshold: f64) -> Option<String> {
    if report.keys.is_empty() && report.chosen.is_none() {
        return None;
    }
    let mut sources: Vec<String> = report
        .keys
        .iter()
        .map(|(key, blocks)| format!("{key} ({})", plural(*blocks, "block", "blocks")))
        .collect();
    let banded: Vec<String> = report
        .fields
        .iter()
        .zip(&report.scheme)
        .filter_map(|(name, b)| b.map(|b| format!("{name} {} × {}", b.bands, b.rows)))
        .collect();
    if !banded.is_empty() {
        sources.push(format!("the bands of {}", banded.join(", ")));
    }
    let left_out: Vec<&str> = report
        .fields
        .iter()
        .zip(&report.scheme)
        .filter(|(_, b)| b.is_none())
        .map(|(name, _)| name.as_str())
        .collect();
    let mut line = format!("simfind: candidates from {}", sources.join("; "));
    if let Some(chosen) = &report.chosen {
        let choice = &chosen.choice;
        if !left_out.is_empty() {
            line += &format!(
                "; {} left out (every pair ≥ {threshold:.3} with every field has one of the \
                 others ≥ {:.3})",
                left_out.join(", "),
                chosen.level
            );
        }
        line += &format!(
            "\nsimfind: chosen on a sample of {} ({} of theirs ≥ the threshold): predicted {:.2} % of all pairs as \
             candidates (every field's bands: {:.2} %), finding {:.3} of the pairs they find",
            plural(chosen.sampled as u64, "record", "records"),
            plural(chosen.qualifying as u64, "pair", "pairs"),
            100.0 * choice.predicted.candidate_share,
            100.0 * choice.baseline.candidate_share,
            choice.predicted.completeness / choice.baseline.completeness.max(f64::MIN_POSITIVE),
        );
    }
    Some(line)
}

/// The summary line of a record scan.
fn summary_line(
    args: &Args,
    kind: InputKind,
    config: &pipeline::ScanConfig,
    record: &pipeline::RecordConfig,
    fields_used: &str,
    outcome: &pipeline::ScanOutcome,
    seconds: f64,
) -> String {
    let s = &outcome.stats;
    let shingles = if kind == InputKind::Sets {
        "whole tokens".to_string()
    } else if let Some(n) = args.input.important_words {
        format!(
            "each record's {} of {}",
            plural(n as u64, "most important word", "most important words"),
            fields_used
        )
    } else {
        format!(
            "{} {}-shingles of {}{}",
            config.recipe.shingler.k(),
            config.recipe.shingler.kind().name(),
            if record.per_field { "each of " } else { "" },
            fields_used
        )
    };
    let candidates = match outcome.decision.method {
        Method::Lsh => format!(
            "{}, {} bands × {} rows",
            plural(s.candidates, "candidate", "candidates"),
            config.recipe.banding.bands,
            config.recipe.banding.rows
        ),
        Method::Exact => format!(
            "{} verified by the join{}",
            plural(s.candidates, "pair", "pairs"),
            summary::join_work(config.exact_index, s)
        ),
    };
    format!(
        "simfind: {} ({kind}) in {seconds:.2} s; {} skipped, {} never paired (no shingle); \
         {candidates}; {} with {} ≥ {:.3} ({shingles}); method {}",
        plural(s.files, "record", "records"),
        s.errors,
        s.no_shingles,
        plural(s.pairs, "pair", "pairs"),
        match &record.model {
            Some(_) => "match probability",
            None => "similarity",
        },
        config.threshold,
        crate::app::speak::decision(&outcome.decision),
    )
}
