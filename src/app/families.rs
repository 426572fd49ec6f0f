//! `scan` over the vector families (`docs/FAMILIES.md`): `--input vectors`
//! (cosine or euclidean), `--input bits` (hamming) and `--sketch simhash`
//! (documents, hamming of fingerprints). Arguments are checked here before
//! any work (exit 2), then the run is [`simfind::pipeline::vectors`]'s.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use simfind::cluster::ClusterMethod;
use simfind::input::InputKind;
use simfind::input::vectors::{self, ConcatError, Points, ReadError, RowError};
use simfind::lsh::Banding;
use simfind::pipeline::vectors::{self as run, Fingerprint, choose};
use simfind::pipeline::{self, ScanStats, Verification};
use simfind::sketch::simhash;

use crate::app::args::{FamilyArgs, FileArgs, MatchArgs, MetricArg, SigningArgs, SketchFamilyArg};
use crate::app::config;
use crate::app::exit;
use crate::app::output::Sink;
use crate::app::output::families::{self as writer, Format, Measure};
use crate::app::output::summary::{self, FamilyRun, SummaryArgs};
use crate::app::report::{ClusterArg, FormatArg, ReportArgs};
use crate::app::speak;
use crate::app::ui::{Ui, Verbosity, warning_prefix};

mod exchange;
mod read;

pub use exchange::{exchange_banding, exchange_family};
use read::read_all;
pub(crate) use read::{Parser, read_points};
use simfind::index::items::RefreshedItems;
use simfind::spec::{PointQuery, PointSpec, SimHashWeights};

/// Whether `scan` runs a vector family rather than the MinHash pipeline.
pub fn applies(f: &FamilyArgs, input: InputKind) -> bool {
    input.is_vectors()
        || f.sketch == Some(SketchFamilyArg::Simhash)
        || f.sketch == Some(SketchFamilyArg::Icws)
        || f.simhash_weights.is_some()
        || matches!(
            f.metric,
            Some(MetricArg::Cosine | MetricArg::Euclidean | MetricArg::Hamming)
        )
}

/// Everything `scan` passes along.
pub struct ScanArgs<'a> {
    pub roots: &'a [PathBuf],
    /// `--input` (of the records' argument group, which families share).
    pub input: InputKind,
    /// `--skip-bad-rows`.
    pub skip_bad_rows: bool,
    /// `--max-line-length`: the longest line of a vectors or bits file.
    pub max_line_length: u64,
    /// `--link`: two inputs, only pairs across them.
    pub link: bool,
    /// The records' options (`--pairs`, `--skip-bad-rows` …), which
    /// `--sketch icws` reads `--input sets` with.
    pub record_input: &'a crate::app::args::InputArgs,
    pub families: &'a FamilyArgs,
    pub signing: &'a SigningArgs,
    pub matching: &'a MatchArgs,
    pub files: &'a FileArgs,
    pub report: &'a ReportArgs,
    pub output: Option<&'a Path>,
    pub verbosity: Verbosity,
    /// `--db`: an index of vectors kept and used (cosine only).
    pub db: Option<&'a Path>,
    /// `--wait`: how long to wait for the index's lock.
    pub wait: f64,
    /// `--summary-json`.
    pub summary_json: &'a SummaryArgs,
    /// `--top K`: each point's K nearest neighbours, ranked.
    pub top: Option<u64>,
}

