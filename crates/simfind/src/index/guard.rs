//! The guard of an index update against emptying itself.
//!
//! Role: a walk cannot tell an unmounted share (an empty mount point) or a
//! narrower root from files that were really deleted: each makes the update
//! forget the documents it no longer finds (the same share spelled another
//! way is renamed before the walk, `Update::respell`). [`check`] refuses such an update before anything changes,
//! as rsync's `--max-delete` refuses a transfer that would delete too much.
//!
//! Inputs: the roots walked, the walked paths, the stored paths and which
//! of them the walk did not find. Output: `Ok` or the [`Refusal`] that
//! names the root or the share removed.
//!
//! Invariants: a limit that allows removing every document ([`MaxDelete::all`])
//! lets every update through; an index with no documents is never guarded.

use std::fmt;
use std::path::{Path, PathBuf};

/// How many of an index's documents one update may remove: a share of the
/// stored documents or a count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaxDelete {
    /// At most this share (0 ≤ share ≤ 1) of the stored documents.
    Share(f64),
    /// At most this many documents.
    Count(u64),
}

impl MaxDelete {
    /// Half of the documents: an update that forgets more than that is far
    /// more often a missing share than a clean-up.
    pub const DEFAULT: MaxDelete = MaxDelete::Share(0.5);

    /// A limit that lets every update through.
    pub fn all() -> MaxDelete {
        MaxDelete::Share(1.0)
    }

    /// Whether removing `removing` of `stored` documents stays within it.
    pub fn allows(self, removing: u64, stored: u64) -> bool {
        match self {
            MaxDelete::Share(share) => removing as f64 <= share * stored as f64,
            MaxDelete::Count(count) => removing <= count,
        }
    }

    /// Whether it allows removing every one of `stored` documents.
    pub fn allows_all(self, stored: u64) -> bool {
        self.allows(stored, stored)
    }
}

impl fmt::Display for MaxDelete {
    /// As `--max-delete` takes it: `50%` or `10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaxDelete::Share(share) => write!(f, "{}%", share * 100.0),
            MaxDelete::Count(count) => write!(f, "{count}"),
        }
    }
}

/// Why an update was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// A root holds no file while the index holds `stored` documents under
    /// it: an unmounted share looks like this.
    EmptyRoot { root: PathBuf, stored: u64 },
    /// The update would remove more documents than the limit allows;
    /// `example` is one of them (it shows how the index spells its paths).
    TooMany {
        removing: u64,
        stored: u64,
        limit: MaxDelete,
        example: PathBuf,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::EmptyRoot { root, stored } => write!(
                f,
                "{} holds no file, but the index holds {stored} document{} under it \
                 (an unmounted or emptied share?)",
                root.display(),
                if *stored == 1 { "" } else { "s" }
            ),
            Refusal::TooMany {
                removing,
                stored,
                limit,
                example,
            } => write!(
                f,
                "this update would remove {removing} of the index's {stored} documents \
                 ({:.0} %), more than its limit of {limit} allows (e.g. {}): is a root \
                 missing, narrower than before, or spelled differently than when it was \
                 indexed?",
                *removing as f64 * 100.0 / *stored as f64,
                example.display()
            ),
        }
    }
}

/// Refuses an update of an index holding `stored` paths (`removed[i]`: the
/// walk did not find path `i`) when a root holds no walked file but stored
/// documents, or when it removes more than `limit` allows.
pub(crate) fn check<'a>(
    roots: &[PathBuf],
    walked: impl Fn(&Path) -> bool,
    stored: impl Iterator<Item = (&'a Path, bool)> + Clone,
    limit: MaxDelete,
) -> Result<(), Refusal> {
    let total = stored.clone().count() as u64;
    if total == 0 {
        return Ok(());
    }
    if !limit.allows_all(total) {
        for root in roots {
            if walked(root) {
                continue;
            }
            let under = stored.clone().filter(|(p, _)| p.starts_with(root)).count() as u64;
            if under > 0 {
                return Err(Refusal::EmptyRoot {
                    root: root.clone(),
                    stored: under,
                });
            }
        }
    }
    let removing = stored.clone().filter(|(_, removed)| *removed).count() as u64;
    if !limit.allows(removing, total) {
        let example = stored
            .filter(|(_, removed)| *removed)
            .map(|(p, _)| p.to_path_buf())
            .next()
            .unwrap_or_default();
        return Err(Refusal::TooMany {
            removing,
            stored: total,
            limit,
            example,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        roots: &[&str],
        walked: &[&str],
        stored: &[(&str, bool)],
        limit: MaxDelete,
    ) -> Result<(), Refusal> {
        let roots: Vec<PathBuf> = roots.iter().map(PathBuf::from).collect();
        let stored: Vec<(PathBuf, bool)> =
            stored.iter().map(|(p, r)| (PathBuf::from(p), *r)).collect();
        check(
            &roots,
            |root| walked.iter().any(|w| Path::new(w).starts_with(root)),
            stored.iter().map(|(p, r)| (p.as_path(), *r)),
            limit,
        )
    }

    #[test]
    fn an_empty_root_with_stored_documents_is_refused() {
        let got = run(&["share"], &[], &[("share/a", true)], MaxDelete::DEFAULT);
        assert!(matches!(got, Err(Refusal::EmptyRoot { stored: 1, .. })));
        // Unless every document may go.
        assert_eq!(
            run(&["share"], &[], &[("share/a", true)], MaxDelete::all()),
            Ok(())
        );
    }

    #[test]
    fn removing_more_than_the_share_is_refused() {
        let stored = [("s/a", true), ("s/b", true), ("s/c", false), ("s/d", false)];
        assert_eq!(run(&["s"], &["s/c"], &stored, MaxDelete::DEFAULT), Ok(()));
        let stored = [("s/a", true), ("s/b", true), ("s/c", true), ("s/d", false)];
        let got = run(&["s"], &["s/d"], &stored, MaxDelete::DEFAULT);
        assert!(matches!(
            got,
            Err(Refusal::TooMany {
                removing: 3,
                stored: 4,
                ..
            })
        ));
        assert_eq!(run(&["s"], &["s/d"], &stored, MaxDelete::Count(3)), Ok(()));
    }

    #[test]
    fn an_empty_index_is_never_guarded() {
        assert_eq!(run(&["s"], &[], &[], MaxDelete::Count(0)), Ok(()));
    }
}
