//! `explain`'s diff view: the containment figures, then a word diff of the
//! two texts in the style of `git diff --word-diff` — `[-only in a-]`,
//! `{+only in b+}`, a moved block once as `{~…~}` where b has it and marked
//! `[~…~]` where a had it — with identical runs folded to a line that counts
//! them. The diff is the library's ([`simfind::explain::diff`]); this file
//! words and paints it.

use std::io::Write;

use clap::builder::styling::{AnsiColor, Style};
use simfind::explain::diff::{self, Piece, Word};

use super::{ONLY_A, ONLY_B, View, containment, excerpt};
use crate::app::report::human_bytes;
use crate::app::speak::percent;

const MOVED: Style = AnsiColor::Yellow.on_default();
const FOLD: Style = Style::new().dimmed();

/// A changed run longer than this many words shows its first and last
/// [`CHANGED_SHOWN`] words around a count: an inserted chapter is one
/// edit, not pages of output.
const CHANGED_LONG: usize = 60;
const CHANGED_SHOWN: usize = 24;

/// The fewest identical words folded into a line that counts them.
const FOLD_MIN: usize = 3;

/// One text and its words.
struct Side<'a> {
    text: &'a [u8],
    words: &'a [Word],
    /// "a" or "b", for the page marks.
    name: &'static str,
    /// Whether its text is a document's pages (a PDF's): then the view says
    /// where a page starts.
    paged: bool,
}

/// The page of a's whose mark the view showed last: a's pages are marked
/// in the flow, which follows a's order; b's runs are labelled instead.
type ShownPage = Option<u32>;

