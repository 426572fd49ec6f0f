//! Carrying out a [`Plan`]: for each entry, journal the intent, re-check the
//! file and its kept copy, act, journal the outcome.

use std::io;
use std::path::{Path, PathBuf};

use super::Action;
use super::fsops;
use super::journal::{Outcome, Writer};
use super::plan::{self, Entry, Plan};
use super::state;

/// What the caller hears about each entry, in order.
pub enum Event<'a> {
    /// The intent is on disk; the file is about to be re-checked and acted on.
    Intent { seq: u64, entry: &'a Entry },
    /// What happened (never [`Outcome::Unfinished`]); also on disk.
    Outcome {
        seq: u64,
        entry: &'a Entry,
        outcome: &'a Outcome,
    },
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub done: usize,
    pub skipped: usize,
    pub failed: usize,
    /// Bytes of the files done.
    pub bytes: u64,
    /// `stop` said so before every entry was tried.
    pub stopped: bool,
}

/// Applies `plan` with `action`, writing `journal`. A journal that cannot be
/// written stops the run (the error is returned) before the next action;
/// `stop` is asked before each entry (an interrupt ends the run between two
/// actions, never inside one).
pub fn apply(
    plan: &Plan,
    action: &Action,
    journal: &mut Writer,
    stop: &dyn Fn() -> bool,
    on: &mut dyn FnMut(Event<'_>),
) -> io::Result<Applied> {
    let mut applied = Applied::default();
    for (seq, entry) in plan.entries.iter().enumerate() {
        if stop() {
            applied.stopped = true;
            break;
        }
        let seq = seq as u64;
        journal.intent(seq, action.name(), entry)?;
        on(Event::Intent { seq, entry });
        let outcome = match recheck(entry, action) {
            Err(reason) => Outcome::Skipped(reason.to_string()),
            Ok(()) => match act(entry, action) {
                Ok(how) => Outcome::Done(how.to_string()),
                Err(err) => Outcome::Failed(err.to_string()),
            },
        };
        journal.outcome(seq, &outcome)?;
        match &outcome {
            Outcome::Done(_) => {
                applied.done += 1;
                applied.bytes += entry.fingerprint.size;
            }
            Outcome::Skipped(_) => applied.skipped += 1,
            _ => applied.failed += 1,
        }
        on(Event::Outcome {
            seq,
            entry,
            outcome: &outcome,
        });
    }
    Ok(applied)
}

/// Why an entry is skipped when its turn comes: what the plan checked no
/// longer holds.
#[derive(Debug)]
enum Stale<'a> {
    /// A directory on its way was replaced by a symlink since the plan.
    Resolves {
        path: &'a Path,
        now: PathBuf,
    },
    Unresolved {
        path: &'a Path,
        err: io::Error,
    },
    KeptCopy {
        kept: &'a Path,
        why: state::Mismatch,
    },
    Changed(state::Mismatch),
    AlreadyLinked {
        kept: &'a Path,
    },
    NotIdentical {
        kept: &'a Path,
    },
    DestinationExists {
        to: &'a Path,
    },
}

impl std::fmt::Display for Stale<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stale::Resolves { path, now } => {
                write!(f, "{} now resolves to {}", path.display(), now.display())
            }
            Stale::Unresolved { path, err } => write!(f, "{}: {err}", path.display()),
            Stale::KeptCopy { kept, why } => write!(f, "its kept copy {}: {why}", kept.display()),
            Stale::Changed(why) => write!(f, "{why}"),
            Stale::AlreadyLinked { kept } => {
                write!(f, "already a hard link to {}", kept.display())
            }
            Stale::NotIdentical { kept } => write!(f, "not byte-identical to {}", kept.display()),
            Stale::DestinationExists { to } => {
                write!(f, "{} already exists; nothing is overwritten", to.display())
            }
        }
    }
}

/// Everything that must still hold just before `entry` is acted on.
fn recheck<'a>(entry: &'a Entry, action: &Action) -> Result<(), Stale<'a>> {
    for path in [&entry.kept, &entry.path] {
        // A directory replaced by a symlink since the plan resolves elsewhere.
        match plan::absolute_no_follow(path) {
            Ok(now) if &now == path => {}
            Ok(now) => return Err(Stale::Resolves { path, now }),
            Err(err) => return Err(Stale::Unresolved { path, err }),
        }
    }
    let kept = entry.kept.as_path();
    state::verify(kept, &entry.kept_fingerprint).map_err(|why| Stale::KeptCopy { kept, why })?;
    // Same bytes and times, but another file: not the copy that was checked
    // (it may be one another process is about to remove).
    if let Some(id) = entry.kept_id
        && state::file_id(kept) != Some(id)
    {
        return Err(Stale::KeptCopy {
            kept,
            why: state::Mismatch::Changed("device or inode"),
        });
    }
    state::verify(&entry.path, &entry.fingerprint).map_err(Stale::Changed)?;
    if action.needs_identical() {
        if state::same_inode(&entry.path, kept) {
            return Err(Stale::AlreadyLinked { kept });
        }
        if !state::same_bytes(&entry.path, kept).map_err(Stale::Changed)? {
            return Err(Stale::NotIdentical { kept });
        }
    }
    if let Some(to) = &entry.to
        && exists(to)
    {
        return Err(Stale::DestinationExists { to });
    }
    Ok(())
}

fn act(entry: &Entry, action: &Action) -> io::Result<&'static str> {
    match action {
        Action::MoveTo(_) => {
            let to = entry.to.as_deref().expect("a move has a destination");
            fsops::move_file(&entry.path, to, &entry.fingerprint).map(|how| how.name())
        }
        Action::Remove => fsops::remove(&entry.path).map(|()| "remove"),
        Action::Link => fsops::replace_with_link(&entry.path, &entry.kept).map(|()| "link"),
        Action::Reflink => {
            fsops::replace_with_reflink(&entry.path, &entry.kept).map(|()| "reflink")
        }
    }
}

/// Whether anything (a dangling symlink too) is at `path`.
pub(crate) fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}
