//! What one `scan` does, decided once from its arguments before any work:
//! which engine runs (the MinHash pipeline over files, with or without an
//! index; identical files only; important words; records; a vector family;
//! ICWS), and the refusals of combinations no engine takes.
//!
//! Beside `scan` rather than in `app/`: it reads `scan`'s arguments, and the
//! layers below the subcommands never import them.

use anyhow::{Result, bail};
use simfind::pipeline::IdenticalBy;

use super::arguments::Args;
use crate::app::args::{MetricArg, SketchFamilyArg};
use crate::app::families;
use crate::app::report::FormatArg;

/// The engine one `scan` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The MinHash pipeline over the files walked under the roots.
    Files,
    /// The same, signatures kept in and refreshed from an index (`--db`).
    FilesIndexed,
    /// Byte-identical files only, read as little as possible (`--identical-by`).
    IdenticalBy(IdenticalBy),
    /// Each file's most important words instead of shingles (`--important-words`).
    ImportantWords(usize),
    /// Records read from files or stdin (`--input jsonl|csv|tsv|sets`).
    Records,
    /// A vector family: points (`--input vectors|bits`), SimHash, or a
    /// metric other than Jaccard (`app::families`, which tells them apart).
    VectorFamily,
    /// Weighted Jaccard by ICWS (`--sketch icws`, `app::weighted`).
    Icws,
    /// Pairs one contained in the other (`--metric containment`,
    /// `app::containment`), whatever the input: its rules refuse vectors.
    Containment,
}

impl Mode {
    /// The mode of `args`, or the refusal of a combination no mode takes
    /// (each with the message and exit status it always had).
    pub(super) fn of(args: &Args) -> Result<Mode> {
        if args.families.metric == Some(MetricArg::Containment) {
            return Ok(Mode::Containment);
        }
        let input = args.input.input;
        let family = families::applies(&args.families, input);
        let html = args.report.format == FormatArg::Html;
        let beside = [args.db.is_some(), args.identical_by.is_some(), family, html];
        crate::app::important::check(&args.input, beside)?;
        if args.identical_by.is_some()
            && (args.db.is_some() || args.matching.isolate || input.is_records() || family)
        {
            bail!(
                "--identical-by finds identical files under DIRs: it takes neither --db, \
                 --isolate, record --input nor a vector family"
            );
        }
        Ok(if family {
            if args.families.sketch == Some(SketchFamilyArg::Icws) {
                Mode::Icws
            } else {
                Mode::VectorFamily
            }
        } else if input.is_records() {
            Mode::Records
        } else if args.db.is_some() {
            Mode::FilesIndexed
        } else if let Some(by) = args.identical_by {
            Mode::IdenticalBy(by)
        } else if let Some(n) = args.input.important_words {
            Mode::ImportantWords(n)
        } else {
            Mode::Files
        })
    }
}
