//! Input: the directories to scan → the files to read, and a file's path → its
//! bytes.
//!
//! Role: the first two stages of a scan. [`walk`] turns the roots into the
//! sorted list of regular files (with what was skipped and why); [`read`]
//! turns one path into its bytes, read or memory-mapped, never blocking on a
//! FIFO and never crashing on a file truncated under a mapping. [`filter`]
//! holds what ignore files and `--exclude` leave out; [`list`] parses
//! `--files-from` lists; [`bounded`] reads every other input (lists, option
//! files, stdin documents, journals) under a cap. [`kind`] names what the inputs are (`--input`);
//! [`records`] is the other source: files of records (JSON Lines, CSV/TSV,
//! sets), one document per line or row, read by a [`records::Source`].
//! The stages do not call [`read`] themselves: they get a document's bytes
//! through [`crate::source`], the seam over this layer.
//!
//! Invariants: files come out in byte order of their paths (document ids
//! follow it), each file once; a file that cannot be read, or that changed
//! while it was read, is an error value for the caller to report, never a
//! panic or an abort. This is where the library reads the documents; it is
//! not the only module that touches the file system: the persistent index
//! ([`crate::index`]) creates, reads and writes its own SQLite database file,
//! and the binary writes the output file.

pub mod bounded;
#[doc(hidden)]
pub mod extract;
#[doc(hidden)]
pub mod faults;
pub(crate) mod filter;
pub(crate) mod kind;
pub mod list;
#[doc(hidden)]
pub mod read;
pub mod records;
pub mod vectors;
#[doc(hidden)]
pub mod walk;

pub use extract::Extract;
pub use filter::{ExcludeError, Excludes};
pub use kind::{InputKind, UnknownInputKind};
pub use read::ReadOptions;
pub use walk::{WalkOptions, roots_overlap};
