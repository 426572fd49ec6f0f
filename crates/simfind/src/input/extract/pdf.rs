//! PDF: the text layer, through `pdf-extract` (lopdf underneath), which
//! decrypts a document with an empty user password (the usual
//! "permissions only" protection) and refuses one that needs a password.
//! It panics on some fonts it does not support; the guard turns that into
//! a damaged document. A PDF whose pages hold only images has no text
//! layer: that is [`Failure::NoText`], never an empty text.
//!
//! Pages are separated by a form feed, as `pdftotext` separates them, so
//! that `explain` can say on which page a passage is ([`page_of`]); a form
//! feed is whitespace to normalisation and shingling.

use std::cell::RefCell;
use std::rc::Rc;

use pdf_extract::{MediaBox, OutputDev, OutputError, PlainTextOutput, Transform};

use super::Failure;

pub(super) fn text(bytes: &[u8]) -> Result<String, Failure> {
    let mut doc = pdf_extract::Document::load_mem(bytes).map_err(|err| failure(err.into()))?;
    if doc.is_encrypted() {
        // The empty user password, as pdf-extract's own entry points try.
        doc.decrypt("").map_err(|_| Failure::Encrypted)?;
    }
    let text = Rc::new(RefCell::new(String::new()));
    let mut pages = Paged {
        text: Rc::clone(&text),
        plain: PlainTextOutput::new(Shared(Rc::clone(&text))),
        pages: 0,
    };
    pdf_extract::output_doc(&doc, &mut pages).map_err(failure)?;
    drop(pages);
    Ok(Rc::try_unwrap(text)
        .map(RefCell::into_inner)
        .unwrap_or_default())
}

fn failure(err: OutputError) -> Failure {
    match err {
        OutputError::PdfError(pdf_extract::Error::Decryption(_)) => Failure::Encrypted,
        OutputError::PdfError(pdf_extract::Error::InvalidPassword) => Failure::Encrypted,
        other => Failure::Damaged(other.to_string()),
    }
}

/// The text's writer, shared between the plain-text output and the page
/// marks.
struct Shared(Rc<RefCell<String>>);

impl std::fmt::Write for Shared {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.borrow_mut().push_str(s);
        Ok(())
    }
}

impl pdf_extract::ConvertToFmt for Shared {
    type Writer = Shared;
    fn convert(self) -> Shared {
        self
    }
}

/// pdf-extract's plain-text output, with a form feed before every page but
/// the first.
struct Paged {
    text: Rc<RefCell<String>>,
    plain: PlainTextOutput<Shared>,
    pages: u32,
}

impl OutputDev for Paged {
    fn begin_page(
        &mut self,
        page_num: u32,
        media_box: &MediaBox,
        art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        if self.pages > 0 {
            self.text.borrow_mut().push('\x0C');
        }
        self.pages += 1;
        self.plain.begin_page(page_num, media_box, art_box)
    }
    fn end_page(&mut self) -> Result<(), OutputError> {
        self.plain.end_page()
    }
    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), OutputError> {
        self.plain
            .output_character(trm, width, spacing, font_size, char)
    }
    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.plain.begin_word()
    }
    fn end_word(&mut self) -> Result<(), OutputError> {
        self.plain.end_word()
    }
    fn end_line(&mut self) -> Result<(), OutputError> {
        self.plain.end_line()
    }
}
