//! The lock a run that changes files holds on its trees (`dedupe` acting,
//! `undo`): a second run on the same or a nested tree is refused naming the
//! holder, or waits for it with `--wait`; a holder killed with SIGKILL
//! leaves nothing that blocks the next run.

use super::*;

#[test]
fn a_second_run_on_the_same_or_a_nested_tree_is_refused_naming_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let before = snapshot(&root);
    let args = [
        "dedupe",
        "r",
        "--move-to",
        "q",
        "--journal",
        "j.jsonl",
        "--pause-at",
        "0",
    ];
    let (child, err) = paused(dir.path(), &args);
    let pid = child.id();
    // The same tree, and a tree inside it: both refused at once, nothing changed.
    for second in [
        &["dedupe", "r", "--remove", "--journal", "k.jsonl"][..],
        &["dedupe", "r/sub", "--link", "--journal", "l.jsonl"][..],
    ] {
        let out = sim_in(dir.path(), second);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let log = stderr(&out);
        assert!(log.contains("is locked by another simfind run"), "{log}");
        assert!(log.contains(&format!("pid {pid}, started ")), "{log}");
        assert!(log.contains("--pause-at 0"), "{log}");
        assert!(!dir.path().join("k.jsonl").exists());
        assert!(!dir.path().join("l.jsonl").exists());
    }
    assert_eq!(snapshot(&root), before);
    let (status, log) = resume(child, err);
    assert_eq!(status, 0, "{log}");
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert_eq!(snapshot(&root), before);
    // An undo is a run that changes files too.
    let (child, err) = paused(
        dir.path(),
        &[
            "dedupe",
            "r",
            "--remove",
            "--allow-near",
            "--journal",
            "m.jsonl",
            "--pause-at",
            "0",
        ],
    );
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 2, "{}", stderr(&undo));
    assert!(
        stderr(&undo).contains(&format!("pid {}, started ", child.id())),
        "{}",
        stderr(&undo)
    );
    let (status, log) = resume(child, err);
    assert_eq!(status, 0, "{log}");
    // Once the holder is gone the lock is free.
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_ne!(code(&undo), 2, "{}", stderr(&undo));
}

/// `--wait SECONDS`: a second run waits for the holder instead of giving
/// up at once, and acts once it has finished; a wait that runs out is the
/// refusal, saying how long it waited; a bad value is refused before any
/// work.
#[test]
fn a_second_run_with_wait_acts_once_the_holder_has_finished() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let (child, err) = paused(
        dir.path(),
        &[
            "dedupe",
            "r",
            "--move-to",
            "q",
            "--journal",
            "j.jsonl",
            "--pause-at",
            "0",
        ],
    );
    let out = sim_in(dir.path(), &["undo", "j.jsonl", "--wait", "0.3"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("and still was after 0.3 s (--wait)"),
        "{}",
        stderr(&out)
    );
    let mut second = Command::new(env!("CARGO_BIN_EXE_simfind"))
        .current_dir(dir.path())
        .args(["dedupe", "r", "--move-to", "q2", "--journal", "k.jsonl"])
        .args(["--wait", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(second.try_wait().unwrap().is_none(), "it did not wait");
    let (status, log) = resume(child, err);
    assert_eq!(status, 0, "{log}");
    let second = second.wait_with_output().unwrap();
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    // Both runs acted, one after the other, and undo in reverse order
    // brings every file back.
    for journal in ["k.jsonl", "j.jsonl"] {
        if dir.path().join(journal).exists() {
            let undo = sim_in(dir.path(), &["undo", journal]);
            assert_eq!(code(&undo), 0, "{}", stderr(&undo));
        }
    }
    assert!(root.join("sub/a-copy.txt").exists());
    for bad in ["-1", "nan", "100000"] {
        let wait = format!("--wait={bad}");
        let out = sim_in(dir.path(), &["dedupe", "r", "--remove", &wait]);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(
            stderr(&out).contains("--wait must be between 0 and 86400"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_run_killed_with_sigkill_does_not_block_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(dir.path());
    let args = [
        "dedupe",
        "r",
        "--move-to",
        "q",
        "--journal",
        "j.jsonl",
        "--pause-at",
        "0",
    ];
    let (mut child, _err) = paused(dir.path(), &args);
    child.kill().unwrap();
    child.wait().unwrap();
    // Its holder file is still there; the kernel dropped its lock.
    let out = sim_in(
        dir.path(),
        &["dedupe", "r", "--move-to", "q2", "--journal", "k.jsonl"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(dir.path().join("q2").exists());
    let undo = sim_in(dir.path(), &["undo", "k.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    let undo = sim_in(dir.path(), &["undo", "j.jsonl"]);
    assert_eq!(code(&undo), 0, "{}", stderr(&undo));
    assert!(root.join("sub/a-copy.txt").exists());
}
