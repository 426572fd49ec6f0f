//! File input: the only part of the library that touches the file system.

pub mod read;
