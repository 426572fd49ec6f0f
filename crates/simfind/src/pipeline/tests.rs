//! The pipeline's unit tests: the streamed protocol against the staged path,
//! the early method decision against the cost model, the chunked paths
//! against the whole-file ones (proptests), and files changing while read.

use super::contents::{ContentGroup, Signed};
use super::docs::Docs;
use super::plan::{Method, MethodChoice, Workload};
use super::shingles::{Buffers, CLASSIC_BATCH};
use super::sign::{Keep, sign_one, sign_windows, sign_windows_chunked};
use super::stream::{Batch, Mode, Signing, Worker};
use super::*;
use crate::input::read::{ReadError, ReadOptions};
use crate::input::walk::{FileEntry, WalkOptions};
use crate::lsh::Banding;
use crate::progress::Silent;
use crate::recipe::Recipe;
use crate::sketch::MinHasher;
use crate::sketch::oph;
use crate::sketch::{AnySketcher, SketchKind, Sketcher};
use crate::text::Normalization;
use crate::text::RepeatFilter;
use crate::text::{ShingleKind, Shingler, StopWords};
use std::path::Path;
use xxhash_rust::xxh3::xxh3_128;

fn config(root: &Path) -> ScanConfig {
    ScanConfig {
        roots: vec![root.to_path_buf()],
        walk: WalkOptions::default(),
        read: ReadOptions::default(),
        recipe: Recipe {
            include_binary: false,
            normalization: Normalization::default(),
            shingler: Shingler::new(ShingleKind::Char, 5, StopWords::default()),
            banding: Banding { bands: 4, rows: 2 },
            seed: 7,
            sketch: SketchKind::Classic,
        },
        threshold: 0.5,
        verification: Verification::Exact,
        verify_memory: 1 << 30,
        exact_index: None,
        method: MethodChoice::Auto,
    }
}

/// Six distinct documents, one empty, one copy of the first.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..6 {
        let text = format!(
            "document {i}: {}",
            "lorem ipsum dolor sit amet ".repeat(i + 2)
        );
        std::fs::write(dir.path().join(format!("d{i}.txt")), text).unwrap();
    }
    std::fs::write(dir.path().join("e.txt"), "ab").unwrap();
    std::fs::copy(dir.path().join("d0.txt"), dir.path().join("f.txt")).unwrap();
    dir
}

fn signing(config: &ScanConfig, mode: Mode) -> Signing<'_> {
    Signing::new(config, &Silent, mode, 1)
}

/// [`sign_files`] on one thread, so that the first copy of a content (by id)
/// claims it, as the streamed batches above do: with more threads the claimer
/// is whichever thread hashes first, and the comparisons by loader would
/// fail now and then (about 1 run in 200 on a loaded machine).
fn staged(
    files: &[FileEntry],
    config: &ScanConfig,
    method: Method,
) -> (Vec<SignOutcome>, Vec<u32>) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| sign_files(files, config, method, &Silent))
}

#[test]
fn sets_held_while_the_method_is_pending_are_signed_once_lsh_is_chosen() {
    let dir = corpus();
    let config = config(dir.path());
    let files = walk_files(&config, &Silent, &mut ScanStats::default());
    assert_eq!(files.len(), 8);
    let signing = signing(&config, Mode::Pending);
    let mut worker = Worker::default();
    let batch = |first: usize, len: usize| Batch {
        first: first as u32,
        files: files[first..first + len].to_vec(),
        read_ahead: Vec::new(),
    };
    signing.sign_batch(&mut worker, batch(0, 4));
    assert_eq!(signing.claims.lock().unwrap().held.len(), 4);
    assert!(signing.sheet.lock().unwrap().matrix.is_empty());
    signing.mode.store(Mode::Sign);
    // The next batch signs the held sets first, then its own files.
    signing.sign_batch(&mut worker, batch(4, 4));
    assert!(signing.claims.lock().unwrap().held.is_empty());
    let signed = signing.finish(Method::Lsh, Docs::of_files(files.clone()));

    let (outcomes, matrix) = staged(&files, &config, Method::Lsh);
    let direct = Signed::from_outcomes(files, outcomes, matrix);
    assert_eq!(signed.matrix, direct.matrix);
    assert_eq!(signed.groups.groups.len(), 7, "d0 and f share a content");
    assert!(
        signed
            .groups
            .groups
            .iter()
            .enumerate()
            .all(|(g, _)| signed.groups.set(g).is_empty())
    );
    let (signed, direct) = (
        signed.documents.into_documents(),
        direct.documents.into_documents(),
    );
    assert_eq!(signed.len(), direct.len());
    for (a, b) in signed.iter().zip(&direct) {
        assert_eq!(
            (&a.path, a.shingles, a.status),
            (&b.path, b.shingles, b.status)
        );
    }
}

