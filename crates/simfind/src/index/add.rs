//! Adding single documents to an index, and removing them, without a walk:
//! `simfind index --db F --add PATH...` (or `--add -` for standard input)
//! and `--remove PATH...`.
//!
//! Role: each document is read, shingled and signed with the index's recipe
//! exactly as a walked file would be (same content hash, set, signature and
//! band keys), and every change goes in one [`Update`](super::Update): all of
//! them or, if the process dies, none.
//!
//! Inputs: an open [`Index`], its [`Recipe`], the documents. Outputs: what the
//! update did; documents that could not be read are warned about through the
//! [`Reporter`] and counted.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use xxhash_rust::xxh3::xxh3_128;

use super::incremental::{RACY_WINDOW, UNTRUSTED_MTIME, file_stat};
use super::{FileStat, Index, IndexError, IndexedDoc, UpdateSummary};
use crate::input::read::{self, ReadOptions};
use crate::input::walk::FileEntry;
use crate::progress::Reporter;
use crate::recipe::Recipe;
use crate::source;

/// One document to add.
pub enum NewDoc<'a> {
    /// A file, stored under its path as given.
    File(&'a Path),
    /// Bytes read elsewhere (standard input), stored under `name`. Exact
    /// verification re-reads documents by their stored name, so it can only
    /// verify this one if a file with these bytes is at `name`.
    Bytes { name: &'a Path, bytes: Vec<u8> },
    /// A text that is not a file (the Python `Index`'s), stored under `id`
    /// together with its bytes ([`Update::store_text`](super::Update::store_text)),
    /// from which exact verification reads it.
    Text { id: &'a Path, bytes: Vec<u8> },
}

/// A document ready to store: its row, its shingle set (for the prefix
/// index and for verifying later documents against it without reading it)
/// and, for a [`NewDoc::Text`], its bytes.
pub(super) struct Prepared {
    pub(super) doc: IndexedDoc,
    pub(super) set: Vec<u64>,
    pub(super) text: Option<Vec<u8>>,
}

/// What [`add_and_remove`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Added {
    pub update: UpdateSummary,
    /// Documents not added or removed (each warned about).
    pub errors: u64,
}

/// Why a path given to `--remove` was not removed.
struct NotIndexed;

impl std::fmt::Display for NotIndexed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not in the index (paths are stored as they were given or walked)")
    }
}

/// Documents read, shingled and signed at a time: an update holds one
/// chunk's sets and signatures in memory, not the whole input's (a million
/// records held 2.2 GB at once).
const PREPARE_CHUNK: usize = 8192;

/// Adds (or, for a path already indexed, replaces) `add` and forgets
/// `remove`, in one transaction under the index's write lock.
///
/// The first chunk of documents is read and signed before the lock is
/// taken, so that others wait only for the write of a small update (`--add`
/// of a few files); a larger one prepares each further chunk, on every
/// thread, inside its transaction.
pub fn add_and_remove(
    index: &mut Index,
    recipe: &Recipe,
    read: &ReadOptions,
    add: Vec<NewDoc<'_>>,
    remove: &[PathBuf],
    reporter: &dyn Reporter,
) -> Result<Added, IndexError> {
    let mut errors = 0;
    let kind = index.kind();
    let base = index.paths_base_elsewhere();
    let mut add = add.into_iter();
    let mut chunk = prepare_chunk(
        &mut add,
        kind,
        recipe,
        read,
        base.as_deref(),
        reporter,
        &mut errors,
    );
    let mut update = index.begin_update()?;
    let mut prefixes = super::prefix::Prefixes::of(&update)?;
    for given in remove {
        let path = &Index::spelled_for(base.as_deref(), given);
        if update.is_indexed(path)? {
            update.remove(path)?;
        } else {
            reporter.warn(given, &NotIndexed);
            errors += 1;
        }
    }
    while let Some(prepared) = chunk {
        for mut one in prepared {
            store(&mut update, prefixes.as_mut(), &mut one)?;
        }
        chunk = prepare_chunk(
            &mut add,
            kind,
            recipe,
            read,
            base.as_deref(),
            reporter,
            &mut errors,
        );
    }
    if let Some(prefixes) = &mut prefixes {
        // Not `finish`: a pending prefix index needs every document re-read.
        prefixes.write(&update)?;
    }
    Ok(Added {
        update: update.commit()?,
        errors,
    })
}

/// The next [`PREPARE_CHUNK`] documents of `add`, prepared in parallel and
/// kept in their order (so ids and warnings come out as from one thread);
/// `None` once `add` is exhausted. A file named from another directory than
/// the index's base is stored as the walk would spell it.
fn prepare_chunk(
    add: &mut std::vec::IntoIter<NewDoc<'_>>,
    kind: super::ItemKind,
    recipe: &Recipe,
    read: &ReadOptions,
    base: Option<&Path>,
    reporter: &dyn Reporter,
    errors: &mut u64,
) -> Option<Vec<Prepared>> {
    use rayon::prelude::*;
    let batch: Vec<NewDoc<'_>> = add.by_ref().take(PREPARE_CHUNK).collect();
    if batch.is_empty() {
        return None;
    }
    let results: Vec<_> = batch
        .into_par_iter()
        .map(|doc| {
            let file = matches!(doc, NewDoc::File(_));
            prepare(doc, kind, recipe, read).map(|mut prepared| {
                if file {
                    prepared.doc.path = Index::spelled_for(base, &prepared.doc.path);
                }
                prepared
            })
        })
        .collect();
    let mut prepared = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(one) => prepared.push(one),
            Err((path, err)) => {
                reporter.warn(&path, &err);
                *errors += 1;
            }
        }
    }
    Some(prepared)
}

