//! End-to-end tests of issue 36, point 4: every output that marks files not
//! kept uses the removal threshold.

use crate::dedupe::corpus;
use crate::util::*;

/// Point 4: `--format clusters` and `--format jsonl --cluster center` without
/// -t mark nothing under the removal threshold as not kept, and their summary
/// counts the files `--list-removable` lists.
#[test]
fn groups_without_t_mark_only_files_above_the_removal_threshold() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let listed = sim_in(dir.path(), &["scan", "r", "--list-removable"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    assert_eq!(stdout(&listed), "r/near.txt\nr/sub/a-copy.txt\n");
    for args in [
        &["scan", "r", "--format", "clusters"][..],
        &["scan", "r", "--format", "jsonl", "--cluster", "center"],
    ] {
        let out = sim_in(dir.path(), args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        // loose.txt (J ≈ 0.6) is paired at the S-curve threshold, never here.
        assert!(!stdout(&out).contains("loose.txt"), "{}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("threshold 0.900"), "{err}");
        assert!(err.contains(", 2 removable, "), "{err}");
    }
    // -t still chooses: at 0.5 loose.txt is a removable member.
    let low = sim_in(
        dir.path(),
        &["scan", "r", "-q", "--format", "clusters", "-t", "0.5"],
    );
    assert!(stdout(&low).contains("loose.txt,"), "{}", stdout(&low));
}
