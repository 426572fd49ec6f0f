//! Fault injection (issue #14): a file fails or changes at a chosen point of
//! a run, and the run must still keep the promise of docs/RELIABILITY.md:
//! no panic, the file named with its reason, every other file's result what a
//! clean run over the unaffected files gives.
//!
//! Two kinds of test:
//! * In-process, at exact points, through the library's fault seam
//!   (`simfind::input::faults`): before a walked file is opened, after it is
//!   open and `fstat`ed, between the two passes of the chunked path, and
//!   before a verification reload (the reporter's `Verify` stage). Each case
//!   runs for `scan` (pairs; groups follow from them), `index` (the refresh)
//!   and `scan --db`, under every read path it applies to.
//! * The real binary with outside-only faults: descriptors running out
//!   (`ulimit -n`) and unreadable files (mode 000, run as nobody), for scan's
//!   pairs and clusters, `index` and `scan --db`: exit status, the files
//!   named on stderr, the output against a clean run, no panic, no file left.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::util::{self, prose, write};
use simfind::index::{Index, OpenOptions, Params};
use simfind::input::faults::{self, Point};
use simfind::input::read::ReadOptions;
use simfind::input::walk::WalkOptions;
use simfind::lsh::Banding;
use simfind::pipeline::plan::{Method, MethodChoice};
use simfind::pipeline::{DocStatus, ScanConfig, ScanOutcome, Verification, scan};
use simfind::progress::{Reporter, Stage};
use simfind::recipe::Recipe;
use simfind::sketch::SketchKind;
use simfind::text::normalize::Normalization;
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};

/// The corpus: `x.txt` is the file the faults hit. It is a near-copy of
/// a, b and y (so its pairs are reloaded for verification), and `x_copy.txt`
/// is byte-identical to it (so a failed claimer's copy must be rescued).
/// z is unrelated. `outside/secret.txt` (beside the root) is a copy of y.
fn corpus(dir: &Path, without: &[&str]) -> PathBuf {
    let files = dir.join("files");
    let base = prose(70, 400);
    let mut contents = vec![
        ("a.txt", format!("{base} alpha")),
        ("b.txt", format!("{base} beta gamma")),
        ("x.txt", format!("{base} xenon")),
        ("x_copy.txt", format!("{base} xenon")),
        ("y.txt", base.clone()),
        ("z.txt", prose(71, 400)),
    ];
    contents.retain(|(name, _)| !without.contains(name));
    for (name, text) in contents {
        let path = write(&files, name, text.as_bytes());
        // One modification time for every corpus, so that group outputs
        // (which print it) of a run and of its clean run compare.
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| {
                f.set_modified(
                    std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000),
                )
            })
            .unwrap();
    }
    write(dir, "outside/secret.txt", base.as_bytes());
    files
}

/// How the files are read: the whole-file path, read into memory; the
/// chunked path over mapped files (`--chunked-min-size 0 --chunk-size 64`
/// with mapping forced); the exact method (sets kept, no reload); the
/// whole-file path with the files read ahead by I/O threads (`--io-threads`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Path_ {
    Whole,
    ChunkedMapped,
    Exact,
    ReadAhead,
}

fn config(root: &Path, how: Path_) -> ScanConfig {
    let mut read = ReadOptions::never_mmap();
    if how == Path_::ChunkedMapped {
        read = ReadOptions {
            mmap_min_size: 0,
            chunked_min_size: 0,
            chunk_size: 64,
            ..ReadOptions::default()
        };
    }
    if how == Path_::ReadAhead {
        read.io_threads = 3;
    }
    ScanConfig {
        roots: vec![root.to_path_buf()],
        walk: WalkOptions::default(),
        read,
        recipe: Recipe {
            include_binary: false,
            normalization: Normalization::default(),
            shingler: Shingler::new(ShingleKind::Char, 5, StopWords::default()),
            banding: Banding { bands: 20, rows: 5 },
            seed: 42,
            sketch: SketchKind::Classic,
        },
        threshold: 0.5,
        verification: Verification::Exact,
        verify_memory: 1 << 30,
        exact_index: None,
        method: MethodChoice::Fixed(if how == Path_::Exact {
            Method::Exact
        } else {
            Method::Lsh
        }),
    }
}

