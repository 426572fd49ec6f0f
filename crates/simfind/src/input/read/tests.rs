use super::*;
use std::io::Write;

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p
}

fn force_mmap() -> ReadOptions {
    ReadOptions {
        mmap_min_size: 0,
        ..ReadOptions::default()
    }
}

#[test]
fn small_file_is_read_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "a.txt", b"hello world\n");
    let c = read_file(&p, &ReadOptions::default()).unwrap();
    assert_eq!(&*c, b"hello world\n");
    assert!(!c.is_mapped());
    c.verify_unchanged().unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn large_file_is_mapped_and_identical() {
    let dir = tempfile::tempdir().unwrap();
    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8 + 1).collect();
    let p = write_file(dir.path(), "big", &bytes);
    let c = read_file(&p, &force_mmap()).unwrap();
    assert!(c.is_mapped());
    assert_eq!(&*c, &bytes[..]);
    c.verify_unchanged().unwrap();
    let never = read_file(&p, &ReadOptions::never_mmap()).unwrap();
    assert!(!never.is_mapped());
    assert_eq!(&*never, &bytes[..]);
}

/// Released pages read back as the file's bytes (mapped anew), and the
/// mapping's resident size shrinks (read from `/proc/self/smaps`).
#[cfg(target_os = "linux")]
#[test]
fn released_pages_read_back_the_same_and_leave_rss() {
    let dir = tempfile::tempdir().unwrap();
    let bytes: Vec<u8> = (0..(8 << 20) as u32).map(|i| (i % 253) as u8).collect();
    let p = write_file(dir.path(), "big", &bytes);
    let c = read_file(&p, &force_mmap()).unwrap();
    assert!(c.is_mapped());
    let resident_kb = || -> u64 {
        let start = format!("{:x}-", c.as_ptr() as usize);
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
        lines
            .find_map(|l| l.strip_prefix("Rss:"))
            .map(|v| v.trim().trim_end_matches("kB").trim().parse().unwrap())
            .expect("the mapping is listed")
    };
    let sum = |b: &[u8]| b.iter().map(|&x| x as u64).sum::<u64>();
    assert_eq!(sum(&c), sum(&bytes));
    let touched = resident_kb();
    assert!(
        touched >= 8 << 10,
        "{touched} kB resident after reading all"
    );
    c.release_before(c.len() - 12345);
    let released = resident_kb();
    assert!(released <= 64, "{released} kB resident after the release");
    // Not page-aligned: the page holding the offset stays readable, and
    // everything reads as before.
    c.release_before(4097);
    assert_eq!(&*c, &bytes[..]);
    c.verify_unchanged().unwrap();
    let owned = read_file(&p, &ReadOptions::never_mmap()).unwrap();
    owned.release_before(owned.len());
    assert_eq!(&*owned, &bytes[..]);
}

#[test]
fn empty_file_uses_read_path_even_when_mapping_is_forced() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "empty", b"");
    let c = read_file(&p, &force_mmap()).unwrap();
    assert!(c.is_empty());
    assert!(!c.is_mapped());
    c.verify_unchanged().unwrap();
}

#[test]
fn missing_file_is_io_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_file(&dir.path().join("gone"), &ReadOptions::default()).unwrap_err();
    match &err {
        ReadError::Io(e) => assert_eq!(e.kind(), io::ErrorKind::NotFound),
        other => panic!("expected Io(NotFound), got {other:?}"),
    }
    assert_eq!(err.to_string(), "no such file or directory");
}

#[test]
fn directory_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_file(dir.path(), &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, ReadError::NotRegularFile), "{err:?}");
    assert_eq!(err.to_string(), "not a regular file");
}

#[cfg(unix)]
#[test]
fn character_device_is_not_a_regular_file() {
    let err = read_file(Path::new("/dev/null"), &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, ReadError::NotRegularFile), "{err:?}");
}

