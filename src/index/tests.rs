use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use super::*;

fn params() -> Params {
    Params {
        shingle_kind: "char".into(),
        k: 5,
        normalisation: "utf8-lossy,lowercase,collapse-whitespace,trim".into(),
        n: 8,
        bands: 4,
        rows: 2,
        seed: 42,
        minhash: "classic".into(),
        stop_words: String::new(),
        include_binary: false,
    }
}

fn opts() -> OpenOptions {
    OpenOptions {
        busy_timeout: Duration::from_secs(10),
    }
}

/// A deterministic document whose values all derive from `i` (and `generation`, so
/// that a changed version of the same path differs in every field).
fn doc_for(p: &Params, path: impl Into<PathBuf>, i: u64, generation: u64) -> IndexedDoc {
    let mix = |x: u64| x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ generation;
    IndexedDoc {
        path: path.into(),
        stat: FileStat {
            size: i * 100 + generation,
            mtime_ns: 1_700_000_000_000_000_000 + i as i64 * 1000 + generation as i64,
            dev: Some(2049),
            inode: Some(1000 + i),
        },
        content_hash: (u128::from(mix(i)) << 64) | u128::from(generation),
        binary: false,
        shingle_count: i + generation + 1,
        signature: (0..p.n)
            .map(|j| mix(i * 1000 + u64::from(j)) as u32)
            .collect(),
        band_keys: (0..p.bands)
            .map(|b| mix(i * 7919 + u64::from(b) + generation))
            .collect(),
    }
}

fn doc(path: &str, i: u64) -> IndexedDoc {
    doc_for(&params(), path, i, 0)
}

fn stored(doc: &IndexedDoc, id: RowId) -> StoredDoc {
    StoredDoc {
        id,
        path: doc.path.clone(),
        stat: doc.stat,
        content_hash: doc.content_hash,
        binary: doc.binary,
        shingle_count: doc.shingle_count,
        signature: doc.signature.clone(),
    }
}

/// `(path, hash, signature, band keys)` of every document: the whole observable
/// state of an index, for before/after comparisons.
type Snapshot = Vec<(PathBuf, u128, Vec<u32>, Vec<u64>)>;

fn snapshot(index: &Index) -> Snapshot {
    index
        .documents()
        .unwrap()
        .into_iter()
        .map(|d| {
            let keys = index.band_keys(d.id).unwrap();
            (d.path, d.content_hash, d.signature, keys)
        })
        .collect()
}

fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("index.sqlite")
}

#[test]
fn round_trip_keeps_every_value_including_extremes() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    #[cfg(unix)]
    let odd_path = {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(b"dir/not-utf8-\xff\xfe.txt"))
    };
    #[cfg(not(unix))]
    let odd_path = PathBuf::from("dir/not-utf8.txt");
    let extreme = IndexedDoc {
        path: "dir/a,comma \"quoted\" path.txt".into(),
        stat: FileStat {
            size: u64::MAX,
            mtime_ns: -1_234_567_890,
            dev: None,
            inode: None,
        },
        content_hash: u128::MAX - 5,
        binary: false,
        shingle_count: u64::MAX,
        signature: vec![u32::MAX, 0, 1, 2, 3, 4, 5, u32::MAX - 1],
        band_keys: vec![u64::MAX, 0, 1 << 63, 12345],
    };
    let empty = IndexedDoc {
        shingle_count: 0,
        signature: vec![],
        band_keys: vec![],
        ..doc("e", 4)
    };
    let binary = IndexedDoc {
        binary: true,
        ..empty.clone()
    };
    let docs = vec![
        doc("b.txt", 1),
        extreme,
        doc_for(&params(), odd_path, 2, 0),
        doc("a.txt", 3),
        IndexedDoc {
            path: "empty.txt".into(),
            ..empty
        },
        IndexedDoc {
            path: "image.bin".into(),
            ..binary
        },
    ];
    {
        let mut index = Index::open_or_create(&db, &params(), opts()).unwrap();
        assert!(index.is_empty().unwrap());
        let summary = index
            .apply(&Changes {
                added: docs.clone(),
                ..Changes::default()
            })
            .unwrap();
        assert_eq!(
            summary,
            UpdateSummary {
                added: 6,
                changed: 0,
                removed: 0
            }
        );
    }
    for index in [
        Index::open_existing(&db, opts()).unwrap(),
        Index::open_or_create(&db, &params(), opts()).unwrap(),
    ] {
        assert_eq!(index.params(), &params());
        assert_eq!(index.len().unwrap(), 6);
        let got = index.documents().unwrap();
        // Sorted by path bytes.
        let mut want: Vec<&IndexedDoc> = docs.iter().collect();
        want.sort_by_key(|d| path_to_blob(&d.path));
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, &stored(w, g.id));
            assert_eq!(index.document(g.id).unwrap().as_ref(), Some(g));
            assert_eq!(index.band_keys(g.id).unwrap(), w.band_keys);
            // A document is a candidate of its own keys.
            if w.shingle_count > 0 {
                assert!(index.candidates(&w.band_keys).unwrap().contains(&g.id));
            }
        }
        let files = index.files().unwrap();
        let want_files: Vec<(PathBuf, FileStat)> =
            want.iter().map(|d| (d.path.clone(), d.stat)).collect();
        let got_files: Vec<(PathBuf, FileStat)> =
            files.into_iter().map(|f| (f.path, f.stat)).collect();
        assert_eq!(got_files, want_files);
        index.verify_integrity().unwrap();
    }
}

