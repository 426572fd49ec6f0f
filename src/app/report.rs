//! The report stage of `scan`: from the verified pairs to what the user asked
//! to see — the pairs, the groups, or only the removable paths — plus the
//! summary lines about them and the exit status under `--exit-code`.
//!
//! Order of work: the `--min/--max-similarity` filters drop pairs first (so
//! groups are built only from the pairs that pass); the histogram counts the
//! pairs that remain; grouping ([`simfind::cluster`]) runs only when the output
//! is made of groups; `--limit` cuts only what is written, never what the
//! summary counts.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use simfind::action::plan::Candidate;
use simfind::action::planfile;
use simfind::cluster::removal::RemovalRun;
use simfind::cluster::{self, ClusterMethod, ClusterParams, KeepPolicy, SimilarityHistogram};
use simfind::pipeline::{FieldScores, ScanConfig, ScanOutcome};

use crate::app::exit;
use crate::app::flags::defs;
use crate::app::output::{groups, html, pairs};
use crate::app::ui::plural;

pub use crate::app::flags::values::{ClusterArg, FormatArg, KeepArg, SortArg};

pub mod plan;
mod removal;

pub use removal::{
    candidates, file_facts, held_back_note, hold_back, is_held_back_note, reference_flags,
    resolve_references,
};

/// Output and grouping options of `scan`, flattened into its arguments.
#[derive(clap::Args, Debug)]
#[command(
    mut_args(defs::one("keep", defs::keep(defs::Groups::Report))),
    mut_args(defs::one("reference", defs::reference(defs::Groups::Report))),
    mut_args(defs::one("exit_code", defs::exit_code(defs::ExitCode::Scan)))
)]
pub struct ReportArgs {
    /// What to write: pairs (CSV, one row per similar pair), tsv (the same
    /// columns tab-separated; \t \n \r \\ in a path escaped with a backslash),
    /// clusters (CSV, one row per file in a group of near-duplicates), jsonl
    /// (JSON Lines: one pair per line, or one group per line when --cluster is
    /// given), or html (one self-contained page to review the groups in a browser
    /// and export what to remove; with -o FILE).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = FormatArg::Pairs, help_heading = "Output")]
    pub format: FormatArg,

    /// Print only the paths of the files that are not kept (one per line), to
    /// feed a deletion you review (or let `simfind dedupe` act, with a journal).
    #[arg(long, conflicts_with = "format", help_heading = "Output")]
    pub list_removable: bool,

