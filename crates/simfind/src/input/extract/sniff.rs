//! What format a file's bytes are, from its content: magic bytes, the
//! entries of a zip container, the first markup of a page, the header block
//! of a message, the byte pattern of a text encoding. Never the name alone,
//! so a mislabelled file is read as what it is, and a name cannot make a
//! text file be parsed as something else.
//!
//! Each test is strict where a loose one would catch ordinary text: a page
//! must *begin* with HTML markup, a message with a block of mail headers
//! (not any `Name: value` lines, which Debian copyright files and many
//! configuration files are), a zip must hold an office document's entries.

/// A format simfind recognises by content: the ones it extracts text from
/// ([`Format::ALL`]), and, never extracted, the user's `--transform` and
/// the kinds of binary file the summary names ([`binary_kind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Pdf,
    Docx,
    Pptx,
    Xlsx,
    Odt,
    Odp,
    Ods,
    Epub,
    Html,
    Mail,
    Mbox,
    Rtf,
    /// UTF-8 after a byte-order mark (the mark is dropped).
    Utf8Bom,
    /// UTF-16, little or big endian, with or without a byte-order mark.
    Utf16,
    /// UTF-32, little or big endian, with or without a byte-order mark.
    Utf32,
    /// Not UTF-8 and not binary: a legacy 8-bit (or CJK multi-byte)
    /// encoding, detected.
    Legacy8Bit,
    /// Any file the user's `--transform` command reads. Never sniffed and
    /// not in [`Format::ALL`]: it names the command in messages.
    Transform,
    /// Kinds of binary file ([`binary_kind`]): not in [`Format::ALL`], never
    /// extracted, named so that the summary says what was not compared.
    /// Word 97–2003, Excel, PowerPoint and other OLE2 compound files.
    OldOffice,
    Image,
    Archive,
    Audio,
    Video,
    Executable,
    Database,
}

impl Format {
    /// Every format, in the order lists name them.
    pub const ALL: [Format; 16] = [
        Format::Pdf,
        Format::Docx,
        Format::Pptx,
        Format::Xlsx,
        Format::Odt,
        Format::Odp,
        Format::Ods,
        Format::Epub,
        Format::Html,
        Format::Mail,
        Format::Mbox,
        Format::Rtf,
        Format::Utf8Bom,
        Format::Utf16,
        Format::Utf32,
        Format::Legacy8Bit,
    ];

    /// The formats in a zip container of XML parts (`office.rs`), which
    /// `--extract office` names.
    pub const OFFICE: [Format; 7] = [
        Format::Docx,
        Format::Pptx,
        Format::Xlsx,
        Format::Odt,
        Format::Odp,
        Format::Ods,
        Format::Epub,
    ];

    /// Whether it is a kind of binary file ([`binary_kind`]), not a format
    /// with text.
    pub fn is_binary_kind(self) -> bool {
        matches!(
            self,
            Format::OldOffice
                | Format::Image
                | Format::Archive
                | Format::Audio
                | Format::Video
                | Format::Executable
                | Format::Database
        )
    }

    /// Whether it is one of [`Format::OFFICE`].
    pub fn is_office(self) -> bool {
        Format::OFFICE.contains(&self)
    }

    /// The names `--extract` takes, for messages.
    pub const NAMES: &'static str = "pdf, docx, pptx, xlsx, odt, odp, ods, epub, html, eml, mbox, rtf, \
         utf8-bom, utf16, utf32, legacy (or the groups office, mail, text)";

