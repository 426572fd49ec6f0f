//! `scan --sketch icws`: weighted sets (`--input sets` with `token:weight`,
//! or `id<TAB>token<TAB>weight` with `--pairs`) or files as bags of
//! shingles (each shingle weighted by its count), paired by their weighted
//! Jaccard similarity Σ min / Σ max. Arguments are checked here before any
//! work (exit 2); the run is [`simfind::pipeline::weighted`]'s, the output
//! the vector families' writer (`metric` `weighted_jaccard`).

use std::os::unix::ffi::OsStrExt;

use anyhow::{Result, bail};
use simfind::input::InputKind;
use simfind::input::records::{self, weighted_token};
use simfind::pipeline::vectors::RunOptions;
use simfind::pipeline::weighted::{self as run, Bag};
use simfind::pipeline::{self, ScanStats};

use crate::app::args::{DEFAULT_SEED, MethodArg, MetricArg};
use crate::app::config;
use crate::app::exit;
use crate::app::families::{ScanArgs, output_format};
use crate::app::output::Sink;
use crate::app::output::families::{self as writer, Measure};
use crate::app::output::summary::{self, FamilyRun};
use crate::app::report::FormatArg;
use crate::app::speak;
use crate::app::ui::{Ui, plural};

pub fn scan(args: ScanArgs) -> Result<i32> {
    let kind = args.input;
    let f = args.families;
    if !matches!(kind, InputKind::Sets | InputKind::Files) {
        bail!(
            "--sketch icws signs weighted sets: give --input sets (token:weight) or directories \
             (bags of shingles), not --input {kind}"
        );
    }
    if !matches!(f.metric, None | Some(MetricArg::Jaccard)) {
        bail!("--sketch icws pairs by weighted Jaccard similarity: leave out --metric");
    }
    for (given, flag) in [
        (f.angle.is_some(), "--angle"),
        (f.radius.is_some(), "--radius"),
        (f.bucket_width.is_some(), "--bucket-width"),
        (args.db.is_some(), "--db"),
        (args.matching.method == MethodArg::Exact, "--method exact"),
        (args.matching.exact_index.is_some(), "--exact-index"),
        (args.matching.isolate, "--isolate"),
        (
            args.record_input.important_words.is_some(),
            "--important-words",
        ),
        (args.report.list_removable, "--list-removable"),
        (args.report.plan.is_some(), "--plan"),
        (args.report.keep.is_some(), "--keep"),
        (!args.report.reference.is_empty(), "--reference"),
        (args.report.format == FormatArg::Html, "--format html"),
    ] {
        if given {
            bail!(
                "{flag} does not apply to --sketch icws (weighted sets banded by their ICWS \
                 samples; pairs or groups by weighted Jaccard)"
            );
        }
    }
    let (format, method) = output_format(args.report, "jaccard")?;
    crate::app::lower::shingling(kind, &args.signing.shingles)?;
    let roots: &[std::path::PathBuf] = if kind == InputKind::Sets {
        &[]
    } else {
        args.roots
    };
    let (config, _) = config::scan(roots, args.signing, args.matching, args.files, false, None)?;
    let options = RunOptions {
        link: None,
        verification: config.verification,
    };
    let seed = args.signing.seed.unwrap_or(DEFAULT_SEED);
    let banding = config.recipe.banding;
    let quiet = args.verbosity.quiet;
    let ui = Ui::with(args.verbosity);
    let mut problems = 0u64;
    // Opened before any work: a bad -o fails first, and nothing is written
    // unless the run completes.
    let summary_json = summary::open(args.summary_json, args.output)?;
    let mut sink = Sink::create(args.output)?;
    let started = std::time::Instant::now();

    let (sets, ids, options, what) = if kind == InputKind::Sets {
        let (mut record_options, _) = config::records(args.record_input, args.roots)?;
        record_options.weighted = true;
        let read = records::read_inputs(args.roots, &record_options, &mut |err| {
            simfind::progress::Reporter::warn(
                &ui,
                std::path::Path::new(&err.place()),
                &speak::row_reason(err),
            )
        })
        .map_err(speak::row_failure)?;
        problems += read.skipped;
        let split = args
            .record_input
            .link
            .then(|| read.records.partition_point(|r| r.origin.input == 0) as u32);
        let sets: Vec<Vec<(u64, f64)>> = read
            .records
            .iter()
            .map(|r| run::weighted_set(r.fields.iter().filter_map(|f| weighted_token(f))))
            .collect();
        let ids: Vec<Vec<u8>> = read
            .records
            .into_iter()
            .map(|r| r.id.into_bytes())
            .collect();
        let options = RunOptions {
            link: split,
            ..options
        };
        (sets, ids, options, "weighted sets")
    } else {
        if args.link {
            bail!("--link pairs two files of records: give --input sets and exactly two files");
        }
        let mut stats = ScanStats::default();
        let files = pipeline::walk_files(&config, &ui, &mut stats);
        problems += stats.errors;
        let bags = run::bags_of_files(&files, &config, &ui);
        let sets = bags
            .into_iter()
            .map(|bag| match bag {
                Bag::Of(set) => set,
                Bag::Failed => {
                    problems += 1;
                    Vec::new()
                }
                Bag::Skipped(_) => Vec::new(),
            })
            .collect();
        let ids = files
            .iter()
            .map(|file| file.path.as_os_str().as_bytes().to_vec())
            .collect();
        (sets, ids, options, "files as bags of shingles")
    };
    let outcome = run::scan_weighted(&sets, config.threshold, banding, seed, options, &ui);
    writer::write(
        &mut sink,
        format,
        Measure::WeightedJaccard,
        method,
        &outcome.pairs,
        &|i| ids[i as usize].clone(),
    )?;
    sink.commit()?;
    if !quiet {
        eprintln!(
            "simfind: {} {what}, {} bands × {} rows of ICWS samples, {}, {} with weighted \
             Jaccard ≥ {:.3}",
            sets.len(),
            banding.bands,
            banding.rows,
            plural(outcome.candidates, "candidate", "candidates"),
            plural(outcome.pairs.len() as u64, "pair", "pairs"),
            config.threshold
        );
    }
    let status = if problems > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    };
    if let Some(out) = summary_json {
        let mut parameters = serde_json::Map::new();
        parameters.insert("threshold".into(), config.threshold.into());
        parameters.insert("seed".into(), seed.into());
        parameters.insert(
            "shingles".into(),
            match kind {
                InputKind::Sets => serde_json::Value::Null,
                _ => summary::shingles(&config),
            },
        );
        FamilyRun {
            input: if kind == InputKind::Sets {
                "sets"
            } else {
                "files"
            },
            metric: "weighted_jaccard",
            sketch: "icws",
            parameters,
            documents: sets.len() as u64,
            signed: sets.iter().filter(|s| !s.is_empty()).count() as u64,
            errors: problems,
            candidates: outcome.candidates,
            pairs: outcome.pairs.len() as u64,
            method: ("lsh", "--sketch icws bands its samples"),
            banding: Some(banding),
            verification: config.verification,
        }
        .write(
            out,
            status,
            started.elapsed().as_secs_f64(),
            &ui.stage_seconds(),
        )?;
    }
    Ok(status)
}