    /// With --list-removable: end each path with NUL instead of a newline (for xargs -0).
    #[arg(
        short = '0',
        long = "null",
        requires = "list_removable",
        help_heading = "Output"
    )]
    pub null: bool,

    /// Also write the plan to FILE: for every file that is not kept, its
    /// size, modification time and content hash and those of its kept copy,
    /// the similarity and whether the two are byte-identical (JSON Lines,
    /// docs/ACTIONS.md). Review it, then `simfind dedupe --apply FILE
    /// --move-to DIR` acts on exactly those files. Uses the threshold of a
    /// removal (0.9 unless -t).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub plan: Option<PathBuf>,

    /// Only pairs with similarity ≥ S (0 ≤ S ≤ 1); applied before grouping.
    #[arg(long, value_name = "S", help_heading = "Output")]
    pub min_similarity: Option<f64>,

    /// Only pairs with similarity ≤ S (0 ≤ S ≤ 1); applied before grouping.
    #[arg(long, value_name = "S", help_heading = "Output")]
    pub max_similarity: Option<f64>,

    /// Order of the pairs: path (by a, then b, in walk order) or similarity (most
    /// similar first, as written to 6 decimals; ties by a then b). With --limit N,
    /// similarity writes the N most similar pairs. Pairs only, not groups.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = SortArg::Path, help_heading = "Output")]
    pub sort: SortArg,

    /// Write at most N records: pairs, groups, or paths with --list-removable.
    /// The summary still counts everything.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Output")]
    pub limit: Option<u64>,

    /// With --format html: most bytes of file text the report embeds for its
    /// side-by-side explanations (each file once, at most 256 KiB each); pairs
    /// past it are listed without one, and the report says why.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = crate::app::args::parse_size, help_heading = "Output")]
    pub html_budget: u64,

    // --exit-code: defs::exit_code.
    #[arg(long, help_heading = "Output")]
    pub exit_code: bool,

    /// How pairs become groups: center (every member at least as similar as the
    /// threshold to its group's kept file; chains A~B~C never put A with an
    /// unrelated C) or connected (connected components: chains merge)
    /// [default: center]. With --format jsonl, giving --cluster is what asks for
    /// groups (one per line) instead of pairs.
    #[arg(long, value_enum, value_name = "METHOD", help_heading = "Groups")]
    pub cluster: Option<ClusterArg>,

    // --keep, --reference: defs::keep, defs::reference.
    #[arg(long, value_enum, help_heading = "Groups")]
    pub keep: Option<KeepArg>,

    #[arg(long, help_heading = "Groups")]
    pub reference: Vec<PathBuf>,

    /// A file is removable only when its kept copy holds all but at most this
    /// share of its shingles (0 to 1); one with more text of its own is held
    /// back: kept, and named on stderr with its figure. 1 lists every member
    /// that is not kept, whatever it holds. Files only (not records)
    /// [default: 0.01]
    #[arg(long, value_name = "FRACTION", value_parser = parse_fraction, help_heading = "Groups")]
    pub max_unique: Option<f64>,
}

/// A share from 0 to 1 (`--max-unique`).
pub fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("expected a share from 0 to 1, got {text:?}")),
    }
}

impl ReportArgs {
    /// These options as the library's description of a run that may decide
    /// removals ([`simfind::cluster::removal`]): which threshold it defaults to
    /// is the library's rule, the same for every input kind and subcommand.
    pub fn removal_run(&self) -> RemovalRun {
        RemovalRun {
            lists_removable: self.list_removable || self.plan.is_some(),
            groups: self.format == FormatArg::Clusters || self.cluster.is_some(),
            review: self.format == FormatArg::Html,
            acts: false,
        }
    }

    /// A `simfind dedupe` command line that acts on the list a report
    /// exports, over `roots` with the run's threshold, keep policy and
    /// references. Pasted into a shell it is a dry run whatever the names:
    /// every path is one shell word, the references are glued to their flag
    /// (`--reference=PATH`), and the roots come after `--`, so a root named
    /// `--remove` or `-rf` is a root and never an option.
    pub fn dedupe_command(&self, roots: &[PathBuf], threshold: f64) -> String {
        let word = |p: &Path| html::shell_word(&p.to_string_lossy());
        let mut dedupe = vec!["simfind".to_string(), "dedupe".to_string()];
        dedupe.push(format!("-t {threshold}"));
        if let Some(keep) = self.keep {
            dedupe.push(format!(
                "--keep {}",
                keep.to_possible_value()
                    .map(|v| v.get_name().to_string())
                    .unwrap_or_default()
            ));
        }
        for r in &self.reference {
            dedupe.push(format!("--reference={}", word(r)));
        }
        dedupe.push("--from-list simfind-removal.nul".to_string());
        dedupe.push("--".to_string());
        dedupe.extend(roots.iter().map(|r| word(r)));
        dedupe.join(" ")
    }
}

/// What is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Output {
    PairsCsv,
    PairsTsv,
    PairsJsonl,
    GroupsCsv,
    GroupsJsonl,
    GroupsHtml,
    Removable { separator: u8 },
}

