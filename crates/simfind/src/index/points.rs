//! An index of vectors (`index --input vectors`, cosine similarity): each
//! vector signed by random hyperplanes (the family `scan --input vectors`
//! bands, MMDS 3.7.2), its band keys stored as a document's, and the vector
//! itself stored as its text (little-endian `f32`s), from which every
//! candidate is verified by its exact cosine, as the scan verifies.
//!
//! Role: storage and lookup of points, beside the MinHash lookup of
//! [`super::query`] (a vector has no set), and their add-if-new stream
//! ([`VectorStream`], beside [`super::stream`]). The index's [`Params`] carry
//! the banding and seed, `hyperplane` as the sketch and the dimension as
//! `k`; [`vector_params`] makes them.
//!
//! Invariant: a stored vector reads back bit for bit (its hash is the
//! document's content hash, checked before it is compared), and a
//! lookup's matches are exactly the candidates whose cosine with the query
//! reaches the threshold (with `exact`, every stored vector is a
//! candidate, so none is missed).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{FileStat, Index, IndexError, IndexedDoc, RowId, StoredDoc, Update, UpdateSummary};
use crate::lsh::{self, Banding};
use crate::params::Params;
use crate::similarity::vectors;
use crate::sketch::Hyperplanes;
use crate::sketch::{Family, Features};

/// The sketch name an index of vectors stores.
pub const HYPERPLANE: &str = "hyperplane";

/// The parameters of an index of `dim`-dimensional vectors signed by
/// `banding.signature_len()` hyperplanes drawn from `seed`.
pub fn vector_params(dim: usize, banding: Banding, seed: u64) -> Params {
    point_params(HYPERPLANE, dim, banding, seed)
}

/// The parameters of an index of points `width` wide (a vector's
/// dimension, a bit string's length), signed by `sketch` into
/// `banding.signature_len()` values drawn from `seed`: the stored form of
/// [`vector_params`] and of `bits::bit_params`.
pub(super) fn point_params(sketch: &str, width: usize, banding: Banding, seed: u64) -> Params {
    Params {
        shingle_kind: "none".to_string(),
        k: u32::try_from(width).unwrap_or(u32::MAX),
        normalisation: "none".to_string(),
        n: banding.signature_len() as u32,
        bands: banding.bands as u32,
        rows: banding.rows as u32,
        seed,
        minhash: sketch.to_string(),
        stop_words: String::new(),
        include_binary: false,
        extraction: "none".to_string(),
    }
}

/// The hyperplanes of an index of vectors, or why its parameters are not
/// an index of vectors' (a damaged file).
fn family(index: &Index) -> Result<(Hyperplanes, Banding), IndexError> {
    let banding = stored_banding(index, HYPERPLANE, "vectors")?;
    let p = index.params();
    let n = banding.signature_len();
    Ok((Hyperplanes::new(p.k as usize, n, p.seed), banding))
}

/// The banding of an index of points signed by `sketch` (`what` names
/// them), or why its parameters are not such an index's (a damaged file).
pub(super) fn stored_banding(
    index: &Index,
    sketch: &str,
    what: &str,
) -> Result<Banding, IndexError> {
    let p = index.params();
    if p.minhash != sketch || p.k == 0 || p.bands == 0 || p.rows == 0 || p.n != p.bands * p.rows {
        return Err(IndexError::NotAnIndex {
            path: index.path().to_owned(),
            reason: format!("an index of {what} with the parameters {p}"),
        });
    }
    Ok(Banding {
        bands: p.bands as usize,
        rows: p.rows as usize,
    })
}

/// The dimension of the vectors an index holds.
pub fn dimension(index: &Index) -> usize {
    index.params().k as usize
}

