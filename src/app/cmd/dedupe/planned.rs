//! `--plan` and `--apply`: the reviewed plan written by `scan --plan` and
//! `dedupe --dry-run --plan`, and a dedupe run that acts on exactly its
//! entries (docs/ACTIONS.md). The file format is the library's
//! (`action::planfile`).

use super::*;

/// `dedupe --apply FILE`: acts on exactly the actions of a reviewed plan,
/// under the lock of the plan's roots, each re-checked against the
/// fingerprints the plan records just before it is acted on.
pub(crate) fn apply_plan(
    args: &Args,
    file: &Path,
    action: Option<Action>,
    dry_run: bool,
) -> Result<i32> {
    let planned = planfile::read(file)
        .map_err(|err| anyhow::anyhow!("cannot read the plan {}: {err}", file.display()))?;
    let Some(action) = action else {
        bail!(
            "--apply {}: name the action: --move-to DIR, --remove, --link or --reflink{}",
            file.display(),
            match &planned.header.action {
                Some(a) => format!(" (the plan was made for {a})"),
                None => String::new(),
            }
        );
    };
    if dry_run {
        bail!(
            "--apply acts on the plan {}; its dry run is the plan itself: read it",
            file.display()
        );
    }
    let summary_json = SummaryJson::open(&args.summary_json, true)?;
    let journal_path = new_journal(args.journal.as_deref(), &action)?;
    let _lock = lock_for(&planned.header.roots, &action, args.wait)?;
    let action = match action {
        Action::MoveTo(dir) => Action::MoveTo(run_folder(&dir)),
        action => action,
    };
    let mut plan = planfile::to_plan(&planned, &action)?;
    if action == Action::Remove && !args.allow_near {
        plan.hold_back_near();
    }
    // What the reviewer saw as contained must still be: each figure is
    // measured again, the plan's way, on the bytes its hashes name. A plan
    // written before it recorded its recipe is applied on its fingerprints
    // alone (they still refuse any changed file), and says so.
    let measured = match &planned.header.measure {
        Some(measure) => {
            let transform = args.files.transform.parse()?;
            simfind::action::remeasure(&mut plan, measure, transform.as_ref()).map_err(|err| {
                anyhow::anyhow!(
                    "--apply {}: the plan's figures cannot be measured again here: {}; \
                         nothing was changed",
                    file.display(),
                    crate::app::speak::settings(&err.to_string())
                )
            })?;
            true
        }
        None => false,
    };
    warn_skipped(&plan, &action);
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: plan {}: {} (made at threshold {:.3}, keep {}){}",
            file.display(),
            plural(planned.actions.len() as u64, "action", "actions"),
            planned.header.threshold,
            planned.header.keep,
            if measured {
                ""
            } else {
                "; written before plans recorded their recipe: only_in_removed is not \
                 measured again, the fingerprints are still checked"
            }
        );
    }
    let status = if plan.skipped.is_empty() {
        exit::OK
    } else {
        exit::PARTIAL
    };
    let Some((status, applied)) = carry_out(args, &action, &journal_path, &plan, status)? else {
        return Ok(exit::INTERRUPTED);
    };
    let status = found_status(args.exit_code, status, plan.entries.is_empty());
    if let Some(out) = summary_json {
        let fields = serde_json::json!({
            "dry_run": false,
            "plan": file.to_string_lossy(),
            "action": action_name(Some(&action)),
            "planned": plan.entries.len(),
            "done": applied.done,
            "done_bytes": applied.bytes,
            "skipped_files": applied.skipped + plan.skipped.len(),
            "failed": applied.failed,
            "journal": journal_path.to_string_lossy(),
        });
        let serde_json::Value::Object(fields) = fields else {
            unreachable!("an object")
        };
        out.write(&summary::document("dedupe", status, fields))?;
    }
    Ok(status)
}
