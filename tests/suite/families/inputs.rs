//! Several input files for `--input vectors|bits`: read as one input in the
//! order given (ids unique across them), `--link` across two, and the errors
//! (a repeated id names both files and lines, another length, stdin twice,
//! `--db`) before any output.

use super::{bits_text, clustered, scan_output, write_vectors};
use crate::util::{SplitMix64, run, stderr};

/// Splits `text` (a header line and rows) after its `k`-th row: two files,
/// each with the header.
fn split_rows(text: &str, k: usize) -> (String, String) {
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    let part = |rows: &[&str]| format!("{header}\n{}\n", rows.join("\n"));
    (part(&rows[..k]), part(&rows[k..]))
}

#[test]
fn several_files_are_one_input_and_link_keeps_the_pairs_across() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("all.csv");
    write_vectors(&whole, &clustered(300, 10, 0.4, 31));
    let (a, b) = split_rows(&std::fs::read_to_string(&whole).unwrap(), 120);
    let (fa, fb) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    std::fs::write(&fa, a).unwrap();
    std::fs::write(&fb, b).unwrap();
    let (w, a, b) = (
        whole.to_str().unwrap(),
        fa.to_str().unwrap(),
        fb.to_str().unwrap(),
    );
    for query in [
        &["-t", "0.9"][..],
        &["--metric", "euclidean", "--radius", "1.5"],
    ] {
        let run_on = |files: &[&str], extra: &[&str], threads: &str| {
            let mut args = vec!["scan", "--input", "vectors"];
            args.extend_from_slice(files);
            args.extend_from_slice(query);
            args.extend_from_slice(extra);
            args.push("-q");
            scan_output(&args, threads)
        };
        let one = run_on(&[w], &[], "2");
        assert_eq!(
            run_on(&[a, b], &[], "1"),
            one,
            "two files = their rows in one"
        );
        let linked = run_on(&[a, b], &["--link"], "1");
        assert_eq!(linked, run_on(&[a, b], &["--link"], "2"));
        // --link: the one-file rows whose a is in the first file (p0–p119) and
        // b in the second, in the same order.
        let first = |id: &str| id[1..].parse::<usize>().unwrap() < 120;
        let mut reader = csv::Reader::from_reader(one.as_slice());
        let mut want = csv::Writer::from_writer(Vec::new());
        want.write_record(reader.headers().unwrap()).unwrap();
        let mut across = 0;
        for r in reader.records() {
            let r = r.unwrap();
            if first(&r[0]) && !first(&r[1]) {
                want.write_record(&r).unwrap();
                across += 1;
            }
        }
        assert!(across > 20, "{across} pairs across");
        assert_eq!(linked, want.into_inner().unwrap());
    }
}

#[test]
fn bit_strings_from_two_files_and_link_with_repeated_ids() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64(41);
    let strings: Vec<u128> = (0..200)
        .map(|i| {
            let mut w = (i as u128 % 20) * 0x0123_4567_89AB_CDEF_0F1E_2D3C_4B5A_6978;
            for k in 0..128 {
                if rng.uniform() < 0.03 {
                    w ^= 1 << k;
                }
            }
            w
        })
        .collect();
    let text = bits_text(&strings);
    let whole = dir.path().join("all.csv");
    std::fs::write(&whole, format!("id,bits\n{text}")).unwrap();
    let (a, b) = split_rows(&std::fs::read_to_string(&whole).unwrap(), 77);
    let (fa, fb) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    std::fs::write(&fa, &a).unwrap();
    std::fs::write(&fb, &b).unwrap();
    fn args<'a>(files: &[&'a str]) -> Vec<&'a str> {
        let mut v = vec!["scan", "--input", "bits"];
        v.extend_from_slice(files);
        v.extend_from_slice(&["--radius", "10", "-q"]);
        v
    }
    let one = scan_output(&args(&[whole.to_str().unwrap()]), "2");
    assert!(one.len() > 200);
    assert_eq!(
        scan_output(&args(&[fa.to_str().unwrap(), fb.to_str().unwrap()]), "1"),
        one
    );
    // Under --link ids need only be unique within each input: the same file
    // twice pairs every string with itself at distance 0.
    let mut linked = args(&[fa.to_str().unwrap(), fa.to_str().unwrap()]);
    linked.push("--link");
    let out = scan_output(&linked, "2");
    let text = String::from_utf8(out).unwrap();
    for i in 0..77 {
        assert!(text.contains(&format!("\ns{i},s{i},hamming,0\n")), "s{i}");
    }
}

#[test]
fn repeated_ids_other_lengths_and_unsupported_options_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    let c = dir.path().join("c.csv");
    std::fs::write(&a, "id,x,y\nu,1,0\nv,0,1\n").unwrap();
    std::fs::write(&b, "w,1,1\n\nv,1,0.1\n").unwrap();
    std::fs::write(&c, "z,1,1,1\n").unwrap();
    let (a, b, c) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        c.to_str().unwrap(),
    );
    let out_file = dir.path().join("out.csv");
    let o = out_file.to_str().unwrap();

    let out = run(&["scan", "--input", "vectors", a, b, "-t", "0.5", "-o", o]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{b}: line 3: id \"v\" is also in {a} line 3")),
        "{}",
        stderr(&out)
    );
    assert!(!out_file.exists(), "no output file after an error");

    // --skip-bad-rows leaves the later row out: exit 1, the pairs of the rest.
    let out = run(&[
        "scan",
        "--input",
        "vectors",
        a,
        b,
        "-t",
        "0.5",
        "--skip-bad-rows",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("row left out"), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "a,b,metric,similarity\nu,w,cosine,0.707107\nv,w,cosine,0.707107\n"
    );

    let out = run(&["scan", "--input", "vectors", a, c, "-t", "0.5", "-o", o]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("{c}: rows of 3 components where {a} has 2")),
        "{}",
        stderr(&out)
    );
    assert!(!out_file.exists());

    for (args, says) in [
        (
            vec!["scan", "--input", "vectors", "-", "-", "-t", "0.5"],
            "- (stdin) can be given once",
        ),
        (
            vec!["scan", "--input", "vectors", a, "-t", "0.5", "--link"],
            "--link pairs the points of two inputs",
        ),
        (
            vec![
                "scan",
                "--input",
                "vectors",
                a,
                "--metric",
                "euclidean",
                "--radius",
                "1",
                "--db",
                "x.db",
            ],
            "it cannot be combined with --input vectors --metric euclidean",
        ),
        // Bit strings are indexed (index_kinds.rs); SimHash fingerprints are not.
        (
            vec!["scan", a, "--sketch", "simhash", "--db", "x.db"],
            "it cannot be combined with --input files or --sketch simhash",
        ),
    ] {
        let mut with_o = args.clone();
        with_o.extend_from_slice(&["-o", o]);
        let out = run(&with_o);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(!out_file.exists());
    }
    assert!(!std::path::Path::new("x.db").exists());
}