#[test]
fn candidates_are_documents_sharing_a_key_in_the_same_band() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
    let mut a = doc("a", 1);
    let mut b = doc("b", 2);
    let mut c = doc("c", 3);
    let d = doc("d", 4);
    a.band_keys = vec![10, 11, 12, 13];
    b.band_keys = vec![20, 11, 22, 23]; // shares band 1 with a
    c.band_keys = vec![11, 30, 31, 32]; // a's band-1 key, but in band 0: not a candidate
    let mut update = index.begin_update().unwrap();
    let ids: Vec<RowId> = [&a, &b, &c, &d]
        .iter()
        .map(|x| update.add(x).unwrap())
        .collect();
    update.commit().unwrap();

    assert_eq!(
        index.candidates(&[10, 11, 0, 0]).unwrap(),
        vec![ids[0], ids[1]]
    );
    assert_eq!(index.candidates(&[0, 0, 22, 0]).unwrap(), vec![ids[1]]);
    assert_eq!(index.candidates(&[11, 0, 0, 32]).unwrap(), vec![ids[2]]);
    assert_eq!(index.candidates(&[1, 2, 3, 4]).unwrap(), vec![]);
    let err = index.candidates(&[1, 2, 3]).unwrap_err();
    assert!(matches!(err, IndexError::Invalid { .. }), "{err}");
}

