//! From a scan's decisions to a list of actions: for each removable file, the
//! file it is a copy of, where it goes (for a move), and the fingerprints of
//! both, against which [`super::apply`] re-checks them.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use super::Action;
use super::state::{self, Fingerprint};

/// One removable file as the scan saw it, and the copy it keeps.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The path as walked (a root as given + the relative path).
    pub path: PathBuf,
    pub size: u64,
    pub modified: Option<SystemTime>,
    /// The kept copy of its group.
    pub kept: PathBuf,
    pub kept_size: u64,
    pub kept_modified: Option<SystemTime>,
    /// The scan found the two byte-identical (same content hash).
    pub identical: bool,
    /// Similarity to the kept copy, when the scan measured it.
    pub similarity: Option<f64>,
}

/// One action to take.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Absolute: the canonical directory + the file name.
    pub path: PathBuf,
    pub kept: PathBuf,
    /// Destination of a move.
    pub to: Option<PathBuf>,
    pub identical: bool,
    pub similarity: Option<f64>,
    pub fingerprint: Fingerprint,
    pub kept_fingerprint: Fingerprint,
}

/// A candidate left out, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Skip {
    pub path: PathBuf,
    pub reason: String,
}

/// The plan: entries in the order of the candidates, and the skipped ones.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub entries: Vec<Entry>,
    pub skipped: Vec<Skip>,
}

/// A plan that cannot be made at all.
#[derive(Debug)]
pub struct PlanError(pub String);

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlanError {}

/// Resolves `path` to an absolute path without following its last component:
/// its directory canonicalized, then its name.
pub fn absolute_no_follow(path: &Path) -> std::io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file name"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Ok(dir.canonicalize()?.join(name))
}

/// An absolute form of a directory that may not exist yet: its longest
/// existing ancestor canonicalized, then the rest (no `..` allowed there).
pub fn absolute_dir(dir: &Path) -> Result<PathBuf, PlanError> {
    let mut existing = dir.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return Ok(out);
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                existing = if parent.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    parent.to_path_buf()
                };
            }
            _ => {
                return Err(PlanError(format!(
                    "cannot resolve {}: use a directory without '..' after its existing part",
                    dir.display()
                )));
            }
        }
    }
}

/// Builds the plan. `roots` are the scanned roots as given; every candidate
/// must lie under one of them. Fingerprints every file involved (reading
/// it), and leaves out files that changed since the scan, that lie outside
/// the roots or are symlinks, and (for links) near-duplicates.
pub fn build(
    roots: &[PathBuf],
    action: &Action,
    candidates: &[Candidate],
) -> Result<Plan, PlanError> {
    let canonical: Vec<PathBuf> = roots
        .iter()
        .map(|r| {
            r.canonicalize()
                .map_err(|e| PlanError(format!("cannot resolve root {}: {e}", r.display())))
        })
        .collect::<Result<_, _>>()?;
    let destinations = match action {
        Action::MoveTo(dir) => Some(destination_dirs(dir, &canonical)?),
        _ => None,
    };
    let mut plan = Plan::default();
    let mut kept_cache: HashMap<PathBuf, Result<(PathBuf, Fingerprint), String>> = HashMap::new();
    for c in candidates {
        let skip = |reason: String| Skip {
            path: c.path.clone(),
            reason,
        };
        if action.needs_identical() && !c.identical {
            plan.skipped.push(skip(format!(
                "not byte-identical to {} ({}): --link and --reflink never replace a near-duplicate",
                c.kept.display(),
                match c.similarity {
                    Some(s) => format!("similarity {s:.3}"),
                    None => "similar through its group".to_string(),
                }
            )));
            continue;
        }
        let Some((root, rel)) = under_root(&c.path, roots) else {
            plan.skipped
                .push(skip("not under any root given".to_string()));
            continue;
        };
        let path = match checked(&c.path, &canonical[root], c.size, c.modified) {
            Ok(x) => x,
            Err(reason) => {
                plan.skipped.push(skip(reason));
                continue;
            }
        };
        let kept = kept_cache
            .entry(c.kept.clone())
            .or_insert_with(|| {
                let root = under_root(&c.kept, roots).map(|(i, _)| i);
                match root {
                    None => Err("is not under any root given".to_string()),
                    Some(i) => checked(&c.kept, &canonical[i], c.kept_size, c.kept_modified),
                }
            })
            .clone();
        let (kept, kept_fingerprint) = match kept {
            Ok(x) => x,
            Err(reason) => {
                plan.skipped
                    .push(skip(format!("its kept copy {} {reason}", c.kept.display())));
                continue;
            }
        };
        if path.0 == kept {
            plan.skipped.push(skip("is its own kept copy".to_string()));
            continue;
        }
        plan.entries.push(Entry {
            to: destinations.as_ref().map(|d| d[root].join(&rel)),
            path: path.0,
            kept,
            identical: c.identical && path.1.hash == kept_fingerprint.hash,
            similarity: c.similarity,
            fingerprint: path.1,
            kept_fingerprint,
        });
    }
    Ok(plan)
}

