//! Every citation of *Mining of Massive Datasets* chapter 3 in the code,
//! tests and documents names a place of one edition: the seed text
//! `../shared/seeds/003_332d40479ab44711.txt`, which docs/MMDS.md states as
//! the edition (#20, "citations match one stated edition"). A citation is
//! "Example(s) 3.N", "Ex. 3.N", "Fig(s). 3.N"/"Figure(s) 3.N", "Section(s)
//! 3.N[.M]"/"§3.N[.M]" or "Exercise(s) 3.N.M", with lists ("3.14, 3.15",
//! "3.25 and 3.26") and ranges ("3.10–3.29", every member checked). The
//! seed has:
//! - an example where it says "Example 3.N" (English text) or "例3.N" (its
//!   notes), a figure where it says "Figure 3.N", "Fig. 3.N" or "图3.N", an
//!   exercise where it says "Exercise 3.N.M";
//! - a section 3.N.M where a heading carries that number (a `#` heading of
//!   the notes, or the English text's "3.N.M Title"), and a section 3.N where
//!   it has such a subsection or an English heading "3.N Title". The notes'
//!   two-level `#` headings are not counted: one part of them numbers its own
//!   outline (its "3.1 minhash" is not the book's 3.1).
//!
//! A line that says "not in the seed" may cite what the seed lacks (the
//! published book's first four examples): that is the statement that it does.
//!
//! docs/MMDS.md's table of worked examples also quotes the text's numbers
//! ("numeric result in the text"): each decimal number there must be in the
//! seed, so the column cannot hold a number the text does not print.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::util::root;

const SEED: &str = "../shared/seeds/003_332d40479ab44711.txt";

/// What the seed has: examples and figures by N, sections and exercises by
/// their numbers after "3.".
#[derive(Default, Debug)]
struct Edition {
    examples: BTreeSet<u32>,
    figures: BTreeSet<u32>,
    exercises: BTreeSet<(u32, u32)>,
    sections: BTreeSet<(u32, Option<u32>)>,
}

/// A number "3.N" or "3.N.M" at the start of `s`: (N, M) and its length.
fn number(s: &str) -> Option<((u32, Option<u32>), usize)> {
    let rest = s.strip_prefix("3.")?;
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let n_len = digits(rest);
    if n_len == 0 {
        return None;
    }
    let n: u32 = rest[..n_len].parse().ok()?;
    let after = &rest[n_len..];
    if let Some(tail) = after.strip_prefix('.') {
        let m_len = digits(tail);
        if m_len > 0 {
            let m: u32 = tail[..m_len].parse().ok()?;
            return Some(((n, Some(m)), 2 + n_len + 1 + m_len));
        }
    }
    Some(((n, None), 2 + n_len))
}

/// Positions just after each occurrence of `word` in `text`.
fn after<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    text.match_indices(word).map(move |(i, w)| i + w.len())
}

fn starts_title(s: &str) -> bool {
    s.strip_prefix(' ')
        .and_then(|t| t.chars().next())
        .is_some_and(|c| c.is_ascii_uppercase())
}

impl Edition {
    fn of(seed: &str) -> Edition {
        let mut e = Edition::default();
        for word in ["Example ", "例", "例 "] {
            for at in after(seed, word) {
                if let Some(((n, None), _)) = number(&seed[at..]) {
                    e.examples.insert(n);
                }
            }
        }
        for word in ["Figure ", "Fig. ", "图", "图 "] {
            for at in after(seed, word) {
                if let Some(((n, None), _)) = number(&seed[at..]) {
                    e.figures.insert(n);
                }
            }
        }
        for at in after(seed, "Exercise ") {
            if let Some(((n, Some(m)), _)) = number(&seed[at..]) {
                e.exercises.insert((n, m));
            }
        }
        for line in seed.lines() {
            let heading = line.trim_start_matches('#');
            if heading.len() < line.len()
                && let Some(((n, Some(m)), _)) = number(heading.trim_start())
            {
                e.sections.insert((n, Some(m)));
            }
        }
        // The English text's headings: "3.4.2 Analysis …", "3.5 Distance
        // Measures …", not a number that follows a cited kind.
        for (at, _) in seed.match_indices("3.") {
            let before = &seed[..at];
            if before.ends_with(|c: char| c.is_ascii_digit() || c == '.')
                || ["Example ", "Figure ", "Fig. ", "Exercise ", "Section "]
                    .iter()
                    .any(|w| before.ends_with(w))
            {
                continue;
            }
            if let Some((number, len)) = number(&seed[at..])
                && starts_title(&seed[at + len..])
            {
                e.sections.insert(number);
            }
        }
        let parents: Vec<u32> = e.sections.iter().map(|&(n, _)| n).collect();
        e.sections.extend(parents.into_iter().map(|n| (n, None)));
        e
    }

