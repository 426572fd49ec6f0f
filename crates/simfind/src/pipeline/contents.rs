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

use super::docs::Docs;
use crate::input::extract::Unextracted;
use crate::input::read::ReadError;
use crate::input::walk::FileEntry;
use crate::model::DocStatus;
use std::collections::HashMap;

/// `content_of` value of a document without content (binary, failed).
pub(super) const NO_CONTENT: u32 = u32::MAX;

/// The part of a file the later stages need, once its bytes are gone.
#[derive(Debug)]
pub struct SignedContent {
    /// XXH3-128 of the file's bytes.
    pub hash: u128,
    /// Number of distinct shingles when `counted`; otherwise an upper bound
    /// (the shingle windows that were signed), zero exactly when the set is
    /// empty. A `u32`, as in [`crate::model::Document`], so that the flag below fits in the
    /// 48 bytes the `u128` alignment gives (16 MB at a million contents).
    pub shingles: u32,
    /// Whether `shingles` is the exact count. See `Keep::Signature`.
    pub counted: bool,
    /// The sorted shingle set itself, kept only for the exact method.
    pub set: Vec<u64>,
}

/// What signing made of one file.
#[derive(Debug)]
pub enum SignOutcome {
    /// First time this content was seen: shingled and signed.
    Unique(SignedContent),
    /// Same bytes as a file already signed (by content hash).
    SameAs(u128),
    Binary,
    /// A document format whose text could not be had ([`Unextracted`]):
    /// not compared, like a binary file, for this reason.
    NotExtracted(Unextracted),
    Failed(ReadError),
}

impl SignOutcome {
    /// The row and shingle count of each content signed in `outcomes` (as
    /// [`crate::pipeline::sign_files`] returns them, one per file), by
    /// content hash: what a file whose outcome is `SameAs(hash)` carries,
    /// since its copies share the content's signature row.
    pub fn signed_rows(outcomes: &[SignOutcome]) -> std::collections::HashMap<u128, (usize, u32)> {
        outcomes
            .iter()
            .enumerate()
            .filter_map(|(i, o)| match o {
                SignOutcome::Unique(c) => Some((c.hash, (i, c.shingles))),
                _ => None,
            })
            .collect()
    }
}

/// Every content seen so far, by its hash, in claim order.
#[derive(Default)]
pub struct ContentTable {
    /// Index into `contents` of each content, found by its hash. The content
    /// hash is already uniform, so its low 64 bits serve as the table's hash;
    /// 4 bytes an entry instead of a 16-byte key (a million contents).
    table: hashbrown::HashTable<u32>,
    /// In claim order (thread timing); [`ContentGroups::build`] orders them.
    contents: Vec<ContentGroup>,
    /// The sets kept (the exact method, or while the method is pending), by
    /// content index; grown only when one is kept, so LSH holds none.
    sets: Vec<Vec<u64>>,
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
            |&c| contents[c as usize].content.hash() == hash,
            |&c| contents[c as usize].content.hash() as u64,
        );
        match entry {
            Entry::Occupied(found) => (*found.get(), false),
            Entry::Vacant(free) => {
                let c = contents.len() as u32;
                free.insert(c);
                let content = Content::new(hash, 0, false);
                contents.push(ContentGroup::new(id, content));
                (c, true)
            }
        }
    }

    /// The index of content `hash`, if it was claimed or added.
    pub(super) fn find(&self, hash: u128) -> Option<u32> {
        let contents = &self.contents;
        self.table
            .find(hash as u64, |&c| {
                contents[c as usize].content.hash() == hash
            })
            .copied()
    }

    /// Adds `content`, signed by document `loader`, and finds it by its hash
    /// from now on (in place of an earlier content with the same hash).
    pub(super) fn add(&mut self, loader: u32, content: SignedContent) -> u32 {
        let hash = content.hash;
        let c = self.add_unlisted(loader, content);
        let contents = &self.contents;
        match self.table.entry(
            hash as u64,
            |&c| contents[c as usize].content.hash() == hash,
            |&c| contents[c as usize].content.hash() as u64,
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
        let c = self.contents.len() as u32;
        self.contents
            .push(ContentGroup::new(loader, Content::of(&content)));
        self.keep_set(c, content.set);
        c
    }

    /// Content `c`.
    pub(super) fn group_mut(&mut self, c: u32) -> &mut ContentGroup {
        &mut self.contents[c as usize]
    }

    /// What signing content `c` gave: its counts, and its set when kept.
    pub(super) fn set_content(&mut self, c: u32, content: SignedContent) {
        self.contents[c as usize].content = Content::of(&content);
        self.keep_set(c, content.set);
    }

    fn keep_set(&mut self, c: u32, set: Vec<u64>) {
        let c = c as usize;
        if c < self.sets.len() {
            self.sets[c] = set;
        } else if !set.is_empty() {
            self.sets.resize_with(c + 1, Vec::new);
            self.sets[c] = set;
        }
    }

    /// Content `c`'s kept set (empty if none), which it no longer holds.
    pub(super) fn take_set(&mut self, c: u32) -> Vec<u64> {
        self.sets
            .get_mut(c as usize)
            .map(std::mem::take)
            .unwrap_or_default()
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
                    SignOutcome::Unique(signed) if signed.hash == self.contents[c as usize].content.hash());
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
    pub(super) fn into_groups(self, content_of: Vec<u32>, documents: &mut Docs) -> ContentGroups {
        let ContentTable {
            table,
            contents,
            sets,
            ..
        } = self;
        drop(table);
        ContentGroups::build(contents, sets, content_of, documents)
    }
}

