//! The library's typed errors, warnings and reasons in the command line's
//! words. The library names parameters and fields (a Python caller has no
//! flags); the flags those fields come from are spelled here, once, so what
//! the binary prints names the options a user can change.

use std::fmt;

use simfind::lsh::tune::{Side, SteepPartWarning, Suggestion};
use simfind::memory::Lower;
use simfind::pipeline::Decision;
use simfind::pipeline::vectors::choose::{self, ChooseError};
use simfind::progress::{Notice, Warning};

/// Why `tune` and `curve` refuse `--metric containment`: they draw and
/// choose bandings, and containment is found by the exact join.
pub const CONTAINMENT_BANDS_NOTHING: &str = "--metric containment is found by the exact join \
     (scan --metric containment -t T), which bands nothing: there is no S-curve to tune or draw";

/// The options that make an allocation smaller.
pub fn lower(lower: Lower) -> &'static str {
    match lower {
        Lower::Signatures => {
            "fewer --bands or --rows (a shorter signature per file), \
             --max-size or fewer roots (fewer files)"
        }
        Lower::Sets => {
            "--method lsh (the exact join holds every shingle set), \
             --max-size SIZE (skip the largest files)"
        }
        Lower::Join => {
            "--method lsh (the exact join indexes every shingle set), \
             a higher --threshold (shorter prefixes), --max-size SIZE (skip the largest files)"
        }
        Lower::Candidates => "more --rows or a higher --threshold (fewer candidate pairs)",
        Lower::Threads => "--threads 1 (each thread reserves its own stack)",
    }
}

/// A failed allocation with the options that lower it; like the library's
/// own text, written without allocating (memory has run out).
pub struct OutOfMemory<'a>(pub &'a simfind::memory::OutOfMemory);

impl fmt::Display for OutOfMemory<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_need(f)?;
        write!(f, "; to need less: {}", lower(self.0.lower))
    }
}

/// [`SteepPartWarning`] with the `simfind tune` command that shows the
/// suggested shape.
pub fn steep_part(w: &SteepPartWarning) -> String {
    let SteepPartWarning {
        threshold,
        bands,
        rows,
        steep,
        at,
        probability,
        ..
    } = *w;
    let suggestion = match w.suggestion {
        Suggestion::ScansChoice { bands, rows } => format!(
            "`simfind tune --threshold {threshold}` suggests {bands} bands × {rows} rows \
             (or give --threshold alone and scan will use it)"
        ),
        Suggestion::UpToMaxHashes => format!(
            "`simfind tune --threshold {threshold}` suggests shapes of up to {} hashes",
            simfind::lsh::tune::MAX_HASHES
        ),
        Suggestion::SameLength {
            hashes,
            bands,
            rows,
        } => format!(
            "`simfind tune --threshold {threshold} --hashes {hashes} --fn-weight {}` \
             suggests {bands} bands × {rows} rows",
            simfind::lsh::tune::SCAN_FN_WEIGHT
        ),
    };
    match w.side {
        Side::Below => format!(
            "--threshold {threshold} lies below the steep part of the {bands}×{rows} S-curve (steepest near {steep:.3}): \
             a pair of similarity {threshold} becomes a candidate with probability only {probability:.3}, so most pairs near \
             the threshold will be missed; {suggestion}"
        ),
        Side::Above => format!(
            "--threshold {threshold} lies above the steep part of the {bands}×{rows} S-curve (steepest near {steep:.3}): \
             pairs of similarity {at:.2} already become candidates with probability {probability:.3}, so most \
             candidates will be pairs below the threshold (exact verification re-reads and discards them; with \
             --verify signature some are reported); {suggestion}"
        ),
    }
}

