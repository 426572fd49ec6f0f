//! `query` with exact verification re-reads only the candidates that can still
//! reach the threshold (issue #22: re-reading many candidates was its slow
//! tail). A candidate that is not re-read cannot fail to be, so deleting it
//! after indexing shows whether it was read.

mod util;

use std::path::Path;

use util::{simfind, stderr, write};

/// `n` words of 3–9 random letters (xorshift, seeded): unlike `util::prose`,
/// whose 20 words make any two texts share most 5-character shingles, two
/// seeds share almost none.
fn words(seed: u64, n: usize) -> Vec<String> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let len = 3 + next() % 7;
            (0..len)
                .map(|_| char::from(b'a' + (next() % 26) as u8))
                .collect()
        })
        .collect()
}

fn query(q: &Path, db: &Path, threshold: &str) -> std::process::Output {
    simfind()
        .args(["query", "--color", "never", "--db"])
        .arg(db)
        .args(["-t", threshold])
        .arg(q)
        .output()
        .unwrap()
}

#[test]
fn query_rereads_only_candidates_that_can_reach_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let a = words(1, 400);
    let mut b = a.clone();
    for w in b.iter_mut().step_by(40) {
        *w = "zzzzzz".into();
    }
    // c: a quarter of a, so |c| / |a| ≈ 0.25 bounds its similarity (the
    // length filter). d: that quarter plus 300 unrelated words, as long as a
    // but with Jaccard ≈ 0.14, so its signature agrees with a's in ~28 of 200
    // positions where 0.8 needs ~65 (≈ 7 standard deviations away: the
    // signature rule-out). Both share the quarter, hence band keys with a.
    let c = a[..100].to_vec();
    let d: Vec<String> = a[..100].iter().cloned().chain(words(2, 300)).collect();
    for (name, text) in [("a.txt", &a), ("b.txt", &b), ("c.txt", &c), ("d.txt", &d)] {
        write(&root, name, text.join(" ").as_bytes());
    }
    let db = dir.path().join("index.simfind");
    let out = simfind()
        .arg("index")
        .arg(&root)
        .arg("--db")
        .arg(&db)
        .args(["-q", "-b", "100", "-r", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let q = write(dir.path(), "q.txt", a.join(" ").as_bytes());
    std::fs::remove_file(root.join("c.txt")).unwrap();
    std::fs::remove_file(root.join("d.txt")).unwrap();

    // At 0.8 neither c nor d can match: neither is read, so neither is missed.
    let out = query(&q, &db, "0.8");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("c.txt") && !err.contains("d.txt"), "{err}");
    let matched: Vec<String> = util::pair_paths(&out.stdout)
        .into_iter()
        .map(|(_, b)| b)
        .collect();
    assert_eq!(matched.len(), 2, "{matched:?}");
    assert!(matched.iter().any(|p| p.ends_with("a.txt")), "{matched:?}");
    assert!(matched.iter().any(|p| p.ends_with("b.txt")), "{matched:?}");

    // At 0.1 both can: they are candidates, read, and found missing.
    let out = query(&q, &db, "0.1");
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("c.txt") && err.contains("d.txt"), "{err}");
}
