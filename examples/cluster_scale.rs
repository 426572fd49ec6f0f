//! Times `simfind::cluster::cluster` on a synthetic graph shaped like
//! django-docs (the same page in 11 releases: cliques of 11 documents) plus a
//! sparse random background, to check that millions of pairs stay cheap.
//!
//! ```text
//! cargo run --profile test --example cluster_scale -- [GROUPS] [THREADS]
//! /usr/bin/time -v target/debug/examples/cluster_scale 200000 2   # peak RSS
//! ```

use std::time::{Duration, Instant, UNIX_EPOCH};

use simfind::cluster::{
    ClusterMethod, ClusterParams, Clustering, FileFacts, KeepPolicy, ScoredPair, cluster,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let groups: u32 = args.next().map_or(100_000, |a| a.parse().unwrap());
    let threads: usize = args.next().map_or(2, |a| a.parse().unwrap());
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    const K: u32 = 11;
    let n = groups * K * 2;
    let mut state = 1u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let paths: Vec<String> = (0..n)
        .map(|i| format!("docs/{:08}/page.txt", i % 997 * 7919 + i))
        .collect();
    let docs: Vec<FileFacts> = paths
        .iter()
        .map(|p| FileFacts {
            path: p.as_bytes(),
            size: next() % 100_000,
            modified: Some(UNIX_EPOCH + Duration::from_secs(next() % 1_000_000)),
            reference: false,
        })
        .collect();
    // Cliques over scattered ids, then as many random pairs as documents.
    let mut pairs = Vec::new();
    for g in 0..groups {
        let ids: Vec<u32> = (0..K).map(|j| (g + j * groups * 2) % n).collect();
        for (x, &a) in ids.iter().enumerate() {
            for &b in &ids[x + 1..] {
                let similarity = 0.5 + (next() % 500) as f64 / 1000.0;
                pairs.push(ScoredPair {
                    a: a.min(b),
                    b: a.max(b),
                    similarity,
                });
            }
        }
    }
    for _ in 0..n {
        let (a, b) = ((next() % n as u64) as u32, (next() % n as u64) as u32);
        pairs.push(ScoredPair {
            a: a.min(b),
            b: a.max(b),
            similarity: 0.6,
        });
    }
    eprintln!(
        "{} documents, {} pairs, {threads} threads",
        docs.len(),
        pairs.len()
    );
    for method in [ClusterMethod::Center, ClusterMethod::Connected] {
        for keep in [
            KeepPolicy::First,
            KeepPolicy::Newest,
            KeepPolicy::ShortestPath,
        ] {
            // The best of three: the machine is shared, the minimum is the signal.
            let mut best = f64::INFINITY;
            let mut c = Clustering::default();
            for _ in 0..3 {
                let params = ClusterParams {
                    threshold: 0.5,
                    method,
                    keep,
                };
                let t = Instant::now();
                c = cluster(&docs, &pairs, &params);
                best = best.min(t.elapsed().as_secs_f64());
            }
            let s = c.summary(&docs);
            eprintln!(
                "{method:?} {keep:?}: {best:.3} s (best of 3), {} groups, {} files, {} removable",
                s.groups, s.files_in_groups, s.removable_files
            );
        }
    }
}
