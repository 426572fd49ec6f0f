//! `scan DIR --important-words N` on files: the binary's pairs against an
//! oracle computed here from the files' bytes (nothing of simfind's is
//! used), the thread count, the output options, the refusals, and (in
//! process) files that fail or change between the two passes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use simfind::input::faults::{self, Point};
use simfind::input::read::ReadOptions;
use simfind::input::walk::WalkOptions;
use simfind::lsh::Banding;
use simfind::pipeline::plan::{Method, MethodChoice};
use simfind::pipeline::{ScanConfig, Verification};
use simfind::progress::{Reporter, Stage};
use simfind::recipe::Recipe;
use simfind::sketch::SketchKind;
use simfind::text::normalize::Normalization;
use simfind::text::shingle::{ShingleKind, Shingler, StopWords};

use crate::util::{XorShift64, csv_rows, run, run_in, stderr, stdout, write};

/// A corpus where TF.IDF decides: documents drawn from a vocabulary where
/// low-numbered words are common to many documents (Zipf-like), near-copies
/// (a few words changed), byte-identical copies (so that counting
/// contents, not files, matters), a copy in other case (other bytes, the
/// same words once lowercased), an empty file and a binary one.
fn corpus(dir: &Path) -> Vec<String> {
    let mut rng = XorShift64(0x2545_F491_4F6C_DD1D);
    let mut next = move || rng.next();
    let mut names = Vec::new();
    let mut put = |name: String, text: &[u8]| {
        write(dir, &name, text);
        names.push(name);
    };
    let mut texts: Vec<String> = Vec::new();
    for d in 0..24 {
        let len = 30 + (next() % 60) as usize;
        let words: Vec<String> = (0..len)
            .map(|_| {
                // A word's rank: the minimum of two draws favours low ranks.
                let rank = (next() % 120).min(next() % 120);
                format!("w{rank}")
            })
            .collect();
        let text = words.join(" ");
        put(format!("d{d:02}.txt"), text.as_bytes());
        texts.push(text);
    }
    for (k, base) in texts.iter().take(10).enumerate() {
        // Near-copies: one, two or three words replaced by fresh ones.
        let mut words: Vec<String> = base.split(' ').map(str::to_owned).collect();
        for j in 0..=(k % 3) {
            let at = (next() as usize) % words.len();
            words[at] = format!("fresh{k}x{j}");
        }
        put(format!("n{k:02}.txt"), words.join("  \n").as_bytes());
    }
    for (i, k) in [3usize, 3, 3, 7].into_iter().enumerate() {
        put(format!("copy{i}_{k}.txt"), texts[k].as_bytes());
    }
    put("upper.txt".into(), texts[5].to_uppercase().as_bytes());
    put("empty.txt".into(), b"");
    let mut binary = texts[1].clone().into_bytes();
    binary.insert(10, 0);
    put("binary.txt".into(), &binary);
    names.sort();
    names
}

/// The oracle: each file's `n` words of highest TF.IDF, from the definition
/// (MMDS 1.3.1): words are maximal runs of alphanumeric characters of the
/// lowercased text; N and the document frequencies count distinct text
/// contents (a file with a NUL byte is binary: not a document); TF is a
/// word's count over the file's largest count, IDF log₂(N / documents with
/// the word); ties go to the word first in byte order.
fn oracle_sets(dir: &Path, names: &[String], n: usize) -> BTreeMap<String, BTreeSet<String>> {
    let texts: BTreeMap<String, Vec<u8>> = names
        .iter()
        .map(|name| (name.clone(), std::fs::read(dir.join(name)).unwrap()))
        .filter(|(_, bytes)| !bytes.contains(&0))
        .collect();
    let words_of = |bytes: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(bytes)
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let contents: BTreeSet<&Vec<u8>> = texts.values().collect();
    let total = contents.len() as f64;
    let mut df: HashMap<String, u32> = HashMap::new();
    for bytes in &contents {
        let distinct: BTreeSet<String> = words_of(bytes).into_iter().collect();
        for word in distinct {
            *df.entry(word).or_default() += 1;
        }
    }
    texts
        .iter()
        .map(|(name, bytes)| {
            let mut counts: BTreeMap<String, u32> = BTreeMap::new();
            for word in words_of(bytes) {
                *counts.entry(word).or_default() += 1;
            }
            let most = counts.values().copied().max().unwrap_or(1) as f64;
            let mut scored: Vec<(f64, &String)> = counts
                .iter()
                .map(|(word, &f)| {
                    let tf = f64::from(f) / most;
                    (tf * (total / f64::from(df[word])).log2(), word)
                })
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
            let kept = scored.into_iter().take(n).map(|(_, w)| w.clone()).collect();
            (name.clone(), kept)
        })
        .collect()
}

