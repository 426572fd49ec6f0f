//! `--transform CMD`: a command of the user's makes a file's text, for the
//! formats simfind has no extractor for (`.doc` through antiword, scanned
//! PDFs through an OCR tool) or to replace one of its own.
//!
//! The command is run by `/bin/sh -c`, once per file it applies to, and is
//! given the very bytes simfind read, never the file's path: on its
//! standard input, or, where the command holds `{}`, as a private copy in a
//! temporary file whose path replaces every `{}` (the copy keeps the file's
//! extension, for tools that go by it). So the text always comes from the
//! bytes that were hashed and claimed (a file replaced meanwhile cannot give
//! another file's text), and no name on the share, however strange, reaches
//! a shell. Its standard output is the text.
//!
//! Bounds, as for the built-in extractors: the time budget (then the whole
//! process group is killed, so a pipeline's children do not linger), the
//! cap on text (output beyond it is cut and the command killed), the first
//! line of its standard error kept for the message when it fails.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::Failure;

/// What standard error is kept of a failing command, for its message.
const STDERR_KEPT: usize = 4096;

/// A user's command that turns a file's bytes into its text, and the files
/// it applies to.
#[derive(Clone, Debug)]
pub struct Transform {
    command: String,
    globs: Vec<String>,
    matcher: Option<GlobSet>,
}

impl PartialEq for Transform {
    fn eq(&self, other: &Transform) -> bool {
        self.command == other.command && self.globs == other.globs
    }
}

impl Eq for Transform {}

/// Why a command cannot be a [`Transform`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransformError {
    /// Nothing but whitespace.
    EmptyCommand,
    /// A NUL byte, which no argument of a process can hold.
    NulInCommand,
    /// A glob that does not parse, and the parser's reason.
    BadGlob { glob: String, reason: String },
}

impl std::fmt::Display for TransformError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransformError::EmptyCommand => f.write_str("the command is empty"),
            TransformError::NulInCommand => f.write_str("the command holds a NUL byte"),
            TransformError::BadGlob { glob, reason } => {
                write!(f, "the glob {glob:?} is not valid: {reason}")
            }
        }
    }
}

impl std::error::Error for TransformError {}

impl Transform {
    /// `command` for the files whose path matches one of `globs` (every
    /// file when there is none). Globs match the path as the walk gives it,
    /// ignoring case (`*.doc` finds `REPORT.DOC`: shares mix both); `*`
    /// crosses `/`, so `*.doc` matches in every folder.
    pub fn new(command: &str, globs: &[String]) -> Result<Transform, TransformError> {
        if command.trim().is_empty() {
            return Err(TransformError::EmptyCommand);
        }
        if command.contains('\0') {
            return Err(TransformError::NulInCommand);
        }
        let matcher = if globs.is_empty() {
            None
        } else {
            let mut set = GlobSetBuilder::new();
            for glob in globs {
                let compiled = GlobBuilder::new(glob)
                    .case_insensitive(true)
                    .build()
                    .map_err(|err| TransformError::BadGlob {
                        glob: glob.clone(),
                        reason: err.to_string(),
                    })?;
                set.add(compiled);
            }
            // Every glob parsed; a set of them fails only as one of them
            // would.
            Some(set.build().map_err(|err| TransformError::BadGlob {
                glob: globs.join(","),
                reason: err.to_string(),
            })?)
        };
        Ok(Transform {
            command: command.to_string(),
            globs: globs.to_vec(),
            matcher,
        })
    }

    /// The command as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The globs as given (none: every file).
    pub fn globs(&self) -> &[String] {
        &self.globs
    }

    /// Whether the command makes the text of the file at `path`; a document
    /// without a path (standard input, a text of a record file) only when
    /// the command applies to every file.
    pub fn applies_to(&self, path: Option<&Path>) -> bool {
        match (&self.matcher, path) {
            (None, _) => true,
            (Some(set), Some(path)) => set.is_match(path),
            (Some(_), None) => false,
        }
    }

