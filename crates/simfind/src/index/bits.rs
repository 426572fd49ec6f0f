//! An index of bit strings (`index --input bits`, Hamming distance): each
//! string signed by bit sampling (the family `scan --input bits` bands,
//! MMDS 3.7.1: a sampled bit of two strings `h` bits apart agrees with
//! probability `1 − h/d`), its band keys stored as a document's, and the
//! string itself stored as its text (its 64-bit words, little-endian), from
//! which every candidate's distance is counted exactly, as the scan counts.
//!
//! Role: storage and lookup of bit strings, beside [`super::points`] (whose
//! layout it shares: the index's [`Params`] carry the banding and seed,
//! `bit-sampling` as the sketch and the length in bits as `k`;
//! [`bit_params`] makes them).
//!
//! Invariant: a stored string reads back bit for bit (its hash is the
//! document's content hash, checked before it is compared), and a lookup's
//! matches are exactly the candidates within the radius (with `exact`,
//! every stored string is a candidate, so none is missed).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{FileStat, Index, IndexError, IndexedDoc, RowId, StoredDoc, Update, UpdateSummary};
use crate::lsh::{self, Banding};
use crate::params::Params;
use crate::sketch::BitSampling;

/// The sketch name an index of bit strings stores.
pub const BIT_SAMPLING: &str = "bit-sampling";

/// The parameters of an index of `bits`-bit strings signed by
/// `banding.signature_len()` bits sampled with `seed`.
pub fn bit_params(bits: usize, banding: Banding, seed: u64) -> Params {
    super::points::point_params(BIT_SAMPLING, bits, banding, seed)
}

/// The sampled positions of an index of bit strings (those `scan --input
/// bits` draws from the same length, count and seed), or why its
/// parameters are not an index of bit strings' (a damaged file).
fn family(index: &Index) -> Result<(BitSampling, Banding), IndexError> {
    let banding = super::points::stored_banding(index, BIT_SAMPLING, "bit strings")?;
    let p = index.params();
    let sampling = BitSampling::random(p.k as usize, banding.signature_len(), p.seed);
    Ok((sampling, banding))
}

/// The length in bits of the strings an index holds.
pub fn length(index: &Index) -> usize {
    index.params().k as usize
}

fn words_per_string(bits: usize) -> usize {
    bits.div_ceil(64)
}

fn to_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn from_bytes(body: &[u8]) -> Option<Vec<u64>> {
    if !body.len().is_multiple_of(8) {
        return None;
    }
    Some(
        body.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("chunks of 8")))
            .collect(),
    )
}

fn wrong_length(index: &Index, words: usize) -> IndexError {
    IndexError::Invalid {
        path: index.path().to_owned(),
        reason: format!(
            "bit strings of {words} 64-bit words, but the index holds strings of {} bits",
            length(index)
        ),
    }
}

/// Stores each `(id, words)` (replacing the string of an id already
/// indexed), in one transaction. Every string must have the index's
/// length (checked before anything is written).
pub fn add_bits<'a>(
    index: &mut Index,
    items: impl IntoIterator<Item = (&'a str, &'a [u64])>,
) -> Result<UpdateSummary, IndexError> {
    let (sampling, banding) = family(index)?;
    let words = words_per_string(length(index));
    let mut docs = Vec::new();
    for (id, row) in items {
        if row.len() != words {
            return Err(wrong_length(index, row.len()));
        }
        docs.push(bits_doc(&sampling, banding, id, row));
    }
    let mut update = index.begin_update()?;
    for (doc, body) in &docs {
        super::points::store(&mut update, doc, body)?;
    }
    update.commit()
}

