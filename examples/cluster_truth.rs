//! Groups the exact ground-truth pairs of a shared corpus with both methods and
//! reports what each gives: how many groups, the largest, and how many members
//! are *not* at least t-similar to their group's kept copy (the chain problem).
//!
//! ```text
//! cargo run --profile test --example cluster_truth -- ../shared/data/django-docs 0.5
//! ```

use std::collections::HashMap;

use simfind::cluster::{ClusterMethod, ClusterParams, FileFacts, KeepPolicy, ScoredPair, cluster};

fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = std::path::PathBuf::from(args.next().expect("corpus directory"));
    let t: f64 = args.next().map_or(0.5, |a| a.parse().unwrap());
    let mut reader = csv::Reader::from_path(corpus.join("truth_char5.csv")).unwrap();
    let mut names: Vec<String> = Vec::new();
    let mut raw = Vec::new();
    for r in reader.records() {
        let r = r.unwrap();
        let s: f64 = r[2].parse().unwrap();
        if s >= t {
            names.push(r[0].to_string());
            names.push(r[1].to_string());
            raw.push((r[0].to_string(), r[1].to_string(), s));
        }
    }
    names.sort();
    names.dedup();
    let id: HashMap<&str, u32> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as u32))
        .collect();
    let pairs: Vec<ScoredPair> = raw
        .iter()
        .map(|(a, b, s)| ScoredPair {
            a: id[a.as_str()],
            b: id[b.as_str()],
            similarity: *s,
        })
        .collect();
    let sim: HashMap<(u32, u32), f64> = pairs.iter().map(|p| ((p.a, p.b), p.similarity)).collect();
    let metas: Vec<(u64, Option<std::time::SystemTime>)> = names
        .iter()
        .map(|n| {
            let m = std::fs::metadata(corpus.join("files").join(n)).unwrap();
            (m.len(), m.modified().ok())
        })
        .collect();
    let docs: Vec<FileFacts> = names
        .iter()
        .zip(&metas)
        .map(|(n, &(size, modified))| FileFacts {
            path: n.as_bytes(),
            size,
            modified,
            reference: false,
        })
        .collect();
    println!(
        "{}: {} pairs with J ≥ {t} over {} files",
        corpus.display(),
        pairs.len(),
        docs.len()
    );
    for method in [ClusterMethod::Connected, ClusterMethod::Center] {
        let c = cluster(
            &docs,
            &pairs,
            &ClusterParams {
                threshold: t,
                method,
                keep: KeepPolicy::First,
            },
        );
        let s = c.summary(&docs);
        let largest = c.groups().map(|g| g.len()).max().unwrap_or(0);
        let mut unrelated = 0;
        for g in c.groups() {
            let rep = g[0].doc;
            for m in &g[1..] {
                let key = (rep.min(m.doc), rep.max(m.doc));
                if sim.get(&key).is_none_or(|&s| s < t) {
                    unrelated += 1;
                }
            }
        }
        println!(
            "{method:?}: {} groups, largest {largest}, {} files in groups, {} removable, {unrelated} members not {t}-similar to the kept copy",
            s.groups, s.files_in_groups, s.removable_files
        );
    }
}