/// What pair finding needs of a signed content, without its set: a
/// [`SignedContent`] is 48 bytes (its `u128` aligns it to 16), this is 24
/// (the hash as four `u32`, so that a [`ContentGroup`] is 4-byte aligned: 32 bytes).
#[derive(Clone, Copy, Debug)]
pub(super) struct Content {
    /// XXH3-128 of the bytes, lowest quarter first.
    hash: [u32; 4],
    /// As [`SignedContent::shingles`].
    pub(super) shingles: u32,
    /// As [`SignedContent::counted`].
    pub(super) counted: bool,
}

impl Content {
    pub(super) fn new(hash: u128, shingles: u32, counted: bool) -> Content {
        Content {
            hash: [0, 1, 2, 3].map(|k| (hash >> (32 * k)) as u32),
            shingles,
            counted,
        }
    }

    fn of(signed: &SignedContent) -> Content {
        Content::new(signed.hash, signed.shingles, signed.counted)
    }

    pub(super) fn hash(&self) -> u128 {
        (self.hash.iter().rev()).fold(0, |hash, &quarter| hash << 32 | u128::from(quarter))
    }
}

/// Files that share one content. 32 bytes, a million of them in a scan of
/// a million distinct files, held beside the whole signature matrix at the
/// end of signing and while banding (docs/PERFORMANCE.md, "Round 6").
pub(super) struct ContentGroup {
    /// 0 when the loader is the only member; else 1 + the index of the
    /// member list in [`ContentGroups`]' lists ([`Items::members`]): an
    /// index, not a pointer, so that the group is 4-byte aligned (a pointer
    /// made it 40 bytes). Set by [`ContentGroups::build`]; 0 before.
    others: u32,
    /// The member whose file was signed, and is re-read for verification.
    pub(super) loader: u32,
    pub(super) content: Content,
}

impl ContentGroup {
    /// A content first shown by document `loader`, before its members are known.
    pub(super) fn new(loader: u32, content: Content) -> ContentGroup {
        ContentGroup {
            others: 0,
            loader,
            content,
        }
    }
}

/// The member lists of the contents that are not their loader alone, one
/// after another, ascending inside each.
#[derive(Default)]
struct MemberLists {
    ids: Vec<u32>,
    /// Where each list ends in `ids`.
    ends: Vec<u32>,
}

impl MemberLists {
    /// List `k`'s place in `ids`.
    fn range(&self, k: usize) -> std::ops::Range<usize> {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        start..self.ends[k] as usize
    }
}

/// The contents that take part in pair finding, and their members: derefs
/// to the groups' slice (`items[i]`, `items.len()`).
#[derive(Clone, Copy)]
pub(super) struct Items<'a> {
    groups: &'a [ContentGroup],
    lists: &'a MemberLists,
}

impl<'a> std::ops::Deref for Items<'a> {
    type Target = [ContentGroup];
    fn deref(&self) -> &[ContentGroup] {
        self.groups
    }
}

impl<'a> Items<'a> {
    /// The document ids of content `g` (one of these groups), ascending.
    pub(super) fn members<'b>(&self, g: &'b ContentGroup) -> &'b [u32]
    where
        'a: 'b,
    {
        match g.others {
            0 => std::slice::from_ref(&g.loader),
            k => &self.lists.ids[self.lists.range(k as usize - 1)],
        }
    }
}

/// Every content and its documents, ordered by loader (so loaders increase
/// with the group index).
pub(super) struct ContentGroups {
    pub(super) groups: Vec<ContentGroup>,
    /// The member lists the groups' `others` index.
    lists: MemberLists,
    /// The kept sets, one per group, or empty when none was kept (LSH).
    sets: Vec<Vec<u64>>,
}