#[test]
fn change_keeps_the_id_and_replaces_values_and_band_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
    let old = doc("x", 1);
    index
        .apply(&Changes {
            added: vec![old.clone(), doc("y", 2)],
            ..Default::default()
        })
        .unwrap();
    let id = index.candidates(&old.band_keys).unwrap()[0];

    let new = doc_for(&params(), "x", 9, 5);
    let summary = index
        .apply(&Changes {
            changed: vec![new.clone()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        summary,
        UpdateSummary {
            added: 0,
            changed: 1,
            removed: 0
        }
    );
    assert_eq!(index.document(id).unwrap(), Some(stored(&new, id)));
    assert_eq!(index.band_keys(id).unwrap(), new.band_keys);
    assert!(!index.candidates(&old.band_keys).unwrap().contains(&id));
    assert_eq!(index.len().unwrap(), 2);
    index.verify_integrity().unwrap();
}

#[test]
fn remove_forgets_the_document_and_its_band_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
    let gone = doc("gone", 1);
    index
        .apply(&Changes {
            added: vec![gone.clone(), doc("kept", 2)],
            ..Default::default()
        })
        .unwrap();
    let summary = index
        .apply(&Changes {
            removed: vec!["gone".into()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(summary.removed, 1);
    assert_eq!(index.candidates(&gone.band_keys).unwrap(), vec![]);
    let keys: i64 = index
        .conn
        .query_row("SELECT count(*) FROM band_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(keys, i64::from(params().bands));
    assert_eq!(index.files().unwrap().len(), 1);
}

#[test]
fn an_update_with_one_bad_change_applies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
    index
        .apply(&Changes {
            added: vec![doc("a", 1)],
            ..Default::default()
        })
        .unwrap();
    let before = snapshot(&index);

    let attempts = [
        Changes {
            added: vec![doc("b", 2), doc("a", 3)],
            ..Default::default()
        },
        Changes {
            added: vec![doc("b", 2)],
            changed: vec![doc("nope", 4)],
            ..Default::default()
        },
        Changes {
            added: vec![doc("b", 2)],
            removed: vec!["nope".into()],
            ..Default::default()
        },
        Changes {
            added: vec![
                doc("b", 2),
                IndexedDoc {
                    signature: vec![1, 2],
                    ..doc("c", 5)
                },
            ],
            ..Default::default()
        },
        Changes {
            removed: vec!["a".into()],
            added: vec![IndexedDoc {
                band_keys: vec![1],
                ..doc("c", 5)
            }],
            ..Default::default()
        },
        Changes {
            added: vec![IndexedDoc {
                shingle_count: 0,
                band_keys: vec![],
                ..doc("c", 5)
            }],
            ..Default::default()
        },
        Changes {
            added: vec![IndexedDoc {
                binary: true,
                ..doc("c", 5)
            }],
            ..Default::default()
        },
    ];
    for changes in attempts {
        let err = index.apply(&changes).unwrap_err();
        assert!(matches!(err, IndexError::Invalid { .. }), "{err}");
        assert_eq!(snapshot(&index), before);
    }
    // A dropped, uncommitted update is discarded too.
    {
        let mut update = index.begin_update().unwrap();
        update.add(&doc("b", 2)).unwrap();
        update.remove(Path::new("a")).unwrap();
    }
    assert_eq!(snapshot(&index), before);
}

#[test]
fn other_parameters_are_refused_with_a_rebuild_hint() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    {
        let mut index = Index::open_or_create(&db, &params(), opts()).unwrap();
        index
            .apply(&Changes {
                added: vec![doc("a", 1)],
                ..Default::default()
            })
            .unwrap();
    }
    let variants = [
        Params {
            seed: 43,
            ..params()
        },
        Params {
            shingle_kind: "word".into(),
            k: 3,
            ..params()
        },
        Params {
            normalisation: "none".into(),
            ..params()
        },
        Params {
            n: 16,
            bands: 8,
            ..params()
        },
        Params {
            rows: 1,
            ..params()
        },
        Params {
            stop_words: "a\nthe".into(),
            ..params()
        },
        Params {
            include_binary: true,
            ..params()
        },
        Params {
            minhash: "oph".into(),
            ..params()
        },
    ];
    for other in variants {
        let err = Index::open_or_create(&db, &other, opts()).unwrap_err();
        let IndexError::ParamsMismatch {
            stored, requested, ..
        } = &err
        else {
            panic!("expected a parameter mismatch, got {err}");
        };
        assert_eq!(**stored, params());
        assert_eq!(**requested, other);
        let msg = err.to_string();
        let name = params().differences(&other)[0].0;
        assert!(msg.contains(&format!("({name}: ")), "{msg}");
        assert!(msg.contains("simfind index DIR... --db"), "{msg}");
        assert!(msg.contains(&db.display().to_string()), "{msg}");
    }
    // The refused open changed nothing.
    let index = Index::open_existing(&db, opts()).unwrap();
    assert_eq!(index.params(), &params());
    assert_eq!(index.len().unwrap(), 1);
}

#[test]
fn an_older_or_newer_format_is_refused_with_a_rebuild_hint() {
    // 1: indexes from before the MinHash kernel was a parameter.
    for (version, word) in [
        (0_i64, "older"),
        (1, "older"),
        (i64::from(FORMAT_VERSION) + 1, "newer"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir);
        drop(Index::open_or_create(&db, &params(), opts()).unwrap());
        {
            let conn = Connection::open(&db).unwrap();
            conn.pragma_update(None, "user_version", version).unwrap();
        }
        for result in [
            Index::open_existing(&db, opts()),
            Index::open_or_create(&db, &params(), opts()),
        ] {
            let err = result.unwrap_err();
            assert!(
                matches!(err, IndexError::FormatVersion { found, .. } if found == version),
                "{err}"
            );
            let msg = err.to_string();
            assert!(msg.contains(word) && msg.contains("rebuild"), "{msg}");
        }
    }
}

#[test]
fn the_params_table_must_agree_with_the_header_version() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    drop(Index::open_or_create(&db, &params(), opts()).unwrap());
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE params SET value = '0' WHERE name = 'format_version'",
        [],
    )
    .unwrap();
    assert!(matches!(
        Index::open_existing(&db, opts()).unwrap_err(),
        IndexError::FormatVersion { found: 0, .. }
    ));
    conn.execute("DELETE FROM params WHERE name = 'seed'", [])
        .unwrap();
    conn.execute(
        "UPDATE params SET value = ?1 WHERE name = 'format_version'",
        [FORMAT_VERSION.to_string()],
    )
    .unwrap();
    let err = Index::open_existing(&db, opts()).unwrap_err();
    assert!(
        matches!(&err, IndexError::NotAnIndex { reason, .. } if reason.contains("seed")),
        "{err}"
    );
    conn.execute("INSERT INTO params VALUES ('seed', 'forty-two')", [])
        .unwrap();
    let err = Index::open_existing(&db, opts()).unwrap_err();
    assert!(
        matches!(&err, IndexError::NotAnIndex { reason, .. } if reason.contains("malformed")),
        "{err}"
    );
}

