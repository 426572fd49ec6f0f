//! Text: a document's bytes → normalised text → shingle hashes, the MMDS 3.2
//! half of signing.
//!
//! Role: everything the pipeline does to one document before a sketch sees
//! it. Inputs: raw bytes (any encoding; decoded as lossy UTF-8) and the
//! recipe's [`Normalization`](normalize::Normalization) and shingle kind.
//! Outputs: 64-bit shingle hashes (XXH3-64, seed 0), streamed in text order
//! ([`shingle`], [`short_hash`]), as a set ([`distinct`]), or fed chunk by
//! chunk for a large file ([`chunked`]).
//!
//! Invariants: every fast path (SIMD kernels picked by
//! [`crate::simd::best`], ASCII-run splits, chunking) gives exactly the
//! hashes its plain definition gives, and the tests check each against an
//! oracle; the hashes are those the ground truth and the index define, so
//! they never change with the CPU or the build. Pure: no file system, no
//! printing, no threads.

pub mod binary;
pub mod chunked;
pub mod distinct;
pub mod important;
pub mod key;
pub mod normalize;
pub mod shingle;
pub mod short_hash;
pub mod words;

/// What separates the pages of an extracted text (a PDF's), as `pdftotext`
/// separates them: a form feed, which normalisation and shingling take for
/// whitespace.
pub const PAGE_BREAK: u8 = b'\x0C';
