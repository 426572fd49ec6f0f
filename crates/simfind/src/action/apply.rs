//! Carrying out a [`Plan`]: for each entry, journal the intent, re-check the
//! file and its kept copy, act, journal the outcome.

use std::io;
use std::path::Path;

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
            Err(reason) => Outcome::Skipped(reason),
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

/// Everything that must still hold just before `entry` is acted on.
fn recheck(entry: &Entry, action: &Action) -> Result<(), String> {
    for path in [&entry.kept, &entry.path] {
        // A directory replaced by a symlink since the plan resolves elsewhere.
        match plan::absolute_no_follow(path) {
            Ok(now) if &now == path => {}
            Ok(now) => {
                return Err(format!(
                    "{} now resolves to {}",
                    path.display(),
                    now.display()
                ));
            }
            Err(err) => return Err(format!("{}: {err}", path.display())),
        }
    }
    state::verify(&entry.kept, &entry.kept_fingerprint)
        .map_err(|m| format!("its kept copy {}: {m}", entry.kept.display()))?;
    state::verify(&entry.path, &entry.fingerprint).map_err(|m| m.to_string())?;
    if action.needs_identical() {
        if state::same_inode(&entry.path, &entry.kept) {
            return Err(format!("already a hard link to {}", entry.kept.display()));
        }
        if !state::same_bytes(&entry.path, &entry.kept).map_err(|m| m.to_string())? {
            return Err(format!("not byte-identical to {}", entry.kept.display()));
        }
    }
    if let Some(to) = &entry.to
        && exists(to)
    {
        return Err(format!(
            "{} already exists; nothing is overwritten",
            to.display()
        ));
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
pub fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}
