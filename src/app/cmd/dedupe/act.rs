//! The acting half of `dedupe`, shared by a scan's run and `--apply`: the
//! lock of the trees, the journal, and carrying out a plan's entries.

use super::*;
use simfind::action::{Applied, apply};

/// Acts on `plan` with `action`, journalled at `journal_path` (a new file),
/// printing each file done and the run's summary line; `status` is the exit
/// status so far. `None` when interrupted between two actions.
pub(crate) fn carry_out(
    args: &Args,
    action: &Action,
    journal_path: &Path,
    plan: &plan::Plan,
    mut status: i32,
) -> Result<Option<(i32, Applied)>> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut journal = journal::Writer::create(journal_path, action)
        .with_context(|| format!("cannot create the journal {}", journal_path.display()))?;
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: journal: {} (undo with: simfind undo -- {})",
            journal.path().display(),
            shell_word(&journal.path().to_string_lossy())
        );
    }
    if *action == Action::Remove && !args.verbosity.quiet {
        eprintln!(
            "simfind: note: --remove: undo can re-create only the byte-identical files; removed near-duplicates are gone (--move-to can always be undone)"
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }
    let verb = match action {
        Action::MoveTo(_) => "moved",
        Action::Remove => "removed",
        Action::Link => "linked",
        Action::Reflink => "reflinked",
    };
    let mut write_error = None;
    let total = plan.entries.len();
    let stopped = || stop.load(Ordering::SeqCst);
    let applied = apply(
        plan,
        action,
        &mut journal,
        &stopped,
        &mut |event| match event {
            Event::Intent { seq, .. } => {
                if args.pause_at == Some(seq) {
                    eprintln!("simfind: paused before action {seq}");
                    let mut line = String::new();
                    let _ = std::io::stdin().lock().read_line(&mut line);
                }
            }
            Event::Outcome { entry, outcome, .. } => match outcome {
                Outcome::Done(_) => {
                    if let Err(err) = write_line(
                        &mut out,
                        verb,
                        &entry.path,
                        entry.to.as_deref(),
                        &entry.kept,
                        entry.similarity,
                        (entry.identical, None, None),
                    ) {
                        write_error.get_or_insert(err);
                    }
                }
                Outcome::Skipped(reason) => eprintln!(
                    "{} {}: skipped: {reason}",
                    warning_prefix(),
                    entry.path.display()
                ),
                Outcome::Failed(reason) => eprintln!(
                    "{} {}: failed: {reason}{}",
                    warning_prefix(),
                    entry.path.display(),
                    if reason.starts_with(simfind::action::CANNOT_REFLINK) {
                        "; use --link or --move-to"
                    } else {
                        ""
                    }
                ),
                Outcome::Unfinished => {}
            },
        },
    )
    .with_context(|| format!("cannot write the journal {}", journal_path.display()))?;
    let interrupted = applied.stopped;
    let _ = out.flush();
    if applied.skipped + applied.failed > 0 {
        status = exit::PARTIAL;
    }
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: {verb} {} of {total} ({}){}{}; journal: {}",
            plural(applied.done as u64, "file", "files"),
            human_bytes(applied.bytes),
            if applied.skipped > 0 {
                format!(", {} skipped", applied.skipped)
            } else {
                String::new()
            },
            if applied.failed > 0 {
                format!(", {} failed", applied.failed)
            } else {
                String::new()
            },
            journal_path.display()
        );
    }
    if interrupted {
        eprintln!(
            "simfind: interrupted; the journal {} records every action done",
            journal_path.display()
        );
        return Ok(None);
    }
    if let Some(err) = write_error
        && err.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(err.into());
    }
    Ok(Some((status, applied)))
}

/// The journal of a run that acts: `--journal` or the default, absolute (so
/// the printed undo command works from any directory), and new.
pub(crate) fn new_journal(given: Option<&Path>, action: &Action) -> Result<PathBuf> {
    let path = journal_path(given, action)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path.file_name().context("--journal must name a file")?;
    let path = plan::absolute_dir(dir.unwrap_or(Path::new(".")))?.join(name);
    if path.exists() {
        bail!(
            "--journal {}: the file exists; give a new name",
            path.display()
        );
    }
    Ok(path)
}

/// The lock over `roots` and, for a move, its destination.
pub(crate) fn lock_for(roots: &[PathBuf], action: &Action, wait: f64) -> Result<lock::TreeLock> {
    let mut trees = roots.to_vec();
    if let Action::MoveTo(dir) = action {
        trees.push(dir.clone());
    }
    lock_trees(&trees, wait)
}

/// One warning for each file left out of `plan`.
pub(crate) fn warn_skipped(plan: &plan::Plan, action: &Action) {
    for skip in &plan.skipped {
        eprintln!(
            "{} {}: skipped: {}",
            warning_prefix(),
            resolved(&skip.path).display(),
            crate::app::speak::skip_reason(&skip.reason, action)
        );
    }
}