    /// The name in lists and recipes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pdf => "pdf",
            Format::Docx => "docx",
            Format::Pptx => "pptx",
            Format::Xlsx => "xlsx",
            Format::Odt => "odt",
            Format::Odp => "odp",
            Format::Ods => "ods",
            Format::Epub => "epub",
            Format::Html => "html",
            Format::Mail => "eml",
            Format::Mbox => "mbox",
            Format::Rtf => "rtf",
            Format::Utf8Bom => "utf8-bom",
            Format::Utf16 => "utf16",
            Format::Utf32 => "utf32",
            Format::Legacy8Bit => "legacy",
            Format::Transform => "transform",
            Format::OldOffice => "old-office",
            Format::Image => "image",
            Format::Archive => "archive",
            Format::Audio => "audio",
            Format::Video => "video",
            Format::Executable => "executable",
            Format::Database => "database",
        }
    }

    /// The name in messages ("PDF", "docx", "e-mail").
    pub fn display_name(self) -> &'static str {
        match self {
            Format::Pdf => "PDF",
            Format::Html => "HTML",
            Format::Mail => "e-mail",
            Format::Mbox => "mbox",
            Format::Rtf => "RTF",
            Format::Epub => "EPUB",
            Format::Utf8Bom => "UTF-8 text",
            Format::Utf16 => "UTF-16 text",
            Format::Utf32 => "UTF-32 text",
            Format::Legacy8Bit => "8-bit text",
            Format::Transform => "{transform}",
            Format::OldOffice => "old Office file",
            Format::Image => "image file",
            Format::Archive => "archive file",
            Format::Audio => "audio file",
            Format::Video => "video file",
            Format::Executable => "executable file",
            Format::Database => "database file",
            other => other.name(),
        }
    }

    /// The formats a name in an `--extract` list stands for (none when it is
    /// no name).
    pub fn by_name(name: &str) -> Vec<Format> {
        let name = name.to_ascii_lowercase();
        match name.as_str() {
            "office" => Format::OFFICE.to_vec(),
            "mail" | "email" | "e-mail" => vec![Format::Mail, Format::Mbox],
            "text" => vec![
                Format::Utf8Bom,
                Format::Utf16,
                Format::Utf32,
                Format::Legacy8Bit,
            ],
            "htm" | "xhtml" => vec![Format::Html],
            _ => Format::ALL
                .iter()
                .copied()
                .filter(|f| f.name() == name)
                .collect(),
        }
    }

    /// Whether this build has the format's extractor (each family of
    /// formats is a cargo feature; the text decodings are always in).
    pub fn built_in(self) -> bool {
        match self {
            Format::Pdf => cfg!(feature = "extract-pdf"),
            // Listed, not `is_office()`: the match stays exhaustive, so a new
            // format must say which feature builds it.
            Format::Docx
            | Format::Pptx
            | Format::Xlsx
            | Format::Odt
            | Format::Odp
            | Format::Ods
            | Format::Epub => cfg!(feature = "extract-office"),
            Format::Html => cfg!(feature = "extract-html"),
            Format::Mail | Format::Mbox => cfg!(feature = "extract-mail"),
            Format::Rtf => cfg!(feature = "extract-rtf"),
            Format::Utf8Bom | Format::Utf16 | Format::Utf32 | Format::Legacy8Bit => true,
            Format::Transform
            | Format::OldOffice
            | Format::Image
            | Format::Archive
            | Format::Audio
            | Format::Video
            | Format::Executable
            | Format::Database => false,
        }
    }
}

/// The format of `bytes`, or `None` for UTF-8 text (nothing to extract) and
/// for binary content no extractor reads.
pub fn sniff(bytes: &[u8]) -> Option<Format> {
    if bytes.is_empty() {
        return None;
    }
    if is_pdf(bytes) {
        return Some(Format::Pdf);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return zip_format(bytes);
    }
    if bytes.starts_with(b"{\\rtf") {
        return Some(Format::Rtf);
    }
    if let Some(format) = text_encoding(bytes) {
        return Some(format);
    }
    if is_html(bytes) {
        return Some(Format::Html);
    }
    if is_mbox(bytes) {
        return Some(Format::Mbox);
    }
    if is_mail(bytes) {
        return Some(Format::Mail);
    }
    if is_legacy_text(bytes) {
        return Some(Format::Legacy8Bit);
    }
    None
}

/// What kind of binary file `bytes` is, by its magic bytes, for the summary
/// ("40 image files, 3 archive files (identical copies only)"); `None` when
/// no common signature matches (then it is counted as "binary").
pub fn binary_kind(bytes: &[u8]) -> Option<Format> {
    let holds =
        |&(offset, magic): &(usize, &[u8])| bytes.get(offset..offset + magic.len()) == Some(magic);
    SIGNATURES
        .iter()
        .find(|(_, parts)| parts.iter().all(holds))
        .map(|&(kind, _)| kind)
}

