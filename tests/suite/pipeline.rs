//! The pipeline through the library API, on corpora made in temporary
//! directories.

use crate::util::{prose, shared_data, write};
use simfind::input::read::ReadOptions;
use simfind::input::walk::WalkOptions;
use simfind::lsh::Banding;
use simfind::pipeline::plan::{Method, MethodChoice};
use simfind::pipeline::{DocStatus, ScanConfig, Verification, scan};
use simfind::progress::Silent;
use simfind::recipe::Recipe;
use simfind::sketch::SketchKind;
use simfind::text::normalize::Normalization;
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};

fn config(root: &std::path::Path, threshold: f64) -> ScanConfig {
    ScanConfig {
        roots: vec![root.to_path_buf()],
        walk: WalkOptions::default(),
        read: ReadOptions::default(),
        recipe: Recipe {
            include_binary: false,
            normalization: Normalization::default(),
            shingler: Shingler::new(ShingleKind::Char, 5, StopWords::default()),
            banding: Banding { bands: 20, rows: 5 },
            seed: 42,
            sketch: SketchKind::Classic,
        },
        threshold,
        verification: Verification::Exact,
        verify_memory: 1 << 30,
        exact_index: None,
        method: MethodChoice::Fixed(Method::Lsh),
    }
}

#[test]
fn two_thousand_copies_are_shingled_once_by_the_exact_method_too() {
    let dir = tempfile::tempdir().unwrap();
    let copy = prose(10, 400);
    for i in 0..2000 {
        write(dir.path(), &format!("copies/{i:04}.txt"), copy.as_bytes());
    }
    write(dir.path(), "other.txt", prose(11, 400).as_bytes());
    let exact = ScanConfig {
        method: MethodChoice::Fixed(Method::Exact),
        ..config(dir.path(), 0.8)
    };
    let outcome = scan(&exact, &Silent);
    assert_eq!(outcome.decision.method, Method::Exact);
    assert_eq!(outcome.stats.signatures, 2, "one set per distinct content");
    assert_eq!(outcome.stats.identical_files, 1999);
    assert_eq!(outcome.pairs.len(), 2000 * 1999 / 2);
    assert!(
        outcome
            .pairs
            .iter()
            .all(|p| p.similarity == 1.0 && p.estimate.is_none())
    );
}

#[test]
fn two_thousand_copies_are_signed_once_and_all_paired() {
    let dir = tempfile::tempdir().unwrap();
    let copy = prose(10, 400);
    for i in 0..2000 {
        write(dir.path(), &format!("copies/{i:04}.txt"), copy.as_bytes());
    }
    write(dir.path(), "other.txt", prose(11, 400).as_bytes());
    let outcome = scan(&config(dir.path(), 0.8), &Silent);
    assert_eq!(outcome.stats.files, 2001);
    assert_eq!(outcome.stats.signatures, 2, "one per distinct content");
    assert_eq!(outcome.stats.identical_files, 1999);
    assert_eq!(outcome.pairs.len(), 2000 * 1999 / 2);
    assert!(
        outcome
            .pairs
            .iter()
            .all(|p| p.similarity == 1.0 && p.a < p.b)
    );
    assert!(
        outcome
            .pairs
            .iter()
            .collect::<Vec<_>>()
            .windows(2)
            .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b))
    );
    let copies = outcome
        .documents
        .iter()
        .filter(|d| d.path.starts_with(dir.path().join("copies")));
    assert!(
        copies
            .into_iter()
            .all(|d| d.shingles == outcome.documents[0].shingles && d.shingles > 0)
    );
}

