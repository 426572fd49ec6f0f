//! simfind — find near-duplicate documents in large collections of files.
//!
//! The library owns the whole pipeline of *Mining of Massive Datasets*, ch. 3:
//!
//! ```text
//! directory → walk → read → normalise → shingle → sign (MinHash) → band (LSH)
//!           → candidate pairs → verify → similar pairs
//! ```

pub mod cluster;
pub mod explain;
pub mod index;
pub mod input;
pub mod lsh;
pub mod model;
pub mod pipeline;
pub mod progress;
pub mod recipe;
pub mod simd;
pub mod similarity;
pub mod sketch;
pub mod text;
