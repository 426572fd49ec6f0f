//! The plan of a scan's removable files (docs/ACTIONS.md): what `scan
//! --plan` writes and what the HTML report's export is made of, built once
//! from the decisions the output was written from.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use simfind::action::plan::{self, Candidate, Plan};
use simfind::action::{Action, planfile};
use simfind::cluster::KeepPolicy;
use simfind::pipeline::ScanConfig;

use crate::app::output::Sink;
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
        roots: canonical_roots(&roots)?,
        measure: cap.map(|cap| measure_of(config, cap)),
    };
    Ok((header, built))
}

/// Opens `--plan FILE` before any work (an unwritable destination fails at
/// once); written whole or not at all on commit.
pub fn open_plan(path: Option<&Path>) -> Result<Option<Sink>> {
    match path {
        Some(p) if p.as_os_str() == "-" => {
            bail!("--plan -: the plan is a file to review and to give to --apply; name one")
        }
        Some(p) => Ok(Some(Sink::create(Some(p))?)),
        None => Ok(None),
    }
}

/// Writes the plan and makes it final.
pub fn write_plan(mut sink: Sink, header: &planfile::Header, plan: &plan::Plan) -> Result<()> {
    sink.write_all(&planfile::render(header, plan))?;
    sink.commit()
}

/// The roots as a plan records them: canonical.
pub fn canonical_roots(roots: &[PathBuf]) -> Result<Vec<PathBuf>> {
    roots
        .iter()
        .map(|r| {
            r.canonicalize()
                .with_context(|| format!("cannot resolve root {}", r.display()))
        })
        .collect()
}

/// How a run with `config` measures its removal figures, held under `cap`:
/// what a plan's header records for `--apply` to measure them again.
pub fn measure_of(config: &ScanConfig, cap: f64) -> planfile::Measure {
    planfile::Measure {
        params: simfind::params::Params::of(&config.recipe)
            .with_extraction(config.read.extract.recipe_name()),
        max_unique: cap,
    }
}
