//! Entity resolution as MMDS 3.8.2–3.8.3 describes it: records scored field
//! by field, and the scores validated by a measure outside the score.
//!
//! Scoring (3.8.2): each field is worth 100 points; a mismatch deducts a
//! penalty that grows quadratically with the edit distance (3.5.5:
//! insertions and deletions), here d² points, so a field scores
//! max(0, 100 − d²). "Bill" and "William" (d = 5) score 75.
//!
//! The text then lowers penalties by "publicly available tables": "Bill"
//! and "William" were "treated as if they differed in only one letter".
//! [`Equivalents`] is such a table (lines of words that may stand for one
//! another); with it, each word of one value whose equivalent appears in the
//! other is rewritten to it at a cost of 1, and a field's distance is the
//! smaller of the plain one and that cost plus the distance of the rewritten
//! value: "Bill Jones" and "William Jones" differ by 1, so 99 points.
//!
//! Validation (3.8.3): if h0 is the average of some measure (the delay
//! between the records' creation dates, a height difference) over pairs
//! surely matching, h1 its average over random pairs and h its average over
//! the pairs of one score, the fraction of true matches among those pairs is
//! f = (h1 − h)/(h1 − h0). With h0 = 10 and h1 = 45 days this is the text's
//! x = 45 − 35f solved for f. Pure: no file system, no printing.

use std::collections::HashMap;

use crate::similarity::measures;

/// Points a field is worth.
pub const FIELD_POINTS: u32 = 100;

/// The score of one field: 100 less the square of the edit distance, at least 0.
/// Texts too long for the edit distance's budget score 0.
pub fn field_score(a: &str, b: &str) -> u32 {
    points(distance(a, b))
}

/// A table of equivalent words: any two words on one line may stand for one
/// another (a word may be on several lines: "Will" for William and for
/// Wilbur does not make William and Wilbur equivalent). Words are matched
/// exactly as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Equivalents {
    lines_of: HashMap<String, Vec<u32>>,
}

impl Equivalents {
    /// The table of `text`: one group a line, words separated by commas
    /// (spaces around them dropped); blank lines and lines starting with `#`
    /// are skipped. A line of fewer than two words is an error `(line, reason)`.
    pub fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut table = Equivalents::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split(',').map(str::trim).collect();
            if words.len() < 2 || words.iter().any(|w| w.is_empty() || w.contains(' ')) {
                return Err((
                    i + 1,
                    format!("{line:?} is not two or more words separated by commas (Bill,William)"),
                ));
            }
            for word in words {
                let lines = table.lines_of.entry(word.to_owned()).or_default();
                if lines.last() != Some(&(i as u32)) {
                    lines.push(i as u32);
                }
            }
        }
        Ok(table)
    }

    /// Whether `a` and `b` are different words on one line of the table.
    pub fn equivalent(&self, a: &str, b: &str) -> bool {
        a != b
            && match (self.lines_of.get(a), self.lines_of.get(b)) {
                (Some(x), Some(y)) => x.iter().any(|l| y.contains(l)),
                _ => false,
            }
    }

    pub fn is_empty(&self) -> bool {
        self.lines_of.is_empty()
    }

    /// `a` with each word that has an equivalent among `b`'s words (the
    /// first in `b`'s order) rewritten to it, and the number rewritten.
    fn rewrite(&self, a: &str, b: &str) -> (String, usize) {
        let others: Vec<&str> = b.split(' ').collect();
        let mut rewritten = 0;
        let words: Vec<&str> = a
            .split(' ')
            .map(
                |word| match others.iter().find(|o| self.equivalent(word, o)) {
                    Some(other) => {
                        rewritten += 1;
                        other
                    }
                    None => word,
                },
            )
            .collect();
        (words.join(" "), rewritten)
    }
}

/// [`field_score`] with the penalties `table` lowers: the distance is the
/// smaller of the plain edit distance and, when words of `a` have
/// equivalents in `b`, one per word rewritten plus the distance of the
/// rewritten `a` to `b`.
pub fn field_score_with(a: &str, b: &str, table: &Equivalents) -> u32 {
    let plain = distance(a, b);
    let (rewritten, count) = table.rewrite(a, b);
    let lowered = match count {
        0 => None,
        _ => distance(&rewritten, b).map(|d| d + count),
    };
    let d = match (plain, lowered) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    points(d)
}

/// Section 3.5.5's edit distance, `None` past the budget.
fn distance(a: &str, b: &str) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // A field of more than 10,000 characters is not a name, an address or a phone.
    measures::indel_distance(&a, &b, 100_000_000)
}

/// 100 less the square of the distance, at least 0.
fn points(d: Option<usize>) -> u32 {
    match d {
        Some(d) if d < 10 => FIELD_POINTS - (d * d) as u32,
        _ => 0,
    }
}

/// The fraction of true matches among pairs whose measure averages `h`,
/// given its average `h0` over true matches and `h1` over random pairs
/// (`None` when h0 = h1: the measure tells nothing). Not clamped: a value
/// outside [0, 1] says the pairs of that score are noisier than the model.
pub fn true_fraction(h0: f64, h1: f64, h: f64) -> Option<f64> {
    (h1 != h0).then(|| (h1 - h) / (h1 - h0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_scores() {
        assert_eq!(field_score("Bill", "Bill"), 100);
        // MMDS 3.8.2: edit distance 5 (Section 3.5.5's).
        assert_eq!(field_score("Bill", "William"), 100 - 25);
        assert_eq!(field_score("555-1234", "555-1243"), 100 - 4);
        assert_eq!(field_score("abcdefghij", "klmnopqrst"), 0);
        assert_eq!(field_score("", "abcde"), 100 - 25);
    }

    /// MMDS 3.8.2: with the table, Bill and William differ by one letter.
    #[test]
    fn equivalents_count_one_edit() {
        let table = Equivalents::parse("# nicknames\nBill, William\n\nWill,William\nWill,Wilbur\n")
            .unwrap();
        assert!(table.equivalent("Bill", "William") && table.equivalent("William", "Bill"));
        assert!(table.equivalent("Will", "Wilbur"));
        assert!(!table.equivalent("William", "Wilbur"));
        assert!(!table.equivalent("Bill", "Bill"));
        assert_eq!(field_score_with("Bill Jones", "William Jones", &table), 99);
        assert_eq!(field_score_with("William Jones", "Bill Jones", &table), 99);
        // One rewrite and one deleted letter: distance 2.
        assert_eq!(field_score_with("Bill Jone", "William Jones", &table), 96);
        // Never worse than without the table.
        assert_eq!(field_score_with("Bill Jones", "Bill Jonas", &table), 96);
        assert_eq!(
            field_score_with("Bill Jones", "William Jones", &Equivalents::default()),
            75
        );
        assert_eq!(Equivalents::parse("ok,fine\nlonely\n").unwrap_err().0, 2);
        assert!(Equivalents::parse("a,,b").is_err());
    }

    /// x = 45 − 35f (h0 = 10, h1 = 45): f = (45 − x)/35.
    #[test]
    fn the_texts_delays() {
        for x in [10.0, 20.0, 27.5, 45.0] {
            let f = true_fraction(10.0, 45.0, x).unwrap();
            assert!((45.0 - 35.0 * f - x).abs() < 1e-12, "{x}");
        }
        assert_eq!(true_fraction(10.0, 45.0, 10.0), Some(1.0));
        assert_eq!(true_fraction(10.0, 45.0, 45.0), Some(0.0));
        assert_eq!(true_fraction(3.0, 3.0, 4.0), None);
    }
}
