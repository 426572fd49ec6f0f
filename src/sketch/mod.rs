//! Sketches: shingle hashes → signatures. Pure: no file system, no printing.
pub mod minhash;
pub mod oph;
