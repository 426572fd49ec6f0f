//! RTF, through `rtf-parser-tt` (the fork that keeps `\uN` characters and
//! paragraph breaks): the body text, without hidden text.

use super::Failure;

pub(super) fn text(bytes: &[u8]) -> Result<String, Failure> {
    let document = rtf_parser_tt::RtfDocument::from_bytes(bytes)
        .map_err(|err| Failure::Damaged(format!("{err:?}")))?;
    Ok(document.get_text())
}
