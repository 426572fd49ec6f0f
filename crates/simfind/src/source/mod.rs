//! Source: what a document is, and how its bytes are opened (and opened
//! again).
//!
//! Role: the one seam between "a document" and "its bytes". Every stage that
//! needs a document's bytes (signing, the prefetch, identical-by, important
//! words, SimHash/ICWS, verification's reloads, the index, and the binary's
//! `explain`, `compare`, `query` and HTML report) gets them here, as a
//! [`Document`]. So what stands between a file and the shingler is written in
//! one place: the "binary, skipped" rule ([`skips_binary`]) and the
//! extraction of text from document formats ([`Extract`], `input::extract`),
//! which every opener here applies as the reading options say.
//!
//! A [`Source`] lists its documents by [`DocKey`] and can [`Source::reopen`]
//! one by its key (verification re-reads the documents it reports). The
//! implementations: [`FileSource`] (walked files, opened only by
//! [`read_walked`](crate::input::read::read_walked)) and [`MemorySource`]
//! (texts handed in). Records and points have their keys
//! ([`DocKey::RecordAt`], [`DocKey::Point`]) and are still read by their own
//! readers (`input::records`, `input::vectors`), which hold a row at a time.
//!
//! Invariants: a [`Document`]'s bytes are what the stages shingle; for a file
//! they are the file's own bytes, zero-copy (a mapping or the one read buffer),
//! and [`Document::verify_unchanged`] says whether they can be trusted. The
//! hot path uses [`FileSource`]'s inherent methods (static dispatch, no
//! per-file allocation); the trait is for callers that take any source.

mod files;
mod memory;
#[cfg(test)]
mod tests;

use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::input::extract::{
    self as extract, Extract, Failure as ExtractFailure, Format, Transform, Unextracted,
};
pub use crate::input::read::ReadError;
use crate::input::read::{self, Contents};
pub use files::{FileSource, Reopen, open_named, reopen_path};
pub use memory::MemorySource;

/// Why a document could not be opened: the file layer's reasons (their
/// wording is the warnings' and errors' wording), plus a key the source does
/// not hold, which is an [`std::io::ErrorKind::NotFound`] I/O error.
pub type SourceError = ReadError;

/// Which document: the typed key a [`Source`] reopens by.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DocKey {
    /// A file, by the path the walk (or the user) gave.
    Path(PathBuf),
    /// A record of a record file (JSON Lines, CSV/TSV, sets): the file and the
    /// byte offset at which its line or row starts.
    RecordAt { file: PathBuf, offset: u64 },
    /// A point of a point file (vectors, bits): the file and its row number.
    Point { file: PathBuf, index: u64 },
    /// A text handed in, by its position.
    Memory(usize),
}

/// The kind of a [`DocKey`], as stored where only the kind is kept (a Parquet
/// shard's `key_kind`: `path`, `record`, `vector`, `memory`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyKind {
    Path,
    Record,
    Point,
    Memory,
}

impl KeyKind {
    /// The stored name. A point is stored as `vector`, the name shards have
    /// always carried.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Path => "path",
            KeyKind::Record => "record",
            KeyKind::Point => "vector",
            KeyKind::Memory => "memory",
        }
    }

    /// The kind of a stored name; `None` for a name this version does not know.
    pub fn parse(name: &str) -> Option<KeyKind> {
        [
            KeyKind::Path,
            KeyKind::Record,
            KeyKind::Point,
            KeyKind::Memory,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }

    /// Whether the documents are rows of files (records or points), keyed by
    /// a name column rather than a path.
    pub fn is_row(self) -> bool {
        matches!(self, KeyKind::Record | KeyKind::Point)
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl DocKey {
    /// Its kind.
    pub fn kind(&self) -> KeyKind {
        match self {
            DocKey::Path(_) => KeyKind::Path,
            DocKey::RecordAt { .. } => KeyKind::Record,
            DocKey::Point { .. } => KeyKind::Point,
            DocKey::Memory(_) => KeyKind::Memory,
        }
    }

    /// The file the document is in (or is), if any.
    pub fn file(&self) -> Option<&Path> {
        match self {
            DocKey::Path(file) | DocKey::RecordAt { file, .. } | DocKey::Point { file, .. } => {
                Some(file)
            }
            DocKey::Memory(_) => None,
        }
    }
}

impl fmt::Display for DocKey {
    /// A path as itself; a record as `file@offset`, a point as `file#index`,
    /// a text handed in as `#index`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocKey::Path(path) => write!(f, "{}", path.display()),
            DocKey::RecordAt { file, offset } => write!(f, "{}@{offset}", file.display()),
            DocKey::Point { file, index } => write!(f, "{}#{index}", file.display()),
            DocKey::Memory(index) => write!(f, "#{index}"),
        }
    }
}

