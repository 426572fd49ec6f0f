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
pub mod containment;
pub mod entity;
pub mod fellegi_sunter;
pub mod graph;
pub mod join;
pub mod measures;
pub mod sets;
pub mod vectors;
pub mod verify;