#[test]
fn a_near_copy_of_a_duplicated_file_pairs_with_every_copy() {
    let dir = tempfile::tempdir().unwrap();
    let text = prose(12, 600);
    for name in ["a.txt", "b.txt", "c.txt"] {
        write(dir.path(), name, text.as_bytes());
    }
    let edited = text.replacen("river", "ocean", 1);
    write(dir.path(), "edited.txt", edited.as_bytes());
    let outcome = scan(&config(dir.path(), 0.8), &Silent);
    let pairs: Vec<(u32, u32)> = outcome.pairs.iter().map(|p| (p.a, p.b)).collect();
    // ids: a=0, b=1, c=2, edited=3; every pair among the four.
    assert_eq!(pairs, vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
    let near: Vec<f64> = outcome
        .pairs
        .iter()
        .filter(|p| p.b == 3)
        .map(|p| p.similarity)
        .collect();
    assert!(
        near.iter()
            .all(|&s| s == near[0] && (0.8..1.0).contains(&s))
    );
}

/// A corpus where plain name order and path byte order differ (`a.txt` sorts
/// before `a/…`), with near-copies, exact copies, an empty and a binary file.
fn mixed_corpus(dir: &std::path::Path) {
    for i in 0..150u64 {
        let base = prose(i / 3, 300);
        // Three versions of every base text: near-duplicates of each other.
        let text = base.replacen("river", &format!("river{i}"), 1);
        let name = match i % 4 {
            0 => format!("a/{i}.txt"),
            1 => format!("a.{i}.txt"),
            2 => format!("a-b/{i}/x"),
            _ => format!("z/{i}"),
        };
        write(dir, &name, text.as_bytes());
    }
    for i in 0..20 {
        write(dir, &format!("a/copies/{i}"), prose(1000, 200).as_bytes());
    }
    write(dir, "a.txt", b"tiny");
    write(dir, "a/bin", b"\0\x01binary");
}

/// `scan` (walk, read and sign overlapped) finds what the staged public API
/// finds (`walk_files` → `sign_files` → `find_pairs`), document for document
/// and pair for pair, under every way the method gets decided and any number
/// of threads.
#[test]
fn the_streamed_scan_equals_the_staged_pipeline() {
    use simfind::pipeline::{find_pairs, sign_files, walk_files};
    let dir = tempfile::tempdir().unwrap();
    mixed_corpus(dir.path());
    let cases = [
        (
            "lsh",
            MethodChoice::Fixed(Method::Lsh),
            Verification::Exact,
            1 << 30,
        ),
        (
            "exact",
            MethodChoice::Fixed(Method::Exact),
            Verification::Exact,
            1 << 30,
        ),
        (
            "auto, decided at the end",
            MethodChoice::Auto,
            Verification::Exact,
            1 << 30,
        ),
        // Over the exact method's budget after a few files: LSH while walking.
        (
            "auto, decided early",
            MethodChoice::Auto,
            Verification::Exact,
            20_000,
        ),
        (
            "auto, signature",
            MethodChoice::Auto,
            Verification::Signature,
            1 << 30,
        ),
    ];
    for (what, method, verification, verify_memory) in cases {
        for threshold in [0.3, 0.8] {
            let config = ScanConfig {
                method,
                verification,
                verify_memory,
                ..config(dir.path(), threshold)
            };
            let mut stats = Default::default();
            let files = walk_files(&config, &Silent, &mut stats);
            let staged_files = files.clone();
            for threads in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let streamed = pool.install(|| scan(&config, &Silent));
                let decided = streamed.decision.method;
                let (outcomes, matrix) = sign_files(&files, &config, decided, &Silent);
                let staged = find_pairs(
                    &config,
                    staged_files.clone(),
                    outcomes,
                    matrix,
                    streamed.decision.clone(),
                    stats.clone(),
                    &Silent,
                );
                let context = format!("{what}, t = {threshold}, {threads} threads");
                assert_eq!(streamed.documents.len(), 172, "{context}");
                // Counts are exact for every document of a pair; elsewhere the
                // streamed LSH scan may report an upper bound (it signs windows
                // without counting the set), zero exactly when the set is empty.
                let paired: std::collections::HashSet<u32> =
                    streamed.pairs.iter().flat_map(|p| [p.a, p.b]).collect();
                for (id, (a, b)) in streamed.documents.iter().zip(&staged.documents).enumerate() {
                    assert_eq!(
                        (&a.path, a.size, a.status, a.shingles == 0),
                        (&b.path, b.size, b.status, b.shingles == 0),
                        "{context}"
                    );
                    assert!(a.shingles >= b.shingles, "{context}");
                    if paired.contains(&(id as u32)) {
                        assert_eq!(a.shingles, b.shingles, "{context}: {}", a.path.display());
                    }
                }
                assert_eq!(streamed.pairs, staged.pairs, "{context}");
                assert!(!streamed.pairs.is_empty(), "{context}");
                assert_eq!(
                    streamed.stats.signatures, staged.stats.signatures,
                    "{context}"
                );
                assert_eq!(streamed.stats.identical_files, 19, "{context}");
                assert_eq!(streamed.stats.binary, 1, "{context}");
                assert_eq!(streamed.stats.no_shingles, 1, "{context}");
                if what == "auto, decided early" {
                    assert_eq!(decided, Method::Lsh, "{context}");
                    assert!(
                        streamed.decision.to_string().contains("budget"),
                        "{}",
                        streamed.decision
                    );
                }
            }
        }
    }
}

