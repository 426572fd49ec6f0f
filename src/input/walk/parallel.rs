//! The collecting walk ([`super::walk`]) on several threads: each root is cut
//! into parts by the entries directly under it (contiguous runs of its
//! sorted listing), each part is walked on its own thread into a buffer,
//! and the buffers are handed over part by part, in order. What comes out —
//! files, their order, skips, problems and their order — is what the walk on
//! one thread gives: a depth-first walk of a sorted directory visits each
//! entry's subtree before the next entry, so the walk of the whole root is
//! the parts' walks one after the other. Only the time differs: stating a
//! million files (one system call each) was most of an unchanged re-index
//! (docs/PERFORMANCE.md).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rayon::prelude::*;

use super::{
    Dedup, Found, StreamEvent, WalkEnd, WalkOptions, WalkProblem, entry_name, streaming_root_order,
    walk_root,
};
use crate::input::filter::Excludes;

/// Parts per thread: parts differ in size (a directory of many files next
/// to one of few), so more parts than threads even out the load.
const PARTS_PER_THREAD: usize = 8;

/// One part of a root: the entries directly under it whose sibling key
/// (their name, with `/` after a directory's: [`super::sibling_order`]) is
/// in `from..to`, and everything under them.
pub(super) struct Slice {
    from: Option<Vec<u8>>,
    to: Option<Vec<u8>>,
    /// The first part reports what belongs to the root itself.
    pub(super) first: bool,
}

impl Slice {
    fn holds_key(&self, key: &[u8]) -> bool {
        self.from.as_deref().is_none_or(|from| key >= from)
            && self.to.as_deref().is_none_or(|to| key < to)
    }

    /// Whether `entry`, directly under the root, is in this part.
    pub(super) fn holds(&self, entry: &walkdir::DirEntry) -> bool {
        let mut key = entry_name(entry).to_vec();
        if entry.file_type().is_dir() {
            key.push(b'/');
        }
        self.holds_key(&key)
    }

    /// Whether this part reports `err`: an error at or directly under the
    /// root without a name is the first part's; one with a path directly
    /// under the root is the part of its name (as a directory's: the
    /// errors there are directories that could not be listed).
    pub(super) fn reports(&self, err: &walkdir::Error) -> bool {
        match (err.depth(), err.path()) {
            (1, Some(path)) => {
                let mut key = path
                    .file_name()
                    .map_or_else(Vec::new, |n| n.as_bytes().to_vec());
                key.push(b'/');
                self.holds_key(&key)
            }
            (0 | 1, _) => self.first,
            _ => true,
        }
    }
}

/// The parts of every root, roots in the walk's order.
pub(super) struct Plan<'a> {
    parts: Vec<(&'a Path, Slice)>,
}

#[cfg(test)]
impl Plan<'_> {
    pub(super) fn len(&self) -> usize {
        self.parts.len()
    }
}

/// How to walk `roots` on the threads of the current pool, or `None` when
/// one thread would do it as well (one thread; links followed or roots
/// overlapping, which the sequential walk sorts after the walk) or a root
/// cannot be listed (the sequential walk reports why).
pub(super) fn plan<'a>(roots: &'a [std::path::PathBuf], opts: &WalkOptions) -> Option<Plan<'a>> {
    let threads = rayon::current_num_threads();
    if threads < 2 {
        return None;
    }
    let order = streaming_root_order(roots, opts)?;
    let mut parts = Vec::new();
    for root in order {
        let meta = std::fs::symlink_metadata(root).ok()?;
        if !meta.is_dir() {
            // A file, or a link (to a directory: walkdir follows it).
            parts.push((
                root,
                Slice {
                    from: None,
                    to: None,
                    first: true,
                },
            ));
            continue;
        }
        let mut keys = Vec::new();
        for entry in std::fs::read_dir(root).ok()? {
            let entry = entry.ok()?;
            let mut key = entry.file_name().as_bytes().to_vec();
            if entry.file_type().ok()?.is_dir() {
                key.push(b'/');
            }
            keys.push(key);
        }
        keys.sort_unstable();
        let n = (threads * PARTS_PER_THREAD).min(keys.len()).max(1);
        // Part i starts at the key of entry i·len/n; the first has no lower
        // bound and the last no upper one, so every entry is in one part.
        let bounds: Vec<Option<Vec<u8>>> = (0..=n)
            .map(|i| (i > 0 && i < n).then(|| keys[i * keys.len() / n].clone()))
            .collect();
        for (i, w) in bounds.windows(2).enumerate() {
            parts.push((
                root,
                Slice {
                    from: w[0].clone(),
                    to: w[1].clone(),
                    first: i == 0,
                },
            ));
        }
    }
    (parts.len() > 1).then_some(Plan { parts })
}

/// What one part's walk found, held until the parts before it are handed over.
enum Held {
    File(super::FileEntry, u64),
    Problem(WalkProblem),
    Skipped(WalkProblem),
}

fn held(p: &WalkProblem) -> WalkProblem {
    WalkProblem {
        path: p.path.clone(),
        reason: p.reason.clone(),
    }
}

/// Walks `plan`'s parts in parallel and hands everything to `on_event` as
/// [`super::walk_each`] would have (the same events in the same order, the
/// same [`WalkEnd`]).
pub(super) fn walk(
    plan: &Plan<'_>,
    opts: &WalkOptions,
    mut on_event: impl FnMut(StreamEvent<'_>),
) -> WalkEnd {
    let excludes = opts.exclude.as_ref().map_or(0, Excludes::len);
    let walked: Vec<(Vec<Held>, WalkEnd, Vec<bool>)> = plan
        .parts
        .par_iter()
        .map(|(root, slice)| {
            let mut held_events = Vec::new();
            let mut end = WalkEnd::default();
            let mut used = vec![false; excludes];
            walk_root(
                root,
                opts,
                true,
                Some(slice),
                &mut used,
                &mut end,
                &mut |found| {
                    held_events.push(match found {
                        Found::File(file, nlink) => Held::File(file, nlink),
                        Found::Event(StreamEvent::File(file)) => Held::File(file, 1),
                        Found::Event(StreamEvent::Problem(p)) => Held::Problem(held(p)),
                        Found::Event(StreamEvent::Skipped(p)) => Held::Skipped(held(p)),
                    })
                },
            );
            (held_events, end, used)
        })
        .collect();
    let mut end = WalkEnd::default();
    let mut used = vec![false; excludes];
    let mut dedup = Dedup::new(opts.hardlinks_as_copies);
    for (events, part_end, part_used) in walked {
        for event in events {
            match event {
                Held::File(file, nlink) => dedup.admit(file, nlink, &mut on_event),
                Held::Problem(p) => on_event(StreamEvent::Problem(&p)),
                Held::Skipped(p) => on_event(StreamEvent::Skipped(&p)),
            }
        }
        let skips = &mut end.skips;
        let part = part_end.skips;
        skips.special += part.special;
        skips.symlinks += part.symlinks;
        skips.size += part.size;
        skips.same_file += part.same_file;
        skips.hidden += part.hidden;
        skips.excluded += part.excluded;
        skips.ignored += part.ignored;
        skips.hard_links += part.hard_links;
        end.problems.extend(part_end.problems);
        for (u, p) in used.iter_mut().zip(part_used) {
            *u |= p;
        }
    }
    end.skips.same_file += dedup.same_file;
    end.skips.hard_links += dedup.hard_links;
    if let Some(exclude) = &opts.exclude {
        end.skips.unused_excludes = exclude.unused(&used);
    }
    end
}
