//! The families on a real corpus, debian-docs: its documents as
//! term-frequency vectors (cosine, Euclidean, sign bits) against the exact
//! measures, and SimHash fingerprints against a brute force of every pair.

use super::*;

/// Every file under `dir`, in path order (the order simfind walks them).
fn files_in_order(dir: &Path) -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

/// The debian-docs documents as term-frequency vectors, generated
/// deterministically: words are maximal alphanumeric runs of the lowercased
/// text; the dimensions are the words ranked 51 to 306 by corpus frequency
/// (the 50 most frequent, function words, would make every page alike), ties
/// by the word. Files in path order; ids are the paths under `files/`.
fn debian_tf_vectors() -> (Vec<String>, Vec<Vec<f32>>) {
    let root = util::shared_data("debian-docs").join("files");
    let paths = files_in_order(&root);
    let mut docs: Vec<HashMap<String, u32>> = Vec::new();
    let mut total: HashMap<String, u64> = HashMap::new();
    for p in &paths {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).to_lowercase();
        let mut counts: HashMap<String, u32> = HashMap::new();
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            *counts.entry(word.to_string()).or_default() += 1;
        }
        for (w, c) in &counts {
            *total.entry(w.clone()).or_default() += u64::from(*c);
        }
        docs.push(counts);
    }
    let mut ranked: Vec<(u64, String)> = total.into_iter().map(|(w, c)| (c, w)).collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let vocabulary: Vec<String> = ranked[50..306].iter().map(|(_, w)| w.clone()).collect();
    let ids = paths
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let vectors = docs
        .iter()
        .map(|counts| {
            vocabulary
                .iter()
                .map(|w| counts.get(w).copied().unwrap_or(0) as f32)
                .collect()
        })
        .collect();
    (ids, vectors)
}

