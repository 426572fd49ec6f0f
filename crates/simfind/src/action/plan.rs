//! From a scan's decisions to a list of actions: for each removable file, the
//! file it is a copy of, where it goes (for a move), and the fingerprints of
//! both, against which [`super::apply`] re-checks them.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
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
    /// Why the keep policy kept the other file rather than this one, in
    /// words (`oldest`, `no copy marker`, …; see
    /// [`crate::cluster::KeepPolicy::reason`]).
    pub kept_because: Option<&'static str>,
    /// How much of it the kept copy lacks, when measured
    /// ([`crate::pipeline::unique`]).
    pub only_in: Option<crate::cluster::removal::OnlyIn>,
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
    /// The kept copy's device and inode when planned: a kept copy replaced
    /// by another file with the same bytes and times is still not the copy
    /// that was checked. `None` when not known (read back from a journal).
    pub kept_id: Option<(u64, u64)>,
    /// The file's mode and owner when planned, for `undo` to give back to
    /// a copy it re-creates. `None` in journals written before it was kept.
    pub owner: Option<state::Owner>,
    /// Why the kept copy was kept rather than this file, when known.
    pub kept_because: Option<String>,
    /// The share of the file's shingles its kept copy lacks, and the bytes
    /// that stands for, when measured (`only_in_removed` of a plan; `None`
    /// in plans written before it was, and in journals).
    pub only_in: Option<(f64, u64)>,
}

/// A candidate left out, and why.
#[derive(Clone, Debug)]
pub struct Skip {
    pub path: PathBuf,
    pub reason: SkipReason,
}

/// Why a candidate is left out of a plan.
#[derive(Clone, Debug)]
pub enum SkipReason {
    /// Linking replaces byte-identical copies only; this one is similar to
    /// its kept copy (with this similarity, or through its group).
    NearDuplicate {
        kept: PathBuf,
        similarity: Option<f64>,
    },
    NotUnderRoot,
    /// Not where, or not what, the scan saw.
    Unchecked(Arc<Unchecked>),
    /// Its kept copy is not where, or not what, the scan saw.
    KeptCopy {
        kept: PathBuf,
        why: Arc<Unchecked>,
    },
    OwnKeptCopy,
    /// Measured again when a plan was applied, more of its shingles than
    /// `limit` are missing from its kept copy: the plan's cap, or
    /// (`planned`) the smaller figure the plan recorded.
    Unique {
        kept: PathBuf,
        share: f64,
        limit: f64,
        planned: bool,
    },
    /// Its removal figure could not be measured again (why).
    Unmeasured(String),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::NearDuplicate { kept, similarity } => {
                write!(f, "not byte-identical to {} (", kept.display())?;
                match similarity {
                    Some(s) => write!(f, "similarity {s:.3}")?,
                    None => f.write_str("similar through its group")?,
                }
                f.write_str("): linking never replaces a near-duplicate")
            }
            SkipReason::NotUnderRoot => f.write_str("not under any root given"),
            SkipReason::Unchecked(why) => write!(f, "{why}"),
            SkipReason::KeptCopy { kept, why } => {
                write!(f, "its kept copy {} {why}", kept.display())
            }
            SkipReason::OwnKeptCopy => f.write_str("is its own kept copy"),
            SkipReason::Unique {
                kept,
                share,
                limit,
                planned,
            } => write!(
                f,
                "{:.2} % of its text is not in {} when measured again, more than {} {:.2} %",
                share * 100.0,
                kept.display(),
                if *planned {
                    "the plan's figure"
                } else {
                    "the plan's cap"
                },
                limit * 100.0
            ),
            SkipReason::Unmeasured(why) => {
                write!(f, "its removal figure cannot be measured again: {why}")
            }
        }
    }
}

/// The plan: entries in the order of the candidates, and the skipped ones.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub entries: Vec<Entry>,
    pub skipped: Vec<Skip>,
}

impl Plan {
    /// Moves every entry that is not byte-identical to its kept copy to the
    /// skipped ones: `--remove` deletes only files that undo can re-create
    /// (from the kept copy) unless near-duplicates are allowed by name.
    pub fn hold_back_near(&mut self) {
        let (identical, near): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut self.entries)
            .into_iter()
            .partition(|e| e.identical);
        self.entries = identical;
        self.skipped.extend(near.into_iter().map(|e| Skip {
            path: e.path,
            reason: SkipReason::NearDuplicate {
                kept: e.kept,
                similarity: e.similarity,
            },
        }));
    }
}

