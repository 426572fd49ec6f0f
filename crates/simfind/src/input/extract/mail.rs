//! E-mail: one message (`.eml`) or an mbox of them, through `mail-parser`:
//! the subject, then each text body part decoded (quoted-printable, base64,
//! the part's charset), an HTML-only body as its text. Addresses, dates and
//! transport headers are not compared (a forwarded copy differs in them and
//! is still the same message); attachments are not read.

use super::{Failure, Format};

pub(super) fn text(format: Format, bytes: &[u8]) -> Result<String, Failure> {
    let mut out = String::new();
    match format {
        Format::Mbox => {
            let mut any = false;
            for message in mail_parser::mailbox::mbox::MessageIterator::new(bytes) {
                let message = message
                    .map_err(|_| Failure::Damaged("unreadable mbox separator".to_string()))?;
                any |= message_text(message.contents(), &mut out);
                out.push('\n');
            }
            if !any {
                return Err(Failure::Damaged("no message in the mbox".to_string()));
            }
        }
        _ => {
            if !message_text(bytes, &mut out) {
                return Err(Failure::Damaged("not a readable message".to_string()));
            }
        }
    }
    Ok(out)
}

/// Appends one message's text; whether it parsed.
fn message_text(raw: &[u8], out: &mut String) -> bool {
    let Some(message) = mail_parser::MessageParser::default().parse(raw) else {
        return false;
    };
    if let Some(subject) = message.subject() {
        out.push_str(subject);
        out.push('\n');
    }
    for i in 0..message.text_body_count() {
        if let Some(body) = message.body_text(i) {
            out.push_str(&body);
            out.push('\n');
        }
    }
    true
}