/// Validated report options.
#[derive(Debug)]
pub struct Report {
    output: Output,
    method: ClusterMethod,
    keep: KeepPolicy,
    /// Canonical reference directories.
    references: Vec<PathBuf>,
    min_similarity: Option<f64>,
    max_similarity: Option<f64>,
    limit: usize,
    exit_code: bool,
    by_similarity: bool,
    /// What the HTML report says about the run (set by the scan before
    /// [`Report::write`]).
    run: Option<html::Run>,
    /// `scan --top K`: each item's K nearest neighbours instead of the pairs.
    top: Option<usize>,
    /// A file scan: the removal candidates are measured against their kept
    /// copies with this scan's recipe and held back over the cap
    /// ([`Report::measure_unique`]).
    unique: Option<(ScanConfig, f64)>,
    /// `-q`: the lines naming files held back are not printed (a file that
    /// could not be measured is still warned about).
    quiet: bool,
    /// The documents are records (rows, lines), not files: what the
    /// groups' summary line counts ([`Report::for_records`]).
    records: bool,
    /// `--keep` was given (else [`Report::for_records`] may change it).
    keep_given: bool,
    /// The removal decisions of the groups written, kept for the plan (so
    /// that a run with both measures and fingerprints each file once).
    decided: std::cell::RefCell<Decided>,
}

/// What writing the groups decided, for [`Report::candidates`] and
/// [`Report::plan`] to take.
#[derive(Debug, Default)]
struct Decided {
    candidates: Option<Vec<Candidate>>,
    plan: Option<(planfile::Header, simfind::action::plan::Plan)>,
}

impl Report {
    /// Checks the options before any work. Reference directories that are not
    /// inside one of `roots` are added to them, so that their files are scanned.
    pub fn from_args(args: &ReportArgs, roots: &mut Vec<PathBuf>) -> Result<Report> {
        for (flag, value) in [
            ("--min-similarity", args.min_similarity),
            ("--max-similarity", args.max_similarity),
        ] {
            if let Some(s) = value
                && !(0.0..=1.0).contains(&s)
            {
                bail!("{flag} must be between 0 and 1, got {s}");
            }
        }
        if let (Some(min), Some(max)) = (args.min_similarity, args.max_similarity)
            && min > max
        {
            bail!("--min-similarity ({min}) is larger than --max-similarity ({max})");
        }
        let output = match (args.list_removable, args.format, args.cluster) {
            (true, _, _) => Output::Removable {
                separator: if args.null { 0 } else { b'\n' },
            },
            (false, FormatArg::Pairs, _) => Output::PairsCsv,
            (false, FormatArg::Tsv, _) => Output::PairsTsv,
            (false, FormatArg::Clusters, _) => Output::GroupsCsv,
            (false, FormatArg::Jsonl, None) => Output::PairsJsonl,
            (false, FormatArg::Jsonl, Some(_)) => Output::GroupsJsonl,
            (false, FormatArg::Html, _) => Output::GroupsHtml,
        };
        let grouping = grouping_output(output);
        if grouping && args.sort == SortArg::Similarity {
            bail!(
                "--sort similarity applies only to pairs (--format pairs, tsv or jsonl without \
                 --cluster); groups are ordered by their kept file's path"
            );
        }
        if !grouping && args.plan.is_none() {
            let given: Vec<&str> = [
                (args.cluster.is_some(), "--cluster"),
                (args.keep.is_some(), "--keep"),
                (!args.reference.is_empty(), "--reference"),
            ]
            .into_iter()
            .filter_map(|(given, flag)| given.then_some(flag))
            .collect();
            if !given.is_empty() {
                bail!(
                    "{} {} only to groups: add --format clusters or --list-removable{}",
                    given.join(" and "),
                    if given.len() == 1 { "applies" } else { "apply" },
                    if args.format == FormatArg::Jsonl {
                        " (or --cluster center for JSON Lines groups)"
                    } else {
                        ""
                    }
                );
            }
        }
        let references = resolve_references(&args.reference, roots)?;
        Ok(Report {
            output,
            method: match args.cluster.unwrap_or(ClusterArg::Center) {
                ClusterArg::Center => ClusterMethod::Center,
                ClusterArg::Connected => ClusterMethod::Connected,
            },
            keep: args.keep.unwrap_or(KeepArg::Original).policy(),
            keep_given: args.keep.is_some(),
            decided: Default::default(),
            references,
            min_similarity: args.min_similarity,
            max_similarity: args.max_similarity,
            limit: args
                .limit
                .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            exit_code: args.exit_code,
            by_similarity: args.sort == SortArg::Similarity,
            run: None,
            top: None,
            unique: None,
            quiet: false,
            records: false,
        })
    }