/// The root `path` lies under (the longest one), and the path relative to it.
/// Lexical: paths come from the walk as root + relative path.
fn under_root(path: &Path, roots: &[PathBuf]) -> Option<(usize, PathBuf)> {
    roots
        .iter()
        .enumerate()
        .filter_map(|(i, r)| path.strip_prefix(r).ok().map(|rel| (i, rel)))
        .filter(|(_, rel)| {
            rel.components().next().is_some()
                && rel.components().all(|c| matches!(c, Component::Normal(_)))
        })
        .max_by_key(|(i, _)| roots[*i].components().count())
        .map(|(i, rel)| (i, rel.to_path_buf()))
}

/// The absolute path of a file under `root` and its fingerprint, checked
/// against what the scan saw. Refuses symlinks and paths whose directory
/// resolves outside the root.
fn checked(
    path: &Path,
    root: &Path,
    size: u64,
    modified: Option<SystemTime>,
) -> Result<(PathBuf, Fingerprint), String> {
    let abs = absolute_no_follow(path).map_err(|e| format!("cannot be resolved: {e}"))?;
    if !abs.starts_with(root) {
        return Err(format!(
            "resolves to {}, outside its root {}",
            abs.display(),
            root.display()
        ));
    }
    let fp = state::fingerprint(&abs).map_err(|m| m.to_string())?;
    if fp.size != size {
        return Err("its size changed since the scan".to_string());
    }
    if let Some(t) = modified
        && state::system_time_ns(t) != fp.mtime_ns
    {
        return Err("its modification time changed since the scan".to_string());
    }
    Ok((abs, fp))
}

/// `DIR/<root name>` for each root (names made unique with `-2`, `-3`, …),
/// refused when it lies inside a scanned root or holds one.
fn destination_dirs(dir: &Path, roots: &[PathBuf]) -> Result<Vec<PathBuf>, PlanError> {
    let base = absolute_dir(dir)?;
    let mut taken: HashMap<std::ffi::OsString, usize> = HashMap::new();
    let mut out = Vec::new();
    for root in roots {
        let name = root
            .file_name()
            .map(|n| n.to_owned())
            .unwrap_or_else(|| "root".into());
        let count = taken.entry(name.clone()).or_insert(0);
        *count += 1;
        let mut label = name;
        if *count > 1 {
            label.push(format!("-{count}"));
        }
        let d = base.join(label);
        if let Some(r) = roots.iter().find(|r| d.starts_with(r) || r.starts_with(&d)) {
            return Err(PlanError(format!(
                "--move-to {}: {} would overlap the scanned root {}; choose a directory outside the roots",
                dir.display(),
                d.display(),
                r.display()
            )));
        }
        out.push(d);
    }
    Ok(out)
}
