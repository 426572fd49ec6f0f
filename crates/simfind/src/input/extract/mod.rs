//! Extraction: the text of a document format, taken from a file's bytes
//! before they are shingled (issue #34).
//!
//! Role: the one step between "a file's bytes" and "the text that is
//! compared". [`Extract`] travels in [`ReadOptions`](super::read::ReadOptions),
//! and every opener of the source seam (`crate::source`) runs
//! [`Extract::run`] on what it read, so a scan, its verification, a query,
//! `explain` and the report see the same text. What a file is, is decided from its content
//! ([`sniff`]: magic bytes and container entries, never the name alone), and
//! each format has one module: [`office`] (OOXML, ODF, EPUB), [`html`],
//! [`mail`], [`rtf`], [`pdf`], and [`text`] (UTF-16/32, byte-order marks,
//! legacy 8-bit encodings).
//!
//! Invariants:
//! - A file's identity stays its bytes: `Document::raw` is what content
//!   hashes, "byte-identical" and `dedupe` see; only a document's text (its
//!   `Deref`) is extracted.
//! - A document that is a known format but yields no text (a scanned PDF, an
//!   encrypted one, a damaged docx) is never an empty text: it is
//!   [`Unextracted`], not compared, and paired only with byte-identical copies
//!   (two scanned PDFs are not "identical" because both have no text).
//! - The format extractors run on a thread of their own with a time budget
//!   and a panic guard, on a bounded input and with a bounded output: a
//!   hostile file costs its budget and is named, the run goes on.

pub(crate) mod guard;
#[cfg(feature = "extract-html")]
mod html;
#[cfg(feature = "extract-mail")]
mod mail;
#[cfg(feature = "extract-office")]
mod office;
#[cfg(feature = "extract-pdf")]
mod pdf;
#[cfg(feature = "extract-rtf")]
mod rtf;
pub mod sniff;
#[cfg(test)]
mod tests;
mod text;
mod transform;

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crate::params::ExtractionError;

pub use sniff::Format;
/// Encoding detection, also what the record readers decode their inputs by.
pub(crate) use text::{guess_legacy_of, unmarked_utf, utf16_big_endian};
pub use transform::Transform;

/// Which formats are extracted, the user's command that makes the text of
/// the files it applies to (`--transform`), and the bounds of one
/// extraction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extract {
    formats: u32,
    transform: Option<Arc<Transform>>,
    /// Files larger than this are not extracted (named, not compared).
    pub max_input: u64,
    /// Extracted text beyond this many bytes is cut (a note says so).
    pub max_text: usize,
    /// Time one file may take to extract.
    pub budget: Duration,
}

impl Default for Extract {
    /// Every format this build can read ([`Extract::auto`]).
    fn default() -> Self {
        Extract::auto()
    }
}

impl Extract {
    /// The default cap on a file extracted: large enough for any office
    /// document or book, small enough that a few workers at once stay in
    /// memory.
    pub const DEFAULT_MAX_INPUT: u64 = 256 << 20;
    /// The default cap on one document's text.
    pub const DEFAULT_MAX_TEXT: usize = 64 << 20;
    /// The default time budget of one file.
    pub const DEFAULT_BUDGET: Duration = Duration::from_secs(30);

    /// No extraction: a file's bytes are its text (`--extract none`).
    pub const NONE: Extract = Extract {
        formats: 0,
        transform: None,
        max_input: Self::DEFAULT_MAX_INPUT,
        max_text: Self::DEFAULT_MAX_TEXT,
        budget: Self::DEFAULT_BUDGET,
    };

    /// Every format this build has an extractor for.
    pub fn auto() -> Extract {
        Extract::only(Format::ALL.iter().copied().filter(|f| f.built_in()))
    }

    /// Only `formats`.
    pub fn only(formats: impl IntoIterator<Item = Format>) -> Extract {
        let mut extract = Extract::NONE;
        for format in formats {
            extract.formats |= 1 << format as u32;
        }
        extract
    }

    /// These formats, and `transform`'s command for the files it applies to
    /// (before, and instead of, the built-in extractors).
    pub fn with_transform(mut self, transform: Transform) -> Extract {
        self.transform = Some(Arc::new(transform));
        self
    }

