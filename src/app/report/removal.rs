//! The removal decisions of a scan's groups: which files lie under a
//! `--reference` directory and the facts the keep policy weighs, which
//! files are removable, each with its kept copy and why that one was kept
//! (what `dedupe` acts on and a plan lists), and the files held back because
//! their kept copy lacks too much of their text (#36, point 2), with the
//! words that name them.

use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use simfind::action::plan::Candidate;
use simfind::cluster::{self, ClusterParams, Clustering, FileFacts};
use simfind::model::Document;
use simfind::pipeline::{DocStatus, ScanConfig, ScanOutcome};

use crate::app::speak::percent;
use crate::app::ui::plural;

/// The removable files of the grouping `params` makes of `outcome`'s pairs,
/// each with its kept copy and why that one was kept: what `dedupe` acts on
/// and a plan lists. With `unique` (a file scan's config and the cap), each
/// is measured against its kept copy and those over the cap are held back
/// (left out, and returned as the lines that name them).
pub fn candidates(
    outcome: &ScanOutcome,
    references: &[PathBuf],
    params: &ClusterParams,
    unique: Option<(&ScanConfig, f64)>,
) -> (Vec<Candidate>, Vec<String>) {
    let docs = &outcome.documents;
    let pairs = &outcome.pairs;
    let reference = reference_flags(outcome, references);
    let members = file_facts(docs, &reference);
    let mut clustering = cluster::cluster_contents(&members, pairs, params);
    let held = match unique {
        Some((config, cap)) => hold_back(&mut clustering, outcome, config, cap),
        None => Vec::new(),
    };
    (removable(&clustering, outcome, &members, params), held)
}

/// The removable files of `clustering` (made of `outcome`'s pairs, its
/// files measured or not), each with its kept copy and why that one was
/// kept.
pub fn removable(
    clustering: &Clustering,
    outcome: &ScanOutcome,
    members: &[FileFacts<'_>],
    params: &ClusterParams,
) -> Vec<Candidate> {
    let (docs, pairs) = (&outcome.documents, &outcome.pairs);
    let mut out = Vec::new();
    for group in clustering.groups() {
        let rep = group[0].doc;
        for m in group.iter().filter(|m| !m.kept) {
            let (d, k) = (&docs[m.doc as usize], &docs[rep as usize]);
            out.push(Candidate {
                path: d.path.to_path_buf(),
                size: d.size,
                modified: d.modified,
                kept: k.path.to_path_buf(),
                kept_size: k.size,
                kept_modified: k.modified,
                identical: pairs.same_content(m.doc, rep),
                similarity: m.similarity,
                kept_because: Some(params.keep.reason(
                    (rep, &members[rep as usize]),
                    (m.doc, &members[m.doc as usize]),
                )),
                only_in: clustering.only_in(m.doc).flatten(),
            });
        }
    }
    out
}

/// Measures each removable member of `clustering` against its kept copy
/// ([`simfind::pipeline::unique`]) and holds back those whose kept copy
/// lacks more than `cap` of them, or that could not be read again. Returns
/// one line for each held back, for stderr.
pub fn hold_back(
    clustering: &mut Clustering,
    outcome: &ScanOutcome,
    config: &ScanConfig,
    cap: f64,
) -> Vec<String> {
    let measured = simfind::pipeline::measure_unique(clustering, outcome, config);
    let mut lines = Vec::new();
    let mut figures = Vec::with_capacity(measured.len());
    for m in measured {
        match m.only_in {
            Ok(f) => figures.push((m.doc, Some(f))),
            Err(why) => {
                lines.push(format!(
                    "{} {why}: held back: cannot measure how much of {} its kept copy lacks",
                    crate::app::ui::warning_prefix(),
                    outcome.documents[m.doc as usize].path.display()
                ));
                figures.push((m.doc, None));
            }
        }
    }
    for held in clustering.hold_back(figures, cap) {
        if let Some(f) = held.only_in {
            lines.push(format!(
                "{HELD_BACK}{} has {} text not in {} (more than --max-unique {cap})",
                outcome.documents[held.doc as usize].path.display(),
                percent(f.share),
                outcome.documents[held.representative as usize]
                    .path
                    .display(),
            ));
        }
    }
    lines
}

/// Whether a line of [`hold_back`] names a file held back for its figure
/// (quiet under `-q`), rather than warning of one that could not be read.
pub fn is_held_back_note(line: &str) -> bool {
    line.starts_with(HELD_BACK)
}

const HELD_BACK: &str = "simfind: held back: ";

/// What the summary line adds for `n` files held back: nothing when none.
pub fn held_back_note(n: usize) -> String {
    if n == 0 {
        return String::new();
    }
    format!(
        "; {} held back (more than --max-unique of the text not in the kept copy)",
        plural(n as u64, "file", "files")
    )
}

/// Canonical `--reference` directories; those outside every root are added
/// to the roots, so that their files are scanned.
pub fn resolve_references(dirs: &[PathBuf], roots: &mut Vec<PathBuf>) -> Result<Vec<PathBuf>> {
    if dirs.is_empty() {
        return Ok(Vec::new());
    }
    let canonical_roots: Vec<PathBuf> = roots
        .iter()
        .map(|r| {
            r.canonicalize()
                .with_context(|| format!("cannot scan {}", r.display()))
        })
        .collect::<Result<_>>()?;
    let mut references = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let canonical = dir
            .canonicalize()
            .with_context(|| format!("cannot use --reference {}", dir.display()))?;
        if !canonical.is_dir() {
            bail!("cannot use --reference {}: not a directory", dir.display());
        }
        if !canonical_roots.iter().any(|r| canonical.starts_with(r)) {
            roots.push(dir.clone());
        }
        references.push(canonical);
    }
    Ok(references)
}

/// Which documents lie under a `--reference` directory (`references`,
/// canonical), for the documents of contents that have pairs; a directory that
/// cannot be resolved counts as under one (its files are kept), with a warning.
pub fn reference_flags(outcome: &ScanOutcome, references: &[PathBuf]) -> Vec<bool> {
    let mut flags = vec![false; outcome.documents.len()];
    if references.is_empty() {
        return flags;
    }
    let mut dirs: HashMap<&Path, bool> = HashMap::new();
    let pairs = &outcome.pairs;
    for c in (0..pairs.contents() as u32).filter(|&c| pairs.has_pairs(c)) {
        for &id in pairs.members(c) {
            let doc = &outcome.documents[id as usize];
            if doc.status != DocStatus::Read {
                continue;
            }
            let dir = doc.path.parent().unwrap_or(Path::new("."));
            let under = *dirs.entry(dir).or_insert_with(|| match dir.canonicalize() {
                Ok(c) => references.iter().any(|r| c.starts_with(r)),
                // Cannot tell: keep the files rather than risk listing a
                // reference file as removable.
                Err(err) => {
                    eprintln!(
                        "{} {}: cannot resolve ({err}); its files are kept as if under --reference",
                        crate::app::ui::warning_prefix(),
                        dir.display()
                    );
                    true
                }
            });
            flags[id as usize] = under;
        }
    }
    flags
}

/// The facts clustering needs of each document, with its reference flag.
pub fn file_facts<'a>(docs: &'a [Document], reference: &[bool]) -> Vec<FileFacts<'a>> {
    docs.iter()
        .zip(reference)
        .map(|(d, &reference)| FileFacts {
            path: d.path.as_os_str().as_bytes(),
            size: d.size,
            modified: d.modified,
            reference,
        })
        .collect()
}