/// `scan --db I --input bits`: brings `index` up to date with `items` (id,
/// words), in one transaction, by the one refresh of items
/// ([`super::items::refresh_items`]) signed by the index's sampled
/// positions: a string stored unchanged keeps its signature, the rest are
/// signed and stored, ids no longer given are forgotten. Returns every
/// item's signature in `items`' order. Every string must have the index's
/// length (checked before anything is written).
pub fn refresh(
    index: &mut Index,
    items: &[(&str, &[u64])],
) -> Result<super::items::RefreshedItems, IndexError> {
    let (sampling, banding) = family(index)?;
    let words = words_per_string(length(index));
    // A body was made by `to_bytes` from a string's words: whole u64s.
    let doc = |id: &str, body: &[u8]| {
        bits_doc(
            &sampling,
            banding,
            id,
            &from_bytes(body).unwrap_or_default(),
        )
    };
    super::points::refresh_points(
        index,
        items,
        (words, wrong_length),
        to_bytes,
        (banding.signature_len(), &doc),
    )
}

/// The stored form of the string `row` under `id`: its signature and band
/// keys, and its words as the stored text.
fn bits_doc(
    sampling: &BitSampling,
    banding: Banding,
    id: &str,
    row: &[u64],
) -> (IndexedDoc, Vec<u8>) {
    let mut signature = vec![0u32; banding.signature_len()];
    sampling.sign(row, &mut signature);
    let band_keys = lsh::band_keys(&signature, banding).collect();
    let body = to_bytes(row);
    let doc = IndexedDoc {
        path: Path::new(id).to_owned(),
        stat: FileStat {
            size: body.len() as u64,
            mtime_ns: super::schema::UNTRUSTED_MTIME,
            dev: None,
            inode: None,
        },
        content_hash: super::content_hash(&body),
        binary: false,
        not_compared: None,
        // Nonzero: a document with no shingles has no band keys.
        shingle_count: row.len() as u64 * 64,
        signature,
        band_keys,
    };
    (doc, body)
}

/// What one bit string found.
#[derive(Debug)]
pub struct BitsAnswer {
    /// Stored strings compared with it.
    pub candidates: usize,
    /// Each match and its Hamming distance, nearest first, ties by id bytes.
    pub matches: Vec<(StoredDoc, u32)>,
    /// Candidates whose stored string did not read back (a damaged row).
    pub unverified: u64,
}

/// The stored strings within `radius` bits of `row`: among those sharing a
/// band key with it, or with `exact` among all of them; with `top`, the
/// `top` nearest.
pub fn ask_bits(
    index: &Index,
    row: &[u64],
    radius: u32,
    exact: bool,
    top: Option<usize>,
) -> Result<BitsAnswer, IndexError> {
    let (sampling, banding) = family(index)?;
    if row.len() != words_per_string(length(index)) {
        return Err(wrong_length(index, row.len()));
    }
    let docs = index.snapshot(|index| candidates(index, &sampling, banding, row, exact))?;
    verify(index, docs, row, radius, top)
}

/// The stored strings `row` is compared with: those sharing a band key
/// with it, or with `exact` all of them.
fn candidates(
    index: &Index,
    sampling: &BitSampling,
    banding: Banding,
    row: &[u64],
    exact: bool,
) -> Result<Vec<StoredDoc>, IndexError> {
    super::points::banded_candidates(index, banding, exact, |signature| {
        sampling.sign(row, signature)
    })
}

/// The matches among `docs` of `row` within `radius` bits, each by its
/// stored words, nearest first (ties by id bytes).
fn verify(
    index: &Index,
    docs: Vec<StoredDoc>,
    row: &[u64],
    radius: u32,
    top: Option<usize>,
) -> Result<BitsAnswer, IndexError> {
    let bodies = index.stored_texts(&docs)?;
    let mut matches = Vec::new();
    let mut unverified = 0;
    for doc in &docs {
        let stored = bodies
            .get(&doc.id)
            .filter(|body| super::content_hash(body) == doc.content_hash)
            .and_then(|body| from_bytes(body))
            .filter(|w| w.len() == row.len());
        let Some(stored) = stored else {
            unverified += 1;
            continue;
        };
        let distance: u32 = row
            .iter()
            .zip(&stored)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        if distance <= radius {
            matches.push((doc.clone(), distance));
        }
    }
    matches.sort_by(|(x, a), (y, b)| {
        a.cmp(b).then_with(|| {
            x.path
                .as_os_str()
                .as_bytes()
                .cmp(y.path.as_os_str().as_bytes())
        })
    });
    if let Some(top) = top {
        matches.truncate(top);
    }
    Ok(BitsAnswer {
        candidates: docs.len(),
        matches,
        unverified,
    })
}