/// Bytes that must be at an offset of the file.
type Magic = (usize, &'static [u8]);

/// The magic bytes of each kind: every [`Magic`] of an entry must hold; the
/// first entry that matches wins, so the specific `ftyp` brands of images
/// come before the generic one of video.
const SIGNATURES: &[(Format, &[Magic])] = &[
    (
        Format::OldOffice,
        &[(0, b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")],
    ),
    (Format::Image, &[(0, b"\x89PNG\r\n\x1A\n")]),
    (Format::Image, &[(0, b"\xFF\xD8\xFF")]),
    (Format::Image, &[(0, b"GIF87a")]),
    (Format::Image, &[(0, b"GIF89a")]),
    (Format::Image, &[(0, b"II*\x00")]),
    (Format::Image, &[(0, b"MM\x00*")]),
    (Format::Image, &[(0, b"RIFF"), (8, b"WEBP")]),
    (Format::Image, &[(4, b"ftyp"), (8, b"heic")]),
    (Format::Image, &[(4, b"ftyp"), (8, b"heix")]),
    (Format::Image, &[(4, b"ftyp"), (8, b"avif")]),
    (Format::Image, &[(4, b"ftyp"), (8, b"mif1")]),
    (Format::Archive, &[(0, b"PK\x03\x04")]),
    (Format::Archive, &[(0, b"PK\x05\x06")]),
    (Format::Archive, &[(0, b"\x1F\x8B")]),
    (Format::Archive, &[(0, b"BZh")]),
    (Format::Archive, &[(0, b"\xFD7zXZ\x00")]),
    (Format::Archive, &[(0, b"\x28\xB5\x2F\xFD")]),
    (Format::Archive, &[(0, b"7z\xBC\xAF\x27\x1C")]),
    (Format::Archive, &[(0, b"Rar!\x1A\x07")]),
    (Format::Archive, &[(257, b"ustar")]),
    (Format::Audio, &[(0, b"ID3")]),
    (Format::Audio, &[(0, b"fLaC")]),
    (Format::Audio, &[(0, b"OggS")]),
    (Format::Audio, &[(0, b"RIFF"), (8, b"WAVE")]),
    (Format::Video, &[(4, b"ftyp")]),
    (Format::Video, &[(0, b"\x1A\x45\xDF\xA3")]),
    (Format::Video, &[(0, b"RIFF"), (8, b"AVI ")]),
    (Format::Executable, &[(0, b"\x7FELF")]),
    (Format::Executable, &[(0, b"MZ")]),
    (Format::Executable, &[(0, b"\xFE\xED\xFA\xCE")]),
    (Format::Executable, &[(0, b"\xFE\xED\xFA\xCF")]),
    (Format::Executable, &[(0, b"\xCF\xFA\xED\xFE")]),
    (Format::Executable, &[(0, b"\xCE\xFA\xED\xFE")]),
    (Format::Executable, &[(0, b"\x00asm")]),
    (Format::Executable, &[(0, b"\xCA\xFE\xBA\xBE")]),
    (Format::Database, &[(0, b"SQLite format 3\x00")]),
];

/// A PDF: the header at the start, or (as readers accept it) elsewhere in
/// the first KiB when the file also ends as a PDF does, so a text that
/// quotes `%PDF-` near its top stays text.
fn is_pdf(bytes: &[u8]) -> bool {
    if bytes.starts_with(b"%PDF-") {
        return true;
    }
    let head = &bytes[..bytes.len().min(1024)];
    let tail = &bytes[bytes.len().saturating_sub(1024)..];
    memchr::memmem::find(head, b"%PDF-").is_some()
        && memchr::memmem::rfind(tail, b"%%EOF").is_some()
}

/// An office document in a zip: ODF and EPUB name their type in a first
/// `mimetype` entry, OOXML has `[Content_Types].xml` and its main part.
#[cfg(feature = "extract-office")]
fn zip_format(bytes: &[u8]) -> Option<Format> {
    super::office::container_format(bytes)
}

#[cfg(not(feature = "extract-office"))]
fn zip_format(_: &[u8]) -> Option<Format> {
    None
}

/// A byte-order mark, or the zero-byte pattern of UTF-16/32 text without one.
fn text_encoding(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Some(Format::Utf8Bom);
    }
    if bytes.starts_with(b"\xFF\xFE\x00\x00") || bytes.starts_with(b"\x00\x00\xFE\xFF") {
        return Some(Format::Utf32);
    }
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Some(Format::Utf16);
    }
    super::text::unmarked_utf(bytes)
}

/// Skips a UTF-8 byte-order mark, whitespace and comments at the start.
fn after_prolog(mut bytes: &[u8]) -> &[u8] {
    loop {
        let trimmed = bytes.trim_ascii_start();
        if let Some(rest) = trimmed.strip_prefix(b"<!--") {
            match memchr::memmem::find(rest, b"-->") {
                Some(end) => bytes = &rest[end + 3..],
                None => return b"",
            }
        } else {
            return trimmed;
        }
    }
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// A page that begins with HTML markup: a doctype, `<html`, or an XML
/// declaration whose root is `<html` (XHTML). Markup later in a text (a
/// reStructuredText page quoting HTML) does not make it a page.
fn is_html(bytes: &[u8]) -> bool {
    let start = after_prolog(&bytes[..bytes.len().min(4096)]);
    if starts_with_ignore_case(start, b"<!doctype html") || starts_with_ignore_case(start, b"<html")
    {
        return true;
    }
    if start.starts_with(b"<?xml") {
        let Some(end) = memchr::memmem::find(start, b"?>") else {
            return false;
        };
        let rest = after_prolog(&start[end + 2..]);
        return starts_with_ignore_case(rest, b"<!doctype html")
            || starts_with_ignore_case(rest, b"<html");
    }
    false
}

/// Header names only messages carry (not `Date:` or `Subject:` alone, which
/// notes and changelogs have too).
const MAIL_HEADERS: [&[u8]; 12] = [
    b"from",
    b"to",
    b"cc",
    b"subject",
    b"date",
    b"message-id",
    b"received",
    b"return-path",
    b"mime-version",
    b"delivered-to",
    b"reply-to",
    b"in-reply-to",
];

/// A message: it begins with a block of header lines (each `Name: value`
/// with an RFC 5322 field name, or a folded continuation) ended by a blank
/// line, and at least three of its names are mail's own, one of them
/// `From`, `Received`, `Return-Path`, `Message-ID` or `MIME-Version`.
fn is_mail(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(64 << 10)];
    let mut mail_names = 0;
    let mut origin = false;
    let mut lines = 0;
    for line in head.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return lines > 0 && mail_names >= 3 && origin;
        }
        lines += 1;
        if line[0] == b' ' || line[0] == b'\t' {
            if lines == 1 {
                return false;
            }
            continue;
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return false;
        };
        let name = &line[..colon];
        if name.is_empty() || !name.iter().all(|&b| b.is_ascii_graphic() && b != b':') {
            return false;
        }
        let lower = name.to_ascii_lowercase();
        if MAIL_HEADERS.contains(&lower.as_slice()) {
            mail_names += 1;
        }
        if matches!(
            lower.as_slice(),
            b"from" | b"received" | b"return-path" | b"message-id" | b"mime-version"
        ) {
            origin = true;
        }
    }
    false
}

