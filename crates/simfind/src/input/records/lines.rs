//! Lines read with a cap: what every line-based record reader (JSON Lines,
//! sets, the vectors' rows) and the CSV reader's re-reads stand on. A line
//! over the cap is never held; one that fits the reader's buffer is lent
//! from it, not copied.

use std::io::{self, BufRead};

/// One line as [`Lines`] read it.
pub(crate) struct Line<'a> {
    /// 1-based.
    pub number: u64,
    /// Byte offset of its first byte.
    pub offset: u64,
    /// Its bytes without the line ending (`\n` or `\r\n`), or its length when
    /// it was longer than the cap (and not kept).
    pub bytes: Result<&'a [u8], u64>,
}

/// Lines of a reader, each held only up to a cap: a longer line is read to
/// its end without being stored. An I/O error ends the lines (reported as
/// the next line's error). Also what [`crate::input::vectors`] reads its
/// rows with, so that a file of points has the records' cap.
///
/// A line that lies whole in the reader's buffer (nearly every line: the
/// buffer is 8–64 KB, records are short) is lent from there, not copied,
/// and consumed when the next line is asked for; only a line that crosses
/// the buffer's end is put together in `buf`. Line ends are found with
/// `memchr` (a vectorised search, several bytes a cycle).
pub(crate) struct Lines<R: BufRead = Box<dyn BufRead>> {
    reader: R,
    cap: usize,
    pub(super) buf: Vec<u8>,
    /// Lines read so far (the last line's number).
    pub(crate) number: u64,
    offset: u64,
    /// Bytes of the reader's buffer the last line was lent from, consumed
    /// before the next is read.
    lent: usize,
    /// Lines that were longer than the cap, so far.
    pub(crate) too_long: u64,
    /// A read failed: the lines end (an I/O error is not retried forever).
    failed: bool,
    /// A line over the cap ends the lines where it passes the cap, instead of
    /// being read to its end: where a bad row stops the run, nothing after
    /// the cap is read (an endless line, such as `/dev/zero`, ends at once).
    stop_at_cap: bool,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(reader: R, cap: usize) -> Self {
        Lines {
            reader,
            cap,
            buf: Vec::new(),
            number: 0,
            offset: 0,
            lent: 0,
            too_long: 0,
            failed: false,
            stop_at_cap: false,
        }
    }

    /// With `stop`, a line over the cap is the last: it is given as
    /// [`STOPPED`] and nothing after its cap is read.
    pub(crate) fn stopping_at_cap(mut self, stop: bool) -> Self {
        self.stop_at_cap = stop;
        self
    }

    /// The next line; `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> Option<io::Result<Line<'_>>> {
        if self.failed {
            return None;
        }
        self.reader.consume(std::mem::take(&mut self.lent));
        let start = self.offset;
        let (available, newline) = match fill(&mut self.reader, &mut self.failed) {
            Ok(available) => (available.len(), memchr::memchr(b'\n', available)),
            Err(err) => return Some(Err(err)),
        };
        if available == 0 {
            return None;
        }
        if let Some(at) = newline {
            // The whole line is in the buffer: lent from there.
            self.number += 1;
            self.offset += at as u64 + 1;
            self.lent = at + 1;
            let (cap, number) = (self.cap, self.number);
            let line = match fill(&mut self.reader, &mut self.failed) {
                Ok(buffer) => &buffer[..at],
                Err(err) => return Some(Err(err)),
            };
            let (bytes, over) = trimmed(line, at + 1 > cap.saturating_add(2), at as u64, cap);
            self.too_long += u64::from(over);
            return Some(Ok(Line {
                number,
                offset: start,
                bytes,
            }));
        }
        // The line crosses the buffer's end: put together in `buf`.
        self.buf.clear();
        let mut length = 0u64;
        let mut over = false;
        let mut ended = false;
        loop {
            let available = match fill(&mut self.reader, &mut self.failed) {
                Ok(available) => available,
                Err(err) => return Some(Err(err)),
            };
            if available.is_empty() {
                break;
            }
            let (take, newline) = match memchr::memchr(b'\n', available) {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            length += take as u64;
            if !over {
                if self.buf.len() + take > self.cap.saturating_add(2) {
                    over = true;
                    self.buf = Vec::new();
                    if self.stop_at_cap {
                        self.failed = true;
                        self.number += 1;
                        self.too_long += 1;
                        return Some(Ok(Line {
                            number: self.number,
                            offset: start,
                            bytes: Err(STOPPED),
                        }));
                    }
                } else {
                    self.buf.extend_from_slice(&available[..take]);
                }
            }
            self.reader.consume(take);
            if newline {
                ended = true;
                break;
            }
        }
        self.number += 1;
        self.offset += length;
        let mut content = length;
        let mut line = &self.buf[..];
        if ended {
            content -= 1;
            line = line.strip_suffix(b"\n").unwrap_or(line);
        }
        let (bytes, over) = trimmed(line, over, content, self.cap);
        self.too_long += u64::from(over);
        Some(Ok(Line {
            number: self.number,
            offset: start,
            bytes,
        }))
    }
}

impl<R: BufRead + io::Seek> Lines<R> {
    /// Moves to byte `offset` of the input, where a line starts: within the
    /// reader's buffer when it holds it (the next candidate is usually near),
    /// else one seek. Line numbers go on from where they were.
    pub(crate) fn seek(&mut self, offset: u64) -> io::Result<()> {
        self.reader.consume(std::mem::take(&mut self.lent));
        // Offsets of files fit in an i64.
        let by = offset as i64 - self.offset as i64;
        if by != 0 {
            self.reader.seek_relative(by)?;
        }
        self.offset = offset;
        self.failed = false;
        Ok(())
    }
}

/// The reader's buffer, filled if empty (empty at the end); an I/O
/// error ends [`Lines`] (`failed`).
fn fill<'r, R: BufRead>(reader: &'r mut R, failed: &mut bool) -> Result<&'r [u8], io::Error> {
    loop {
        match reader.fill_buf() {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => {
                *failed = true;
                return Err(err);
            }
            Ok([]) => return Ok(&[]),
            // The borrow checker cannot yet return this borrow from
            // inside the loop and retry with `reader` after it: the
            // buffer is asked for again, which does not read (it holds
            // bytes).
            Ok(_) => break,
        }
    }
    reader.fill_buf()
}

/// A line without its ending (`line` is without its `\n`, `content` its
/// length with any `\r`), or its length when it is over the cap, and
/// whether it was (`over`: it was already found longer than the cap plus
/// an ending of two bytes, and not kept).
fn trimmed(line: &[u8], over: bool, content: u64, cap: usize) -> (Result<&[u8], u64>, bool) {
    if over {
        return (Err(content), true);
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() > cap {
        (Err(line.len() as u64), true)
    } else {
        (Ok(line), false)
    }
}

/// The length given for a line over the cap that was not read to its end
/// ([`Lines::stopping_at_cap`]).
pub(crate) const STOPPED: u64 = u64::MAX;
