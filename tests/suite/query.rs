//! `query` with exact verification re-reads only the candidates that can still
//! reach the threshold (issue #22: re-reading many candidates was its slow
//! tail). A candidate that is not re-read cannot fail to be, so deleting it
//! after indexing shows whether it was read.

use std::path::Path;

use crate::util::{self, simfind, stderr, write};

/// `n` words of 3–9 random letters (xorshift, seeded): unlike `util::prose`,
/// whose 20 words make any two texts share most 5-character shingles, two
/// seeds share almost none.
fn words(seed: u64, n: usize) -> Vec<String> {
    let mut rng = util::XorShift64::seeded(seed);
    let mut next = move || rng.next();
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

/// Indexes `root` into `dir/index.simfind` (with `extra` options) and
/// returns the database's path.
fn index(dir: &Path, root: &Path, extra: &[&str]) -> std::path::PathBuf {
    let db = dir.join("index.simfind");
    let out = simfind()
        .arg("index")
        .arg(root)
        .arg("--db")
        .arg(&db)
        .arg("-q")
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    db
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
    let db = index(dir.path(), &root, &["-b", "100", "-r", "2"]);
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

/// A candidate with the query's own content is checked by hashing its file
/// instead of being shingled again (issue #22: the slowest queries re-made a
/// 2 MB set identical to their own): it still reports similarity 1 with every
/// shingle shared, and a file that had the query's content when it was
/// indexed but has changed since is still read, found changed and named.
#[test]
fn identical_candidates_are_checked_by_hash_and_a_changed_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let a = words(3, 300);
    let text = a.join(" ");
    let mut b = a.clone();
    for w in b.iter_mut().step_by(50) {
        *w = "zzzzzz".into();
    }
    let e = words(4, 300).join(" ");
    write(&root, "a.txt", text.as_bytes());
    write(&root, "b.txt", b.join(" ").as_bytes());
    write(&root, "e.txt", e.as_bytes());
    let db = index(dir.path(), &root, &[]);
    // e.txt changes after indexing, keeping its size and inode; its query is
    // its text as indexed.
    let changed = format!("q{}", &e[1..]);
    assert_ne!(changed, e);
    std::fs::write(root.join("e.txt"), &changed).unwrap();
    let qa = write(dir.path(), "qa.txt", text.as_bytes());
    let qe = write(dir.path(), "qe.txt", e.as_bytes());
    // The text is lowercase ASCII with single spaces, so normalisation keeps
    // it as it is and its shingles are its distinct 5-byte windows.
    let distinct: std::collections::HashSet<&[u8]> = text.as_bytes().windows(5).collect();
    let distinct = distinct.len().to_string();

    for exact in [false, true] {
        let mut cmd = simfind();
        cmd.args(["query", "--color", "never", "-t", "0.5", "--db"])
            .arg(&db)
            .arg(&qa)
            .arg(&qe);
        if exact {
            cmd.arg("--exact");
        }
        let out = cmd.output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "exact {exact}: {err}");
        assert!(
            err.contains("e.txt") && err.contains("changed since it was indexed"),
            "exact {exact}: {err}"
        );
        let rows = util::csv_rows(&out.stdout);
        let field = |row: &csv::ByteRecord, i: usize| String::from_utf8_lossy(&row[i]).into_owned();
        let pairs: Vec<(String, String)> =
            rows.iter().map(|r| (field(r, 0), field(r, 1))).collect();
        assert_eq!(pairs.len(), 2, "exact {exact}: {pairs:?}");
        assert!(
            pairs.iter().all(|(q, _)| q.ends_with("qa.txt")),
            "exact {exact}: {pairs:?}"
        );
        assert!(pairs[0].1.ends_with("a.txt"), "exact {exact}: {pairs:?}");
        assert!(pairs[1].1.ends_with("b.txt"), "exact {exact}: {pairs:?}");
        let identical = &rows[0];
        assert_eq!(field(identical, 2), "1.000000", "exact {exact}");
        for column in [4, 5, 6] {
            assert_eq!(
                field(identical, column),
                distinct,
                "exact {exact}: column {column}"
            );
        }
        // The near copy is shingled again: fewer shared than its own count.
        let near = &rows[1];
        assert!(field(near, 2).as_str() < "1.000000", "exact {exact}");
        let shared: usize = field(near, 6).parse().unwrap();
        assert!(shared < distinct.parse::<usize>().unwrap(), "exact {exact}");
    }
}