#[test]
fn sets_held_while_the_method_is_pending_serve_the_exact_method() {
    let dir = corpus();
    let config = config(dir.path());
    let files = walk_files(&config, &Silent, &mut ScanStats::default());
    let signing = signing(&config, Mode::Pending);
    let mut worker = Worker::default();
    signing.sign_batch(
        &mut worker,
        Batch {
            first: 0,
            files: files[..5].to_vec(),
            read_ahead: Vec::new(),
        },
    );
    signing.mode.store(Mode::Keep);
    signing.sign_batch(
        &mut worker,
        Batch {
            first: 5,
            files: files[5..].to_vec(),
            read_ahead: Vec::new(),
        },
    );
    let signed = signing.finish(Method::Exact, Docs::of_files(files.clone()));
    assert!(signed.matrix.is_empty());
    let (outcomes, matrix) = staged(&files, &config, Method::Exact);
    let direct = Signed::from_outcomes(files, outcomes, matrix);
    let sets = |s: &Signed| -> Vec<(u32, Vec<u64>)> {
        s.groups
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.loader, s.groups.set(i).to_vec()))
            .collect()
    };
    assert_eq!(sets(&signed), sets(&direct));
}

/// `method_known` decides LSH on part of the walk when the exact method
/// would already be over its memory budget; the cost model, asked on the
/// whole walk (more bytes), must agree.
#[test]
fn early_lsh_agrees_with_the_cost_model() {
    for threshold in [0.05, 0.3, 0.5, 0.8, 0.95, 1.0] {
        for budget in [1u64 << 10, 1 << 20, 1 << 30, 1 << 40] {
            for part in [0u64, 1, 1 << 10, 1 << 20, 1 << 30, 1 << 40] {
                for char_shingles in [true, false] {
                    let w = |bytes| Workload {
                        files: 1000,
                        bytes,
                        tokens_per_byte: plan::tokens_per_byte(char_shingles),
                        threshold,
                        signature_len: 100,
                        memory_budget: budget,
                        signature_verification: false,
                    };
                    if plan::exact_peak_bytes(&w(part)) <= budget as f64 {
                        continue;
                    }
                    for whole in [part, part + 1, part * 3] {
                        let chosen = plan::choose(MethodChoice::Auto, &w(whole));
                        assert_eq!(chosen.method, Method::Lsh, "{chosen:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn densified_signatures_are_not_samples() {
    let set = |count: u64| -> Vec<u64> {
        (0..count)
            .map(|i| xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes()))
            .collect()
    };
    let mut scratch = Vec::new();
    let mut signature = vec![0u32; 100];
    let is_sample = |signature: &[u32], scratch: &mut Vec<u32>| {
        let independent =
            AnySketcher::new(SketchKind::Classic, 100, 7).positions_independent(signature, scratch);
        let same =
            AnySketcher::new(SketchKind::Oph, 100, 7).positions_independent(signature, scratch);
        assert_eq!(independent, same);
        independent
    };
    // 20 elements cannot fill 100 bins: densification copies values.
    oph::sign(&set(20), 7, &mut signature);
    assert!(!is_sample(&signature, &mut scratch));
    // 5,000 elements fill every bin (each stays empty with p = e^-50).
    oph::sign(&set(5000), 7, &mut signature);
    assert!(is_sample(&signature, &mut scratch));
    // Classic MinHash: n independent functions, no copies.
    MinHasher::new(100, 7).sign_into(&set(20), &mut signature);
    assert!(is_sample(&signature, &mut scratch));
}

#[test]
fn a_content_takes_32_bytes() {
    // A million contents are held beside the whole matrix at the end of
    // signing and while banding, the peak of a scan of a million small files
    // (docs/PERFORMANCE.md, "Round 6"): a field that pushes these past their
    // alignment costs 8 MB there.
    assert_eq!(std::mem::size_of::<SignedContent>(), 48);
    assert_eq!(std::mem::size_of::<ContentGroup>(), 32);
}

/// A config whose files all take the chunked path, `chunk` bytes a chunk.
fn chunked_config(
    kind: ShingleKind,
    k: usize,
    norm: Normalization,
    minhash: SketchKind,
    chunk: usize,
) -> ScanConfig {
    let mut config = config(Path::new("."));
    config.recipe.shingler = Shingler::new(kind, k, StopWords::from_words(["a", "the", "ab"]));
    config.recipe.normalization = norm;
    config.recipe.sketch = minhash;
    config.read.chunked_min_size = 0;
    config.read.chunk_size = chunk;
    config
}

/// [`chunked_config`] of a proptest case's indices.
fn case_config(kind: usize, k: usize, norm: usize, oph: bool, chunk: usize) -> ScanConfig {
    let kind = [ShingleKind::Char, ShingleKind::Word, ShingleKind::StopWord][kind];
    let minhash = if oph {
        SketchKind::Oph
    } else {
        SketchKind::Classic
    };
    chunked_config(kind, k, Normalization::ALL[norm], minhash, chunk)
}

/// A count and the signature row beside it.
type Signature = (usize, Vec<u32>);

/// The chunked path's signature and count next to the whole-file path's,
/// and its digest next to `xxh3_128`.
fn both_paths(bytes: &[u8], config: &ScanConfig) -> (Signature, Signature, u128) {
    let hasher = config.recipe.sketcher();
    let n = config.recipe.banding.signature_len();
    let mut buffers = Buffers::default();
    let mut whole = vec![u32::MAX; n];
    let count = sign_windows(bytes, config, &hasher, &mut buffers, &mut whole);
    // The same buffers, as a worker reuses them from file to file.
    let mut chunked = vec![u32::MAX; n];
    let released = std::cell::Cell::new(0);
    let release = |offset: usize| {
        assert!(offset >= released.get() && offset <= bytes.len());
        released.set(offset);
    };
    let (chunked_count, digest) =
        sign_windows_chunked(bytes, &release, config, &hasher, &mut buffers, &mut chunked);
    assert_eq!(released.get(), bytes.len(), "everything read is released");
    ((count, whole), (chunked_count, chunked), digest)
}

/// Text longer, once normalised, than the classic path gathers before it
/// streams ([`sign_windows_chunked`]): hex words from a small vocabulary
/// (so that values repeat and the filter's state matters) between the
/// fragments of [`FRAGMENTS`].
fn long_texts() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((0u16..3000, 0..FRAGMENTS.len()), 18_000..20_000).prop_map(|parts| {
        let mut out = Vec::new();
        for (word, f) in parts {
            out.extend_from_slice(format!("{word:x}").as_bytes());
            out.extend_from_slice(FRAGMENTS[f]);
        }
        out
    })
}

use crate::text::fragments::FRAGMENTS;
use proptest::prelude::*;

/// Text built from up to 60 [`FRAGMENTS`], as the core's chunking
/// properties draw it.
fn texts() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..60).prop_map(|parts| parts.concat())
}

fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xB16F_11E5),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

proptest! {
    #![proptest_config(proptest_config(1500))]

    /// The oracle: for every input, chunk size, shingle kind and k,
    /// normalisation and signer, the chunked path signs what the
    /// whole-file path signs and counts what it counts.
    #[test]
    fn chunked_signing_equals_whole_file_signing(
        bytes in texts(),
        chunk in 1usize..64,
        kind in 0usize..3,
        k in 1usize..=9,
        norm in 0usize..4,
        oph in any::<bool>(),
    ) {
        let config = case_config(kind, k, norm, oph, chunk);
        let (whole, chunked, digest) = both_paths(&bytes, &config);
        prop_assert_eq!(whole, chunked);
        prop_assert_eq!(digest, xxh3_128(&bytes));
    }
}

proptest! {
    #![proptest_config(proptest_config(24))]

    /// The same beyond the text the classic path gathers first, where it
    /// signs the filter's output batch by batch.
    #[test]
    fn chunked_signing_equals_whole_file_signing_on_long_texts(
        bytes in long_texts(),
        chunk in 1usize..4096,
        kind in 0usize..3,
        k in 1usize..=9,
        norm in 0usize..4,
        oph in any::<bool>(),
    ) {
        let config = case_config(kind, k, norm, oph, chunk);
        let text = crate::text::normalize(&bytes, config.recipe.normalization);
        prop_assert!(
            RepeatFilter::slots_for(text.len() / 4) == RepeatFilter::MAX_SLOTS,
            "too short to leave the gathering: {} bytes", text.len()
        );
        let (whole, chunked, digest) = both_paths(&bytes, &config);
        prop_assert!(whole.0 > 0);
        prop_assert_eq!(whole, chunked);
        prop_assert_eq!(digest, xxh3_128(&bytes));
    }
}

/// More values than one classic batch holds pass the filter.
#[test]
fn classic_batches_merge_into_the_whole_signature() {
    let text: String = (0..CLASSIC_BATCH as u64 * 3 / 2)
        .map(|i| format!("{:x} ", xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes()) >> 40))
        .collect();
    let config = chunked_config(
        ShingleKind::Word,
        1,
        Normalization::default(),
        SketchKind::Classic,
        1 << 20,
    );
    let (whole, chunked, _) = both_paths(text.as_bytes(), &config);
    assert!(whole.0 > CLASSIC_BATCH, "{}", whole.0);
    assert_eq!(whole, chunked);
}

