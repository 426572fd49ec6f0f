//! The journal of a `dedupe` run: JSON Lines, one header line, then for each
//! action an `intent` line written and fsync'd before the file is touched and
//! a `done`, `skipped` or `failed` line after. A run killed midway leaves an
//! `intent` without an outcome; its file system state is then one of the two
//! ends of that one action, which [`super::undo`] tells apart.
//!
//! Lines (paths are strings, or `{"bytes":[…]}` when not UTF-8; hashes are
//! xxh3-128 in hex; times are nanoseconds since the epoch):
//!
//! ```text
//! {"simfind_journal":1,"action":"move","move_to":"/q"}
//! {"seq":0,"event":"intent","action":"move","path":"/d/b.txt","kept":"/d/a.txt","to":"/q/d/b.txt",
//!  "identical":false,"size":10,"mtime_ns":…,"hash":"…","kept_size":…,"kept_mtime_ns":…,"kept_hash":"…",
//!  "mode":420,"uid":1000,"gid":1000}
//! {"seq":0,"event":"done","how":"rename"}
//! ```

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::plan::Entry;
use super::state::{Fingerprint, Owner};

/// The version written in the header; a reader refuses others.
pub const VERSION: u64 = 1;

/// What became of one intended action, as far as the journal knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Intent only: the run stopped during this action.
    Unfinished,
    /// Done; how (`rename`, `copy`, `remove`, `link`, `reflink`).
    Done(String),
    /// Not done: the re-check failed.
    Skipped(String),
    /// Tried and failed; the file system may be in either state.
    Failed(String),
}

/// One action read back from a journal.
#[derive(Clone, Debug)]
pub struct Record {
    pub seq: u64,
    pub action: String,
    pub entry: Entry,
    pub outcome: Outcome,
}

/// An open journal, appended to line by line.
pub struct Writer {
    file: File,
    path: PathBuf,
}

impl Writer {
    /// Creates the journal at `path` (which must not exist) and writes its header.
    pub fn create(path: &Path, action: &super::Action) -> io::Result<Writer> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().write(true).create_new(true).open(path)?;
        let mut writer = Writer {
            file,
            path: path.to_path_buf(),
        };
        let mut header = json!({"simfind_journal": VERSION, "action": action.name()});
        if let super::Action::MoveTo(dir) = action {
            header["move_to"] = path_value(dir);
        }
        writer.line(&header)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            File::open(dir)?.sync_all()?;
        }
        Ok(writer)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one line and syncs it to disk before returning.
    fn line(&mut self, value: &Value) -> io::Result<()> {
        let mut text = serde_json::to_vec(value).map_err(io::Error::other)?;
        text.push(b'\n');
        self.file.write_all(&text)?;
        self.file.sync_data()
    }

    pub fn intent(&mut self, seq: u64, action: &str, entry: &Entry) -> io::Result<()> {
        let mut v = json!({
            "seq": seq,
            "event": "intent",
            "action": action,
            "path": path_value(&entry.path),
            "kept": path_value(&entry.kept),
            "to": entry.to.as_deref().map_or(Value::Null, path_value),
            "identical": entry.identical,
            "similarity": entry.similarity,
        });
        put_fingerprint(&mut v, "", &entry.fingerprint);
        put_fingerprint(&mut v, "kept_", &entry.kept_fingerprint);
        if let Some(owner) = entry.owner {
            v["mode"] = json!(owner.mode);
            v["uid"] = json!(owner.uid);
            v["gid"] = json!(owner.gid);
        }
        self.line(&v)
    }

    pub fn outcome(&mut self, seq: u64, outcome: &Outcome) -> io::Result<()> {
        let v = match outcome {
            Outcome::Unfinished => return Ok(()),
            Outcome::Done(how) => json!({"seq": seq, "event": "done", "how": how}),
            Outcome::Skipped(r) => json!({"seq": seq, "event": "skipped", "reason": r}),
            Outcome::Failed(r) => json!({"seq": seq, "event": "failed", "reason": r}),
        };
        self.line(&v)
    }
}

pub(super) fn put_fingerprint(v: &mut Value, prefix: &str, fp: &Fingerprint) {
    v[format!("{prefix}size")] = json!(fp.size);
    v[format!("{prefix}mtime_ns")] = json!(fp.mtime_ns.to_string());
    v[format!("{prefix}hash")] = json!(format!("{:032x}", fp.hash));
}