/// Why a point set's method was chosen, as the summary line says it.
pub fn vector_reason(choice: &choose::Choice) -> &'static str {
    use choose::{Method, Reason};
    let exact = matches!(choice.method, Method::Exact);
    match (choice.reason, exact) {
        (Reason::Asked, true) => "exact (asked)",
        (Reason::Asked, false) => "lsh (asked)",
        (Reason::BySignature, _) => "lsh (--verify signature)",
        (Reason::BandingGiven, _) => "lsh (--bands/--rows given)",
        (Reason::PredictedCheaper, false) => "lsh (predicted cheaper)",
        (Reason::PredictedCheaper, true) => "exact (predicted cheaper)",
        (Reason::NoBandingReachesRecall, _) => "exact (no banding reaches --min-recall)",
        (Reason::IndexSignatures, _) => "lsh (--db reuses the index's signatures)",
    }
}

/// [`ChooseError`] with the flags that resolve it.
pub fn choose_error(e: &ChooseError) -> String {
    match *e {
        ChooseError::ExactBySignature => "--verify signature estimates from LSH's signatures: \
                                          --method exact measures every pair (leave out --verify)"
            .to_string(),
        ChooseError::Unreachable {
            min_recall,
            max_hashes,
        } => format!(
            "no b·r ≤ {max_hashes} finds pairs at the threshold with probability ≥ {min_recall}; \
             give --bands and --rows, a lower --min-recall, or --method exact"
        ),
    }
}

/// [`TuneError`](simfind::spec::TuneError) with the flags that resolve it.
pub fn tune_error(e: &simfind::spec::TuneError) -> String {
    use simfind::spec::TuneError;
    match e {
        TuneError::RadiusNotBelowWidth { radius, bits } => format!(
            "--radius {radius} is not below the strings' {bits} bits: every pair would be within it"
        ),
        TuneError::Unreachable {
            min_recall,
            hashes,
            why,
        } => format!(
            "no b·r ≤ {hashes} finds pairs at the threshold with probability ≥ {min_recall} \
             ({why}); give --bands and --rows, or a lower --min-recall"
        ),
    }
}

/// A run over points that could not start, with the flags that resolve it.
pub fn point_run_error(e: &simfind::pipeline::vectors::PointRunError) -> String {
    use simfind::pipeline::vectors::PointRunError;
    match e {
        PointRunError::Tune(e) => tune_error(e),
        PointRunError::Choose(e) => choose_error(e),
        PointRunError::NotForPoints(_) => e.to_string(),
    }
}

/// [`simfind::input::ExcludeError`] naming `--exclude`.
pub fn exclude_error(e: &simfind::input::ExcludeError) -> String {
    use simfind::input::ExcludeError;
    match e {
        ExcludeError::Pattern { pattern, err } => {
            format!("invalid --exclude pattern '{pattern}': {err}")
        }
        ExcludeError::Set(err) => err.to_string(),
    }
}

/// A text scan's [`Decision`] as the summary says it: the reasons that come
/// from options name them; the others read as the library words them.
pub fn decision(d: &Decision) -> String {
    use simfind::pipeline::{Reason, human_bytes};
    match &d.reason {
        Reason::BandingGiven => "auto: lsh (--bands/--rows given)".to_string(),
        Reason::BySignature => {
            "auto: lsh (--verify signature estimates similarity from signatures)".to_string()
        }
        Reason::OverBudget { need, budget } => format!(
            "auto: lsh (exact would hold ~{} of shingle sets, over the {} budget of --verify-memory)",
            human_bytes(*need),
            human_bytes(*budget)
        ),
        Reason::OverEnvelope { need, envelope } => format!(
            "auto: lsh (exact would hold ~{} of shingle sets, more than the ~{} LSH needs; --method exact forces it)",
            human_bytes(*need),
            human_bytes(*envelope)
        ),
        Reason::OverBudgetDuringWalk => {
            "auto: lsh (exact's memory estimate passed --verify-memory during the walk)".to_string()
        }
        Reason::RecordsRequested => format!("{0} (--method {0})", d.method.name()),
        Reason::RecordsBandingGiven => "lsh (--bands/--rows given)".to_string(),
        Reason::RecordsAuto => "auto: lsh (records: the join's prefix filter gains little on \
             short records' shingles, see docs/RECORDS.md; --method exact finds every pair)"
            .to_string(),
        Reason::IndexSignatures => {
            "auto: lsh (--db reuses the index's MinHash signatures)".to_string()
        }
        Reason::Requested
        | Reason::CostModel { .. }
        | Reason::JoinAbandoned { .. }
        | Reason::Identical(_)
        | Reason::BandJoin(_) => d.to_string(),
    }
}

