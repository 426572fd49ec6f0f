//! How a scan ends, files or records: its exit status, and its
//! `--summary-json` document written with it.

use anyhow::Result;
use simfind::pipeline::{ScanConfig, ScanOutcome};

use crate::app::config::ThresholdSource;
use crate::app::exit;
use crate::app::output::summary;
use crate::app::report::{Report, Reported};
use crate::app::ui::Ui;

/// The exit status of a scan (files or records), and its `--summary-json`
/// document written with it.
pub(super) fn finish(
    outcome: &ScanOutcome,
    config: &ScanConfig,
    (report, reported): (&Report, &Reported),
    summary_json: Option<summary::SummaryJson>,
    threshold: (ThresholdSource, f64, Option<f64>),
    (seconds, ui): (f64, &Ui),
    // Important words, and fields of the summary only some scans have.
    (important_words, extra): (Option<usize>, serde_json::Map<String, serde_json::Value>),
) -> Result<i32> {
    let status = if outcome.stats.errors > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    };
    let status = report.exit_status(status, reported);
    if let Some(out) = summary_json {
        let mut fields = summary::scan_fields(outcome, config, threshold, important_words);
        fields.extend(reported.json());
        fields.extend(extra);
        fields.insert(
            "seconds".into(),
            summary::seconds(seconds, &ui.stage_seconds()),
        );
        out.write(&summary::document("scan", status, fields))?;
    }
    Ok(status)
}
