//! `simfind dedupe`: scan, then act on the files a keep policy finds
//! removable: a dry run by default; `--move-to DIR`, `--remove`, `--link` or
//! `--reflink` to act, with a journal that `simfind undo` reverses. The
//! decisions and the file operations are the library's (`simfind::action`);
//! this file parses, prints and picks the exit code.

use std::io::{BufRead, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use simfind::action::Event;
use simfind::action::journal::{self, Outcome};
use simfind::action::plan;
use simfind::action::planfile;
use simfind::action::{Action, lock};
use simfind::cluster::removal::{MAX_UNIQUE, RemovalRun, SAFE_THRESHOLD};
use simfind::cluster::{ClusterMethod, ClusterParams};
use simfind::pipeline;

use crate::app::args::{self, ExitRow, FileArgs, MatchArgs, SigningArgs};
use crate::app::config;
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::output::html::shell_word;
use crate::app::output::pairs::tsv_field;
use crate::app::output::rfc3339;
use crate::app::output::summary::{self, SummaryArgs, SummaryJson};
use crate::app::report::{self, KeepArg, human_bytes};
use crate::app::ui::{Ui, Verbosity, plural, warning_prefix};

mod act;
mod planned;

use crate::app::report::plan::{canonical_roots, measure_of, open_plan, write_plan};
use act::{carry_out, lock_for, new_journal, warn_skipped};
use planned::apply_plan;

const EXAMPLES: &str = "EXAMPLES:
  simfind dedupe ./docs                       dry run: what would be acted on (t = 0.9)
  simfind dedupe ./docs -t 0.95 --keep newest --move-to ~/quarantine
                                              move the copies into ~/quarantine/<time>/,
                                              keeping their paths
  simfind undo ~/quarantine/simfind-journal-….jsonl    and put them back
  simfind dedupe /srv/share --move-to /srv/q -q --summary-json run.json
                                              nightly from cron: silent on success
  simfind dedupe ./drop --reference ./archive --move-to /srv/q
                                              what the archive already holds
  simfind dedupe ./photos -t 1 --link         hard-link byte-identical files
  simfind dedupe ./docs --move-to /srv/q --dry-run   where each file would go
  simfind dedupe --apply simfind-plan.jsonl --move-to /srv/q
                                              only what a reviewer selected in the
                                              report of `scan ./docs --format html`
  simfind scan ./docs --plan plan.jsonl       write a plan to review, then
  simfind dedupe --apply plan.jsonl --move-to /srv/q
                                              act on exactly its files, refusing any
                                              file or kept copy changed since

SAFETY: the threshold is 0.9 unless -t is given (the S-curve threshold of the
banding would call files 55 % alike copies). Before each action the file and its
kept copy are re-checked against the scan (size, modification time, content
hash) and skipped with a warning if either changed; the kept copy must exist, so
the last copy of a group is never touched. Symlinks are never followed (-L is
refused), nothing outside the roots is touched, nothing is overwritten.
--link, --reflink and --remove act only on byte-identical files (compared byte
for byte); --remove --allow-near deletes near-duplicates too, for good. -t 1 means
byte-identical files, of any type (binary ones too); --same-text adds texts equal
once normalised.

OUTPUT (one line per file, tab-separated):
VERB, path, kept copy, similarity, [destination of a move,] identical|near
(whether the file is byte-identical to its kept copy)[, not in kept: P % (~B) (in
a dry run: the share of the file's shingles its kept copy lacks)][, kept because:
WHY (with --keep original in a dry run: oldest, no copy marker, shorter path,
found first)].

HELD BACK: a file whose kept copy lacks more than 1 % of its shingles
(--max-unique) holds text of its own: it is kept, never acted on, and named on
stderr with its figure.

PLAN (--plan FILE, JSON Lines, docs/ACTIONS.md): a header line, then one line per
file with the path, size, modification time and xxh3-128 content hash of the file
and of its kept copy, the similarity and whether the two are byte-identical.
--apply FILE acts on exactly those files; one whose file or kept copy no longer
has the recorded size, time and hash is named on stderr, skipped and kept (exit 1),
and so is one whose share of text not in its kept copy, measured again with the
plan's recipe, is above the plan's --max-unique or the figure its line records.

JOURNAL (JSON Lines, one line synced to disk before each action and one after):
by default DIR/simfind-journal-<time>-<pid>.jsonl with --move-to DIR, else under
$XDG_STATE_HOME/simfind (~/.local/state/simfind); its path is printed. After a
crash or kill -9 it tells exactly what may have been done; `simfind undo` reverses
it. --move-to can always be undone; --remove only for byte-identical files (undo
copies them back from the kept copy): a near-duplicate removed with --allow-near
is gone.

";

/// What every exit code of `dedupe` means.
pub const EXIT_STATUS: &[ExitRow] = &[
    (
        exit::OK,
        "every planned action was done (or, in a dry run, every file checks out)",
    ),
    (
        exit::PARTIAL,
        "finished, but some files were skipped (changed since the scan, unreadable,\n\
         not identical for --link or --remove, destination taken) or an action\n\
         failed; warnings on stderr name each file, the journal records what was done",
    ),
    (
        exit::FATAL,
        "usage error or fatal error; nothing was touched after the error",
    ),
    (
        exit::NONE_FOUND,
        "with --exit-code: nothing to act on, and every file was read",
    ),
    (
        exit::INTERRUPTED,
        "interrupted (SIGINT/SIGTERM) between two actions; the journal is complete",
    ),
];

/// Find near-duplicates under one or more directories and act on the copies:
/// a dry run unless --move-to, --remove, --link or --reflink is given.
///
/// Runs the same scan as `simfind scan` (same options), groups the files
/// around a kept copy (every member at least T-similar to it; --keep and
/// --reference choose the kept copy), and acts on the others. The threshold
/// is 0.9 unless -t is given.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, EXIT_STATUS))]
#[command(
    mut_args(defs::one("keep", defs::keep(defs::Groups::Dedupe))),
    mut_args(defs::one("reference", defs::reference(defs::Groups::Dedupe))),
    mut_args(defs::one("exit_code", defs::exit_code(defs::ExitCode::Dedupe))),
    mut_args(defs::one("wait", defs::wait(defs::Wait::Changes)))
)]
pub struct Args {
    /// Directories to scan; optional with --files-from/--files0-from (a listed
    /// file's directory is then its root).
    #[arg(
        required_unless_present_any = ["files_from", "files0_from", "apply"],
        value_name = "DIR"
    )]
    pub roots: Vec<PathBuf>,

    #[command(flatten)]
    pub signing: SigningArgs,

    #[command(flatten)]
    pub matching: MatchArgs,

    #[command(flatten)]
    pub files: FileArgs,

    // --keep, --reference: defs::keep, defs::reference.
    #[arg(long, value_enum, help_heading = "Groups")]
    pub keep: Option<KeepArg>,

    #[arg(long, help_heading = "Groups")]
    pub reference: Vec<PathBuf>,

    /// Act on a file only when its kept copy holds all but at most this share
    /// of its shingles (0 to 1); one with more text of its own is held back:
    /// kept, and named on stderr with its figure. 1 acts on every copy
    /// [default: 0.01]
    #[arg(long, value_name = "FRACTION", value_parser = report::parse_fraction, help_heading = "Groups")]
    pub max_unique: Option<f64>,

    /// Move each copy into a new sub-folder of DIR named after the run's time
    /// (UTC), keeping its path relative to its root (as DIR/<time>/<root
    /// name>/<path>, e.g. DIR/2026-11-29T031500Z/docs/a.txt): quarantine that
    /// `simfind undo` reverses, and that the same DIR can take every night. DIR
    /// must lie outside the roots.
    #[arg(long, value_name = "DIR", group = "action", help_heading = "Action")]
    pub move_to: Option<PathBuf>,

    /// Delete each byte-identical copy (undo re-creates it from its kept copy);
    /// near-duplicates are skipped unless --allow-near. Prefer --move-to.
    #[arg(long, group = "action", help_heading = "Action")]
    pub remove: bool,

    /// With --remove, also delete copies that are not byte-identical to their
    /// kept copy (near-duplicates, or texts equal once normalised). Undo cannot
    /// re-create them; --move-to is the undoable way to act on near-duplicates.
    #[arg(long, help_heading = "Action")]
    pub allow_near: bool,

    /// With -t 1, also treat files whose texts are only equal once normalised
    /// (a CRLF, an ALL-CAPS or a reflowed copy) as copies. Without it, -t 1
    /// means byte-identical files.
    #[arg(long, help_heading = "Action")]
    pub same_text: bool,

    /// Replace each byte-identical copy by a hard link to its kept copy;
    /// near-duplicates are skipped.
    #[arg(long, group = "action", help_heading = "Action")]
    pub link: bool,

    /// Replace each byte-identical copy by a reflink (copy-on-write clone, e.g.
    /// Btrfs, XFS); near-duplicates are skipped; an error where the file system
    /// cannot clone.
    #[arg(long, group = "action", help_heading = "Action")]
    pub reflink: bool,

    /// Act only on the files FILE lists (one path a line, as `scan
    /// --list-removable -o FILE` writes them, or NUL-separated as the HTML
    /// report's export and `--list-removable -0` write them: a NUL anywhere
    /// makes it a NUL list), each by its path as walked (the root as given +
    /// the relative path: give the same roots). A listed file this scan does
    /// not find removable (a kept copy, in no group, absent) is named and
    /// skipped (exit 1).
    #[arg(long, value_name = "FILE", help_heading = "Action")]
    pub from_list: Option<PathBuf>,

    /// Only print what the action would do (the default without an action).
    #[arg(long, short = 'n', help_heading = "Action")]
    pub dry_run: bool,

    /// With a dry run, also write the plan to FILE: every action with the
    /// size, modification time and content hash of the file and of its kept
    /// copy (JSON Lines, docs/ACTIONS.md), to review and then act on with
    /// `dedupe --apply FILE`.
    #[arg(long, value_name = "FILE", help_heading = "Action")]
    pub plan: Option<PathBuf>,

    /// Act on exactly the actions of a reviewed plan (`scan --plan`, `dedupe
    /// --dry-run --plan`) instead of scanning, with --move-to DIR, --remove
    /// or --link. A file or kept copy whose size, modification time or
    /// content hash is not what the plan records is named, skipped and kept
    /// (exit 1).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = [
            "roots", "from_list", "plan", "keep", "reference", "threshold", "files_from",
            "files0_from",
        ],
        help_heading = "Action"
    )]
    pub apply: Option<PathBuf>,

    /// Write the journal to FILE (must not exist) instead of the default.
    #[arg(long, value_name = "FILE", help_heading = "Action")]
    pub journal: Option<PathBuf>,

    #[command(flatten)]
    pub verbosity: Verbosity,

    // --exit-code: defs::exit_code.
    #[arg(long, help_heading = "Output")]
    pub exit_code: bool,

    // --wait: defs::wait.
    #[arg(long, default_value_t = 0.0, help_heading = "Action")]
    pub wait: f64,

    #[command(flatten)]
    pub summary_json: SummaryArgs,

    // The scan before the action signs and verifies on the threads.
    #[command(flatten)]
    pub threads: args::ThreadArgs,

    /// Hidden, for tests: after the intent of action N (from 0) is journalled,
    /// print "paused" on stderr and wait for a line on stdin.
    #[arg(long, value_name = "N", hide = true)]
    pub pause_at: Option<u64>,
}