/// A pair row as the CSV writes it: a, b, similarity (6 decimals), then
/// the two set sizes and the shared count.
type Row = (String, String, String, String, String, String);

/// The oracle's pairs at Jaccard ≥ `t`, paths as `scan .` prints them, in
/// walk (path byte) order.
fn oracle_pairs(dir: &Path, names: &[String], n: usize, t: f64) -> Vec<Row> {
    let sets = oracle_sets(dir, names, n);
    let mut rows = Vec::new();
    let sets: Vec<(&String, &BTreeSet<String>)> =
        sets.iter().filter(|(_, set)| !set.is_empty()).collect();
    for (i, (a, sa)) in sets.iter().enumerate() {
        for (b, sb) in &sets[i + 1..] {
            let shared = sa.intersection(sb).count();
            let jaccard = shared as f64 / (sa.len() + sb.len() - shared) as f64;
            if jaccard >= t {
                rows.push((
                    format!("./{a}"),
                    format!("./{b}"),
                    format!("{jaccard:.6}"),
                    sa.len().to_string(),
                    sb.len().to_string(),
                    shared.to_string(),
                ));
            }
        }
    }
    rows
}

fn rows_of(out: &std::process::Output) -> Vec<Row> {
    assert!(out.status.success(), "{}", stderr(out));
    let text = |f: &[u8]| String::from_utf8_lossy(f).into_owned();
    csv_rows(&out.stdout)
        .iter()
        .map(|r| {
            (
                text(&r[0]),
                text(&r[1]),
                text(&r[2]),
                text(&r[4]),
                text(&r[5]),
                text(&r[6]),
            )
        })
        .collect()
}

#[test]
fn file_pairs_are_the_oracles_tf_idf_sets_compared() {
    let dir = tempfile::tempdir().unwrap();
    let names = corpus(dir.path());
    for (n, t) in [(4usize, 0.3), (10, 0.5), (25, 0.2)] {
        let expected = oracle_pairs(dir.path(), &names, n, t);
        assert!(expected.len() >= 10, "n = {n}: the corpus has pairs");
        let (n_arg, t_arg) = (n.to_string(), t.to_string());
        let scan = |method: &str| {
            let args = [
                "scan",
                ".",
                "--important-words",
                &n_arg,
                "-t",
                &t_arg,
                "--method",
                method,
                "-q",
            ];
            rows_of(&run_in(dir.path(), &args, b""))
        };
        assert_eq!(scan("exact"), expected, "n = {n}, exact");
        // LSH verifies exactly what it finds: each of its rows is the
        // oracle's. Its banding (tuned for --min-recall 0.999 at t) misses a
        // pair with probability ≤ 0.001, so with these few dozen pairs more
        // than one miss has probability < 10⁻³ (the seed is fixed).
        let lsh = scan("lsh");
        assert!(lsh.iter().all(|row| expected.contains(row)), "n = {n}");
        assert!(lsh.len() + 1 >= expected.len(), "n = {n}: {lsh:?}");
    }
}

#[test]
fn a_copy_added_changes_no_other_files_words() {
    // Document frequencies count distinct contents: a further copy of a
    // file is not another document, so every other pair stays as it was.
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let args = [
        "scan",
        ".",
        "--important-words",
        "6",
        "-t",
        "0.3",
        "--method",
        "exact",
        "-q",
    ];
    let before = rows_of(&run_in(dir.path(), &args, b""));
    std::fs::copy(dir.path().join("d11.txt"), dir.path().join("zz_copy.txt")).unwrap();
    let after = rows_of(&run_in(dir.path(), &args, b""));
    let others: Vec<Row> = after
        .into_iter()
        .filter(|r| r.0 != "./zz_copy.txt" && r.1 != "./zz_copy.txt")
        .collect();
    assert_eq!(others, before);
}

#[test]
fn the_same_output_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    for extra in [
        &["--method", "exact"][..],
        &["--method", "lsh"],
        &["--method", "lsh", "--verify", "signature"],
        &["--format", "clusters", "--keep", "first"],
    ] {
        let out = |threads: &str| {
            let mut args = vec!["scan", ".", "--important-words", "5", "-t", "0.3", "-q"];
            args.extend_from_slice(extra);
            args.extend_from_slice(&["-j", threads]);
            let out = run_in(dir.path(), &args, b"");
            assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
            assert!(!out.stdout.is_empty());
            out.stdout
        };
        assert_eq!(out("1"), out("2"), "{extra:?}");
    }
}

