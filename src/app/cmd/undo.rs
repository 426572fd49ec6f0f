//! `simfind undo JOURNAL`: reverse what a `simfind dedupe` run did, from its
//! journal (`simfind::action::undo`); this file parses, prints and picks the
//! exit code.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use anyhow::{Context, Result};
use simfind::action::journal;
use simfind::action::{Undone, undo};

use crate::app::args::{self, ExitRow};
use crate::app::exit;
use crate::app::flags::defs;
use crate::app::ui::{Verbosity, plural, warning_prefix};

const EXAMPLES: &str = "EXAMPLES:
  simfind dedupe ./docs --move-to /srv/q      prints: journal: /srv/q/simfind-journal-….jsonl
  simfind undo /srv/q/simfind-journal-….jsonl moves every file back

WHAT IS UNDONE, newest action first (each decided from the file system, so a run
killed midway is completed and a second undo changes nothing):
  move      moved back (rename, or copy + sync + verify + remove across file systems)
  link      the hard link becomes a separate copy again
  reflink   nothing to do: a reflink is already a separate file
  remove    re-created from the kept copy if it was byte-identical and the kept
            copy still holds those bytes; a removed near-duplicate cannot be
Nothing is overwritten: a path taken since, or a moved file changed since, is left
alone with a warning.

OUTPUT (stdout, one line per file put back): restored<TAB>PATH<TAB>HOW

";

/// What every exit code of `undo` means.
pub const EXIT_STATUS: &[ExitRow] = &[
    (
        exit::OK,
        "every action of the journal is undone (or was never done)",
    ),
    (
        exit::PARTIAL,
        "some files could not be put back, or a damaged journal line was skipped\n\
         (warnings on stderr name each one and why); everything else is undone",
    ),
    (
        exit::FATAL,
        "usage error, or the journal cannot be read (nothing was changed)",
    ),
];

/// Reverse a `simfind dedupe` run from its journal: move the files back,
/// turn hard links into copies again, re-create removed identical files.
#[derive(clap::Args, Debug)]
#[command(after_help = args::after_help(EXAMPLES, EXIT_STATUS))]
#[command(mut_args(defs::one("wait", defs::wait(defs::Wait::Changes))))]
pub struct Args {
    /// The journal that `simfind dedupe` printed.
    #[arg(value_name = "JOURNAL")]
    pub journal: PathBuf,

    // --wait: defs::wait.
    #[arg(long, default_value_t = 0.0)]
    pub wait: f64,

    #[command(flatten)]
    pub verbosity: Verbosity,
}

pub fn run(args: Args) -> Result<i32> {
    args::wait_duration(args.wait)?;
    let read = journal::read(&args.journal)
        .with_context(|| format!("cannot read the journal {}", args.journal.display()))?;
    if read.truncated_tail {
        eprintln!(
            "{} {}: the last line was cut short (the run was killed while writing it); the action it began had not started",
            warning_prefix(),
            args.journal.display()
        );
    }
    // Every directory the journal touches, so no other run changes files
    // there while this one puts them back.
    for (line, why) in &read.damaged {
        eprintln!(
            "{} {}:{line}: {why}; line skipped (if it recorded an action, that file stays where the run left it)",
            warning_prefix(),
            args.journal.display()
        );
    }
    let mut trees: Vec<PathBuf> = read
        .records
        .iter()
        .flat_map(|r| {
            [
                Some(&r.entry.path),
                Some(&r.entry.kept),
                r.entry.to.as_ref(),
            ]
            .into_iter()
            .flatten()
            .filter_map(|p| p.parent().map(PathBuf::from))
        })
        .collect();
    trees.sort();
    trees.dedup();
    // A directory inside another already listed adds nothing.
    let mut outer: Vec<PathBuf> = Vec::new();
    for tree in trees {
        if !outer.last().is_some_and(|o| tree.starts_with(o)) {
            outer.push(tree);
        }
    }
    let _lock = if outer.is_empty() {
        None
    } else {
        Some(crate::app::cmd::dedupe::lock_trees(&outer, args.wait)?)
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut write_error = None;
    let counts = undo(&read, &mut |record, undone| match undone {
        Undone::Restored(how) => {
            let line = out
                .write_all(b"restored\t")
                .and_then(|()| out.write_all(record.entry.path.as_os_str().as_bytes()))
                .and_then(|()| writeln!(out, "\t{how}"));
            if let Err(err) = line {
                write_error.get_or_insert(err);
            }
        }
        Undone::InPlace => {}
        Undone::Refused(reason) => eprintln!(
            "{} {}: not restored: {reason}",
            warning_prefix(),
            record.entry.path.display()
        ),
    });
    let _ = out.flush();
    if !args.verbosity.quiet {
        eprintln!(
            "simfind: undo: {} restored, {} already in place, {} could not be restored",
            plural(counts.restored as u64, "file", "files"),
            counts.in_place,
            counts.refused
        );
    }
    if let Some(err) = write_error
        && err.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(err.into());
    }
    Ok(if counts.refused > 0 || !read.damaged.is_empty() {
        exit::PARTIAL
    } else {
        exit::OK
    })
}