pub fn run(args: Args) -> Result<i32> {
    args::wait_duration(args.wait)?;
    if args.files.follow_links {
        bail!("dedupe never follows symbolic links: drop -L/--follow-links");
    }
    let action = match (&args.move_to, args.remove, args.link, args.reflink) {
        (Some(dir), ..) => Some(Action::MoveTo(dir.clone())),
        (None, true, ..) => Some(Action::Remove),
        (None, _, true, _) => Some(Action::Link),
        (None, _, _, true) => Some(Action::Reflink),
        _ => None,
    };
    if args.allow_near && action != Some(Action::Remove) {
        bail!(
            "--allow-near goes with --remove only: --link and --reflink never replace a \
             near-duplicate, and --move-to moves near-duplicates already"
        );
    }
    let dry_run = args.dry_run || action.is_none();
    if let Some(file) = &args.apply {
        return apply_plan(&args, file, action, dry_run);
    }
    if let Some(plan) = &args.plan
        && !dry_run
    {
        bail!(
            "--plan {}: a plan is what a dry run would do: add --dry-run (-n), review it, then \
             act on it with --apply",
            plan.display()
        );
    }
    if let Some(journal) = &args.journal
        && dry_run
    {
        bail!(
            "--journal {}: a dry run writes no journal",
            journal.display()
        );
    }
    let from_list = match &args.from_list {
        Some(file) => Some(
            simfind::input::bounded::read_path(file, simfind::input::bounded::caps::PATH_LIST)
                .map(|bytes| simfind::input::list::parse_either(&bytes))
                .with_context(|| format!("cannot read --from-list {}", file.display()))?,
        ),
        None => None,
    };
    // Opened before any work: an unwritable destination fails at once. The
    // data is on stdout, so `-` is refused.
    let summary_json = SummaryJson::open(&args.summary_json, true)?;
    let plan_sink = open_plan(args.plan.as_deref())?;
    // Paths are reported absolute everywhere (stdout, warnings, journal):
    // the roots, the listed files and the --from-list entries are made
    // absolute before the walk, so a path reads the same in every message.
    let from_list = from_list.map(|list| list.iter().map(|p| absolute(p)).collect::<Vec<_>>());
    // dedupe always acts (or shows what it would do): the library's removal
    // rule gives it the safe threshold unless -t is given.
    let mut matching = args.matching.clone();
    let default_threshold = matching.threshold.is_none();
    let acting = RemovalRun {
        acts: true,
        ..RemovalRun::default()
    };
    matching.threshold = acting.threshold(matching.threshold);
    let roots: Vec<PathBuf> = args.roots.iter().map(|r| absolute(r)).collect();
    let (mut config, threshold_source) =
        config::scan(&roots, &args.signing, &matching, &args.files, false, None)?;
    for listed in &mut config.walk.listed {
        *listed = absolute(listed);
    }
    let references = report::resolve_references(&args.reference, &mut config.roots)?;
    // The roots a file must lie under to be acted on (and whose names the
    // quarantine keeps): the directories given, and each listed file's own
    // directory.
    let mut plan_roots = config.roots.clone();
    for listed in &config.walk.listed {
        if let Some(parent) = listed.parent()
            && !plan_roots.iter().any(|r| r == parent)
        {
            plan_roots.push(parent.to_path_buf());
        }
    }
    let journal_path = match (&action, dry_run) {
        (Some(action), false) => Some(new_journal(args.journal.as_deref(), action)?),
        _ => None,
    };
    // Held until this function returns (an error or a panic too): no other
    // run changes files in these trees meanwhile, so the re-check of each
    // kept copy just before an action stays true while the action runs.
    let _lock = match (&action, &journal_path) {
        (Some(action), Some(_)) => Some(lock_for(&plan_roots, action, args.wait)?),
        _ => None,
    };
    // Each run moves into its own new sub-folder of --move-to, chosen under
    // the lock (no other run picks the same one meanwhile).
    let action = match action {
        Some(Action::MoveTo(dir)) => Some(Action::MoveTo(run_folder(&dir))),
        action => action,
    };
    if !args.verbosity.quiet {
        let note = if default_threshold {
            format!(
                " (dedupe's default: only files at least {:.0} % alike are acted on; give -t to change it)",
                SAFE_THRESHOLD * 100.0
            )
        } else {
            String::new()
        };
        eprintln!("simfind: threshold {:.3}{note}", config.threshold);
    }

    let ui = Ui::with(args.verbosity);
    let started = std::time::Instant::now();
    let mut outcome = pipeline::scan(&config, &ui);
    let scan_seconds = started.elapsed().as_secs_f64();
    let stage_seconds = ui.stage_seconds();
    drop(ui);
    if !args.verbosity.quiet {
        eprintln!(
            "{}",
            summary::scan_line(
                &outcome,
                &config,
                (threshold_source, matching.min_recall, None),
                scan_seconds,
                None,
            )
        );
    }
    if config.threshold >= 1.0 && !args.same_text {
        pipeline::keep_byte_identical(&mut outcome);
    }
    let cap = args.max_unique.unwrap_or(MAX_UNIQUE);
    let (mut candidates, held_back) = candidates(
        &outcome,
        &references,
        (config.threshold, args.keep),
        (&config, cap),
    );
    for line in &held_back {
        if !(args.verbosity.quiet && report::is_held_back_note(line)) {
            eprintln!("{line}");
        }
    }
    let mut unlisted = 0;
    if let Some(list) = &from_list {
        let wanted: std::collections::HashSet<&Path> = list.iter().map(PathBuf::as_path).collect();
        let removable: std::collections::HashSet<PathBuf> =
            candidates.iter().map(|c| c.path.clone()).collect();
        candidates.retain(|c| wanted.contains(c.path.as_path()));
        let mut seen = std::collections::HashSet::new();
        for path in list.iter().filter(|p| seen.insert(p.as_path())) {
            if !removable.contains(path) {
                unlisted += 1;
                eprintln!(
                    "{} {}: skipped: --from-list names it, but this scan does not find it removable (a kept copy, in no group, or not found under the roots)",
                    warning_prefix(),
                    path.display()
                );
            }
        }
    }
    let plan_action = action.clone().unwrap_or(Action::Remove);
    let mut plan = plan::build(&plan_roots, &plan_action, &candidates)?;
    if action == Some(Action::Remove) && !args.allow_near {
        plan.hold_back_near();
    }
    warn_skipped(&plan, &plan_action);
    let status = if outcome.stats.errors > 0 || !plan.skipped.is_empty() || unlisted > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    };
    if dry_run {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let verb = match &action {
            None => "removable",
            Some(Action::MoveTo(_)) => "would move",
            Some(Action::Remove) => "would remove",
            Some(Action::Link) => "would link",
            Some(Action::Reflink) => "would reflink",
        };
        let mut bytes = 0;
        // --keep original (the default) says which of its rules chose the
        // kept copy, as a last column; every other policy is one rule.
        let reasons = args.keep.unwrap_or(KeepArg::Original) == KeepArg::Original;
        for e in &plan.entries {
            bytes += e.fingerprint.size;
            write_line(
                &mut out,
                verb,
                &e.path,
                e.to.as_deref(),
                &e.kept,
                e.similarity,
                (
                    e.identical,
                    e.only_in,
                    e.kept_because.as_deref().filter(|_| reasons),
                ),
            )?;
        }
        out.flush()?;
        if !args.verbosity.quiet {
            eprintln!(
                "simfind: dry run: {} ({}){}; nothing was changed{}",
                plural(plan.entries.len() as u64, "file", "files"),
                human_bytes(bytes),
                report::held_back_note(held_back.len()),
                if action.is_none() {
                    "; act with --move-to DIR (undoable), --link or --reflink (identical files), or --remove"
                } else {
                    ""
                }
            );
        }
        if let Some(sink) = plan_sink {
            let header = planfile::Header {
                action: action_name(action.as_ref()).map(str::to_string),
                threshold: config.threshold,
                keep: report::keep_name(args.keep.unwrap_or(KeepArg::Original).policy())
                    .to_string(),
                roots: canonical_roots(&plan_roots)?,
                measure: Some(measure_of(&config, cap)),
            };
            write_plan(sink, &header, &plan)?;
        }
        let status = found_status(args.exit_code, status, plan.entries.is_empty());
        let fields = serde_json::json!({
            "dry_run": true,
            "action": action_name(action.as_ref()),
            "planned": plan.entries.len(),
            "planned_bytes": bytes,
            "skipped_files": plan.skipped.len() + unlisted,
            "held_back": held_back.len(),
        });
        write_summary(
            summary_json,
            status,
            &outcome,
            &config,
            fields,
            (threshold_source, matching.min_recall),
            (scan_seconds, &stage_seconds),
        )?;
        return Ok(status);
    }

    let action = action.expect("not a dry run");
    let journal_path = journal_path.expect("a journal for a run that acts");
    let Some((status, applied)) = carry_out(&args, &action, &journal_path, &plan, status)? else {
        return Ok(exit::INTERRUPTED);
    };
    let total = plan.entries.len();
    let status = found_status(args.exit_code, status, plan.entries.is_empty());
    let fields = serde_json::json!({
        "dry_run": false,
        "action": action_name(Some(&action)),
        "planned": total,
        "done": applied.done,
        "done_bytes": applied.bytes,
        "skipped_files": applied.skipped + plan.skipped.len() + unlisted,
        "held_back": held_back.len(),
        "failed": applied.failed,
        "journal": journal_path.to_string_lossy(),
        "move_to": match &action {
            Action::MoveTo(dir) => Some(dir.to_string_lossy().into_owned()),
            _ => None,
        },
    });
    write_summary(
        summary_json,
        status,
        &outcome,
        &config,
        fields,
        (threshold_source, matching.min_recall),
        (scan_seconds, &stage_seconds),
    )?;
    Ok(status)
}

