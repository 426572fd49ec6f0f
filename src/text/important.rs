//! Important words by TF.IDF (MMDS 1.3.1), the "set of important words"
//! the chapter's simple approaches represent a document by (3.2.4).
//!
//! Over a corpus of N documents, word i's term frequency in document j is
//! TF_ij = f_ij / max_k f_kj (its count over the count of the document's most
//! frequent word) and its inverse document frequency IDF_i = log₂(N / n_i),
//! n_i the number of documents it is in. A document keeps the `n` words of
//! highest TF_ij × IDF_i; ties go to the word first in byte order, so the
//! choice never depends on the order documents are read in. A word in every
//! document has IDF 0 and is kept only when fewer than `n` others score above
//! 0. Words are those of the word shingles (runs of letters and digits) of
//! the text as given: callers normalise first. Pure.

use std::collections::HashMap;

/// Each document's words (in order, repeats kept), as the word shingler
/// finds them.
pub fn words(text: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    super::shingle::find_words_in(text, &mut spans);
    spans
        .into_iter()
        .map(|(s, e)| &text[s as usize..e as usize])
        .collect()
}

/// The `n` words of highest TF.IDF of every document of `docs` (each a list
/// of words, repeats counted), in byte order.
pub fn top_tfidf<'a>(docs: &[Vec<&'a str>], n: usize) -> Vec<Vec<&'a str>> {
    let mut df: HashMap<&str, u32> = HashMap::new();
    let counts: Vec<HashMap<&'a str, u32>> = docs
        .iter()
        .map(|doc| {
            let mut counts: HashMap<&'a str, u32> = HashMap::new();
            for &word in doc {
                *counts.entry(word).or_default() += 1;
            }
            for &word in counts.keys() {
                *df.entry(word).or_default() += 1;
            }
            counts
        })
        .collect();
    let total = docs.len() as f64;
    counts
        .iter()
        .map(|counts| {
            let most = counts.values().copied().max().unwrap_or(1) as f64;
            let mut scored: Vec<(f64, &'a str)> = counts
                .iter()
                .map(|(&word, &f)| {
                    let idf = (total / f64::from(df[word])).log2();
                    (f64::from(f) / most * idf, word)
                })
                .collect();
            scored.sort_by(|x, y| y.0.total_cmp(&x.0).then_with(|| x.1.cmp(y.1)));
            scored.truncate(n);
            let mut kept: Vec<&'a str> = scored.into_iter().map(|(_, w)| w).collect();
            kept.sort_unstable();
            kept
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four documents, by hand (N = 4):
    /// - "the": in all four, IDF log₂(4/4) = 0;
    /// - "cat": in d1 and d2, IDF 1; "dog": in d1 only, IDF 2; "fish",
    ///   "bird", "cow": one document each, IDF 2.
    ///
    /// d1 = the the cat cat cat dog: max f = 3 (cat); TF.IDF: cat 3/3·1 = 1,
    /// dog 1/3·2 = 0.667, the 2/3·0 = 0: top 2 = {cat, dog}, top 1 = {cat}.
    /// d2 = the cat fish fish: max 2; fish 2/2·2 = 2, cat 1/2·1 = 0.5: top 1
    /// = {fish}. d3 = the bird, d4 = the cow: the one word of IDF 2.
    #[test]
    fn keeps_the_words_of_highest_tf_idf_by_hand() {
        let docs: Vec<Vec<&str>> = [
            "the the cat cat cat dog",
            "the cat fish fish",
            "the bird",
            "the cow",
        ]
        .iter()
        .map(|t| words(t))
        .collect();
        assert_eq!(
            top_tfidf(&docs, 2),
            vec![
                vec!["cat", "dog"],
                vec!["cat", "fish"],
                vec!["bird", "the"],
                vec!["cow", "the"]
            ]
        );
        assert_eq!(
            top_tfidf(&docs, 1),
            vec![vec!["cat"], vec!["fish"], vec!["bird"], vec!["cow"]]
        );
        // A tie (dog and fish at IDF 2, f = 1, max 1) goes to byte order.
        let tie: Vec<Vec<&str>> = vec![vec!["fish", "dog"], vec!["cat"]];
        assert_eq!(top_tfidf(&tie, 1), vec![vec!["dog"], vec!["cat"]]);
        assert_eq!(words("Buy Sudzo, now!"), vec!["Buy", "Sudzo", "now"]);
    }
}