/// Collects warnings and tells the fault which phase the run is in.
#[derive(Default)]
struct Watcher {
    verifying: AtomicBool,
    /// The fault has fired.
    fired: AtomicBool,
    /// Runs once every file is signed and before the rescue (end of Sign).
    signed: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    warnings: Mutex<Vec<(PathBuf, String)>>,
}

impl Reporter for Watcher {
    fn begin(&self, stage: Stage, _total: Option<u64>) {
        if matches!(stage, Stage::Verify | Stage::Band | Stage::Join) {
            self.verifying.store(true, Ordering::SeqCst);
        }
    }

    fn end(&self, stage: Stage) {
        if stage == Stage::Sign
            && let Some(then) = self.signed.lock().unwrap().take()
        {
            then();
        }
    }

    fn warn(&self, path: &Path, reason: &dyn std::fmt::Display) {
        let warning = (path.to_path_buf(), reason.to_string());
        self.warnings.lock().unwrap().push(warning);
    }
}

/// The phase a fault fires in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// While files are read and signed (after the walk found them).
    Sign,
    /// While candidates are verified (files reloaded).
    Reload,
}

/// One fault: at `point` in `phase`, the first time `x.txt` passes it,
/// `act(x, dir)` runs; its error, if any, is what the read fails with.
struct Fault {
    name: &'static str,
    phase: Phase,
    point: Point,
    act: fn(&Path, &Path) -> io::Result<()>,
    /// Run once every file is signed (before the rescue), e.g. to undo.
    after_sign: Option<fn(&Path)>,
    /// The warning's reason for x.txt, one of these.
    reasons: &'static [&'static str],
    /// The read paths the fault applies to.
    paths: &'static [Path_],
}

const ALL: &[Path_] = &[
    Path_::Whole,
    Path_::ChunkedMapped,
    Path_::Exact,
    Path_::ReadAhead,
];
const LSH: &[Path_] = &[Path_::Whole, Path_::ChunkedMapped, Path_::ReadAhead];
const CHUNKED: &[Path_] = &[Path_::ChunkedMapped];

fn eio() -> io::Error {
    io::Error::from_raw_os_error(libc::EIO)
}

fn truncate_to_half(x: &Path) -> io::Result<()> {
    let f = std::fs::OpenOptions::new().write(true).open(x)?;
    let len = f.metadata()?.len();
    f.set_len(len / 2)
}

fn append(x: &Path) -> io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(x)?;
    f.write_all(b" and some more words at the end")
}

/// Same size, other bytes, in place (the same inode, so a mapping sees it).
fn rewrite_in_place(x: &Path) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(x)?;
    f.write_all_at(b"QQQQQQQQ", 0)
}

