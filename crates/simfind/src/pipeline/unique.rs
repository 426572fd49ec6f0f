//! How much of each removable file its kept copy lacks: the removal figure
//! `only_in_removed` = 1 − C(removed, kept) of [`OnlyIn`], measured on the
//! two files' shingle sets as the scan's recipe makes them.
//!
//! Role: after grouping, before anything is written or acted on. The scan
//! keeps no shingle set, so each removable file and its kept copy are read
//! again ([`FileReload::set_as_now`], opened as exact verification opens
//! them) — only for the pairs that are removal decisions, one per removable
//! file, the kept copy once per group. A byte-identical copy is 0 by
//! definition and nothing is read for it.
//!
//! Inputs: a [`Clustering`] of a file scan, its [`ScanOutcome`] and
//! [`ScanConfig`]. Output: each removable member's figure, or why it could
//! not be had; [`Clustering::hold_back`] applies the cap. Parallel over
//! groups; no printing.

use rayon::prelude::*;

use std::path::PathBuf;
use std::sync::Arc;

use super::{FileReload, ReloadError, ScanConfig, ScanOutcome};
use crate::cluster::removal::OnlyIn;
use crate::cluster::{Clustering, DocId};

/// The figure of one removable member against its group's kept copy.
#[derive(Debug)]
pub struct Measured {
    pub doc: DocId,
    pub kept: DocId,
    /// The figure, or why one of the two could not be read again.
    pub only_in: Result<OnlyIn, Unmeasured>,
}

/// A figure that could not be had: the file that could not be read again
/// (the removable member, or its group's kept copy) and why.
#[derive(Clone, Debug)]
pub struct Unmeasured {
    pub path: PathBuf,
    pub kept_copy: bool,
    pub why: Arc<ReloadError>,
}

impl std::fmt::Display for Unmeasured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.kept_copy {
            f.write_str("its kept copy ")?;
        }
        write!(f, "{}: {}", self.path.display(), self.why)
    }
}

impl std::error::Error for Unmeasured {}

/// Measures every removable member of `clustering` against its kept copy,
/// in output order.
pub fn measure(
    clustering: &Clustering,
    outcome: &ScanOutcome,
    config: &ScanConfig,
) -> Vec<Measured> {
    let reload = FileReload::new(config);
    let groups: Vec<Vec<(DocId, DocId)>> = clustering
        .groups()
        .map(|group| {
            let rep = group[0].doc;
            group
                .iter()
                .filter(|m| !m.kept)
                .map(|m| (m.doc, rep))
                .collect()
        })
        .filter(|pairs: &Vec<_>| !pairs.is_empty())
        .collect();
    groups
        .par_iter()
        .flat_map_iter(|pairs| {
            let mut kept_set: Option<Result<Vec<u64>, Unmeasured>> = None;
            let mut out = Vec::with_capacity(pairs.len());
            for &(doc, kept) in pairs {
                if outcome.pairs.same_content(doc, kept) {
                    out.push(Measured {
                        doc,
                        kept,
                        only_in: Ok(OnlyIn::IDENTICAL),
                    });
                    continue;
                }
                let kept_doc = &outcome.documents[kept as usize];
                let kept_set = kept_set.get_or_insert_with(|| {
                    reload.set_as_now(&kept_doc.path).map_err(|err| Unmeasured {
                        path: kept_doc.path.to_path_buf(),
                        kept_copy: true,
                        why: Arc::new(err),
                    })
                });
                let d = &outcome.documents[doc as usize];
                let only_in = match kept_set {
                    Ok(kept_set) => reload
                        .set_as_now(&d.path)
                        .map(|set| OnlyIn::of_sets(&set, kept_set, d.size))
                        .map_err(|err| Unmeasured {
                            path: d.path.to_path_buf(),
                            kept_copy: false,
                            why: Arc::new(err),
                        }),
                    Err(why) => Err(why.clone()),
                };
                out.push(Measured { doc, kept, only_in });
            }
            out
        })
        .collect()
}