#[test]
fn output_options_are_a_file_scans() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let base = ["scan", ".", "--important-words", "5", "-t", "0.3"];
    let plain = run_in(dir.path(), &[&base[..], &["-q"]].concat(), b"");
    assert!(plain.status.success());
    let to_file = run_in(
        dir.path(),
        &[
            &base[..],
            &["-o", "../pairs.csv", "--summary-json", "../run.json", "-v"],
        ]
        .concat(),
        b"",
    );
    assert!(to_file.status.success(), "{}", stderr(&to_file));
    assert!(to_file.stdout.is_empty());
    let parent = dir.path().parent().unwrap();
    let written = std::fs::read(parent.join("pairs.csv")).unwrap();
    std::fs::remove_file(parent.join("pairs.csv")).unwrap();
    assert_eq!(written, plain.stdout);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(parent.join("run.json")).unwrap()).unwrap();
    std::fs::remove_file(parent.join("run.json")).unwrap();
    assert_eq!(summary["files"], 41, "{summary}");
    assert_eq!(summary["identical_files"], 4, "{summary}");
    assert_eq!(summary["shingles"]["important_words"], 5, "{summary}");
    assert!(
        stderr(&to_file).contains("(each file's 5 most important words, "),
        "{}",
        stderr(&to_file)
    );
    let stages = &summary["seconds"]["stages"];
    assert!(
        stages["count"].is_number() && stages["sign"].is_number(),
        "{summary}"
    );
    assert!(
        stderr(&to_file).contains("empty.txt"),
        "{}",
        stderr(&to_file)
    );
    // Identical contents pair at 1 and group as every file scan's do.
    let copies = rows_of(&plain);
    assert!(copies.contains(&(
        "./copy0_3.txt".into(),
        "./d03.txt".into(),
        "1.000000".into(),
        "5".into(),
        "5".into(),
        "5".into()
    )));
}

#[test]
fn what_cannot_combine_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    for (extra, says) in [
        (&["-k", "3"][..], "leave out --shingle and -k"),
        (&["--shingle", "char"], "leave out --shingle and -k"),
        (&["--important-words", "0"], "at least 1"),
        (
            &["--db", "../x.db"],
            "--db does not combine with --important-words",
        ),
        (
            &["--identical-by", "full"],
            "--identical-by does not combine",
        ),
        (
            &["--sketch", "simhash"],
            "--sketch simhash|icws or --metric does not combine",
        ),
        (
            &["--sketch", "icws"],
            "--sketch simhash|icws or --metric does not combine",
        ),
        (
            &["--format", "html", "-o", "../r.html"],
            "--format html does not combine",
        ),
    ] {
        let mut args = vec!["scan", "."];
        if extra[0] != "--important-words" {
            args.extend_from_slice(&["--important-words", "3"]);
        }
        args.extend_from_slice(extra);
        let out = run_in(dir.path(), &args, b"");
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{extra:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
        for left in ["x.db", "r.html"] {
            assert!(!dir.path().parent().unwrap().join(left).exists());
        }
    }
    // What does combine: another normalisation, the other sketches.
    for extra in [
        &["--keep-case"][..],
        &["--minhash", "oph"],
        &["--minhash", "block"],
    ] {
        let mut args = vec!["scan", ".", "--important-words", "3", "-q"];
        args.extend_from_slice(extra);
        let out = run_in(dir.path(), &args, b"");
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", stderr(&out));
    }
    assert!(run(&["scan", "--help"]).status.success());
    assert!(stdout(&run(&["scan", "--help"])).contains("--important-words"));
}

/// A file scan's configuration as `scan --important-words` makes it:
/// word 1-shingles, the default normalisation.
fn config(root: &Path, method: Method) -> ScanConfig {
    ScanConfig {
        roots: vec![root.to_path_buf()],
        walk: WalkOptions::default(),
        read: ReadOptions::default(),
        recipe: Recipe {
            include_binary: false,
            normalization: Normalization::default(),
            shingler: Shingler::new(ShingleKind::Word, 1, StopWords::default()),
            banding: Banding { bands: 50, rows: 2 },
            seed: 42,
            sketch: SketchKind::Classic,
        },
        threshold: 0.3,
        verification: Verification::Exact,
        verify_memory: 1 << 30,
        exact_index: None,
        method: MethodChoice::Fixed(method),
    }
}

/// Collects warnings; runs `between` once the first pass has ended.
#[derive(Default)]
struct Between {
    between: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    warnings: Mutex<Vec<(PathBuf, String)>>,
}

impl Reporter for Between {
    fn end(&self, stage: Stage) {
        if stage == Stage::Count
            && let Some(then) = self.between.lock().unwrap().take()
        {
            then();
        }
    }
    fn warn(&self, path: &Path, reason: &dyn std::fmt::Display) {
        self.warnings
            .lock()
            .unwrap()
            .push((path.to_path_buf(), reason.to_string()));
    }
}