/// The output of a family's pairs that `report`'s --format and --cluster ask
/// for; `metric` names the family in the refusal of --format html.
pub fn output_format(report: &ReportArgs, metric: &str) -> Result<(Format, ClusterMethod)> {
    let format = match (report.format, report.cluster) {
        (FormatArg::Pairs, None) => Format::Csv,
        (FormatArg::Tsv, None) => Format::Tsv,
        (FormatArg::Jsonl, None) => Format::Jsonl,
        (FormatArg::Clusters, _) => Format::GroupsCsv,
        (FormatArg::Jsonl, Some(_)) => Format::GroupsJsonl,
        (FormatArg::Pairs | FormatArg::Tsv, Some(_)) => bail!(
            "--cluster applies only to groups: add --format clusters (or --format jsonl for JSON Lines groups)"
        ),
        (FormatArg::Html, _) => bail!(
            "--format html is not available with --metric {metric}: pairs (csv, tsv, jsonl) or groups (clusters; jsonl with --cluster)"
        ),
    };
    let method = match report.cluster.unwrap_or(ClusterArg::Center) {
        ClusterArg::Center => ClusterMethod::Center,
        ClusterArg::Connected => ClusterMethod::Connected,
    };
    Ok((format, method))
}

/// A family scan other than `--sketch icws` (which `crate::app::weighted`
/// runs on the same [`ScanArgs`]).
pub fn scan(args: ScanArgs) -> Result<i32> {
    let f = args.families;
    let kind = args.input;
    let (format, method) = output_format(args.report, metric_name(f, kind))?;
    let top = args.top.map(|k| usize::try_from(k).unwrap_or(usize::MAX));
    if top.is_some() {
        match format {
            Format::Csv | Format::Tsv => {}
            Format::Jsonl => bail!("--top writes CSV or TSV: --format jsonl does not apply"),
            Format::GroupsCsv | Format::GroupsJsonl => bail!(
                "--top writes each item's nearest neighbours, not groups: it does not apply \
                 to --format clusters or html, --cluster or --list-removable"
            ),
        }
    }
    // The pairs as asked: all of them, or each point's `top` nearest.
    let write_found = |sink: &mut Sink,
                       measure: Measure,
                       pairs: &[run::Found],
                       id: &dyn Fn(u32) -> Vec<u8>| match top {
        Some(k) => writer::write_top(
            sink,
            format == Format::Tsv,
            measure,
            &run::nearest_points(pairs, measure, k),
            id,
        ),
        None => writer::write(sink, format, measure, method, pairs, id),
    };
    let cosine = kind == InputKind::Vectors && matches!(f.metric, None | Some(MetricArg::Cosine));
    let bits = kind == InputKind::Bits && f.sketch.is_none();
    if args.db.is_some() && !cosine && !bits {
        bail!(
            "--db keeps MinHash signatures, the hyperplanes of vectors compared by cosine, or \
             the sampled bits of bit strings: it cannot be combined with --input {kind}{}",
            if kind == InputKind::Vectors {
                format!(" --metric {}", metric_name(f, kind))
            } else {
                " or --sketch simhash".to_string()
            }
        );
    }
    if args.report.plan.is_some() {
        bail!(
            "--plan works on MinHash scans of files, not with --metric {}",
            metric_name(f, kind)
        );
    }
    if args.report.list_removable || args.report.keep.is_some() || !args.report.reference.is_empty()
    {
        bail!(
            "--list-removable, --keep and --reference work on MinHash scans of documents, not with --metric {}",
            metric_name(f, kind)
        );
    }
    let spec = crate::app::lower::point_matching(
        crate::app::lower::points(kind, f, args.signing),
        args.matching,
    )
    .build()
    .map_err(|e| crate::app::lower::point_error(e, kind, f.metric.map(|m| m.measure())))?;
    if kind != InputKind::Files {
        if args.files.files_from.is_some() || args.files.files0_from.is_some() {
            bail!("--input {kind} reads files of points: --files-from does not apply");
        }
        if args.roots.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
            bail!("- (stdin) can be given once");
        }
    }
    if args.link && (kind == InputKind::Files || args.roots.len() != 2) {
        bail!(
            "--link pairs the points of two inputs: give --input vectors or bits and exactly two files, got {}",
            args.roots.len()
        );
    }
    let link = |starts: &[u32]| args.link.then(|| starts[1]);
    let verification = match spec.verification {
        simfind::spec::Verification::Exact => Verification::Exact,
        simfind::spec::Verification::Signature => Verification::Signature,
    };
    let seed = spec.seed;
    let summary_json = summary::open(args.summary_json, args.output)?;
    let mut sink = Sink::create(args.output)?;
    let started = std::time::Instant::now();
    let quiet = args.verbosity.quiet;
    let ui = Ui::with(args.verbosity);
    let mut problems = 0u64;
    let point_error = |e: run::PointRunError| anyhow::anyhow!(speak::point_run_error(&e));

    let done = match spec.query {
        PointQuery::Cosine { .. } | PointQuery::Euclidean { .. } => {
            let (points, starts) = read_all(&args, &mut problems, vectors::read_vectors_capped)?;
            // With --db: the index's hyperplanes, the stored signatures of
            // the vectors it holds unchanged.
            let (indexed, signed) = args
                .db
                .map(|db| vectors_indexed(&args, db, &points, &spec))
                .transpose()?
                .unzip();
            let seed = indexed.as_ref().map_or(seed, |i| i.seed);
            let (choice, outcome) = run::run_vectors(&spec, &points, link(&starts), indexed, &ui)
                .map_err(point_error)?;
            let measure = spec.query.measure();
            write_found(&mut sink, measure, &outcome.pairs, &|i| {
                points.ids[i as usize].as_bytes().to_vec()
            })?;
            sink.commit()?;
            if !quiet {
                let what = format!("{} vectors of {} components", points.len(), points.dim);
                eprintln!("simfind: {what}, {}", method_summary(&choice, &outcome));
            }
            let mut parameters = serde_json::Map::new();
            let (metric, sketch) = match spec.query {
                PointQuery::Euclidean { radius, .. } => {
                    parameters.insert("radius".into(), radius.into());
                    let width = match choice.method {
                        choose::Method::Lsh { width, .. } => Some(width),
                        choose::Method::Exact => None,
                    };
                    parameters.insert("bucket_width".into(), width.into());
                    ("euclidean", "p-stable")
                }
                query => {
                    if let PointQuery::Cosine { min_cosine } = query {
                        parameters.insert("min_cosine".into(), min_cosine.into());
                    }
                    ("cosine", "hyperplanes")
                }
            };
            parameters.insert("dimensions".into(), points.dim.into());
            let mut run = summary::family_run(
                ("vectors", metric, sketch, parameters, seed),
                points.len() as u64,
                &choice,
                &outcome,
                verification,
            );
            if let Some(signed) = signed {
                run.signed = signed;
            }
            run
        }
        PointQuery::Hamming { radius } => {
            let (strings, starts) = read_all(&args, &mut problems, vectors::read_bits_capped)?;
            // With --db: the index's sampled positions, the stored
            // signatures of the strings it holds unchanged.
            let (indexed, signed) = args
                .db
                .map(|db| bits_indexed(&args, db, &strings, &spec))
                .transpose()?
                .unzip();
            let seed = indexed.as_ref().map_or(seed, |i| i.seed);
            let (choice, outcome) =
                run::run_bits(&spec, &strings, link(&starts), indexed, &ui).map_err(point_error)?;
            write_found(&mut sink, Measure::Hamming, &outcome.pairs, &|i| {
                strings.ids[i as usize].as_bytes().to_vec()
            })?;
            sink.commit()?;
            if !quiet {
                let what = format!("{} bit strings of {} bits", strings.len(), strings.bits);
                eprintln!("simfind: {what}, {}", method_summary(&choice, &outcome));
            }
            let mut parameters = serde_json::Map::new();
            parameters.insert("radius".into(), f64::from(radius).into());
            parameters.insert("bits".into(), strings.bits.into());
            let mut run = summary::family_run(
                ("bits", "hamming", "bit-sampling", parameters, seed),
                strings.len() as u64,
                &choice,
                &outcome,
                verification,
            );
            if let Some(signed) = signed {
                run.signed = signed;
            }
            run
        }
        PointQuery::SimHash { radius } => {
            let (mut config, _) = config::scan(
                args.roots,
                args.signing,
                args.matching,
                args.files,
                false,
                None,
            )?;
            config.recipe.seed = seed;
            let mut stats = ScanStats::default();
            let files = pipeline::walk_files(&config, &ui, &mut stats);
            problems += stats.errors;
            let weights = match spec.simhash_weights {
                SimHashWeights::Set => simhash::Weights::Set,
                SimHashWeights::Counts => simhash::Weights::Counts,
            };
            let prints = run::fingerprint_files(&files, &config, weights, &ui);
            let mut kept = Vec::new();
            let mut values = Vec::new();
            for (i, print) in prints.iter().enumerate() {
                match print {
                    Fingerprint::Of(v) => {
                        kept.push(i);
                        values.push(*v);
                    }
                    Fingerprint::Failed => problems += 1,
                    Fingerprint::Skipped(_) => {}
                }
            }
            let outcome = run::scan_fingerprints(&values, radius, &ui);
            let path = |i: u32| files[kept[i as usize]].path.as_os_str().as_bytes().to_vec();
            write_found(&mut sink, Measure::Hamming, &outcome.pairs, &path)?;
            sink.commit()?;
            if !quiet {
                eprintln!(
                    "simfind: {} files, {} fingerprinted, {} bands of {} bits, {} candidates, {} pairs within {radius} bits",
                    files.len(),
                    values.len(),
                    radius + 1,
                    64 / (radius + 1),
                    outcome.candidates,
                    outcome.pairs.len()
                );
            }
            let mut parameters = serde_json::Map::new();
            parameters.insert("radius".into(), radius.into());
            parameters.insert("bits".into(), 64.into());
            parameters.insert(
                "weights".into(),
                match weights {
                    simhash::Weights::Set => "set",
                    simhash::Weights::Counts => "counts",
                }
                .into(),
            );
            parameters.insert("shingles".into(), summary::shingles(&config));
            FamilyRun {
                input: "files",
                metric: "hamming",
                sketch: "simhash",
                parameters,
                documents: files.len() as u64,
                signed: values.len() as u64,
                errors: 0,
                candidates: outcome.candidates,
                pairs: outcome.pairs.len() as u64,
                method: ("lsh", "SimHash bands its 64-bit fingerprints"),
                banding: Some(Banding {
                    bands: radius as usize + 1,
                    rows: 64 / (radius as usize + 1),
                }),
                verification: Verification::Exact,
            }
        }
    };
    let status = if problems > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    };
    if let Some(out) = summary_json {
        let done = FamilyRun {
            errors: problems,
            ..done
        };
        done.write(
            out,
            status,
            started.elapsed().as_secs_f64(),
            &ui.stage_seconds(),
        )?;
    }
    Ok(status)
}

