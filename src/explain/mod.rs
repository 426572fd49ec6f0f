//! Explanations and pictures: returned as values and strings, never printed here.
pub mod plot;
