//! The walked files while a scan runs, as columns: every path's bytes in one
//! arena, sizes, times, shingle counts and statuses in parallel vectors.
//!
//! A [`Document`] per file costs 48 bytes plus its path as an allocation of
//! its own (malloc rounds it up and adds a header, and a million small
//! allocations that live through the whole scan interleave with each batch's
//! transient ones, which keeps freed pages resident). Held during signing and
//! verification, beside the signature matrix, that was most of the peak
//! memory above the matrix at a million files (docs/PERFORMANCE.md, "Issue
//! #22"). [`Docs`] holds the same fields in a few large vectors and turns
//! into the [`Document`]s of the outcome only once verification is over and
//! the matrix is freed ([`Docs::into_documents`]).
//!
//! Invariant: every column has one entry per document, in id order.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::SystemTime;

use crate::input::walk::FileEntry;
use crate::model::{DocStatus, Document};

/// The documents of a scan by id, as columns (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Docs {
    /// Path bytes of every document, one after the other.
    paths: Vec<u8>,
    /// End of document `i`'s path in `paths` (it starts where `i − 1`'s ends).
    ends: Vec<u64>,
    sizes: Vec<u64>,
    modified: Vec<Option<SystemTime>>,
    shingles: Vec<u32>,
    status: Vec<DocStatus>,
}

impl Docs {
    /// Adds the document of a walked file, before it is read, as the next id.
    pub(super) fn push(&mut self, file: &FileEntry) {
        self.paths
            .extend_from_slice(file.path.as_os_str().as_bytes());
        self.ends.push(self.paths.len() as u64);
        self.sizes.push(file.size);
        self.modified.push(file.modified);
        self.shingles.push(0);
        self.status.push(DocStatus::Read);
    }

    /// The documents of `files`, in order.
    #[cfg(test)]
    pub(super) fn of_files(files: impl IntoIterator<Item = FileEntry>) -> Docs {
        let mut docs = Docs::default();
        for file in files {
            docs.push(&file);
        }
        docs
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn path(&self, id: usize) -> &Path {
        let start = if id == 0 {
            0
        } else {
            self.ends[id - 1] as usize
        };
        Path::new(OsStr::from_bytes(
            &self.paths[start..self.ends[id] as usize],
        ))
    }

    /// Every path, by id.
    pub(super) fn paths(&self) -> impl Iterator<Item = &Path> {
        (0..self.len()).map(|id| self.path(id))
    }

    pub(super) fn size(&self, id: usize) -> u64 {
        self.sizes[id]
    }

    pub(super) fn modified(&self, id: usize) -> Option<SystemTime> {
        self.modified[id]
    }

    pub(super) fn shingles(&self, id: usize) -> u32 {
        self.shingles[id]
    }

    pub(super) fn set_shingles(&mut self, id: usize, shingles: u32) {
        self.shingles[id] = shingles;
    }

    pub(super) fn status(&self, id: usize) -> DocStatus {
        self.status[id]
    }

    pub(super) fn set_status(&mut self, id: usize, status: DocStatus) {
        self.status[id] = status;
    }

    /// The outcome's documents. Each column is freed as soon as it has been
    /// read, the path arena last, in pieces from its end, so that the
    /// documents and the columns are never both whole.
    pub(super) fn into_documents(self) -> Vec<Document> {
        let Docs {
            mut paths,
            ends,
            sizes,
            modified,
            shingles,
            status,
        } = self;
        let mut documents: Vec<Document> = Vec::with_capacity(ends.len());
        // Built from the last document down, truncating the arena behind.
        for id in (0..ends.len()).rev() {
            let start = if id == 0 { 0 } else { ends[id - 1] as usize };
            let path: Box<Path> = Path::new(OsStr::from_bytes(&paths[start..])).into();
            paths.truncate(start);
            if paths.capacity() > 2 * paths.len() + (1 << 20) {
                paths.shrink_to_fit();
            }
            documents.push(Document {
                path,
                size: sizes[id],
                modified: modified[id],
                shingles: shingles[id],
                status: status[id],
            });
        }
        documents.reverse();
        documents
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    fn file(path: &str, size: u64, secs: Option<u64>) -> FileEntry {
        FileEntry {
            path: PathBuf::from(path),
            size,
            modified: secs.map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s)),
            dev: 0,
            ino: 0,
        }
    }

    #[test]
    fn columns_give_back_each_document_as_pushed() {
        let files = vec![
            file("/r/a", 3, Some(10)),
            file("", 0, None),
            file("/r/dir/\u{e9}t\u{e9}.txt", 1 << 40, Some(1)),
            file("/r/b", 7, Some(2)),
        ];
        let mut docs = Docs::of_files(files.clone());
        assert_eq!(docs.len(), 4);
        docs.set_shingles(2, 41);
        docs.set_status(3, DocStatus::Binary);
        for (id, f) in files.iter().enumerate() {
            assert_eq!(docs.path(id), f.path);
            assert_eq!(docs.size(id), f.size);
            assert_eq!(docs.modified(id), f.modified);
        }
        assert_eq!(docs.paths().count(), 4);
        let documents = docs.into_documents();
        assert_eq!(documents.len(), 4);
        for (doc, f) in documents.iter().zip(&files) {
            assert_eq!(&*doc.path, f.path);
            assert_eq!(doc.size, f.size);
            assert_eq!(doc.modified, f.modified);
        }
        assert_eq!(
            documents
                .iter()
                .map(|d| (d.shingles, d.status))
                .collect::<Vec<_>>(),
            [
                (0, DocStatus::Read),
                (0, DocStatus::Read),
                (41, DocStatus::Read),
                (0, DocStatus::Binary)
            ]
        );
    }

    #[test]
    fn non_utf8_paths_keep_their_bytes() {
        let raw = OsStr::from_bytes(b"/r/\xff\xfe");
        let mut docs = Docs::default();
        docs.push(&FileEntry {
            path: PathBuf::from(raw),
            size: 1,
            modified: None,
            dev: 0,
            ino: 0,
        });
        assert_eq!(docs.path(0).as_os_str(), raw);
        assert_eq!(docs.into_documents()[0].path.as_os_str(), raw);
    }
}