#[test]
fn a_missing_or_empty_file_is_no_index_to_query_but_fine_to_build() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    assert!(matches!(
        Index::open_existing(&db, opts()).unwrap_err(),
        IndexError::Missing { .. }
    ));
    std::fs::write(&db, b"").unwrap();
    let err = Index::open_existing(&db, opts()).unwrap_err();
    assert!(matches!(err, IndexError::Missing { .. }));
    // An empty SQLite database (what `sqlite3 FILE 'VACUUM'` leaves) counts as empty too.
    Connection::open(&db)
        .unwrap()
        .execute_batch("VACUUM")
        .unwrap();
    let err = Index::open_existing(&db, opts()).unwrap_err();
    assert!(matches!(err, IndexError::Missing { .. }));
    assert!(
        err.to_string().contains("build one with `simfind index"),
        "{err}"
    );
    let index = Index::open_or_create(&db, &params(), opts()).unwrap();
    assert!(index.is_empty().unwrap());
}

#[test]
fn another_applications_database_is_not_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hi');")
            .unwrap();
    }
    for result in [
        Index::open_existing(&db, opts()),
        Index::open_or_create(&db, &params(), opts()),
    ] {
        let err = result.unwrap_err();
        assert!(
            matches!(&err, IndexError::NotAnIndex { reason, .. } if reason.contains("another application")),
            "{err}"
        );
    }
}

/// Runs every read API; each may fail but none may panic. Returns whether all of
/// them succeeded.
fn exercise(index: &Index) -> bool {
    let mut ok = index.verify_integrity().is_ok();
    ok &= index.len().is_ok();
    ok &= index.files().is_ok();
    match index.documents() {
        Ok(docs) => {
            for d in docs {
                ok &= index.document(d.id).is_ok();
                ok &= index.band_keys(d.id).is_ok();
            }
        }
        Err(_) => ok = false,
    }
    ok &= index.candidates(&[1, 2, 3, 4]).is_ok();
    ok
}

fn build_sample(db: &Path, count: u64) -> Vec<u8> {
    let mut index = Index::open_or_create(db, &params(), opts()).unwrap();
    let added = (0..count).map(|i| doc(&format!("doc/{i:05}"), i)).collect();
    index
        .apply(&Changes {
            added,
            ..Default::default()
        })
        .unwrap();
    drop(index);
    std::fs::read(db).unwrap()
}

#[test]
fn garbage_is_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let mut junk: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for contents in [&b"hello, this is not a database"[..], &junk[..]] {
        std::fs::write(&db, contents).unwrap();
        for result in [
            Index::open_existing(&db, opts()),
            Index::open_or_create(&db, &params(), opts()),
        ] {
            let err = result.unwrap_err();
            assert!(matches!(err, IndexError::NotAnIndex { .. }), "{err}");
            let msg = err.to_string();
            assert!(
                msg.contains("not a usable simfind index") && msg.contains("rebuild"),
                "{msg}"
            );
        }
    }
    // A valid SQLite header followed by garbage.
    std::fs::remove_file(&db).unwrap();
    let real = build_sample(&db, 50);
    junk.truncate(real.len() - 100);
    let mut forged = real[..100].to_vec();
    forged.extend_from_slice(&junk);
    std::fs::write(&db, &forged).unwrap();
    match Index::open_existing(&db, opts()) {
        Ok(index) => assert!(!exercise(&index), "a garbage body passed every check"),
        Err(err) => assert!(matches!(err, IndexError::NotAnIndex { .. }), "{err}"),
    }
}

