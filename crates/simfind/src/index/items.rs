//! `scan --db` of records and sets: an index of items brought up to date
//! with the items of one scan, whose signatures the scan then bands.
//!
//! Role: what [`super::incremental::refresh`] is for files, for items read in
//! full (records of a JSON Lines, CSV or TSV input, sets of tokens). An item
//! has no file metadata to compare, so "unchanged" is decided by its text:
//! an item whose id is stored with the content hash of the very text it has
//! now keeps its stored signature and is not signed again; a new or changed
//! item is signed with the index's recipe as [`super::add`] signs it and
//! stored (with its text, which exact verification reads); a stored id that
//! the scan's items no longer hold is forgotten, as a walk forgets a file
//! that is gone. All of it is one update: a run killed at any moment leaves
//! the previous index.
//!
//! Inputs: an open [`Index`] of records or sets, its [`Recipe`], the items
//! in scan order (id, stored text). Outputs: every item's signature (stored
//! or fresh) as one matrix in that order with its set sizes, ready for
//! [`crate::pipeline::scan_records_signed`], and counts.
//!
//! Invariant: a stored signature is used only when the stored content hash
//! equals the hash of the item's text; the index's recipe is the scan's
//! (checked when the index is opened), so a stored signature is the one the
//! scan would make.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::add::{self, NewDoc, Prepared};
use super::{Index, IndexError, UpdateSummary};
use crate::input::read::ReadOptions;
use crate::recipe::Recipe;

/// What [`refresh`] did, and every item's signature.
#[derive(Debug, Default)]
pub struct RefreshedItems {
    /// Row `i` (`n` values) is item `i`'s signature; zeros for an item
    /// without a shingle (never banded).
    pub matrix: Vec<u32>,
    /// Item `i`'s set size.
    pub shingles: Vec<u32>,
    /// Items whose stored signature was kept (their text unchanged).
    pub unchanged: u64,
    /// Items signed in this run (new or changed).
    pub signed: u64,
    /// What the update did.
    pub update: UpdateSummary,
}

/// One item's signature: kept from the index, or made now.
enum Signed {
    Kept { signature: Vec<u32>, shingles: u64 },
    Fresh(Box<Prepared>),
}

/// Brings `index` (of records or sets) up to date with `items` (id, text
/// as [`super::ItemKind::text_of`] makes it), in one transaction, and
/// signs with `recipe` what changed (`read`: the index's extraction, none
/// for records, as `index --input` stores them), and
/// returns every item's signature in `items`' order. Ids must be distinct
/// (the records reader refuses a repeated one); should one repeat, its
/// last text is the one stored.
pub fn refresh(
    index: &mut Index,
    (recipe, read): (&Recipe, &ReadOptions),
    items: &[(PathBuf, Vec<u8>)],
) -> Result<RefreshedItems, IndexError> {
    let kind = index.kind();
    let n = recipe.banding.signature_len();
    // The write lock before the stored state is read: the changes apply to
    // what was read.
    let mut update = index.begin_update()?;
    let stored: HashMap<PathBuf, super::StoredDoc> = update
        .documents()?
        .into_iter()
        .map(|d| (d.path.clone(), d))
        .collect();
    let signed: Vec<Signed> = items
        .par_iter()
        .map(|(id, text)| {
            let hash = super::content_hash(text);
            match stored.get(id) {
                Some(doc)
                    if doc.content_hash == hash
                        && !doc.binary
                        && (doc.shingle_count == 0 || doc.signature.len() == n) =>
                {
                    Signed::Kept {
                        signature: doc.signature.clone(),
                        shingles: doc.shingle_count,
                    }
                }
                _ => {
                    let new = NewDoc::Text {
                        id: id.as_path(),
                        bytes: text.clone(),
                    };
                    // A text is never read from disk, so it cannot fail.
                    let prepared = add::prepare(new, kind, recipe, read)
                        .unwrap_or_else(|(_, err)| unreachable!("a text is not read: {err}"));
                    Signed::Fresh(Box::new(prepared))
                }
            }
        })
        .collect();
    let mut prefixes = super::prefix::Prefixes::of(&update)?;
    let given: std::collections::HashSet<&Path> =
        items.iter().map(|(id, _)| id.as_path()).collect();
    let mut gone: Vec<&PathBuf> = stored
        .keys()
        .filter(|p| !given.contains(p.as_path()))
        .collect();
    gone.sort();
    for path in gone {
        update.remove(path)?;
    }
    let mut out = RefreshedItems {
        matrix: vec![0u32; items.len() * n],
        shingles: Vec::with_capacity(items.len()),
        ..RefreshedItems::default()
    };
    for (i, item) in signed.into_iter().enumerate() {
        let (signature, shingles) = match item {
            Signed::Kept {
                signature,
                shingles,
            } => {
                out.unchanged += 1;
                (signature, shingles)
            }
            Signed::Fresh(mut prepared) => {
                out.signed += 1;
                add::store(&mut update, prefixes.as_mut(), &mut prepared)?;
                let doc = prepared.doc;
                (doc.signature, doc.shingle_count)
            }
        };
        if shingles > 0 {
            out.matrix[i * n..(i + 1) * n].copy_from_slice(&signature);
        }
        out.shingles
            .push(u32::try_from(shingles).unwrap_or(u32::MAX));
    }
    if let Some(prefixes) = &mut prefixes {
        prefixes.write(&update)?;
    }
    out.update = update.commit()?;
    Ok(out)
}