/// Exact verification rules out candidates by their signatures before reading
/// them (`verify::agreements_needed`, at most 1 % of LSH's own misses at the
/// threshold: 3.6e-6 per pair here). On debian-docs at 0.8 that is most of
/// 20 × 5's candidates, and the pairs must still be exactly the exact join's:
/// LSH itself misses a pair at 0.8 with probability 3.6e-4, so over its 989
/// pairs (most far above 0.8) a loss would show here.
#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn candidates_ruled_out_by_signature_lose_no_pair_on_debian_docs() {
    let root = shared_data("debian-docs/files");
    for kind in [SketchKind::Classic, SketchKind::Oph] {
        let mut base = config(&root, 0.8);
        base.recipe.banding = Banding { bands: 20, rows: 5 };
        base.recipe.sketch = kind;
        let lsh = scan(
            &ScanConfig {
                method: MethodChoice::Fixed(Method::Lsh),
                ..base.clone()
            },
            &Silent,
        );
        let exact = scan(
            &ScanConfig {
                method: MethodChoice::Fixed(Method::Exact),
                ..base
            },
            &Silent,
        );
        assert!(
            lsh.stats.ruled_out * 2 > lsh.stats.candidates,
            "{kind:?}: {} of {} ruled out",
            lsh.stats.ruled_out,
            lsh.stats.candidates
        );
        let pairs = |o: &simfind::pipeline::ScanOutcome| -> Vec<(u32, u32, f64)> {
            o.pairs.iter().map(|p| (p.a, p.b, p.similarity)).collect()
        };
        assert_eq!(exact.pairs.len(), 989);
        assert_eq!(pairs(&lsh), pairs(&exact), "{kind:?}");
    }
}

/// Runs `when_walked` when the walk warns about `trigger` (a missing root
/// given after the corpus: the corpus is walked, and its only batch not yet
/// read) and `when_read` once every file has been read (the end of the sign
/// stage, before the rescue). Keeps the warnings.
struct Meddler {
    trigger: std::path::PathBuf,
    when_walked: Box<dyn Fn() + Sync>,
    when_read: Box<dyn Fn() + Sync>,
    warnings: std::sync::Mutex<Vec<(std::path::PathBuf, String)>>,
}

impl simfind::progress::Reporter for Meddler {
    fn end(&self, stage: simfind::progress::Stage) {
        if stage == simfind::progress::Stage::Sign {
            (self.when_read)();
        }
    }

    fn warn(&self, path: &std::path::Path, reason: &dyn std::fmt::Display) {
        if path == self.trigger {
            (self.when_walked)();
        }
        let warning = (path.to_path_buf(), reason.to_string());
        self.warnings.lock().unwrap().push(warning);
    }
}

/// The pairs of `outcome` as (path, path, similarity).
fn path_pairs(o: &simfind::pipeline::ScanOutcome) -> Vec<(String, String, String)> {
    let path = |id: u32| o.documents[id as usize].path.display().to_string();
    o.pairs
        .iter()
        .map(|p| (path(p.a), path(p.b), format!("{}", p.similarity)))
        .collect()
}