#[test]
fn a_truncated_index_is_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let real = build_sample(&db, 400);
    assert!(
        real.len() > 8 * 4096,
        "sample too small to truncate meaningfully: {}",
        real.len()
    );
    let page = 4096;
    let lengths = [
        1,
        16,
        50,
        99,
        100,
        512,
        page - 1,
        page,
        page + 1,
        2 * page,
        real.len() / 2,
        real.len() - page,
        real.len() - 1,
    ];
    for len in lengths {
        std::fs::write(&db, &real[..len]).unwrap();
        for result in [
            Index::open_existing(&db, opts()),
            Index::open_or_create(&db, &params(), opts()),
        ] {
            match result {
                Ok(index) => panic!("truncated to {len} bytes, opened anyway: {:?}", index.len()),
                Err(err) => {
                    assert!(
                        matches!(err, IndexError::NotAnIndex { .. }),
                        "len {len}: {err}"
                    );
                }
            }
        }
    }
}

#[test]
fn overwritten_pages_are_caught_by_reads_or_the_integrity_check() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let real = build_sample(&db, 400);
    let page = 4096;
    let pages = real.len() / page;
    // Zero out, then scribble over, each interior page in turn.
    for p in 1..pages {
        for fill in [0u8, 0xA5] {
            let mut damaged = real.clone();
            damaged[p * page..(p + 1) * page].fill(fill);
            std::fs::write(&db, &damaged).unwrap();
            if let Ok(index) = Index::open_existing(&db, opts()) {
                assert!(
                    !exercise(&index),
                    "page {p} filled with {fill:#x} went unnoticed"
                );
            }
        }
    }
}

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

#[test]
fn signature_blobs_are_little_endian_u32s() {
    assert_eq!(
        signature_to_blob(&[1, 0x0A0B_0C0D]),
        vec![1, 0, 0, 0, 0x0D, 0x0C, 0x0B, 0x0A]
    );
    assert_eq!(
        blob_to_signature(&[1, 0, 0, 0, 0x0D, 0x0C, 0x0B, 0x0A]),
        Some(vec![1, 0x0A0B_0C0D])
    );
    assert_eq!(blob_to_signature(&[1, 2, 3]), None);
    assert_eq!(hash_to_blob(0x0102 << 112)[..2], [1, 2]);
}

// ---------------------------------------------------------------------------
// kill -9 tests: a child process (this test binary, re-run with only
// `kill_helper` selected) updates the index and is killed with SIGKILL.

#[cfg(unix)]
mod kill {
    use super::*;
    use std::process::{Child, Command, Stdio};
    use std::time::Instant;

    const MODE: &str = "SIMFIND_TEST_KILL_MODE";
    const DB: &str = "SIMFIND_TEST_KILL_DB";
    const MARKER: &str = "SIMFIND_TEST_KILL_MARKER";
    const DOCS: u64 = 200;

    fn big_params() -> Params {
        Params {
            n: 128,
            bands: 32,
            rows: 4,
            ..params()
        }
    }

    /// The state a generation-`g` update leaves: every document's values derive from `g`.
    fn generation(g: u64) -> Vec<IndexedDoc> {
        (0..DOCS)
            .map(|i| doc_for(&big_params(), format!("doc/{i:04}"), i, g))
            .collect()
    }

