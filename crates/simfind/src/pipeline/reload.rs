//! Reloading a file as its sorted shingle set, checked against the content
//! hash it was signed with: what exact verification compares. Callable from
//! outside the pipeline ([`reload_set`], or the [`Reload`] trait with its
//! [`FileReload`]) so that other lookups can verify the same way.
//!
//! Inputs: a path, the XXH3-128 its bytes had when signed, a [`Recipe`] and
//! [`ReadOptions`] (a scan's, or an index's recipe for a query). Output: the sorted,
//! duplicate-free shingle set, or a [`ReloadError`]. A large file is read a
//! chunk at a time ([`sorted_set_chunked`]) into the same set the whole-file
//! path makes. [`reload_part`] keeps only the values in one [`Part`] of the
//! hash space, for a pair (or a count) too large to hold whole.

use std::sync::OnceLock;

use xxhash_rust::xxh3::xxh3_128;

use super::ScanConfig;
use super::shingles::{Buffers, filtered_windows_into, sorted_set_chunked, sorted_shingles_into};
use crate::input::read::{self, ReadError, ReadOptions};
use crate::recipe::Recipe;
use crate::similarity::Part;
use crate::source::{Reopen, reopen_path};

/// Why a file could not be reloaded.
#[derive(Debug)]
pub enum ReloadError {
    /// It could not be read.
    Read(ReadError),
    /// Its bytes are no longer the ones that were signed.
    Changed,
}

impl std::fmt::Display for ReloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReloadError::Read(err) => err.fmt(f),
            ReloadError::Changed => {
                f.write_str("changed during the run (content differs from when it was signed)")
            }
        }
    }
}

impl std::error::Error for ReloadError {}

impl From<ReadError> for ReloadError {
    fn from(err: ReadError) -> Self {
        ReloadError::Read(err)
    }
}

/// A source of documents' shingle sets for exact verification.
pub trait Reload {
    /// The sorted shingle set of the document at `path`, which had content
    /// hash `expected_hash` when it was signed.
    fn set_of(&self, path: &std::path::Path, expected_hash: u128) -> Result<Vec<u64>, ReloadError>;

    /// The values of that set in `part`, sorted. By default the whole set
    /// is made and filtered; [`FileReload`] holds only the part.
    fn part_of(
        &self,
        path: &std::path::Path,
        expected_hash: u128,
        part: Part,
    ) -> Result<Vec<u64>, ReloadError> {
        let mut set = self.set_of(path, expected_hash)?;
        set.retain(|&h| part.contains(h));
        Ok(set)
    }
}

/// Files on disk, reloaded with a scan's recipe and read options.
pub struct FileReload<'a> {
    pub config: &'a ScanConfig,
    /// Each root's directory, opened at its first reload below it and kept
    /// for the others (`None` if it could not be opened: each reload then
    /// opens the root itself, and says why it cannot).
    root_dirs: Vec<OnceLock<Option<read::RootDir>>>,
}

impl<'a> FileReload<'a> {
    /// Reloads for a scan with `config`.
    pub fn new(config: &'a ScanConfig) -> Self {
        FileReload {
            config,
            root_dirs: config.roots.iter().map(|_| OnceLock::new()).collect(),
        }
    }
}

impl Reload for FileReload<'_> {
    fn set_of(&self, path: &std::path::Path, expected_hash: u128) -> Result<Vec<u64>, ReloadError> {
        self.part_of(path, expected_hash, Part::WHOLE)
    }

    fn part_of(
        &self,
        path: &std::path::Path,
        expected_hash: u128,
        part: Part,
    ) -> Result<Vec<u64>, ReloadError> {
        self.reload(path, Some(expected_hash), part)
    }
}

impl FileReload<'_> {
    /// The sorted shingle set of the file at `path` as it is now, opened as
    /// verification opens it, with no content hash to check it against (the
    /// removal figures of [`super::unique`]: an action re-checks the files'
    /// hashes itself before it touches them).
    pub fn set_as_now(&self, path: &std::path::Path) -> Result<Vec<u64>, ReloadError> {
        self.reload(path, None, Part::WHOLE)
    }

    fn reload(
        &self,
        path: &std::path::Path,
        expected_hash: Option<u128>,
        part: Part,
    ) -> Result<Vec<u64>, ReloadError> {
        // Without -L the walk read no link, so a link found now (but a root the
        // user named, which the walk followed) was put there since: not
        // followed, in the file's own name or in a directory above it.
        let roots = &self.config.roots;
        let open = if self.config.walk.follow_links || roots.iter().any(|r| r == path) {
            Reopen::Follow
        } else {
            let index = crate::input::walk::root_index(roots, path) as usize;
            match (roots.get(index), self.root_dirs.get(index)) {
                (Some(root), Some(dir)) => {
                    match dir.get_or_init(|| read::RootDir::open(root).ok()) {
                        Some(dir) => Reopen::BeneathDir(root, dir),
                        None => Reopen::Beneath(root),
                    }
                }
                _ => Reopen::NoFollow,
            }
        };
        reload_from(
            path,
            expected_hash,
            &self.config.recipe,
            &self.config.read,
            part,
            open,
        )
    }
}

