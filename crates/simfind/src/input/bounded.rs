//! Bounded reads: every input simfind reads whole (a list of paths, an
//! option file, a document on stdin) or line by line (a journal) goes
//! through here, so that none can grow without limit on an endless or
//! hostile stream (`yes |`, `< /dev/zero`).
//!
//! Role: one cap per kind of input, in one place ([`caps`]), and the two
//! ways to read under it: [`read_all`] (the whole input, refused past the
//! cap without reading on) and [`LineReader`] (line by line, a line never
//! held past the cap; a longer one is an error naming its line, and the
//! reader can skip it to go on). The record and point readers
//! (`records`, `vectors`) have their own line reader with the same rule and
//! the cap of `--max-line-length` ([`caps::LINE`]).
//!
//! Invariants: memory held is at most the cap plus one read buffer; an
//! input past its cap is a [`Bounded::TooLarge`] naming the cap, never
//! silently cut; nothing here panics on any bytes.

use std::fmt;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// The cap of each input, in bytes (docs/RELIABILITY.md, "Inputs and their
/// caps", lists them with the flag that overrides one, if any).
pub mod caps {
    /// A document given on stdin (`query -`, `index --add -`). Far beyond a
    /// text document; a larger one can be given as a file, which is mapped
    /// instead of held.
    pub const STDIN_DOCUMENT: u64 = 256 << 20;
    /// A list of paths (`--files-from`, `--files0-from`, `dedupe
    /// --from-list`): millions of paths.
    pub const PATH_LIST: u64 = 256 << 20;
    /// A small option file read whole (`--stopwords`, `--equivalents`, a
    /// matrix or a plan).
    pub const OPTION_FILE: u64 = 64 << 20;
    /// A line of a record or point file (JSON Lines, CSV/TSV, sets,
    /// vectors, bits) and of a journal; `--max-line-length` overrides it
    /// for records and points.
    pub const LINE: u64 = crate::input::records::DEFAULT_MAX_LINE as u64;
    /// A path on a line of its own, a stream's item (`query --add-if-new
    /// -`): Linux's `PATH_MAX` is 4 KiB; this leaves room for any file
    /// system's and keeps a line without end from being held.
    pub const PATH_LINE: u64 = 64 << 10;
}

/// Why a bounded read failed.
#[derive(Debug)]
pub enum Bounded {
    /// The input holds more than `cap` bytes (or a line of it does): the
    /// read stopped at the cap.
    TooLarge { cap: u64 },
    /// The input could not be read.
    Io(io::Error),
}

impl fmt::Display for Bounded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bounded::TooLarge { cap } => {
                write!(
                    f,
                    "longer than the cap of {cap} bytes ({}); nothing was read past it",
                    human(*cap)
                )
            }
            Bounded::Io(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for Bounded {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Bounded::TooLarge { .. } => None,
            Bounded::Io(err) => Some(err),
        }
    }
}

impl From<io::Error> for Bounded {
    fn from(err: io::Error) -> Self {
        Bounded::Io(err)
    }
}

/// A cap in the units people read (`256 MiB`).
fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

/// All of `input`, at most `cap` bytes: one byte more is
/// [`Bounded::TooLarge`], and nothing past it is read.
pub fn read_all(input: impl Read, cap: u64) -> Result<Vec<u8>, Bounded> {
    let mut bytes = Vec::new();
    input.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(Bounded::TooLarge { cap });
    }
    Ok(bytes)
}

/// All of the file at `path` (`-` is stdin), at most `cap` bytes.
pub fn read_path(path: &Path, cap: u64) -> Result<Vec<u8>, Bounded> {
    if path.as_os_str() == "-" {
        return read_all(io::stdin().lock(), cap);
    }
    read_all(std::fs::File::open(path)?, cap)
}

