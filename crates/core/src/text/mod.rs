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

pub(crate) mod binary;
#[doc(hidden)]
pub mod chunked;
#[doc(hidden)]
pub mod distinct;
pub mod important;
pub(crate) mod key;
#[doc(hidden)]
pub mod normalize;
#[doc(hidden)]
pub mod shingle;
#[doc(hidden)]
pub mod short_hash;
pub(crate) mod words;

pub use binary::{BINARY_SNIFF_LEN, looks_binary};
pub use chunked::fragments;
pub use distinct::{DistinctSet, HashSorter, Passing, RepeatFilter};
pub use important::{ByHash, DocumentFrequencies, Selection, top_tfidf, words};
pub use key::{KeyKind, key_of};
pub use normalize::{
    Kernel, MAX_MAPPED_LEN, Mapped, Normalization, normalize, normalize_into, normalize_mapped,
};
pub use shingle::{Scratch, ShingleKind, Shingler, StopWords, hash_shingle};
pub use short_hash::kernel::Variant as HashKernel;
pub use short_hash::xxh3_64;

/// What separates the pages of an extracted text (a PDF's), as `pdftotext`
/// separates them: a form feed, which normalisation and shingling take for
/// whitespace.
pub const PAGE_BREAK: u8 = b'\x0C';