/// Candidates are re-read on the calling thread when they are few and small,
/// on the thread pool otherwise (issue #22: handing a few small files to the
/// pool was most of a typical query's wall time). Either way the rows are the
/// same on one thread and on two, and a candidate changed since it was
/// indexed is still read, found changed and named: 5 near copies of 9 KB
/// (re-read on the calling thread) and 40 (360 KB: on the pool), by the LSH
/// lookup and the exact one.
#[test]
fn candidates_few_or_many_give_the_same_rows_on_any_thread_count_and_a_changed_one_is_named() {
    let a = words(5, 1500);
    for copies in [5usize, 40] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        for i in 0..copies {
            let mut copy = a.clone();
            for w in copy.iter_mut().skip(i).step_by(100) {
                *w = "zzzzzz".into();
            }
            write(&root, &format!("copy{i:02}.txt"), copy.join(" ").as_bytes());
        }
        let db = index(dir.path(), &root, &[]);
        // Changed in place after indexing: same inode, other bytes.
        let changed = root.join("copy03.txt");
        let mut text = std::fs::read(&changed).unwrap();
        text[0] = if text[0] == b'q' { b'x' } else { b'q' };
        std::fs::write(&changed, &text).unwrap();
        let q = write(dir.path(), "q.txt", a.join(" ").as_bytes());
        for exact in [false, true] {
            let runs: Vec<_> = ["1", "2"]
                .into_iter()
                .map(|threads| {
                    let mut cmd = simfind();
                    cmd.args(["query", "--color", "never", "-t", "0.5", "-j", threads])
                        .arg("--db")
                        .arg(&db)
                        .arg(&q);
                    if exact {
                        cmd.arg("--exact");
                    }
                    cmd.output().unwrap()
                })
                .collect();
            for out in &runs {
                let err = stderr(out);
                assert_eq!(out.status.code(), Some(1), "{copies} exact {exact}: {err}");
                assert!(
                    err.contains("copy03.txt: changed since it was indexed"),
                    "{copies} exact {exact}: {err}"
                );
                let matched = util::pair_paths(&out.stdout);
                assert_eq!(matched.len(), copies - 1, "{copies} exact {exact}");
                assert!(
                    matched.iter().all(|(_, b)| !b.ends_with("copy03.txt")),
                    "{copies} exact {exact}: {matched:?}"
                );
            }
            assert_eq!(
                runs[0].stdout, runs[1].stdout,
                "{copies} exact {exact}: -j 1 and -j 2 differ"
            );
        }
    }
}

/// An index of relative paths (`index docs` run in `share/`) read from
/// another directory: the candidates are the indexed files, re-read where
/// they were indexed and answered by a path that names them from here; and
/// what `--add` / `--add-if-new` store from here keeps the index's base, so
/// a later `index` run in `share/` neither loses nor doubles them.
#[test]
fn an_index_of_relative_paths_answers_from_any_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let share = tmp.path().join("share");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let text = words(7, 400).join(" ");
    write(&share, "docs/a.txt", text.as_bytes());
    write(
        &share,
        "docs/b.txt",
        format!("{text} and a few more").as_bytes(),
    );
    let indexed = util::sim_in(&share, &["index", "docs", "--db", "i.db", "-q"]);
    assert!(indexed.status.success(), "{}", stderr(&indexed));
    let db = share.join("i.db");
    let db = db.to_str().unwrap();

    let asked = share.join("docs/a.txt");
    let out = util::sim_in(&elsewhere, &["query", "--db", db, asked.to_str().unwrap()]);
    assert_eq!(util::code(&out), 0, "{}", stderr(&out));
    let answered: Vec<String> = util::csv_rows(&out.stdout)
        .iter()
        .map(|row| String::from_utf8_lossy(&row[1]).into_owned())
        .collect();
    let b = share.canonicalize().unwrap().join("docs/b.txt");
    assert!(
        answered.contains(&b.to_str().unwrap().to_string()),
        "b.txt is found and named from here: {answered:?}\n{}",
        stderr(&out)
    );
    for path in &answered {
        assert!(
            elsewhere.join(path).exists(),
            "{path} names no file from here"
        );
    }

    // Added from elsewhere by a relative path: stored relative to share/.
    write(
        &elsewhere,
        "../share/docs/c.txt",
        words(8, 300).join(" ").as_bytes(),
    );
    let added = util::sim_in(
        &elsewhere,
        &["index", "--db", db, "--add", "../share/docs/c.txt"],
    );
    assert_eq!(util::code(&added), 0, "{}", stderr(&added));
    let again = util::sim_in(&share, &["index", "docs", "--db", "i.db"]);
    assert_eq!(util::code(&again), 0, "{}", stderr(&again));
    assert!(
        stderr(&again).contains("0 added") && stderr(&again).contains("0 removed"),
        "the file added from elsewhere is the walked docs/c.txt: {}",
        stderr(&again)
    );
    let removed = util::sim_in(
        &elsewhere,
        &["index", "--db", db, "--remove", "../share/docs/c.txt"],
    );
    assert_eq!(util::code(&removed), 0, "{}", stderr(&removed));

    // A stream's new file, named from elsewhere, is stored as the walk names it.
    write(&share, "docs/d.txt", words(9, 300).join(" ").as_bytes());
    let streamed = util::run_in(
        &elsewhere,
        &["query", "--db", db, "--add-if-new", "-"],
        b"../share/docs/d.txt\n",
    );
    assert_eq!(util::code(&streamed), 0, "{}", stderr(&streamed));
    let walked = util::sim_in(&share, &["index", "docs", "--db", "i.db"]);
    assert!(
        stderr(&walked).contains("0 removed"),
        "the streamed docs/d.txt is the walked one: {}",
        stderr(&walked)
    );
}
