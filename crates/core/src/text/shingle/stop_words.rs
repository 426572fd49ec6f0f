//! Stop words (MMDS 3.2.4): the built-in English list and the set the
//! `stopword` and `important` shingles test words against.

use std::collections::HashSet;
use std::sync::Arc;

use super::is_lowercase;

/// Built-in English stop words (function words that carry no topic).
pub const ENGLISH_STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// A set of stop words, compared against lowercased words.
#[derive(Clone, Debug, Default)]
pub struct StopWords(Arc<HashSet<Box<str>>>);

/// Two lists are equal when they hold the same words (a `Spec` compares
/// whole run descriptions).
impl PartialEq for StopWords {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl StopWords {
    pub fn english() -> Self {
        Self::from_words(ENGLISH_STOP_WORDS.iter().copied())
    }

    /// Builds a list from words (lowercased, blank entries ignored).
    pub fn from_words<'a>(words: impl IntoIterator<Item = &'a str>) -> Self {
        StopWords(Arc::new(
            words
                .into_iter()
                .map(|w| w.trim().to_lowercase().into_boxed_str())
                .filter(|w| !w.is_empty())
                .collect(),
        ))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The words, sorted (a canonical form, e.g. for storing in an index).
    pub fn sorted(&self) -> Vec<&str> {
        let mut words: Vec<&str> = self.0.iter().map(|w| &**w).collect();
        words.sort_unstable();
        words
    }

    pub(super) fn contains(&self, word: &str) -> bool {
        self.0.contains(word)
    }

    /// Whether `word` is one of these, compared lowercased (as the list is);
    /// `lowered` is scratch for a word that is not lowercase already.
    pub(crate) fn contains_word(&self, word: &str, lowered: &mut String) -> bool {
        if is_lowercase(word) {
            self.contains(word)
        } else {
            lowered.clear();
            lowered.push_str(&word.to_lowercase());
            self.contains(lowered)
        }
    }
}