    /// How pairs of at least `threshold` (the scan's) become groups.
    fn params(&self, threshold: f64) -> ClusterParams {
        ClusterParams {
            threshold: threshold.max(self.min_similarity.unwrap_or(f64::NEG_INFINITY)),
            method: self.method,
            keep: self.keep,
        }
    }

    /// The documents that are not kept, by the grouping and keep policy
    /// `--list-removable` lists them by, over the pairs [`Report::write`]
    /// left (its filters applied): what `--write-kept` leaves out.
    pub fn removable(&self, outcome: &ScanOutcome, threshold: f64) -> Vec<u32> {
        let reference = reference_flags(outcome, &self.references);
        let members = file_facts(&outcome.documents, &reference);
        let clustering =
            cluster::cluster_contents(&members, &outcome.pairs, &self.params(threshold));
        clustering.removable().map(|m| m.doc).collect()
    }

    /// The removable files with their kept copies, by the grouping and keep
    /// policy of the output, over the pairs [`Report::write`] left: what
    /// `--plan` writes.
    pub fn candidates(&self, outcome: &ScanOutcome, threshold: f64) -> Vec<Candidate> {
        // The groups written decided them already: measured once.
        if let Some(decided) = self.decided.borrow_mut().candidates.take() {
            return decided;
        }
        let unique = self.unique.as_ref().map(|(config, cap)| (config, *cap));
        // The held-back lines were printed when the output was written.
        candidates(outcome, &self.references, &self.params(threshold), unique).0
    }

    /// The plan of the removable files (`scan --plan`): the one the HTML
    /// report was written with, or one made from [`Report::candidates`].
    pub fn plan(
        &self,
        outcome: &ScanOutcome,
        config: &ScanConfig,
    ) -> Result<(planfile::Header, simfind::action::plan::Plan)> {
        if let Some(made) = self.decided.borrow_mut().plan.take() {
            return Ok(made);
        }
        let candidates = self.candidates(outcome, config.threshold);
        let cap = self.unique.as_ref().map(|(_, cap)| *cap);
        plan::build(&candidates, config, self.keep, cap)
    }

    /// A file scan with `config`: before groups, a list or a plan is written,
    /// every file that is not kept is measured against its kept copy, and
    /// one whose kept copy lacks more than `cap` of its shingles is held
    /// back (kept).
    pub fn measure_unique(&mut self, config: &ScanConfig, cap: f64, quiet: bool) {
        self.unique = Some((config.clone(), cap));
        self.quiet = quiet;
    }

    /// The documents are records, not files: the summary counts records in
    /// groups, and without `--keep` the first record of a group is kept.
    /// `original` reads a file's name and time, which a record's id is not
    /// (its length would decide).
    pub fn for_records(&mut self) {
        self.records = true;
        if !self.keep_given {
            self.keep = KeepPolicy::First;
        }
    }

    /// The HTML report is asked for: the scan must give it [`Report::set_run`].
    pub fn is_html(&self) -> bool {
        self.output == Output::GroupsHtml
    }

    /// `scan --top K`: the pairs are written as each item's `k` nearest
    /// neighbours, ranked; only the pair writers of CSV and TSV rank them.
    pub fn set_top(&mut self, k: usize) -> Result<()> {
        match self.output {
            Output::PairsCsv | Output::PairsTsv => {}
            Output::PairsJsonl => bail!("--top writes CSV or TSV: --format jsonl does not apply"),
            _ => bail!(
                "--top writes each item's nearest neighbours, not groups: it does not apply \
                 to --format clusters or html, --cluster or --list-removable"
            ),
        }
        if self.by_similarity {
            bail!("--top ranks each item's neighbours: --sort similarity does not apply");
        }
        self.top = Some(k);
        Ok(())
    }