fn set_mode(x: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(x, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn faults() -> Vec<Fault> {
    vec![
        Fault {
            name: "EIO on open",
            phase: Phase::Sign,
            point: Point::Open,
            act: |_, _| Err(eio()),
            after_sign: None,
            reasons: &["input/output error"],
            paths: ALL,
        },
        Fault {
            name: "EIO mid-read (after open and fstat)",
            phase: Phase::Sign,
            point: Point::Opened,
            act: |_, _| Err(eio()),
            after_sign: None,
            reasons: &["input/output error"],
            paths: ALL,
        },
        Fault {
            name: "vanishes after the walk",
            phase: Phase::Sign,
            point: Point::Open,
            act: |x, _| std::fs::remove_file(x),
            after_sign: None,
            reasons: &["no such file or directory"],
            paths: ALL,
        },
        Fault {
            name: "vanishes after the walk and comes back before the rescue",
            phase: Phase::Sign,
            point: Point::Open,
            act: |x, dir| std::fs::rename(x, dir.join("x.saved")),
            after_sign: Some(|x| std::fs::rename(x.with_file_name("../x.saved"), x).unwrap()),
            reasons: &["no such file or directory"],
            paths: ALL,
        },
        Fault {
            name: "chmod 000 after the walk, 644 again before the rescue",
            phase: Phase::Sign,
            point: Point::Open,
            act: |x, _| {
                set_mode(x, 0o000);
                if is_root() {
                    // Root reads it anyway; what the kernel tells anyone else.
                    return Err(io::Error::from_raw_os_error(libc::EACCES));
                }
                Ok(())
            },
            after_sign: Some(|x| set_mode(x, 0o644)),
            reasons: &["permission denied"],
            paths: ALL,
        },
        Fault {
            name: "turned into a symlink to outside the root after the walk",
            phase: Phase::Sign,
            point: Point::Open,
            act: |x, dir| {
                std::fs::remove_file(x)?;
                std::os::unix::fs::symlink(dir.join("outside/secret.txt"), x)
            },
            after_sign: None,
            reasons: &["changed into a symbolic link after the walk (not followed)"],
            paths: ALL,
        },
        Fault {
            name: "shrinks after open, before the bytes are read",
            phase: Phase::Sign,
            point: Point::Opened,
            act: |x, _| truncate_to_half(x),
            after_sign: None,
            reasons: &[
                "shrank while being read",
                "changed while being read",
                "truncated while mapped",
            ],
            paths: ALL,
        },
        Fault {
            name: "grows after open, before the bytes are read",
            phase: Phase::Sign,
            point: Point::Opened,
            act: |x, _| append(x),
            after_sign: None,
            reasons: &["changed while being read"],
            paths: ALL,
        },
        Fault {
            name: "shrinks between the hash pass and the sign pass",
            phase: Phase::Sign,
            point: Point::BetweenPasses,
            act: |x, _| truncate_to_half(x),
            after_sign: None,
            reasons: &["shrank while being read", "truncated while mapped"],
            paths: CHUNKED,
        },
        Fault {
            name: "grows between the hash pass and the sign pass",
            phase: Phase::Sign,
            point: Point::BetweenPasses,
            act: |x, _| append(x),
            after_sign: None,
            reasons: &["changed while being read"],
            paths: CHUNKED,
        },
        Fault {
            name: "rewritten in place between the hash pass and the sign pass",
            phase: Phase::Sign,
            point: Point::BetweenPasses,
            act: |x, _| rewrite_in_place(x),
            after_sign: None,
            reasons: &["changed while being read"],
            paths: CHUNKED,
        },
        Fault {
            name: "changes between signing and the verification reload",
            phase: Phase::Reload,
            point: Point::Open,
            act: |x, _| std::fs::write(x, prose(72, 400)),
            after_sign: None,
            reasons: &["changed during the run"],
            paths: LSH,
        },
        Fault {
            name: "changes in place between signing and the reload",
            phase: Phase::Reload,
            point: Point::Open,
            act: |x, _| rewrite_in_place(x),
            after_sign: None,
            reasons: &["changed during the run", "changed while being read"],
            paths: LSH,
        },
        Fault {
            name: "vanishes before the verification reload",
            phase: Phase::Reload,
            point: Point::Open,
            act: |x, _| std::fs::remove_file(x),
            after_sign: None,
            reasons: &["no such file or directory"],
            paths: LSH,
        },
        Fault {
            name: "EIO on the verification reload",
            phase: Phase::Reload,
            point: Point::Opened,
            act: |_, _| Err(eio()),
            after_sign: None,
            reasons: &["input/output error"],
            paths: LSH,
        },
        Fault {
            name: "turned into a symlink to outside the root before the reload",
            phase: Phase::Reload,
            point: Point::Open,
            act: |x, dir| {
                std::fs::remove_file(x)?;
                std::os::unix::fs::symlink(dir.join("outside/secret.txt"), x)
            },
            after_sign: None,
            // Not "changed during the run": the link is not even opened, so
            // nothing outside the root is read (without -L).
            reasons: &["changed into a symbolic link after the walk (not followed)"],
            paths: LSH,
        },
    ]
}

/// The pairs of an outcome as (path, path, similarity), paths relative to
/// `root` so that two corpora compare.
fn pairs(o: &ScanOutcome, root: &Path) -> Vec<(PathBuf, PathBuf, String)> {
    let path = |id: u32| {
        o.documents[id as usize]
            .path
            .strip_prefix(root)
            .unwrap()
            .to_path_buf()
    };
    o.pairs
        .iter()
        .map(|p| (path(p.a), path(p.b), format!("{}", p.similarity)))
        .collect()
}

/// What a run under `fault` must show: x.txt warned once with one of the
/// fault's reasons and nothing else warned, and the pairs of the others
/// equal to those of a clean run without x.txt.
fn check_warnings(fault: &Fault, how: Path_, x: &Path, watcher: &Watcher) {
    let warnings = watcher.warnings.lock().unwrap().clone();
    let what = format!("{} ({how:?})", fault.name);
    assert!(watcher.fired.load(Ordering::SeqCst), "{what}: never fired");
    assert_eq!(warnings.len(), 1, "{what}: {warnings:?}");
    let (path, reason) = &warnings[0];
    assert_eq!(path, x, "{what}: {warnings:?}");
    assert!(
        fault.reasons.iter().any(|r| reason.starts_with(r)),
        "{what}: {reason}"
    );
}

/// Installs `fault` for x.txt under `dir` and returns the watcher that
/// drives its phase.
fn arm(fault: &Fault, dir: &Path, x: &Path) -> (faults::Installed, std::sync::Arc<Watcher>) {
    let watcher = std::sync::Arc::new(Watcher::default());
    if let Some(undo) = fault.after_sign {
        let x = x.to_path_buf();
        *watcher.signed.lock().unwrap() = Some(Box::new(move || undo(&x)));
    }
    let (x, dir, w) = (x.to_path_buf(), dir.to_path_buf(), watcher.clone());
    let (phase, point, act) = (fault.phase, fault.point, fault.act);
    let installed = faults::install(move |at, path| {
        let verifying = w.verifying.load(Ordering::SeqCst);
        let in_phase = (phase == Phase::Reload) == verifying;
        if at != point || path != x || !in_phase || w.fired.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        act(&x, &dir)
    });
    (installed, watcher)
}

/// Forwards to the shared watcher (the reporter must outlive the hook).
struct Shared(std::sync::Arc<Watcher>);

impl Reporter for Shared {
    fn begin(&self, stage: Stage, total: Option<u64>) {
        self.0.begin(stage, total)
    }
    fn end(&self, stage: Stage) {
        self.0.end(stage)
    }
    fn warn(&self, path: &Path, reason: &dyn std::fmt::Display) {
        self.0.warn(path, reason)
    }
}

/// The file left out of the corpus for `fault`: none, or for a fault before
/// the reload, x's identical copy (see
/// `a_file_changed_before_the_reload_does_not_take_its_identical_copy_with_it`).
fn uncopied(fault: &Fault) -> &'static str {
    match fault.phase {
        Phase::Sign => "",
        Phase::Reload => "x_copy.txt",
    }
}

/// `scan`: every fault under every read path it applies to.
#[test]
fn scan_under_every_fault_names_the_file_and_keeps_the_rest() {
    for fault in faults() {
        for &how in fault.paths {
            let tmp = tempfile::tempdir().unwrap();
            let clean_dir = tmp.path().join("clean");
            let clean_root = corpus(&clean_dir, &["x.txt", uncopied(&fault)]);
            let clean = scan(&config(&clean_root, how), &simfind::progress::Silent);
            let dir = tmp.path().join("run");
            let root = corpus(&dir, &[uncopied(&fault)]);
            let x = root.join("x.txt");
            let (installed, watcher) = arm(&fault, &dir, &x);
            let outcome = scan(&config(&root, how), &Shared(watcher.clone()));
            drop(installed);
            let what = format!("{} ({how:?})", fault.name);
            if fault.phase == Phase::Sign {
                let doc = outcome.documents.iter().find(|d| *d.path == *x).unwrap();
                assert_eq!(doc.status, DocStatus::Failed, "{what}");
            }
            assert_eq!(outcome.stats.errors, 1, "{what}");
            check_warnings(&fault, how, &x, &watcher);
            let expected = pairs(&clean, &clean_root);
            assert!(expected.len() >= 3, "{expected:?}");
            assert_eq!(pairs(&outcome, &root), expected, "{what}");
        }
    }
}

/// Found by this harness (docs/RELIABILITY.md, "Fault injection"): when the
/// file verification reloads for a content (its first file) changed after
/// signing, the whole content was dropped, so its unchanged identical copy
/// lost its pairs and was counted as an error without being named. Now the
/// copy is reloaded instead, and only the changed file is an error.
#[test]
fn a_file_changed_before_the_reload_does_not_take_its_identical_copy_with_it() {
    let fault = faults()
        .into_iter()
        .find(|f| f.name == "changes between signing and the verification reload")
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let clean_root = corpus(&tmp.path().join("clean"), &["x.txt"]);
    let clean = scan(
        &config(&clean_root, Path_::Whole),
        &simfind::progress::Silent,
    );
    let dir = tmp.path().join("run");
    let root = corpus(&dir, &[]);
    let x = root.join("x.txt");
    let (installed, watcher) = arm(&fault, &dir, &x);
    let outcome = scan(&config(&root, Path_::Whole), &Shared(watcher.clone()));
    drop(installed);
    check_warnings(&fault, Path_::Whole, &x, &watcher);
    assert_eq!(outcome.stats.errors, 1);
    assert_eq!(pairs(&outcome, &root), pairs(&clean, &clean_root));
}

/// A directory above a walked file swapped, after signing, for a link to a
/// directory outside the root that holds a byte-identical file: the reload
/// used to follow it (only the file's own name was opened with
/// `O_NOFOLLOW`), read outside the root and, the content hash matching,
/// verify from it. No link below the root is followed now, in any component.
#[test]
fn a_directory_swapped_for_a_link_before_the_reload_is_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let base = prose(70, 400);
    let root = tmp.path().join("files");
    write(&root, "a.txt", format!("{base} alpha").as_bytes());
    let x = write(&root, "sub/x.txt", format!("{base} xenon").as_bytes());
    write(
        tmp.path(),
        "outside/sub/x.txt",
        format!("{base} xenon").as_bytes(),
    );
    for how in [Path_::Whole, Path_::ChunkedMapped] {
        let sub = root.join("sub");
        if sub.is_symlink() {
            std::fs::remove_file(&sub).unwrap();
            std::fs::rename(root.join("sub.gone"), &sub).unwrap();
        }
        let fault = Fault {
            name: "a directory above it swapped for a link to outside before the reload",
            phase: Phase::Reload,
            point: Point::Open,
            act: |x, dir| {
                let sub = x.parent().unwrap();
                std::fs::rename(sub, sub.with_extension("gone"))?;
                std::os::unix::fs::symlink(dir.join("outside/sub"), sub)
            },
            after_sign: None,
            reasons: &["changed into a symbolic link after the walk (not followed)"],
            paths: LSH,
        };
        let (installed, watcher) = arm(&fault, tmp.path(), &x);
        let outcome = scan(&config(&root, how), &Shared(watcher.clone()));
        drop(installed);
        check_warnings(&fault, how, &x, &watcher);
        assert_eq!(outcome.stats.errors, 1, "{how:?}");
        assert!(
            outcome.pairs.is_empty(),
            "{how:?}: {:?}",
            pairs(&outcome, &root)
        );
    }
}

