//! Office documents in a zip container: OOXML (`.docx`, `.pptx`, `.xlsx`),
//! ODF (`.odt`, `.odp`, `.ods`) and EPUB, read with `zip` and `quick-xml`.
//!
//! What is text: the body, tables (a cell ends with a tab, a row or a
//! paragraph with a newline), footnotes, endnotes and speaker notes; not
//! styles, field codes, deleted revisions or comments. Each part is read
//! with a cap on its inflated size and the whole document with a cap on all
//! parts together, so a zip bomb is refused; XML entities other than the five
//! predefined and character references are not expanded, so an entity bomb
//! expands to nothing.

use std::borrow::Cow;
use std::fmt;
use std::io::{Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use zip::ZipArchive;
use zip::result::ZipError;

use super::{Failure, Format};

/// Inflated bytes one document's parts may add up to.
const MAX_INFLATED: u64 = 256 << 20;
/// Parts of one document read at most (slides, sheets, chapters).
const MAX_PARTS: usize = 10_000;

type Archive<'a> = ZipArchive<Cursor<&'a [u8]>>;

/// The office format of a zip, or `None` for any other zip: ODF and EPUB by
/// their `mimetype` entry, OOXML by its content types and main part. A zip
/// whose central directory does not open (a download or copy cut short) is
/// recognised by its local entries, so that it is counted as a damaged
/// document of its kind, not as an archive.
pub(super) fn container_format(bytes: &[u8]) -> Option<Format> {
    let Ok(mut archive) = ZipArchive::new(Cursor::new(bytes)) else {
        return format_by_local_entries(bytes);
    };
    if let Ok(entry) = archive.by_name("mimetype") {
        let mut mimetype = String::new();
        entry.take(128).read_to_string(&mut mimetype).ok()?;
        return format_of_mimetype(&mimetype);
    }
    let has = |archive: &mut Archive<'_>, name: &str| archive.index_for_name(name).is_some();
    if !has(&mut archive, "[Content_Types].xml") {
        return None;
    }
    if has(&mut archive, "word/document.xml") {
        Some(Format::Docx)
    } else if has(&mut archive, "ppt/presentation.xml") {
        Some(Format::Pptx)
    } else if has(&mut archive, "xl/workbook.xml") {
        Some(Format::Xlsx)
    } else {
        None
    }
}

/// ODF's and EPUB's format by the text of their `mimetype` entry.
fn format_of_mimetype(mimetype: &str) -> Option<Format> {
    let mimetype = mimetype.trim();
    let odf = "application/vnd.oasis.opendocument.";
    if mimetype == "application/epub+zip" {
        Some(Format::Epub)
    } else if let Some(kind) = mimetype.strip_prefix(odf) {
        match kind.split('-').next() {
            Some("text") => Some(Format::Odt),
            Some("presentation") => Some(Format::Odp),
            Some("spreadsheet") => Some(Format::Ods),
            _ => None,
        }
    } else {
        None
    }
}

/// The office format of a zip without a readable central directory, from
/// the local headers the zip format puts before each entry's data: ODF and
/// EPUB require `mimetype` to be the first entry, stored uncompressed, so
/// its text follows its header; OOXML is told by `[Content_Types].xml` and
/// the folder of its main part among the entries' names. The names are
/// found by their header signature, not by walking from entry to entry,
/// since an entry written with a trailing data descriptor does not say its
/// size in its header.
fn format_by_local_entries(bytes: &[u8]) -> Option<Format> {
    const HEADER: usize = 30;
    let u16_at = |at: usize| -> Option<usize> {
        let b = bytes.get(at..at + 2)?;
        Some(usize::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let u32_at = |at: usize| -> Option<usize> {
        let b = bytes.get(at..at + 4)?;
        usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
    };
    let name_at = |at: usize| -> Option<&[u8]> {
        let len = u16_at(at + 26)?;
        bytes.get(at + HEADER..at + HEADER + len)
    };
    if name_at(0)? == b"mimetype" && u16_at(8)? == 0 {
        let data = HEADER + u16_at(26)? + u16_at(28)?;
        let mimetype = bytes.get(data..data + u32_at(18)?.min(128))?;
        return format_of_mimetype(std::str::from_utf8(mimetype).ok()?);
    }
    let (mut content_types, mut main) = (false, None);
    for at in memchr::memmem::find_iter(bytes, b"PK\x03\x04") {
        let Some(name) = name_at(at) else { break };
        content_types |= name == b"[Content_Types].xml";
        main = main.or(if name.starts_with(b"word/") {
            Some(Format::Docx)
        } else if name.starts_with(b"ppt/") {
            Some(Format::Pptx)
        } else if name.starts_with(b"xl/") {
            Some(Format::Xlsx)
        } else {
            None
        });
        if content_types && main.is_some() {
            return main;
        }
    }
    None
}

/// The text of an office document of `format`.
pub(super) fn text(format: Format, bytes: &[u8]) -> Result<String, Failure> {
    let archive = ZipArchive::new(Cursor::new(bytes)).map_err(|err| {
        if memchr::memmem::rfind(bytes, b"PK\x05\x06").is_none() {
            Failure::Damaged("cut short: the zip's central directory is missing".to_string())
        } else {
            zip_failure(err)
        }
    })?;
    let mut parts = Parts {
        archive,
        inflated: 0,
    };
    let mut out = String::new();
    match format {
        Format::Docx => {
            parts.xml_text("word/document.xml", &Docx, &mut out)?;
            for optional in ["word/footnotes.xml", "word/endnotes.xml"] {
                if parts.has(optional) {
                    parts.xml_text(optional, &Docx, &mut out)?;
                }
            }
        }
        Format::Pptx => {
            for prefix in ["ppt/slides/slide", "ppt/notesSlides/notesSlide"] {
                for name in parts.numbered(prefix, ".xml") {
                    parts.xml_text(&name, &Drawing, &mut out)?;
                }
            }
        }
        Format::Xlsx => xlsx(&mut parts, &mut out)?,
        Format::Odt | Format::Odp | Format::Ods => {
            parts.xml_text("content.xml", &Odf, &mut out)?;
        }
        Format::Epub => epub(&mut parts, &mut out)?,
        _ => unreachable!("not an office format"),
    }
    Ok(out)
}

fn zip_failure(err: ZipError) -> Failure {
    match err {
        ZipError::InvalidPassword => Failure::Encrypted,
        ZipError::UnsupportedArchive(what) if what == ZipError::PASSWORD_REQUIRED => {
            Failure::Encrypted
        }
        other => Failure::Damaged(other.to_string()),
    }
}

/// The parts of one archive, read within [`MAX_INFLATED`] in all.
struct Parts<'a> {
    archive: Archive<'a>,
    inflated: u64,
}

impl Parts<'_> {
    fn has(&self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// `prefix` N `suffix` entries, by N.
    fn numbered(&self, prefix: &str, suffix: &str) -> Vec<String> {
        let mut found: Vec<(u64, String)> = self
            .archive
            .file_names()
            .filter_map(Result::ok)
            .filter_map(|name| {
                let n = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
                Some((n.parse().ok()?, name.into_owned()))
            })
            .collect();
        found.sort();
        found.truncate(MAX_PARTS);
        found.into_iter().map(|(_, name)| name).collect()
    }

    /// The part `name` as text (lossy UTF-8), refusing one that would
    /// inflate past what is left of the document's cap.
    fn read(&mut self, name: &str) -> Result<String, Failure> {
        let left = MAX_INFLATED - self.inflated;
        let entry = self.archive.by_name(name).map_err(|err| match err {
            ZipError::FileNotFound => Failure::Damaged(format!("no part {name}")),
            other => zip_failure(other),
        })?;
        if entry.encrypted() {
            return Err(Failure::Encrypted);
        }
        if entry.size() > left {
            return Err(Failure::Damaged(format!(
                "{name} inflates past the cap of {MAX_INFLATED} bytes (a zip bomb?)"
            )));
        }
        let mut bytes = Vec::new();
        entry
            .take(left + 1)
            .read_to_end(&mut bytes)
            .map_err(|err| Failure::Damaged(format!("{name}: {err}")))?;
        if bytes.len() as u64 > left {
            return Err(Failure::Damaged(format!(
                "{name} inflates past the cap of {MAX_INFLATED} bytes (a zip bomb?)"
            )));
        }
        self.inflated += bytes.len() as u64;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
        })
    }

    /// The text of XML part `name` under `rules`, appended to `out`.
    fn xml_text(&mut self, name: &str, rules: &dyn Rules, out: &mut String) -> Result<(), Failure> {
        let xml = self.read(name)?;
        walk(&xml, rules, out).map_err(|err| Failure::Damaged(format!("{name}: {err}")))
    }
}