pub(super) fn get_fingerprint(v: &Value, prefix: &str) -> Option<Fingerprint> {
    Some(Fingerprint {
        size: v.get(format!("{prefix}size"))?.as_u64()?,
        mtime_ns: v.get(format!("{prefix}mtime_ns"))?.as_str()?.parse().ok()?,
        hash: u128::from_str_radix(v.get(format!("{prefix}hash"))?.as_str()?, 16).ok()?,
    })
}

fn get_owner(v: &Value) -> Option<Owner> {
    let field = |key: &str| v.get(key)?.as_u64().and_then(|n| u32::try_from(n).ok());
    Some(Owner {
        mode: field("mode")? & 0o7777,
        uid: field("uid")?,
        gid: field("gid")?,
    })
}

/// A path as JSON: a string, or its bytes when it is not UTF-8.
pub fn path_value(path: &Path) -> Value {
    match path.to_str() {
        Some(s) => json!(s),
        None => json!({"bytes": path.as_os_str().as_bytes()}),
    }
}

/// A path as [`path_value`] writes it.
pub fn value_path(v: &Value) -> Option<PathBuf> {
    if let Some(s) = v.as_str() {
        return Some(PathBuf::from(s));
    }
    let bytes = v
        .get("bytes")?
        .as_array()?
        .iter()
        .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
        .collect::<Option<Vec<u8>>>()?;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// The longest journal line read. A line holds one action: two or three
/// paths (each at most `PATH_MAX` bytes, written as JSON byte arrays of up to
/// four characters a byte where not UTF-8) and fixed fields, far below this;
/// a longer run of bytes is damage, and is not read on.
pub const MAX_LINE: usize = 1 << 20;

/// What reading a journal found.
#[derive(Debug, Default)]
pub struct Read {
    pub action: String,
    pub records: Vec<Record>,
    /// The last line was cut short (the run was killed while writing it)
    /// and was ignored: its action had not started.
    pub truncated_tail: bool,
    /// Lines that could not be read (line number, why), skipped. An intent
    /// line among them is an action undo cannot know about: the file it
    /// names stays where the run left it.
    pub damaged: Vec<(usize, String)>,
}

/// One line of at most [`MAX_LINE`] bytes into `line`, without its newline
/// (`Ok(true)`; `Ok(false)` for a last line without one), or `None` at the
/// end. An over-long line is never held: it is `Err(bytes)`, read up to its
/// newline to go on after it, or, with `stop_at_cap`, given up at the cap.
fn next_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    stop_at_cap: bool,
) -> io::Result<Option<Result<bool, u64>>> {
    line.clear();
    let mut skipped: u64 = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(if skipped > 0 {
                Some(Err(skipped))
            } else if line.is_empty() {
                None
            } else {
                Some(Ok(false))
            });
        }
        let (chunk, found) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let taken = chunk.len() + usize::from(found);
        if skipped > 0 || line.len() + chunk.len() > MAX_LINE {
            skipped += (line.len() + chunk.len()) as u64;
            line.clear();
            if stop_at_cap {
                return Ok(Some(Err(skipped)));
            }
        } else {
            line.extend_from_slice(chunk);
        }
        reader.consume(taken);
        if found {
            return Ok(Some(if skipped > 0 { Err(skipped) } else { Ok(true) }));
        }
    }
}

