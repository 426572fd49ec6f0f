//! Reading one file's bytes. (Simple read path; the SIGBUS-guarded mapping for
//! large files replaces it.)

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

#[derive(Clone, Debug)]
pub struct ReadOptions {
    pub mmap_min_size: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            mmap_min_size: u64::MAX,
        }
    }
}

pub struct Contents {
    bytes: Vec<u8>,
}

impl Deref for Contents {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Contents {
    pub fn verify_unchanged(&self) -> Result<(), ReadError> {
        Ok(())
    }
}

#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    NotRegularFile,
    Shrank { expected: u64, actual: u64 },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotRegularFile => write!(f, "not a regular file"),
            ReadError::Shrank { expected, actual } => {
                write!(
                    f,
                    "shrank while being read (expected {expected} bytes, got {actual})"
                )
            }
        }
    }
}

impl std::error::Error for ReadError {}

pub fn read_file(path: &Path, _opts: &ReadOptions) -> Result<Contents, ReadError> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegularFile);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&mut file as &mut File)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if (bytes.len() as u64) < meta.len() {
        return Err(ReadError::Shrank {
            expected: meta.len(),
            actual: bytes.len() as u64,
        });
    }
    Ok(Contents { bytes })
}

pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}