/// With `--exit-code`, [`exit::NONE_FOUND`] for a complete run that found
/// nothing to act on (scan's rule).
fn found_status(exit_code: bool, status: i32, nothing: bool) -> i32 {
    if exit_code && status == exit::OK && nothing {
        exit::NONE_FOUND
    } else {
        status
    }
}

fn action_name(action: Option<&Action>) -> Option<&'static str> {
    action.map(|a| match a {
        Action::MoveTo(_) => "move",
        Action::Remove => "remove",
        Action::Link => "link",
        Action::Reflink => "reflink",
    })
}

/// The `--summary-json` document: scan's fields, then what dedupe planned
/// and did (`fields`).
fn write_summary(
    out: Option<SummaryJson>,
    status: i32,
    outcome: &pipeline::ScanOutcome,
    config: &simfind::pipeline::ScanConfig,
    fields: serde_json::Value,
    (source, min_recall): (config::ThresholdSource, f64),
    (seconds, stages): (f64, &crate::app::ui::StageSeconds),
) -> Result<()> {
    let Some(out) = out else { return Ok(()) };
    let mut all = summary::scan_fields(outcome, config, (source, min_recall, None), None);
    if let serde_json::Value::Object(fields) = fields {
        all.extend(fields);
    }
    all.insert("seconds".into(), summary::seconds(seconds, stages));
    out.write(&summary::document("dedupe", status, all))
}

