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

mod guard;
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

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

pub use sniff::Format;
/// Encoding detection, also what the record readers decode their inputs by.
pub(crate) use text::{guess_legacy_of, unmarked_utf, utf16_big_endian};

/// Which formats are extracted, and the bounds of one extraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extract {
    formats: u32,
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

    /// Whether nothing is extracted.
    pub fn is_none(&self) -> bool {
        self.formats == 0
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
    /// apart.
    pub fn recipe_name(&self) -> String {
        if self.is_none() {
            return "none".to_string();
        }
        let names: Vec<&str> = self.formats().map(Format::name).collect();
        format!("{}@{}", names.join(","), EXTRACTORS_VERSION)
    }

    /// The text of `raw`, a file's bytes: `None` when its format is not one
    /// to extract (the bytes are the text), else the extracted text in UTF-8
    /// or why there is none.
    pub fn run(&self, raw: &[u8]) -> Option<Result<Vec<u8>, Unextracted>> {
        if self.is_none() {
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
    /// The extraction a recipe stored ([`Extract::recipe_name`]); an error
    /// when it names extractors of another version or formats this build
    /// lacks, since the text they made cannot be made again here.
    pub fn from_recipe_name(name: &str) -> Result<Extract, String> {
        if name == "none" {
            return Ok(Extract::NONE);
        }
        let (list, version) = name
            .rsplit_once('@')
            .ok_or_else(|| format!("{name:?} is not an extraction this simfind knows"))?;
        if version != EXTRACTORS_VERSION.to_string() {
            return Err(format!(
                "made by extractors of version {version}; this simfind has version {EXTRACTORS_VERSION}"
            ));
        }
        list.parse().map_err(|err: UnknownFormat| err.to_string())
    }
}

/// Bumped when an extractor's output changes, so stored signatures made
/// from the old text are not mixed with new ones.
pub const EXTRACTORS_VERSION: u32 = 1;

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
}

/// A document of a known format whose text could not be had, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unextracted {
    pub format: Format,
    pub failure: Failure,
}

impl Unextracted {
    /// The reason without its details, the summary's category: "PDF without
    /// a text layer (scanned?)", "encrypted PDF", "damaged docx".
    pub fn category(&self) -> String {
        let name = self.format.display_name();
        match self.failure {
            Failure::NoText if self.format == Format::Pdf => {
                "PDF without a text layer (scanned?)".to_string()
            }
            Failure::NoText => format!("{name} without text"),
            Failure::Encrypted => format!("encrypted {name}"),
            Failure::Damaged(_) => format!("damaged {name}"),
            Failure::TooLarge(_) => format!("{name} over the extraction size cap"),
            Failure::TimedOut(_) => format!("{name} over the extraction time budget"),
        }
    }
}

impl fmt::Display for Unextracted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.category())?;
        match &self.failure {
            Failure::Damaged(reason) => write!(f, " ({reason})"),
            Failure::TooLarge(cap) => write!(f, " of {cap} bytes"),
            Failure::TimedOut(budget) => write!(f, " of {} s", budget.as_secs_f64()),
            Failure::NoText | Failure::Encrypted => Ok(()),
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
        _ => guard::isolated(bytes, limits.budget, move |bytes| {
            extract_format(format, bytes)
        })?,
    };
    finish(text, limits.max_text)
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
        _ => Err(Failure::Damaged("no extractor in this build".to_string())),
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
