//! The lock that keeps two runs that change files (`dedupe` acting, `undo`)
//! out of the same tree at the same time.
//!
//! Why: each run re-checks a file's kept copy just before it acts, but
//! between that check and the unlink another run may remove the kept copy
//! (two runs with opposite keep policies each keep what the other removes),
//! and then no copy is left. Serialising the runs over a tree makes the
//! re-check final: under the lock nobody else changes the tree's files.
//!
//! The rule: a run locks a set of trees (its roots, and for a move its
//! destination directory; for an undo the directories its journal touches),
//! each resolved to a canonical absolute path. Two runs exclude each other
//! when a tree of one is the same as, inside, or around a tree of the other
//! (so runs on `a/` and `a/b/` exclude each other; `a/b/` and `a/c/` do not).
//!
//! Where: in a lock directory private to the user (the caller picks it,
//! [`default_dir`] by default), never inside the trees, so read-only trees
//! and nested trees need nothing written in them. Each live run holds an
//! exclusive `flock` on its own holder file there, which names it (pid,
//! start time, command line, trees). The kernel drops a `flock` when its
//! process ends however it ends (kill -9 included), so a holder file whose
//! lock can be taken is stale: it is removed and never blocks. A registry
//! lock on one more file in the directory makes "look at the holders, then
//! register" one step, so two runs starting together cannot both pass.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::journal::{path_value, value_path};

/// The file whose lock is held while the holders are looked at.
const REGISTRY: &str = "registry.lock";
const PREFIX: &str = "run-";
const SUFFIX: &str = ".lock";

/// How often a waiting run looks again.
const POLL: Duration = Duration::from_millis(50);

/// Who holds a lock, as its holder file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
    /// Seconds since the epoch when the holder took the lock.
    pub started: u64,
    /// The holder's command line, as it gave it.
    pub command: String,
    pub trees: Vec<PathBuf>,
}

impl Holder {
    pub fn started_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.started)
    }

    fn to_json(&self) -> Value {
        json!({
            "pid": self.pid,
            "started": self.started,
            "command": self.command,
            "trees": self.trees.iter().map(|t| path_value(t)).collect::<Vec<_>>(),
        })
    }

    fn from_json(v: &Value) -> Option<Holder> {
        Some(Holder {
            pid: u32::try_from(v.get("pid")?.as_u64()?).ok()?,
            started: v.get("started")?.as_u64()?,
            command: v.get("command")?.as_str()?.to_string(),
            trees: v
                .get("trees")?
                .as_array()?
                .iter()
                .map(value_path)
                .collect::<Option<Vec<_>>>()?,
        })
    }
}

/// Why the lock was not taken.
#[derive(Debug)]
pub enum LockError {
    /// A live run holds a tree that overlaps `tree`. `holder` is `None` when
    /// its holder file could not be read (boxed: it is the rare, large case
    /// of a `Result` returned on every lock attempt).
    Busy {
        tree: PathBuf,
        holder: Option<Box<Holder>>,
        file: PathBuf,
        waited: Duration,
    },
    /// The lock directory or a file in it could not be used.
    Io { path: PathBuf, source: io::Error },
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Busy {
                tree,
                holder,
                file,
                waited,
            } => {
                write!(
                    f,
                    "{} is locked by another simfind process that is changing files in it",
                    tree.display()
                )?;
                match holder {
                    Some(h) => write!(
                        f,
                        " (pid {}, started {} s after the epoch: {})",
                        h.pid, h.started, h.command
                    )?,
                    None => write!(f, " (its lock file {} does not say who)", file.display())?,
                }
                write!(
                    f,
                    "; waited {:.1} s; try again when it has finished",
                    waited.as_secs_f64()
                )
            }
            LockError::Io { path, source } => {
                write!(f, "cannot use the lock {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LockError::Io { source, .. } => Some(source),
            LockError::Busy { .. } => None,
        }
    }
}

/// A held lock. Dropping it (at the end of the run, on an error or a panic
/// that unwinds) removes the holder file and releases the lock; a process
/// that dies without dropping it releases the lock with its file descriptor.
#[derive(Debug)]
pub struct TreeLock {
    file: Option<File>,
    path: PathBuf,
}