/// Regression guard for "open blocks on a FIFO with no writer": the read runs
/// in a thread and the test fails (instead of hanging) if it does not return.
#[cfg(unix)]
#[test]
fn fifo_is_rejected_without_blocking() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("fifo");
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
    // SAFETY: valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let (tx, rx) = std::sync::mpsc::channel();
    let p2 = p.clone();
    std::thread::spawn(move || {
        let _ = tx.send(read_file(&p2, &ReadOptions::default()).map(|_| ()));
    });
    let res = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("read_file blocked on a FIFO");
    assert!(matches!(res, Err(ReadError::NotRegularFile)), "{res:?}");
}

#[test]
fn growth_after_open_keeps_the_opened_size_and_is_reported_as_changed() {
    for opts in [ReadOptions::never_mmap(), force_mmap()] {
        let dir = tempfile::tempdir().unwrap();
        let p = write_file(dir.path(), "log", &[b'x'; 5000]);
        let c = read_file(&p, &opts).unwrap();
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(&[b'y'; 3000]).unwrap();
        drop(f);
        assert_eq!(c.len(), 5000);
        assert!(c.iter().all(|&b| b == b'x'));
        let err = c.verify_unchanged().unwrap_err();
        assert!(matches!(err, ReadError::Changed), "{opts:?}: {err:?}");
    }
}

/// The read path sees the truncation through the file (no signal involved);
/// the mapped path is tested in tests/read_guard.rs in a child process.
#[test]
fn truncation_after_open_on_read_path_is_shrank() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "t", &[b'a'; 4096]);
    let c = read_file(&p, &ReadOptions::never_mmap()).unwrap();
    OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(100)
        .unwrap();
    let err = c.verify_unchanged().unwrap_err();
    assert!(
        matches!(
            err,
            ReadError::Shrank {
                expected: 4096,
                actual: 100
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "shrank while being read (expected 4096 bytes, got 100)"
    );
}

#[test]
fn same_size_rewrite_is_changed() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "r", b"aaaa");
    let c = read_file(&p, &ReadOptions::never_mmap()).unwrap();
    // Set an mtime that is certainly different, instead of sleeping past the
    // file system's timestamp granularity.
    let f = OpenOptions::new().write(true).open(&p).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000))
        .unwrap();
    assert!(matches!(c.verify_unchanged(), Err(ReadError::Changed)));
}

#[test]
fn io_reasons_are_short_and_lowercase() {
    let e = ReadError::Io(io::Error::from_raw_os_error(libc::EACCES));
    assert_eq!(e.to_string(), "permission denied");
    let e = ReadError::Io(io::Error::from_raw_os_error(libc::EIO));
    assert_eq!(e.to_string(), "input/output error");
    let e = ReadError::Io(io::Error::other("Custom thing"));
    assert_eq!(e.to_string(), "custom thing");
    assert_eq!(ReadError::Changed.to_string(), "changed while being read");
}

#[test]
fn binary_detection_looks_at_the_first_block_only() {
    assert!(!looks_binary(b""));
    assert!(!looks_binary("plain text, ünïcode ✓\n".as_bytes()));
    assert!(looks_binary(b"ELF\0\x01\x02"));
    let mut late = vec![b'a'; BINARY_SNIFF_LEN];
    late.push(0);
    assert!(
        !looks_binary(&late),
        "NUL after the sniffed block must not count"
    );
    late[BINARY_SNIFF_LEN - 1] = 0;
    assert!(
        looks_binary(&late),
        "NUL at the last sniffed byte must count"
    );
    let utf16: Vec<u8> = "hi".encode_utf16().flat_map(u16::to_le_bytes).collect();
    assert!(looks_binary(&utf16));
}

/// What a walk records of `path` (following a link, as it does for a root).
fn walked(path: &Path) -> FileEntry {
    let meta = std::fs::metadata(path).unwrap();
    FileEntry {
        path: path.to_path_buf(),
        size: meta.len(),
        modified: meta.modified().ok(),
        dev: meta.dev(),
        ino: meta.ino(),
    }
}