    /// The user's command, if there is one.
    pub fn transform(&self) -> Option<&Transform> {
        self.transform.as_deref()
    }

    /// Whether nothing is extracted.
    pub fn is_none(&self) -> bool {
        self.formats == 0 && self.transform.is_none()
    }

    /// Whether `format` is extracted.
    pub fn includes(&self, format: Format) -> bool {
        self.formats & (1 << format as u32) != 0
    }

    /// The formats extracted, in [`Format::ALL`]'s order.
    pub fn formats(&self) -> impl Iterator<Item = Format> + '_ {
        Format::ALL.iter().copied().filter(|&f| self.includes(f))
    }

    /// How the extraction is stored in a recipe (the index, Parquet
    /// metadata): `none`, or the formats' names joined by commas, then the
    /// extractors' version, so an index built by other extractors is told
    /// apart; then, with a `--transform`, ` transform=` and its command and
    /// globs as JSON.
    pub fn recipe_name(&self) -> String {
        let formats = if self.formats == 0 {
            "none".to_string()
        } else {
            let names: Vec<&str> = self.formats().map(Format::name).collect();
            format!("{}@{}", names.join(","), EXTRACTORS_VERSION)
        };
        match &self.transform {
            None => formats,
            Some(transform) => {
                let stored = serde_json::json!({
                    "command": transform.command(),
                    "globs": transform.globs(),
                });
                format!("{formats}{TRANSFORM_MARK}{stored}")
            }
        }
    }

    /// The text of `raw`, a file's bytes: `None` when its format is not one
    /// to extract (the bytes are the text), else the extracted text in UTF-8
    /// or why there is none. For a document without a path: a `--transform`
    /// with globs does not apply to it.
    pub fn run(&self, raw: &[u8]) -> Option<Result<Vec<u8>, Unextracted>> {
        self.run_named(None, raw)
    }

    /// [`run`](Self::run) for the file at `path`: the user's command when it
    /// applies to that path, else the built-in extractor of its format.
    pub fn run_named(
        &self,
        path: Option<&Path>,
        raw: &[u8],
    ) -> Option<Result<Vec<u8>, Unextracted>> {
        if let Some(transform) = &self.transform
            && transform.applies_to(path)
        {
            let format = Format::Transform;
            if raw.len() as u64 > self.max_input {
                let failure = Failure::TooLarge(self.max_input);
                return Some(Err(Unextracted { format, failure }));
            }
            let text = transform
                .run(path, raw, self.budget, self.max_text)
                .and_then(|text| finish(text, self.max_text));
            return Some(text.map_err(|failure| Unextracted { format, failure }));
        }
        if self.formats == 0 {
            return None;
        }
        let format = sniff::sniff(raw)?;
        if !self.includes(format) {
            return None;
        }
        if raw.len() as u64 > self.max_input {
            return Some(Err(Unextracted {
                format,
                failure: Failure::TooLarge(self.max_input),
            }));
        }
        Some(extract(format, raw, self).map_err(|failure| Unextracted { format, failure }))
    }
}

impl Extract {
    /// Extracts `raw` as `format` whatever its content sniffs as, within
    /// this extraction's bounds: for the fuzz targets of each extractor,
    /// which give it bytes the sniffer would not pass on. Files are always
    /// sniffed ([`run`](Self::run)).
    #[doc(hidden)]
    pub fn run_as(&self, format: Format, raw: &[u8]) -> Result<Vec<u8>, Unextracted> {
        if raw.len() as u64 > self.max_input {
            let failure = Failure::TooLarge(self.max_input);
            return Err(Unextracted { format, failure });
        }
        extract(format, raw, self).map_err(|failure| Unextracted { format, failure })
    }
}