/// A [`Notice`] naming the option that changes it; notices that name no
/// setting read as the library words them.
pub fn notice(n: &Notice) -> String {
    match n {
        Notice::Hidden => "hidden (-H to include)".to_string(),
        Notice::Excluded => "excluded by --exclude".to_string(),
        Notice::Ignored => "ignored by an ignore file (--no-ignore to include)".to_string(),
        Notice::SymlinkNotFollowed => "symbolic link not followed (-L to follow)".to_string(),
        Notice::OutsideSizeLimits => "outside --min-size/--max-size".to_string(),
        Notice::HardLink { first } => format!(
            "hard link to {}: counted once (--hardlinks-as-copies to pair them)",
            first.display()
        ),
        Notice::LooksBinary => {
            "looks binary (a NUL byte in the first 8 KiB); --binary reads it".to_string()
        }
        Notice::VerifiedInParts {
            other,
            passes,
            need_mib,
        } => format!(
            "verified against {} in {passes} passes over parts of the hash space: \
             their shingle sets need ~{need_mib} MiB, more than --verify-memory",
            other.display()
        ),
        Notice::NotExtracted(why) => format!(
            "not compared: {}; paired only with byte-identical copies",
            settings(why)
        ),
        Notice::Special => n.to_string(),
    }
}

/// The library's words with each setting they name (`{transform}`) spelled
/// as the command line's flag (`--transform`).
pub fn settings(text: &str) -> String {
    simfind::spec::spelled(text, &|name| {
        Some(crate::app::lower::flag_of(name))
            .filter(|flag| !flag.is_empty())
            .map(str::to_string)
    })
    .into_owned()
}