    pub fn set_run(&mut self, run: html::Run) {
        self.run = Some(run);
    }

    /// Filters, groups and writes; `threshold` is the scan's. Returns what the
    /// summary and the exit status need.
    pub fn write(
        &self,
        outcome: &mut ScanOutcome,
        threshold: f64,
        sink: &mut impl Write,
    ) -> Result<Reported> {
        self.write_with_fields(outcome, threshold, None, sink)
    }

    /// [`Report::write`], with each pair's per-field similarities as extra
    /// columns of the pairs (`scan --per-field`).
    pub fn write_with_fields(
        &self,
        outcome: &mut ScanOutcome,
        threshold: f64,
        fields: Option<&FieldScores>,
        sink: &mut impl Write,
    ) -> Result<Reported> {
        let verified = outcome.pairs.len();
        let (min, max) = (
            self.min_similarity.unwrap_or(f64::NEG_INFINITY),
            self.max_similarity.unwrap_or(f64::INFINITY),
        );
        if self.min_similarity.is_some() || self.max_similarity.is_some() {
            outcome.pairs.retain(|s| s >= min && s <= max);
        }
        let histogram = SimilarityHistogram::from_doc_pairs(&outcome.pairs);
        let docs = &outcome.documents;
        let pairs = &outcome.pairs;
        // Counts in u64: a group of 100,000 copies has 5·10⁹ pairs.
        let records = usize::try_from(pairs.len()).unwrap_or(usize::MAX);
        let mut reported = Reported {
            verified: usize::try_from(verified).unwrap_or(usize::MAX),
            histogram,
            filtered: self.min_similarity.is_some() || self.max_similarity.is_some(),
            records,
            written: records.min(self.limit),
            groups: None,
            neighbours: false,
        };
        if let Some(k) = self.top {
            let rows = simfind::model::nearest::nearest(outcome.pairs.iter(), k);
            reported.records = rows.len();
            reported.written = rows.len().min(self.limit);
            reported.neighbours = true;
            let tsv = self.output == Output::PairsTsv;
            pairs::write_neighbours(docs, rows.into_iter().take(self.limit), tsv, sink)?;
            return Ok(reported);
        }
        let sorted = (self.by_similarity && !grouping_output(self.output))
            .then(|| pairs::by_similarity(outcome.pairs.iter(), self.limit));
        let written: Box<dyn Iterator<Item = simfind::pipeline::SimilarPair>> = match &sorted {
            Some(sorted) => Box::new(sorted.iter().copied()),
            None => Box::new(outcome.pairs.iter().take(self.limit)),
        };
        match self.output {
            Output::PairsCsv => pairs::write_csv_fields(docs, written, fields, sink)?,
            Output::PairsTsv => pairs::write_tsv_fields(docs, written, fields, sink)?,
            Output::PairsJsonl => {
                let identical = |a, b| pairs.same_content(a, b);
                pairs::write_jsonl_fields(docs, written, Some(&identical), fields, sink)?
            }
            Output::GroupsCsv
            | Output::GroupsJsonl
            | Output::GroupsHtml
            | Output::Removable { .. } => {
                let mut unread = 0;
                let reference = reference_flags(outcome, &self.references);
                let members = file_facts(docs, &reference);
                let mut clustering =
                    cluster::cluster_contents(&members, pairs, &self.params(threshold));
                if let Some((config, cap)) = &self.unique {
                    for line in hold_back(&mut clustering, outcome, config, *cap) {
                        if !(self.quiet && is_held_back_note(&line)) {
                            eprintln!("{line}");
                        }
                    }
                    let params = self.params(threshold);
                    let candidates = removal::removable(&clustering, outcome, &members, &params);
                    let mut decided = self.decided.borrow_mut();
                    // The report's export is a plan of the files it shows.
                    if self.run.as_ref().is_some_and(|r| r.export_plan) {
                        decided.plan =
                            Some(plan::build(&candidates, config, self.keep, Some(*cap))?);
                    }
                    decided.candidates = Some(candidates);
                }
                let is_reference = |id: u32| reference[id as usize];
                match self.output {
                    Output::GroupsCsv => {
                        groups::write_csv(docs, &is_reference, &clustering, self.limit, sink)?
                    }
                    Output::GroupsJsonl => {
                        let identical = |a, b| pairs.same_content(a, b);
                        groups::write_jsonl(
                            docs,
                            &is_reference,
                            &identical,
                            &clustering,
                            self.limit,
                            sink,
                        )?
                    }
                    Output::GroupsHtml => {
                        let run = self
                            .run
                            .as_ref()
                            .context("the HTML report needs the run's facts")?;
                        let decided = self.decided.borrow();
                        let failures = html::write(
                            docs,
                            &is_reference,
                            &clustering,
                            (&reported.histogram, decided.plan.as_ref()),
                            run,
                            self.limit,
                            sink,
                        )?;
                        for (path, reason) in &failures {
                            eprintln!(
                                "{} {path}: cannot read again for the report's explanation: {reason}",
                                crate::app::ui::warning_prefix()
                            );
                        }
                        unread = failures.len() as u64;
                    }
                    Output::Removable { separator } => {
                        groups::write_removable(docs, &clustering, separator, self.limit, sink)?
                    }
                    _ => unreachable!("pairs are written above"),
                }
                reported.records = match self.output {
                    Output::Removable { .. } => clustering.removable().count(),
                    _ => clustering.len(),
                };
                reported.written = reported.records.min(self.limit);
                reported.groups = Some(GroupSummary {
                    measured: clustering.measured(),
                    method: self.method,
                    keep: self.keep,
                    summary: clustering.summary(&members),
                    items: if self.records {
                        ("record", "records")
                    } else {
                        ("file", "files")
                    },
                    unit: if matches!(self.output, Output::Removable { .. }) {
                        "paths"
                    } else {
                        "groups"
                    },
                });
                // A file the report could not read again is an error of the
                // run (exit 1), like one the scan could not read.
                outcome.stats.errors += unread;
            }
        }
        Ok(reported)
    }
}