/// The pairs of a library scan, as (a, b, similarity) with names relative
/// to `root`.
fn pairs_in(
    root: &Path,
    method: Method,
    reporter: &Between,
) -> (Vec<(String, String, String)>, u64) {
    let outcome = simfind::pipeline::important::scan(&config(root, method), 3, reporter);
    let name = |id: u32| {
        let path = &outcome.documents[id as usize].path;
        path.strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let pairs = outcome
        .pairs
        .iter()
        .map(|p| (name(p.a), name(p.b), format!("{:.6}", p.similarity)))
        .collect();
    (pairs, outcome.stats.errors)
}

/// a, b, c share their rare words pairwise; x is a copy of b; z is
/// unrelated.
fn small_corpus(root: &Path) {
    write(root, "a.txt", b"the kiwi mango papaya the");
    write(root, "b.txt", b"the kiwi mango guava the");
    write(root, "c.txt", b"the kiwi lychee guava the");
    write(root, "x.txt", b"the kiwi mango guava the");
    write(root, "z.txt", b"the plum pear fig the");
}

#[test]
fn a_file_changed_between_the_passes_is_named_and_pairs_nothing() {
    for method in [Method::Exact, Method::Lsh] {
        for (change, to) in [
            // Same size and modification time: only the hash tells.
            ("a.txt", &b"the kiwi melon papaya the"[..]),
            // Another size.
            ("a.txt", b"the kiwi mango papaya banana the"),
            // Now a copy of z: z keeps its pairs whichever of the two
            // signs that content in the second pass.
            ("a.txt", b"the plum pear fig the"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("files");
            small_corpus(&root);
            // x is b again; with a copy of z the changed a would pair z.
            write(&root, "y.txt", b"the plum pear fig the");
            let clean = pairs_in(&root, method, &Between::default()).0;
            let reporter = Between::default();
            let path = root.join(change);
            let bytes = to.to_vec();
            *reporter.between.lock().unwrap() = Some(Box::new(move || {
                let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
                std::fs::write(&path, &bytes).unwrap();
                std::fs::File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_modified(modified)
                    .unwrap();
            }));
            let (pairs, errors) = pairs_in(&root, method, &reporter);
            let warnings = reporter.warnings.lock().unwrap().clone();
            assert_eq!(errors, 1, "{method:?} {to:?}");
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert_eq!(warnings[0].0, root.join(change));
            assert!(
                warnings[0]
                    .1
                    .contains("changed between the two passes of important-word weighting"),
                "{warnings:?}"
            );
            // Every other pair is the clean run's.
            let kept: Vec<_> = clean
                .into_iter()
                .filter(|p| p.0 != change && p.1 != change)
                .collect();
            assert_eq!(pairs, kept, "{method:?} {to:?}");
            assert!(
                kept.iter()
                    .any(|p| (p.0.as_str(), p.1.as_str()) == ("y.txt", "z.txt"))
            );
        }
    }
}

#[test]
fn a_file_unreadable_in_either_pass_is_named_and_the_run_goes_on() {
    for (method, fail_at) in [
        (Method::Exact, 1),
        (Method::Lsh, 1),
        (Method::Exact, 2),
        (Method::Lsh, 2),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("files");
        small_corpus(&root);
        let clean = pairs_in(&root, method, &Between::default()).0;
        let target = root.join("b.txt");
        let opens = Mutex::new(0);
        let hook_target = target.clone();
        let _hook = faults::install(move |point, path| {
            if point == Point::Open && path == hook_target {
                let mut opens = opens.lock().unwrap();
                *opens += 1;
                if *opens == fail_at {
                    return Err(std::io::Error::other("injected read error"));
                }
            }
            Ok(())
        });
        let reporter = Between::default();
        let (pairs, errors) = pairs_in(&root, method, &reporter);
        let warnings = reporter.warnings.lock().unwrap().clone();
        assert_eq!(errors, 1, "{method:?} pass {fail_at}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].0, target);
        assert!(
            warnings[0].1.contains("injected read error"),
            "{warnings:?}"
        );
        let kept: Vec<_> = clean
            .into_iter()
            .filter(|p| p.0 != "b.txt" && p.1 != "b.txt")
            .collect();
        if fail_at == 2 {
            // The words were counted with b: the other pairs are the clean
            // run's, and b's copy x keeps its pairs.
            assert_eq!(pairs, kept, "{method:?}");
        }
        assert!(pairs.iter().all(|p| p.0 != "b.txt" && p.1 != "b.txt"));
        assert!(
            pairs.iter().any(|p| p.0 == "x.txt" || p.1 == "x.txt"),
            "{pairs:?}"
        );
    }
}
