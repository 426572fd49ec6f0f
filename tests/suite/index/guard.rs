//! Issue 36 point 5: an update that would empty the index (an unmounted,
//! emptied, narrower or differently spelled root) is refused with exit 2 and
//! changes nothing, up to `--max-delete`.

use super::*;

fn index_status(roots: &[&Path], db: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let out = simfind()
        .arg("index")
        .args(roots)
        .args(extra)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    (out.status.code(), stderr(&out))
}

/// An empty mount point looks like an emptied share: "660 removed", exit 0,
/// was the index's answer.
#[test]
fn an_unmounted_share_leaves_the_index_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let db = dir.path().join("index.simfind");
    index(&[&a, &b], &db, &[]);
    let before = indexed(&db);
    let before_bytes = std::fs::read(&db).unwrap();
    // `b` unmounted: its mount point is an empty directory.
    std::fs::rename(&b, dir.path().join("b-away")).unwrap();
    std::fs::create_dir(&b).unwrap();
    let (code, err) = index_status(&[&a, &b], &db, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{} holds no file", b.display())),
        "{err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    assert_eq!(indexed(&db), before);
    assert_eq!(std::fs::read(&db).unwrap(), before_bytes);
    // Emptied on purpose: --max-delete 100% lets it through.
    let err = index(&[&a, &b], &db, &["--max-delete", "100%"]);
    assert!(err.contains("11 removed"), "{err}");
}

#[test]
fn an_update_that_removes_more_than_max_delete_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let db = dir.path().join("index.simfind");
    index(&[&a, &b], &db, &[]);
    let before = indexed(&db);
    // The same share spelled another way: every stored path would go.
    let other = dir.path().join("a/../a");
    let (code, err) = index_status(&[&other, &b], &db, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("would remove"), "{err}");
    assert!(err.contains("--max-delete 100%"), "{err}");
    assert_eq!(indexed(&db), before);
    // A count as the limit: 2 files gone of the index's are within 2.
    std::fs::remove_file(b.join("loner1.txt")).unwrap();
    std::fs::remove_file(b.join("loner2.txt")).unwrap();
    let (code, err) = index_status(&[&a, &b], &db, &["--max-delete", "1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("would remove 2 of"), "{err}");
    let err = index(&[&a, &b], &db, &["--max-delete", "2"]);
    assert!(err.contains("2 removed"), "{err}");
    // A bad limit is a usage error.
    let (code, err) = index_status(&[&a, &b], &db, &["--max-delete", "150%"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--max-delete"), "{err}");
}