/// `sign_one` on a large file equals its whole-file result, and a copy
/// is only hashed.
#[test]
fn a_large_file_signs_as_on_the_whole_file_path() {
    let dir = tempfile::tempdir().unwrap();
    let text = "Lorem ipsum dolor sit amet, ΣΟΦΙΑ consectetur\n".repeat(5000);
    std::fs::write(dir.path().join("a"), &text).unwrap();
    for mmap in [true, false] {
        for minhash in [SketchKind::Classic, SketchKind::Oph] {
            let mut config = config(dir.path());
            config.recipe.sketch = minhash;
            config.read.mmap_min_size = if mmap { 0 } else { u64::MAX };
            let file = walk_files(&config, &Silent, &mut ScanStats::default()).remove(0);
            let hasher = config.recipe.sketcher();
            let n = config.recipe.banding.signature_len();
            let sign = |config: &ScanConfig| {
                let mut row = vec![u32::MAX; n];
                let outcome = sign_one(
                    &file,
                    config,
                    &hasher,
                    Keep::Signature,
                    &|_| true,
                    &mut Buffers::default(),
                    &mut row,
                    None,
                );
                match outcome {
                    SignOutcome::Unique(c) => (c.hash, c.shingles, c.counted, row),
                    other => panic!("{other:?}"),
                }
            };
            let whole = sign(&config);
            config.read.chunked_min_size = 1000;
            config.read.chunk_size = 777;
            assert_eq!(sign(&config), whole, "mmap {mmap}, {minhash:?}");
            let copy = sign_one(
                &file,
                &config,
                &hasher,
                Keep::Signature,
                &|hash| {
                    assert_eq!(hash, whole.0);
                    false
                },
                &mut Buffers::default(),
                &mut vec![u32::MAX; n],
                None,
            );
            assert!(matches!(copy, SignOutcome::SameAs(h) if h == whole.0));
        }
    }
}

