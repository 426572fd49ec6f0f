//! The keep order: which file of a group is kept, as one total order on
//! documents (see the module doc of [`super`], "Keep order").

use std::cmp::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{DocId, FileFacts};

/// Which file of a group is kept (becomes its representative).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeepPolicy {
    /// Latest modification time.
    Newest,
    /// Earliest modification time.
    Oldest,
    /// Most bytes.
    Largest,
    /// Fewest bytes.
    Smallest,
    /// Shortest path, counted in bytes.
    ShortestPath,
    /// Smallest document id: the first file found.
    #[default]
    First,
    /// The original rather than a copy: the oldest modification time, then a
    /// name without a copy marker ([`copy_marker`]), then the shortest path,
    /// then the first file found.
    Original,
}

impl KeepPolicy {
    /// The keep order of the module doc: `Less` means `x` is the better one to
    /// keep. A total order, consistent with equality of ids.
    pub fn compare(self, x: (DocId, &FileFacts<'_>), y: (DocId, &FileFacts<'_>)) -> Ordering {
        self.key(x.0, x.1).cmp(&self.key(y.0, y.1))
    }

    /// The keep order as one plain sort key, so that sorting millions of
    /// documents compares small keys in a row instead of chasing documents.
    /// `last` is the id, or anything ordered like it.
    pub(super) fn key(self, last: u32, d: &FileFacts<'_>) -> KeepKey {
        let mut key = KeepKey {
            class: if d.reference { 0 } else { 2 },
            primary: 0,
            secondary: 0,
            marker: false,
            length: 0,
            last,
        };
        let time = |descending: bool, key: &mut KeepKey| match d.modified {
            Some(t) => {
                let (secs, nanos) = signed_time(t);
                // Flipping the sign bit maps i64 order onto u64 order.
                let (p, s) = ((secs as u64) ^ (1 << 63), nanos);
                (key.primary, key.secondary) = if descending {
                    (!p, 999_999_999 - s)
                } else {
                    (p, s)
                };
            }
            None => key.class += 1,
        };
        match self {
            KeepPolicy::Newest => time(true, &mut key),
            KeepPolicy::Oldest => time(false, &mut key),
            KeepPolicy::Largest => key.primary = !d.size,
            KeepPolicy::Smallest => key.primary = d.size,
            KeepPolicy::ShortestPath => key.primary = d.path.len() as u64,
            KeepPolicy::First => {}
            KeepPolicy::Original => {
                time(false, &mut key);
                key.marker = copy_marker(d.path);
                key.length = d.path.len() as u64;
            }
        }
        key
    }

