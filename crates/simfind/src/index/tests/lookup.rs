//! [`query::Query`] with exact verification: the query's own file, when it
//! is indexed with the bytes just read, is not read again; any other
//! candidate, and that file once changed, still is, and a changed or missing
//! one is named.

use std::fmt::Display;
use std::os::unix::fs::MetadataExt;
use std::sync::Mutex;

use super::*;
use crate::index::add::{NewDoc, add_and_remove};
use crate::index::query::{Answer, Query, QueryOptions};
use crate::input::read::ReadOptions;
use crate::pipeline::Verification;
use crate::progress::{Reporter, Silent};
use crate::recipe::Recipe;
use crate::sketch::SketchKind;
use crate::text::Normalization;
use crate::text::{ShingleKind, Shingler, StopWords};

/// Character 5-shingles, 4 bands × 2 rows: near copies share a band.
fn recipe() -> Recipe {
    Recipe {
        normalization: Normalization {
            lowercase: true,
            collapse_whitespace: true,
            drop_whitespace: false,
            fold_accents: false,
            fold_punct: false,
        },
        shingler: Shingler::new(ShingleKind::Char, 5, StopWords::default()),
        sketch: SketchKind::Classic,
        seed: 42,
        banding: crate::lsh::Banding { bands: 4, rows: 2 },
        include_binary: false,
    }
}

/// The warnings of one lookup, as (path, reason).
#[derive(Default)]
struct Warnings(Mutex<Vec<(PathBuf, String)>>);

impl Reporter for Warnings {
    fn warn(&self, path: &Path, reason: &dyn Display) {
        self.0
            .lock()
            .unwrap()
            .push((path.to_owned(), reason.to_string()));
    }
}

impl Warnings {
    fn take(&self) -> Vec<(PathBuf, String)> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

/// 300 words of 3–9 letters (xorshift, seeded), as one line.
fn text(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let words: Vec<String> = (0..300)
        .map(|_| {
            (0..3 + next() % 7)
                .map(|_| char::from(b'a' + (next() % 26) as u8))
                .collect()
        })
        .collect();
    words.join(" ")
}

/// An index at `db` of the files `names` (each written with its text first).
fn index_of(dir: &Path, db: &Path, files: &[(&str, &str)]) -> Vec<PathBuf> {
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    let recipe = recipe();
    let mut index = Index::open_or_create(db, &Params::of(&recipe), opts()).unwrap();
    let add = paths.iter().map(|p| NewDoc::File(p)).collect();
    let added = add_and_remove(
        &mut index,
        &recipe,
        &ReadOptions::default(),
        add,
        &[],
        &Silent,
    )
    .unwrap();
    assert_eq!(added.errors, 0);
    paths
}

fn identity(path: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::metadata(path).unwrap();
    Some((meta.dev(), meta.ino()))
}

/// Matched paths with their similarity and shared count.
type Matched = Vec<(PathBuf, f64, Option<usize>)>;

/// The matches, the unverified count and the query's shingle count of one
/// lookup (a fresh [`Query`]: it caches what it read).
fn ask(
    index: &Index,
    bytes: &[u8],
    identity: Option<(u64, u64)>,
    exact: bool,
    warnings: &Warnings,
) -> (Matched, u64, usize) {
    let options = QueryOptions {
        threshold: 0.5,
        top: None,
        verification: Verification::Exact,
        exact,
    };
    let mut query = Query::new(index).unwrap();
    match query
        .ask_file(
            crate::source::Document::from_bytes(bytes.to_vec()),
            identity,
            &options,
            warnings,
        )
        .unwrap()
    {
        Answer::Matches {
            shingles,
            matches,
            unverified,
            ..
        } => (
            matches
                .into_iter()
                .map(|m| (m.doc.path, m.similarity, m.shared))
                .collect(),
            unverified,
            shingles,
        ),
        other => panic!("{other:?}"),
    }
}

/// The query's own indexed file is known by its device and inode and the
/// hash of the bytes read from it: its match (similarity 1, every shingle
/// shared) needs no read of it, so it stands even once the file is gone;
/// given without its identity, the same bytes make the lookup read the file,
/// find it gone and name it. Both for the LSH lookup and the exact one.
#[test]
fn the_query_s_own_file_is_not_read_again_and_without_its_identity_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let a = text(1);
    let paths = index_of(dir.path(), &db, &[("a.txt", &a)]);
    let own = identity(&paths[0]);
    std::fs::remove_file(&paths[0]).unwrap();
    let index = Index::open_existing(&db, opts()).unwrap();
    for exact in [false, true] {
        let warnings = Warnings::default();
        let (matches, unverified, shingles) = ask(&index, a.as_bytes(), own, exact, &warnings);
        assert_eq!(unverified, 0, "exact {exact}");
        assert_eq!(warnings.take(), [], "exact {exact}");
        assert_eq!(
            matches,
            [(paths[0].clone(), 1.0, Some(shingles))],
            "exact {exact}"
        );

        let (matches, unverified, _) = ask(&index, a.as_bytes(), None, exact, &warnings);
        assert_eq!((matches, unverified), (vec![], 1), "exact {exact}");
        let warned = warnings.take();
        assert_eq!(warned.len(), 1, "exact {exact}: {warned:?}");
        assert_eq!(warned[0].0, paths[0], "exact {exact}");
    }
}

/// The query's own file changed in place since it was indexed (same device
/// and inode, new bytes): the bytes read now are not the indexed ones, so
/// the file is read, found changed and named, as any candidate would be;
/// another file with the query's new content is read and matches.
#[test]
fn the_query_s_own_file_changed_since_indexing_is_read_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let a = text(2);
    // One word changed: a near copy, a candidate of a's query.
    let edited = a.replacen(' ', " zzzzzz ", 1);
    let paths = index_of(dir.path(), &db, &[("a.txt", &a), ("b.txt", &edited)]);
    let own = identity(&paths[0]);
    std::fs::write(&paths[0], &edited).unwrap();
    assert_eq!(identity(&paths[0]), own);
    let index = Index::open_existing(&db, opts()).unwrap();
    for exact in [false, true] {
        let warnings = Warnings::default();
        let (matches, unverified, shingles) = ask(&index, edited.as_bytes(), own, exact, &warnings);
        assert_eq!(unverified, 1, "exact {exact}");
        let warned = warnings.take();
        assert_eq!(warned.len(), 1, "exact {exact}: {warned:?}");
        assert_eq!(warned[0].0, paths[0], "exact {exact}");
        assert!(
            warned[0].1.contains("changed since it was indexed"),
            "exact {exact}: {warned:?}"
        );
        assert_eq!(
            matches,
            [(paths[1].clone(), 1.0, Some(shingles))],
            "exact {exact}"
        );
    }
}
