//! The walked files while a scan runs, as columns: every path front-coded
//! in one arena, sizes, times, shingle counts and statuses in parallel
//! vectors.
//!
//! A [`Document`] per file costs 48 bytes plus its path as an allocation of
//! its own (malloc rounds it up and adds a header, and a million small
//! allocations that live through the whole scan interleave with each batch's
//! transient ones, which keeps freed pages resident). Held during signing and
//! verification, beside the signature matrix, that was most of the peak
//! memory above the matrix at a million files (docs/PERFORMANCE.md, "Issue
//! #22"). [`Docs`] holds the same fields in a few large vectors, the paths
//! front-coded (the walk gives them sorted, so each shares most of its bytes
//! with the one before: ~10 bytes a path instead of ~40 with its offset),
//! and turns into the [`Document`]s of the outcome only once verification
//! is over and the matrix is freed ([`Docs::into_documents`]).
//!
//! Invariant: every column has one entry per document, in id order.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::input::walk::FileEntry;
use crate::model::{DocStatus, Document};

/// Documents per block of front-coded paths: a path is found by decoding at
/// most this many entries from its block's first, which holds its whole path.
const BLOCK: usize = 16;

/// `nanos` of a document whose modification time is unknown.
const NO_TIME: u32 = u32::MAX;

/// The documents of a scan by id, as columns (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Docs {
    /// Every document's path, front-coded in id order: the length of the
    /// prefix it shares with the path before it and the length of the rest
    /// (LEB128 each), then the rest's bytes. The walk gives paths sorted, so
    /// a path usually shares all but its file name with the one before; a
    /// block's first document shares nothing.
    paths: Vec<u8>,
    /// Where each block of [`BLOCK`] documents starts in `paths`.
    blocks: Vec<u64>,
    /// The path pushed last, the next one's reference.
    last: Vec<u8>,
    /// Sizes, [`WIDE`] for one of 4 GiB or more (then in `wide_sizes`).
    sizes: Vec<u32>,
    /// (id, size) of each document whose size is [`WIDE`] in `sizes`, by id.
    wide_sizes: Vec<(u32, u64)>,
    /// Modification times as seconds (floor) and nanoseconds from the Unix
    /// epoch, [`NO_TIME`] nanoseconds when unknown: 8 bytes where an
    /// `Option<SystemTime>` takes 16. Seconds outside 1970–2106 are [`WIDE`]
    /// here and listed in `wide_secs`.
    secs: Vec<u32>,
    wide_secs: Vec<(u32, i64)>,
    nanos: Vec<u32>,
    /// Empty until the first count is set (after signing, when the content
    /// groups are built: not beside the whole matrix), then one per document.
    shingles: Vec<u32>,
    status: Vec<DocStatus>,
}

/// A column value that does not fit 32 bits: the real one is in a list.
const WIDE: u32 = u32::MAX;

/// `value` as a column entry, listed in `wide` under `id` if it does not fit.
fn narrow<T: Copy>(value: T, fits: Option<u32>, id: usize, wide: &mut Vec<(u32, T)>) -> u32 {
    match fits {
        Some(v) if v != WIDE => v,
        _ => {
            wide.push((id as u32, value));
            WIDE
        }
    }
}

/// The value of column entry `v` of document `id` (see [`narrow`]).
fn widen<T: Copy + From<u32>>(v: u32, id: usize, wide: &[(u32, T)]) -> T {
    if v != WIDE {
        return T::from(v);
    }
    let at = wide
        .binary_search_by_key(&(id as u32), |&(id, _)| id)
        .expect("every wide entry is listed");
    wide[at].1
}

fn put_len(out: &mut Vec<u8>, mut value: usize) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_len(bytes: &[u8], at: &mut usize) -> usize {
    let mut value = 0;
    let mut shift = 0;
    loop {
        let byte = bytes[*at];
        *at += 1;
        value |= usize::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return value;
        }
        shift += 7;
    }
}