fn params(config: &ScanConfig) -> Params {
    Params::of(&config.recipe)
}

/// The (path, content hash) of every indexed file, paths relative to `root`.
fn indexed(index: &Index, root: &Path) -> Vec<(PathBuf, u128)> {
    let mut docs: Vec<_> = index
        .documents()
        .unwrap()
        .into_iter()
        .map(|d| {
            (
                d.path.strip_prefix(root).unwrap().to_path_buf(),
                d.content_hash,
            )
        })
        .collect();
    docs.sort();
    docs
}

/// `index` (a refresh that wants no pairs) and `scan --db` (a refresh, then
/// pairs from stored and fresh signatures): the faults of the signing phase
/// (an index keeps signatures, and `scan --db` is LSH).
#[test]
fn index_and_scan_with_db_under_every_fault_name_the_file_and_keep_the_rest() {
    use simfind::index::incremental::{refresh, scan_with_index};
    for fault in faults() {
        for how in [Path_::Whole, Path_::ChunkedMapped, Path_::ReadAhead] {
            // An index stores exact shingle counts: it signs whole files,
            // never on the chunked path's two passes.
            if !fault.paths.contains(&how) || fault.point == Point::BetweenPasses {
                continue;
            }
            for with_pairs in [false, true] {
                if fault.phase == Phase::Reload && !with_pairs {
                    continue; // a refresh reloads nothing
                }
                let tmp = tempfile::tempdir().unwrap();
                let clean_dir = tmp.path().join("clean");
                let clean_root = corpus(&clean_dir, &["x.txt", uncopied(&fault)]);
                let clean_config = config(&clean_root, how);
                let mut clean_index = Index::open_or_create(
                    &tmp.path().join("clean.db"),
                    &params(&clean_config),
                    OpenOptions::default(),
                )
                .unwrap();
                let silent = &simfind::progress::Silent;
                let clean =
                    scan_with_index(&mut clean_index, &clean_config, silent, |_| {}).unwrap();
                let dir = tmp.path().join("run");
                let root = corpus(&dir, &[uncopied(&fault)]);
                let x = root.join("x.txt");
                let run_config = config(&root, how);
                let mut index = Index::open_or_create(
                    &tmp.path().join("run.db"),
                    &params(&run_config),
                    OpenOptions::default(),
                )
                .unwrap();
                let (installed, watcher) = arm(&fault, &dir, &x);
                let reporter = Shared(watcher.clone());
                let what = format!("{} ({how:?}, pairs: {with_pairs})", fault.name);
                if with_pairs {
                    let outcome =
                        scan_with_index(&mut index, &run_config, &reporter, |_| {}).unwrap();
                    assert_eq!(outcome.stats.errors, 1, "{what}");
                    assert_eq!(pairs(&outcome, &root), pairs(&clean, &clean_root), "{what}");
                } else {
                    let refreshed = refresh(&mut index, &run_config, &reporter, false).unwrap();
                    let warned = watcher.warnings.lock().unwrap().clone();
                    assert_eq!(refreshed.stats.errors, 1, "{what}: {warned:?}");
                }
                drop(installed);
                check_warnings(&fault, how, &x, &watcher);
                if fault.phase == Phase::Reload {
                    // Indexed as signed, before it changed: the next run sees
                    // the change and signs it again.
                    continue;
                }
                assert_eq!(
                    indexed(&index, &root),
                    indexed(&clean_index, &clean_root),
                    "{what}"
                );
            }
        }
    }
}

