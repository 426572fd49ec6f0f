//! Several processes on one index: the write lock, waiting for it, and
//! readers during an update.

use super::*;

#[test]
fn a_second_writer_fails_with_a_clear_message_when_the_lock_is_held() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let mut first = Index::open_or_create(&db, &params(), opts()).unwrap();
    let update = first.begin_update().unwrap();

    let short = OpenOptions {
        busy_timeout: Duration::from_millis(50),
    };
    // Opening and reading still work while an update is in progress.
    let mut second = Index::open_or_create(&db, &params(), short).unwrap();
    assert_eq!(second.len().unwrap(), 0);
    let err = second.begin_update().unwrap_err();
    assert!(matches!(err, IndexError::Busy { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("locked by another simfind process") && msg.contains("try again"),
        "{msg}"
    );

    drop(update);
    second.begin_update().unwrap().commit().unwrap();
}

#[test]
fn a_second_writer_waits_for_the_first_and_sees_its_changes() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let mut first = Index::open_or_create(&db, &params(), opts()).unwrap();
    let mut update = first.begin_update().unwrap();
    update.add(&doc("from-first", 1)).unwrap();

    let (tx, rx) = mpsc::channel();
    let db2 = db.clone();
    let waiter = std::thread::spawn(move || {
        let mut second = Index::open_or_create(&db2, &params(), opts()).unwrap();
        tx.send(()).unwrap();
        let mut update = second.begin_update().unwrap();
        // Under the lock, the first writer's committed document is visible, so a
        // plan made from `files()` here is never stale.
        let seen: Vec<PathBuf> = update
            .files()
            .unwrap()
            .into_iter()
            .map(|f| f.path)
            .collect();
        update.add(&doc("from-second", 2)).unwrap();
        update.commit().unwrap();
        seen
    });
    rx.recv().unwrap();
    // Give the waiter time to block on the lock; correctness does not depend on it.
    std::thread::sleep(Duration::from_millis(100));
    update.commit().unwrap();
    let seen = waiter.join().unwrap();
    assert_eq!(seen, vec![PathBuf::from("from-first")]);
    assert_eq!(first.len().unwrap(), 2);
}

#[test]
fn readers_see_the_last_commit_while_an_update_is_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let mut writer = Index::open_or_create(&db, &params(), opts()).unwrap();
    writer
        .apply(&Changes {
            added: vec![doc("old", 1)],
            ..Default::default()
        })
        .unwrap();
    let reader = Index::open_existing(&db, opts()).unwrap();
    let before = snapshot(&reader);

    let mut update = writer.begin_update().unwrap();
    update.remove(Path::new("old")).unwrap();
    update.add(&doc("new", 2)).unwrap();
    assert_eq!(snapshot(&reader), before);
    update.commit().unwrap();
    assert_eq!(snapshot(&reader)[0].0, PathBuf::from("new"));
}
