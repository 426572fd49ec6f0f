//! simfind — find near-duplicate documents in large collections of files.
//!
//! The library owns the whole pipeline of *Mining of Massive Datasets*, ch. 3:
//!
//! ```text
//! directory → walk → read → normalise → shingle → sign (MinHash) → band (LSH)
//!           → candidate pairs → verify → similar pairs
//! ```
//!
//! The algorithm modules ([`normalize`], [`shingle`], [`minhash`], [`lsh`],
//! [`verify`], [`scurve`], [`cluster`]) take bytes or integers and return values: no file
//! system, no printing. [`input`] is the only module that touches files, and
//! [`pipeline`] composes the stages, reporting through the [`progress::Reporter`]
//! trait that the binary implements. [`index`] keeps signatures between runs in
//! one SQLite file, and [`incremental`] connects it to the pipeline.

pub mod allpairs;
pub mod chunked;
pub mod cluster;
pub mod distance;
pub mod distinct;
pub mod incremental;
pub mod index;
pub mod input;
pub mod lsh;
pub mod method;
pub mod minhash;
pub mod normalize;
pub mod oph;
pub mod pipeline;
pub mod plot;
pub mod progress;
pub mod scurve;
pub mod shingle;
pub mod short_hash;
pub mod verify;
