//! Reversing a journal, newest action first. What to do is decided from the
//! file system, not from the journal's outcome alone, so an action that a
//! killed run left half-told (intent without outcome) is undone or found
//! never done, and running undo twice changes nothing the second time.
//! Nothing is overwritten: a path taken since is left alone and reported.

use std::path::Path;

use super::apply::exists;
use super::fsops;
use super::journal::{Outcome, Read, Record};
use super::state;

/// What undo did for one record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undone {
    /// Put back; how.
    Restored(&'static str),
    /// The file is where and what it was: nothing to do (never done, or
    /// undone before).
    InPlace,
    /// Could not be put back without overwriting or inventing something;
    /// the reason names the paths. Left as it is.
    Refused(String),
}

/// Counts of an undo.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub restored: usize,
    pub in_place: usize,
    pub refused: usize,
}

/// Undoes every record of `journal`, newest first, telling `on` about each.
pub fn undo(journal: &Read, on: &mut dyn FnMut(&Record, &Undone)) -> Counts {
    let mut counts = Counts::default();
    for record in journal.records.iter().rev() {
        let undone = if matches!(record.outcome, Outcome::Skipped(_)) {
            Undone::InPlace
        } else {
            match record.action.as_str() {
                "move" => undo_move(record),
                "remove" => undo_remove(record),
                "link" | "reflink" => undo_link(record),
                other => Undone::Refused(format!("unknown action {other:?}")),
            }
        };
        match undone {
            Undone::Restored(_) => counts.restored += 1,
            Undone::InPlace => counts.in_place += 1,
            Undone::Refused(_) => counts.refused += 1,
        }
        on(record, &undone);
    }
    counts
}

fn undo_move(record: &Record) -> Undone {
    let e = &record.entry;
    let Some(to) = e.to.as_deref() else {
        return Undone::Refused("a move without a destination in the journal".into());
    };
    let path = e.path.as_path();
    match (exists(path), exists(to)) {
        (true, false) => in_place_or_changed(path, record),
        (false, true) => match state::fingerprint(to) {
            Ok(fp) if fp.hash == e.fingerprint.hash && fp.size == e.fingerprint.size => {
                match fsops::move_file(to, path, &e.fingerprint) {
                    Ok(how) => Undone::Restored(match how {
                        fsops::MoveHow::Rename => "moved back",
                        fsops::MoveHow::Copy => "copied back",
                    }),
                    Err(err) => {
                        Undone::Refused(format!("cannot move {} back: {err}", to.display()))
                    }
                }
            }
            Ok(_) => Undone::Refused(format!(
                "{} changed since it was moved there; left where it is",
                to.display()
            )),
            Err(m) => Undone::Refused(format!("{}: {m}", to.display())),
        },
        (true, true) => {
            // Killed between the two halves of a move: both names hold the
            // same bytes (one inode, or a verified copy); the extra one goes.
            let same = state::same_inode(path, to)
                || (state::verify(path, &e.fingerprint).is_ok()
                    && state::fingerprint(to).is_ok_and(|fp| fp.hash == e.fingerprint.hash));
            if same && !matches!(record.outcome, Outcome::Done(_)) {
                match fsops::remove(to) {
                    Ok(()) => Undone::Restored("removed the second copy a killed move left"),
                    Err(err) => Undone::Refused(format!("cannot remove {}: {err}", to.display())),
                }
            } else {
                Undone::Refused(format!(
                    "both {} and {} exist: something appeared since; left alone",
                    path.display(),
                    to.display()
                ))
            }
        }
        (false, false) => Undone::Refused(format!(
            "neither {} nor {} exists (removed since?)",
            path.display(),
            to.display()
        )),
    }
}

fn undo_remove(record: &Record) -> Undone {
    let e = &record.entry;
    if exists(&e.path) {
        return in_place_or_changed(&e.path, record);
    }
    if !e.identical {
        return Undone::Refused(format!(
            "{} was removed and was not byte-identical to {}: it cannot be re-created",
            e.path.display(),
            e.kept.display()
        ));
    }
    recreate_from_kept(record)
}

fn undo_link(record: &Record) -> Undone {
    let e = &record.entry;
    if !exists(&e.path) {
        return recreate_from_kept(record);
    }
    if record.action == "link" && state::same_inode(&e.path, &e.kept) {
        if let Err(m) = state::verify_bytes(&e.kept, &e.fingerprint) {
            return Undone::Refused(format!("{}: {m}", e.kept.display()));
        }
        return match fsops::replace_with_copy(&e.path, &e.kept, &e.fingerprint, e.owner.as_ref()) {
            Ok(()) => Undone::Restored("a separate copy again"),
            Err(err) => Undone::Refused(format!("cannot copy {}: {err}", e.kept.display())),
        };
    }
    // A reflink is a separate file already; an unlinked path is in place.
    match state::verify_bytes(&e.path, &e.fingerprint) {
        Ok(()) => Undone::InPlace,
        Err(m) => Undone::Refused(format!("{}: {m}; left alone", e.path.display())),
    }
}

/// Re-creates a file from its byte-identical kept copy, if that still holds
/// the same bytes.
fn recreate_from_kept(record: &Record) -> Undone {
    let e = &record.entry;
    match state::verify_bytes(&e.kept, &e.fingerprint) {
        Ok(()) => match fsops::restore_new(&e.kept, &e.path, &e.fingerprint, e.owner.as_ref()) {
            Ok(()) => Undone::Restored("re-created from the identical kept copy"),
            Err(err) => Undone::Refused(format!("cannot re-create {}: {err}", e.path.display())),
        },
        Err(m) => Undone::Refused(format!(
            "{} is gone and its kept copy {} no longer holds its bytes ({m})",
            e.path.display(),
            e.kept.display()
        )),
    }
}

fn in_place_or_changed(path: &Path, record: &Record) -> Undone {
    match state::verify_bytes(path, &record.entry.fingerprint) {
        Ok(()) => Undone::InPlace,
        // Never acted on (skipped, or the run stopped first) and edited
        // since: still the user's file, still in place.
        Err(_) if !matches!(record.outcome, Outcome::Done(_)) => Undone::InPlace,
        Err(m) => Undone::Refused(format!(
            "{} is back but is not the file that was moved ({m}); left alone",
            path.display()
        )),
    }
}
