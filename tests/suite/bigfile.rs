//! Large files signed chunk by chunk (`simfind::text::chunked`): with
//! the size threshold forced to 0 every file takes that path, and the whole
//! output must be byte-identical to the whole-file path's, for every shingle
//! kind, normalisation and MinHash kernel.

use crate::util::{run, shared_data, stderr};

fn scan(root: &str, extra: &[&str], chunked: bool) -> Vec<u8> {
    let mut args = vec!["scan", root, "-q", "-t", "0.5"];
    args.extend_from_slice(extra);
    if chunked {
        args.extend_from_slice(&["--chunked-min-size", "0", "--chunk-size", "97"]);
    }
    let out = run(&args);
    assert!(
        out.status.success(),
        "{args:?}: {:?}\n{}",
        out.status,
        stderr(&out)
    );
    out.stdout
}

#[test]
fn chunked_path_output_is_identical_on_testdata() {
    for kernel in ["classic", "oph"] {
        for shingle in [
            &["--shingle", "char", "-k", "5"][..],
            &["--shingle", "char", "-k", "1"],
            &["--shingle", "word", "-k", "3"],
            &["--shingle", "stopword", "-k", "2"],
        ] {
            for norm in [
                &[][..],
                &["--keep-case"],
                &["--keep-whitespace"],
                &["--keep-case", "--keep-whitespace"],
            ] {
                let mut extra = vec!["--minhash", kernel, "--method", "lsh"];
                extra.extend_from_slice(shingle);
                extra.extend_from_slice(norm);
                let whole = scan("testdata", &extra, false);
                assert!(whole.len() > 100, "{extra:?}: some pairs");
                assert_eq!(
                    String::from_utf8_lossy(&scan("testdata", &extra, true)),
                    String::from_utf8_lossy(&whole),
                    "{extra:?}"
                );
            }
        }
    }
}

/// Real text at the default settings: man pages, licences, copyright files
/// (debian-docs files up to 64 KiB).
#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn chunked_path_output_is_identical_on_real_text() {
    let corpus = shared_data("debian-docs").join("files");
    let root = corpus.to_str().unwrap();
    for kernel in ["classic", "oph"] {
        let extra = ["--minhash", kernel, "--method", "lsh", "--max-size", "64K"];
        let whole = scan(root, &extra, false);
        assert!(whole.len() > 10_000, "some pairs");
        assert!(
            scan(root, &extra, true) == whole,
            "{kernel}: outputs differ"
        );
    }
}

#[test]
fn chunk_size_zero_is_refused() {
    let out = run(&["scan", "testdata", "--chunk-size", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--chunk-size must be at least 1"));
}

/// `--verify signature` takes the chunked path too (it used to build the whole
/// set for the count): same signatures, same exact counts, also when the
/// count is made in several passes over parts of the hash space (a cap of a
/// few hundred bytes splits every file).
#[test]
fn chunked_signature_verification_output_is_identical() {
    for kernel in ["classic", "oph"] {
        let extra = [
            "--minhash",
            kernel,
            "--method",
            "lsh",
            "--verify",
            "signature",
        ];
        let whole = scan("testdata", &extra, false);
        assert!(whole.len() > 100, "{kernel}: some pairs");
        let chunked = scan("testdata", &extra, true);
        assert_eq!(
            String::from_utf8_lossy(&chunked),
            String::from_utf8_lossy(&whole)
        );
        let parted = scan(
            "testdata",
            &[&extra[..], &["--verify-memory", "300"]].concat(),
            true,
        );
        assert_eq!(
            String::from_utf8_lossy(&parted),
            String::from_utf8_lossy(&whole)
        );
    }
}

/// Exact verification of pairs whose two sets exceed `--verify-memory` is made
/// in passes over parts of the hash space: the same rows (similarity, counts,
/// shared) as with the sets loaded whole, and `-v` says which pairs.
#[test]
fn parted_exact_verification_output_is_identical() {
    for chunked in [false, true] {
        let extra = ["--method", "lsh"];
        let whole = scan("testdata", &extra, chunked);
        assert!(whole.len() > 100, "some pairs");
        let parted = scan(
            "testdata",
            &["--method", "lsh", "--verify-memory", "300"],
            chunked,
        );
        assert_eq!(
            String::from_utf8_lossy(&parted),
            String::from_utf8_lossy(&whole)
        );
    }
    let out = run(&[
        "scan",
        "testdata",
        "-v",
        "--method",
        "lsh",
        "--verify-memory",
        "300",
    ]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("passes over parts of the hash space"),
        "{}",
        stderr(&out)
    );
}