impl Extract {
    /// The extraction a recipe stored ([`Extract::recipe_name`]); an error
    /// when it names extractors of another version or formats this build
    /// lacks, since the text they made cannot be made again here. A stored
    /// `--transform` command is run again only when the user gave the same
    /// one (`given`): a command read from a file is never run on the file's
    /// word alone.
    pub fn from_recipe_name(
        name: &str,
        given: Option<&Transform>,
    ) -> Result<Extract, ExtractionError> {
        let (formats, stored) = match name.split_once(TRANSFORM_MARK) {
            Some((formats, stored)) => (formats, Some(stored)),
            None => (name, None),
        };
        let mut extract = Extract::formats_from_recipe_name(formats)?;
        if let Some(stored) = stored {
            let transform = stored_transform(stored)
                .ok_or_else(|| ExtractionError::Unknown(name.to_string()))?;
            if given != Some(&transform) {
                return Err(ExtractionError::TransformNotGiven {
                    command: transform.command().to_string(),
                    globs: transform.globs().to_vec(),
                });
            }
            extract = extract.with_transform(transform);
        }
        Ok(extract)
    }

    fn formats_from_recipe_name(name: &str) -> Result<Extract, ExtractionError> {
        if name == "none" {
            return Ok(Extract::NONE);
        }
        let (list, version) = name
            .rsplit_once('@')
            .ok_or_else(|| ExtractionError::Unknown(name.to_string()))?;
        if version != EXTRACTORS_VERSION.to_string() {
            return Err(ExtractionError::Version {
                stored: version.to_string(),
                ours: EXTRACTORS_VERSION,
            });
        }
        list.parse()
            .map_err(|err: UnknownFormat| ExtractionError::Formats(err.to_string()))
    }
}

/// What separates the formats from a stored `--transform` in a recipe.
const TRANSFORM_MARK: &str = " transform=";

/// The `--transform` a recipe stored, as JSON.
fn stored_transform(json: &str) -> Option<Transform> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let command = value.get("command")?.as_str()?;
    let globs = value
        .get("globs")?
        .as_array()?
        .iter()
        .map(|g| g.as_str().map(str::to_string))
        .collect::<Option<Vec<String>>>()?;
    Transform::new(command, &globs).ok()
}

pub use crate::text::PAGE_BREAK;

/// The first and last page (from 1) that `range` of a paged text covers.
pub fn pages_of(text: &[u8], range: std::ops::Range<usize>) -> (usize, usize) {
    let first = 1 + memchr::memchr_iter(PAGE_BREAK, &text[..range.start]).count();
    (
        first,
        first + memchr::memchr_iter(PAGE_BREAK, &text[range]).count(),
    )
}

/// Bumped when an extractor's output changes, so stored signatures made
/// from the old text are not mixed with new ones.
pub const EXTRACTORS_VERSION: u32 = 2;

/// Why a [`Format::Text`]-like decode or an extractor gave no text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The format was read, and holds no text (a scanned PDF, an empty
    /// document, a spreadsheet of images).
    NoText,
    /// Encrypted with a password simfind does not have.
    Encrypted,
    /// The file is not a valid document of its format (the reason).
    Damaged(String),
    /// Larger than the extraction cap (the cap).
    TooLarge(u64),
    /// Took longer than the time budget.
    TimedOut(Duration),
    /// The text read is not text: mostly control characters, replacement
    /// characters or private-use code points, what a PDF font without a
    /// Unicode map gives.
    Unreadable,
}

/// A document of a known format whose text could not be had, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unextracted {
    pub format: Format,
    pub failure: Failure,
}

impl Unextracted {
    /// The reason with its details ("damaged docx (…)"), each setting it
    /// names written `{name}` for the face to spell
    /// ([`simfind_core::spec::setting`]); `Display` gives it in plain words.
    pub fn reason(&self) -> String {
        Reason(self).to_string()
    }

    /// The reason without its details, the summary's category, settings
    /// written `{name}` as in [`Unextracted::reason`]: "PDF without
    /// a text layer (scanned?)", "encrypted PDF", "damaged docx".
    pub fn category(&self) -> String {
        let name = self.format.display_name();
        if self.format == Format::Transform {
            return match self.failure {
                Failure::NoText | Failure::Unreadable => "without text from {transform}",
                Failure::Encrypted | Failure::Damaged(_) => "failed by {transform}",
                Failure::TooLarge(_) => "over the extraction size cap",
                Failure::TimedOut(_) => "over the {transform} time budget",
            }
            .to_string();
        }
        if self.format.is_binary_kind() {
            return name.to_string();
        }
        match self.failure {
            Failure::NoText if self.format == Format::Pdf => {
                "PDF without a text layer (scanned?)".to_string()
            }
            Failure::NoText => format!("{name} without text"),
            Failure::Encrypted => format!("encrypted {name}"),
            Failure::Damaged(_) => format!("damaged {name}"),
            Failure::TooLarge(_) => format!("{name} over the extraction size cap"),
            Failure::TimedOut(_) => format!("{name} over the extraction time budget"),
            Failure::Unreadable if self.format == Format::Pdf => {
                "PDF with an unreadable text layer".to_string()
            }
            Failure::Unreadable => format!("{name} with unreadable text"),
        }
    }
}

