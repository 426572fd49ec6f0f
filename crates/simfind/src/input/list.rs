//! `--files-from` lists: paths one per line, or NUL-terminated
//! (`--files0-from`, for names that contain a newline, as `find -print0` and
//! `fd -0` write them). Paths are kept byte for byte as given.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// The paths of a list: separated by `b'\n'` or `b'\0'`; empty entries (a
/// trailing separator, a blank line) are no paths.
pub fn parse(bytes: &[u8], separator: u8) -> Vec<PathBuf> {
    bytes
        .split(|&b| b == separator)
        .filter(|entry| !entry.is_empty())
        .map(|entry| PathBuf::from(OsStr::from_bytes(entry)))
        .collect()
}

/// The paths of a list whose separator is decided by its content: a NUL
/// anywhere makes it NUL-separated (a path never holds a NUL, and a newline
/// list never holds one), else one path a line. What `dedupe --from-list`
/// reads, so that both `scan --list-removable -o FILE` and `-0` feed it.
pub fn parse_either(bytes: &[u8]) -> Vec<PathBuf> {
    let separator = if bytes.contains(&0) { b'\0' } else { b'\n' };
    parse(bytes, separator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_anywhere_makes_a_nul_list() {
        assert_eq!(
            parse_either(b"a\nb\n"),
            [PathBuf::from("a"), PathBuf::from("b")]
        );
        assert_eq!(parse_either(b"a\nb\0"), [PathBuf::from("a\nb")]);
    }

    #[test]
    fn entries_are_split_on_the_separator_and_kept_as_given() {
        assert_eq!(
            parse(b"./a\nb c\n\n", b'\n'),
            [PathBuf::from("./a"), PathBuf::from("b c")]
        );
        assert_eq!(
            parse(b"a\nb\0c\0", b'\0'),
            [PathBuf::from("a\nb"), PathBuf::from("c")]
        );
    }
}