impl View<'_> {
    pub(super) fn write_diff(&self, out: &mut impl Write) -> std::io::Result<()> {
        let e = self.e;
        self.write_measures(out)?;
        self.write_containment(out)?;
        let (a_in_b, b_in_a) = containment(e);
        // The share of each side's shingles the other lacks, and the bytes
        // that stands for (the share of the text's length: an estimate).
        let bytes = |share: f64, len: usize| match (share * len as f64).round() as u64 {
            0 => String::new(),
            n => format!(" (~{})", human_bytes(n)),
        };
        let (only_a, only_b) = (1.0 - a_in_b, 1.0 - b_in_a);
        writeln!(
            out,
            "only in a: {} of its shingles{}; only in b: {}{}",
            percent(only_a),
            bytes(only_a, self.a.len()),
            percent(only_b),
            bytes(only_b, self.b.len()),
        )?;

        let norm = self.recipe.normalization;
        let (wa, wb) = (diff::words(self.a, norm), diff::words(self.b, norm));
        let d = diff::diff(&wa, &wb);
        write!(
            out,
            "word diff of the texts as read (words compared as normalised): {}, {}; {} of a's {} \
             words in place",
            super::count(d.edits, "edit", "edits"),
            super::count(d.moved, "moved block", "moved blocks"),
            d.same_words,
            wa.len(),
        )?;
        if !d.complete {
            write!(
                out,
                " (stopped refining after {} s: the rest is shown as larger blocks)",
                diff::DEADLINE.as_secs()
            )?;
        }
        writeln!(out)?;
        writeln!(out)?;
        let a = Side {
            text: self.a,
            words: &wa,
            name: "a",
            paged: self.paged[0],
        };
        let b = Side {
            text: self.b,
            words: &wb,
            name: "b",
            paged: self.paged[1],
        };
        let mut text = String::new();
        let mut page: ShownPage = None;
        let last = d.pieces.len().saturating_sub(1);
        let ctx = self.args.context;
        for (i, piece) in d.pieces.iter().enumerate() {
            match piece {
                Piece::Same { a: range, .. } => {
                    let n = range.len();
                    let (head, tail) = match (i == 0, i == last) {
                        (true, true) => (0, 0),
                        (true, false) => (0, ctx.min(n)),
                        (false, true) => (ctx.min(n), 0),
                        (false, false) => (ctx.min(n), ctx.min(n - ctx.min(n))),
                    };
                    // A fold line for a word or two is longer than the words.
                    let (head, tail) = if n - head - tail < FOLD_MIN && !(i == 0 && i == last) {
                        (n, 0)
                    } else {
                        (head, tail)
                    };
                    let folded = n - head - tail;
                    self.words_into(
                        &mut text,
                        &a,
                        range.start..range.start + head,
                        None,
                        &mut page,
                    );
                    if folded > 0 {
                        if !text.is_empty() && !text.ends_with('\n') {
                            text.push('\n');
                        }
                        let line = format!(
                            "… {} …",
                            super::count(folded, "identical word", "identical words")
                        );
                        text.push_str(&self.paint.paint(&line, FOLD));
                        text.push('\n');
                    }
                    self.words_into(&mut text, &a, range.end - tail..range.end, None, &mut page);
                }
                Piece::Removed { a: range } => {
                    self.marked(&mut text, &a, range, ("[-", "-]"), ONLY_A, &mut page);
                }
                Piece::Added { b: range } => {
                    self.marked(&mut text, &b, range, ("{+", "+}"), ONLY_B, &mut page);
                }
                Piece::MovedFrom { a: range, block } => {
                    let mark = format!(
                        "[~block {} ({}) moved~]",
                        block + 1,
                        super::count(range.len(), "word", "words")
                    );
                    self.page_mark(&mut text, &a, range.start, &mut page);
                    text.push_str(&self.paint.paint(&mark, MOVED.bold()));
                    text.push(separator(&a, range.end - 1));
                }
                Piece::MovedTo {
                    b: range, block, ..
                } => {
                    let open = format!("{{~block {} moved here: ", block + 1);
                    self.marked(&mut text, &b, range, (&open, "~}"), MOVED, &mut page);
                }
            }
        }
        if !text.ends_with('\n') {
            text.push('\n');
        }
        out.write_all(text.as_bytes())
    }

    /// Before word `i` of a paged a, a line `── page N of a ──` where its
    /// page is not the one marked last. A fold may hide where the page
    /// turned: the mark then stands before the next word shown.
    fn page_mark(&self, text: &mut String, side: &Side<'_>, i: usize, shown: &mut ShownPage) {
        if !side.paged || side.name != "a" {
            return;
        }
        let page = side.words[i].page;
        if *shown == Some(page) {
            return;
        }
        *shown = Some(page);
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let line = format!("── page {page} of {} ──", side.name);
        text.push_str(&self.paint.paint(&line, FOLD));
        text.push('\n');
    }

    /// The words `range` of `side`, each followed by its separator (a
    /// newline where the text had one, else a space); painted with `style`.
    fn words_into(
        &self,
        text: &mut String,
        side: &Side<'_>,
        range: std::ops::Range<usize>,
        style: Option<Style>,
        shown: &mut ShownPage,
    ) {
        for i in range {
            self.page_mark(text, side, i, shown);
            let shown = excerpt(
                &side.text[side.words[i].range.clone()],
                self.args.max_chars as usize,
            );
            match style {
                Some(style) => text.push_str(&self.paint.paint(&shown, style)),
                None => text.push_str(&shown),
            }
            text.push(separator(side, i));
        }
    }

    /// A changed run between `open` and `close`, its separator after the
    /// close; a long run shows its ends around a count of the rest. A run
    /// of a paged b says its pages after the close: the flow's page marks
    /// are a's.
    fn marked(
        &self,
        text: &mut String,
        side: &Side<'_>,
        range: &std::ops::Range<usize>,
        (open, close): (&str, &str),
        style: Style,
        shown: &mut ShownPage,
    ) {
        if range.is_empty() {
            return;
        }
        self.page_mark(text, side, range.start, shown);
        text.push_str(&self.paint.paint(open, style.bold()));
        let mut body = String::new();
        if range.len() > CHANGED_LONG {
            let head = range.start..range.start + CHANGED_SHOWN;
            let tail = range.end - CHANGED_SHOWN..range.end;
            self.words_into(&mut body, side, head, Some(style), shown);
            body.push_str(&format!(
                "… {} more words … ",
                range.len() - 2 * CHANGED_SHOWN
            ));
            self.words_into(&mut body, side, tail, Some(style), shown);
        } else {
            self.words_into(&mut body, side, range.clone(), Some(style), shown);
        }
        // The last separator goes after the closing mark.
        let sep = body.pop().unwrap_or(' ');
        text.push_str(&body);
        text.push_str(&self.paint.paint(close, style.bold()));
        if side.paged && side.name == "b" {
            let (first, last) = (side.words[range.start].page, side.words[range.end - 1].page);
            let pages = if first == last {
                format!(" (page {first} of b)")
            } else {
                format!(" (pages {first}–{last} of b)")
            };
            text.push_str(&self.paint.paint(&pages, FOLD));
        }
        text.push(sep);
    }
}

/// What follows word `i` of `side` in the view.
fn separator(side: &Side<'_>, i: usize) -> char {
    if side.words[i].newline_after {
        '\n'
    } else {
        ' '
    }
}