/// `time` as (seconds, nanoseconds) from the epoch, the seconds rounded down.
fn split_time(time: Option<SystemTime>) -> (i64, u32) {
    let Some(time) = time else {
        return (0, NO_TIME);
    };
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => (after.as_secs() as i64, after.subsec_nanos()),
        Err(before) => {
            let before = before.duration();
            let (secs, nanos) = (before.as_secs() as i64, before.subsec_nanos());
            if nanos == 0 {
                (-secs, 0)
            } else {
                (-secs - 1, 1_000_000_000 - nanos)
            }
        }
    }
}

/// The inverse of [`split_time`].
fn join_time(secs: i64, nanos: u32) -> Option<SystemTime> {
    if nanos == NO_TIME {
        return None;
    }
    let whole = if secs >= 0 {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs as u64)
    } else {
        SystemTime::UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
    };
    Some(whole + Duration::from_nanos(u64::from(nanos)))
}

impl Docs {
    /// Adds the document of a walked file, before it is read, as the next id.
    pub(super) fn push(&mut self, file: &FileEntry) {
        let path = file.path.as_os_str().as_bytes();
        let shared = if self.len().is_multiple_of(BLOCK) {
            self.blocks.push(self.paths.len() as u64);
            0
        } else {
            (self.last.iter().zip(path))
                .take_while(|(a, b)| a == b)
                .count()
        };
        put_len(&mut self.paths, shared);
        put_len(&mut self.paths, path.len() - shared);
        self.paths.extend_from_slice(&path[shared..]);
        self.last.clear();
        self.last.extend_from_slice(path);
        let id = self.len();
        let size = narrow(
            file.size,
            u32::try_from(file.size).ok(),
            id,
            &mut self.wide_sizes,
        );
        self.sizes.push(size);
        let (secs, nanos) = split_time(file.modified);
        let secs = narrow(secs, u32::try_from(secs).ok(), id, &mut self.wide_secs);
        self.secs.push(secs);
        self.nanos.push(nanos);
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
        self.sizes.len()
    }

    /// Decodes the entry at `at` (moved past it) onto `path`, the path of
    /// the entry before it (ignored at a block's start).
    fn decode(&self, at: &mut usize, path: &mut Vec<u8>) {
        let shared = get_len(&self.paths, at);
        let rest = get_len(&self.paths, at);
        path.truncate(shared);
        path.extend_from_slice(&self.paths[*at..*at + rest]);
        *at += rest;
    }

    pub(super) fn path(&self, id: usize) -> PathBuf {
        let mut at = self.blocks[id / BLOCK] as usize;
        let mut path = Vec::new();
        for _ in 0..=id % BLOCK {
            self.decode(&mut at, &mut path);
        }
        PathBuf::from(OsString::from_vec(path))
    }

    /// Every path, by id.
    pub(super) fn paths(&self) -> impl Iterator<Item = PathBuf> {
        let mut at = 0;
        let mut path = Vec::new();
        (0..self.len()).map(move |_| {
            self.decode(&mut at, &mut path);
            PathBuf::from(OsString::from_vec(path.clone()))
        })
    }

    pub(super) fn size(&self, id: usize) -> u64 {
        widen(self.sizes[id], id, &self.wide_sizes)
    }

    pub(super) fn modified(&self, id: usize) -> Option<SystemTime> {
        join_time(widen(self.secs[id], id, &self.wide_secs), self.nanos[id])
    }

    pub(super) fn shingles(&self, id: usize) -> u32 {
        self.shingles.get(id).copied().unwrap_or(0)
    }

    pub(super) fn set_shingles(&mut self, id: usize, shingles: u32) {
        if self.shingles.is_empty() {
            self.shingles = vec![0; self.len()];
        }
        self.shingles[id] = shingles;
    }

    pub(super) fn status(&self, id: usize) -> DocStatus {
        self.status[id]
    }

    pub(super) fn set_status(&mut self, id: usize, status: DocStatus) {
        self.status[id] = status;
    }

