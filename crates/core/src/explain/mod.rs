//! Explanations and pictures for people: why a setting behaves as it does,
//! and why two documents are similar, drawn or described.
//!
//! Role: the last step of `curve`/`tune`/`explain`-style commands, beside the
//! writers; pure (no I/O, no printing). Inputs: sampled curves and labels (see
//! [`plot::Series`]); two documents' bytes and a recipe ([`spans::explain`],
//! and [`diff::diff`] over their words).
//! Outputs: `String`s — an aligned text plot or an SVG document — and byte
//! ranges of the original documents ([`Explanation`]) that the binary writes
//! where the user asked.
//!
//! Invariants: output is deterministic (fixed float precision) and well-formed
//! for any label (XML-escaped); explanation offsets are byte offsets of the
//! bytes given, whatever the normalisation did.
pub mod diff;
mod occurrences;
pub mod plot;
pub mod spans;

pub use spans::{Explanation, Span, explain};