/// Reliability case 1.7/3.9/9.6: a file whose open fails (here ENOENT; EMFILE
/// and EACCES alike) before its content is hashed, and that reads fine later
/// in the run, made the rescue index `contents[u32::MAX]` (a panic). It is
/// now reported with its reason, and the other files' pairs are complete.
#[test]
fn a_file_that_fails_to_open_and_then_reads_fine_is_reported_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    let base = prose(30, 300);
    for name in ["a.txt", "b.txt", "x.txt"] {
        write(&files, name, format!("{base} {name}").as_bytes());
    }
    write(&files, "y.txt", base.as_bytes());
    write(&files, "z.txt", prose(31, 300).as_bytes());
    for method in [Method::Lsh, Method::Exact] {
        let mut scanned = config(&files, 0.5);
        scanned.method = MethodChoice::Fixed(method);
        let undisturbed = scan(&scanned, &Silent);
        // A root that does not exist, walked after `files`: its warning comes
        // once the files are walked and before their (only) batch is read.
        let missing = dir.path().join("missing");
        scanned.roots.push(missing.clone());
        let (x, away) = (files.join("x.txt"), dir.path().join("x.saved"));
        let (x2, away2) = (x.clone(), away.clone());
        let reporter = Meddler {
            trigger: missing.clone(),
            when_walked: Box::new(move || std::fs::rename(&x, &away).unwrap()),
            when_read: Box::new(move || std::fs::rename(&away2, &x2).unwrap()),
            warnings: Default::default(),
        };
        let outcome = scan(&scanned, &reporter);
        let warnings = reporter.warnings.into_inner().unwrap();
        let x = outcome
            .documents
            .iter()
            .position(|d| *d.path == *files.join("x.txt"))
            .unwrap();
        assert_eq!(outcome.documents[x].status, DocStatus::Failed, "{method:?}");
        assert!(
            warnings.contains(&(files.join("x.txt"), "no such file or directory".into())),
            "{method:?}: {warnings:?}"
        );
        assert_eq!(warnings.len(), 2, "{method:?}: {warnings:?}");
        assert_eq!(outcome.stats.errors, 2, "{method:?}");
        let x = files.join("x.txt").display().to_string();
        let mut expected = path_pairs(&undisturbed);
        assert!(expected.iter().any(|(a, b, _)| *a == x || *b == x));
        expected.retain(|(a, b, _)| *a != x && *b != x);
        assert!(expected.len() >= 3, "{expected:?}");
        assert_eq!(path_pairs(&outcome), expected, "{method:?}");
    }
}

/// Reliability case 2.7: a walked file replaced after the walk by a symbolic
/// link to a file outside the roots was read through the link without
/// `--follow-links` (the outside file's similarity reported under its name).
/// Now it is a warning and the file is left out; with `--follow-links` a link
/// is followed as before. The outside file is a copy of `y.txt`, and a
/// near-copy of every corpus file but `z.txt`.
#[test]
fn a_file_swapped_for_a_symlink_after_the_walk_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    let base = prose(40, 300);
    for name in ["a.txt", "b.txt"] {
        write(&files, name, format!("{base} {name}").as_bytes());
    }
    write(&files, "x.txt", prose(41, 300).as_bytes());
    write(&files, "y.txt", base.as_bytes());
    write(&files, "z.txt", prose(42, 300).as_bytes());
    let secret = write(dir.path(), "outside/secret.txt", base.as_bytes());
    let x = files.join("x.txt");
    for follow_links in [false, true] {
        std::fs::remove_file(&x).unwrap();
        write(&files, "x.txt", prose(41, 300).as_bytes());
        let mut scanned = config(&files, 0.5);
        scanned.walk.follow_links = follow_links;
        let x_name = x.display().to_string();
        let mut expected = path_pairs(&scan(&scanned, &Silent));
        expected.retain(|(a, b, _)| *a != x_name && *b != x_name);
        let missing = dir.path().join("missing");
        scanned.roots.push(missing.clone());
        let (x1, secret1) = (x.clone(), secret.clone());
        let reporter = Meddler {
            trigger: missing,
            when_walked: Box::new(move || {
                std::fs::remove_file(&x1).unwrap();
                std::os::unix::fs::symlink(&secret1, &x1).unwrap();
            }),
            when_read: Box::new(|| {}),
            warnings: Default::default(),
        };
        let outcome = scan(&scanned, &reporter);
        let warnings = reporter.warnings.into_inner().unwrap();
        let with_x = path_pairs(&outcome)
            .into_iter()
            .filter(|(a, b, _)| *a == x_name || *b == x_name)
            .count();
        if follow_links {
            // Followed as the user asked: x.txt reads as the secret's copy.
            let y_name = files.join("y.txt").display().to_string();
            let same = (x_name.clone(), y_name, "1".to_string());
            assert!(path_pairs(&outcome).contains(&same), "{warnings:?}");
            assert_eq!(warnings.len(), 1, "{warnings:?}");
        } else {
            assert_eq!(with_x, 0, "{:?}", path_pairs(&outcome));
            let reason = "changed into a symbolic link after the walk (not followed)";
            assert!(
                warnings.contains(&(x.clone(), reason.into())),
                "{warnings:?}"
            );
            assert_eq!(outcome.stats.errors, 2);
            assert_eq!(path_pairs(&outcome), expected);
            assert!(expected.len() >= 3, "a, b and y pair: {expected:?}");
        }
    }
}