    /// The outcome's documents. The path arena is freed as it is read, in
    /// pieces from its end (block by block, last first), so that the
    /// documents and the columns are never both whole.
    pub(super) fn into_documents(mut self) -> Vec<Document> {
        let len = self.len();
        let mut documents: Vec<Document> = Vec::with_capacity(len);
        let mut block: Vec<PathBuf> = Vec::with_capacity(BLOCK);
        for b in (0..self.blocks.len()).rev() {
            let first = b * BLOCK;
            let mut at = self.blocks[b] as usize;
            let mut path = Vec::new();
            block.clear();
            for _ in first..len.min(first + BLOCK) {
                self.decode(&mut at, &mut path);
                block.push(PathBuf::from(OsString::from_vec(path.clone())));
            }
            for (id, path) in (first..first + block.len()).zip(block.drain(..)).rev() {
                documents.push(Document {
                    path: path.into_boxed_path(),
                    size: self.size(id),
                    modified: self.modified(id),
                    shingles: self.shingles(id),
                    status: self.status[id],
                });
            }
            self.paths.truncate(self.blocks[b] as usize);
            if self.paths.capacity() > 2 * self.paths.len() + (1 << 20) {
                self.paths.shrink_to_fit();
            }
        }
        documents.reverse();
        documents
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

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
        assert!(docs.paths().eq(files.iter().map(|f| f.path.clone())));
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

    #[test]
    fn paths_across_blocks_come_back_whole() {
        // More than two blocks; shared prefixes of every length, including
        // none, a whole path, and a split inside a multi-byte character;
        // paths longer than one LEB128 byte of length.
        let long = "x".repeat(300);
        let mut paths: Vec<Vec<u8>> = vec![
            b"/r/a".to_vec(),
            b"/r/a".to_vec(),
            b"/r/ab".to_vec(),
            b"/r/a".to_vec(),
            b"".to_vec(),
            "/r/\u{e9}t\u{e9}".as_bytes().to_vec(),
            "/r/\u{e8}".as_bytes().to_vec(),
            b"/r/\xff\xfe".to_vec(),
            format!("/r/{long}/1").into_bytes(),
            format!("/r/{long}/2").into_bytes(),
        ];
        for i in 0..40 {
            paths.push(format!("/r/d{:02}/f{:03}", i / 7, i).into_bytes());
        }
        let files: Vec<FileEntry> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| FileEntry {
                path: PathBuf::from(OsStr::from_bytes(p)),
                size: i as u64,
                modified: None,
                dev: 0,
                ino: 0,
            })
            .collect();
        let docs = Docs::of_files(files.clone());
        for (id, f) in files.iter().enumerate() {
            assert_eq!(docs.path(id), f.path, "document {id}");
        }
        assert!(docs.paths().eq(files.iter().map(|f| f.path.clone())));
        let documents = docs.into_documents();
        assert_eq!(documents.len(), files.len());
        for (doc, f) in documents.iter().zip(&files) {
            assert_eq!(&*doc.path, f.path);
            assert_eq!(doc.size, f.size);
        }
    }

    #[test]
    fn modification_times_come_back_exactly() {
        let epoch = SystemTime::UNIX_EPOCH;
        let times = [
            None,
            Some(epoch),
            Some(epoch + Duration::new(1_700_000_000, 123_456_789)),
            Some(epoch + Duration::new(0, 1)),
            Some(epoch - Duration::new(0, 1)),
            Some(epoch - Duration::new(5, 0)),
            Some(epoch - Duration::new(5, 999_999_999)),
            Some(epoch + Duration::new(u32::MAX as u64 * 4, 999_999_999)),
        ];
        for time in times {
            let (secs, nanos) = split_time(time);
            assert_eq!(join_time(secs, nanos), time, "{time:?}");
        }
        // Through the columns, with sizes on both sides of 4 GiB.
        let sizes = [
            0,
            1,
            u64::from(u32::MAX) - 1,
            u64::from(u32::MAX),
            1 << 40,
            7,
        ];
        let files: Vec<FileEntry> = (times.iter().zip(sizes.iter().cycle()))
            .map(|(&modified, &size)| FileEntry {
                path: PathBuf::from("/r/f"),
                size,
                modified,
                dev: 0,
                ino: 0,
            })
            .collect();
        let docs = Docs::of_files(files.clone());
        for (id, f) in files.iter().enumerate() {
            assert_eq!((docs.size(id), docs.modified(id)), (f.size, f.modified));
        }
        for (doc, f) in docs.into_documents().iter().zip(&files) {
            assert_eq!((doc.size, doc.modified), (f.size, f.modified));
        }
    }
}
