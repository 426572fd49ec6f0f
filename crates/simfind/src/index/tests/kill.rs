//! kill -9 tests: a child process (this test binary, re-run with only
//! `kill_helper` selected) updates the index and is killed with SIGKILL.

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
