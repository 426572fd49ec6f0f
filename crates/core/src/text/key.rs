//! Blocking keys of a record's field (the candidate source beside LSH that
//! record-linkage tools call blocking): records whose field gives the same
//! key are candidates.
//!
//! Every key is taken from the field's *folded* value: accents and
//! punctuation folded as `--fold accents,punct` folds them, lower case, runs
//! of whitespace one space, trimmed; an empty folded value has no key (a
//! missing value blocks with nothing). Then:
//!
//! - [`KeyKind::Exact`]: the folded value;
//! - [`KeyKind::Prefix`]`(n)`: its first `n` characters;
//! - [`KeyKind::Soundex`]: the American Soundex code of its letters (a letter
//!   and three digits). Soundex rather than Double Metaphone: it fits in a
//!   screenful that can be checked by hand against the published rules,
//!   needs no dependency, and blocking only needs a code that typos of one
//!   consonant class or a vowel keep; a finer code would split more true
//!   pairs than it saves candidates.
//!
//! Pure: strings in, strings out.

use super::normalize::{Normalization, fold_char};

/// How a field's value becomes a blocking key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Exact,
    /// The first `n ≥ 1` characters of the folded value.
    Prefix(usize),
    Soundex,
}

impl std::fmt::Display for KeyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyKind::Exact => write!(f, "exact"),
            KeyKind::Prefix(n) => write!(f, "prefix={n}"),
            KeyKind::Soundex => write!(f, "soundex"),
        }
    }
}

/// The value folded for keys: accents and punctuation folded, lower case,
/// whitespace runs one space, trimmed.
pub(crate) fn fold_value(value: &str) -> String {
    let norm = Normalization {
        lowercase: true,
        collapse_whitespace: true,
        drop_whitespace: false,
        fold_accents: true,
        fold_punct: true,
    };
    let mut folded = String::with_capacity(value.len());
    for c in value.chars() {
        fold_char(c, norm, &mut |d| folded.extend(d.to_lowercase()));
    }
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The key of `value` by `kind`; `None` when the value has none (empty once
/// folded, or no letter for Soundex).
pub fn key_of(value: &str, kind: KeyKind) -> Option<String> {
    let folded = fold_value(value);
    if folded.is_empty() {
        return None;
    }
    match kind {
        KeyKind::Exact => Some(folded),
        KeyKind::Prefix(n) => Some(folded.chars().take(n).collect()),
        KeyKind::Soundex => soundex(&folded),
    }
}

/// The digit of a consonant in Soundex; vowels, `h`, `w` and `y` have none.
fn soundex_digit(c: char) -> Option<char> {
    Some(match c {
        'b' | 'f' | 'p' | 'v' => '1',
        'c' | 'g' | 'j' | 'k' | 'q' | 's' | 'x' | 'z' => '2',
        'd' | 't' => '3',
        'l' => '4',
        'm' | 'n' => '5',
        'r' => '6',
        _ => return None,
    })
}

/// American Soundex of the ASCII letters of `text` (others skipped): the
/// first letter, then the digits of the following consonants, a digit equal
/// to the one before dropped unless a vowel came between (`h` and `w` do not
/// separate), padded with zeros to three digits.
fn soundex(text: &str) -> Option<String> {
    let mut letters = text.chars().filter(char::is_ascii_alphabetic);
    let first = letters.next()?;
    let mut code = String::with_capacity(4);
    code.push(first.to_ascii_uppercase());
    let mut last = soundex_digit(first);
    for c in letters {
        if code.len() == 4 {
            break;
        }
        match soundex_digit(c) {
            Some(d) => {
                if last != Some(d) {
                    code.push(d);
                }
                last = Some(d);
            }
            None if c == 'h' || c == 'w' => {}
            None => last = None,
        }
    }
    while code.len() < 4 {
        code.push('0');
    }
    Some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soundex_gives_the_published_codes() {
        // The examples of the US National Archives' description.
        for (name, code) in [
            ("Robert", "R163"),
            ("Rupert", "R163"),
            ("Rubin", "R150"),
            ("Ashcraft", "A261"),
            ("Ashcroft", "A261"),
            ("Tymczak", "T522"),
            ("Pfister", "P236"),
            ("Honeyman", "H555"),
            ("Lee", "L000"),
        ] {
            assert_eq!(
                key_of(name, KeyKind::Soundex).as_deref(),
                Some(code),
                "{name}"
            );
        }
        assert_eq!(key_of("1234", KeyKind::Soundex), None);
    }

    #[test]
    fn keys_are_taken_from_the_folded_value() {
        assert_eq!(
            key_of("  José  MARÍA ", KeyKind::Exact).as_deref(),
            Some("jose maria")
        );
        assert_eq!(
            key_of("O'Brien", KeyKind::Exact).as_deref(),
            Some("o brien")
        );
        assert_eq!(key_of("Müller", KeyKind::Prefix(3)).as_deref(), Some("mul"));
        assert_eq!(key_of("Jo", KeyKind::Prefix(3)).as_deref(), Some("jo"));
        assert_eq!(key_of(" \t", KeyKind::Exact), None);
        assert_eq!(key_of("", KeyKind::Soundex), None);
        // Typos of one consonant class keep the code.
        assert_eq!(
            key_of("Smith", KeyKind::Soundex),
            key_of("Smyth", KeyKind::Soundex)
        );
    }
}
