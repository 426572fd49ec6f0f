//! The lookup tail of format 6 (`index::tail`): documents a stream adds
//! are found before they are merged, by this connection and by others; a
//! merge, a removal and a change keep every key findable exactly while
//! its document holds it; a version 5 file is read and upgraded.

use super::*;

fn count(index: &Index, table: &str) -> i64 {
    index
        .conn
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

fn ids(index: &Index, docs: &[&IndexedDoc]) -> Vec<RowId> {
    let mut ids: Vec<RowId> = docs
        .iter()
        .map(|d| index.id_of(&d.path).unwrap().unwrap())
        .collect();
    ids.sort();
    ids
}

/// Adds `docs` as a stream does: one locked batch, committed.
fn stream_add(index: &Index, docs: &[&IndexedDoc]) {
    let mut update = index.begin_locked().unwrap();
    for doc in docs {
        update.add(doc).unwrap();
    }
    update.commit().unwrap();
}

#[test]
fn a_streams_documents_stay_in_the_tail_and_are_found_there() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
    let (a, b, c) = (doc("a", 1), doc("b", 2), doc("c", 3));
    index
        .apply(&Changes {
            added: vec![a.clone()],
            ..Default::default()
        })
        .unwrap();
    // A bulk update's keys are merged when it commits.
    assert_eq!(count(&index, "lookup_tail"), 0);
    assert_eq!(count(&index, "band_lookup"), i64::from(params().bands));
    // The tail read before the batch, then grown by its inserts: a lookup
    // inside the batch sees them.
    assert_eq!(index.candidates(&b.band_keys).unwrap(), vec![]);
    let mut update = index.begin_locked().unwrap();
    update.add(&b).unwrap();
    update.add(&c).unwrap();
    drop(update);
    // Rolled back: not found (the tail in memory went with it).
    assert_eq!(index.candidates(&b.band_keys).unwrap(), vec![]);
    stream_add(&index, &[&b, &c]);
    assert_eq!(count(&index, "lookup_tail"), 2);
    assert_eq!(count(&index, "band_lookup"), i64::from(params().bands));
    for d in [&a, &b, &c] {
        assert_eq!(index.candidates(&d.band_keys).unwrap(), ids(&index, &[d]));
    }
    // One key of each band shared with a different document each.
    let mixed = vec![a.band_keys[0], b.band_keys[1], c.band_keys[2], 7];
    assert_eq!(
        index.candidates(&mixed).unwrap(),
        ids(&index, &[&a, &b, &c])
    );
    // A fresh connection reads the tail from the file.
    let fresh = Index::open_existing(&db_in(&dir), opts()).unwrap();
    assert_eq!(
        fresh.candidates(&mixed).unwrap(),
        ids(&index, &[&a, &b, &c])
    );
    index.verify_integrity().unwrap();
}

#[test]
fn a_tail_grown_by_another_connection_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let reader = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
    let writer = Index::open_existing(&db_in(&dir), opts()).unwrap();
    let (a, b) = (doc("a", 1), doc("b", 2));
    stream_add(&writer, &[&a]);
    assert_eq!(reader.candidates(&a.band_keys).unwrap().len(), 1);
    stream_add(&writer, &[&b]);
    assert_eq!(
        reader.candidates(&b.band_keys).unwrap(),
        ids(&reader, &[&b])
    );
}

#[test]
fn a_tail_past_its_bound_is_merged_and_removals_and_changes_follow_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
    let docs: Vec<IndexedDoc> = (0..6).map(|i| doc(&format!("d{i}"), i)).collect();
    stream_add(&index, &[&docs[0], &docs[1]]);
    let bands = i64::from(params().bands);
    assert_eq!(count(&index, "lookup_tail"), 2);
    // A batch that takes the tail to its bound (here 3 documents) merges it.
    {
        let mut update = index.begin_locked().unwrap();
        update.merge_at = 3 * params().bands as usize;
        update.add(&docs[2]).unwrap();
        update.commit().unwrap();
    }
    assert_eq!(count(&index, "lookup_tail"), 0);
    assert_eq!(count(&index, "band_lookup"), 3 * bands);
    stream_add(&index, &[&docs[3], &docs[4]]);
    for d in &docs[..5] {
        assert_eq!(index.candidates(&d.band_keys).unwrap(), ids(&index, &[d]));
    }
    // Removed: one from the lookup, one from the tail.
    index
        .apply(&Changes {
            removed: vec![docs[1].path.clone(), docs[4].path.clone()],
            ..Default::default()
        })
        .unwrap();
    for d in [&docs[1], &docs[4]] {
        assert_eq!(index.candidates(&d.band_keys).unwrap(), vec![]);
    }
    // Changed in a stream's batch: found by its new keys only.
    let changed = doc_for(&params(), "d3", 3, 1);
    {
        let mut update = index.begin_locked().unwrap();
        update.change(&changed).unwrap();
        update.commit().unwrap();
    }
    assert_eq!(index.candidates(&docs[3].band_keys).unwrap(), vec![]);
    assert_eq!(
        index.candidates(&changed.band_keys).unwrap(),
        ids(&index, &[&changed])
    );
    index.verify_integrity().unwrap();
    assert_eq!(count(&index, "band_lookup"), 2 * bands);
    assert_eq!(count(&index, "lookup_tail"), 1);
    // The next bulk update merges what is left.
    index
        .apply(&Changes {
            added: vec![docs[5].clone()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(count(&index, "lookup_tail"), 0);
    assert_eq!(count(&index, "band_lookup"), 4 * bands);
    index.verify_integrity().unwrap();
}

/// Turns a version 6 file whose tail is empty into the version 5 layout.
const TO_FORMAT_5: &str = "
CREATE TABLE band_keys (
    doc  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    band INTEGER NOT NULL,
    key  INTEGER NOT NULL,
    PRIMARY KEY (doc, band)
) WITHOUT ROWID;
CREATE INDEX band_keys_lookup ON band_keys(band, key);
INSERT INTO band_keys (doc, band, key) SELECT doc, band, key FROM band_lookup;
DROP TABLE band_lookup; DROP TABLE doc_keys; DROP TABLE lookup_tail;
UPDATE params SET value = '5' WHERE name = 'format_version';
PRAGMA user_version = 5;
";

#[test]
fn a_format_5_index_is_read_as_it_is_then_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let docs: Vec<IndexedDoc> = (0..4).map(|i| doc(&format!("d{i}"), i)).collect();
    let before = {
        let mut index = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
        index
            .apply(&Changes {
                added: docs.clone(),
                ..Default::default()
            })
            .unwrap();
        snapshot(&index)
    };
    Connection::open(db_in(&dir))
        .unwrap()
        .execute_batch(TO_FORMAT_5)
        .unwrap();
    let old = Index::open_existing(&db_in(&dir), opts()).unwrap();
    assert_eq!(old.format_version(), 5);
    assert_eq!(snapshot(&old), before);
    for d in &docs {
        assert_eq!(old.candidates(&d.band_keys).unwrap(), ids(&old, &[d]));
    }
    old.verify_integrity().unwrap();
    drop(old);
    let new = Index::open_or_create(&db_in(&dir), &params(), opts()).unwrap();
    assert_eq!(new.format_version(), FORMAT_VERSION);
    assert_eq!(snapshot(&new), before);
    for d in &docs {
        assert_eq!(new.candidates(&d.band_keys).unwrap(), ids(&new, &[d]));
    }
    assert_eq!(count(&new, "lookup_tail"), 0);
    new.verify_integrity().unwrap();
}