/// A plan that cannot be made at all.
#[derive(Debug)]
pub enum PlanError {
    /// A scanned root that cannot be resolved.
    Root { root: PathBuf, err: std::io::Error },
    /// A directory with `..` after its existing part.
    Unresolvable { dir: PathBuf },
    /// The destination `to` made for a root under the directory `dir` moved
    /// into would overlap the scanned root `root`.
    Overlap {
        dir: PathBuf,
        to: PathBuf,
        root: PathBuf,
    },
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::Root { root, err } => {
                write!(f, "cannot resolve root {}: {err}", root.display())
            }
            PlanError::Unresolvable { dir } => write!(
                f,
                "cannot resolve {}: use a directory without '..' after its existing part",
                dir.display()
            ),
            PlanError::Overlap { dir, to, root } => write!(
                f,
                "the destination {}: {} would overlap the scanned root {}; choose a directory \
                 outside the roots",
                dir.display(),
                to.display(),
                root.display()
            ),
        }
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
                return Err(PlanError::Unresolvable {
                    dir: dir.to_path_buf(),
                });
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
            r.canonicalize().map_err(|err| PlanError::Root {
                root: r.clone(),
                err,
            })
        })
        .collect::<Result<_, _>>()?;
    let destinations = match action {
        Action::MoveTo(dir) => Some(destination_dirs(dir, &canonical)?),
        _ => None,
    };
    let mut plan = Plan::default();
    // Shared, not copied: a kept copy's refusal holds an I/O error.
    type Kept = Result<(PathBuf, Fingerprint), Arc<Unchecked>>;
    let mut kept_cache: HashMap<PathBuf, Kept> = HashMap::new();
    for c in candidates {
        let skip = |reason: SkipReason| Skip {
            path: c.path.clone(),
            reason,
        };
        if action.needs_identical() && !c.identical {
            plan.skipped.push(skip(SkipReason::NearDuplicate {
                kept: c.kept.clone(),
                similarity: c.similarity,
            }));
            continue;
        }
        let Some((root, rel)) = under_root(&c.path, roots) else {
            plan.skipped.push(skip(SkipReason::NotUnderRoot));
            continue;
        };
        let path = match checked(&c.path, &canonical[root], c.size, c.modified) {
            Ok(x) => x,
            Err(why) => {
                plan.skipped
                    .push(skip(SkipReason::Unchecked(Arc::new(why))));
                continue;
            }
        };
        let kept = kept_cache
            .entry(c.kept.clone())
            .or_insert_with(|| {
                let root = under_root(&c.kept, roots).map(|(i, _)| i);
                match root {
                    None => Err(Unchecked::NotUnderRoot),
                    Some(i) => checked(&c.kept, &canonical[i], c.kept_size, c.kept_modified),
                }
                .map_err(Arc::new)
            })
            .clone();
        let (kept, kept_fingerprint) = match kept {
            Ok(x) => x,
            Err(why) => {
                plan.skipped.push(skip(SkipReason::KeptCopy {
                    kept: c.kept.clone(),
                    why,
                }));
                continue;
            }
        };
        if path.0 == kept {
            plan.skipped.push(skip(SkipReason::OwnKeptCopy));
            continue;
        }
        let kept_id = state::file_id(&kept);
        let owner = state::owner(&path.0);
        plan.entries.push(Entry {
            owner,
            to: destinations.as_ref().map(|d| d[root].join(&rel)),
            path: path.0,
            kept,
            identical: c.identical && path.1.hash == kept_fingerprint.hash,
            similarity: c.similarity,
            fingerprint: path.1,
            kept_id,
            kept_fingerprint,
            kept_because: c.kept_because.map(str::to_string),
            only_in: c.only_in.map(|f| (f.share, f.bytes)),
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

/// Why a file is not acted on: it is not where, or not what, the scan saw.
#[derive(Debug)]
pub enum Unchecked {
    NotUnderRoot,
    Unresolved(std::io::Error),
    Outside { path: PathBuf, root: PathBuf },
    Mismatch(state::Mismatch),
    SizeChanged,
    ModifiedChanged,
}

impl std::fmt::Display for Unchecked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unchecked::NotUnderRoot => f.write_str("is not under any root given"),
            Unchecked::Unresolved(e) => write!(f, "cannot be resolved: {e}"),
            Unchecked::Outside { path, root } => write!(
                f,
                "resolves to {}, outside its root {}",
                path.display(),
                root.display()
            ),
            Unchecked::Mismatch(m) => write!(f, "{m}"),
            Unchecked::SizeChanged => f.write_str("its size changed since the scan"),
            Unchecked::ModifiedChanged => {
                f.write_str("its modification time changed since the scan")
            }
        }
    }
}

/// The absolute path of a file under `root` and its fingerprint, checked
/// against what the scan saw. Refuses symlinks and paths whose directory
/// resolves outside the root.
fn checked(
    path: &Path,
    root: &Path,
    size: u64,
    modified: Option<SystemTime>,
) -> Result<(PathBuf, Fingerprint), Unchecked> {
    let abs = absolute_no_follow(path).map_err(Unchecked::Unresolved)?;
    if !abs.starts_with(root) {
        return Err(Unchecked::Outside {
            path: abs,
            root: root.to_path_buf(),
        });
    }
    let fp = state::fingerprint(&abs).map_err(Unchecked::Mismatch)?;
    if fp.size != size {
        return Err(Unchecked::SizeChanged);
    }
    if let Some(t) = modified
        && state::system_time_ns(t) != fp.mtime_ns
    {
        return Err(Unchecked::ModifiedChanged);
    }
    Ok((abs, fp))
}

/// `DIR/<root name>` for each root (names made unique with `-2`, `-3`, …),
/// refused when it lies inside a scanned root or holds one.
pub(super) fn destination_dirs(dir: &Path, roots: &[PathBuf]) -> Result<Vec<PathBuf>, PlanError> {
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
            return Err(PlanError::Overlap {
                dir: dir.to_path_buf(),
                to: d,
                root: r.clone(),
            });
        }
        out.push(d);
    }
    Ok(out)
}
