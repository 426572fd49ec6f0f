//! Files as a [`Source`]: the walked files, opened by
//! [`read_walked`](read::read_walked) (the one opener of a walked file), and
//! the openers for a file named again by its path (verification's reloads, a
//! query's candidates, the HTML report) or by the user (`explain`, `compare`,
//! `query`, `index add`).
//!
//! Every opener here hands its bytes to the reading options'
//! [`Extract`](super::Extract) step, so a file read
//! for signing and the same file read again for verification go through the
//! same stage.

use std::path::Path;

use super::{DocKey, Document, Source, SourceError, not_in_source};
use crate::input::read::{self, ReadError, ReadOptions, RootDir};
use crate::input::walk::FileEntry;

/// The walked files of a scan, in the walk's order (ids are their indices;
/// the walk sorts them by path).
#[derive(Clone, Copy, Debug)]
pub struct FileSource<'a> {
    files: &'a [FileEntry],
    follow_links: bool,
    read: &'a ReadOptions,
}

impl<'a> FileSource<'a> {
    /// `files` as the walk found them, read with `read`; `follow_links` as the
    /// walk followed links.
    pub fn new(files: &'a [FileEntry], follow_links: bool, read: &'a ReadOptions) -> Self {
        FileSource {
            files,
            follow_links,
            read,
        }
    }

    /// The walked files.
    pub fn files(&self) -> &'a [FileEntry] {
        self.files
    }

    /// The reading options.
    pub fn read_options(&self) -> &'a ReadOptions {
        self.read
    }

    /// Opens `file`, one the walk found (of this source or not: the scan's
    /// stages hold entries, not ids): [`read::read_walked`], then the
    /// reading options' [`Extract`](super::Extract) step. The hot path of
    /// signing: no copy, no allocation beyond the read's own, for a file
    /// that is not a document format.
    #[inline]
    pub fn open_file(&self, file: &FileEntry) -> Result<Document, SourceError> {
        let contents = read::read_walked(file, self.follow_links, self.read)?;
        Ok(Document::from_contents(contents).extracted_at(&self.read.extract, Some(&file.path)))
    }

    /// The walked entry at `path`, if the walk found one there.
    fn entry(&self, path: &Path) -> Option<&'a FileEntry> {
        // Sorted by path (the walk's order); a list given in another order
        // is searched through.
        match self.files.binary_search_by(|f| f.path.as_path().cmp(path)) {
            Ok(i) => Some(&self.files[i]),
            Err(_) => self.files.iter().find(|f| f.path == path),
        }
    }
}

impl Source for FileSource<'_> {
    fn len(&self) -> usize {
        self.files.len()
    }

    fn key(&self, id: usize) -> DocKey {
        DocKey::Path(self.files[id].path.clone())
    }

    fn open(&self, id: usize) -> Result<Document, SourceError> {
        self.open_file(&self.files[id])
    }

    /// A walked file is opened again as it was first opened
    /// ([`read::read_walked`]): only the very file the walk saw (same device
    /// and inode) is read, so one replaced since is refused.
    fn reopen(&self, key: &DocKey) -> Result<Document, SourceError> {
        match key {
            DocKey::Path(path) => match self.entry(path) {
                Some(file) => self.open_file(file),
                None => Err(not_in_source(key)),
            },
            _ => Err(not_in_source(key)),
        }
    }
}

/// How a file named by its path (not a walked entry) is opened again.
#[derive(Clone, Copy, Debug)]
pub enum Reopen<'a> {
    /// As the path leads, through any link.
    Follow,
    /// Refusing a link in the last component.
    NoFollow,
    /// Refusing a link in any component below this root.
    Beneath(&'a Path),
    /// As `Beneath`, below the root's directory already open.
    BeneathDir(&'a Path, &'a RootDir),
    /// Refusing any file but the one with this device and inode.
    Identified(u64, u64),
}

/// Opens the file at `path` again, as `how` says (each mode is one of the
/// file layer's checked openers), then `opts`' [`Extract`](super::Extract)
/// step.
pub fn reopen_path(
    path: &Path,
    how: Reopen<'_>,
    opts: &ReadOptions,
) -> Result<Document, ReadError> {
    let contents = match how {
        Reopen::Follow => read::read_file(path, opts)?,
        Reopen::NoFollow => read::read_file_nofollow(path, opts)?,
        Reopen::Beneath(root) => read::read_file_beneath(root, path, opts)?,
        Reopen::BeneathDir(root, dir) => read::read_file_beneath_dir(dir, root, path, opts)?,
        Reopen::Identified(dev, ino) => read::read_file_identified(path, (dev, ino), opts)?,
    };
    Ok(Document::from_contents(contents).extracted_at(&opts.extract, Some(path)))
}

/// Opens a file the user named (`explain`, `compare`, `query`, `index add`):
/// the path is the user's, links in it are followed.
pub fn open_named(path: &Path, opts: &ReadOptions) -> Result<Document, ReadError> {
    reopen_path(path, Reopen::Follow, opts)
}
