//! Where results go: stdout, or a file written atomically.
//!
//! With `-o FILE` the data is written to an unnamed file in FILE's directory
//! (created before any work starts, so a run that could not write its result
//! fails at once) and put in place over FILE only when everything succeeded
//! ([`atomic`]). A failed, interrupted or killed run never leaves a partial
//! FILE or a temporary file, and an existing FILE is untouched until the
//! rename.
//!
//! A FILE that exists and is not a regular file (`/dev/null`, a FIFO, a
//! terminal) is opened and written directly, as a shell redirection would:
//! renaming over it would replace the device or pipe with a plain file. A FILE
//! that is this process's own stdout or stderr (`-o /dev/stdout >> log`) is
//! written through that descriptor ([`streams`]). A FILE that is a symbolic
//! link is written through the link: the link stays and its target is
//! replaced atomically.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use anyhow::{Context, Result};

use crate::app::exit;

mod atomic;
pub mod containment;
pub mod families;
pub mod groups;
pub mod html;
pub mod pairs;
pub(crate) mod pending;
mod streams;
pub mod summary;
mod text;
pub use text::rfc3339;

use atomic::AtomicFile;

/// Removes a pending temporary output file and exits with status 130 on SIGINT
/// or SIGTERM.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        pending::remove();
        eprintln!("simfind: interrupted; no output written");
        std::process::exit(exit::INTERRUPTED);
    });
}

/// Refuses, before any work, an `-o` that names the index given with `--db`:
/// the output would replace the index (`scan --db i.db -o i.db`).
pub fn refuse_overwriting_index(output: Option<&Path>, db: &Path) -> Result<()> {
    let Some(output) = output.filter(|p| p.as_os_str() != "-") else {
        return Ok(());
    };
    let same = match (fs::metadata(output), fs::metadata(db)) {
        (Ok(o), Ok(d)) => o.dev() == d.dev() && o.ino() == d.ino(),
        // One does not exist yet: the same name, once both are made absolute.
        _ => absolute(output) == absolute(db),
    };
    if same {
        anyhow::bail!(
            "-o would overwrite the index {}; write the output to another file",
            db.display()
        );
    }
    Ok(())
}

/// `path` with its directory resolved (links, `..`), for comparing names of
/// files that may not exist yet.
fn absolute(path: &Path) -> Option<std::path::PathBuf> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(fs::canonicalize(dir).ok()?.join(path.file_name()?))
}

/// For a subcommand whose data can only go to stdout (no `-o`): an error if
/// stdout was closed at start, before any work, as [`Sink::create`] gives
/// for the others (std reopened it on /dev/null, where the data would go).
pub fn refuse_closed_stdout() -> Result<()> {
    if streams::stdout_was_closed() {
        return Err(streams::closed_error(1));
    }
    Ok(())
}

pub enum Sink {
    Stdout(BufWriter<io::Stdout>),
    /// Written in place: an existing device or FIFO, or one of this process's
    /// own standard streams (a duplicate of its descriptor), with its name
    /// for the errors.
    Stream(BufWriter<fs::File>, std::path::PathBuf),
    File(AtomicFile),
    /// Everything kept in memory and written to `then` at commit, so that a
    /// run that fails half-way writes nothing at all (see [`Sink::create_whole`]).
    Held {
        data: Vec<u8>,
        then: Box<Sink>,
    },
}

impl Sink {
    /// Opens the destination: stdout when `path` is `None` or `-`. Output to
    /// stdout or a stream is written as it comes.
    pub fn create(path: Option<&Path>) -> Result<Sink> {
        let Some(target) = path.filter(|p| p.as_os_str() != "-") else {
            if streams::stdout_was_closed() {
                return Err(streams::closed_error(1));
            }
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
        if let Ok(meta) = fs::metadata(target) {
            if let Some(stream) = streams::own_stream(target, &meta)? {
                let stream = BufWriter::with_capacity(1 << 16, stream);
                return Ok(Sink::Stream(stream, target.to_path_buf()));
            }
            if !meta.is_file() {
                let device = fs::OpenOptions::new()
                    .write(true)
                    .open(target)
                    .with_context(|| format!("cannot write output to {}", target.display()))?;
                let device = BufWriter::with_capacity(1 << 16, device);
                return Ok(Sink::Stream(device, target.to_path_buf()));
            }
        }
        let resolved;
        let target = if fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink()) {
            resolved = fs::canonicalize(target)
                .with_context(|| format!("cannot follow the link {}", target.display()))?;
            resolved.as_path()
        } else {
            target
        };
        Ok(Sink::File(AtomicFile::create(target)?))
    }

    /// Like [`Sink::create`], but nothing reaches stdout or a stream before
    /// [`Sink::commit`]: for a command whose output is small and which may
    /// fail after it has started writing (`query` on a damaged index), so that
    /// exit status 2 still means "no output written".
    pub fn create_whole(path: Option<&Path>) -> Result<Sink> {
        Ok(match Sink::create(path)? {
            file @ Sink::File(_) => file,
            other => Sink::Held {
                data: Vec::new(),
                then: Box::new(other),
            },
        })
    }

    /// Makes the output final: flushes stdout, or renames the temporary file
    /// over the target.
    pub fn commit(self) -> Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush().map_err(|e| named(e, None).into()),
            Sink::Stream(mut w, name) => w.flush().map_err(|e| named(e, Some(&name)).into()),
            Sink::File(file) => file.commit(),
            Sink::Held { data, mut then } => {
                then.write_all(&data)?;
                then.commit()
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf).map_err(|e| named(e, None)),
            Sink::Stream(w, name) => w.write(buf).map_err(|e| named(e, Some(name))),
            Sink::File(file) => file.write(buf),
            Sink::Held { data, .. } => data.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush().map_err(|e| named(e, None)),
            Sink::Stream(w, name) => w.flush().map_err(|e| named(e, Some(name))),
            Sink::File(file) => file.flush(),
            Sink::Held { .. } => Ok(()),
        }
    }
}

/// `err` from writing to the stream `name` (stdout when `None`), saying
/// where: "No space left on device" alone does not tell `-o /dev/full` from
/// a full disk under the index. The kind is kept (a closed pipe is still
/// `BrokenPipe` to whoever checks).
fn named(err: io::Error, name: Option<&Path>) -> io::Error {
    let place = match name {
        Some(path) => path.display().to_string(),
        None => "standard output".to_string(),
    };
    io::Error::new(err.kind(), format!("cannot write output to {place}: {err}"))
}