    /// The text the command prints for `raw` (the bytes of the file at
    /// `path`, whose extension the temporary copy keeps), within `budget`
    /// and cut at `max_text` bytes.
    pub(super) fn run(
        &self,
        path: Option<&Path>,
        raw: &[u8],
        budget: Duration,
        max_text: usize,
    ) -> Result<String, Failure> {
        let copy = if self.command.contains("{}") {
            Some(private_copy(raw, path.and_then(Path::extension))?)
        } else {
            None
        };
        let command = match &copy {
            // The temporary path is made of safe characters only (checked
            // in `private_copy`), so it needs no quoting.
            Some(copy) => self.command.replace("{}", &copy.to_string_lossy()),
            None => self.command.clone(),
        };
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(&command)
            .stdin(if copy.is_some() {
                Stdio::null()
            } else {
                Stdio::piped()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so that the budget kills every process
            // of a pipeline, not only the shell.
            .process_group(0)
            .spawn()
            .map_err(|err| Failure::Damaged(format!("the command could not start: {err}")))?;
        let group = child.id() as i32;
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let deadline = Instant::now() + budget;

        let capped = AtomicBool::new(false);
        std::thread::scope(|scope| {
            if let Some(mut stdin) = stdin {
                // A command that does not read its input closes the pipe:
                // a write error then is no failure of the file.
                crate::memory::spawn(scope, "a transform's input thread", move || {
                    let _ = stdin.write_all(raw);
                });
            }
            let errors = crate::memory::spawn(scope, "a transform's error thread", move || {
                let mut kept = Vec::new();
                let _ = (&mut stderr)
                    .take(STDERR_KEPT as u64)
                    .read_to_end(&mut kept);
                let _ = std::io::copy(&mut stderr, &mut std::io::sink());
                kept
            });
            let capped = &capped;
            let output = crate::memory::spawn(scope, "a transform's output thread", move || {
                let mut text = Vec::new();
                let read = (&mut stdout)
                    .take(max_text as u64 + 1)
                    .read_to_end(&mut text);
                if text.len() > max_text {
                    capped.store(true, Ordering::Release);
                }
                (text, read.is_ok())
            });

            // Wait for the command and for its output to end (a background
            // child can hold the pipe after the shell is gone), or for the
            // output to pass the cap, within the budget.
            let mut status: Option<ExitStatus> = None;
            let mut pause = Duration::from_millis(1);
            let timed_out = loop {
                if status.is_none() {
                    status = child.try_wait().ok().flatten();
                }
                if output.is_finished() && (status.is_some() || capped.load(Ordering::Acquire)) {
                    break false;
                }
                if Instant::now() >= deadline {
                    break true;
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            };
            // Whatever is left of the group goes: the command after a
            // time-out or past the cap, a background child holding a pipe.
            // Only while the group surely exists (its leader not yet reaped,
            // or a member still holding a pipe open), so that no other
            // process can be signalled.
            if status.is_none() || !errors.is_finished() || !output.is_finished() {
                kill_group(group);
            }
            let status = status.or_else(|| child.wait().ok());
            let (text, read_ok) = output.join().unwrap_or_default();
            let errors = errors.join().unwrap_or_default();
            if timed_out {
                return Err(Failure::TimedOut(budget));
            }
            let cut = text.len() > max_text;
            match status {
                Some(status) if status.success() || cut => {}
                Some(status) => return Err(Failure::Damaged(failed(status, &errors))),
                None => return Err(Failure::Damaged("the command was lost".to_string())),
            }
            if !read_ok {
                return Err(Failure::Damaged("its output could not be read".to_string()));
            }
            Ok(String::from_utf8_lossy(&text).into_owned())
        })
    }
}

/// Kills the process group `group` (the command and everything it started).
fn kill_group(group: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group and has
    // no effect on this process's memory. The caller signals only a group
    // that exists (its leader, our child, not reaped, or a member holding
    // our pipe), and a group's id is not reused while it has a member.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// The message of a command that failed: its exit status and the first
/// line of what it printed on standard error.
fn failed(status: ExitStatus, errors: &[u8]) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match (status.code(), status.signal()) {
        (Some(code), _) => format!("the command exited with status {code}"),
        (None, Some(signal)) => format!("the command was killed by signal {signal}"),
        (None, None) => "the command failed".to_string(),
    };
    let first = String::from_utf8_lossy(errors);
    match first.lines().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => format!("{how}: {line}"),
        None => how,
    }
}

/// A private temporary copy of `raw`, named with `extension` when it is a
/// plain one (letters and digits), so that the path put into the command
/// holds no character a shell would read.
fn private_copy(raw: &[u8], extension: Option<&OsStr>) -> Result<tempfile::TempPath, Failure> {
    let suffix = extension
        .and_then(OsStr::to_str)
        .filter(|e| !e.is_empty() && e.len() <= 16 && e.bytes().all(|b| b.is_ascii_alphanumeric()))
        .map(|e| format!(".{e}"))
        .unwrap_or_default();
    let failure =
        |err: std::io::Error| Failure::Damaged(format!("no temporary copy for the command: {err}"));
    let mut file = tempfile::Builder::new()
        .prefix("simfind-transform-")
        .suffix(&suffix)
        .tempfile()
        .map_err(failure)?;
    file.write_all(raw).map_err(failure)?;
    file.flush().map_err(failure)?;
    let path = file.into_temp_path();
    let safe = path.to_str().is_some_and(|p| {
        p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
    });
    if !safe {
        return Err(Failure::Damaged(format!(
            "the temporary folder's path {:?} holds characters a shell would read: set TMPDIR",
            path.display()
        )));
    }
    Ok(path)
}