impl Report {
    /// The exit status: the scan's, or with `--exit-code` [`exit::NONE_FOUND`]
    /// when a complete run found nothing.
    pub fn exit_status(&self, scan_status: i32, reported: &Reported) -> i32 {
        if self.exit_code && scan_status == exit::OK && reported.records == 0 {
            exit::NONE_FOUND
        } else {
            scan_status
        }
    }
}

/// What the report did, for the summary and the exit status.
#[derive(Debug)]
pub struct Reported {
    /// Pairs the scan verified (before the filters).
    verified: usize,
    /// Similarities of the pairs that passed the filters.
    histogram: SimilarityHistogram,
    filtered: bool,
    /// Records the output had before `--limit`: pairs, groups, or paths.
    records: usize,
    written: usize,
    groups: Option<GroupSummary>,
    /// The records are neighbour rows (`scan --top K`).
    neighbours: bool,
}

#[derive(Debug)]
struct GroupSummary {
    /// The removal candidates were measured ([`Report::measure_unique`]).
    measured: bool,
    method: ClusterMethod,
    keep: KeepPolicy,
    summary: cluster::Summary,
    unit: &'static str,
    /// What a group holds, one and many: files or records.
    items: (&'static str, &'static str),
}

impl Reported {
    /// The `--summary-json` fields of the report: `reported` (pairs after the
    /// filters, records before and after --limit, their unit) and `groups`
    /// (null unless the output is made of groups).
    pub fn json(&self) -> serde_json::Map<String, serde_json::Value> {
        use serde_json::json;
        let mut fields = serde_json::Map::new();
        fields.insert(
            "reported".into(),
            json!({
                "pairs": self.histogram.total(),
                "records": self.records,
                "written": self.written,
                "unit": self.unit(),
            }),
        );
        fields.insert(
            "groups".into(),
            match &self.groups {
                None => serde_json::Value::Null,
                Some(g) => json!({
                    "count": g.summary.groups,
                    "method": match g.method {
                        ClusterMethod::Center => "center",
                        ClusterMethod::Connected => "connected",
                    },
                    "keep": keep_name(g.keep),
                    "files": g.summary.files_in_groups,
                    "removable": g.summary.removable_files,
                    "bytes_freed": g.summary.removable_bytes,
                }),
            },
        );
        // Files only: groups of records are not measured, and keep the
        // fields they had.
        if let Some(g) = self.groups.as_ref().filter(|g| g.measured)
            && let Some(serde_json::Value::Object(groups)) = fields.get_mut("groups")
        {
            groups.insert("held_back".into(), json!(g.summary.held_back_files));
        }
        fields
    }

