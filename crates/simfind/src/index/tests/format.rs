//! Opening an index: other parameters, other format versions, a missing
//! file and another application's database are refused with a clear message.

use super::*;

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
        Params {
            extraction: "pdf,docx@1".into(),
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
        assert!(msg.contains("rebuild the index"), "{msg}");
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
        err.to_string()
            .contains("build one by indexing the directories into"),
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