/// Exact truth on real data: cosine ≥ 0.95 over debian-docs term-frequency
/// vectors, then Hamming ≤ 10 over their 128 sign bits (random hyperplanes the
/// test draws), each against a brute-force pass over every pair.
#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn debian_docs_tf_vectors_and_sign_bits() {
    let (ids, vectors) = debian_tf_vectors();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tf.csv");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        for (id, v) in ids.iter().zip(&vectors) {
            let xs: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record([id.as_str()]).unwrap();
            let quoted = String::from_utf8(w.into_inner().unwrap()).unwrap();
            writeln!(f, "{},{}", quoted.trim_end(), xs.join(",")).unwrap();
        }
    }
    let norms: Vec<f64> = vectors
        .iter()
        .map(|v| v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt())
        .collect();
    let (b, r, t) = (20usize, 8usize, 0.95);
    let mut truth = HashMap::new();
    for i in 0..vectors.len() {
        if norms[i] == 0.0 {
            continue;
        }
        for j in i + 1..vectors.len() {
            if norms[j] == 0.0 {
                continue;
            }
            let dot: f64 = vectors[i]
                .iter()
                .zip(&vectors[j])
                .map(|(x, y)| *x as f64 * *y as f64)
                .sum();
            let c = dot / (norms[i] * norms[j]);
            if c >= t {
                let p = 1.0 - c.min(1.0).acos().to_degrees() / 180.0;
                truth.insert((ids[i].clone(), ids[j].clone()), (c, s_curve(p, b, r)));
            }
        }
    }
    let out = run(&[
        "scan",
        "--input",
        "vectors",
        file.to_str().unwrap(),
        "-t",
        "0.95",
        "-b",
        "20",
        "-r",
        "8",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (found, expected) =
        check_against_truth(&reported(&out.stdout, "cosine", "similarity"), &truth, 1e-6);
    eprintln!(
        "cosine: {found} of {} true pairs found, {expected:.1} expected; {}",
        truth.len(),
        stderr(&out)
    );

    // Their sign sketches: 128 Gaussian hyperplanes of the test's own.
    let mut rng = SplitMix64(128);
    let planes: Vec<Vec<f64>> = (0..128)
        .map(|_| (0..vectors[0].len()).map(|_| rng.gauss()).collect())
        .collect();
    let signs: Vec<u128> = vectors
        .iter()
        .map(|v| {
            planes.iter().enumerate().fold(0u128, |acc, (k, n)| {
                let dot: f64 = v.iter().zip(n).map(|(x, y)| *x as f64 * y).sum();
                acc | (u128::from(dot > 0.0) << k)
            })
        })
        .collect();
    let bits_file = dir.path().join("signs.csv");
    let text: String = ids
        .iter()
        .zip(&signs)
        .map(|(id, w)| {
            let mut q = csv::Writer::from_writer(Vec::new());
            q.write_record([id.as_str()]).unwrap();
            let id = String::from_utf8(q.into_inner().unwrap()).unwrap();
            format!(
                "{},{}\n",
                id.trim_end(),
                (0..128)
                    .map(|k| if w >> k & 1 == 1 { '1' } else { '0' })
                    .collect::<String>()
            )
        })
        .collect();
    std::fs::write(&bits_file, text).unwrap();
    let (b, r, radius) = (16usize, 10usize, 10u32);
    let mut truth = HashMap::new();
    for i in 0..signs.len() {
        for j in i + 1..signs.len() {
            let h = (signs[i] ^ signs[j]).count_ones();
            if h <= radius {
                truth.insert(
                    (ids[i].clone(), ids[j].clone()),
                    (h as f64, s_curve(1.0 - h as f64 / 128.0, b, r)),
                );
            }
        }
    }
    let out = run(&[
        "scan",
        "--input",
        "bits",
        bits_file.to_str().unwrap(),
        "--radius",
        "10",
        "-b",
        "16",
        "-r",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (found, expected) =
        check_against_truth(&reported(&out.stdout, "hamming", "distance"), &truth, 0.0);
    eprintln!(
        "hamming: {found} of {} true pairs found, {expected:.1} expected; {}",
        truth.len(),
        stderr(&out)
    );
}

/// SimHash over debian-docs against an independent implementation of what
/// docs/FAMILIES.md defines: the data README's char5 shingles (lossy UTF-8,
/// lowercase, whitespace runs → one space, trimmed; XXH3-64 of each 5-character
/// window), weighted by their counts or each once (--simhash-weights); each hash scrambled with the seed by
/// SplitMix64's finaliser; bit i of the fingerprint is the sign of Σ ±weight.
/// The pigeonhole bands miss nothing, so the output is exactly the brute-force
/// set of pairs within 3 bits; and -j 1 = -j 2.
#[test]
#[cfg_attr(no_shared_data, ignore = "needs ../shared/data")]
fn simhash_equals_brute_force_on_debian_docs() {
    let root = Path::new("../shared/data/debian-docs/files");
    let paths = files_in_order(&util::root().join(root));
    let seed = 42u64; // scan's default --seed
    let mix = |h: u64| {
        let mut z = h ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    // Each file's shingle counts once, with each hash already scrambled: the
    // two weightings below differ only in how they sum them.
    let mut bags: Vec<(String, Vec<(u64, i64)>)> = Vec::new();
    for p in &paths {
        let lowered = String::from_utf8_lossy(&std::fs::read(p).unwrap()).to_lowercase();
        let text = lowered.split_whitespace().collect::<Vec<_>>().join(" ");
        // A window of 5 characters is the bytes between the starts of
        // characters i and i + 5.
        let starts: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        if starts.len() < 6 {
            continue;
        }
        let mut counts: HashMap<u64, i64> = HashMap::new();
        for w in starts.windows(6) {
            let window = &text.as_bytes()[w[0]..w[5]];
            *counts
                .entry(xxhash_rust::xxh3::xxh3_64(window))
                .or_default() += 1;
        }
        let rel = p.strip_prefix(util::root().join(root)).unwrap();
        let name = root.join(rel).to_string_lossy().into_owned();
        bags.push((name, counts.into_iter().map(|(h, c)| (mix(h), c)).collect()));
    }
    // Weighted by counts, and (the default) each distinct shingle once.
    for weights in ["counts", "set"] {
        let mut prints: Vec<(String, u64)> = Vec::new();
        for (name, bag) in &bags {
            let mut sums = [0i64; 64];
            for &(h, c) in bag {
                let c = if weights == "set" { 1 } else { c };
                for (i, sum) in sums.iter_mut().enumerate() {
                    *sum += if h >> i & 1 == 1 { c } else { -c };
                }
            }
            let fp = sums
                .iter()
                .enumerate()
                .fold(0u64, |fp, (i, s)| fp | (u64::from(*s > 0) << i));
            prints.push((name.clone(), fp));
        }
        let mut truth = HashMap::new();
        for i in 0..prints.len() {
            for j in i + 1..prints.len() {
                let h = (prints[i].1 ^ prints[j].1).count_ones();
                if h <= 3 {
                    // simfind orders a pair by path bytes (its walk order).
                    let (a, b) = (prints[i].0.clone(), prints[j].0.clone());
                    let key = if a.as_bytes() < b.as_bytes() {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    truth.insert(key, f64::from(h));
                }
            }
        }
        let args = [
            "scan",
            root.to_str().unwrap(),
            "--sketch",
            "simhash",
            "-q",
            "--simhash-weights",
            weights,
        ];
        let one = scan_output(&args, "1");
        assert_eq!(one, scan_output(&args, "2"));
        let found = reported(&one, "hamming", "distance");
        let missed: Vec<_> = truth
            .iter()
            .filter(|(k, _)| !found.contains_key(*k))
            .take(3)
            .collect();
        let extra: Vec<_> = found
            .iter()
            .filter(|(k, _)| !truth.contains_key(*k))
            .take(3)
            .collect();
        let differ: Vec<_> = found
            .iter()
            .filter(|(k, v)| truth.get(*k).is_some_and(|t| t != *v))
            .take(3)
            .collect();
        assert!(
            missed.is_empty() && extra.is_empty() && differ.is_empty(),
            "missed {missed:?}, extra {extra:?}, differ {differ:?} of {} / {}",
            found.len(),
            truth.len()
        );
        assert!(truth.len() > 700, "{}", truth.len());
    }
}
