//! Storing, changing and removing documents: every value kept, band keys
//! looked up, an update applied whole or not at all.

use super::*;

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
        not_compared: None,
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
            ..binary.clone()
        },
        // Why it was not compared, kept without its details.
        IndexedDoc {
            path: "cut.docx".into(),
            not_compared: Some(crate::input::extract::Unextracted {
                format: crate::input::extract::Format::Docx,
                failure: crate::input::extract::Failure::Damaged(String::new()),
            }),
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
                added: 7,
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
        assert_eq!(index.len().unwrap(), 7);
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
        .query_row("SELECT count(*) FROM band_lookup", [], |r| r.get(0))
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