/// One error of a chain as the command line says it: the library's errors
/// whose advice names a command or an option, worded with them; any other
/// as it displays itself.
pub fn cause(err: &(dyn std::error::Error + 'static)) -> String {
    if let Some(e) = err.downcast_ref::<simfind::index::IndexError>() {
        return index_error(e);
    }
    if let Some(e) = err.downcast_ref::<simfind::exchange::ExchangeError>() {
        return exchange_error(e);
    }
    use simfind::action::plan::PlanError;
    if let Some(PlanError::Overlap { dir, to, root }) = err.downcast_ref::<PlanError>() {
        return format!(
            "--move-to {}: {} would overlap the scanned root {}; choose a directory outside the roots",
            dir.display(),
            to.display(),
            root.display()
        );
    }
    err.to_string()
}

/// An [`simfind::index::IndexError`] whose remedy is the `simfind index` command.
pub fn index_error(e: &simfind::index::IndexError) -> String {
    use simfind::index::Remedy;
    let mut text = String::new();
    let _ = e.write_problem(&mut text);
    match e.remedy() {
        Some(Remedy::Rebuild(path)) => text.push_str(&format!(
            "delete {} and rebuild it with `simfind index DIR... --db {}`",
            path.display(),
            path.display()
        )),
        Some(Remedy::Build(path)) => text.push_str(&format!(
            "build one with `simfind index DIR... --db {}`",
            path.display()
        )),
        None => {}
    }
    text
}

/// An [`simfind::exchange::ExchangeError`] naming the options of `simfind sign`
/// and `simfind verify` where it gives advice.
pub fn exchange_error(e: &simfind::exchange::ExchangeError) -> String {
    use simfind::exchange::{ExchangeError, LOCAL_BITS, RECORDS_PREFIX};
    match e {
        ExchangeError::Duplicate { path, doc_id } => format!(
            "{}: doc_id {doc_id} (shard {}, document {}) appears twice: two shards \
             signed with the same --shard, or one shard given twice",
            path.display(),
            doc_id >> LOCAL_BITS,
            doc_id & ((1 << LOCAL_BITS) - 1)
        ),
        ExchangeError::Unknown { path, doc_id } => format!(
            "{}: pair names doc_id {doc_id}, which no docs file has (pairs of other \
             shards than --docs?)",
            path.display()
        ),
        ExchangeError::ReadOptions { path, first } => format!(
            "{}: read its records with other options than {} ({}): sign every \
             shard with the same --input options",
            path.display(),
            first.display(),
            RECORDS_PREFIX
        ),
        _ => e.to_string(),
    }
}

/// Why `dedupe` leaves a candidate out of `action`, naming what would act
/// on it.
pub fn skip_reason(
    reason: &simfind::action::plan::SkipReason,
    action: &simfind::action::Action,
) -> String {
    use simfind::action::plan::SkipReason;
    match reason {
        SkipReason::NearDuplicate { kept, similarity } => format!(
            "not byte-identical to {} ({}): {}",
            kept.display(),
            match similarity {
                Some(s) => format!("similarity {s:.3}"),
                None => "similar through its group".to_string(),
            },
            if *action == simfind::action::Action::Remove {
                "--remove deletes only byte-identical copies (undo re-creates them); \
                 --move-to DIR acts on near-duplicates undoably, --allow-near removes them for good"
            } else {
                "--link and --reflink never replace a near-duplicate"
            }
        ),
        SkipReason::Unique {
            kept,
            share,
            limit,
            planned,
        } => {
            format!(
                "{} of its text is not in {} when measured again, more than {}: kept",
                percent(*share),
                kept.display(),
                if *planned {
                    format!("the {} the plan recorded", percent(*limit))
                } else {
                    format!("the plan's --max-unique {}", limit)
                }
            )
        }
        other => other.to_string(),
    }
}

/// A [`Warning`] naming the command that acts on it.
pub fn warning(w: &Warning) -> String {
    match w {
        Warning::ChangedSinceIndexed => {
            "changed since it was indexed; run `simfind index` to refresh the index".to_string()
        }
        Warning::ChangedSinceSigned { now, id } => format!(
            "{now}, where `simfind sign` read '{id}': the file changed since it was signed; \
             sign it again"
        ),
        Warning::ChangedBetweenPasses => "changed between the two passes of --important-words \
             (its words were counted from other bytes)"
            .to_string(),
        Warning::ContentChangedSinceSigned { .. } => w.to_string(),
    }
}

/// A reader's hint in the command line's words: its setting as the flag.
pub fn hint(hint: &simfind::input::records::Hint) -> String {
    hint.worded(crate::app::lower::flag_of(hint.setting))
}

/// A record row's reason and, if a setting gets past it, the flag.
pub fn row_reason(e: &simfind::input::records::RowError) -> String {
    match &e.hint {
        Some(h) => format!("{}{}", e.reason, hint(h)),
        None => e.reason.clone(),
    }
}

/// A record row's error as the command line says it: `file:line: reason`.
pub fn row_error(e: &simfind::input::records::RowError) -> String {
    format!("{}: {}", e.place(), row_reason(e))
}

/// A strict read's failure: the row's error, and for a row (not the whole
/// input) that --skip-bad-rows would skip it.
pub fn row_failure(e: simfind::input::records::RowError) -> anyhow::Error {
    match e.line {
        0 => anyhow::anyhow!("{}", row_error(&e)),
        _ => anyhow::anyhow!(
            "{} (--skip-bad-rows skips such rows with a warning)",
            row_error(&e)
        ),
    }
}

/// A row of vectors or bit strings as the command line says it:
/// `line N: reason`, the hint's setting as the flag.
pub fn vector_row(e: &simfind::input::vectors::RowError) -> String {
    match &e.hint {
        Some(h) => format!("line {}: {}{}", e.line, e.reason, hint(h)),
        None => format!("line {}: {}", e.line, e.reason),
    }
}

/// A share as a percentage with one decimal ("7.3 %"); exactly nothing is
/// "0 %", and a share too small to show as 0.1 % reads "< 0.1 %", so a
/// file that holds anything of its own never reads as holding nothing.
pub fn percent(share: f64) -> String {
    if share <= 0.0 {
        "0 %".to_string()
    } else if share < 0.0005 {
        "< 0.1 %".to_string()
    } else {
        format!("{:.1} %", share * 100.0)
    }
}