/// What became of one bit string of a stream ([`BitsStream`]).
#[derive(Debug)]
pub enum BitsDecision {
    /// No stored string is within the radius: it was stored (visible, and
    /// durable, once the batch commits). `unverified` candidates did not
    /// read back (a damaged row): one of them may have been a match.
    New { id: RowId, unverified: u64 },
    /// `matches` stored strings are within the radius, `nearest` the
    /// nearest (ties by id) at `distance` bits; it was not stored.
    Seen {
        nearest: StoredDoc,
        distance: u32,
        matches: usize,
        unverified: u64,
    },
}

/// Add-if-new for bit strings (`query --input bits --add-if-new -`): the
/// lookup of [`ask_bits`] and the insert of [`add_bits`] under one write
/// transaction per batch, as [`super::points::VectorStream`] does for
/// vectors: a string stored has no stored match within the radius among
/// the strings committed before it and those stored before it in its
/// batch (with `exact`: none at all). Nothing is visible to others, nor
/// durable, until [`BitsStream::commit`]; a batch dropped without it is
/// rolled back whole.
pub struct BitsStream<'a> {
    index: &'a Index,
    sampling: BitSampling,
    banding: Banding,
    open: Option<(Update<'a>, usize)>,
}

impl<'a> BitsStream<'a> {
    /// A stream over `index`, an index of bit strings.
    pub fn new(index: &'a Index) -> Result<Self, IndexError> {
        let (sampling, banding) = family(index)?;
        index.widen_cache();
        Ok(BitsStream {
            index,
            sampling,
            banding,
            open: None,
        })
    }

    /// Strings decided since the last commit.
    pub fn pending(&self) -> usize {
        self.open.as_ref().map_or(0, |(_, items)| *items)
    }

    /// Decides string `row` of `id`: stores it when no stored string (nor
    /// one stored earlier in this batch) is within `radius` bits of it.
    /// Takes the index's write lock if this batch does not hold it yet.
    pub fn add_if_new(
        &mut self,
        id: &str,
        row: &[u64],
        radius: u32,
        exact: bool,
    ) -> Result<BitsDecision, IndexError> {
        if row.len() != words_per_string(length(self.index)) {
            return Err(wrong_length(self.index, row.len()));
        }
        if self.open.is_none() {
            self.open = Some((self.index.begin_locked()?, 0));
        }
        // Read inside the batch's transaction: its own inserts are seen.
        let docs = candidates(self.index, &self.sampling, self.banding, row, exact)?;
        let answer = verify(self.index, docs, row, radius, None)?;
        let Some((update, items)) = &mut self.open else {
            unreachable!("the batch was opened above")
        };
        *items += 1;
        let matches = answer.matches.len();
        if let Some((nearest, distance)) = answer.matches.into_iter().next() {
            return Ok(BitsDecision::Seen {
                nearest,
                distance,
                matches,
                unverified: answer.unverified,
            });
        }
        let (doc, body) = bits_doc(&self.sampling, self.banding, id, row);
        let id = if update.is_indexed(&doc.path)? {
            update.change(&doc)?
        } else {
            update.add(&doc)?
        };
        update.store_text(id, &body)?;
        Ok(BitsDecision::New {
            id,
            unverified: answer.unverified,
        })
    }

    /// Makes every string decided since the last commit durable and
    /// visible, and releases the lock.
    pub fn commit(&mut self) -> Result<UpdateSummary, IndexError> {
        match self.open.take() {
            Some((update, _)) => update.commit(),
            None => Ok(UpdateSummary::default()),
        }
    }
}
