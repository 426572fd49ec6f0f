//! The binary rule: which bytes are not text. One definition, used by the
//! reader (a file skipped as binary), the format sniffer (legacy-encoded
//! text is never binary) and every source of documents.

/// Number of leading bytes [`looks_binary`] inspects. 8 KiB is two pages, the
/// same order as git's `buffer_is_binary` (8000 bytes), and small enough that
/// for a mapped file the check faults in at most two pages before the file can
/// be skipped.
pub const BINARY_SNIFF_LEN: usize = 8 * 1024;

/// True if the first [`BINARY_SNIFF_LEN`] bytes contain a NUL byte. Text in any
/// ASCII-compatible encoding (UTF-8, Latin-1) has none; UTF-16 text counts as
/// binary, as it does for git and grep.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_LEN)].contains(&0)
}
