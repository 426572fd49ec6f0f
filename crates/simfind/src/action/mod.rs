//! Acting on a scan's answer: what `simfind dedupe` does to the files a keep
//! policy found removable, and how `simfind undo` reverses it.
//!
//! Role: the one part of the library that changes files the user gave it. It
//! takes decisions made elsewhere (a scan's groups and keep policy, turned into
//! [`plan::Candidate`]s by the binary) and does no argument parsing and no
//! printing: progress is reported through a callback, problems are returned as
//! values.
//!
//! Stages: [`plan`] (what to do to which file: absolute paths, the destination
//! of a move, each file's and its kept copy's [`state::Fingerprint`]),
//! [`apply`] (re-check, journal the intent, act, journal the outcome),
//! [`journal`] (JSON Lines, fsync'd per line) and [`undo`] (reverse a journal).
//! The file operations themselves are in [`fsops`].
//!
//! Invariants (each enforced where the action happens, not only when planning):
//! - a file is touched only if it and its kept copy are unchanged since they
//!   were fingerprinted (size, modification time, xxh3-128 of the content);
//! - the kept copy exists and verifies before each action, so the last copy of
//!   a group is never removed;
//! - symbolic links are never followed: a path that is a symlink, or whose
//!   directory resolves outside the roots it was found under, is skipped;
//! - hard links and reflinks replace only byte-identical files (compared byte
//!   for byte, not by hash), never near-duplicates;
//! - nothing is overwritten: a move to a path that exists is skipped;
//! - the journal's "intent" line is on disk before the action starts and its
//!   "done" line after it ends, so after a crash the journal says exactly what
//!   may have happened, and [`undo`] finds out which from the file system.

pub(crate) mod apply;
pub(crate) mod fsops;
pub mod journal;
pub mod lock;
pub mod plan;
pub mod planfile;
pub(crate) mod remeasure;
#[doc(hidden)]
pub mod state;
pub(crate) mod undo;

/// The similarity below which nothing is called a removable copy unless the
/// user says so with a threshold: the removal policy's, decided once in
/// [`crate::cluster::removal`].
pub use crate::cluster::removal::SAFE_THRESHOLD;

/// What is done to each removable file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Moved under this directory, keeping its path relative to its root
    /// (quarantine: undo moves it back).
    MoveTo(std::path::PathBuf),
    /// Deleted. Undo can re-create it only from a byte-identical kept copy.
    Remove,
    /// Replaced by a hard link to the kept copy (byte-identical files only).
    Link,
    /// Replaced by a reflink (copy-on-write clone) of the kept copy
    /// (byte-identical files only, on file systems that support it).
    Reflink,
}

impl Action {
    /// The journal's name of the action.
    pub fn name(&self) -> &'static str {
        match self {
            Action::MoveTo(_) => "move",
            Action::Remove => "remove",
            Action::Link => "link",
            Action::Reflink => "reflink",
        }
    }

    /// Whether the action may only replace a byte-identical file.
    pub fn needs_identical(&self) -> bool {
        matches!(self, Action::Link | Action::Reflink)
    }
}

pub use apply::{Applied, Event, apply};
pub use fsops::CANNOT_REFLINK;
pub use remeasure::remeasure;
pub use undo::{Undone, undo};