/// A document's bytes: a file's [`Contents`] (mapped or read, kept with its
/// handle so a change can be noticed) or bytes held in memory; and, when
/// [`Extract`] read a format, the text extracted from them (or why there is
/// none). Dereferenced, a document is its text: what every stage shingles.
/// Its identity (content hashes, "byte-identical") is [`Document::raw`].
pub struct Document {
    body: Body,
    extracted: Extracted,
}

enum Body {
    File(Contents),
    Owned(Vec<u8>),
    Shared(Arc<[u8]>),
}

/// What extraction made of the body.
enum Extracted {
    /// Nothing to extract: the body is the text.
    Body,
    /// The body's text, in UTF-8.
    Text(Vec<u8>),
    /// A format whose text could not be had.
    Failed(Unextracted),
}

impl Document {
    fn of(body: Body) -> Document {
        Document {
            body,
            extracted: Extracted::Body,
        }
    }

    /// A file's contents, as the file layer read them.
    pub fn from_contents(contents: Contents) -> Document {
        Document::of(Body::File(contents))
    }

    /// Bytes already in memory (a query read from standard input, a text
    /// handed in).
    pub fn from_bytes(bytes: Vec<u8>) -> Document {
        Document::of(Body::Owned(bytes))
    }

    /// Bytes shared with the source that holds them.
    pub fn from_shared(bytes: Arc<[u8]>) -> Document {
        Document::of(Body::Shared(bytes))
    }

    /// This document's text as `extract` finds it in its bytes (itself,
    /// untouched and zero-copy, when its format is not one to extract).
    pub fn extracted(self, extract: &Extract) -> Document {
        self.extracted_at(extract, None)
    }

    /// [`extracted`](Self::extracted) for the file at `path`, which decides
    /// whether a `--transform` with globs applies to it.
    pub fn extracted_at(mut self, extract: &Extract, path: Option<&std::path::Path>) -> Document {
        self.extracted = match extract.run_named(path, self.raw()) {
            None => Extracted::Body,
            Some(Ok(text)) => Extracted::Text(text),
            Some(Err(why)) => Extracted::Failed(why),
        };
        self
    }

    /// The bytes as stored (the file's own): what identity is decided on.
    pub fn raw(&self) -> &[u8] {
        match &self.body {
            Body::File(contents) => contents,
            Body::Owned(bytes) => bytes,
            Body::Shared(bytes) => bytes,
        }
    }

    /// Whether the text is pages ([`extract::PAGE_BREAK`] between them):
    /// text extracted from a document of more than one page.
    pub fn is_paged(&self) -> bool {
        self.is_extracted() && memchr::memchr(extract::PAGE_BREAK, self).is_some()
    }

    /// Whether the text was extracted from the bytes (then it is not the
    /// bytes, and not a mapping).
    pub fn is_extracted(&self) -> bool {
        !matches!(self.extracted, Extracted::Body)
    }

    /// Why a document of a known format has no text, if so.
    pub fn unextracted(&self) -> Option<&Unextracted> {
        match &self.extracted {
            Extracted::Failed(why) => Some(why),
            _ => None,
        }
    }

    /// The file's contents, if the bytes are a file's own.
    pub fn contents(&self) -> Option<&Contents> {
        match &self.body {
            Body::File(contents) => Some(contents),
            Body::Owned(_) | Body::Shared(_) => None,
        }
    }

    /// The text as an owned buffer (copied unless it is one already).
    pub fn into_vec(self) -> Vec<u8> {
        match (self.extracted, self.body) {
            (Extracted::Text(text), _) => text,
            (_, Body::Owned(bytes)) => bytes,
            (_, Body::File(contents)) => contents.to_vec(),
            (_, Body::Shared(bytes)) => bytes.to_vec(),
        }
    }

    /// The device and inode of the file read, if the bytes are a file's.
    pub fn identity(&self) -> Option<(u64, u64)> {
        self.contents().and_then(Contents::identity)
    }

    /// Whether the text comes straight from a memory mapping.
    pub fn is_mapped(&self) -> bool {
        !self.is_extracted() && self.contents().is_some_and(Contents::is_mapped)
    }