impl TreeLock {
    /// The holder file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TreeLock {
    fn drop(&mut self) {
        // Removed while still locked: a run that opened it in between finds
        // it unlocked afterwards, takes it for stale and removes nothing
        // (the name is gone), which is right.
        let _ = fs::remove_file(&self.path);
        drop(self.file.take());
    }
}

/// The default lock directory: one per user, in the system's temporary
/// directory under a fixed name, so every run of the user (a shell, cron,
/// another terminal) finds the same one whatever its environment.
pub fn default_dir() -> PathBuf {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    PathBuf::from(format!("/tmp/simfind-{uid}"))
}

/// The trees as the lock compares them: canonical absolute paths (a tree
/// that does not exist yet is made absolute without resolving).
pub fn canonical_trees(trees: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = trees
        .iter()
        .map(|t| {
            fs::canonicalize(t)
                .or_else(|_| std::path::absolute(t))
                .unwrap_or_else(|_| t.clone())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether one of the two trees holds the other (or they are the same).
pub fn overlap(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// Takes the lock on `trees` in `dir` for a run described by `command`,
/// waiting up to `wait` while another run holds an overlapping tree.
pub fn lock(
    dir: &Path,
    trees: &[PathBuf],
    command: &str,
    wait: Duration,
) -> Result<TreeLock, LockError> {
    let trees = canonical_trees(trees);
    prepare_dir(dir)?;
    let start = Instant::now();
    loop {
        match try_lock(dir, &trees, command) {
            Err(LockError::Busy {
                tree, holder, file, ..
            }) => {
                let waited = start.elapsed();
                if waited >= wait {
                    return Err(LockError::Busy {
                        tree,
                        holder,
                        file,
                        waited,
                    });
                }
                std::thread::sleep(POLL.min(wait - waited));
            }
            other => return other,
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> LockError + '_ {
    move |source| LockError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Creates the lock directory (mode 0700) if needed, and refuses one that
/// another user owns or that is not a directory: its holder files decide
/// whether this run may change files.
fn prepare_dir(dir: &Path) -> Result<(), LockError> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
        Err(err) => {
            fs::create_dir_all(dir).map_err(|_| LockError::Io {
                path: dir.to_path_buf(),
                source: err,
            })?;
            let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
        }
    }
    let meta = fs::symlink_metadata(dir).map_err(io_err(dir))?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    if !meta.is_dir() || meta.uid() != uid {
        return Err(LockError::Io {
            path: dir.to_path_buf(),
            source: io::Error::new(
                io::ErrorKind::PermissionDenied,
                "not a directory owned by this user",
            ),
        });
    }
    Ok(())
}

fn open_nofollow(path: &Path, create: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    if create {
        options.write(true).create(true).mode(0o600);
    }
    options.open(path)
}

fn try_lock(dir: &Path, trees: &[PathBuf], command: &str) -> Result<TreeLock, LockError> {
    let registry_path = dir.join(REGISTRY);
    let registry = open_nofollow(&registry_path, true).map_err(io_err(&registry_path))?;
    // Held only while the holders are read and this run registers: short.
    registry.lock().map_err(io_err(&registry_path))?;

    for entry in fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(PREFIX) && name.ends_with(SUFFIX)) {
            continue;
        }
        let path = entry.path();
        let Ok(mut file) = open_nofollow(&path, false) else {
            continue;
        };
        match file.try_lock_shared() {
            Ok(()) => {
                // Its process is gone (the kernel released its lock).
                let _ = fs::remove_file(&path);
                continue;
            }
            Err(fs::TryLockError::WouldBlock) => {}
            Err(fs::TryLockError::Error(err)) => return Err(io_err(&path)(err)),
        }
        let mut text = String::new();
        let holder = file
            .read_to_string(&mut text)
            .ok()
            .and_then(|_| serde_json::from_str::<Value>(&text).ok())
            .and_then(|v| Holder::from_json(&v));
        let clash = match &holder {
            Some(h) => trees.iter().find(|t| h.trees.iter().any(|o| overlap(t, o))),
            // A live holder that does not say what it holds holds everything.
            None => trees.first(),
        };
        if let Some(tree) = clash {
            return Err(LockError::Busy {
                tree: tree.clone(),
                holder: holder.map(Box::new),
                file: path,
                waited: Duration::ZERO,
            });
        }
    }

    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let pid = std::process::id();
    let holder = Holder {
        pid,
        started,
        command: command.to_string(),
        trees: trees.to_vec(),
    };
    let mut n = 0u32;
    let (path, mut file) = loop {
        let path = dir.join(format!("{PREFIX}{pid}-{started}-{n}{SUFFIX}"));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
        {
            Ok(file) => break (path, file),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(err) => return Err(io_err(&path)(err)),
        }
    };
    // Dropped on an error below: the half-written holder file goes.
    let mut lock = TreeLock { file: None, path };
    // A new file nobody else has opened under the registry lock: the lock
    // cannot be refused.
    file.lock().map_err(io_err(&lock.path))?;
    let mut text = holder.to_json().to_string();
    text.push('\n');
    file.write_all(text.as_bytes())
        .map_err(io_err(&lock.path))?;
    drop(registry);
    lock.file = Some(file);
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let locks = tmp.path().join("locks");
        let tree = tmp.path().join("a");
        fs::create_dir_all(tree.join("b")).unwrap();
        fs::create_dir_all(tmp.path().join("c")).unwrap();
        (tmp, locks, tree)
    }

    #[test]
    fn same_inner_and_outer_trees_exclude_each_other_and_name_the_holder() {
        let (tmp, locks, tree) = setup();
        let held = lock(
            &locks,
            std::slice::from_ref(&tree),
            "first run",
            Duration::ZERO,
        )
        .unwrap();
        // flock locks belong to the open file, so this process's second
        // attempt is refused like another process's would be.
        for other in [tree.clone(), tree.join("b"), tmp.path().to_path_buf()] {
            match lock(&locks, &[other], "second run", Duration::ZERO) {
                Err(LockError::Busy {
                    holder: Some(h), ..
                }) => {
                    assert_eq!(h.pid, std::process::id());
                    assert_eq!(h.command, "first run");
                    assert_eq!(h.trees, canonical_trees(std::slice::from_ref(&tree)));
                }
                other => panic!("not refused: {other:?}"),
            }
        }
        // A disjoint tree is free.
        let beside = lock(&locks, &[tmp.path().join("c")], "beside", Duration::ZERO).unwrap();
        drop(beside);
        drop(held);
        // Released: the holder file is gone and the tree is free again.
        let names: Vec<_> = fs::read_dir(&locks)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().starts_with(PREFIX))
            .collect();
        assert!(names.is_empty(), "{names:?}");
        lock(&locks, &[tree.join("b")], "again", Duration::ZERO).unwrap();
    }

    #[test]
    fn a_holder_file_nobody_locks_is_stale_and_removed() {
        let (_tmp, locks, tree) = setup();
        prepare_dir(&locks).unwrap();
        // What a run killed with SIGKILL leaves: its file, without its lock.
        let stale = locks.join(format!("{PREFIX}999999-1-0{SUFFIX}"));
        let dead = Holder {
            pid: 999_999,
            started: 1,
            command: "killed".into(),
            trees: canonical_trees(std::slice::from_ref(&tree)),
        };
        fs::write(&stale, dead.to_json().to_string()).unwrap();
        let held = lock(&locks, &[tree], "next", Duration::ZERO).unwrap();
        assert!(!stale.exists());
        assert!(held.path().exists());
    }

    #[test]
    fn a_run_waits_for_the_holder_when_asked_to() {
        let (_tmp, locks, tree) = setup();
        let held = lock(&locks, std::slice::from_ref(&tree), "first", Duration::ZERO).unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(held);
        });
        lock(&locks, &[tree], "second", Duration::from_secs(30)).unwrap();
        release.join().unwrap();
    }

    #[test]
    fn a_lock_directory_of_another_kind_is_refused() {
        let (tmp, _locks, tree) = setup();
        let file = tmp.path().join("plain");
        fs::write(&file, b"").unwrap();
        assert!(matches!(
            lock(&file, &[tree], "run", Duration::ZERO),
            Err(LockError::Io { .. })
        ));
    }
}
