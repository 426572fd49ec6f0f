//! How the pipeline tells the outside world what it is doing, without knowing
//! who listens: the binary implements [`Reporter`] with progress bars and
//! warnings on stderr; tests and benchmarks use [`Silent`].

use std::fmt::Display;
use std::path::Path;

/// The stages of a scan, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Walk,
    Sign,
    Band,
    Verify,
    /// The exact join (`--method exact`), in place of Band and Verify.
    Join,
    /// `--important-words` on files: the first pass, counting each word's
    /// documents before Sign.
    Count,
}

impl Stage {
    pub const ALL: [Stage; 4] = [Stage::Walk, Stage::Sign, Stage::Band, Stage::Verify];

    /// 1-based position, for "2/4: Signing".
    pub fn number(self) -> usize {
        if self == Stage::Join {
            return Stage::Band.number();
        }
        if self == Stage::Count {
            return Stage::Sign.number();
        }
        Stage::ALL.iter().position(|&s| s == self).expect("listed") + 1
    }

    pub fn describe(self) -> &'static str {
        match self {
            Stage::Walk => "Walking",
            Stage::Sign => "Reading and signing",
            Stage::Band => "Banding",
            Stage::Verify => "Verifying candidates",
            Stage::Join => "Exact join (prefix filter)",
            Stage::Count => "Counting words (TF.IDF)",
        }
    }
}

/// Receives progress and warnings. Called from worker threads, hence `Sync`.
pub trait Reporter: Sync {
    /// A stage begins; `total` is the number of work items when known.
    fn begin(&self, _stage: Stage, _total: Option<u64>) {}
    /// The current stage, begun without a total, now knows it (a stage fed
    /// by a walk learns it when the walk ends).
    fn set_total(&self, _total: u64) {}
    /// `done` more items of the current stage are finished.
    fn advance(&self, _done: u64) {}
    /// The current stage is over.
    fn end(&self, _stage: Stage) {}
    /// A file was skipped or dropped because of an error; the run goes on.
    fn warn(&self, _path: &Path, _reason: &dyn Display) {}
    /// A file takes no part in pairing for a reason that is not an error
    /// (binary, shorter than one shingle).
    fn note(&self, _path: &Path, _reason: &dyn Display) {}
    /// Whether [`Reporter::note`] shows anything: a stage may keep what
    /// only a note would name (the walk, the path kept for a hard link)
    /// just when it does.
    fn wants_notes(&self) -> bool {
        false
    }
}

/// A reporter that ignores everything.
pub struct Silent;

impl Reporter for Silent {}