/// Collects the paths warned about.
#[derive(Default)]
struct Warned(std::sync::Mutex<Vec<std::path::PathBuf>>);

impl simfind::progress::Reporter for Warned {
    fn warn(&self, path: &std::path::Path, _reason: &dyn std::fmt::Display) {
        self.0.lock().unwrap().push(path.to_path_buf());
    }
}

/// Regression (issue 33): SimHash and ICWS over files read with the opener
/// the MinHash path uses (`read_walked`, case 2.7 above), not `read_file`: a
/// walked file replaced by a symbolic link to a file outside the roots,
/// just before it is opened, is a warning and never read through the link.
/// Before, both followed the link and signed the outside file's bytes.
#[test]
fn simhash_and_icws_do_not_follow_a_file_swapped_for_a_symlink_after_the_walk() {
    use simfind::input::faults::{self, Point};
    use simfind::pipeline::vectors::{Fingerprint, fingerprint_files};
    use simfind::pipeline::weighted::{Bag, bags_of_files};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    write(&files, "a.txt", prose(50, 300).as_bytes());
    let x = write(&files, "x.txt", prose(51, 300).as_bytes());
    let secret = write(dir.path(), "outside/secret.txt", prose(52, 300).as_bytes());
    let scanned = config(&files, 0.5);
    let mut stats = simfind::pipeline::ScanStats::default();
    let walked = simfind::pipeline::walk_files(&scanned, &Silent, &mut stats);
    assert_eq!(walked.len(), 2);
    let xi = walked.iter().position(|f| f.path == x).unwrap();
    let armed = Arc::new(AtomicBool::new(false));
    let _hook = {
        let (x, secret, armed) = (x.clone(), secret.clone(), armed.clone());
        faults::install(move |point, path| {
            if point == Point::Open && path == x && armed.swap(false, Ordering::SeqCst) {
                std::fs::remove_file(&x)?;
                std::os::unix::fs::symlink(&secret, &x)?;
            }
            Ok(())
        })
    };
    let restore = || {
        std::fs::remove_file(&x).unwrap();
        write(&files, "x.txt", prose(51, 300).as_bytes());
        armed.store(true, Ordering::SeqCst);
    };

    armed.store(true, Ordering::SeqCst);
    let warned = Warned::default();
    let prints = fingerprint_files(
        &walked,
        &scanned,
        simfind::sketch::simhash::Weights::Set,
        &warned,
    );
    assert_eq!(prints[xi], Fingerprint::Failed, "{prints:?}");
    assert!(matches!(prints[1 - xi], Fingerprint::Of(_)));
    assert_eq!(*warned.0.lock().unwrap(), std::slice::from_ref(&x));

    restore();
    let warned = Warned::default();
    let bags = bags_of_files(&walked, &scanned, &warned);
    assert_eq!(bags[xi], Bag::Failed);
    assert!(matches!(bags[1 - xi], Bag::Of(_)));
    assert_eq!(*warned.0.lock().unwrap(), std::slice::from_ref(&x));

    // With --follow-links a link is the user's to follow, as for MinHash.
    restore();
    let mut following = config(&files, 0.5);
    following.walk.follow_links = true;
    let prints = fingerprint_files(
        &walked,
        &following,
        simfind::sketch::simhash::Weights::Set,
        &Silent,
    );
    assert!(matches!(prints[xi], Fingerprint::Of(_)));
}