/// `path` made absolute without touching the file system (no symlink
/// resolved): how dedupe names every path it reports.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A walked path as the plan names the files it acts on: its directory
/// resolved, its last component kept.
fn resolved(path: &Path) -> PathBuf {
    plan::absolute_no_follow(path).unwrap_or_else(|_| absolute(path))
}

/// This run's new sub-folder of the quarantine `dir`: the run's time in UTC,
/// `2026-11-29T031500Z` (names sort by time), with `-2`, `-3`, … added when
/// a folder of that name exists (two runs in one second).
fn run_folder(dir: &Path) -> PathBuf {
    let stamp = rfc3339(std::time::SystemTime::now()).replace(':', "");
    let mut folder = dir.join(&stamp);
    let mut n = 1;
    while std::fs::symlink_metadata(&folder).is_ok() {
        n += 1;
        folder = dir.join(format!("{stamp}-{n}"));
    }
    folder
}

/// One line of stdout:
/// `VERB<TAB>PATH<TAB>KEPT<TAB>SIMILARITY[<TAB>TO]<TAB>identical|near`, the
/// last column added at the end so that the earlier ones keep their places;
/// then `<TAB>not in kept: P %[ (~B)]` when the file was measured against
/// its kept copy, and `<TAB>kept because: WHY` when `because` is given.
fn write_line(
    out: &mut impl Write,
    verb: &str,
    path: &Path,
    to: Option<&Path>,
    kept: &Path,
    similarity: Option<f64>,
    (identical, only_in, because): (bool, Option<(f64, u64)>, Option<&str>),
) -> std::io::Result<()> {
    out.write_all(verb.as_bytes())?;
    out.write_all(b"\t")?;
    tsv_field(out, path.as_os_str().as_bytes())?;
    out.write_all(b"\t")?;
    tsv_field(out, kept.as_os_str().as_bytes())?;
    match similarity {
        Some(s) => write!(out, "\t{s:.6}")?,
        None => out.write_all(b"\t")?,
    }
    if let Some(to) = to {
        out.write_all(b"\t")?;
        tsv_field(out, to.as_os_str().as_bytes())?;
    }
    out.write_all(if identical { b"\tidentical" } else { b"\tnear" })?;
    if let Some((share, bytes)) = only_in {
        write!(out, "\tnot in kept: {}", crate::app::speak::percent(share))?;
        if bytes > 0 {
            write!(out, " (~{})", human_bytes(bytes))?;
        }
    }
    if let Some(why) = because {
        write!(out, "\tkept because: {why}")?;
    }
    out.write_all(b"\n")
}

