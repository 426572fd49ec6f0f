//! Text: bytes → normalised text → shingle hashes. Pure: no file system, no printing.
pub mod chunked;
pub mod distinct;
pub mod normalize;
pub mod shingle;
pub mod short_hash;