/// Every format, at the place of its stored code ([`format_code`]):
/// append only, since an index keeps why a document was not compared as a
/// number ([`Unextracted::stored_code`]).
const STORED_ORDER: [Format; 24] = [
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
    Format::Transform,
    Format::OldOffice,
    Format::Image,
    Format::Archive,
    Format::Audio,
    Format::Video,
    Format::Executable,
    Format::Database,
];

/// A format's place in [`STORED_ORDER`], as a match so that a new format
/// fails to compile until it has a code (a unit test checks the two agree).
fn format_code(format: Format) -> u32 {
    match format {
        Format::Pdf => 0,
        Format::Docx => 1,
        Format::Pptx => 2,
        Format::Xlsx => 3,
        Format::Odt => 4,
        Format::Odp => 5,
        Format::Ods => 6,
        Format::Epub => 7,
        Format::Html => 8,
        Format::Mail => 9,
        Format::Mbox => 10,
        Format::Rtf => 11,
        Format::Utf8Bom => 12,
        Format::Utf16 => 13,
        Format::Utf32 => 14,
        Format::Legacy8Bit => 15,
        Format::Transform => 16,
        Format::OldOffice => 17,
        Format::Image => 18,
        Format::Archive => 19,
        Format::Audio => 20,
        Format::Video => 21,
        Format::Executable => 22,
        Format::Database => 23,
    }
}

/// Failures per format in a stored code.
const FAILURE_CODES: u32 = 8;

impl Unextracted {
    /// A number ≥ 1 naming the format and the kind of failure, without the
    /// details (a parser's message, the cap): what an index stores, so that
    /// an unchanged file is counted by its reason without being read again.
    pub fn stored_code(&self) -> u32 {
        let format = format_code(self.format);
        let failure = match self.failure {
            Failure::NoText => 0,
            Failure::Encrypted => 1,
            Failure::Damaged(_) => 2,
            Failure::TooLarge(_) => 3,
            Failure::TimedOut(_) => 4,
            Failure::Unreadable => 5,
        };
        (format + 1) * FAILURE_CODES + failure
    }

    /// The reason a [`stored_code`](Self::stored_code) names, its details
    /// left empty (they print as nothing); `None` for a code this build does
    /// not know (a newer simfind's).
    pub fn from_stored_code(code: u32) -> Option<Unextracted> {
        let format = *STORED_ORDER.get((code / FAILURE_CODES).checked_sub(1)? as usize)?;
        let failure = match code % FAILURE_CODES {
            0 => Failure::NoText,
            1 => Failure::Encrypted,
            2 => Failure::Damaged(String::new()),
            3 => Failure::TooLarge(0),
            4 => Failure::TimedOut(Duration::ZERO),
            5 => Failure::Unreadable,
            _ => return None,
        };
        Some(Unextracted { format, failure })
    }
}

impl fmt::Display for Unextracted {
    /// The reason in plain words ([`simfind_core::spec::setting::plain`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&simfind_core::spec::plain(&self.reason()))
    }
}

/// The reason with its details, settings named as `{name}`: what
/// [`Unextracted::reason`] writes.
struct Reason<'a>(&'a Unextracted);

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let this = self.0;
        f.write_str(&this.category())?;
        match &this.failure {
            // Details an index did not keep.
            Failure::Damaged(reason) if reason.is_empty() => Ok(()),
            Failure::TooLarge(0) => Ok(()),
            Failure::TimedOut(budget) if budget.is_zero() => Ok(()),
            // One line per file on stderr, whatever a parser's message holds.
            Failure::Damaged(reason) => write!(
                f,
                " ({})",
                reason.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            Failure::TooLarge(cap) => write!(f, " of {cap} bytes"),
            Failure::TimedOut(budget) => write!(f, " of {} s", budget.as_secs_f64()),
            Failure::NoText if this.format == Format::OldOffice => f.write_str(
                " (.doc, .xls, .ppt); {transform} with a converter reads it (docs/FORMATS.md)",
            ),
            Failure::NoText if this.format.is_binary_kind() => {
                f.write_str("; {include_binary} compares its bytes")
            }
            Failure::Unreadable if this.format == Format::Pdf => {
                f.write_str(" (its fonts map glyphs to no characters; OCR reads it)")
            }
            Failure::NoText | Failure::Encrypted | Failure::Unreadable => Ok(()),
        }
    }
}

