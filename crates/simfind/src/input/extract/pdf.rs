//! PDF: the text layer, through `pdf-extract` (lopdf underneath), which
//! decrypts a document with an empty user password (the usual
//! "permissions only" protection) and refuses one that needs a password.
//! It panics on some fonts it does not support; the guard turns that into
//! a damaged document. A PDF whose pages hold only images has no text
//! layer: that is [`Failure::NoText`], never an empty text.

use super::Failure;

pub(super) fn text(bytes: &[u8]) -> Result<String, Failure> {
    pdf_extract::extract_text_from_mem(bytes).map_err(|err| match err {
        pdf_extract::OutputError::PdfError(pdf_extract::Error::Decryption(_)) => Failure::Encrypted,
        pdf_extract::OutputError::PdfError(pdf_extract::Error::InvalidPassword) => {
            Failure::Encrypted
        }
        other => Failure::Damaged(other.to_string()),
    })
}