fn to_bytes(row: &[f32]) -> Vec<u8> {
    row.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn from_bytes(body: &[u8]) -> Option<Vec<f32>> {
    if !body.len().is_multiple_of(4) {
        return None;
    }
    Some(
        body.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

fn wrong_dimension(index: &Index, dim: usize) -> IndexError {
    IndexError::Invalid {
        path: index.path().to_owned(),
        reason: format!(
            "vectors of {dim} dimensions, but the index holds vectors of {}",
            dimension(index)
        ),
    }
}

/// Stores each `(id, vector)` (replacing the vector of an id already
/// indexed), in one transaction. Every vector must have the index's
/// dimension (checked before anything is written).
pub fn add_vectors<'a>(
    index: &mut Index,
    items: impl IntoIterator<Item = (&'a str, &'a [f32])>,
) -> Result<UpdateSummary, IndexError> {
    let (planes, banding) = family(index)?;
    let dim = dimension(index);
    let mut docs = Vec::new();
    for (id, row) in items {
        if row.len() != dim {
            return Err(wrong_dimension(index, row.len()));
        }
        docs.push(vector_doc(&planes, banding, id, row));
    }
    let mut update = index.begin_update()?;
    for (doc, body) in &docs {
        store(&mut update, doc, body)?;
    }
    update.commit()
}

/// A point's stored form (signature, band keys, values' bytes) from its id
/// and stored body, as a family of points makes it.
pub(super) type PointDoc<'a> = dyn Fn(&str, &[u8]) -> (IndexedDoc, Vec<u8>) + Sync + 'a;

/// A family of points as [`super::items::refresh_items`] signs it: `doc`
/// makes a point's stored form (signature, band keys, values) from its id
/// and stored body; points have no shingle sets for a prefix index.
struct PointSigner<F> {
    signature_len: usize,
    doc: F,
}

impl<F> super::items::ItemSigner for PointSigner<F>
where
    F: Fn(&str, &[u8]) -> (IndexedDoc, Vec<u8>) + Sync,
{
    fn prepare(&self, id: &Path, body: &[u8]) -> super::add::Prepared {
        // Ids of points are the UTF-8 ids their readers gave.
        let (doc, body) = (self.doc)(id.to_str().unwrap_or_default(), body);
        super::add::Prepared {
            doc,
            set: Vec::new(),
            text: Some(body),
        }
    }

    fn reusable(&self, doc: &StoredDoc) -> bool {
        doc.signature.len() == self.signature_len
    }

    fn has_sets(&self) -> bool {
        false
    }
}

/// The refresh of an index of points of any family (`scan --db` of vectors
/// and bit strings): every point of `items` must have `width` values (else
/// `wrong` names the first that has not, before anything is written); each
/// is stored as `encode` makes its body, and signed by `doc` (as
/// [`PointSigner`]) when it is not stored unchanged.
pub(super) fn refresh_points<T>(
    index: &mut Index,
    items: &[(&str, &[T])],
    (width, wrong): (usize, fn(&Index, usize) -> IndexError),
    encode: fn(&[T]) -> Vec<u8>,
    (signature_len, doc): (usize, &PointDoc<'_>),
) -> Result<super::items::RefreshedItems, IndexError> {
    if let Some((_, row)) = items.iter().find(|(_, row)| row.len() != width) {
        return Err(wrong(index, row.len()));
    }
    let bodies: Vec<Vec<u8>> = items.iter().map(|(_, row)| encode(row)).collect();
    let items: Vec<(&Path, &[u8])> = items
        .iter()
        .zip(&bodies)
        .map(|((id, _), body)| (Path::new(*id), body.as_slice()))
        .collect();
    let signer = PointSigner { signature_len, doc };
    super::items::refresh_items(index, &items, signature_len, &signer)
}

/// `scan --db I --input vectors`: brings `index` up to date with `items`
/// (id, vector), in one transaction, as [`super::items::refresh`] does for
/// records (the same refresh, signed by the index's hyperplanes): a vector
/// whose id is stored with the hash of the very values it has now keeps its
/// stored signature (not signed again), a new or changed one is signed and
/// stored, and a stored id `items` no longer holds is forgotten. Returns
/// every item's signature in `items`' order (its `shingles` are the
/// dimension). Every vector must have the index's dimension (checked before
/// anything is written).
pub fn refresh(
    index: &mut Index,
    items: &[(&str, &[f32])],
) -> Result<super::items::RefreshedItems, IndexError> {
    let (planes, banding) = family(index)?;
    let dim = dimension(index);
    // A body was made by `to_bytes` from a row: whole f32s.
    let doc = |id: &str, body: &[u8]| {
        vector_doc(&planes, banding, id, &from_bytes(body).unwrap_or_default())
    };
    refresh_points(
        index,
        items,
        (dim, wrong_dimension),
        to_bytes,
        (banding.signature_len(), &doc),
    )
}

/// The stored form of vector `row` under `id`: its signature and band
/// keys, and its values as the stored text.
fn vector_doc(
    planes: &Hyperplanes,
    banding: Banding,
    id: &str,
    row: &[f32],
) -> (IndexedDoc, Vec<u8>) {
    let mut signature = vec![0u32; banding.signature_len()];
    planes.sign_into(Features::Vector(row), &mut signature);
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
        shingle_count: row.len() as u64,
        signature,
        band_keys,
    };
    (doc, body)
}

/// Adds `doc` (or replaces the point of its id) with its values `body`.
pub(super) fn store(
    update: &mut Update<'_>,
    doc: &IndexedDoc,
    body: &[u8],
) -> Result<RowId, IndexError> {
    let id = if update.is_indexed(&doc.path)? {
        update.change(doc)?
    } else {
        update.add(doc)?
    };
    update.store_text(id, body)?;
    Ok(id)
}

/// What one vector found.
#[derive(Debug)]
pub struct VectorAnswer {
    /// Stored vectors compared with it.
    pub candidates: usize,
    /// Each match and its cosine, most similar first, ties by id bytes.
    pub matches: Vec<(StoredDoc, f64)>,
    /// Candidates whose stored vector did not read back (a damaged row).
    pub unverified: u64,
}

/// The stored vectors whose cosine with `row` is at least `min_cosine`:
/// among those sharing a band key with it, or with `exact` among all of
/// them; with `top`, the `top` most similar.
pub fn ask_vector(
    index: &Index,
    row: &[f32],
    min_cosine: f64,
    exact: bool,
    top: Option<usize>,
) -> Result<VectorAnswer, IndexError> {
    let (planes, banding) = family(index)?;
    if row.len() != dimension(index) {
        return Err(wrong_dimension(index, row.len()));
    }
    let docs = index.snapshot(|index| candidates(index, &planes, banding, row, exact))?;
    verify(index, docs, row, min_cosine, top)
}

/// The stored vectors `row` is compared with: those sharing a band key
/// with it, or with `exact` all of them.
fn candidates(
    index: &Index,
    planes: &Hyperplanes,
    banding: Banding,
    row: &[f32],
    exact: bool,
) -> Result<Vec<StoredDoc>, IndexError> {
    banded_candidates(index, banding, exact, |signature| {
        planes.sign_into(Features::Vector(row), signature)
    })
}

/// The stored points to compare with one whose signature `sign` writes:
/// those sharing a band with it, or with `exact` every stored point.
pub(super) fn banded_candidates(
    index: &Index,
    banding: Banding,
    exact: bool,
    sign: impl FnOnce(&mut [u32]),
) -> Result<Vec<StoredDoc>, IndexError> {
    if exact {
        return index.documents();
    }
    let mut signature = vec![0u32; banding.signature_len()];
    sign(&mut signature);
    let keys: Vec<u64> = lsh::band_keys(&signature, banding).collect();
    let mut docs = Vec::new();
    for id in index.candidates(&keys)? {
        docs.extend(index.document(id)?);
    }
    Ok(docs)
}

/// The matches among `docs` of `row` at `min_cosine` or more, each by
/// its stored values, most similar first (ties by id bytes).
fn verify(
    index: &Index,
    docs: Vec<StoredDoc>,
    row: &[f32],
    min_cosine: f64,
    top: Option<usize>,
) -> Result<VectorAnswer, IndexError> {
    let bodies = index.stored_texts(&docs)?;
    let query_norm = vectors::dot(row, row);
    let mut matches = Vec::new();
    let mut unverified = 0;
    for doc in &docs {
        let stored = bodies
            .get(&doc.id)
            .filter(|body| super::content_hash(body) == doc.content_hash)
            .and_then(|body| from_bytes(body))
            .filter(|v| v.len() == row.len());
        let Some(stored) = stored else {
            unverified += 1;
            continue;
        };
        let cosine =
            vectors::cosine_with_norms(row, &stored, query_norm, vectors::dot(&stored, &stored));
        if let Some(c) = cosine.filter(|&c| c >= min_cosine) {
            matches.push((doc.clone(), c));
        }
    }
    matches.sort_by(|(x, a), (y, b)| {
        b.total_cmp(a).then_with(|| {
            x.path
                .as_os_str()
                .as_bytes()
                .cmp(y.path.as_os_str().as_bytes())
        })
    });
    if let Some(top) = top {
        matches.truncate(top);
    }
    Ok(VectorAnswer {
        candidates: docs.len(),
        matches,
        unverified,
    })
}

/// What became of one vector of a stream ([`VectorStream`]).
#[derive(Debug)]
pub enum VectorDecision {
    /// No stored vector reaches the cosine: it was stored (visible, and
    /// durable, once the batch commits). `unverified` candidates did not
    /// read back (a damaged row): one of them may have been a match.
    New { id: RowId, unverified: u64 },
    /// `matches` stored vectors reach it, `nearest` the most similar (ties
    /// by id) at `cosine`; it was not stored.
    Seen {
        nearest: StoredDoc,
        cosine: f64,
        matches: usize,
        unverified: u64,
    },
}

/// Add-if-new for vectors (`query --input vectors --add-if-new -`): the
/// lookup of [`ask_vector`] and the insert of [`add_vectors`] under one
/// write transaction per batch, as [`super::stream::Stream`] does for
/// sets: a vector stored has no stored match at the cosine among the
/// vectors committed before it and those stored before it in its batch
/// (with `exact`: none at all). Nothing is visible to others, nor durable,
/// until [`VectorStream::commit`]; a batch dropped without it is rolled
/// back whole.
pub struct VectorStream<'a> {
    index: &'a Index,
    planes: Hyperplanes,
    banding: Banding,
    open: Option<(Update<'a>, usize)>,
}

impl<'a> VectorStream<'a> {
    /// A stream over `index`, an index of vectors.
    pub fn new(index: &'a Index) -> Result<Self, IndexError> {
        let (planes, banding) = family(index)?;
        index.widen_cache();
        Ok(VectorStream {
            index,
            planes,
            banding,
            open: None,
        })
    }

    /// Vectors decided since the last commit.
    pub fn pending(&self) -> usize {
        self.open.as_ref().map_or(0, |(_, items)| *items)
    }

    /// Decides vector `row` of `id`: stores it when no stored vector (nor
    /// one stored earlier in this batch) has a cosine ≥ `min_cosine` with
    /// it. Takes the index's write lock if this batch does not hold it yet.
    pub fn add_if_new(
        &mut self,
        id: &str,
        row: &[f32],
        min_cosine: f64,
        exact: bool,
    ) -> Result<VectorDecision, IndexError> {
        if row.len() != dimension(self.index) {
            return Err(wrong_dimension(self.index, row.len()));
        }
        if self.open.is_none() {
            self.open = Some((self.index.begin_locked()?, 0));
        }
        // Read inside the batch's transaction: its own inserts are seen.
        let docs = candidates(self.index, &self.planes, self.banding, row, exact)?;
        let answer = verify(self.index, docs, row, min_cosine, None)?;
        let Some((update, items)) = &mut self.open else {
            unreachable!("the batch was opened above")
        };
        *items += 1;
        let matches = answer.matches.len();
        if let Some((nearest, cosine)) = answer.matches.into_iter().next() {
            return Ok(VectorDecision::Seen {
                nearest,
                cosine,
                matches,
                unverified: answer.unverified,
            });
        }
        let (doc, body) = vector_doc(&self.planes, self.banding, id, row);
        let id = store(update, &doc, &body)?;
        Ok(VectorDecision::New {
            id,
            unverified: answer.unverified,
        })
    }

    /// Makes every vector decided since the last commit durable and
    /// visible, and releases the lock.
    pub fn commit(&mut self) -> Result<UpdateSummary, IndexError> {
        match self.open.take() {
            Some((update, _)) => update.commit(),
            None => Ok(UpdateSummary::default()),
        }
    }
}
