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
    First,
    /// The original rather than a copy: a name without a copy marker
    /// ([`copy_marker`]), then the shortest path, then the oldest
    /// modification time, then the first file found. The time comes last
    /// because it does not tell an original from its copy on a real share:
    /// `cp -p` and `rsync -a` give the copy the original's time, an original
    /// edited after it was copied is newer than its stale copy, and `cp -r`
    /// or a checkout gives the files of a tree times in the order it wrote
    /// them, milliseconds apart. A name like `report - Copy.pdf` is what a
    /// person or a file manager wrote to say which one is the copy, and a
    /// version made from a file, or a copy filed away, mostly has a longer
    /// path (`report-edited.txt`, `old/2020/report.txt`).
    #[default]
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
            other: !d.reference,
            marker: false,
            length: 0,
            untimed: false,
            primary: 0,
            secondary: 0,
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
            None => key.untimed = true,
        };
        match self {
            KeepPolicy::Newest => time(true, &mut key),
            KeepPolicy::Oldest => time(false, &mut key),
            KeepPolicy::Largest => key.primary = !d.size,
            KeepPolicy::Smallest => key.primary = d.size,
            KeepPolicy::ShortestPath => key.primary = d.path.len() as u64,
            KeepPolicy::First => {}
            KeepPolicy::Original => {
                key.marker = copy_marker(d.path);
                key.length = d.path.len() as u64;
                time(false, &mut key);
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
        let timed = (k.untimed, k.primary, k.secondary) != (o.untimed, o.primary, o.secondary);
        match self {
            KeepPolicy::Original if k.marker != o.marker => "no copy marker",
            KeepPolicy::Original if k.length != o.length => "shorter path",
            KeepPolicy::Newest if timed => "newest",
            KeepPolicy::Oldest | KeepPolicy::Original if timed => "oldest",
            KeepPolicy::Largest if timed => "largest",
            KeepPolicy::Smallest if timed => "smallest",
            KeepPolicy::ShortestPath if timed => "shorter path",
            _ => "found first",
        }
    }
}

/// The words file managers and people add to a copy's name, lower-case:
/// English (`report - Copy.pdf`, `Copy of report.pdf`, `report copy 2.pdf`,
/// `report (another copy).pdf`), the same word in the languages Windows
/// Explorer and the desktop file managers write it in (German and Dutch
/// `Kopie`, French `copie`, Spanish, Italian and Portuguese `copia`/`cópia`,
/// Polish and Swedish `kopia`, Finnish `kopio`, Russian `копия`, Japanese
/// `コピー`, Chinese `副本`), `backup` and `final`, which a person adds, and
/// `bak` (`report.bak`, `report_bak.pdf`).
const COPY_WORDS: [&str; 13] = [
    "copy",
    "copie",
    "copia",
    "cópia",
    "kopie",
    "kopia",
    "kopio",
    "копия",
    "コピー",
    "副本",
    "backup",
    "final",
    "bak",
];

/// Whether a path's file name marks it as a copy of another file:
///
/// - a word of [`COPY_WORDS`] (case-insensitive; words are runs of letters,
///   so `a-copy.png`, `Copy of a.txt`, `a - Kopie.txt` and `a (copie).txt` all
///   count, `copyright` and `finale` do not);
/// - a number of one to three digits in parentheses just before an extension
///   or at the end (`a (1).txt`, `a(2).tar.gz`, as browsers and Windows
///   number a second download or copy; four digits are more often a year, as
///   in `Holiday (2020).jpg`);
/// - a name ending in `~` (editors' backups).
pub fn copy_marker(path: &[u8]) -> bool {
    let name = match path.iter().rposition(|&b| b == b'/') {
        Some(i) => &path[i + 1..],
        None => path,
    };
    if name.ends_with(b"~") {
        return true;
    }
    let lower = String::from_utf8_lossy(name).to_lowercase();
    if lower
        .split(|c: char| !c.is_alphabetic())
        .any(|w| COPY_WORDS.contains(&w))
    {
        return true;
    }
    // "(N)" followed by the end of the name or by an extension.
    let bytes = lower.as_bytes();
    bytes.iter().enumerate().any(|(open, &b)| {
        if b != b'(' {
            return false;
        }
        let digits = bytes[open + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after = &bytes[open + 1 + digits..];
        (1..=3).contains(&digits)
            && after.first() == Some(&b')')
            && matches!(after.get(1), None | Some(b'.'))
    })
}

/// Field order is comparison order; smaller is better to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct KeepKey {
    /// A reference file is kept before any other, whatever the policy.
    other: bool,
    /// `original`: the name carries a copy marker (before the time: see
    /// [`KeepPolicy::Original`]).
    marker: bool,
    /// `original`: the path's length in bytes.
    length: u64,
    /// The policy needs a modification time and the file has none: it loses.
    untimed: bool,
    primary: u64,
    secondary: u32,
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
            "a-copy.png",
            "report (1).pdf",
            "report(2).pdf",
            "report (1).tar.gz",
            "Copy of report.pdf",
            "report - Copy.pdf",
            "report - Copy (2).pdf",
            "report copy 2.pdf",
            "report (another copy).pdf",
            "report - Kopie.pdf",
            "report (copie).pdf",
            "report - copia.pdf",
            "report - Cópia.pdf",
            "report - kopia.pdf",
            "report - Копия.pdf",
            "report - コピー.pdf",
            "report - 副本.pdf",
            "report~",
            "report.bak",
            "report.bak.txt",
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
            "Holiday (2020).jpg",
            "report (1) notes.txt",
            "copier.txt",
            "kopiert.txt",
            "bakery.txt",
            "report.pdf",
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
    fn original_prefers_no_marker_then_shorter_path_then_oldest_then_first() {
        let p = KeepPolicy::Original;
        // A copy made by `cp` is newer, one made by `cp -p` as old, and an
        // original edited after copying newer than its copy: the name wins.
        let older_copy = facts("x/a copy.txt", 10);
        let newer = facts("x/zzzzzzzz.txt", 20);
        assert_eq!(p.compare((1, &newer), (0, &older_copy)), Ordering::Less);
        assert_eq!(p.reason((1, &newer), (0, &older_copy)), "no copy marker");
        // A version made from the file, copied first by `cp -r`.
        let older = facts("x/lighthouse-edited.txt", 10);
        let newer = facts("x/lighthouse.txt", 20);
        assert_eq!(p.compare((1, &newer), (0, &older)), Ordering::Less);
        assert_eq!(p.reason((1, &newer), (0, &older)), "shorter path");
        let older = facts("x/b.txt", 10);
        let newer = facts("x/a.txt", 20);
        assert_eq!(p.compare((1, &older), (0, &newer)), Ordering::Less);
        assert_eq!(p.reason((1, &older), (0, &newer)), "oldest");
        // A reference file is kept first, even with a copy marker.
        let mut reference = facts("x/b copy.txt", 30);
        reference.reference = true;
        let plain = facts("x/a.txt", 10);
        assert_eq!(p.compare((1, &reference), (0, &plain)), Ordering::Less);
        assert_eq!(p.reason((1, &reference), (0, &plain)), "reference");
        let short = facts("x/b.txt", 10);
        let long = facts("x/aa.txt", 10);
        assert_eq!(p.compare((1, &short), (0, &long)), Ordering::Less);
        assert_eq!(p.reason((1, &short), (0, &long)), "shorter path");
        let (a, b) = (facts("x/a.txt", 10), facts("x/b.txt", 10));
        assert_eq!(p.compare((0, &a), (1, &b)), Ordering::Less);
        assert_eq!(p.reason((0, &a), (1, &b)), "found first");
    }
}
