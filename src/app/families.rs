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
use simfind::lsh::family::{self, Metric};
use simfind::pipeline::vectors::{self as run, Fingerprint, RunOptions, VectorQuery, choose};
use simfind::pipeline::{self, ScanStats, Verification};
use simfind::sketch::BitSampling;
use simfind::sketch::simhash;

use crate::app::args::{
    DEFAULT_BANDS, DEFAULT_ROWS, DEFAULT_SEED, FamilyArgs, FileArgs, MatchArgs, MethodArg,
    MetricArg, SigningArgs, SimHashWeightsArg, SketchFamilyArg, VerifyArg,
};
use crate::app::config;
use crate::app::exit;
use crate::app::output::Sink;
use crate::app::output::families::{self as writer, Format, Measure};
use crate::app::output::summary::{self, FamilyRun, SummaryArgs};
use crate::app::report::{ClusterArg, FormatArg, ReportArgs};
use crate::app::speak;
use crate::app::ui::{Ui, Verbosity, warning_prefix};

/// Values per point a tuned family may use when -b/-r are not given: more than
/// MinHash's 100, because a vector's value is one bit (hyperplanes) or one of
/// few buckets, and signing costs `d` multiplications a value, not one hash.
pub const FAMILY_HASHES: usize = 200;

/// SimHash's default radius in bits (text-dedup's and gaoya's).
pub const SIMHASH_RADIUS: u32 = 3;

mod exchange;
mod read;

pub use exchange::{exchange_banding, exchange_family};
use read::read_all;
pub(crate) use read::{Parser, read_points};

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
}

