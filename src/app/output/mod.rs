//! Where results go: stdout, or a file written atomically.
//!
//! With `-o FILE` the data is written to a temporary file in FILE's directory
//! (created before any work starts, so a run that could not write its result
//! fails at once) and renamed over FILE only when everything succeeded. A
//! failed or interrupted run never leaves a partial FILE, and an existing FILE
//! is untouched until the rename. On SIGINT/SIGTERM the temporary file is
//! removed by the handler installed in [`install_interrupt_handler`].
//!
//! A FILE that exists and is not a regular file (`/dev/null`, a FIFO, a
//! terminal) is opened and written directly, as a shell redirection would:
//! renaming over it would replace the device or pipe with a plain file. A FILE
//! that is a symbolic link is written through the link: the link stays and its
//! target is replaced atomically.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

use crate::app::exit;

pub mod groups;
pub mod pairs;
mod text;

/// The temporary file of the output being written, for the interrupt handler.
static PENDING: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Removes a pending temporary output file and exits with status 130 on SIGINT
/// or SIGTERM.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        if let Ok(mut pending) = PENDING.lock()
            && let Some(path) = pending.take()
        {
            let _ = fs::remove_file(path);
        }
        eprintln!("simfind: interrupted; no output written");
        std::process::exit(exit::INTERRUPTED);
    });
}

pub enum Sink {
    Stdout(BufWriter<io::Stdout>),
    /// An existing device or FIFO, written in place.
    Device(BufWriter<fs::File>),
    File {
        writer: BufWriter<NamedTempFile>,
        target: PathBuf,
    },
}

impl Sink {
    /// Opens the destination: stdout when `path` is `None` or `-`.
    pub fn create(path: Option<&Path>) -> Result<Sink> {
        let Some(target) = path.filter(|p| p.as_os_str() != "-") else {
            return Ok(Sink::Stdout(BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            )));
        };
        if target.is_dir() {
            anyhow::bail!(
                "cannot write output to {}: it is a directory",
                target.display()
            );
        }
        if let Ok(meta) = fs::metadata(target)
            && !meta.is_file()
        {
            let device = fs::OpenOptions::new()
                .write(true)
                .open(target)
                .with_context(|| format!("cannot write output to {}", target.display()))?;
            return Ok(Sink::Device(BufWriter::with_capacity(1 << 16, device)));
        }
        let resolved;
        let target = if fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink()) {
            resolved = fs::canonicalize(target)
                .with_context(|| format!("cannot follow the link {}", target.display()))?;
            resolved.as_path()
        } else {
            target
        };
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".simfind-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .with_context(|| format!("cannot create output file in {}", dir.display()))?;
        *PENDING.lock().expect("not poisoned") = Some(temp.path().to_path_buf());
        Ok(Sink::File {
            writer: BufWriter::with_capacity(1 << 16, temp),
            target: target.to_path_buf(),
        })
    }

    /// Makes the output final: flushes stdout, or renames the temporary file
    /// over the target.
    pub fn commit(self) -> Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush().map_err(Into::into),
            Sink::Device(mut w) => w.flush().map_err(Into::into),
            Sink::File { writer, target } => {
                let temp = writer.into_inner().map_err(|e| e.into_error())?;
                temp.as_file().sync_all()?;
                fs::set_permissions(temp.path(), target_permissions(&target))?;
                let result = temp.persist(&target);
                *PENDING.lock().expect("not poisoned") = None;
                result.with_context(|| format!("cannot write {}", target.display()))?;
                Ok(())
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::Device(w) => w.write(buf),
            Sink::File { writer, .. } => writer.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::Device(w) => w.flush(),
            Sink::File { writer, .. } => writer.flush(),
        }
    }
}

/// An existing file keeps its mode; a new one gets 0666 less the umask, as if
/// created by a shell redirection (a temporary file starts as 0600).
fn target_permissions(target: &Path) -> fs::Permissions {
    if let Ok(meta) = fs::metadata(target) {
        return meta.permissions();
    }
    // SAFETY: umask cannot fail and touches no memory. The mask is
    // process-wide, so for the instant between the two calls a file created
    // by another thread would get 0o022 instead of the user's mask; none is
    // created then: this runs at commit, after the stages that write files
    // (pipeline threads joined, the index written), and the interrupt
    // handler's thread only removes the temporary file.
    let mask = unsafe {
        let old = libc::umask(0o022);
        libc::umask(old);
        old
    };
    fs::Permissions::from_mode(0o666 & !(mask as u32))
}