/// Adds `prepared` (or replaces the document of its path) in `update`,
/// with its prefix when the index has a complete prefix index and its text
/// when it is one.
pub(super) fn store(
    update: &mut super::Update<'_>,
    prefixes: Option<&mut super::prefix::Prefixes>,
    prepared: &mut Prepared,
) -> Result<super::RowId, IndexError> {
    let doc = &mut prepared.doc;
    if prefixes.as_ref().is_some_and(|p| p.pending()) {
        // A prefix index being filled in: this document's prefix is
        // written when the next update re-reads it with the others.
        doc.stat.mtime_ns = UNTRUSTED_MTIME;
    }
    let doc = &*doc;
    let id = if update.is_indexed(&doc.path)? {
        update.change(doc)?
    } else {
        update.add(doc)?
    };
    if let Some(text) = &prepared.text {
        update.store_text(id, text)?;
    }
    if let Some(prefixes) = prefixes.filter(|p| !p.pending()) {
        let prefix = prefixes.of_set(&prepared.set);
        prefixes.store(update, id, &prefix, doc.shingle_count)?;
    }
    Ok(id)
}

/// The stored form of one document, as `refresh` would store it, with its
/// shingle set (for the prefix index) and, for a text, its bytes. In an
/// index of records or sets (`kind`), a text is the item's stored text:
/// never skipped as binary, its set made as the kind makes it.
pub(super) fn prepare(
    doc: NewDoc<'_>,
    kind: super::ItemKind,
    recipe: &Recipe,
    read: &ReadOptions,
) -> Result<Prepared, (PathBuf, read::ReadError)> {
    let mut text = None;
    let (path, document, stat) = match doc {
        NewDoc::File(path) => {
            let fail = |e: read::ReadError| (path.to_owned(), e);
            let meta = std::fs::metadata(path).map_err(|e| fail(read::ReadError::Io(e)))?;
            let contents = source::open_named(path, read).map_err(fail)?;
            use std::os::unix::fs::MetadataExt;
            let entry = FileEntry {
                path: path.to_owned(),
                size: meta.len(),
                modified: meta.modified().ok(),
                dev: meta.dev(),
                ino: meta.ino(),
            };
            let mut stat = file_stat(&entry);
            // As `refresh` does: a file modified within the racy window is
            // re-read by the next update.
            let racy_after = SystemTime::now()
                .checked_sub(RACY_WINDOW)
                .unwrap_or(UNIX_EPOCH);
            if entry.modified.is_none_or(|m| m > racy_after) {
                stat.mtime_ns = UNTRUSTED_MTIME;
            }
            (path.to_owned(), contents, stat)
        }
        NewDoc::Bytes { name, bytes } => {
            let stat = FileStat {
                size: bytes.len() as u64,
                mtime_ns: UNTRUSTED_MTIME,
                dev: None,
                inode: None,
            };
            let document = source::Document::from_bytes(bytes).extracted(&read.extract);
            (name.to_owned(), document, stat)
        }
        NewDoc::Text { id, bytes } => {
            let stat = FileStat {
                size: bytes.len() as u64,
                // Not a file: nothing for a walk to compare it with.
                mtime_ns: UNTRUSTED_MTIME,
                dev: None,
                inode: None,
            };
            text = Some(bytes.clone());
            let document = source::Document::from_bytes(bytes).extracted(&read.extract);
            (id.to_owned(), document, stat)
        }
    };
    let bytes = document;
    if kind.is_files() && !matches!(bytes.admit(recipe.include_binary), source::Admit::Text) {
        return Ok(Prepared {
            doc: IndexedDoc {
                path,
                stat,
                content_hash: 0,
                binary: true,
                not_compared: bytes.unextracted().cloned(),
                shingle_count: 0,
                signature: Vec::new(),
                band_keys: Vec::new(),
            },
            set: Vec::new(),
            // A binary marker is never compared: nothing to verify from.
            text: None,
        });
    }
    // The bytes' hash, not the extracted text's: identity is the file's.
    let content_hash = xxh3_128(bytes.raw());
    let set = kind.set_of(recipe, &bytes);
    drop(bytes);
    let (signature, band_keys) = if set.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        recipe.sign(&set)
    };
    Ok(Prepared {
        doc: IndexedDoc {
            path,
            stat,
            content_hash,
            binary: false,
            not_compared: None,
            shingle_count: set.len() as u64,
            signature,
            band_keys,
        },
        set,
        text,
    })
}
