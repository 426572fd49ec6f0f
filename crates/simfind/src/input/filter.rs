//! What the walk leaves out besides file types and sizes: ignore files
//! (`.gitignore`, `.ignore`, `.simfindignore`) and `--exclude` globs.
//!
//! Ignore files follow ripgrep and fd, through the `ignore` crate's gitignore
//! matcher (the same code they use): every directory's files apply to what is
//! below it, a deeper directory's rules win over a shallower one's, and in one
//! directory `.simfindignore` wins over `.ignore`, which wins over
//! `.gitignore` (later rules win, so `!keep.txt` re-includes). `.gitignore` is
//! honoured only inside a git repository (a `.git` in the directory or above
//! it), as ripgrep and fd do: in a file share that is not a repository a
//! stray `.gitignore` means nothing. Only ignore files under the roots are
//! read (never a parent's, nor git's global excludes): nothing outside the
//! roots is read; only `.git` is looked up (not read) above a root.
//!
//! `--exclude` globs match the path relative to its root or the file name; a
//! glob that ends in `/` matches directories only (gitignore's spelling of
//! `target/`), which prunes them.

use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The ignore files read in each directory, weakest first.
pub(crate) const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".simfindignore"];

/// `--exclude` globs, each remembering whether it matched anything.
#[derive(Clone, Debug)]
pub struct Excludes {
    set: GlobSet,
    patterns: Vec<String>,
    /// The pattern ended in `/`: it matches directories only.
    dir_only: Vec<bool>,
}

/// Why exclusion patterns do not compile.
#[derive(Debug)]
pub enum ExcludeError {
    /// One pattern is no glob.
    Pattern {
        pattern: String,
        err: globset::Error,
    },
    /// The set of them cannot be built.
    Set(globset::Error),
}

impl fmt::Display for ExcludeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExcludeError::Pattern { pattern, err } => {
                write!(f, "invalid exclude pattern '{pattern}': {err}")
            }
            ExcludeError::Set(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for ExcludeError {}

impl Excludes {
    /// Compiles `patterns` (`literal_separator(false)`: `*` crosses `/`, as
    /// the globs always have); `Err` names the bad pattern.
    pub fn new(patterns: &[String]) -> Result<Option<Self>, ExcludeError> {
        if patterns.is_empty() {
            return Ok(None);
        }
        let mut set = GlobSetBuilder::new();
        let mut dir_only = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            let trimmed = pattern.trim_end_matches('/');
            let is_dir = trimmed.len() < pattern.len() && !trimmed.is_empty();
            let glob = GlobBuilder::new(if is_dir { trimmed } else { pattern })
                .literal_separator(false)
                .build()
                .map_err(|err| ExcludeError::Pattern {
                    pattern: pattern.clone(),
                    err,
                })?;
            set.add(glob);
            dir_only.push(is_dir);
        }
        Ok(Some(Excludes {
            set: set.build().map_err(ExcludeError::Set)?,
            patterns: patterns.to_vec(),
            dir_only,
        }))
    }

    /// Which pattern excludes `rel` (relative to its root), if any; marks it used.
    pub(crate) fn matched(&self, rel: &Path, is_dir: bool, used: &mut [bool]) -> bool {
        let name = rel.file_name().map(Path::new);
        if !(self.set.is_match(rel) || name.is_some_and(|n| self.set.is_match(n))) {
            return false;
        }
        let mut hit = false;
        let mut mark = |indices: Vec<usize>| {
            for i in indices {
                if is_dir || !self.dir_only[i] {
                    used[i] = true;
                    hit = true;
                }
            }
        };
        mark(self.set.matches(rel));
        if let Some(name) = name {
            mark(self.set.matches(name));
        }
        hit
    }

    /// How many patterns there are.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Never true: [`Excludes::new`] returns `None` for no patterns.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The patterns not marked in `used`.
    pub(crate) fn unused(&self, used: &[bool]) -> Vec<String> {
        self.patterns
            .iter()
            .zip(used)
            .filter(|(_, used)| !**used)
            .map(|(p, _)| p.clone())
            .collect()
    }
}

/// The ignore rules in force at one point of a depth-first walk: one matcher
/// per directory on the current path that has ignore files.
#[derive(Default)]
pub(crate) struct IgnoreStack {
    /// (depth of the directory, its matcher or none, inside a git repository).
    levels: Vec<(usize, Option<Gitignore>, bool)>,
}

/// Why a directory's ignore files could not all be used.
pub(crate) struct IgnoreProblem {
    pub path: PathBuf,
    pub reason: String,
}

impl IgnoreStack {
    /// The stack for a walk from `root`: whether it is in a git repository
    /// (`.git` in it or an ancestor, looked up, not read).
    pub(crate) fn for_root(root: &Path) -> Self {
        let in_git = std::fs::canonicalize(root)
            .ok()
            .is_some_and(|abs| abs.ancestors().skip(1).any(|dir| dir.join(".git").exists()));
        IgnoreStack {
            levels: vec![(usize::MAX, None, in_git)],
        }
    }

    /// Drops the levels of directories the walk has left: an entry at `depth`
    /// is under the directories at smaller depths only.
    fn pop_to(&mut self, depth: usize) {
        while self
            .levels
            .last()
            .is_some_and(|(d, _, _)| *d != usize::MAX && *d >= depth)
        {
            self.levels.pop();
        }
    }

    /// Whether `path` (at `depth` > 0) is ignored by the rules above it.
    pub(crate) fn ignored(&mut self, path: &Path, depth: usize, is_dir: bool) -> bool {
        self.pop_to(depth);
        for (_, matcher, _) in self.levels.iter().rev() {
            if let Some(gi) = matcher {
                let m = gi.matched(path, is_dir);
                if m.is_ignore() {
                    return true;
                }
                if m.is_whitelist() {
                    return false;
                }
            }
        }
        false
    }

    /// Enters directory `dir` at `depth`: reads its ignore files (regular
    /// files only; a link only when links are followed).
    pub(crate) fn enter(
        &mut self,
        dir: &Path,
        depth: usize,
        follow_links: bool,
        problems: &mut Vec<IgnoreProblem>,
    ) {
        self.pop_to(depth);
        let parent_git = self.levels.last().is_some_and(|(_, _, git)| *git);
        let in_git = parent_git || dir.join(".git").exists();
        let mut builder = GitignoreBuilder::new(dir);
        let mut any = false;
        for name in IGNORE_FILES {
            if name == ".gitignore" && !in_git {
                continue;
            }
            let file = dir.join(name);
            let meta = if follow_links {
                std::fs::metadata(&file)
            } else {
                std::fs::symlink_metadata(&file)
            };
            // Not there (the common case), or not a regular file (a FIFO
            // would block the walk; a link may point outside the roots).
            if !meta.is_ok_and(|m| m.is_file()) {
                continue;
            }
            any = true;
            if let Some(err) = builder.add(&file) {
                problems.push(IgnoreProblem {
                    path: file,
                    reason: format!("ignore file partly unused: {err}"),
                });
            }
        }
        let matcher = if any {
            match builder.build() {
                Ok(gi) if !gi.is_empty() => Some(gi),
                Ok(_) => None,
                Err(err) => {
                    problems.push(IgnoreProblem {
                        path: dir.to_path_buf(),
                        reason: format!("ignore files unused: {err}"),
                    });
                    None
                }
            }
        } else {
            None
        };
        if matcher.is_some() || in_git != parent_git {
            self.levels.push((depth, matcher, in_git));
        }
    }
}

/// Whether a name is hidden (starts with `.`).
pub(crate) fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.as_bytes().starts_with(b".")
}
