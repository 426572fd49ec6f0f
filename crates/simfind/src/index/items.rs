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

/// How one kind of item is signed for the index: the only part of
/// [`refresh_items`] that differs between records, sets and vectors.
pub(super) trait ItemSigner: Sync {
    /// The stored form of the item `id` whose stored body is `body` (the
    /// text of a record or set, the values of a vector).
    fn prepare(&self, id: &Path, body: &[u8]) -> Prepared;
    /// Whether `doc`'s stored signature stands for an item whose body has
    /// its content hash (made with this index's recipe, of the right length).
    fn reusable(&self, doc: &super::StoredDoc) -> bool;
    /// Whether new documents' sets go into the index's prefix index (the
    /// exact join's, built over shingle sets; vectors have none).
    fn has_sets(&self) -> bool;
}

/// Records and sets: signed by the index's recipe, as [`super::add`] signs
/// a text.
struct RecipeSigner<'a> {
    kind: super::ItemKind,
    recipe: &'a Recipe,
    read: &'a ReadOptions,
}

impl ItemSigner for RecipeSigner<'_> {
    fn prepare(&self, id: &Path, body: &[u8]) -> Prepared {
        let new = NewDoc::Text {
            id,
            bytes: body.to_vec(),
        };
        // A text is never read from disk, so it cannot fail.
        add::prepare(new, self.kind, self.recipe, self.read)
            .unwrap_or_else(|(_, err)| unreachable!("a text is not read: {err}"))
    }

    fn reusable(&self, doc: &super::StoredDoc) -> bool {
        !doc.binary
            && (doc.shingle_count == 0
                || doc.signature.len() == self.recipe.banding.signature_len())
    }

    fn has_sets(&self) -> bool {
        true
    }
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
    let signer = RecipeSigner {
        kind: index.kind(),
        recipe,
        read,
    };
    let items: Vec<(&Path, &[u8])> = items
        .iter()
        .map(|(id, text)| (id.as_path(), text.as_slice()))
        .collect();
    refresh_items(index, &items, recipe.banding.signature_len(), &signer)
}

/// The one refresh of an index of items by id, for every kind of item
/// (`signer` says how one is signed): in one transaction, an item whose id
/// is stored with the content hash of its body and a reusable signature
/// keeps it; any other item is signed and stored; a stored id that `items`
/// no longer holds is forgotten. Returns every item's signature (`n`
/// values; zeros for an item without a shingle) in `items`' order.
pub(super) fn refresh_items(
    index: &mut Index,
    items: &[(&Path, &[u8])],
    n: usize,
    signer: &dyn ItemSigner,
) -> Result<RefreshedItems, IndexError> {
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
        .map(|&(id, body)| match stored.get(id) {
            Some(doc) if doc.content_hash == super::content_hash(body) && signer.reusable(doc) => {
                Signed::Kept {
                    signature: doc.signature.clone(),
                    shingles: doc.shingle_count,
                }
            }
            _ => Signed::Fresh(Box::new(signer.prepare(id, body))),
        })
        .collect();
    let mut prefixes = if signer.has_sets() {
        super::prefix::Prefixes::of(&update)?
    } else {
        None
    };
    let given: std::collections::HashSet<&Path> = items.iter().map(|&(id, _)| id).collect();
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
