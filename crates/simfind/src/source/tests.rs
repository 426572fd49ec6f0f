use super::*;
use crate::input::read::ReadOptions;
use crate::input::walk::FileEntry;
use std::os::unix::fs::MetadataExt;

fn entry(path: &Path) -> FileEntry {
    let meta = std::fs::metadata(path).unwrap();
    FileEntry {
        path: path.to_owned(),
        size: meta.len(),
        modified: meta.modified().ok(),
        dev: meta.dev(),
        ino: meta.ino(),
    }
}

#[test]
fn memory_source_opens_and_reopens_by_key() {
    let source = MemorySource::new(["one text", "another"]);
    assert_eq!(source.len(), 2);
    let keys: Vec<DocKey> = source.documents().collect();
    assert_eq!(keys, [DocKey::Memory(0), DocKey::Memory(1)]);
    assert_eq!(&*source.open(1).unwrap(), b"another");
    let again = source.reopen(&keys[0]).unwrap();
    assert_eq!(&*again, b"one text");
    assert!(again.contents().is_none());
    again.verify_unchanged().unwrap();
    let missing = source.reopen(&DocKey::Memory(2)).unwrap_err();
    assert!(matches!(missing, ReadError::Io(ref e) if e.kind() == std::io::ErrorKind::NotFound));
    assert!(source.reopen(&DocKey::Path("one text".into())).is_err());
}

#[test]
fn doc_keys_name_their_kind_and_round_trip() {
    let keys = [
        DocKey::Path("a/b.txt".into()),
        DocKey::RecordAt {
            file: "r.jsonl".into(),
            offset: 120,
        },
        DocKey::Point {
            file: "v.csv".into(),
            index: 7,
        },
        DocKey::Memory(3),
    ];
    let shown: Vec<String> = keys.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["a/b.txt", "r.jsonl@120", "v.csv#7", "#3"]);
    for key in &keys {
        let kind = key.kind();
        assert_eq!(KeyKind::parse(kind.as_str()), Some(kind));
        assert_eq!(
            kind.is_row(),
            matches!(kind, KeyKind::Record | KeyKind::Point)
        );
    }
    // The names shards have always stored.
    assert_eq!(KeyKind::Path.as_str(), "path");
    assert_eq!(KeyKind::Record.as_str(), "record");
    assert_eq!(KeyKind::Point.as_str(), "vector");
    assert_eq!(KeyKind::parse("row"), None);
    assert_eq!(keys[3].file(), None);
    assert_eq!(keys[1].file(), Some(Path::new("r.jsonl")));
}

#[test]
fn the_binary_rule_is_one_function() {
    let text = b"plain text".to_vec();
    let binary = b"a\0b".to_vec();
    assert!(!skips_binary(false, &text));
    assert!(skips_binary(false, &binary));
    assert!(!skips_binary(true, &binary));
    // Only a NUL within the sniffed prefix counts.
    let mut late = vec![b'x'; crate::input::read::BINARY_SNIFF_LEN];
    late.push(0);
    assert!(!skips_binary(false, &late));
    assert!(matches!(
        Document::from_bytes(binary.clone()).admit(false),
        Admit::Binary
    ));
    assert!(matches!(
        Document::from_bytes(binary).admit(true),
        Admit::Text
    ));
    assert!(matches!(
        Document::from_bytes(text).admit(false),
        Admit::Text
    ));
}

#[test]
fn file_source_opens_walked_files_and_reopens_them_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.bin");
    std::fs::write(&a, b"hello world").unwrap();
    std::fs::write(&b, b"\0\x01\x02").unwrap();
    let files = [entry(&a), entry(&b)];
    let read = ReadOptions::default();
    let source = FileSource::new(&files, false, &read);
    assert_eq!(source.key(0), DocKey::Path(a.clone()));
    let doc = source.open(0).unwrap();
    assert_eq!(&*doc, b"hello world");
    assert_eq!(doc.identity(), Some((files[0].dev, files[0].ino)));
    assert!(matches!(doc.admit(false), Admit::Text));
    assert!(matches!(
        source.open(1).unwrap().admit(false),
        Admit::Binary
    ));
    assert_eq!(
        &*source.reopen(&DocKey::Path(a.clone())).unwrap(),
        b"hello world"
    );
    let elsewhere = DocKey::Path(dir.path().join("c.txt"));
    assert!(source.reopen(&elsewhere).is_err());
    assert!(source.reopen(&DocKey::Memory(0)).is_err());
}

#[test]
fn a_file_replaced_between_sign_and_reopen_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    std::fs::write(&a, b"signed text").unwrap();
    let files = [entry(&a)];
    let read = ReadOptions::default();
    let source = FileSource::new(&files, false, &read);
    source.open(0).unwrap().verify_unchanged().unwrap();
    // The walked file lives on under another name, so that its inode is not
    // given to a file made below (a link to a file with the walked identity
    // is followed on purpose, and a reused inode would look like one).
    std::fs::hard_link(&a, dir.path().join("walked")).unwrap();
    // Replaced by another file at the same path (a new inode).
    let tmp = dir.path().join("new");
    std::fs::write(&tmp, b"other text").unwrap();
    std::fs::rename(&tmp, &a).unwrap();
    let err = source.reopen(&DocKey::Path(a.clone())).unwrap_err();
    assert!(matches!(err, ReadError::NotTheWalkedFile), "{err:?}");
    // Replaced by a link to a file outside: not followed.
    std::fs::remove_file(&a).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("secret");
    std::fs::write(&target, b"secret").unwrap();
    std::os::unix::fs::symlink(&target, &a).unwrap();
    let err = source.reopen(&DocKey::Path(a.clone())).unwrap_err();
    assert!(matches!(err, ReadError::BecameSymlink), "{err:?}");
    // By path with the identity an index recorded: refused the same way.
    let (dev, ino) = (files[0].dev, files[0].ino);
    let err = reopen_path(&a, Reopen::Identified(dev, ino), &read).unwrap_err();
    assert!(matches!(err, ReadError::NotTheWalkedFile), "{err:?}");
}