/// A large file's reload (chunk by chunk) gives the set the whole-file
/// reload gives, for every shingle kind, mapped or read, through the
/// intermediate sorts of a set larger than a batch; and a file whose
/// bytes differ from the signed ones is refused.
#[test]
fn a_large_file_reloads_the_set_of_the_whole_file_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a");
    let prose = "Lorem ipsum dolor sit amet, ΣΟΦΙΑ consectetur\n\t of the  ".repeat(3000);
    // Words repeating after 2 × CLASSIC_BATCH distinct ones: more values
    // pass than two batches, so the set is sorted on the way.
    let many: String = (0..CLASSIC_BATCH as u64 * 3)
        .map(|i| format!("w{:x} ", i % (2 * CLASSIC_BATCH as u64)))
        .collect();
    for (text, kinds) in [
        (
            &prose,
            &[ShingleKind::Char, ShingleKind::Word, ShingleKind::StopWord][..],
        ),
        (&many, &[ShingleKind::Word][..]),
    ] {
        std::fs::write(&path, text).unwrap();
        let hash = xxh3_128(text.as_bytes());
        for &kind in kinds {
            for mmap in [true, false] {
                let mut config = config(dir.path());
                config.recipe.shingler = Shingler::new(kind, 3, StopWords::english());
                config.read.mmap_min_size = if mmap { 0 } else { u64::MAX };
                config.read.chunked_min_size = u64::MAX;
                let whole = reload_set(&path, hash, &config.recipe, &config.read).unwrap();
                assert!(!whole.is_empty());
                for chunk in [1, 700, 1 << 17] {
                    config.read.chunked_min_size = 0;
                    config.read.chunk_size = chunk;
                    let chunked = reload_set(&path, hash, &config.recipe, &config.read).unwrap();
                    assert!(chunked == whole, "{kind:?}, mmap {mmap}, chunk {chunk}");
                    let refused =
                        reload_set(&path, hash ^ 1, &config.recipe, &config.read).unwrap_err();
                    assert!(
                        refused.to_string().contains("changed during the run"),
                        "{refused}"
                    );
                }
            }
        }
    }
}

