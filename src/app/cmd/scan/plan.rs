//! `scan --plan FILE`: the removable files of the run's grouping, each with
//! its kept copy, fingerprinted for `dedupe --apply` (docs/ACTIONS.md).

use super::*;

/// `--plan`: every removable file of the report's grouping with its kept
/// copy, fingerprinted now (a file that changed since it was read is named
/// and left out), for `dedupe --apply`.
pub(super) fn write_scan_plan(
    sink: Sink,
    report: &Report,
    outcome: &ScanOutcome,
    config: &ScanConfig,
) -> Result<()> {
    use simfind::action::{Action, plan, planfile};
    let mut roots = config.roots.clone();
    for listed in &config.walk.listed {
        if let Some(parent) = listed.parent().filter(|p| !p.as_os_str().is_empty())
            && !roots.iter().any(|r| r == parent)
        {
            roots.push(parent.to_path_buf());
        }
    }
    let candidates = report.candidates(outcome, config.threshold);
    // No action yet: the plan is checked as for a removal, the action that
    // asks least of a file (a link also needs byte-identical copies).
    let built = plan::build(&roots, &Action::Remove, &candidates)?;
    for skip in &built.skipped {
        eprintln!(
            "{} {}: left out of the plan: {}",
            warning_prefix(),
            skip.path.display(),
            crate::app::speak::skip_reason(&skip.reason, &Action::Remove)
        );
    }
    let header = planfile::Header {
        action: None,
        threshold: config.threshold,
        keep: crate::app::report::keep_name(report.keep()).to_string(),
        roots: crate::app::cmd::dedupe::canonical_roots(&roots)?,
    };
    crate::app::cmd::dedupe::write_plan(sink, &header, &built)
}
