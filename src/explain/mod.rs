//! Explanations and pictures for people: why a setting behaves as it does,
//! drawn or described.
//!
//! Role: the last step of `curve`/`tune`-style commands, beside the writers;
//! pure (no I/O, no printing). Inputs: sampled curves and labels (see
//! [`plot::Series`]). Outputs: `String`s — an aligned text plot or an SVG
//! document — that the binary writes where the user asked.
//!
//! Invariants: output is deterministic (fixed float precision) and well-formed
//! for any label (XML-escaped).
pub mod plot;