/// [`read_path`] as UTF-8 text.
pub fn read_text(path: &Path, cap: u64) -> Result<String, Bounded> {
    let bytes = read_path(path, cap)?;
    // The message `read_to_string` gives, which these inputs gave before.
    String::from_utf8(bytes).map_err(|_| {
        Bounded::Io(io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Lines of an input, each held up to a cap: what a journal or any other
/// line-oriented input is read with. A line past the cap is
/// [`Bounded::TooLarge`] as soon as the cap is reached;
/// [`skip_line`](Self::skip_line) then reads past the rest of it without holding it,
/// for a reader that goes on.
pub struct LineReader<R> {
    input: R,
    cap: u64,
    number: u64,
    line: Vec<u8>,
    /// What ends a line: `\n`, or NUL for NUL-separated paths (`-0`).
    end: u8,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(input: R, cap: u64) -> Self {
        LineReader::ended_by(input, cap, b'\n')
    }

    /// Lines ended by `end` instead of `\n` (NUL: `find -print0`); a `\r`
    /// before the end is then part of the line.
    pub fn ended_by(input: R, cap: u64, end: u8) -> Self {
        LineReader {
            input,
            cap,
            number: 0,
            line: Vec::new(),
            end,
        }
    }

    /// The 1-based number of the line last returned (or refused).
    pub fn line_number(&self) -> u64 {
        self.number
    }

    /// The next line without its `\n` (and `\r\n`'s `\r`), `None` at the
    /// end; a line of more than `cap` bytes is [`Bounded::TooLarge`], read
    /// only up to the cap.
    pub fn next_line(&mut self) -> Option<Result<&[u8], Bounded>> {
        self.line.clear();
        let limit = self.cap.saturating_add(1);
        let read = (&mut self.input)
            .take(limit)
            .read_until(self.end, &mut self.line);
        match read {
            Err(err) => return Some(Err(Bounded::Io(err))),
            Ok(0) => return None,
            Ok(_) => {}
        }
        self.number += 1;
        if self.line.last() == Some(&self.end) {
            self.line.pop();
            if self.end == b'\n' && self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
        }
        if self.line.len() as u64 > self.cap {
            return Some(Err(Bounded::TooLarge { cap: self.cap }));
        }
        Some(Ok(&self.line))
    }

    /// Reads past the rest of a line refused as too long, up to its `\n`,
    /// holding no more than one buffer; returns the bytes skipped.
    pub fn skip_line(&mut self) -> io::Result<u64> {
        let mut skipped = 0u64;
        loop {
            let available = self.input.fill_buf()?;
            if available.is_empty() {
                return Ok(skipped);
            }
            match memchr::memchr(self.end, available) {
                Some(at) => {
                    self.input.consume(at + 1);
                    return Ok(skipped + at as u64);
                }
                None => {
                    let n = available.len();
                    self.input.consume(n);
                    skipped += n as u64;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An endless stream of one byte, like `/dev/zero` or `yes`.
    struct Endless(u8);

    impl Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            out.fill(self.0);
            Ok(out.len())
        }
    }

    #[test]
    fn an_endless_input_stops_at_the_cap() {
        let err = read_all(Endless(0), 1000).unwrap_err();
        assert!(matches!(err, Bounded::TooLarge { cap: 1000 }));
        assert!(err.to_string().contains("cap of 1000 bytes"), "{err}");
    }

    #[test]
    fn an_input_at_the_cap_is_read_whole() {
        assert_eq!(read_all(&b"abc"[..], 3).unwrap(), b"abc");
        assert!(read_all(&b"abcd"[..], 3).is_err());
        assert_eq!(read_all(&b""[..], 0).unwrap(), b"");
    }

    #[test]
    fn lines_are_held_up_to_the_cap_and_a_long_one_can_be_skipped() {
        let input = b"ab\r\nabcdefgh\ncd\nxyz";
        let mut lines = LineReader::new(&input[..], 4);
        assert_eq!(lines.next_line().unwrap().unwrap(), b"ab");
        assert!(matches!(
            lines.next_line().unwrap(),
            Err(Bounded::TooLarge { cap: 4 })
        ));
        assert_eq!(lines.line_number(), 2);
        assert_eq!(lines.skip_line().unwrap(), 3);
        assert_eq!(lines.next_line().unwrap().unwrap(), b"cd");
        assert_eq!(lines.next_line().unwrap().unwrap(), b"xyz");
        assert_eq!(lines.line_number(), 4);
        assert!(lines.next_line().is_none());
    }

    #[test]
    fn an_endless_line_is_refused_at_the_cap() {
        let mut lines = LineReader::new(io::BufReader::new(Endless(b'y')), 1 << 16);
        assert!(matches!(
            lines.next_line().unwrap(),
            Err(Bounded::TooLarge { .. })
        ));
    }

    #[test]
    fn caps_read_as_people_write_them() {
        assert_eq!(human(caps::STDIN_DOCUMENT), "256 MiB");
        assert_eq!(human(1000), "1000 B");
    }
}