impl ContentGroups {
    /// Groups documents by content: `contents` in any order, each with its
    /// loader and no members yet, `sets` their kept sets (by the same index,
    /// possibly shorter), and `content_of[id]` the index in `contents` of
    /// document `id`'s content (or [`NO_CONTENT`]). Gives each document its
    /// content's shingle count; contents left without documents are dropped.
    fn build(
        mut contents: Vec<ContentGroup>,
        sets: Vec<Vec<u64>>,
        content_of: Vec<u32>,
        documents: &mut Docs,
    ) -> ContentGroups {
        // Members counted first, so that each list is made at its length;
        // filled from the last document down, so each ends ascending.
        let mut left = vec![0u32; contents.len()];
        for &c in &content_of {
            if c != NO_CONTENT {
                left[c as usize] += 1;
            }
        }
        let mut lists = MemberLists::default();
        for (group, &count) in contents.iter_mut().zip(&left) {
            if count > 1 {
                lists
                    .ends
                    .push(lists.ends.last().copied().unwrap_or(0) + count);
                group.others = lists.ends.len() as u32;
            }
        }
        lists.ids = vec![0; lists.ends.last().copied().unwrap_or(0) as usize];
        for (id, &c) in content_of.iter().enumerate().rev() {
            if c == NO_CONTENT {
                continue;
            }
            let group = &mut contents[c as usize];
            match group.others {
                0 if id as u32 != group.loader => {
                    // A lone member is the loader (the claimer, or the copy
                    // that adopted the content); were it another, it is listed.
                    lists.ids.push(id as u32);
                    lists.ends.push(lists.ids.len() as u32);
                    group.others = lists.ends.len() as u32;
                }
                0 => {}
                k => {
                    left[c as usize] -= 1;
                    let at = lists.range(k as usize - 1).start + left[c as usize] as usize;
                    lists.ids[at] = id as u32;
                }
            }
            documents.set_shingles(id, group.content.shingles);
        }
        // The sets follow their contents by loader (unique: a document signs
        // at most one content), rather than a permuted copy of every content.
        let mut kept: Vec<(u32, Vec<u64>)> = sets
            .into_iter()
            .enumerate()
            .filter(|(_, set)| !set.is_empty())
            .map(|(c, set)| (contents[c].loader, set))
            .collect();
        // Contents left without documents go: a count still 0 and no list
        // (a list's count is down to 0 by now, a lone member's is 1).
        let mut k = 0;
        contents.retain(|g| {
            let members = g.others != 0 || left[k] > 0;
            k += 1;
            members
        });
        drop(left);
        contents.par_sort_unstable_by_key(|g| g.loader);
        kept.sort_unstable_by_key(|&(loader, _)| loader);
        let mut sets = Vec::new();
        if !kept.is_empty() {
            let mut kept = kept.into_iter().peekable();
            sets = contents
                .iter()
                .map(|g| {
                    while kept.next_if(|(loader, _)| *loader < g.loader).is_some() {}
                    kept.next_if(|(loader, _)| *loader == g.loader)
                        .map(|(_, set)| set)
                        .unwrap_or_default()
                })
                .collect();
        }
        ContentGroups {
            groups: contents,
            lists,
            sets,
        }
    }

    /// Group `g`'s kept set (empty if none was kept).
    #[cfg(test)]
    pub(super) fn set(&self, g: usize) -> &[u64] {
        self.sets.get(g).map_or(&[], Vec::as_slice)
    }

    /// The kept sets of the groups with a non-empty set, in group order;
    /// the groups no longer hold them.
    pub(super) fn take_sets(&mut self) -> Vec<Vec<u64>> {
        let mut sets = std::mem::take(&mut self.sets);
        sets.resize_with(self.groups.len(), Vec::new);
        (self.groups.iter().zip(sets))
            .filter(|(g, _)| g.content.shingles > 0)
            .map(|(_, set)| set)
            .collect()
    }

    pub(super) fn identical_files(&self) -> u64 {
        let items = self.items();
        items
            .iter()
            .map(|g| items.members(g).len() as u64 - 1)
            .sum()
    }

    /// The groups with their member lists.
    pub(super) fn items(&self) -> Items<'_> {
        Items {
            groups: &self.groups,
            lists: &self.lists,
        }
    }
}

/// What signing leaves for pair finding.
pub(super) struct Signed {
    /// Every walked file, by id.
    pub(super) documents: Docs,
    pub(super) groups: ContentGroups,
    /// Why each [`DocStatus::Failed`] document failed, by ascending id.
    pub(super) failures: Vec<(u32, ReadError)>,
    /// Why each document of a known format has no text, by ascending id
    /// (their status is [`DocStatus::Binary`]: not compared).
    pub(super) unextracted: Vec<(u32, Unextracted)>,
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
        let mut unextracted = Vec::new();
        let mut documents = Docs::default();
        for (id, (file, outcome)) in files.into_iter().zip(outcomes).enumerate() {
            documents.push(&file);
            match outcome {
                SignOutcome::Unique(content) => {
                    content_of[id] = contents.add(id as u32, content);
                }
                SignOutcome::SameAs(hash) => copies.push((id, hash)),
                SignOutcome::Binary => documents.set_status(id, DocStatus::Binary),
                SignOutcome::NotExtracted(why) => {
                    documents.set_status(id, DocStatus::Binary);
                    unextracted.push((id as u32, why));
                }
                SignOutcome::Failed(err) => {
                    documents.set_status(id, DocStatus::Failed);
                    failures.push((id as u32, err));
                }
            }
        }
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
            unextracted,
            matrix,
        }
    }
}