/// What an XML vocabulary calls text, by local element names.
trait Rules {
    /// Text directly inside this element is kept (`None`: all text is,
    /// except inside a [`Rules::skips`] element).
    fn text_in(&self) -> Option<&'static [&'static str]>;
    /// Elements whose whole content is not text (deleted revisions, field
    /// codes, comments).
    fn skips(&self, name: &str) -> bool;
    /// What an empty or end element adds (a tab, a newline, spaces).
    fn mark(&self, name: &str, element: Option<&BytesStart<'_>>) -> Option<Cow<'static, str>>;
}

/// WordprocessingML: runs' `w:t`.
struct Docx;

impl Rules for Docx {
    fn text_in(&self) -> Option<&'static [&'static str]> {
        Some(&["t"])
    }
    fn skips(&self, name: &str) -> bool {
        matches!(name, "delText" | "instrText" | "del" | "comment")
    }
    fn mark(&self, name: &str, _: Option<&BytesStart<'_>>) -> Option<Cow<'static, str>> {
        match name {
            "p" | "br" | "cr" | "tr" => Some("\n".into()),
            "tab" | "tc" => Some("\t".into()),
            _ => None,
        }
    }
}

/// DrawingML (slides, notes): `a:t`.
struct Drawing;

impl Rules for Drawing {
    fn text_in(&self) -> Option<&'static [&'static str]> {
        Some(&["t"])
    }
    fn skips(&self, _: &str) -> bool {
        false
    }
    fn mark(&self, name: &str, _: Option<&BytesStart<'_>>) -> Option<Cow<'static, str>> {
        match name {
            "p" | "br" | "tr" => Some("\n".into()),
            "tc" => Some("\t".into()),
            _ => None,
        }
    }
}