/// Signs the one file in `dir` on the chunked path, `change` running
/// between the two passes (as the claim).
fn sign_changed(dir: &Path, mmap: bool, change: &(dyn Fn() + Sync)) -> SignOutcome {
    let mut config = config(dir);
    config.read.chunked_min_size = 0;
    config.read.chunk_size = 1000;
    config.read.mmap_min_size = if mmap { 0 } else { u64::MAX };
    let file = walk_files(&config, &Silent, &mut ScanStats::default()).remove(0);
    sign_one(
        &file,
        &config,
        &config.recipe.sketcher(),
        Keep::Signature,
        &|_| {
            change();
            true
        },
        &mut Buffers::default(),
        &mut vec![u32::MAX; config.recipe.banding.signature_len()],
        None,
    )
}

const LOG_LINE: &str = "first version of the log\n";

/// A mapped large file rewritten between the two passes (same size,
/// mtime put back, so that only its bytes tell) is an error for that
/// file, as a change `verify_unchanged` sees is.
#[test]
fn a_large_file_rewritten_between_the_passes_fails() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log");
    std::fs::write(&path, LOG_LINE.repeat(4000)).unwrap();
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let outcome = sign_changed(dir.path(), true, &|| {
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut &f, b"FIRST").unwrap();
        f.set_modified(mtime).unwrap();
    });
    assert!(
        matches!(outcome, SignOutcome::Failed(ReadError::Changed)),
        "{outcome:?}"
    );
}

/// A large file truncated between the two passes is an error for that
/// file: read into memory, by `verify_unchanged`; mapped, the second
/// pass faults on the vanished pages (the SIGBUS guard turns them into
/// zeros), which a child process checks (a broken guard would kill it).
#[test]
fn a_large_file_truncated_between_the_passes_fails() {
    assert_truncation_is_reported(false);
    #[cfg(target_os = "linux")]
    {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "pipeline::tests::truncated_mapping_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(TRUNCATE_CHILD, "1")
            .output()
            .unwrap();
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains(CHILD_PASSED),
            "child: {:?}\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Signs a large file that is truncated between the two passes and
/// checks that the outcome is a "shrank" error.
fn assert_truncation_is_reported(mapped: bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log");
    std::fs::write(&path, LOG_LINE.repeat(4000)).unwrap();
    let outcome = sign_changed(dir.path(), mapped, &|| {
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(100).unwrap();
    });
    assert!(
        matches!(
            outcome,
            SignOutcome::Failed(ReadError::Shrank {
                expected: 100_000,
                actual: 100
            })
        ),
        "{outcome:?}"
    );
}

const TRUNCATE_CHILD: &str = "SIMFIND_TRUNCATE_BETWEEN_PASSES";
const CHILD_PASSED: &str = "TRUNCATED-MAPPING-REPORTED";

/// The mapped half of the test above; a no-op in the normal test run.
#[test]
fn truncated_mapping_child() {
    if std::env::var_os(TRUNCATE_CHILD).is_none() {
        return;
    }
    assert_truncation_is_reported(true);
    println!("{CHILD_PASSED}");
}

#[test]
fn a_group_lists_its_members_only_when_they_are_not_the_loader_alone() {
    let file = |i: u64| FileEntry {
        path: format!("f{i}").into(),
        size: 10,
        modified: None,
        dev: 1,
        ino: i,
    };
    let unique = |hash: u128| {
        SignOutcome::Unique(SignedContent {
            hash,
            shingles: hash as u32,
            counted: true,
            set: Vec::new(),
        })
    };
    // Content 7 shown by 0, 1 and 3; content 5 by 2 alone; document 4 a
    // copy of a content no file signed (never grouped). The hashes' high
    // halves tell a mixed-up quarter of the hash.
    let high = 0xfeed_u128 << 96 | 0xbeef << 64;
    let outcomes = vec![
        unique(high | 7),
        SignOutcome::SameAs(high | 7),
        unique(high | 5),
        SignOutcome::SameAs(high | 7),
        SignOutcome::SameAs(high | 9),
    ];
    let files = (0..5).map(file).collect();
    let signed = Signed::from_outcomes(files, outcomes, Vec::new());
    let items = signed.groups.items();
    let listed: Vec<(u32, &[u32], u128)> = items
        .iter()
        .map(|g| (g.loader, items.members(g), g.content.hash()))
        .collect();
    assert_eq!(
        listed,
        [(0, &[0, 1, 3][..], high | 7), (2, &[2][..], high | 5)]
    );
    assert_eq!(signed.groups.identical_files(), 2);
    assert_eq!(
        (0..5)
            .map(|d| signed.documents.shingles(d))
            .collect::<Vec<_>>(),
        [7, 7, 5, 7, 0]
    );
}
