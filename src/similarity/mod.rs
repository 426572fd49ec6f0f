//! Exact similarity: set algebra, verification of candidates, the exact join, measures.
pub mod join;
pub mod measures;
pub mod verify;
