//! Normalisation of every file of `../shared/data/debian-docs` against the
//! definition the ground truth uses (`../shared/data/README.md`), under all
//! four combinations of `--keep-case` / `--keep-whitespace`: the fast kernels
//! must be byte-identical to it on real text (60 % of these files contain a
//! non-ASCII byte: box drawing, quotes, invalid UTF-8 in some `copyright`
//! files), not only on the generated inputs of the unit proptests.

use crate::util;
use simfind::simd::{self, KernelSet};
use simfind::text::normalize::reference::by_definition;
use simfind::text::normalize::{Kernel, Normalization, normalize_into_kernel, reference};

#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn every_debian_docs_file_normalises_as_defined() {
    let files = util::shared_data("debian-docs").join("files");
    let mut paths: Vec<_> = walkdir::WalkDir::new(&files)
        .into_iter()
        .map(|e| e.expect("readable corpus"))
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    paths.sort();
    assert!(
        paths.len() > 4000,
        "corpus missing under {}",
        files.display()
    );
    // Every kernel this CPU runs; the ones it cannot run are named on stderr.
    let mut kernels = Vec::new();
    simd::for_each_supported::<Kernel>(|k| kernels.push(k));
    let (mut out, mut non_ascii) = (String::new(), 0);
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        non_ascii += usize::from(!bytes.is_ascii());
        for (lowercase, collapse_whitespace) in
            [(true, true), (false, true), (true, false), (false, false)]
        {
            let norm = Normalization {
                lowercase,
                collapse_whitespace,
                drop_whitespace: false,
                fold_accents: false,
                fold_punct: false,
            };
            let expected = by_definition(&bytes, norm);
            for &kernel in &kernels {
                normalize_into_kernel(&bytes, norm, &mut out, kernel);
                assert!(
                    out == expected,
                    "{} kernel differs from the definition on {} with {norm:?}",
                    kernel.name(),
                    path.display()
                );
            }
            reference::normalize_into(&bytes, norm, &mut out);
            assert!(
                out == expected,
                "the reference differs from the definition on {} with {norm:?}",
                path.display()
            );
        }
    }
    // The mixed path was exercised, not only the ASCII one.
    assert!(non_ascii > 1000, "{non_ascii} files with a non-ASCII byte");
}