    fn spawn(mode: &str, db: &Path, marker: &Path) -> Child {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "index::tests::kill::kill_helper",
                "--ignored",
                "--test-threads=1",
            ])
            .env(MODE, mode)
            .env(DB, db)
            .env(MARKER, marker)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }

    fn wait_for(marker: &Path, child: &mut Child) {
        let start = Instant::now();
        while !marker.exists() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("helper exited early with {status}");
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "helper never got going"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Not a test: the body of the child process. Does nothing unless spawned by
    /// the tests below.
    #[test]
    #[ignore = "helper process for the kill -9 tests"]
    fn kill_helper() {
        let (Ok(mode), Some(db), Some(marker)) = (
            std::env::var(MODE),
            std::env::var_os(DB),
            std::env::var_os(MARKER),
        ) else {
            return;
        };
        let (db, marker) = (PathBuf::from(db), PathBuf::from(marker));
        let mut index = Index::open_or_create(&db, &big_params(), opts()).unwrap();
        match mode.as_str() {
            // One huge transaction that spills to the database file long before it
            // would commit, then keeps writing until killed.
            "hold" => {
                let mut update = index.begin_update().unwrap();
                // A tiny page cache forces SQLite to write changed pages into the
                // database file itself mid-transaction, the case a crash must undo.
                update.tx.pragma_update(None, "cache_size", 4).unwrap();
                for f in update.files().unwrap() {
                    update.remove(&f.path).unwrap();
                }
                let mut i = 0u64;
                loop {
                    update
                        .add(&doc_for(&big_params(), format!("new/{i:08}"), i, 99))
                        .unwrap();
                    i += 1;
                    if i == 3000 {
                        std::fs::write(&marker, b"").unwrap();
                    }
                }
            }
            // Commits generation after generation, each rewriting every document,
            // with the same tiny cache so that most of each transaction's time is
            // spent with uncommitted pages already in the database file.
            "cycle" => {
                index.conn.pragma_update(None, "cache_size", 4).unwrap();
                for g in 1.. {
                    let mut update = index.begin_update().unwrap();
                    for d in generation(g) {
                        update.change(&d).unwrap();
                    }
                    update.commit().unwrap();
                    if g == 1 {
                        std::fs::write(&marker, b"").unwrap();
                    }
                }
            }
            other => panic!("unknown mode {other}"),
        }
    }

    fn build_generation_zero(db: &Path) {
        let mut index = Index::open_or_create(db, &big_params(), opts()).unwrap();
        index
            .apply(&Changes {
                added: generation(0),
                ..Default::default()
            })
            .unwrap();
    }

    #[test]
    fn killed_in_the_middle_of_an_update_leaves_the_previous_index() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir);
        let marker = dir.path().join("marker");
        build_generation_zero(&db);
        let before_bytes = std::fs::read(&db).unwrap();
        let before = snapshot(&Index::open_existing(&db, opts()).unwrap());

        let mut child = spawn("hold", &db, &marker);
        wait_for(&marker, &mut child);
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        // The test only means something if the killed update had already written
        // into the database file, leaving a hot journal to roll back.
        let journal = dir.path().join("index.sqlite-journal");
        assert!(journal.exists(), "no journal left behind");
        assert_ne!(
            std::fs::read(&db).unwrap(),
            before_bytes,
            "the update never reached the file"
        );

        let index = Index::open_existing(&db, opts()).unwrap();
        assert_eq!(snapshot(&index), before);
        index.verify_integrity().unwrap();
        drop(index);
        assert!(!journal.exists(), "the hot journal was not rolled back");
        // And it is usable for the next update.
        let mut index = Index::open_or_create(&db, &big_params(), opts()).unwrap();
        index
            .apply(&Changes {
                changed: generation(7),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(index.len().unwrap(), DOCS);
    }

    #[test]
    fn killed_at_any_moment_the_index_is_one_whole_generation() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir);
        let marker = dir.path().join("marker");
        build_generation_zero(&db);
        // Kill after different delays so that some kills land mid-transaction and
        // some mid-commit; whichever it is, the result must be one whole generation.
        for delay_ms in [0, 1, 2, 5, 9, 14, 20, 33] {
            let _ = std::fs::remove_file(&marker);
            let mut child = spawn("cycle", &db, &marker);
            wait_for(&marker, &mut child);
            std::thread::sleep(Duration::from_millis(delay_ms));
            child.kill().unwrap();
            child.wait().unwrap();

            let index = Index::open_existing(&db, opts()).unwrap();
            index.verify_integrity().unwrap();
            let got = snapshot(&index);
            let g = (got[0].1 & u128::from(u64::MAX)) as u64;
            assert!(g >= 1, "generation 1 was committed before the kill");
            let want: Snapshot = generation(g)
                .into_iter()
                .map(|d| (d.path, d.content_hash, d.signature, d.band_keys))
                .collect();
            assert_eq!(
                got, want,
                "killed after {delay_ms} ms: not one whole generation"
            );
            // Restart from generation 0 so the child's generation numbers stay valid.
            drop(index);
            std::fs::remove_file(&db).unwrap();
            build_generation_zero(&db);
        }
    }
}

mod snapshot;