/// `scan --db I --input vectors|bits`: the index of points at `db` (made
/// with the points' width and --bands, --rows and --seed, or 20 × 5, when
/// missing) brought up to date by `refresh` (the index's one refresh of
/// items, signed by its family), said on stderr unless quiet: every point's
/// signature with the index's banding and seed, and how many this run
/// signed.
fn points_indexed(
    args: &ScanArgs,
    db: &Path,
    kind: (simfind::index::ItemKind, usize),
    spec: &PointSpec,
    refresh: impl FnOnce(
        &mut simfind::index::Index,
    ) -> Result<RefreshedItems, simfind::index::IndexError>,
) -> Result<(run::IndexedSignatures, u64)> {
    let (signatures, input) = match kind.0 {
        simfind::index::ItemKind::Bits => ("bit strings' sampled-bit", "bits"),
        _ => ("vectors' hyperplane", "vectors"),
    };
    if spec.method == simfind::spec::Method::Exact {
        bail!(
            "--db keeps the {signatures} signatures, which only the LSH method uses; drop --db \
             for --method exact"
        );
    }
    if spec.verification == simfind::spec::Verification::Signature {
        bail!("--verify signature does not apply to scan --db --input {input}");
    }
    crate::app::output::refuse_overwriting_index(args.output, db)?;
    let mut index = config::points_index(db, kind, args.signing, args.wait)?;
    let refreshed =
        refresh(&mut index).with_context(|| format!("cannot update the index {}", db.display()))?;
    if !args.verbosity.quiet {
        let what = match kind.0 {
            simfind::index::ItemKind::Bits => "bit strings",
            _ => "vectors",
        };
        eprintln!("simfind: {}", describe_points(&refreshed, what));
    }
    let params = index.params();
    let indexed = run::IndexedSignatures {
        banding: Banding {
            bands: params.bands as usize,
            rows: params.rows as usize,
        },
        seed: params.seed,
        matrix: refreshed.matrix,
    };
    Ok((indexed, refreshed.signed))
}

