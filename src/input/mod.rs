//! The only part of the library that touches the file system: finding the files
//! ([`walk`]) and reading their bytes ([`read`]).

pub mod read;
pub mod walk;
