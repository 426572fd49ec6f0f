//! The walk of `index` runs in parts on several threads: what it finds and
//! says must not depend on how many.

use super::*;

/// stderr without the timings of the summary line.
fn untimed(err: &str) -> String {
    err.lines()
        .map(|line| match line.find(" in ") {
            Some(at) if line.starts_with("simfind: ") && line.contains(" s; index ") => {
                let rest = &line[at + 4..];
                let after = rest.find(" s; ").map_or("", |s| &rest[s..]);
                format!("{} in _{after}", &line[..at])
            }
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn index_with_one_thread_and_with_two_finds_and_says_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(dir.path());
    for i in 0..30u64 {
        put(
            &a,
            &format!("many/d{}/f{i}.txt", i % 4),
            &prose(200 + i, 60),
            past(0),
        );
    }
    put(&a, ".hidden/h.txt", &prose(300, 60), past(0));
    put(&a, "many/d1/x.log", &prose(301, 60), past(0));
    put(&a, ".simfindignore", "many/d2/\n", past(0));
    std::os::unix::fs::symlink("tiny.txt", a.join("link.txt")).unwrap();
    std::fs::hard_link(a.join("fam1/orig.txt"), a.join("many/d3/orig-link.txt")).unwrap();
    let roots = [a.as_path(), b.as_path()];
    let mut said = Vec::new();
    let mut pairs = Vec::new();
    for j in ["1", "2"] {
        let db = dir.path().join(format!("j{j}.simfind"));
        let mut err = Vec::new();
        for _ in 0..2 {
            // The first build, then the unchanged re-index.
            let out = simfind()
                .arg("index")
                .args(roots)
                .args(["--db"])
                .arg(&db)
                .args(["-v", "--exclude", "*.log", "-j", j])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            err.push(untimed(&stderr(&out)).replace(&*db.to_string_lossy(), "DB"));
        }
        assert!(
            err[1].contains(" unchanged (not read), 0 signed"),
            "{}",
            err[1]
        );
        said.push(err);
        pairs.push(db_scan(&roots, &db, &["-t", "0.5", "-j", j, "-q"]).0);
    }
    assert_eq!(said[0], said[1]);
    assert_eq!(pairs[0], pairs[1]);
    let err = &said[0][0];
    for told in [
        "hidden",
        "ignore file",
        "--exclude",
        "symbolic link",
        "hard link",
    ] {
        assert!(err.contains(told), "{told:?} not in {err}");
    }
    assert!(
        csv_rows(&pairs[0]).len() > 6,
        "{}",
        String::from_utf8_lossy(&pairs[0])
    );
}