/// Reliability case 2.7: whatever replaces a walked file (a link to a
/// file outside the roots, another file, a directory on its path swapped
/// for a link) is not read in its place unless links are followed.
#[cfg(unix)]
#[test]
fn a_walked_file_is_read_only_if_it_is_still_the_file_the_walk_found() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let secret = write_file(dir.path(), "secret.txt", b"outside the root");
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let opts = ReadOptions::default();

    let a = write_file(&root, "a.txt", b"walked");
    let entry = walked(&a);
    assert_eq!(&*read_walked(&entry, false, &opts).unwrap(), b"walked");
    std::fs::remove_file(&a).unwrap();
    symlink(&secret, &a).unwrap();
    let err = read_walked(&entry, false, &opts).unwrap_err();
    assert!(matches!(err, ReadError::BecameSymlink), "{err:?}");
    assert_eq!(
        err.to_string(),
        "changed into a symbolic link after the walk (not followed)"
    );
    // --follow-links: the link is the user's to follow, as before.
    let followed = read_walked(&entry, true, &opts).unwrap();
    assert_eq!(&*followed, b"outside the root");

    // Replaced by another regular file (a new inode; the old one is kept
    // elsewhere, or the file system could give its number to the new file).
    let b = write_file(&root, "b.txt", b"walked");
    let entry = walked(&b);
    std::fs::rename(&b, dir.path().join("b.old")).unwrap();
    write_file(&root, "b.txt", b"another file");
    let err = read_walked(&entry, false, &opts).unwrap_err();
    assert!(matches!(err, ReadError::NotTheWalkedFile), "{err:?}");

    // A directory on the path swapped for a link (O_NOFOLLOW covers only
    // the last component): the device and inode tell.
    let sub = root.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let c = write_file(&sub, "secret.txt", b"walked");
    let entry = walked(&c);
    std::fs::rename(&sub, root.join("sub.away")).unwrap();
    symlink(dir.path(), &sub).unwrap();
    let err = read_walked(&entry, false, &opts).unwrap_err();
    assert!(matches!(err, ReadError::NotTheWalkedFile), "{err:?}");

    // An entry made by following a link (as a walk does for a root) is
    // still read through it.
    let link = root.join("root-link");
    symlink(&secret, &link).unwrap();
    let entry = walked(&link);
    assert_eq!(
        &*read_walked(&entry, false, &opts).unwrap(),
        b"outside the root"
    );
}

/// Below a root, a link in any component is refused by both ways of opening
/// (openat2 and the component-by-component fallback), and so is a `..`;
/// a plain path and the root named through a link are opened.
#[cfg(unix)]
#[test]
fn opening_beneath_a_root_follows_no_link_below_it() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    write_file(&root.join("sub"), "x.txt", b"inside");
    write_file(&dir.path().join("outside"), "x.txt", b"outside");
    symlink(dir.path().join("outside"), root.join("linked")).unwrap();
    symlink(dir.path().join("outside/x.txt"), root.join("sub/link.txt")).unwrap();
    symlink(&root, dir.path().join("root-link")).unwrap();
    let read = |file: File| {
        let mut text = String::new();
        let mut file = file;
        file.read_to_string(&mut text).unwrap();
        text
    };
    let open_root = || File::open(&root).unwrap();
    let flags = libc::O_NONBLOCK;
    let code = |r: io::Result<File>| r.err().and_then(|e| e.raw_os_error());
    assert_eq!(
        read(beneath::open_beneath(&root, Path::new("sub/x.txt"), flags).unwrap()),
        "inside"
    );
    let via_link = dir.path().join("root-link");
    assert_eq!(
        read(beneath::open_beneath(&via_link, Path::new("sub/x.txt"), flags).unwrap()),
        "inside"
    );
    assert_eq!(
        read(
            beneath::open_component_by_component(open_root(), Path::new("sub/x.txt"), flags)
                .unwrap()
        ),
        "inside"
    );
    for refused in ["linked/x.txt", "sub/link.txt", "sub/../../outside/x.txt"] {
        let refused = Path::new(refused);
        let kernel = code(beneath::open_beneath(&root, refused, flags));
        assert!(
            matches!(kernel, Some(libc::ELOOP | libc::EXDEV)),
            "{refused:?}: {kernel:?}"
        );
        let fallback = code(beneath::open_component_by_component(
            open_root(),
            refused,
            flags,
        ));
        assert!(
            matches!(fallback, Some(libc::ELOOP | libc::EXDEV)),
            "{refused:?}: {fallback:?}"
        );
    }
    let opts = ReadOptions::never_mmap();
    let err = read_file_beneath(&root, &root.join("linked/x.txt"), &opts).unwrap_err();
    assert!(matches!(err, ReadError::BecameSymlink), "{err}");
    let ok = read_file_beneath(&root, &root.join("sub/x.txt"), &opts).unwrap();
    assert_eq!(&ok[..], b"inside");
}

