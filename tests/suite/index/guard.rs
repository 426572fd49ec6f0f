//! Issue 36 point 5: an update that would empty the index (an unmounted,
//! emptied or narrower root) is refused with exit 2 and changes nothing, up
//! to `--max-delete`; a root spelled differently than when it was indexed
//! is the same root.

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
    // A root left out: its 15 of the 26 stored paths would go.
    let (code, err) = index_status(&[&b], &db, &[]);
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

/// The same share spelled relative or absolute, with `..`, `./` and a
/// trailing `/`, or through a symlink, is the same root: nothing is added,
/// removed or read again (it was "11 added, 11 removed" or refused), the
/// stored paths take the spelling given, and `scan --db` writes what a scan
/// without the index writes.
#[test]
fn a_root_spelled_another_way_is_the_same_root() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    let db = dir.path().join("index.simfind");
    index(&[&a, &b], &db, &[]);
    let hashes = |db: &Path| -> Vec<u128> {
        let mut h: Vec<u128> = indexed(db).into_iter().map(|(_, h)| h).collect();
        h.sort();
        h
    };
    let before = hashes(&db);
    let in_a = indexed(&db)
        .iter()
        .filter(|(p, _)| p.starts_with(&a))
        .count();
    assert!(in_a > 10, "{in_a}");
    std::os::unix::fs::symlink(&a, dir.path().join("link")).unwrap();
    let run = |root: &str| {
        let out = simfind()
            .current_dir(dir.path())
            .arg("index")
            .arg(root)
            .arg(&b)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{root}: {}", stderr(&out));
        stderr(&out)
    };
    for root in ["a", "./a/", "b/../a", "link", a.to_str().unwrap()] {
        let err = run(root);
        assert!(
            err.contains(" 0 signed") && err.contains("0 added, 0 changed, 0 removed"),
            "{root}: {err}"
        );
        assert_eq!(hashes(&db), before, "{root}");
        let spelled: Vec<PathBuf> = indexed(&db)
            .into_iter()
            .map(|(p, _)| p)
            .filter(|p| !p.starts_with(&b))
            .collect();
        assert_eq!(spelled.len(), in_a, "{root}");
        assert!(
            spelled.iter().all(|p| p.starts_with(root)),
            "{root}: {spelled:?}"
        );
    }
    let scan = |db: Option<&Path>| {
        let mut cmd = simfind();
        cmd.current_dir(dir.path())
            .args(["scan", "link", "b", "-q"]);
        match db {
            Some(db) => cmd.arg("--db").arg(db),
            // `scan --db` finds pairs by LSH.
            None => cmd.args(["--method", "lsh"]),
        };
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out.stdout
    };
    let err = run("a");
    assert!(err.contains("0 added, 0 changed, 0 removed"), "{err}");
    assert_eq!(scan(Some(&db)), scan(None));
}

/// Issue 36 point 5: an index made with a relative root, updated from
/// another directory (the root spelled relative to it, or absolute), is
/// the same index: nothing added or removed, no refusal. The stored paths
/// were read against the current directory, found nowhere, and the update
/// was refused as one that would remove every document.
#[test]
fn a_relative_root_indexed_here_is_the_same_root_from_another_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = corpus(dir.path());
    let db = dir.path().join("index.simfind");
    let other = dir.path().join("elsewhere/deeper");
    std::fs::create_dir_all(&other).unwrap();
    let run = |cwd: &Path, root: &str, db: &str| {
        let out = simfind()
            .current_dir(cwd)
            .args(["index", root, "--db", db])
            .output()
            .unwrap();
        (out.status.code(), stderr(&out))
    };
    let (code, err) = run(dir.path(), "a", "index.simfind");
    assert_eq!(code, Some(0), "{err}");
    let before: Vec<u128> = {
        let mut h: Vec<u128> = indexed(&db).into_iter().map(|(_, h)| h).collect();
        h.sort();
        h
    };
    assert!(before.len() > 10, "{}", before.len());
    for (cwd, root) in [
        (other.clone(), "../../a".to_string()),
        (PathBuf::from("/"), a.to_str().unwrap().to_string()),
        (dir.path().to_path_buf(), "a".to_string()),
        (other.clone(), "../../a".to_string()),
    ] {
        let (code, err) = run(&cwd, &root, db.to_str().unwrap());
        assert_eq!(code, Some(0), "{root} from {}: {err}", cwd.display());
        assert!(
            err.contains(" 0 signed") && err.contains("0 added, 0 changed, 0 removed"),
            "{root} from {}: {err}",
            cwd.display()
        );
        let mut now: Vec<u128> = indexed(&db).into_iter().map(|(_, h)| h).collect();
        now.sort();
        assert_eq!(now, before, "{root}");
        // Each path spelled as this run spelled its root.
        assert!(
            indexed(&db).iter().all(|(p, _)| p.starts_with(&root)),
            "{root}: {:?}",
            indexed(&db).first()
        );
    }
    // A file really gone from the share is still removed, from anywhere.
    std::fs::remove_file(a.join("fam0/edit1.txt")).unwrap();
    let (code, err) = run(&other, "../../a", db.to_str().unwrap());
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("0 added, 0 changed, 1 removed"), "{err}");
}
