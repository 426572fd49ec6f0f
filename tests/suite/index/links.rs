//! `query` re-reads indexed files to verify; it must read only the files the
//! index recorded, never what a link put in their path since leads to.

use super::*;

/// A directory of an indexed tree swapped for a link to a directory outside
/// it that holds a byte-identical file: the query used to read through the
/// link (the content hash matched) and report the match. Now the file read
/// must be the one indexed (device and inode), so it is named as replaced and
/// not verified.
#[test]
fn a_query_reads_no_file_through_a_link_put_in_an_indexed_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let text = prose(1, 300);
    let x = write(&root, "sub/x.txt", text.as_bytes());
    write(&root, "y.txt", prose(2, 300).as_bytes());
    write(dir.path(), "outside/sub/x.txt", text.as_bytes());
    let q = write(dir.path(), "q.txt", text.as_bytes());
    let db = dir.path().join("index.simfind");
    let out = run_os(args!["index", root, "--db", db, "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let before = run_os(args!["query", q, "--db", db]);
    assert!(before.status.success(), "{}", stderr(&before));
    assert_eq!(csv_rows(&before.stdout).len(), 1, "{}", stderr(&before));

    std::fs::rename(root.join("sub"), root.join("sub.gone")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside/sub"), root.join("sub")).unwrap();
    let after = run_os(args!["query", q, "--db", db]);
    let err = stderr(&after);
    assert_eq!(after.status.code(), Some(1), "{err}");
    assert!(csv_rows(&after.stdout).is_empty(), "{err}");
    assert!(
        err.contains(&*x.to_string_lossy()) && err.contains("is not the file"),
        "{err}"
    );
}
