//! [`IndexError`]: everything that can go wrong with an index, each with a
//! message that says what to do about it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::ErrorCode;

use super::Params;
use super::schema::FORMAT_VERSION;

/// Everything that can go wrong with an index, each with a message that says what
/// to do about it.
#[derive(Debug)]
pub enum IndexError {
    /// The file is not a usable simfind index: not SQLite, truncated, corrupt, or
    /// another application's database.
    NotAnIndex { path: PathBuf, reason: String },
    /// No index exists at the path (for opening without creating).
    Missing { path: PathBuf },
    /// The index was written in another format version.
    FormatVersion { path: PathBuf, found: i64 },
    /// The index was built with other parameters.
    ParamsMismatch {
        path: PathBuf,
        stored: Box<Params>,
        requested: Box<Params>,
    },
    /// The index holds items of another kind than those given
    /// ([`super::ItemKind`]): `stored` its kind and recipe in words.
    KindMismatch {
        path: PathBuf,
        stored: String,
        given: super::ItemKind,
    },
    /// Another process holds the write lock and did not release it in time.
    Busy { path: PathBuf, waited: Duration },
    /// A caller-side inconsistency: wrong signature length, adding a path that is
    /// already indexed, changing or removing one that is not.
    Invalid { path: PathBuf, reason: String },
    /// An update that would empty the index, or most of it, refused before
    /// anything changed ([`super::guard`]).
    Refused {
        path: PathBuf,
        refusal: super::guard::Refusal,
    },
    /// Any other SQLite or I/O failure (disk full, permission denied, …).
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
}

/// What a user can do about an [`IndexError`]: the end of its message,
/// which a front end may word with its own commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy<'a> {
    /// Delete the index at the path and build it again.
    Rebuild(&'a Path),
    /// Build an index at the path.
    Build(&'a Path),
}

impl fmt::Display for Remedy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Remedy::Rebuild(path) => {
                write!(f, "delete {} and rebuild the index", path.display())
            }
            Remedy::Build(path) => {
                write!(
                    f,
                    "build one by indexing the directories into {}",
                    path.display()
                )
            }
        }
    }
}

impl IndexError {
    /// What to do about it, when the message ends with that.
    pub fn remedy(&self) -> Option<Remedy<'_>> {
        match self {
            IndexError::NotAnIndex { path, .. }
            | IndexError::FormatVersion { path, .. }
            | IndexError::ParamsMismatch { path, .. } => Some(Remedy::Rebuild(path)),
            IndexError::Missing { path } => Some(Remedy::Build(path)),
            _ => None,
        }
    }

    /// The message up to its [`Remedy`] (all of it when there is none);
    /// `Display` writes this, then the remedy.
    pub fn write_problem(&self, f: &mut impl fmt::Write) -> fmt::Result {
        match self {
            IndexError::NotAnIndex { path, reason } => write!(
                f,
                "{} is not a usable simfind index ({reason}); if it is a damaged index, ",
                path.display(),
            ),
            IndexError::Missing { path } => write!(f, "no index at {}; ", path.display()),
            IndexError::FormatVersion { path, found } => {
                let age = if *found < i64::from(FORMAT_VERSION) {
                    "an older"
                } else {
                    "a newer"
                };
                write!(
                    f,
                    "index {} was written by {age} simfind (format version {found}; this simfind \
                     reads version {FORMAT_VERSION}); ",
                    path.display(),
                )
            }
            IndexError::ParamsMismatch {
                path,
                stored,
                requested,
            } => {
                let diffs: Vec<String> = stored
                    .differences(requested)
                    .into_iter()
                    .map(|(name, s, r)| {
                        if name == "stop_words" {
                            format!("{name}: the index has another list")
                        } else {
                            format!("{name}: index has {s}, this run asks for {r}")
                        }
                    })
                    .collect();
                write!(
                    f,
                    "index {} was built with other parameters ({}); its signatures cannot be \
                     compared with this run's. Either run with the index's parameters ({stored}), \
                     or ",
                    path.display(),
                    diffs.join("; "),
                )
            }
            IndexError::Busy { path, waited } => write!(
                f,
                "index {} is locked by another simfind process that is updating it (waited {:.1} s); \
                 try again when it has finished",
                path.display(),
                waited.as_secs_f64()
            ),
            IndexError::KindMismatch {
                path,
                stored,
                given,
            } => write!(
                f,
                "the index {} holds {stored}; these items are {given}: an index holds one \
                 kind of item, so give {given} an index of their own",
                path.display()
            ),
            IndexError::Invalid { path, reason } => {
                write!(f, "invalid update to index {}: {reason}", path.display())
            }
            IndexError::Sqlite { path, source } => {
                write!(f, "index {}: {source}", path.display())
            }
            IndexError::Refused { path, refusal } => write!(
                f,
                "index {}: update refused, nothing was changed: {refusal}",
                path.display()
            ),
        }
    }
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_problem(f)?;
        match self.remedy() {
            Some(remedy) => write!(f, "{remedy}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for IndexError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // None for `Sqlite` too: its message already carries SQLite's (which
        // itself ends in SQLite's own source), and a user's error line
        // prints the chain after the message: three copies of one reason.
        None
    }
}

/// Turns a SQLite error into the [`IndexError`] a user can act on.
pub(super) fn classify(path: &Path, err: rusqlite::Error, waited: Duration) -> IndexError {
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => IndexError::NotAnIndex {
            path: path.to_owned(),
            reason: "not an SQLite database".into(),
        },
        Some(ErrorCode::DatabaseCorrupt) => IndexError::NotAnIndex {
            path: path.to_owned(),
            reason: format!("the database is corrupt: {err}"),
        },
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => IndexError::Busy {
            path: path.to_owned(),
            waited,
        },
        _ => IndexError::Sqlite {
            path: path.to_owned(),
            source: err,
        },
    }
}