/// A root opened once ([`RootDir`]) reads what [`read_file_beneath`] reads
/// and refuses what it refuses, for every later path below it; it keeps
/// the directory it opened when the root's name is moved away.
#[cfg(unix)]
#[test]
fn a_root_opened_once_reads_and_refuses_as_reading_beneath_does() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    write_file(&root.join("sub"), "x.txt", b"inside");
    write_file(&dir.path().join("outside"), "x.txt", b"outside");
    symlink(dir.path().join("outside"), root.join("linked")).unwrap();
    symlink(dir.path().join("outside/x.txt"), root.join("sub/link.txt")).unwrap();
    let opts = ReadOptions::never_mmap();
    let opened = RootDir::open(&root).unwrap();
    let both = |path: &Path| {
        (
            read_file_beneath(&root, path, &opts).map(|c| c.to_vec()),
            read_file_beneath_dir(&opened, &root, path, &opts).map(|c| c.to_vec()),
        )
    };
    let (once, each) = both(&root.join("sub/x.txt"));
    assert_eq!(once.unwrap(), b"inside");
    assert_eq!(each.unwrap(), b"inside");
    for refused in ["linked/x.txt", "sub/link.txt", "sub/../../outside/x.txt"] {
        let (once, each) = both(&root.join(refused));
        assert!(
            matches!(once, Err(ReadError::BecameSymlink)),
            "{refused}: {once:?}"
        );
        assert!(
            matches!(each, Err(ReadError::BecameSymlink)),
            "{refused}: {each:?}"
        );
    }
    // A path outside the root is read by its own name, as before.
    let outside = dir.path().join("outside/x.txt");
    assert_eq!(
        read_file_beneath_dir(&opened, &root, &outside, &opts)
            .unwrap()
            .to_vec(),
        b"outside"
    );
    let (once, each) = both(&root.join("sub/missing.txt"));
    assert_eq!(once.unwrap_err().to_string(), each.unwrap_err().to_string());
    // The root's name moved away: the open directory still leads to its
    // files, the name no longer does.
    std::fs::rename(&root, dir.path().join("moved")).unwrap();
    let (once, each) = both(&root.join("sub/x.txt"));
    assert!(once.is_err());
    assert_eq!(each.unwrap(), b"inside");
}

/// A file read by identity is refused, before a byte is read, when the path
/// leads elsewhere now; the same file through a link is accepted.
#[cfg(unix)]
#[test]
fn reading_by_identity_refuses_another_file_at_the_path() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let x = write_file(dir.path(), "x.txt", b"the indexed one");
    let meta = std::fs::metadata(&x).unwrap();
    let identity = (meta.dev(), meta.ino());
    let opts = ReadOptions::never_mmap();
    assert_eq!(
        &read_file_identified(&x, identity, &opts).unwrap()[..],
        b"the indexed one"
    );
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink(&x, &link).unwrap();
    assert_eq!(
        &read_file_identified(&link, identity, &opts).unwrap()[..],
        b"the indexed one"
    );
    let other = write_file(dir.path(), "other.txt", b"the indexed one");
    let err = read_file_identified(&other, identity, &opts).unwrap_err();
    assert!(matches!(err, ReadError::NotTheWalkedFile), "{err}");
}

/// Review 9.1: under `ulimit -v` a 2 MB file was skipped as "file too large
/// to read"; the address space ran out, not the file's size.
#[test]
fn a_buffer_that_cannot_be_had_is_out_of_memory_not_too_large() {
    let err = super::no_memory_for(2 << 20);
    assert_eq!(err.kind(), io::ErrorKind::OutOfMemory);
    let said = err.to_string();
    assert!(said.contains("out of memory"), "{said}");
    assert!(!said.contains("too large"), "{said}");
}