// ---- The real binary, outside-only faults ----

/// The outputs compared: scan's pairs, scan's clusters, scan --db's pairs
/// (after `index`, whose own run is checked for exit status and names).
const RUNS: &[&[&str]] = &[
    &["index", "files", "--db", "i.db"],
    &["scan", "files", "-o", "out"],
    &["scan", "files", "--format", "clusters", "-o", "out"],
    &["scan", "files", "--db", "i.db", "-o", "out"],
];

/// Runs `args` in `dir` through bash with `prefix` (e.g. `ulimit -n 8`)
/// before the exec, as `nobody` when `as_nobody`.
fn run_in(dir: &Path, prefix: &str, as_nobody: bool, args: &[&str]) -> std::process::Output {
    let script = format!("{prefix}; exec \"$0\" --threads 2 \"$@\"");
    let mut cmd = if as_nobody {
        let mut c = std::process::Command::new("setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "bash",
            "-c",
        ]);
        c
    } else {
        let mut c = std::process::Command::new("bash");
        c.arg("-c");
        c
    };
    cmd.arg(script)
        .arg(env!("CARGO_BIN_EXE_simfind"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("bash runs")
}

/// Names of the corpus files that `stderr` names.
fn named(stderr: &str) -> Vec<&'static str> {
    // A file held back from removal (its own text not in the kept copy) is
    // named too, but as a decision, not a failure.
    let failures: String = stderr
        .lines()
        .filter(|l| !l.starts_with("simfind: held back: "))
        .collect::<Vec<_>>()
        .join("\n");
    ["a.txt", "b.txt", "x.txt", "x_copy.txt", "y.txt", "z.txt"]
        .into_iter()
        .filter(|name| failures.contains(&format!("files/{name}")))
        .collect()
}

