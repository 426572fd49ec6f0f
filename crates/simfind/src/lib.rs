//! simfind — find near-duplicate documents in large collections of files.
//!
//! The library owns the whole pipeline of *Mining of Massive Datasets*, ch. 3,
//! one folder per stage (`docs/ARCHITECTURE.md` draws the house):
//!
//! ```text
//! directory → walk → read → normalise → shingle → sign → band → verify → pairs
//!   input/     input/  input/   text/      text/   sketch/  lsh/  similarity/
//! ```
//!
//! - [`model`]: the types that cross stages (documents, similar pairs).
//! - [`recipe`]: how a document becomes a set, a signature and band keys.
//! - [`input`]: the walk and safe reading of files (the file system).
//! - [`source`]: the seam between a document and its bytes: `Source`, `DocKey`,
//!   `Document`, the binary rule and the extraction step, over `input`.
//! - [`text`]: normalisation, shingling, window hashing, distinct hashes (pure).
//! - [`sketch`]: MinHash and one-permutation hashing, behind the `Sketcher` seam (pure).
//! - [`lsh`]: banding, candidate pairs, the S-curve and the choice of b × r (pure).
//! - [`similarity`]: sorted-set algebra, exact verification, the exact join, measures (pure).
//! - [`cluster`]: verified pairs → groups and keep policies (pure).
//! - [`explain`]: plots of curves, as strings (pure).
//! - [`pipeline`]: the orchestration of a scan: the only place that composes stages.
//! - [`action`]: acting on a scan: dedupe (move, remove, link) with a journal, and undo.
//! - [`index`]: the persistent SQLite index, incremental refresh and queries.
//! - [`exchange`]: signed documents as Parquet for a band join run elsewhere (Spark, DuckDB), and back.
//! - [`memory`]: large allocations made fallibly, ending the run with what
//!   needed the memory and which option lowers it.
//! - [`progress`]: the `Reporter` through which stages report to the binary.
//! - [`simd`]: CPU features and kernel selection, written once.
//! - [`size`]: byte sizes as people write them (`512K`, `1GiB`), parsed.

// What a section's façade (its mod.rs) does not offer is pub(crate): an item
// marked `pub` but reachable from nowhere outside is a warning (an error
// under CI's clippy -D warnings), so the façades stay the whole public API.
#![warn(unreachable_pub)]

pub mod action;
#[cfg(feature = "parquet")]
pub mod exchange;
#[cfg(feature = "sqlite")]
pub mod index;
pub mod input;
pub mod pipeline;
pub mod source;

// The pure stages live in `simfind-core`; re-exported under their own names
// so that `simfind::text`, `crate::sketch` and the rest read as one library.
pub use simfind_core::{
    cluster, explain, lsh, measure, memory, model, params, progress, recipe, simd, similarity,
    size, sketch, spec, text,
};
