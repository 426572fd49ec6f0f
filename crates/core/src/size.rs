//! Byte sizes as people write them (`512K`, `10MB`, `1GiB`): the parser of
//! every size argument (`--min-size`, `--max-size`, `--verify-memory`, …).
//!
//! In the library rather than the binary so that the fuzz target
//! (`fuzz/fuzz_targets/size.rs`) and its replay test reach the very function
//! the arguments go through. Pure: a string in, a number or a [`SizeError`] out.

use std::fmt;

/// Why a string is not a byte size; its text quotes the string as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeError {
    /// No whole number in front.
    NotASize(String),
    /// A number followed by a unit this parser does not know.
    UnknownUnit(String),
    /// More bytes than a `u64` holds.
    TooLarge(String),
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::NotASize(s) => {
                write!(f, "'{s}' is not a size (examples: 4096, 512K, 10MB, 1GiB)")
            }
            SizeError::UnknownUnit(s) => write!(
                f,
                "'{s}' has an unknown unit (K, M, G, T or KiB … TiB: powers of 1024; KB … TB: powers of 1000)"
            ),
            SizeError::TooLarge(s) => write!(f, "'{s}' is too large"),
        }
    }
}

impl std::error::Error for SizeError {}

/// Parses a byte size: a whole number with an optional unit, case-insensitive.
/// `K`, `M`, `G`, `T` and `KiB` … `TiB` are binary (1K = 1024), as `du` and
/// `ls -h` read them; `KB` … `TB` are decimal (1KB = 1000), as the summaries
/// print them. (Before, `KB` … `TB` were binary too.)
pub fn parse_size(s: &str) -> Result<u64, SizeError> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| SizeError::NotASize(s.to_string()))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => {
            return Err(SizeError::UnknownUnit(s.to_string()));
        }
    };
    number
        .checked_mul(scale)
        .ok_or_else(|| SizeError::TooLarge(s.to_string()))
}