/// Every run of [`RUNS`] in `dir` (prefix, user as given): no panic, exit 0
/// or 1 with the named files exactly those `expect_named` allows, outputs
/// equal to a clean run over the files not named, or exit 2 with no output
/// file; nothing else left in `dir`.
fn check_binary(tmp: &Path, prefix: &str, as_nobody: bool, expect_named: Option<&[&str]>) {
    let dir = tmp.join("run");
    let _ = std::fs::remove_file(dir.join("i.db"));
    for (run, args) in RUNS.iter().enumerate() {
        let _ = std::fs::remove_file(dir.join("out"));
        let out = run_in(&dir, prefix, as_nobody, args);
        let stderr = util::stderr(&out);
        let what = format!("{prefix} {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{what}");
        let code = out.status.code().expect("exited, not killed");
        assert!(code <= 2, "{what}");
        if code == 2 {
            assert!(!dir.join("out").exists(), "{what}");
            continue;
        }
        let mut names = named(&stderr);
        if stderr.contains("warning: files: ") {
            // The root itself could not be read: no file was.
            names = vec!["a.txt", "b.txt", "x.txt", "x_copy.txt", "y.txt", "z.txt"];
        }
        assert_eq!(code == 1, !names.is_empty(), "{what}");
        if let Some(expected) = expect_named {
            assert_eq!(names, expected, "{what}");
        }
        // The clean run: the same corpus without the named files.
        let clean = tmp.join(format!("clean{}", names.join("+")));
        if !clean.exists() {
            std::fs::create_dir_all(corpus(&clean, &names)).unwrap();
            for (run, args) in RUNS.iter().enumerate() {
                let out = run_in(&clean, "true", false, args);
                assert_eq!(out.status.code(), Some(0), "{}", util::stderr(&out));
                if args.contains(&"out") {
                    let name = format!("out{run}");
                    std::fs::rename(clean.join("out"), clean.join(name)).unwrap();
                }
            }
        }
        if args.contains(&"out") {
            let expected = std::fs::read(clean.join(format!("out{run}"))).unwrap();
            let got = std::fs::read(dir.join("out")).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&expected),
                "{what}"
            );
        }
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        left.retain(|n| !["files", "outside", "out", "i.db"].contains(&n.as_str()));
        assert!(left.is_empty(), "{what}: left behind {left:?}");
    }
}