/// ODF content: all text of the body, `text:s` as its count of spaces.
struct Odf;

impl Rules for Odf {
    fn text_in(&self) -> Option<&'static [&'static str]> {
        None
    }
    fn skips(&self, name: &str) -> bool {
        matches!(
            name,
            "tracked-changes" | "annotation" | "font-face-decls" | "automatic-styles" | "scripts"
        )
    }
    fn mark(&self, name: &str, element: Option<&BytesStart<'_>>) -> Option<Cow<'static, str>> {
        match name {
            "p" | "h" | "line-break" | "table-row" => Some("\n".into()),
            "tab" | "table-cell" => Some("\t".into()),
            "s" => {
                let count = element
                    .and_then(|e| e.try_get_attribute("text:c").ok().flatten())
                    .and_then(|a| {
                        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .ok()?
                            .parse::<usize>()
                            .ok()
                    })
                    .unwrap_or(1)
                    .min(1024);
                Some(" ".repeat(count).into())
            }
            _ => None,
        }
    }
}

/// Why a part's XML could not be walked to its end.
#[derive(Debug)]
enum XmlDamage {
    Malformed(quick_xml::Error),
    CutShort { open: usize },
}

impl fmt::Display for XmlDamage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XmlDamage::Malformed(err) => err.fmt(f),
            XmlDamage::CutShort { open } => write!(f, "cut short inside {open} open elements"),
        }
    }
}