fn vectors_indexed(
    args: &ScanArgs,
    db: &Path,
    points: &vectors::Vectors,
    spec: &PointSpec,
) -> Result<(run::IndexedSignatures, u64)> {
    let items: Vec<(&str, &[f32])> = (0..points.len())
        .map(|i| (points.ids[i].as_str(), points.row(i)))
        .collect();
    let kind = (simfind::index::ItemKind::Vectors, points.dim);
    points_indexed(args, db, kind, spec, |index| {
        simfind::index::points::refresh(index, &items)
    })
}

fn bits_indexed(
    args: &ScanArgs,
    db: &Path,
    strings: &vectors::BitStrings,
    spec: &PointSpec,
) -> Result<(run::IndexedSignatures, u64)> {
    let items: Vec<(&str, &[u64])> = (0..strings.len())
        .map(|i| (strings.ids[i].as_str(), strings.row(i)))
        .collect();
    let kind = (simfind::index::ItemKind::Bits, strings.bits);
    points_indexed(args, db, kind, spec, |index| {
        simfind::index::bits::refresh(index, &items)
    })
}

/// One line for stderr on what `scan --db` did to an index of points
/// (`what`: vectors, bit strings).
fn describe_points(refreshed: &RefreshedItems, what: &str) -> String {
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

/// The summary line's account of the method: what was done, how much, and
/// why it was chosen.
fn method_summary(choice: &choose::Choice, outcome: &run::FamilyOutcome) -> String {
    let done = match choice.method {
        choose::Method::Exact => format!(
            "every pair: {} scored, {} measured",
            outcome.scored, outcome.candidates
        ),
        choose::Method::Lsh { banding, width } => {
            let width = if width > 0.0 {
                format!(", bucket width {width}")
            } else {
                String::new()
            };
            format!(
                "{} bands × {} rows{width}, {} candidates",
                banding.bands, banding.rows, outcome.candidates
            )
        }
    };
    if choice.reason == choose::Reason::IndexSignatures {
        return format!(
            "{done}, {} pairs; method {}",
            outcome.pairs.len(),
            speak::vector_reason(choice)
        );
    }
    let predicted = match choice.lsh {
        Some(p) => format!(
            "predicted work: every pair {:.3e}, LSH {:.3e} with {:.0} candidates",
            choice.exact_cost, p.cost, p.candidates
        ),
        None => format!("predicted work: every pair {:.3e}", choice.exact_cost),
    };
    format!(
        "{done}, {} pairs; method {} ({predicted})",
        outcome.pairs.len(),
        speak::vector_reason(choice)
    )
}

fn metric_name(f: &FamilyArgs, kind: InputKind) -> &'static str {
    let measure = match (f.metric, kind) {
        (Some(metric), _) => metric.measure(),
        (None, InputKind::Vectors) => Measure::Cosine,
        (None, InputKind::Bits) => Measure::Hamming,
        (None, _) => Measure::Jaccard,
    };
    measure.name()
}