    /// Why `kept` is kept rather than `other` under this policy, in the
    /// words the dry run and the plan print: the first rule of the keep
    /// order that tells the two apart.
    pub fn reason(
        self,
        kept: (DocId, &FileFacts<'_>),
        other: (DocId, &FileFacts<'_>),
    ) -> &'static str {
        if kept.1.reference && !other.1.reference {
            return "reference";
        }
        let (k, o) = (self.key(kept.0, kept.1), self.key(other.0, other.1));
        let timed = (k.class, k.primary, k.secondary) != (o.class, o.primary, o.secondary);
        match self {
            KeepPolicy::Newest if timed => "newest",
            KeepPolicy::Oldest | KeepPolicy::Original if timed => "oldest",
            KeepPolicy::Largest if timed => "largest",
            KeepPolicy::Smallest if timed => "smallest",
            KeepPolicy::ShortestPath if timed => "shorter path",
            KeepPolicy::Original if k.marker != o.marker => "no copy marker",
            KeepPolicy::Original if k.length != o.length => "shorter path",
            _ => "found first",
        }
    }
}

/// Whether a path's file name marks it as a copy of another file: a word
/// `copy`, `backup` or `final` (case-insensitive; words are runs of letters,
/// so `a-copy.png`, `Copy of a.txt` and `a - Copy.txt` all count, `copyright`
/// does not), a number in parentheses before the extension (`a (1).txt`), or
/// a name ending in `~` or `.bak`.
pub fn copy_marker(path: &[u8]) -> bool {
    let name = match path.iter().rposition(|&b| b == b'/') {
        Some(i) => &path[i + 1..],
        None => path,
    };
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(b"~") || lower.ends_with(b".bak") {
        return true;
    }
    if lower
        .split(|b| !b.is_ascii_alphabetic())
        .any(|w| matches!(w, b"copy" | b"backup" | b"final"))
    {
        return true;
    }
    // "(N)" just before the extension or at the end of the name.
    let stem = match lower.iter().rposition(|&b| b == b'.') {
        Some(i) if i > 0 => &lower[..i],
        _ => &lower[..],
    };
    let stem = stem.strip_suffix(b")").unwrap_or(b"");
    match stem.iter().rposition(|&b| b == b'(') {
        Some(open) => {
            let digits = &stem[open + 1..];
            !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
        }
        None => false,
    }
}

/// Field order is comparison order; smaller is better to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct KeepKey {
    /// 0 reference, 2 other; +1 when the policy needs a time and there is none.
    class: u8,
    primary: u64,
    secondary: u32,
    /// `original`: the name carries a copy marker.
    marker: bool,
    /// `original`: the path's length in bytes.
    length: u64,
    pub(super) last: u32,
}

/// Seconds and nanoseconds since the epoch, exact for times before it too
/// (`nanos` always counts forward from `secs`).
fn signed_time(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            match d.subsec_nanos() {
                0 => (-(d.as_secs() as i64), 0),
                n => (-(d.as_secs() as i64) - 1, 1_000_000_000 - n),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_markers_are_words_and_suffixes() {
        for copy in [
            "a/lighthouse copy, final.txt",
            "photos/a-copy.png",
            "Copy of report.docx",
            "report - Copy.docx",
            "report (1).docx",
            "report (12)",
            "notes.txt~",
            "notes.txt.BAK",
            "d/FINAL draft.txt",
            "backup-2020.tar",
        ] {
            assert!(copy_marker(copy.as_bytes()), "{copy}");
        }
        for original in [
            "a/lighthouse.txt",
            "copyright.txt",
            "copy/a.txt",
            "finale.txt",
            "report (a).docx",
            "report ().docx",
            "backups.txt",
        ] {
            assert!(!copy_marker(original.as_bytes()), "{original}");
        }
    }

    fn facts(path: &str, secs: u64) -> FileFacts<'_> {
        FileFacts {
            path: path.as_bytes(),
            size: 1,
            modified: Some(UNIX_EPOCH + std::time::Duration::from_secs(secs)),
            reference: false,
        }
    }

    #[test]
    fn original_prefers_oldest_then_no_marker_then_shorter_path_then_first() {
        let p = KeepPolicy::Original;
        let older = facts("x/z copy.txt", 10);
        let newer = facts("x/a.txt", 20);
        assert_eq!(p.compare((1, &older), (0, &newer)), Ordering::Less);
        assert_eq!(p.reason((1, &older), (0, &newer)), "oldest");
        let marked = facts("x/a copy.txt", 10);
        let plain = facts("x/zzzzzzzz.txt", 10);
        assert_eq!(p.compare((1, &plain), (0, &marked)), Ordering::Less);
        assert_eq!(p.reason((1, &plain), (0, &marked)), "no copy marker");
        let short = facts("x/b.txt", 10);
        let long = facts("x/aa.txt", 10);
        assert_eq!(p.compare((1, &short), (0, &long)), Ordering::Less);
        assert_eq!(p.reason((1, &short), (0, &long)), "shorter path");
        let (a, b) = (facts("x/a.txt", 10), facts("x/b.txt", 10));
        assert_eq!(p.compare((0, &a), (1, &b)), Ordering::Less);
        assert_eq!(p.reason((0, &a), (1, &b)), "found first");
    }
}
