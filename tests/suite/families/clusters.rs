//! Groups of the vector families (`--format clusters`, `--format jsonl
//! --cluster`): the groups of `--cluster connected` are exactly the connected
//! components of the pairs the same run reports, computed here by a
//! union-find of the test's own; `--cluster center` (the default) puts every
//! member next to a representative it is paired with; JSON Lines groups equal
//! the CSV's; `-j 1` = `-j 2`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{bits_text, clustered, clustered_bits, scan_output, write_vectors};
use crate::util::SplitMix64;

type Groups = Vec<Vec<(String, bool, String)>>;

/// Groups of a clusters CSV: members (id, representative, value) per group in
/// output order; the header and metric checked.
fn groups_csv(out: &[u8], metric: &str, column: &str) -> Groups {
    let mut reader = csv::Reader::from_reader(out);
    assert_eq!(
        reader.headers().unwrap(),
        vec!["group", "id", "representative", "metric", column]
    );
    let mut groups: BTreeMap<usize, Vec<(String, bool, String)>> = BTreeMap::new();
    for r in reader.records() {
        let r = r.unwrap();
        assert_eq!(&r[3], metric);
        groups.entry(r[0].parse().unwrap()).or_default().push((
            r[1].to_string(),
            &r[2] == "true",
            r[4].to_string(),
        ));
    }
    let n = groups.len();
    assert_eq!(
        groups.keys().copied().collect::<Vec<_>>(),
        (1..=n).collect::<Vec<_>>()
    );
    groups.into_values().collect()
}

/// The same from JSON Lines groups, values written as the CSV writes them.
fn groups_jsonl(out: &[u8], metric: &str, column: &str) -> Groups {
    let text = String::from_utf8(out.to_vec()).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["group"], i + 1);
            assert_eq!(v["metric"], metric);
            v["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let value = match &m[column] {
                        serde_json::Value::Null => String::new(),
                        x => x.to_string(),
                    };
                    (
                        m["id"].as_str().unwrap().to_string(),
                        m["representative"].as_bool().unwrap(),
                        value,
                    )
                })
                .collect()
        })
        .collect()
}

/// Values as numbers: JSON numbers are read back without the CSV's fixed
/// decimals.
fn numeric(groups: &Groups) -> Vec<Vec<(String, bool, Option<f64>)>> {
    groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|(id, rep, v)| (id.clone(), *rep, v.parse().ok()))
                .collect()
        })
        .collect()
}

/// The test's own union-find over the reported pairs: components of ≥ 2, as
/// sets of ids.
fn components(pairs: &[(String, String)]) -> BTreeSet<BTreeSet<String>> {
    let mut parent: HashMap<String, String> = HashMap::new();
    fn find(parent: &mut HashMap<String, String>, x: &str) -> String {
        let p = parent.get(x).cloned().unwrap_or_else(|| x.to_string());
        if p == x {
            return p;
        }
        let root = find(parent, &p);
        parent.insert(x.to_string(), root.clone());
        root
    }
    for (a, b) in pairs {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent.insert(ra, rb);
        }
    }
    let mut by_root: HashMap<String, BTreeSet<String>> = HashMap::new();
    for (a, b) in pairs {
        for x in [a, b] {
            let r = find(&mut parent, x);
            by_root.entry(r).or_default().insert(x.clone());
        }
    }
    by_root.into_values().collect()
}

