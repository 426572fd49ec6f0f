//! Entity resolution as MMDS 3.8.2–3.8.3 describes it: records scored field
//! by field, and the scores validated by a measure outside the score.
//!
//! Scoring (3.8.2): each field is worth 100 points; a mismatch deducts a
//! penalty that grows quadratically with the edit distance (3.5.5:
//! insertions and deletions), here d² points, so a field scores
//! max(0, 100 − d²). "Bill" and "William" (d = 5) score 75.
//!
//! Validation (3.8.3): if h0 is the average of some measure (the delay
//! between the records' creation dates, a height difference) over pairs
//! surely matching, h1 its average over random pairs and h its average over
//! the pairs of one score, the fraction of true matches among those pairs is
//! f = (h1 − h)/(h1 − h0). With h0 = 10 and h1 = 45 days this is the text's
//! x = 45 − 35f solved for f. Pure: no file system, no printing.

use crate::similarity::measures;

/// Points a field is worth.
pub const FIELD_POINTS: u32 = 100;

/// The score of one field: 100 less the square of the edit distance, at least 0.
/// Texts too long for the edit distance's budget score 0.
pub fn field_score(a: &str, b: &str) -> u32 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // A field of more than 10,000 characters is not a name, an address or a phone.
    match measures::indel_distance(&a, &b, 100_000_000) {
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