    fn has(&self, kind: Kind, (n, m): (u32, Option<u32>)) -> bool {
        match (kind, m) {
            (Kind::Example, None) => self.examples.contains(&n),
            (Kind::Figure, None) => self.figures.contains(&n),
            (Kind::Exercise, Some(m)) => self.exercises.contains(&(n, m)),
            (Kind::Section, m) => self.sections.contains(&(n, m)),
            _ => false,
        }
    }
}

/// A number after "3.": (N, M) of 3.N or 3.N.M.
type Place = (u32, Option<u32>);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Example,
    Figure,
    Section,
    Exercise,
}

/// The words that cite, longest first so that "Examples " is not read as
/// "Example " followed by "s".
const CITING: [(&str, Kind); 13] = [
    ("Examples ", Kind::Example),
    ("Example ", Kind::Example),
    ("Ex. ", Kind::Example),
    ("Figures ", Kind::Figure),
    ("Figure ", Kind::Figure),
    ("Figs. ", Kind::Figure),
    ("Fig. ", Kind::Figure),
    ("Sections ", Kind::Section),
    ("Section ", Kind::Section),
    ("§ ", Kind::Section),
    ("§", Kind::Section),
    ("Exercises ", Kind::Exercise),
    ("Exercise ", Kind::Exercise),
];

/// Every citation in `line`: its kind, the text cited, and each number it
/// names (ranges expanded).
fn citations(line: &str) -> Vec<(Kind, String, Vec<Place>)> {
    let mut found = Vec::new();
    let mut taken = 0;
    for (i, _) in line.char_indices() {
        if i < taken {
            continue;
        }
        let Some(&(word, kind)) = CITING.iter().find(|(w, _)| line[i..].starts_with(w)) else {
            continue;
        };
        // "Example" inside a word ("Counterexample ") is not a citation.
        if word.starts_with(char::is_alphabetic)
            && line[..i].ends_with(|c: char| c.is_alphanumeric())
        {
            continue;
        }
        let mut at = i + word.len();
        let Some((first, len)) = number(&line[at..]) else {
            continue;
        };
        let mut numbers = vec![first];
        at += len;
        // Further members: ", 3.N", " and 3.N", "–3.N" (a range).
        loop {
            let rest = &line[at..];
            let (range, skip) = if let Some(r) = rest.strip_prefix('–') {
                (true, rest.len() - r.len())
            } else if rest.starts_with(", 3.") {
                (false, 2)
            } else if rest.starts_with(" and 3.") {
                (false, 5)
            } else {
                break;
            };
            let Some((next, len)) = number(&rest[skip..]) else {
                break;
            };
            let last = *numbers.last().expect("one number at least");
            if range {
                match (last, next) {
                    ((a, None), (b, None)) if a < b => {
                        numbers.extend((a + 1..=b).map(|n| (n, None)))
                    }
                    ((a, Some(x)), (b, Some(y))) if a == b && x < y => {
                        numbers.extend((x + 1..=y).map(|m| (a, Some(m))))
                    }
                    _ => numbers.push(next),
                }
            } else {
                numbers.push(next);
            }
            at += skip + len;
        }
        found.push((kind, line[i..at].to_string(), numbers));
        taken = at;
    }
    found
}

/// The citations of `text` the edition does not have, as "file:line: text".
fn unknown(edition: &Edition, file: &str, text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for (no, line) in text.lines().enumerate() {
        if line.contains("not in the seed") {
            continue;
        }
        for (kind, cited, numbers) in citations(line) {
            for n in numbers {
                if !edition.has(kind, n) {
                    bad.push(format!(
                        "{file}:{}: {cited:?} ({kind:?} 3.{}{})",
                        no + 1,
                        n.0,
                        n.1.map(|m| format!(".{m}")).unwrap_or_default()
                    ));
                }
            }
        }
    }
    bad
}

