//! Record inputs as people have them: compressed, and in encodings other
//! than UTF-8. What [`super::read_inputs`] puts between an input's bytes
//! and the record readers, so that those keep reading UTF-8 lines.
//!
//! Role: an input is told by its content, never by its name (stdin too):
//! gzip and zstd by their magic bytes, decompressed as a stream; then the
//! encoding of the (decompressed) text: a byte-order mark, UTF-16 without
//! one, UTF-8, or a legacy 8-bit encoding, detected as the file source
//! detects it (`extract`'s detection, chardetng and encoding_rs), or the
//! one `--encoding` names; anything but UTF-8 is transcoded as a stream.
//!
//! Invariants: nothing is held whole (a decompressed or transcoded input
//! is read through one buffer; the record readers' line cap bounds what a
//! row can take, so a decompression bomb of one endless line ends at the
//! cap, named); an input left as it is keeps its byte offsets (what a
//! record is read again at), and one that is decompressed or transcoded
//! says so ([`Decoded::plain`] is false) so that it is not read again at
//! offsets it does not have; bytes that do not decode are an I/O error the
//! readers name with the input and line.

use std::io::{self, BufRead, Read};

use crate::input::extract;

/// The bytes looked at to tell an encoding: enough text for the detector,
/// one buffer.
const HEAD: usize = 64 << 10;

/// The buffer of a decompressor's or a transcoder's output.
const BUFFER: usize = 64 << 10;

/// A text encoding named by a WHATWG label (`latin1`, `windows-1252`,
/// `utf-16le`, `shift_jis`, …), as `--encoding` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoding(&'static encoding_rs::Encoding);

impl Encoding {
    /// The encoding a label names, if any (labels as browsers know them:
    /// `latin1` and `iso-8859-1` name windows-1252, its superset).
    pub fn for_label(label: &str) -> Option<Encoding> {
        encoding_rs::Encoding::for_label(label.trim().as_bytes()).map(Encoding)
    }

    /// Its canonical name (`windows-1252`).
    pub fn name(self) -> &'static str {
        self.0.name()
    }
}

/// An input made ready for the record readers.
pub(super) struct Decoded {
    pub reader: Box<dyn BufRead>,
    /// The reader gives the input's own bytes: offsets into it are offsets
    /// into the file.
    pub plain: bool,
}

/// `raw`, decompressed if it is gzip or zstd, and transcoded to UTF-8 from
/// `forced` or, without it, the encoding detected.
pub(super) fn decode(raw: Box<dyn BufRead>, forced: Option<Encoding>) -> io::Result<Decoded> {
    let (magic, mut reader) = peek(raw, 4)?;
    let mut plain = true;
    if magic.starts_with(&[0x1f, 0x8b]) {
        // Concatenated members are one stream, as `gzip -d` reads them.
        reader = Box::new(io::BufReader::with_capacity(
            BUFFER,
            flate2::bufread::MultiGzDecoder::new(reader),
        ));
        plain = false;
    } else if magic == [0x28, 0xb5, 0x2f, 0xfd] {
        reader = Box::new(io::BufReader::with_capacity(
            BUFFER,
            zstd::stream::read::Decoder::with_buffer(reader)?,
        ));
        plain = false;
    }
    let (head, reader) = peek(reader, HEAD)?;
    let encoding = match forced {
        Some(Encoding(encoding)) => encoding,
        None => detect(&head, head.len() < HEAD)?,
    };
    if encoding == encoding_rs::UTF_8 {
        // A UTF-8 byte-order mark is the readers' to skip (they do), so
        // that offsets stay the file's.
        return Ok(Decoded { reader, plain });
    }
    Ok(Decoded {
        reader: Box::new(io::BufReader::with_capacity(
            BUFFER,
            Transcode {
                inner: reader,
                decoder: encoding.new_decoder_with_bom_removal(),
                name: encoding.name(),
                out: vec![0; BUFFER],
                start: 0,
                end: 0,
                finished: false,
                malformed: false,
            },
        )),
        plain: false,
    })
}

/// Up to `n` bytes from the start of `reader`, and a reader that gives them
/// again before the rest.
fn peek(reader: Box<dyn BufRead>, n: usize) -> io::Result<(Vec<u8>, Box<dyn BufRead>)> {
    let mut head = Vec::with_capacity(n.min(HEAD));
    let mut reader = reader;
    (&mut reader).take(n as u64).read_to_end(&mut head)?;
    let again = io::Cursor::new(head.clone()).chain(reader);
    Ok((head, Box::new(again)))
}