/// An mbox: a `From ` separator line, then a message.
fn is_mbox(bytes: &[u8]) -> bool {
    if !bytes.starts_with(b"From ") {
        return false;
    }
    match memchr::memchr(b'\n', bytes) {
        Some(end) if end < 1024 => is_mail(&bytes[end + 1..]),
        _ => false,
    }
}

/// Not UTF-8, yet text: no NUL byte in the first 8 KiB (the binary rule),
/// few control characters, and in the first 64 KiB more invalid UTF-8
/// sequences than valid multi-byte characters. So a UTF-8 file with a few
/// damaged bytes stays UTF-8 (decoded lossily, as the bytes are compared
/// without extraction), while Latin-1 or Windows-1252 text, whose accented
/// letters are lone high bytes, is decoded. Only the head is looked at, so a
/// large file is not read whole here (the chunked path reads it a chunk at a
/// time).
fn is_legacy_text(bytes: &[u8]) -> bool {
    if crate::text::looks_binary(bytes) {
        return false;
    }
    let head = &bytes[..bytes.len().min(64 << 10)];
    // The common case, UTF-8 text, in one fast validation.
    match std::str::from_utf8(head) {
        Ok(_) => return false,
        Err(err) if err.error_len().is_none() => return false,
        Err(_) => {}
    }
    let (mut invalid, mut multibyte) = (0usize, 0usize);
    let mut chunks = head.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        multibyte += chunk.valid().chars().filter(|c| !c.is_ascii()).count();
        // A sequence cut by the 64 KiB limit is not invalid.
        let cut = chunks.peek().is_none() && head.len() < bytes.len();
        if !chunk.invalid().is_empty() && !cut {
            invalid += 1;
        }
    }
    if invalid == 0 || multibyte >= invalid {
        return false;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0C | 0x1B))
        .count();
    controls * 100 <= head.len()
}
