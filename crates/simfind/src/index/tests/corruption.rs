//! Damaged files (garbage, truncation, overwritten pages): a clear error,
//! never a panic.

use super::*;

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