    /// For a file, [`Contents::verify_unchanged`]: run after the bytes were
    /// used and before a conclusion from them is trusted. Bytes in memory
    /// cannot change.
    pub fn verify_unchanged(&self) -> Result<(), ReadError> {
        match &self.body {
            Body::File(contents) => contents.verify_unchanged(),
            Body::Owned(_) | Body::Shared(_) => Ok(()),
        }
    }

    /// For a mapped file read as it is, [`Contents::release_before`];
    /// otherwise nothing (an offset into extracted text is none into the
    /// file).
    pub fn release_before(&self, offset: usize) {
        if let (Body::File(contents), Extracted::Body) = (&self.body, &self.extracted) {
            contents.release_before(offset);
        }
    }

    /// The "binary, skipped" decision for this document ([`skips_binary`]),
    /// trusted only once the file is known unchanged: pages of a mapping
    /// truncated under the reader read as zeros, which look binary. A
    /// format whose text could not be had is not compared either, unless
    /// binary documents are included (then its bytes are).
    pub fn admit(&self, include_binary: bool) -> Admit {
        let verdict = match &self.extracted {
            Extracted::Failed(why) if !include_binary => Admit::NotExtracted(why.clone()),
            Extracted::Failed(_) => return Admit::Text,
            // A binary file of a kind its magic bytes tell is named by kind
            // ("image file"), as a document without text is by its reason.
            _ if skips_binary(include_binary, self) => {
                match crate::input::extract::sniff::binary_kind(self.raw()) {
                    Some(format) => Admit::NotExtracted(Unextracted {
                        format,
                        failure: ExtractFailure::NoText,
                    }),
                    None => Admit::Binary,
                }
            }
            _ => return Admit::Text,
        };
        match self.verify_unchanged() {
            Ok(()) => verdict,
            Err(err) => Admit::Changed(err),
        }
    }
}

impl Deref for Document {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.extracted {
            Extracted::Text(text) => text,
            Extracted::Body | Extracted::Failed(_) => self.raw(),
        }
    }
}

impl fmt::Debug for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.body {
            Body::File(contents) => contents.fmt(f)?,
            Body::Owned(bytes) => f
                .debug_struct("Owned")
                .field("len", &bytes.len())
                .finish()?,
            Body::Shared(bytes) => f
                .debug_struct("Shared")
                .field("len", &bytes.len())
                .finish()?,
        }
        match &self.extracted {
            Extracted::Body => Ok(()),
            Extracted::Text(text) => write!(f, " (extracted: {} bytes)", text.len()),
            Extracted::Failed(why) => write!(f, " (not extracted: {why})"),
        }
    }
}

/// What [`Document::admit`] decided.
#[derive(Debug)]
pub enum Admit {
    /// Text: shingle it.
    Text,
    /// Binary and unchanged: skipped as binary.
    Binary,
    /// A known format without text, unchanged: not compared, for this
    /// reason.
    NotExtracted(Unextracted),
    /// Looked binary, but the file changed while it was read.
    Changed(ReadError),
}

/// The one rule for binary documents: unless binary documents are included,
/// one that [looks binary](read::looks_binary) is skipped, never shingled.
/// Every stage that shingles asks this (through [`Document::admit`] where it
/// holds a file).
pub fn skips_binary(include_binary: bool, bytes: &[u8]) -> bool {
    !include_binary && read::looks_binary(bytes)
}

/// A set of documents and how to open each one again.
///
/// Few methods: how many documents there are, the key of each (ids are
/// `0..len()`, in the source's order), opening one by id (the scan's read),
/// and reopening one by its key (verification, queries, reports). Both
/// openers apply the source's [`Extract`] step, so a document reopened is the
/// document signed.
pub trait Source: Sync {
    /// The number of documents.
    fn len(&self) -> usize;

    /// Whether there is none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key of document `id` (`id < len()`).
    fn key(&self, id: usize) -> DocKey;

    /// The keys of every document, in id order.
    fn documents(&self) -> Box<dyn Iterator<Item = DocKey> + '_> {
        Box::new((0..self.len()).map(|id| self.key(id)))
    }

    /// Opens document `id` for the scan.
    fn open(&self, id: usize) -> Result<Document, SourceError>;

    /// Opens again the document with `key`: the same checks as the first
    /// open (a file replaced since is refused as it is today); a key the
    /// source does not hold is a not-found error.
    fn reopen(&self, key: &DocKey) -> Result<Document, SourceError>;
}

/// The error for a key a source does not hold.
pub(crate) fn not_in_source(key: &DocKey) -> SourceError {
    ReadError::Io(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        format!("no document {key} in this source"),
    ))
}