/// Reads a journal, line by line within [`MAX_LINE`]. The first line must
/// be a journal header; after it, a damaged line (not JSON, too long, without
/// its fields, an outcome without its intent) is named in
/// [`Read::damaged`] and skipped, so the rest can still be undone, and a
/// cut-short last line is [`Read::truncated_tail`].
pub fn read(path: &Path) -> io::Result<Read> {
    let file = File::open(path)?;
    // A journal is a file simfind wrote; a device or a pipe could be endless.
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a regular file", path.display()),
        ));
    }
    let mut reader = BufReader::new(file);
    let bad = |line: usize, why: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}:{line}: {why}", path.display()),
        )
    };
    let mut out = Read::default();
    let mut line = Vec::new();
    let mut number = 0;
    let mut header = false;
    // A line that failed to parse is judged once the next is known: only the
    // last, without a newline, is a cut-short tail.
    let mut pending: Option<(usize, String)> = None;
    while let Some(next) = next_line(&mut reader, &mut line, !header)? {
        number += 1;
        if let Some(damage) = pending.take() {
            out.damaged.push(damage);
        }
        let ended = match next {
            Ok(ended) => ended,
            Err(len) => {
                if !header {
                    return Err(bad(
                        number,
                        &format!(
                            "a first line of more than {MAX_LINE} bytes: not a simfind journal"
                        ),
                    ));
                }
                out.damaged.push((
                    number,
                    format!("a line of {len} bytes, longer than a journal line can be ({MAX_LINE} bytes): damaged"),
                ));
                continue;
            }
        };
        if line.is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_slice(&line) {
            Ok(v) => v,
            Err(err) if header => {
                let why = format!("not a JSON line ({err})");
                if ended {
                    out.damaged.push((number, why));
                } else {
                    pending = Some((number, why));
                }
                continue;
            }
            Err(err) => return Err(bad(number, &format!("not a JSON line ({err})"))),
        };
        if !header {
            match value.get("simfind_journal").and_then(Value::as_u64) {
                Some(VERSION) => {}
                Some(v) => {
                    return Err(bad(
                        number,
                        &format!("journal version {v}, this simfind reads {VERSION}"),
                    ));
                }
                None => return Err(bad(number, "not a simfind journal")),
            }
            out.action = value["action"].as_str().unwrap_or("").to_string();
            header = true;
            continue;
        }
        if let Err(why) = take_line(&value, &mut out) {
            out.damaged.push((number, why.to_string()));
        }
    }
    if pending.is_some() {
        out.truncated_tail = true;
    }
    if !header {
        return Err(bad(1, "empty: not a simfind journal"));
    }
    Ok(out)
}

/// Why a line after the header cannot be used.
#[derive(Debug)]
enum LineDamage {
    NoSeq,
    IntentWithoutFields,
    OutcomeWithoutIntent(u64),
    UnknownEvent(String),
}

impl std::fmt::Display for LineDamage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineDamage::NoSeq => f.write_str("no \"seq\""),
            LineDamage::IntentWithoutFields => f.write_str("an intent line without its fields"),
            LineDamage::OutcomeWithoutIntent(seq) => {
                write!(f, "an outcome for seq {seq} without its intent")
            }
            LineDamage::UnknownEvent(event) => write!(f, "unknown event {event:?}"),
        }
    }
}

/// One line after the header into `out`, or why it cannot be used.
fn take_line(value: &Value, out: &mut Read) -> Result<(), LineDamage> {
    let seq = value["seq"].as_u64().ok_or(LineDamage::NoSeq)?;
    let event = value["event"].as_str().unwrap_or("");
    if event == "intent" {
        let entry = (|| {
            Some(Entry {
                path: value_path(&value["path"])?,
                kept: value_path(&value["kept"])?,
                to: match &value["to"] {
                    Value::Null => None,
                    v => Some(value_path(v)?),
                },
                identical: value["identical"].as_bool()?,
                similarity: value["similarity"].as_f64(),
                fingerprint: get_fingerprint(value, "")?,
                kept_fingerprint: get_fingerprint(value, "kept_")?,
                // Undo checks bytes, not identity: a restored kept copy
                // may be a new file.
                kept_id: None,
                owner: get_owner(value),
                kept_because: None,
                only_in: None,
            })
        })()
        .ok_or(LineDamage::IntentWithoutFields)?;
        out.records.push(Record {
            seq,
            action: value["action"].as_str().unwrap_or(&out.action).to_string(),
            entry,
            outcome: Outcome::Unfinished,
        });
        return Ok(());
    }
    let record = out
        .records
        .iter_mut()
        .rev()
        .find(|r| r.seq == seq)
        .ok_or(LineDamage::OutcomeWithoutIntent(seq))?;
    let text = |key: &str| value[key].as_str().unwrap_or("").to_string();
    record.outcome = match event {
        "done" => Outcome::Done(text("how")),
        "skipped" => Outcome::Skipped(text("reason")),
        "failed" => Outcome::Failed(text("reason")),
        other => return Err(LineDamage::UnknownEvent(other.to_string())),
    };
    Ok(())
}