    /// What a record of the output is: pairs, neighbours, groups or paths.
    fn unit(&self) -> &'static str {
        match &self.groups {
            Some(g) => g.unit,
            None if self.neighbours => "neighbours",
            None => "pairs",
        }
    }

    /// The summary lines added after the scan's own.
    pub fn summary(&self) -> String {
        let mut lines = Vec::new();
        let pairs = self.histogram.total();
        let buckets: Vec<String> = self
            .histogram
            .shown_buckets()
            .map(|b| {
                if b.lower == b.upper {
                    format!("1.0: {}", b.count)
                } else {
                    format!("{:.1}–{:.1}: {}", b.lower, b.upper, b.count)
                }
            })
            .collect();
        let filtered = if self.filtered {
            format!(
                " ({} of {} pass the similarity filters)",
                pairs, self.verified
            )
        } else {
            String::new()
        };
        let noun = if pairs == 1 { "pair" } else { "pairs" };
        lines.push(format!(
            "simfind: similarity of {pairs} {noun}{filtered}: {}",
            buckets.join(", ")
        ));
        if let Some(g) = &self.groups {
            let s = &g.summary;
            lines.push(
                format!(
                    "simfind: {} ({}, keep {}): {} in groups, {} removable, {} would be freed",
                    plural(s.groups as u64, "group", "groups"),
                    match g.method {
                        ClusterMethod::Center => "center",
                        ClusterMethod::Connected => "connected",
                    },
                    keep_name(g.keep),
                    plural(s.files_in_groups as u64, g.items.0, g.items.1),
                    s.removable_files,
                    human_bytes(s.removable_bytes),
                ) + &held_back_note(s.held_back_files),
            );
        }
        if self.written < self.records {
            let unit = self.unit();
            lines.push(format!(
                "simfind: --limit: wrote {} of {} {unit}",
                self.written, self.records
            ));
        }
        lines.join("\n")
    }
}

fn grouping_output(output: Output) -> bool {
    !matches!(
        output,
        Output::PairsCsv | Output::PairsTsv | Output::PairsJsonl
    )
}

pub(crate) fn keep_name(keep: KeepPolicy) -> &'static str {
    match keep {
        KeepPolicy::Newest => "newest",
        KeepPolicy::Oldest => "oldest",
        KeepPolicy::Largest => "largest",
        KeepPolicy::Smallest => "smallest",
        KeepPolicy::ShortestPath => "shortest-path",
        KeepPolicy::First => "first",
        KeepPolicy::Original => "original",
    }
}

/// Bytes with a decimal unit, as the scan summary's MB.
pub(crate) fn human_bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_for_people() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(1_500), "1.5 kB");
        assert_eq!(human_bytes(2_345_678), "2.3 MB");
        assert_eq!(human_bytes(7_000_000_000), "7.0 GB");
    }
}
