//! HTML and XHTML: the visible text, through `html2text` (html5ever, the
//! browsers' parsing algorithm), without decorations, link footnotes or
//! table borders; scripts and styles are not text, entities are decoded.
//! A page that is not UTF-8 is decoded first as legacy text is.

use super::Failure;

/// Lines are wrapped at this width, wider than any paragraph one reads,
/// so words are never broken (line breaks are whitespace to the shingler).
const WIDTH: usize = 1 << 16;

/// Elements nested deeper than this are a hostile page, not a document:
/// the renderer's cost grows with the square of the depth.
const MAX_DEPTH: usize = 1_000;

pub(super) fn text(bytes: &[u8]) -> Result<String, Failure> {
    let depth = nesting(bytes);
    if depth > MAX_DEPTH {
        return Err(Failure::Damaged(format!(
            "elements nested deeper than {MAX_DEPTH}"
        )));
    }
    let decoded;
    let page: &[u8] = match std::str::from_utf8(bytes) {
        Ok(_) => bytes,
        Err(_) => {
            decoded = super::text::legacy(bytes);
            decoded.as_bytes()
        }
    };
    html2text::config::plain_no_decorate()
        .raw_mode(true)
        .allow_width_overflow()
        .string_from_read(page, WIDTH)
        .map_err(|err| Failure::Damaged(err.to_string()))
}

/// The deepest nesting of elements in `page`, counted from its tags
/// without parsing: start tags open, end tags close; void elements, tags
/// closed by `/>`, and the elements HTML closes implicitly (`p`, `li`, table
/// cells, …), which sloppy pages leave open by the thousand, do not count.
fn nesting(page: &[u8]) -> usize {
    const NOT_COUNTED: [&[u8]; 22] = [
        b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
        b"source", b"track", b"wbr", b"p", b"li", b"dt", b"dd", b"tr", b"td", b"th", b"option",
        b"!",
    ];
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut at = 0;
    while let Some(lt) = memchr::memchr(b'<', &page[at..]) {
        let tag = &page[at + lt + 1..];
        let closing = tag.first() == Some(&b'/');
        let name_start = usize::from(closing);
        let name_len = tag[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'!')
            .count();
        let name = tag[name_start..name_start + name_len].to_ascii_lowercase();
        let end = memchr::memchr(b'>', tag).unwrap_or(tag.len());
        at += lt + 1 + end;
        if name.is_empty() || NOT_COUNTED.contains(&name.as_slice()) || name.starts_with(b"!") {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else if !tag[..end].ends_with(b"/") {
            depth += 1;
            deepest = deepest.max(depth);
        }
    }
    deepest
}