/// Runs `args` as pairs and as groups both ways; checks the groups against
/// the pairs. `order` gives a point's position in the input (the keep order).
fn check(args: &[&str], metric: &str, column: &str, order: &dyn Fn(&str) -> usize) {
    let pairs_out = scan_output(args, "2");
    let mut reader = csv::Reader::from_reader(pairs_out.as_slice());
    let pairs: HashMap<(String, String), String> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            ((r[0].to_string(), r[1].to_string()), r[3].to_string())
        })
        .collect();
    assert!(
        pairs.len() > 50,
        "{} pairs: the data must have some",
        pairs.len()
    );
    let value = |x: &str, y: &str| {
        pairs
            .get(&(x.to_string(), y.to_string()))
            .or_else(|| pairs.get(&(y.to_string(), x.to_string())))
            .cloned()
    };
    let with = |extra: &[&'static str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(extra);
        all
    };
    let identity = if column == "similarity" {
        "1.000000"
    } else if metric == "hamming" {
        "0"
    } else {
        "0.000000"
    };

    // Connected components, exactly.
    let connected = with(&["--format", "clusters", "--cluster", "connected"]);
    let out = scan_output(&connected, "1");
    assert_eq!(out, scan_output(&connected, "2"), "-j 1 and -j 2 differ");
    let groups = groups_csv(&out, metric, column);
    let keys: Vec<(String, String)> = pairs.keys().cloned().collect();
    let want = components(&keys);
    let got: BTreeSet<BTreeSet<String>> = groups
        .iter()
        .map(|g| g.iter().map(|m| m.0.clone()).collect())
        .collect();
    assert_eq!(got.len(), groups.len(), "a point in two groups");
    assert_eq!(got, want);
    assert!(want.iter().any(|c| c.len() > 2), "no chain to merge");
    for g in &groups {
        // The representative comes first and is the group's first point.
        let rep = &g[0];
        assert!(rep.1 && g[1..].iter().all(|m| !m.1));
        assert_eq!(rep.2, identity);
        assert_eq!(g.iter().map(|m| order(&m.0)).min(), Some(order(&rep.0)));
        for m in &g[1..] {
            assert_eq!(
                Some(m.2.clone()).filter(|v| !v.is_empty()),
                value(&rep.0, &m.0),
                "{m:?}"
            );
        }
    }
    let jsonl = with(&["--format", "jsonl", "--cluster", "connected"]);
    assert_eq!(
        numeric(&groups_jsonl(&scan_output(&jsonl, "2"), metric, column)),
        numeric(&groups)
    );

    // Center (the default): every member paired with its representative, no
    // point twice.
    let center = with(&["--format", "clusters"]);
    let out = scan_output(&center, "1");
    assert_eq!(out, scan_output(&center, "2"));
    let groups = groups_csv(&out, metric, column);
    let mut seen = BTreeSet::new();
    for g in &groups {
        assert!(g.len() >= 2 && g[0].1);
        for m in g {
            assert!(seen.insert(m.0.clone()), "{} twice", m.0);
        }
        for m in &g[1..] {
            assert_eq!(Some(m.2.clone()), value(&g[0].0, &m.0), "{m:?}");
        }
    }
    let jsonl = with(&["--format", "jsonl", "--cluster", "center"]);
    assert_eq!(
        numeric(&groups_jsonl(&scan_output(&jsonl, "2"), metric, column)),
        numeric(&groups)
    );
}

fn position(id: &str) -> usize {
    id[1..].parse().unwrap()
}

#[test]
fn cosine_and_euclidean_groups_are_the_components_of_the_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.csv");
    write_vectors(&file, &clustered(400, 12, 0.4, 21));
    let f = file.to_str().unwrap();
    check(
        &["scan", "--input", "vectors", f, "-t", "0.9", "-q"],
        "cosine",
        "similarity",
        &position,
    );
    check(
        &[
            "scan",
            "--input",
            "vectors",
            f,
            "--metric",
            "euclidean",
            "--radius",
            "1.6",
            "-q",
        ],
        "euclidean",
        "distance",
        &position,
    );
}

#[test]
fn hamming_groups_are_the_components_of_the_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.csv");
    let strings = clustered_bits(17, 40, 400, 0.05);
    std::fs::write(&file, bits_text(&strings)).unwrap();
    check(
        &[
            "scan",
            "--input",
            "bits",
            file.to_str().unwrap(),
            "--radius",
            "14",
            "-q",
        ],
        "hamming",
        "distance",
        &position,
    );
}

#[test]
fn simhash_groups_are_the_components_of_the_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64(5);
    // 30 texts, each in 4 variants with a few words changed.
    let vocabulary: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    for t in 0..30 {
        let base: Vec<usize> = (0..300).map(|_| (rng.next() % 400) as usize).collect();
        for v in 0..4 {
            let mut words = base.clone();
            for _ in 0..v {
                let k = (rng.next() % 300) as usize;
                words[k] = (rng.next() % 400) as usize;
            }
            let text: Vec<&str> = words.iter().map(|&k| vocabulary[k].as_str()).collect();
            std::fs::write(dir.path().join(format!("t{t:02}-{v}.txt")), text.join(" ")).unwrap();
        }
    }
    let root = dir.path().to_str().unwrap().to_string();
    let order = |id: &str| -> usize {
        let name = id.rsplit('/').next().unwrap();
        name[1..3].parse::<usize>().unwrap() * 4 + name[4..5].parse::<usize>().unwrap()
    };
    check(
        &["scan", &root, "--sketch", "simhash", "--radius", "6", "-q"],
        "hamming",
        "distance",
        &order,
    );
}
