//! The plan of a scan's removable files (docs/ACTIONS.md): what `scan
//! --plan` writes and what the HTML report's export is made of, built once
//! from the decisions the output was written from.

use std::path::PathBuf;

use anyhow::Result;
use simfind::action::plan::{self, Candidate, Plan};
use simfind::action::{Action, planfile};
use simfind::cluster::KeepPolicy;
use simfind::pipeline::ScanConfig;

use crate::app::ui::warning_prefix;

/// The roots a scan's plan lies under: the scanned roots, and the directory
/// of each file listed by `--files-from`.
pub fn roots(config: &ScanConfig) -> Vec<PathBuf> {
    let mut roots = config.roots.clone();
    for listed in &config.walk.listed {
        if let Some(parent) = listed.parent().filter(|p| !p.as_os_str().is_empty())
            && !roots.iter().any(|r| r == parent)
        {
            roots.push(parent.to_path_buf());
        }
    }
    roots
}

/// The plan of `candidates`: each file and its kept copy fingerprinted now
/// (one that changed since the scan read it is named on stderr and left
/// out), with the header of a scan's plan (no action yet); `cap` is the
/// `--max-unique` its removals were measured under, when they were.
pub fn build(
    candidates: &[Candidate],
    config: &ScanConfig,
    keep: KeepPolicy,
    cap: Option<f64>,
) -> Result<(planfile::Header, Plan)> {
    let roots = roots(config);
    // No action yet: the plan is checked as for a removal, the action that
    // asks least of a file (a link also needs byte-identical copies).
    let built = plan::build(&roots, &Action::Remove, candidates)?;
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
        keep: super::keep_name(keep).to_string(),
        roots: crate::app::cmd::dedupe::canonical_roots(&roots)?,
        measure: cap.map(|cap| crate::app::cmd::dedupe::measure_of(config, cap)),
    };
    Ok((header, built))
}