/// src/, tests/, docs/ (every text file) and README.md.
fn cited_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| {
                ["rs", "md", "txt", "json", "toml", "sh", "py"].contains(&e.to_str().unwrap())
            }) {
                out.push(path);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    for dir in ["src", "tests", "docs"] {
        walk(&root().join(dir), &mut files);
    }
    files.sort();
    files
}

fn seed() -> String {
    std::fs::read_to_string(root().join(SEED)).expect("the seed text of the stated edition")
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/seeds")]
fn every_citation_names_a_place_of_the_stated_edition() {
    let seed = seed();
    let edition = Edition::of(&seed);
    // The reading of the seed itself: the places docs/MMDS.md lists.
    assert_eq!(
        edition.examples,
        (5..=29).collect(),
        "the seed's examples: 3.5–3.9 in its notes, 3.10–3.29 in its English text"
    );
    assert!((2..=4).chain(6..=15).all(|n| edition.figures.contains(&n)));
    assert!(edition.sections.contains(&(9, Some(6))) && edition.sections.contains(&(3, None)));
    assert!(
        !edition.sections.contains(&(1, None)),
        "the seed has no section 3.1"
    );

    let mut bad = Vec::new();
    let mut cited = 0;
    for file in cited_files() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue; // not UTF-8: no prose
        };
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        cited += text.lines().map(|l| citations(l).len()).sum::<usize>();
        bad.extend(unknown(&edition, &name, &text));
    }
    assert!(
        cited > 100,
        "only {cited} citations found: the scanner is broken"
    );
    assert!(
        bad.is_empty(),
        "citations of places the stated edition ({SEED}) does not have:\n{}",
        bad.join("\n")
    );
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/seeds")]
fn a_made_up_citation_is_caught() {
    let edition = Edition::of(&seed());
    // Spelled in pieces so that the scan of tests/ does not read them.
    for made_up in [
        concat!("see Exam", "ple 3.3 for the shingles"),
        concat!("Exam", "ples 3.27–3.31"),
        concat!("Fi", "g. 3.5"),
        concat!("Exer", "cise 3.5.42"),
        concat!("§", "3.1"),
        concat!("Sec", "tion 3.9.8"),
        concat!("Exam", "ples 3.25 and 3.30"),
    ] {
        assert!(
            !unknown(&edition, "x", made_up).is_empty(),
            "{made_up:?} should be an unknown citation"
        );
    }
    for real in [
        concat!("Exam", "ples 3.10–3.29"),
        concat!("Fi", "gs. 3.10, 3.11"),
        concat!("Exer", "cise 3.5.8"),
        concat!("§", "3.9.2–3.9.6"),
        concat!("Exam", "ple 3.1, not in the seed text"),
    ] {
        assert_eq!(
            unknown(&edition, "x", real),
            Vec::<String>::new(),
            "{real:?}"
        );
    }
}

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/seeds")]
fn the_text_numbers_quoted_in_mmds_md_are_the_texts() {
    let seed = seed();
    let doc = std::fs::read_to_string(root().join("docs/MMDS.md")).unwrap();
    let table = doc
        .split("| example / figure | numeric result in the text | here |")
        .nth(1)
        .expect("docs/MMDS.md's table of worked examples");
    let mut checked = 0;
    let mut missing = Vec::new();
    for row in table
        .trim_start()
        .lines()
        .take_while(|l| l.starts_with('|'))
        .skip(1)
    {
        let quoted = row.split('|').nth(2).expect("a second column");
        // Decimal numbers with a point, as printed ("0.99999996").
        let mut rest = quoted;
        while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
            let len = rest[start..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len() - start);
            let n = rest[start..start + len].trim_end_matches('.');
            if n.contains('.') && !n.starts_with("3.") {
                checked += 1;
                if !seed.contains(n) {
                    missing.push(format!("{n} (row {row})"));
                }
            }
            rest = &rest[start + len..];
        }
    }
    assert!(checked >= 15, "only {checked} numbers found in the table");
    assert!(
        missing.is_empty(),
        "numbers the table says are the text's but the seed does not print:\n{}",
        missing.join("\n")
    );
}
