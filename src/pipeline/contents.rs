//! Contents: files grouped by the XXH3-128 of their bytes. One
//! [`ContentTable`] holds the rule "identical contents are signed once" (the
//! first file to show a content claims it and signs it; later files with the
//! same bytes only point to it) and the rescue of the copies whose claimer
//! failed, for every path that signs: the streamed scan (`stream`), the staged
//! [`super::sign_files`], and the index's refresh. [`ContentGroups`] is the one
//! regrouping of documents by content that pair finding works on.
//!
//! Invariants: a content has at most one loader (the document whose file was
//! signed, re-read for verification); after [`ContentTable::into_groups`] the
//! groups are ordered by loader and every member list is ascending.

use hashbrown::hash_table::Entry;
use rayon::prelude::*;

use super::document_of;
use super::sign::{SignOutcome, SignedContent};
use crate::input::read::ReadError;
use crate::input::walk::FileEntry;
use crate::model::{DocStatus, Document};
use std::collections::HashMap;

/// `content_of` value of a document without content (binary, failed).
pub(super) const NO_CONTENT: u32 = u32::MAX;

/// Every content seen so far, by its hash, in claim order.
#[derive(Default)]
pub struct ContentTable {
    /// Index into `contents` of each content, found by its hash. The content
    /// hash is already uniform, so its low 64 bits serve as the table's hash;
    /// 4 bytes an entry instead of a 16-byte key (a million contents).
    table: hashbrown::HashTable<u32>,
    /// In claim order (thread timing); [`ContentGroups::build`] orders them.
    contents: Vec<ContentGroup>,
    /// Contents whose claimer failed (its file changed while read).
    orphans: Vec<u32>,
}

/// One re-signing of [`ContentTable::rescue`]: document `id`, a copy of
/// content `content`, and what signing it gave.
pub(super) struct Attempt {
    pub(super) content: u32,
    pub(super) id: usize,
    pub(super) outcome: SignOutcome,
    /// The outcome is the content itself: `id` signs it from now on.
    pub(super) adopted: bool,
}

impl ContentTable {
    /// The claim-once rule: the index of content `hash`, and whether document
    /// `id` is the first to show it (and so signs it).
    pub fn claim(&mut self, hash: u128, id: u32) -> (u32, bool) {
        let ContentTable {
            table, contents, ..
        } = self;
        let entry = table.entry(
            hash as u64,
            |&c| contents[c as usize].content.hash == hash,
            |&c| contents[c as usize].content.hash as u64,
        );
        match entry {
            Entry::Occupied(found) => (*found.get(), false),
            Entry::Vacant(free) => {
                let c = contents.len() as u32;
                free.insert(c);
                let content = SignedContent {
                    hash,
                    shingles: 0,
                    counted: false,
                    set: Vec::new(),
                };
                contents.push(ContentGroup::new(id, content));
                (c, true)
            }
        }
    }

    /// The index of content `hash`, if it was claimed or added.
    pub(super) fn find(&self, hash: u128) -> Option<u32> {
        let contents = &self.contents;
        self.table
            .find(hash as u64, |&c| contents[c as usize].content.hash == hash)
            .copied()
    }

    /// Adds `content`, signed by document `loader`, and finds it by its hash
    /// from now on (in place of an earlier content with the same hash).
    pub(super) fn add(&mut self, loader: u32, content: SignedContent) -> u32 {
        let c = self.contents.len() as u32;
        let hash = content.hash;
        self.contents.push(ContentGroup::new(loader, content));
        let contents = &self.contents;
        match self.table.entry(
            hash as u64,
            |&c| contents[c as usize].content.hash == hash,
            |&c| contents[c as usize].content.hash as u64,
        ) {
            Entry::Occupied(mut found) => *found.get_mut() = c,
            Entry::Vacant(free) => {
                free.insert(c);
            }
        }
        c
    }

    /// Adds `content`, signed by document `loader`, without finding it by its
    /// hash (a rescued copy whose bytes turned out different).
    pub(super) fn add_unlisted(&mut self, loader: u32, content: SignedContent) -> u32 {
        self.contents.push(ContentGroup::new(loader, content));
        self.contents.len() as u32 - 1
    }

