//! Exact similarity: set algebra, the graph structures shared with
//! clustering, verification of candidates, the exact join, and measures.
//!
//! Role: everything that compares shingle sets exactly, after LSH has
//! proposed candidates (MMDS 3.4.1, step 3) or instead of it (the exact
//! join, MMDS 3.9). Pure: no file system, no printing; sets are produced by
//! a caller-supplied loader.
//!
//! Inputs: shingle sets as strictly increasing `&[u64]`; candidate pairs
//! `(a, b)` with `a < b` over document ids. Outputs: intersection sizes,
//! Jaccard similarities, verified pairs, joined pairs, distance measures,
//! containment and its exact join ([`containment`]).
//!
//! Invariants: one definition of the set arithmetic ([`sets`]) and of
//! union-find ([`graph`]); every exact similarity is `ratio(shared, union)`,
//! so two paths that compare the same sets print the same number; results do
//! not depend on the thread count or on which SIMD kernel runs.
pub mod char_profile;
pub(crate) mod containment;
pub mod entity;
pub mod fellegi_sunter;
pub(crate) mod graph;
#[doc(hidden)]
pub mod join;
pub mod measures;
#[doc(hidden)]
pub mod sets;
pub mod vectors;
#[doc(hidden)]
pub mod verify;

pub use containment::{ContainedPair, contained_pairs, containment, of_counts};
pub use fellegi_sunter::{ALL_LEVELS, Breakdown, EmOptions, LEVELS, Model, Tally};
pub use graph::UnionFind;
pub use join::{
    Abandoned, ExactIndex, JoinStats, Prediction, length_bounds, position_limit, prefix_length,
    suffix_range,
};
pub use sets::{MergeKernel, intersection_size, merge_sorted};
pub use verify::{Part, agreements_needed, jaccard, ruled_out};
