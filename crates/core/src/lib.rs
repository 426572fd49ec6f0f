//! simfind-core — the pure half of simfind: bytes and numbers in, values out.
//!
//! No module here opens a file, spawns a process or knows a command-line
//! flag; the engine (`simfind`) does I/O and orchestration on top of it.
//! The stages of *Mining of Massive Datasets*, ch. 3, one folder each:
//!
//! ```text
//! normalise → shingle → sign → band → verify → cluster
//!   text/      text/   sketch/  lsh/  similarity/  cluster/
//! ```
//!
//! - [`model`]: the types that cross stages (documents, similar pairs).
//! - [`recipe`]: how a document becomes a set, a signature and band keys.
//! - [`params`]: the stored form of a recipe (index, Parquet metadata).
//! - [`text`]: normalisation, shingling, window hashing, distinct hashes.
//! - [`sketch`]: MinHash and one-permutation hashing, behind the `Sketcher` seam.
//! - [`spec`]: the validated description of a run, built by `SpecBuilder`
//!   with every rule and default (errors name fields, not flags).
//! - [`lsh`]: banding, candidate pairs, the S-curve and the choice of b × r.
//! - [`similarity`]: sorted-set algebra, exact verification, the exact join, measures.
//! - [`cluster`]: verified pairs → groups and keep policies.
//! - [`explain`]: where two documents share text, and plots of curves as strings.
//! - [`measure`]: the one `Measure` enum (jaccard, weighted jaccard, cosine, L2,
//!   Hamming) that families, curves, the exchange and output speak.
//! - [`memory`]: large allocations made fallibly, ending the run with what
//!   needed the memory.
//! - [`progress`]: the `Reporter` through which stages report to a face.
//! - [`simd`]: CPU features and kernel selection, written once.
//! - [`size`]: byte sizes as people write them (`512K`, `1GiB`), parsed.

// What a section's façade (its mod.rs) does not offer is pub(crate): an item
// marked `pub` but reachable from nowhere outside is a warning (an error
// under CI's clippy -D warnings), so the façades stay the whole public API.
#![warn(unreachable_pub)]

pub mod cluster;
pub mod explain;
pub mod lsh;
pub mod measure;
pub mod memory;
pub mod model;
pub mod params;
pub mod progress;
pub mod recipe;
pub mod simd;
pub mod similarity;
pub mod size;
pub mod sketch;
pub mod spec;
pub mod text;