    /// Content `c`.
    pub(super) fn group_mut(&mut self, c: u32) -> &mut ContentGroup {
        &mut self.contents[c as usize]
    }

    /// Content `c`'s claimer failed: its copies need [`ContentTable::rescue`].
    pub(super) fn orphan(&mut self, c: u32) {
        debug_assert_ne!(c, NO_CONTENT, "only a claimed content has copies");
        self.orphans.push(c);
    }

    /// Marks as orphans the contents whose loader `failed`.
    pub(super) fn orphan_where(&mut self, failed: impl Fn(u32) -> bool) {
        for (c, group) in self.contents.iter().enumerate() {
            if failed(group.loader) {
                self.orphans.push(c as u32);
            }
        }
    }

    pub(super) fn has_orphans(&self) -> bool {
        !self.orphans.is_empty()
    }

    /// No more claims: frees the hash table (before the pair finding's peak).
    pub(super) fn forget_hashes(&mut self) {
        self.table = hashbrown::HashTable::new();
    }

    /// The rescue: a claimer that failed (its file changed while read) leaves
    /// its copies without a signature, so the first copy that still reads as
    /// the content signs it instead. Each orphan's copies (the documents `d`
    /// with `content_of[d]` its index) are re-signed by `resign(d)`, without a
    /// claim, in ascending order until one is [adopted](Attempt::adopted).
    /// Returns every attempt, for the caller to record; an adoption is already
    /// recorded here.
    pub(super) fn rescue(
        &mut self,
        content_of: &[u32],
        mut resign: impl FnMut(usize) -> SignOutcome,
    ) -> Vec<Attempt> {
        let orphans = std::mem::take(&mut self.orphans);
        if orphans.is_empty() {
            return Vec::new();
        }
        // Each orphan's copies, ascending, in one pass over the documents.
        let mut copies: HashMap<u32, Vec<usize>> =
            orphans.iter().map(|&c| (c, Vec::new())).collect();
        for (id, c) in content_of.iter().enumerate() {
            if let Some(ids) = copies.get_mut(c) {
                ids.push(id);
            }
        }
        let mut attempts = Vec::new();
        for &c in &orphans {
            for &id in &copies[&c] {
                let outcome = resign(id);
                let adopted = matches!(&outcome,
                    SignOutcome::Unique(signed) if signed.hash == self.contents[c as usize].content.hash);
                attempts.push(Attempt {
                    content: c,
                    id,
                    outcome,
                    adopted,
                });
                if adopted {
                    break;
                }
            }
        }
        attempts
    }

    /// Groups documents by content, `content_of[id]` being the index of
    /// document `id`'s content (or [`NO_CONTENT`]): see [`ContentGroups::build`].
    pub(super) fn into_groups(
        self,
        content_of: Vec<u32>,
        documents: &mut [Document],
    ) -> ContentGroups {
        let ContentTable {
            table, contents, ..
        } = self;
        drop(table);
        ContentGroups::build(contents, content_of, documents)
    }
}

/// Files that share one content.
pub(super) struct ContentGroup {
    /// Document ids, ascending.
    pub(super) members: Members,
    /// The member whose file was signed, and is re-read for verification.
    pub(super) loader: u32,
    pub(super) content: SignedContent,
}

impl ContentGroup {
    /// A content first shown by document `loader`, before its members are known.
    pub(super) fn new(loader: u32, content: SignedContent) -> ContentGroup {
        ContentGroup {
            members: Members::default(),
            loader,
            content,
        }
    }
}

/// The document ids of one content, ascending. Most contents belong to one
/// file, whose id is kept inline: no allocation for them (a million in a scan
/// of a million distinct files).
#[derive(Debug)]
pub(super) enum Members {
    One(u32),
    Many(Vec<u32>),
}

impl Default for Members {
    fn default() -> Self {
        Members::Many(Vec::new())
    }
}

