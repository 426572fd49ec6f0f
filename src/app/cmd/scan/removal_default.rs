//! The removal rule's threshold in a scan: a run that decides removals
//! (`--list-removable`, groups, `--plan`, the HTML report) takes 0.9
//! (`cluster::removal`) unless `-t` is given, and says so on stderr, since
//! its banding's S-curve threshold would list far less similar documents as
//! copies.

use simfind::cluster::removal::{self, SAFE_THRESHOLD};

use crate::app::args::{self, MatchArgs, SigningArgs};
use crate::app::report::ReportArgs;

/// Gives `matching` the removal rule's threshold when the run decides
/// removals and none was given; whether it did.
pub(super) fn removal_threshold(report: &ReportArgs, matching: &mut MatchArgs) -> bool {
    removal_threshold_of(report.removal_run(), matching)
}

/// [`removal_threshold`] for a run described as `run`.
pub(super) fn removal_threshold_of(
    run: simfind::cluster::removal::RemovalRun,
    matching: &mut MatchArgs,
) -> bool {
    let default = run.default_threshold();
    let used = matching.threshold.is_none() && default.is_some();
    matching.threshold = matching.threshold.or(default);
    used
}

/// The line that says a removal run uses the safe threshold, not its
/// banding's S-curve threshold; `documents` names what would be listed.
pub(super) fn removal_default_note(signing: &SigningArgs, documents: &str) -> String {
    let (b, r) = (
        signing.bands.unwrap_or(args::DEFAULT_BANDS),
        signing.rows.unwrap_or(args::DEFAULT_ROWS),
    );
    format!(
        "simfind: threshold {SAFE_THRESHOLD:.3}: {} (the S-curve threshold of {b}×{r}, {:.3}, \
         would list {documents} only that similar as copies); give -t to change it",
        removal::REASON,
        simfind::lsh::scurve::threshold(b, r),
    )
}
