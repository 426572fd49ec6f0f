//! How the pipeline tells the outside world what it is doing, without knowing
//! who listens: the binary implements [`Reporter`] with progress bars and
//! warnings on stderr; tests and benchmarks use [`Silent`].

use std::fmt::{self, Display};
use std::path::{Path, PathBuf};

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

/// A note about a document that a setting would change: something passed
/// over, or done differently, by a rule the caller chose. `Display` says it
/// naming settings; a front end may name its own options instead
/// ([`Reporter::notice`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A hidden entry (a hidden directory is one entry).
    Hidden,
    /// Matched by an exclusion pattern.
    Excluded,
    /// Named by an ignore file.
    Ignored,
    /// A symbolic link, not followed.
    SymlinkNotFollowed,
    /// A FIFO, socket or device.
    Special,
    /// Outside the minimum and maximum sizes.
    OutsideSizeLimits,
    /// A further hard link of `first`, which alone is read.
    HardLink { first: PathBuf },
    /// A NUL byte in its first 8 KiB: not read as text.
    LooksBinary,
    /// A document format (PDF, docx, …) whose text could not be had: the
    /// reason, as the extraction words it ("PDF without a text layer
    /// (scanned?)", "damaged docx (…)"), a setting it names written
    /// `{name}` ([`crate::spec::setting`]).
    NotExtracted(String),
    /// Verified against `other` in `passes` passes over parts of the hash
    /// space, since their shingle sets (`need_mib` MiB) exceed the memory
    /// of exact verification.
    VerifiedInParts {
        other: PathBuf,
        passes: u32,
        need_mib: u64,
    },
}

impl Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Hidden => f.write_str("hidden (hidden files are passed over)"),
            Notice::Excluded => f.write_str("excluded by an exclusion pattern"),
            Notice::Ignored => f.write_str("ignored by an ignore file"),
            Notice::SymlinkNotFollowed => f.write_str("symbolic link not followed"),
            Notice::Special => f.write_str("special file (FIFO, socket or device): not read"),
            Notice::OutsideSizeLimits => f.write_str("outside the minimum and maximum sizes"),
            Notice::HardLink { first } => write!(
                f,
                "hard link to {}: counted once (hard links as copies would pair them)",
                first.display()
            ),
            Notice::LooksBinary => f.write_str(
                "looks binary (a NUL byte in the first 8 KiB); including binary files reads it",
            ),
            Notice::NotExtracted(why) => write!(
                f,
                "not compared: {}; paired only with byte-identical copies",
                crate::spec::plain(why)
            ),
            Notice::VerifiedInParts {
                other,
                passes,
                need_mib,
            } => write!(
                f,
                "verified against {} in {passes} passes over parts of the hash space: their \
                 shingle sets need ~{need_mib} MiB, more than the verification memory",
                other.display()
            ),
        }
    }
}

/// A warning whose advice names a step of the user's that a front end may
/// word with its own commands ([`Reporter::warning`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// A document changed since it was indexed.
    ChangedSinceIndexed,
    /// At a signed document's place there is now something else (`now`
    /// says what) than the document `id` the signing read.
    ChangedSinceSigned { now: String, id: String },
    /// A signed document is at its place, with other contents (`what`:
    /// "record 'a' has another text").
    ContentChangedSinceSigned { what: String },
    /// A file changed between the two passes of important-word weighting
    /// (its words were counted from other bytes).
    ChangedBetweenPasses,
}

impl Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::ChangedSinceIndexed => {
                f.write_str("changed since it was indexed; refresh the index")
            }
            Warning::ChangedSinceSigned { now, id } => write!(
                f,
                "{now}, where the signing read '{id}': the file changed since it was signed; \
                 sign it again"
            ),
            Warning::ContentChangedSinceSigned { what } => write!(
                f,
                "{what} than when it was signed: the file changed since; sign it again"
            ),
            Warning::ChangedBetweenPasses => f.write_str(
                "changed between the two passes of important-word weighting (its words were \
                 counted from other bytes)",
            ),
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
    /// A [`Warning`]: by default a [`Reporter::warn`] in the library's words.
    fn warning(&self, path: &Path, warning: &Warning) {
        self.warn(path, warning);
    }
    /// A [`Notice`]: by default a [`Reporter::note`] in the library's words.
    fn notice(&self, path: &Path, notice: &Notice) {
        self.note(path, notice);
    }
    /// Whether [`Reporter::note`] shows anything: a stage may keep what
    /// only a note would name (the walk, the path kept for a hard link)
    /// just when it does.
    fn wants_notes(&self) -> bool {
        false
    }
    /// Whether the host asked the run to stop (the Python package does on
    /// KeyboardInterrupt). The long stages of a records scan ask it between
    /// work items and skip what is left, so that a stop is prompt without a
    /// second error path through every stage: the outcome of a run asked to
    /// stop is incomplete, and whoever asked discards it. The command never
    /// asks (its Ctrl-C ends the process).
    fn cancelled(&self) -> bool {
        false
    }
}

/// A reporter that ignores everything.
pub struct Silent;

impl Reporter for Silent {}