impl Members {
    /// Adds `id`, greater than every id already in.
    pub(super) fn push(&mut self, id: u32) {
        match self {
            Members::Many(ids) if ids.is_empty() => *self = Members::One(id),
            Members::One(first) => *self = Members::Many(vec![*first, id]),
            Members::Many(ids) => ids.push(id),
        }
    }
}

impl std::ops::Deref for Members {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            Members::One(id) => std::slice::from_ref(id),
            Members::Many(ids) => ids,
        }
    }
}

impl<'a> IntoIterator for &'a Members {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Every content and its documents, ordered by loader (so loaders increase
/// with the group index).
pub(super) struct ContentGroups {
    pub(super) groups: Vec<ContentGroup>,
}

impl ContentGroups {
    /// Groups documents by content: `contents` in any order, each with its
    /// loader and no members yet, and `content_of[id]` the index in `contents`
    /// of document `id`'s content (or [`NO_CONTENT`]). Gives each document its
    /// content's shingle count; contents left without documents are dropped.
    fn build(
        mut contents: Vec<ContentGroup>,
        content_of: Vec<u32>,
        documents: &mut [Document],
    ) -> ContentGroups {
        // Sorted in place and found again by loader (unique: a document signs
        // at most one content), instead of a permuted copy of every content.
        let loader_of: Vec<u32> = contents.iter().map(|g| g.loader).collect();
        contents.par_sort_unstable_by_key(|g| g.loader);
        for (id, &c) in content_of.iter().enumerate() {
            if c == NO_CONTENT {
                continue;
            }
            let g = contents
                .binary_search_by_key(&loader_of[c as usize], |g| g.loader)
                .expect("every content is in the list");
            contents[g].members.push(id as u32);
            documents[id].shingles = contents[g].content.shingles;
        }
        contents.retain(|g| !g.members.is_empty());
        ContentGroups { groups: contents }
    }

    pub(super) fn identical_files(&self) -> u64 {
        self.groups.iter().map(|g| g.members.len() as u64 - 1).sum()
    }
}

/// What signing leaves for pair finding.
pub(super) struct Signed {
    /// Every walked file, by id.
    pub(super) documents: Vec<Document>,
    pub(super) groups: ContentGroups,
    /// Why each [`DocStatus::Failed`] document failed, by ascending id.
    pub(super) failures: Vec<(u32, ReadError)>,
    /// Row `i` (`n` values) is document `i`'s signature when it is a group's
    /// loader with a non-empty set (LSH); empty with the exact method.
    pub(super) matrix: Vec<u32>,
}

impl Signed {
    /// From [`super::sign_files`]' per-file outcomes (or an index's equivalent).
    pub(super) fn from_outcomes(
        files: Vec<FileEntry>,
        outcomes: Vec<SignOutcome>,
        matrix: Vec<u32>,
    ) -> Signed {
        let mut contents = ContentTable::default();
        let mut content_of = vec![NO_CONTENT; files.len()];
        let mut copies = Vec::new();
        let mut failures = Vec::new();
        let mut documents: Vec<Document> = files
            .into_iter()
            .zip(outcomes)
            .enumerate()
            .map(|(id, (file, outcome))| {
                let mut doc = document_of(file);
                match outcome {
                    SignOutcome::Unique(content) => {
                        content_of[id] = contents.add(id as u32, content);
                    }
                    SignOutcome::SameAs(hash) => copies.push((id, hash)),
                    SignOutcome::Binary => doc.status = DocStatus::Binary,
                    SignOutcome::Failed(err) => {
                        doc.status = DocStatus::Failed;
                        failures.push((id as u32, err));
                    }
                }
                doc
            })
            .collect();
        // A copy whose content has no signed file (its rescue read different
        // bytes) stays read with no shingles: never paired.
        for (id, hash) in copies {
            if let Some(c) = contents.find(hash) {
                content_of[id] = c;
            }
        }
        let groups = contents.into_groups(content_of, &mut documents);
        Signed {
            documents,
            groups,
            failures,
            matrix,
        }
    }
}