/// What was decided from the arguments.
enum Plan {
    Vectors {
        query: VectorQuery,
        measure: Measure,
        banding: Option<Banding>,
        /// --bucket-width given (else the query's width is 2R, and scan
        /// chooses one by predicted work).
        width_given: bool,
    },
    Bits {
        radius: f64,
        banding: Option<Banding>,
    },
    SimHash {
        radius: u32,
    },
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
    let cosine = kind == InputKind::Vectors && matches!(f.metric, None | Some(MetricArg::Cosine));
    if args.db.is_some() && !cosine {
        bail!(
            "--db keeps MinHash signatures, or the hyperplanes of vectors compared by cosine: it \
             cannot be combined with --input {kind}{}",
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
    if f.simhash_weights.is_some() && f.sketch != Some(SketchFamilyArg::Simhash) {
        bail!("--simhash-weights weighs the shingles of --sketch simhash: add --sketch simhash");
    }
    let banding = given_banding(args.signing);
    let plan = match (kind, f.sketch) {
        (InputKind::Vectors | InputKind::Bits, Some(SketchFamilyArg::Simhash)) => {
            bail!("--sketch simhash signs documents: give directories, not --input {kind}")
        }
        (InputKind::Files, Some(SketchFamilyArg::Simhash)) => {
            if !matches!(f.metric, None | Some(MetricArg::Hamming)) {
                bail!(
                    "--sketch simhash pairs fingerprints by Hamming distance: leave out --metric or give --metric hamming"
                );
            }
            if banding.is_some() {
                bail!(
                    "--sketch simhash bands its 64 bits into --radius + 1 bands itself: leave out --bands and --rows"
                );
            }
            let radius = match f.radius {
                None => SIMHASH_RADIUS,
                Some(r) if (0.0..64.0).contains(&r) && r.fract() == 0.0 => r as u32,
                Some(r) => bail!(
                    "--radius {r}: SimHash fingerprints have 64 bits; give a whole number of bits from 0 to 63"
                ),
            };
            Plan::SimHash { radius }
        }
        (
            InputKind::Jsonl
            | InputKind::Csv
            | InputKind::Tsv
            | InputKind::Parquet
            | InputKind::Sets,
            _,
        ) => bail!(
            "--metric {} and --sketch simhash do not apply to --input {kind}: records are compared by the Jaccard of their shingles",
            metric_name(f, kind)
        ),
        (InputKind::Files, _) => bail!(
            "--metric {} needs --input vectors or --input bits (or --sketch simhash for documents)",
            metric_name(f, kind)
        ),
        (InputKind::Vectors, _) => vector_plan(f, args.matching.threshold, banding)?,
        (InputKind::Bits, _) => Plan::Bits {
            radius: bits_radius(f)?,
            banding,
        },
    };
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
    let verification = match args.matching.verify {
        VerifyArg::Exact => Verification::Exact,
        VerifyArg::Signature => {
            if matches!(
                plan,
                Plan::Vectors {
                    query: VectorQuery::Euclidean { .. },
                    ..
                }
            ) {
                bail!(
                    "--verify signature: p-stable buckets give no distance estimate; --metric euclidean verifies exactly (leave out --verify)"
                );
            }
            Verification::Signature
        }
    };
    let options = |starts: &[u32]| RunOptions {
        link: args.link.then(|| starts[1]),
        verification,
    };
    let seed = args.signing.seed.unwrap_or(DEFAULT_SEED);
    let summary_json = summary::open(args.summary_json, args.output)?;
    let mut sink = Sink::create(args.output)?;
    let started = std::time::Instant::now();
    let quiet = args.verbosity.quiet;
    let ui = Ui::with(args.verbosity);
    let mut problems = 0u64;
    // With --db: the items this run signed (the others' signatures were
    // the index's).
    let mut signed = None;

    let done = match plan {
        Plan::Vectors {
            query,
            measure,
            banding,
            width_given,
        } => {
            let (points, starts) = read_all(&args, &mut problems, vectors::read_vectors_capped)?;
            let given = given_method(&args, banding, &starts, verification)?;
            // With --db: the index's hyperplanes, the stored signatures of
            // the vectors it holds unchanged.
            let (choice, presigned, seed) = match args.db {
                Some(db) => {
                    let (refreshed, banding, seed) = vectors_indexed(&args, db, &points, given)?;
                    if !quiet {
                        eprintln!("simfind: {}", describe_vectors(&refreshed));
                    }
                    signed = Some(refreshed.signed);
                    let choice = choose::Choice {
                        method: choose::Method::Lsh {
                            banding,
                            width: 0.0,
                        },
                        exact_cost: 0.0,
                        lsh_cost: None,
                        lsh: None,
                        reason: choose::Reason::IndexSignatures,
                    };
                    (choice, Some(refreshed.matrix), seed)
                }
                None => {
                    let choice = choose::choose_vectors(&points, query, width_given, given)
                        .map_err(|e| anyhow::anyhow!(speak::choose_error(&e)))?;
                    (choice, None, seed)
                }
            };
            let outcome = match choice.method {
                choose::Method::Exact => run::exact_vectors(&points, query, given.link, &ui),
                choose::Method::Lsh { banding, width } => {
                    let query = match query {
                        VectorQuery::Euclidean { radius, .. } => {
                            VectorQuery::Euclidean { radius, width }
                        }
                        cosine => cosine,
                    };
                    let family = (banding, seed, presigned);
                    run::scan_vectors(&points, query, family, options(&starts), &ui)
                }
            };
            writer::write(&mut sink, format, measure, method, &outcome.pairs, &|i| {
                points.ids[i as usize].as_bytes().to_vec()
            })?;
            sink.commit()?;
            if !quiet {
                let what = format!("{} vectors of {} components", points.len(), points.dim);
                eprintln!("simfind: {what}, {}", method_summary(&choice, &outcome));
            }
            let mut parameters = serde_json::Map::new();
            let (metric, sketch) = match query {
                VectorQuery::Cosine { min_cosine } => {
                    parameters.insert("min_cosine".into(), min_cosine.into());
                    ("cosine", "hyperplanes")
                }
                VectorQuery::Euclidean { radius, .. } => {
                    parameters.insert("radius".into(), radius.into());
                    let width = match choice.method {
                        choose::Method::Lsh { width, .. } => Some(width),
                        choose::Method::Exact => None,
                    };
                    parameters.insert("bucket_width".into(), width.into());
                    ("euclidean", "p-stable")
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
        Plan::Bits { radius, banding } => {
            let (strings, starts) = read_all(&args, &mut problems, vectors::read_bits_capped)?;
            if radius >= strings.bits as f64 {
                bail!(
                    "--radius {radius} is not below the strings' {} bits: every pair would be within it",
                    strings.bits
                );
            }
            let given = given_method(&args, banding, &starts, verification)?;
            let choice = choose::choose_bits(&strings, radius, given)
                .map_err(|e| anyhow::anyhow!(speak::choose_error(&e)))?;
            let outcome = match choice.method {
                choose::Method::Exact => run::exact_bits(&strings, radius as u32, given.link, &ui),
                choose::Method::Lsh { banding, .. } => {
                    let sampling = BitSampling::random(strings.bits, banding.signature_len(), seed);
                    run::scan_bits(
                        &strings,
                        radius as u32,
                        &sampling,
                        banding,
                        options(&starts),
                        &ui,
                    )
                }
            };
            let hamming = Measure::Hamming;
            writer::write(&mut sink, format, hamming, method, &outcome.pairs, &|i| {
                strings.ids[i as usize].as_bytes().to_vec()
            })?;
            sink.commit()?;
            if !quiet {
                let what = format!("{} bit strings of {} bits", strings.len(), strings.bits);
                eprintln!("simfind: {what}, {}", method_summary(&choice, &outcome));
            }
            let mut parameters = serde_json::Map::new();
            parameters.insert("radius".into(), radius.into());
            parameters.insert("bits".into(), strings.bits.into());
            summary::family_run(
                ("bits", "hamming", "bit-sampling", parameters, seed),
                strings.len() as u64,
                &choice,
                &outcome,
                verification,
            )
        }
        Plan::SimHash { radius } => {
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
            let weights = match f.simhash_weights {
                None | Some(SimHashWeightsArg::Set) => simhash::Weights::Set,
                Some(SimHashWeightsArg::Counts) => simhash::Weights::Counts,
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
            let hamming = Measure::Hamming;
            writer::write(&mut sink, format, hamming, method, &outcome.pairs, &path)?;
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

/// `scan --db I --input vectors`: the index of vectors at `db` (made with
/// the vectors' dimension and --bands, --rows and --seed, or 20 × 5, when
/// missing) brought up to date with `points`: its hyperplanes' banding and
/// seed, and every vector's signature.
fn vectors_indexed(
    args: &ScanArgs,
    db: &Path,
    points: &vectors::Vectors,
    given: choose::Given,
) -> Result<(simfind::index::items::RefreshedItems, Banding, u64)> {
    if given.asked == choose::Asked::Exact {
        bail!(
            "--db keeps the vectors' hyperplane signatures, which only the LSH method uses; \
             drop --db for --method exact"
        );
    }
    if given.by_signature {
        bail!("--verify signature does not apply to scan --db --input vectors");
    }
    crate::app::output::refuse_overwriting_index(args.output, db)?;
    let mut index = config::points_index(
        db,
        (simfind::index::ItemKind::Vectors, points.dim),
        args.signing,
        args.wait,
    )?;
    let items: Vec<(&str, &[f32])> = (0..points.len())
        .map(|i| (points.ids[i].as_str(), points.row(i)))
        .collect();
    let refreshed = simfind::index::points::refresh(&mut index, &items)
        .with_context(|| format!("cannot update the index {}", db.display()))?;
    let params = index.params();
    let banding = Banding {
        bands: params.bands as usize,
        rows: params.rows as usize,
    };
    Ok((refreshed, banding, params.seed))
}

/// One line for stderr on what `scan --db` did to an index of vectors.
fn describe_vectors(refreshed: &simfind::index::items::RefreshedItems) -> String {
    format!(
        "{} vectors: {} unchanged (not signed), {} signed; index: {} added, {} changed, {} \
         removed",
        refreshed.unchanged + refreshed.signed,
        refreshed.unchanged,
        refreshed.signed,
        refreshed.update.added,
        refreshed.update.changed,
        refreshed.update.removed
    )
}

/// --method, -b/-r, --link and --verify as the choice of method takes them.
fn given_method(
    args: &ScanArgs,
    banding: Option<Banding>,
    starts: &[u32],
    verification: Verification,
) -> Result<choose::Given> {
    if let Some(b) = banding
        && (b.bands == 0 || b.rows == 0)
    {
        bail!("--bands and --rows must be at least 1");
    }
    Ok(choose::Given {
        asked: match args.matching.method {
            MethodArg::Auto => choose::Asked::Auto,
            MethodArg::Exact => choose::Asked::Exact,
            MethodArg::Lsh => choose::Asked::Lsh,
        },
        banding,
        link: args.link.then(|| starts[1]),
        min_recall: args.matching.min_recall,
        by_signature: verification == Verification::Signature,
    })
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

/// -b and -r as given: one alone takes the other's default, as in MinHash scans.
fn given_banding(s: &SigningArgs) -> Option<Banding> {
    match (s.bands, s.rows) {
        (None, None) => None,
        (b, r) => Some(Banding {
            bands: b.unwrap_or(DEFAULT_BANDS),
            rows: r.unwrap_or(DEFAULT_ROWS),
        }),
    }
}

/// `--input bits`: the Hamming radius given (a whole number of bits).
fn bits_radius(f: &FamilyArgs) -> Result<f64> {
    if !matches!(f.metric, None | Some(MetricArg::Hamming)) {
        bail!("--input bits is compared by Hamming distance: give --metric hamming");
    }
    Ok(match f.radius {
        Some(r) if r >= 0.0 && r.fract() == 0.0 => r,
        Some(r) => bail!("--radius {r}: a Hamming radius is a whole number of bits ≥ 0"),
        None => bail!("--metric hamming needs --radius K: pairs within K bits"),
    })
}

fn vector_plan(f: &FamilyArgs, threshold: Option<f64>, banding: Option<Banding>) -> Result<Plan> {
    Ok(match f.metric.unwrap_or(MetricArg::Cosine) {
        MetricArg::Cosine => {
            if f.radius.is_some() || f.bucket_width.is_some() {
                bail!(
                    "--radius and --bucket-width are for --metric euclidean; cosine takes -t (a cosine) or --angle"
                );
            }
            let min_cosine = match (threshold, f.angle) {
                (Some(t), None) if (-1.0..=1.0).contains(&t) => t,
                (Some(t), None) => bail!("-t {t}: a cosine similarity is in [-1, 1]"),
                (None, Some(deg)) if (0.0..=180.0).contains(&deg) => deg.to_radians().cos(),
                (None, Some(deg)) => bail!("--angle {deg}: an angle is in [0, 180] degrees"),
                _ => bail!("--metric cosine needs -t T (pairs with cosine ≥ T) or --angle DEG"),
            };
            Plan::Vectors {
                query: VectorQuery::Cosine { min_cosine },
                measure: Measure::Cosine,
                banding,
                width_given: false,
            }
        }
        MetricArg::Euclidean => {
            if threshold.is_some() || f.angle.is_some() {
                bail!("--metric euclidean takes --radius R (a distance), not -t or --angle");
            }
            let radius = match f.radius {
                Some(r) if r > 0.0 && r.is_finite() => r,
                Some(r) => bail!("--radius {r}: a distance > 0"),
                None => bail!("--metric euclidean needs --radius R: pairs at L2 distance ≤ R"),
            };
            let width = match f.bucket_width {
                None => 2.0 * radius,
                Some(a) if a > 0.0 && a.is_finite() => a,
                Some(a) => bail!("--bucket-width {a}: a width > 0"),
            };
            Plan::Vectors {
                query: VectorQuery::Euclidean { radius, width },
                measure: Measure::L2,
                banding,
                width_given: f.bucket_width.is_some(),
            }
        }
        MetricArg::Hamming => bail!("--metric hamming compares bit strings: give --input bits"),
        // `scan` routes containment to its own run, which refuses vectors;
        // `sign --input vectors` reaches here.
        MetricArg::Containment => bail!(
            "--metric containment compares sets of shingles or tokens: it does not apply to \
             --input vectors"
        ),
        MetricArg::Jaccard => {
            bail!("--input vectors has no Jaccard similarity: give --metric cosine or euclidean")
        }
    })
}

/// The given banding, or the cheapest one finding pairs at the threshold with
/// probability ≥ `min_recall` within [`FAMILY_HASHES`] values.
fn choose_banding(
    given: Option<Banding>,
    metric: Metric,
    distance: f64,
    min_recall: f64,
) -> Result<Banding> {
    if let Some(b) = given {
        if b.bands == 0 || b.rows == 0 {
            bail!("--bands and --rows must be at least 1");
        }
        return Ok(b);
    }
    let t = family::tune(metric, distance, FAMILY_HASHES, min_recall).map_err(|e| {
        anyhow::anyhow!(
            "no b·r ≤ {FAMILY_HASHES} finds pairs at the threshold with probability ≥ {min_recall} \
             ({e}); give --bands and --rows, or a lower --min-recall"
        )
    })?;
    Ok(Banding {
        bands: t.bands,
        rows: t.rows,
    })
}
