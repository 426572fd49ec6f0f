//! `scan --metric containment -t T`: every pair of documents (files under
//! DIRs, records of `--input jsonl|csv|tsv`, sets of `--input sets`) in
//! which one is contained in the other at ≥ T, `C(A, B) = |A ∩ B| / |A|`
//! over their shingle (or token) sets, found by the library's exact join
//! ([`simfind::similarity::contained_pairs`]: prefix and size
//! filters, every candidate verified) or, with `--method lsh`, by LSH
//! Ensemble ([`simfind::lsh::ensemble`]: bands per pair of size partitions
//! meeting `--min-recall`, every candidate verified), and written with both
//! directions.
//!
//! The rules (sets only, a threshold, the exact method) are the library's
//! `Spec`'s; the flags no containment run reads are refused here, before
//! any work (exit 2).
//!
//! Output: one row per pair, `a` before `b` in input order (walk order for
//! files), sorted by a then b: `a,b,a_in_b,b_in_a,contained,size_a,size_b,
//! shared` (CSV or TSV with that header; JSON Lines objects with those keys
//! and `"metric":"containment"`), `contained` naming the side held inside
//! the other at ≥ T (`a`, `b` or `both`). docs/SEARCH.md.

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use anyhow::{Result, bail};
use simfind::input::InputKind;
use simfind::input::records;
use simfind::lsh::ensemble::{self, ENSEMBLE_HASHES, PARTITIONS};
use simfind::measure::Measure;
use simfind::pipeline::weighted::{self as bags, Bag};
use simfind::pipeline::{self, ScanStats};
use simfind::pipeline::{Method, MethodChoice};
use simfind::similarity::contained_pairs;
use simfind::text::hash_shingle;

use crate::app::config;
use crate::app::exit;
use crate::app::families::ScanArgs;
use crate::app::output::Sink;
use crate::app::output::containment::write;
use crate::app::report::{FormatArg, SortArg};
use crate::app::speak;
use crate::app::ui::{Ui, plural};

pub fn scan(args: ScanArgs) -> Result<i32> {
    let kind = args.input;
    let f = args.families;
    let report = args.report;
    for (given, flag) in [
        (f.sketch.is_some(), "--sketch"),
        (f.simhash_weights.is_some(), "--simhash-weights"),
        (f.angle.is_some(), "--angle"),
        (f.radius.is_some(), "--radius"),
        (f.bucket_width.is_some(), "--bucket-width"),
        (args.matching.exact_index.is_some(), "--exact-index"),
        (args.matching.isolate, "--isolate"),
        (
            args.record_input.important_words.is_some(),
            "--important-words",
        ),
        (args.record_input.per_field, "--per-field"),
        (report.list_removable, "--list-removable"),
        (report.plan.is_some(), "--plan"),
        (report.keep.is_some(), "--keep"),
        (!report.reference.is_empty(), "--reference"),
        (report.cluster.is_some(), "--cluster"),
        (
            matches!(report.format, FormatArg::Clusters | FormatArg::Html),
            "--format clusters|html",
        ),
        (report.sort != SortArg::Path, "--sort"),
        (report.limit.is_some(), "--limit"),
        (report.min_similarity.is_some(), "--min-similarity"),
        (report.max_similarity.is_some(), "--max-similarity"),
        (args.summary_json.summary_json.is_some(), "--summary-json"),
    ] {
        if given {
            bail!(
                "{flag} does not apply to --metric containment (pairs of sets, one contained in \
                 the other, found by the exact join; csv, tsv or jsonl)"
            );
        }
    }
    // The library's rules first: sets only, a threshold, the exact join.
    let records = kind.is_records();
    let roots: &[PathBuf] = if records || kind.is_vectors() {
        &[]
    } else {
        args.roots
    };
    let (config, _) = config::scan_measured(
        roots,
        args.signing,
        args.matching,
        args.files,
        args.db.is_some(),
        (Measure::Containment, kind),
    )?;
    crate::app::lower::shingling(kind, &args.signing.shingles)?;
    if args.link && !records {
        bail!("--link pairs the records of two files: give --input jsonl, csv, tsv or sets");
    }
    let t = config.threshold;
    let quiet = args.verbosity.quiet;
    let ui = Ui::with(args.verbosity);
    let mut problems = 0u64;
    // Opened before any work: a bad -o fails first, and nothing is written
    // unless the run completes.
    let mut sink = Sink::create(args.output)?;

    let (sets, ids, link, what) = if records {
        let (options, _) = config::records(args.record_input, args.roots)?;
        let read = records::read_inputs(args.roots, &options, &mut |err| {
            simfind::progress::Reporter::warn(
                &ui,
                std::path::Path::new(&err.place()),
                &speak::row_reason(err),
            )
        })
        .map_err(speak::row_failure)?;
        problems += read.skipped;
        let link = args
            .link
            .then(|| read.records.partition_point(|r| r.origin.input == 0) as u32);
        // As a record scan shingles a record: a set's tokens hashed whole,
        // a text record's fields joined by a space.
        let sets: Vec<Vec<u64>> = read
            .records
            .iter()
            .map(|r| {
                if kind == InputKind::Sets {
                    let mut set: Vec<u64> = r
                        .fields
                        .iter()
                        .map(|t| hash_shingle(t.as_bytes()))
                        .collect();
                    set.sort_unstable();
                    set.dedup();
                    set
                } else {
                    config.recipe.set_of(r.fields.join(" ").as_bytes())
                }
            })
            .collect();
        let ids: Vec<Vec<u8>> = read
            .records
            .into_iter()
            .map(|r| r.id.into_bytes())
            .collect();
        let what = if kind == InputKind::Sets {
            "sets"
        } else {
            "records"
        };
        (sets, ids, link, what)
    } else {
        let mut stats = ScanStats::default();
        let files = pipeline::walk_files(&config, &ui, &mut stats);
        problems += stats.errors;
        // A file shorter than one shingle, or binary, is an empty set:
        // contained in nothing, never paired.
        let sets = bags::bags_of_files(&files, &config, &ui)
            .into_iter()
            .map(|bag| match bag {
                Bag::Of(bag) => bag.into_iter().map(|(h, _)| h).collect(),
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
        (sets, ids, None, "files")
    };
    let (pairs, how) = if config.method == MethodChoice::Fixed(Method::Lsh) {
        let min_recall = args.matching.min_recall;
        let found = ensemble::contained_pairs_lsh(
            &sets,
            t,
            min_recall,
            (ENSEMBLE_HASHES, config.recipe.seed),
            link,
        );
        let how = format!(
            "LSH Ensemble ({ENSEMBLE_HASHES} MinHash values, at most {PARTITIONS} size \
             partitions, each pair at ≥ the threshold found with probability ≥ {min_recall}; \
             {} of {} blocks compared pair by pair; {})",
            found.exhaustive_blocks,
            found.blocks,
            plural(found.candidates, "candidate", "candidates"),
        );
        (found.pairs, how)
    } else {
        (
            contained_pairs(&sets, t, link),
            "exact containment join".to_string(),
        )
    };
    write(&mut sink, report.format, t, &pairs, &ids)?;
    sink.commit()?;
    if !quiet {
        eprintln!(
            "simfind: {} {what}, {how}, {} with containment ≥ {t:.3} (one inside the other)",
            sets.len(),
            plural(pairs.len() as u64, "pair", "pairs"),
        );
    }
    Ok(if problems > 0 {
        exit::PARTIAL
    } else if report.exit_code && pairs.is_empty() {
        exit::NONE_FOUND
    } else {
        exit::OK
    })
}