/// The removable files of the center grouping, each with its kept copy,
/// those whose kept copy lacks more than `cap` of them held back; and a line
/// naming each file held back.
fn candidates(
    outcome: &pipeline::ScanOutcome,
    references: &[PathBuf],
    (threshold, keep): (f64, Option<KeepArg>),
    (config, cap): (&pipeline::ScanConfig, f64),
) -> (Vec<plan::Candidate>, Vec<String>) {
    let params = ClusterParams {
        threshold,
        method: ClusterMethod::Center,
        keep: keep.unwrap_or(KeepArg::Original).policy(),
    };
    report::candidates(outcome, references, &params, Some((config, cap)))
}

/// Takes the lock that keeps other runs that change files (`dedupe` acting,
/// `undo`) out of `trees`, waiting up to `wait` seconds (`--wait`, checked
/// before any work) while another run holds one, then refuses naming it.
pub(crate) fn lock_trees(trees: &[PathBuf], wait: f64) -> Result<lock::TreeLock> {
    let command = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    match lock::lock(
        &lock::default_dir(),
        trees,
        &command,
        args::wait_duration(wait)?,
    ) {
        Ok(held) => Ok(held),
        Err(lock::LockError::Busy {
            tree,
            holder,
            file,
            waited,
        }) => {
            let who = match holder {
                Some(h) => format!(
                    "pid {}, started {}: {}",
                    h.pid,
                    rfc3339(h.started_at()),
                    h.command
                ),
                None => format!("its lock file {} does not say who", file.display()),
            };
            let waited = if waited.is_zero() {
                String::new()
            } else {
                format!(
                    " and still was after {:.1} s (--wait)",
                    waited.as_secs_f64()
                )
            };
            bail!(
                "{} is locked by another simfind run that is changing files in it ({who}){waited}; \
                 nothing was changed: run again when it has finished, or give --wait SECONDS",
                tree.display()
            )
        }
        Err(err) => Err(err.into()),
    }
}

/// `--journal`, or the default: beside the quarantine for a move, else under
/// the XDG state directory.
fn journal_path(given: Option<&Path>, action: &Action) -> Result<PathBuf> {
    if let Some(path) = given {
        return Ok(path.to_path_buf());
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let name = format!("simfind-journal-{secs}-{}.jsonl", std::process::id());
    if let Action::MoveTo(dir) = action {
        return Ok(dir.join(name));
    }
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .context("no journal directory: set HOME or XDG_STATE_HOME, or give --journal FILE")?;
    Ok(state.join("simfind").join(name))
}