fn world_readable(path: &Path) {
    set_mode(path, 0o755);
}

/// Descriptors running out (`ulimit -n`) at every limit from 4 to 14: which
/// files fail depends on how the walk and the reads race for descriptors, so
/// the check is the invariant, whatever failed.
///
/// This once failed about one run in six: when descriptors ran out during
/// verification and the file a content is reloaded from (x.txt) failed, its
/// identical copy (x_copy.txt) lost its pairs and was counted as an error
/// without being named. The copy now takes over (`pipeline::pairs::Readers`).
#[test]
fn descriptors_running_out_fail_files_by_name_never_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(&tmp.path().join("run"), &[]);
    for limit in 4..=14 {
        check_binary(tmp.path(), &format!("ulimit -n {limit}"), false, None);
    }
}

/// A file of mode 000, read as `nobody` (the tests run as root, which reads
/// it anyway): named with its reason by every command, the rest as a clean
/// run without it. Skipped (with a line saying so) without `setpriv`.
#[test]
fn an_unreadable_file_is_named_by_every_command_and_the_rest_is_complete() {
    let tmp = tempfile::tempdir().unwrap();
    world_readable(tmp.path());
    let dir = tmp.path().join("run");
    corpus(&dir, &[]);
    for sub in ["", "files", "outside"] {
        world_readable(&dir.join(sub));
    }
    set_mode(&dir.join("files/x.txt"), 0o000);
    if !is_root() || run_in(&dir, "true", true, &["--version"]).status.code() != Some(0) {
        eprintln!("skipped: needs root and setpriv to run as nobody");
        return;
    }
    // nobody must be able to write its outputs, and the clean runs (as root)
    // go to their own directories.
    set_mode(&dir, 0o777);
    check_binary(tmp.path(), "true", true, Some(&["x.txt"]));
}