/// Appends the text of `xml` to `out` as `rules` say; an error for XML that
/// is not well formed or ends inside an element (a part cut short).
fn walk(xml: &str, rules: &dyn Rules, out: &mut String) -> Result<(), XmlDamage> {
    let mut reader = Reader::from_str(xml);
    let text_in = rules.text_in();
    let mut open = 0usize;
    // Depth inside skipped elements, and inside text elements.
    let mut skipping = 0usize;
    let mut in_text = 0usize;
    loop {
        let event = reader.read_event().map_err(XmlDamage::Malformed)?;
        match &event {
            Event::Start(_) => open += 1,
            Event::End(_) => open = open.saturating_sub(1),
            _ => {}
        }
        match event {
            Event::Start(e) => {
                let local = e.local_name();
                let name = local.as_ref();
                if skipping > 0 || rules.skips(name) {
                    skipping += 1;
                } else if text_in.is_some_and(|names| names.contains(&name)) {
                    in_text += 1;
                }
            }
            Event::Empty(e) => {
                let local = e.local_name();
                if skipping == 0
                    && let Some(mark) = rules.mark(local.as_ref(), Some(&e))
                {
                    out.push_str(&mark);
                }
            }
            Event::End(e) => {
                let local = e.local_name();
                let name = local.as_ref();
                if skipping > 0 {
                    skipping -= 1;
                    continue;
                }
                if text_in.is_some_and(|names| names.contains(&name)) {
                    in_text = in_text.saturating_sub(1);
                }
                if let Some(mark) = rules.mark(name, None) {
                    out.push_str(&mark);
                }
            }
            Event::Text(t) if skipping == 0 && (text_in.is_none() || in_text > 0) => {
                out.push_str(&t.xml10_content());
            }
            Event::CData(t) if skipping == 0 && (text_in.is_none() || in_text > 0) => {
                out.push_str(&t);
            }
            Event::GeneralRef(r) if skipping == 0 && (text_in.is_none() || in_text > 0) => {
                if let Some(c) = resolve_reference(&r) {
                    out.push(c);
                }
            }
            Event::Eof if open > 0 => {
                return Err(XmlDamage::CutShort { open });
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

/// A character reference or one of XML's five predefined entities; any
/// other entity (declared in a DTD) is not expanded.
fn resolve_reference(r: &quick_xml::events::BytesRef<'_>) -> Option<char> {
    if r.is_char_ref() {
        return r.resolve_char_ref().ok().flatten();
    }
    match &**r {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "apos" => Some('\''),
        "quot" => Some('"'),
        _ => None,
    }
}

/// A spreadsheet: every sheet in order, a row a line, cells by tabs;
/// strings from the shared table, numbers as written.
fn xlsx(parts: &mut Parts<'_>, out: &mut String) -> Result<(), Failure> {
    let shared = if parts.has("xl/sharedStrings.xml") {
        let xml = parts.read("xl/sharedStrings.xml")?;
        shared_strings(&xml)
            .map_err(|err| Failure::Damaged(format!("xl/sharedStrings.xml: {err}")))?
    } else {
        Vec::new()
    };
    for name in parts.numbered("xl/worksheets/sheet", ".xml") {
        let xml = parts.read(&name)?;
        sheet(&xml, &shared, out).map_err(|err| Failure::Damaged(format!("{name}: {err}")))?;
    }
    Ok(())
}

/// The shared strings: each `si`'s `t` texts, phonetic runs left out.
fn shared_strings(xml: &str) -> Result<Vec<String>, quick_xml::Error> {
    let mut reader = Reader::from_str(xml);
    let mut strings = Vec::new();
    let mut current = String::new();
    let (mut in_t, mut in_phonetic) = (false, false);
    loop {
        match reader.read_event()? {
            Event::Start(e) => match e.local_name().as_ref() {
                "t" => in_t = true,
                "rPh" => in_phonetic = true,
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                "t" => in_t = false,
                "rPh" => in_phonetic = false,
                "si" => strings.push(std::mem::take(&mut current)),
                _ => {}
            },
            Event::Text(t) if in_t && !in_phonetic => current.push_str(&t.xml10_content()),
            Event::GeneralRef(r) if in_t && !in_phonetic => {
                if let Some(c) = resolve_reference(&r) {
                    current.push(c);
                }
            }
            Event::Eof => return Ok(strings),
            _ => {}
        }
    }
}

/// One worksheet's cells.
fn sheet(xml: &str, shared: &[String], out: &mut String) -> Result<(), quick_xml::Error> {
    let mut reader = Reader::from_str(xml);
    let mut shared_cell = false;
    let (mut in_value, mut in_inline) = (false, false);
    let mut value = String::new();
    loop {
        match reader.read_event()? {
            Event::Start(e) => match e.local_name().as_ref() {
                "c" => {
                    shared_cell = e
                        .try_get_attribute("t")
                        .ok()
                        .flatten()
                        .is_some_and(|a| a.value.as_ref() == "s");
                }
                "v" => {
                    in_value = true;
                    value.clear();
                }
                "t" => in_inline = true,
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                "v" => {
                    in_value = false;
                    if shared_cell {
                        if let Some(s) = value
                            .trim()
                            .parse::<usize>()
                            .ok()
                            .and_then(|i| shared.get(i))
                        {
                            out.push_str(s);
                        }
                    } else {
                        out.push_str(&value);
                    }
                }
                "t" => in_inline = false,
                "c" => out.push('\t'),
                "row" => out.push('\n'),
                _ => {}
            },
            Event::Text(t) if in_value => value.push_str(&t.xml10_content()),
            Event::Text(t) if in_inline => out.push_str(&t.xml10_content()),
            Event::GeneralRef(r) if in_value || in_inline => {
                if let Some(c) = resolve_reference(&r) {
                    if in_value { value.push(c) } else { out.push(c) }
                }
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

/// An EPUB: the chapters in the order of the package's spine.
fn epub(parts: &mut Parts<'_>, out: &mut String) -> Result<(), Failure> {
    let container = parts.read("META-INF/container.xml")?;
    let package = attribute_of(&container, "rootfile", "full-path")
        .ok_or_else(|| Failure::Damaged("META-INF/container.xml names no package".to_string()))?;
    let opf = parts.read(&package)?;
    let base = match package.rfind('/') {
        Some(slash) => &package[..=slash],
        None => "",
    };
    let chapters = spine(&opf).map_err(|err| Failure::Damaged(format!("{package}: {err}")))?;
    for href in chapters.into_iter().take(MAX_PARTS) {
        let name = resolve_href(base, &href);
        if !parts.has(&name) {
            continue;
        }
        let page = parts.read(&name)?;
        chapter_text(&page, out)?;
        out.push('\n');
    }
    Ok(())
}

/// A chapter (XHTML): through the HTML extractor where this build has it.
fn chapter_text(page: &str, out: &mut String) -> Result<(), Failure> {
    #[cfg(feature = "extract-html")]
    {
        out.push_str(&super::html::text(page.as_bytes())?);
        Ok(())
    }
    #[cfg(not(feature = "extract-html"))]
    {
        walk(page, &Odf, out).map_err(|err| Failure::Damaged(err.to_string()))
    }
}

/// The first `attribute` of an `element` in `xml`.
fn attribute_of(xml: &str, element: &str, attribute: &str) -> Option<String> {
    let mut reader = Reader::from_str(xml);
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == element => {
                let value = e.try_get_attribute(attribute).ok()??;
                return Some(
                    value
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .ok()?
                        .into_owned(),
                );
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

/// The package's spine: the manifest hrefs of its `itemref`s, in order.
fn spine(opf: &str) -> Result<Vec<String>, quick_xml::Error> {
    let mut reader = Reader::from_str(opf);
    let mut manifest = std::collections::HashMap::new();
    let mut order = Vec::new();
    let attr = |e: &BytesStart<'_>, name: &str| {
        e.try_get_attribute(name).ok().flatten().and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(Cow::into_owned)
        })
    };
    loop {
        match reader.read_event()? {
            Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                "item" => {
                    if let (Some(id), Some(href)) = (attr(&e, "id"), attr(&e, "href")) {
                        manifest.insert(id, href);
                    }
                }
                "itemref" => {
                    if let Some(id) = attr(&e, "idref") {
                        order.push(id);
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(order
        .into_iter()
        .filter_map(|id| manifest.get(&id).cloned())
        .collect())
}

/// `href` (relative, percent-encoded) against the package's folder.
fn resolve_href(base: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or(href);
    let mut path: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for segment in href.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                path.pop();
            }
            s => path.push(s),
        }
    }
    percent_decode(&path.join("/"))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(v) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(v);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
