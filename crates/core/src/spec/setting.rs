//! Settings named inside the library's words. A reason that says what gets
//! past it ("a converter given as the transform reads it") names the setting
//! as `{name}`, its field name in the [`super::Spec`]; each face spells it its
//! own way (the command line as a flag, `app::speak`), and [`plain`] in plain
//! words, for whoever prints the library's text as it is. So no message of
//! the library spells a flag, and the command line's messages still name
//! the flag to give.

use std::borrow::Cow;

/// The settings a library message may name, with their plain words.
pub(crate) const PLAIN: &[(&str, &str)] = &[
    ("transform", "a transform command"),
    ("transform_globs", "its file globs"),
    ("include_binary", "including binary files"),
];

/// `text` with each `{name}` of a setting spelled by `spell` (a name it does
/// not know is left as it is).
pub fn spelled<'a>(text: &'a str, spell: &dyn Fn(&str) -> Option<String>) -> Cow<'a, str> {
    if !text.contains('{') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if spell(&after[..close]).is_some() => {
                out.push_str(&spell(&after[..close]).unwrap_or_default());
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// `text` with each setting in its plain words ([`PLAIN`]).
pub fn plain(text: &str) -> Cow<'_, str> {
    spelled(text, &|name| {
        PLAIN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, words)| (*words).to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_spelled_and_other_braces_kept() {
        let flag = |name: &str| (name == "transform").then(|| "--transform".to_string());
        assert_eq!(
            spelled("give the same {transform} to run it", &flag),
            "give the same --transform to run it"
        );
        assert_eq!(spelled("a {json} {transform", &flag), "a {json} {transform");
        assert_eq!(
            plain("{transform} and {transform_globs}"),
            "a transform command and its file globs"
        );
        assert!(matches!(plain("no setting"), Cow::Borrowed(_)));
    }
}