/// Re-creates a file's shingle set for exact verification, refusing a file
/// whose content is no longer what was signed.
pub fn reload_set(
    path: &std::path::Path,
    expected_hash: u128,
    recipe: &Recipe,
    read: &ReadOptions,
) -> Result<Vec<u64>, ReloadError> {
    reload_part(path, expected_hash, recipe, read, Part::WHOLE)
}

/// [`reload_set`] keeping only the values in `part`: a large file's reload
/// then holds about `1 / part.count` of its set.
pub(super) fn reload_part(
    path: &std::path::Path,
    expected_hash: u128,
    recipe: &Recipe,
    read: &ReadOptions,
    part: Part,
) -> Result<Vec<u64>, ReloadError> {
    reload_from(
        path,
        Some(expected_hash),
        recipe,
        read,
        part,
        Reopen::Follow,
    )
}

/// [`reload_set`] of a file an index recorded with `identity` (device,
/// inode): refused, before a byte is read, if the path now leads to another
/// file (a link or a swapped directory put in its way), so a query never
/// reads outside what was indexed. Without an identity (a platform without
/// inodes) a link in the file's own name is not followed.
pub fn reload_indexed(
    path: &std::path::Path,
    identity: Option<(u64, u64)>,
    expected_hash: u128,
    recipe: &Recipe,
    read: &ReadOptions,
) -> Result<Vec<u64>, ReloadError> {
    let open = identity.map_or(Reopen::NoFollow, |(dev, ino)| Reopen::Identified(dev, ino));
    reload_from(path, Some(expected_hash), recipe, read, Part::WHOLE, open)
}

/// [`reload_part`], opening the file as `open` says; without an
/// `expected_hash`, the file is taken as it is now.
fn reload_from(
    path: &std::path::Path,
    expected_hash: Option<u128>,
    recipe: &Recipe,
    read: &ReadOptions,
    part: Part,
    open: Reopen<'_>,
) -> Result<Vec<u64>, ReloadError> {
    let contents = reopen_path(path, open, read)?;
    thread_local! {
        // Each verifying thread keeps its text buffer and hash table from one
        // reload to the next, as signing does, instead of allocating and
        // faulting in fresh ones for every candidate file.
        static BUFFERS: std::cell::RefCell<Buffers> = std::cell::RefCell::default();
    }
    let set = if contents.len() as u64 >= read.chunked_min_size {
        // A large file: one pass, a chunk at a time, checked at the end.
        let release = |offset| contents.release_before(offset);
        BUFFERS.with_borrow_mut(|buffers| {
            let digest =
                sorted_set_chunked(&contents, &release, recipe, read.chunk_size, part, buffers);
            // Taken, not cloned: the thread keeps no buffer the size of the
            // largest set it ever loaded.
            let set = std::mem::take(&mut buffers.set);
            expected_hash
                .is_none_or(|h| digest == h)
                .then_some(set)
                .ok_or(ReloadError::Changed)
        })?
    } else {
        if expected_hash.is_some_and(|h| xxh3_128(contents.raw()) != h) {
            return Err(ReloadError::Changed);
        }
        BUFFERS.with_borrow_mut(|buffers| {
            if part == Part::WHOLE {
                // Sorted, deduplicated and copied out at its exact length in
                // one pass; the buffer stays for reuse.
                filtered_windows_into(&contents, recipe, buffers);
                buffers.sorter.sorted_distinct(&mut buffers.set)
            } else {
                sorted_shingles_into(&contents, recipe, buffers);
                let in_part = |h: &&u64| part.contains(**h);
                buffers.set.iter().filter(in_part).copied().collect()
            }
        })
    };
    contents.verify_unchanged()?;
    Ok(set)
}
