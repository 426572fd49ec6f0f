//! `scan --plan FILE`: the removable files of the run's grouping, each with
//! its kept copy, fingerprinted for `dedupe --apply` (docs/ACTIONS.md).

use super::*;

/// `--plan`: every removable file of the report's grouping with its kept
/// copy, fingerprinted (a file that changed since it was read is named and
/// left out), for `dedupe --apply`: the plan the report already made when
/// it wrote groups, so its files are measured and fingerprinted once.
pub(super) fn write_scan_plan(
    sink: Sink,
    report: &Report,
    outcome: &ScanOutcome,
    config: &ScanConfig,
) -> Result<()> {
    let (header, built) = report.plan(outcome, config)?;
    crate::app::cmd::dedupe::write_plan(sink, &header, &built)
}