/// Extracts `format` from `bytes`: the plain-text decodings in place, the
/// format extractors under [`guard::isolated`].
fn extract(format: Format, bytes: &[u8], limits: &Extract) -> Result<Vec<u8>, Failure> {
    let text = match format {
        Format::Utf8Bom | Format::Utf16 | Format::Utf32 | Format::Legacy8Bit => {
            text::decode(format, bytes)?
        }
        _ => {
            let text = guard::isolated(bytes, limits.budget, move |bytes| {
                extract_format(format, bytes)
            })?;
            if !readable(&text) {
                return Err(Failure::Unreadable);
            }
            text
        }
    };
    finish(text, limits.max_text)
}

/// Whether an extracted text reads as text: at most a quarter of its
/// non-whitespace characters are control characters, replacement
/// characters or private-use code points. Text in any script passes; the
/// glyph numbers a PDF font without a Unicode map yields (`\u{1}`, `\u{2}`,
/// …) do not, and would otherwise make the text look binary.
fn readable(text: &str) -> bool {
    let (mut junk, mut all) = (0usize, 0usize);
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        all += 1;
        junk += usize::from(
            c.is_control() || c == '\u{FFFD}' || ('\u{E000}'..='\u{F8FF}').contains(&c),
        );
    }
    junk * 4 <= all
}

/// A text that is only whitespace is no text; a text over the cap is cut at
/// a character boundary.
fn finish(mut text: String, max_text: usize) -> Result<Vec<u8>, Failure> {
    if text.trim().is_empty() {
        return Err(Failure::NoText);
    }
    if text.len() > max_text {
        let mut end = max_text;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    Ok(text.into_bytes())
}

/// The format extractors (on the isolated thread).
fn extract_format(format: Format, bytes: &[u8]) -> Result<String, Failure> {
    match format {
        #[cfg(feature = "extract-pdf")]
        Format::Pdf => pdf::text(bytes),
        #[cfg(feature = "extract-office")]
        format if format.is_office() => office::text(format, bytes),
        #[cfg(feature = "extract-html")]
        Format::Html => html::text(bytes),
        #[cfg(feature = "extract-mail")]
        Format::Mail | Format::Mbox => mail::text(format, bytes),
        #[cfg(feature = "extract-rtf")]
        Format::Rtf => rtf::text(bytes),
        _ => {
            // Unused only in a build without every extractor feature.
            let _ = bytes;
            Err(Failure::Damaged("no extractor in this build".to_string()))
        }
    }
}

/// `--extract` as written: `auto`, `none`, or formats by name joined by
/// commas (`pdf,docx`; `office` names every OOXML and ODF format, `text`
/// the text encodings).
impl FromStr for Extract {
    type Err = UnknownFormat;

    fn from_str(list: &str) -> Result<Extract, UnknownFormat> {
        match list.trim() {
            "auto" => return Ok(Extract::auto()),
            "none" => return Ok(Extract::NONE),
            _ => {}
        }
        let mut formats = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let named = Format::by_name(name);
            if named.is_empty() {
                return Err(UnknownFormat(name.to_string()));
            }
            for format in named {
                if !format.built_in() {
                    return Err(UnknownFormat(format!("{name} (not in this build)")));
                }
                formats.push(format);
            }
        }
        if formats.is_empty() {
            return Err(UnknownFormat(list.to_string()));
        }
        Ok(Extract::only(formats))
    }
}

/// A name in an `--extract` list that is not a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown format {:?}: expected auto, none, or a comma-separated list of {}",
            self.0,
            Format::NAMES
        )
    }
}

impl std::error::Error for UnknownFormat {}
