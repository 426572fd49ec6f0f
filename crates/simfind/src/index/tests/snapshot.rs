//! [`Index::snapshot`]: a lookup's reads as one read transaction.

use super::*;

/// The reads inside one snapshot hold one shared lock from the first to the
/// last: another process's commit cannot land between them (it waits, here
/// until its short timeout, and fails), and lands once they are done.
#[test]
fn reads_in_one_snapshot_hold_off_a_commit_until_they_end() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let short = OpenOptions {
        busy_timeout: Duration::from_millis(50),
    };
    let mut writer = Index::open_or_create(&db, &params(), short).unwrap();
    let add = |path, i| Changes {
        added: vec![doc(path, i)],
        ..Changes::default()
    };
    writer.apply(&add("a", 1)).unwrap();
    let reader = Index::open_existing(&db, opts()).unwrap();
    let seen = reader
        .snapshot(|index| {
            let before = index.len()?;
            let err = writer.apply(&add("b", 2)).unwrap_err();
            assert!(matches!(err, IndexError::Busy { .. }), "{err}");
            Ok((before, index.len()?))
        })
        .unwrap();
    assert_eq!(seen, (1, 1));
    writer.apply(&add("b", 2)).unwrap();
    assert_eq!(reader.len().unwrap(), 2);
    // What the closure returns, errors included, is the snapshot's.
    let err = reader
        .snapshot(|_| -> Result<(), IndexError> { Err(IndexError::Missing { path: db.clone() }) })
        .unwrap_err();
    assert!(matches!(err, IndexError::Missing { .. }), "{err}");
    assert_eq!(reader.len().unwrap(), 2);
}