/// The encoding of a text whose first bytes are `head` (`whole`: all of
/// it). A byte-order mark names it; UTF-16 without one is told by where
/// its zero bytes fall; text that is UTF-8, or holds UTF-8 beside bytes
/// that are not (mixed), is read as UTF-8, so that a row that does not
/// decode is named; text with bytes that are not UTF-8 and no UTF-8 at all
/// is legacy, in the encoding the detector guesses.
fn detect(head: &[u8], whole: bool) -> io::Result<&'static encoding_rs::Encoding> {
    if let Some((encoding, _)) = encoding_rs::Encoding::for_bom(head) {
        return Ok(encoding);
    }
    match extract::unmarked_utf(head) {
        Some(extract::Format::Utf16) if extract::utf16_big_endian(head) => {
            return Ok(encoding_rs::UTF_16BE);
        }
        Some(extract::Format::Utf16) => return Ok(encoding_rs::UTF_16LE),
        Some(extract::Format::Utf32) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "UTF-32 text, which records are not read in: convert it to UTF-8 \
                 (iconv -f UTF-32 -t UTF-8)",
            ));
        }
        _ => {}
    }
    // A head cut inside a character ends in up to three bytes of it.
    let mut text = head;
    if !whole {
        let cut = text
            .iter()
            .rev()
            .take(3)
            .take_while(|&&b| b >= 0x80)
            .count();
        text = &text[..text.len() - cut];
    }
    let (mut utf8, mut invalid) = (false, false);
    for chunk in text.utf8_chunks() {
        utf8 |= !chunk.valid().is_ascii();
        invalid |= !chunk.invalid().is_empty();
    }
    if !invalid || utf8 {
        return Ok(encoding_rs::UTF_8);
    }
    Ok(extract::guess_legacy_of(head, whole))
}

/// A reader of UTF-8 from a reader of text in another encoding.
struct Transcode<R> {
    inner: R,
    decoder: encoding_rs::Decoder,
    name: &'static str,
    /// Decoded bytes; `start..end` not yet read.
    out: Vec<u8>,
    start: usize,
    end: usize,
    /// The input has ended and the decoder is flushed.
    finished: bool,
    /// Bytes that do not decode were met: an error once `out` is read.
    malformed: bool,
}

impl<R: BufRead> Read for Transcode<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.start < self.end {
                let n = (self.end - self.start).min(buf.len());
                buf[..n].copy_from_slice(&self.out[self.start..self.start + n]);
                self.start += n;
                return Ok(n);
            }
            if self.malformed {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "bytes that are not {} (a damaged or mixed input)",
                        self.name
                    ),
                ));
            }
            if self.finished {
                return Ok(0);
            }
            let src = self.inner.fill_buf()?;
            let last = src.is_empty();
            let (result, read, written) =
                self.decoder
                    .decode_to_utf8_without_replacement(src, &mut self.out, last);
            self.inner.consume(read);
            (self.start, self.end) = (0, written);
            match result {
                encoding_rs::DecoderResult::InputEmpty => self.finished = last,
                encoding_rs::DecoderResult::OutputFull => {}
                encoding_rs::DecoderResult::Malformed(..) => self.malformed = true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8], forced: Option<&str>) -> io::Result<(String, bool)> {
        let raw: Box<dyn BufRead> = Box::new(io::Cursor::new(bytes.to_vec()));
        let forced = forced.map(|l| Encoding::for_label(l).unwrap());
        let mut decoded = decode(raw, forced)?;
        let mut out = String::new();
        decoded.reader.read_to_string(&mut out)?;
        Ok((out, decoded.plain))
    }

    #[test]
    fn utf8_is_left_as_it_is() {
        let (out, plain) = text("id,name\n1,José\n".as_bytes(), None).unwrap();
        assert_eq!(out, "id,name\n1,José\n");
        assert!(plain);
    }

    #[test]
    fn latin1_is_detected_and_transcoded() {
        let (out, plain) = text(b"id,name\n1,Jos\xe9 Garc\xeda\n", None).unwrap();
        assert_eq!(out, "id,name\n1,José García\n");
        assert!(!plain);
    }

    #[test]
    fn utf16_with_and_without_a_mark() {
        let mut marked = vec![0xff, 0xfe];
        let mut unmarked = Vec::new();
        for unit in "id,name\n1,José\n2,Jose\n".encode_utf16() {
            marked.extend_from_slice(&unit.to_le_bytes());
            unmarked.extend_from_slice(&unit.to_be_bytes());
        }
        assert_eq!(text(&marked, None).unwrap().0, "id,name\n1,José\n2,Jose\n");
        assert_eq!(
            text(&unmarked, None).unwrap().0,
            "id,name\n1,José\n2,Jose\n"
        );
    }

    #[test]
    fn mixed_text_stays_utf8_and_a_forced_encoding_wins() {
        let mut mixed = "1,José\n".as_bytes().to_vec();
        mixed.extend_from_slice(b"2,Ma\xffry\n");
        assert_eq!(detect(&mixed, true).unwrap(), encoding_rs::UTF_8);
        let (out, _) = text(b"1,Jos\xe9\n", Some("latin1")).unwrap();
        assert_eq!(out, "1,José\n");
    }

    #[test]
    fn gzip_is_decompressed() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"id,text\n1,a b c\n").unwrap();
        let (out, plain) = text(&gz.finish().unwrap(), None).unwrap();
        assert_eq!(out, "id,text\n1,a b c\n");
        assert!(!plain);
    }

    #[test]
    fn undecodable_bytes_are_an_error() {
        // A lone surrogate in UTF-16LE after its mark.
        let bytes = [0xff, 0xfe, b'a', 0, 0x00, 0xd8, b'b', 0];
        let err = text(&bytes, None).unwrap_err();
        assert!(err.to_string().contains("not UTF-16LE"), "{err}");
    }
}
