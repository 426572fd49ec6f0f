//! Tests of clustering: both methods, every keep policy, the histogram.

use super::*;
use proptest::prelude::*;
use std::cmp::Ordering;
use std::time::{Duration, UNIX_EPOCH};

/// (path, size, modified in seconds since the epoch, reference)
type Spec = (&'static str, u64, Option<u64>, bool);

fn docs(specs: &[Spec]) -> Vec<FileFacts<'static>> {
    specs
        .iter()
        .map(|&(path, size, modified, reference)| FileFacts {
            path: path.as_bytes(),
            size,
            modified: modified.map(|s| UNIX_EPOCH + Duration::from_secs(s)),
            reference,
        })
        .collect()
}

fn plain(paths: &[&'static str]) -> Vec<FileFacts<'static>> {
    docs(
        &paths
            .iter()
            .map(|&p| (p, 10, Some(0), false))
            .collect::<Vec<_>>(),
    )
}

fn pair(a: DocId, b: DocId, similarity: f64) -> ScoredPair {
    ScoredPair { a, b, similarity }
}

fn params(method: ClusterMethod, keep: KeepPolicy) -> ClusterParams {
    ClusterParams {
        threshold: 0.5,
        method,
        keep,
    }
}

/// Groups as lists of (doc, similarity, kept), representative first.
fn shape(c: &Clustering) -> Vec<Vec<(DocId, Option<f64>, bool)>> {
    c.groups()
        .map(|g| g.iter().map(|m| (m.doc, m.similarity, m.kept)).collect())
        .collect()
}

fn representatives(c: &Clustering) -> Vec<DocId> {
    c.groups().map(|g| g[0].doc).collect()
}

// A~B (0.8), B~C (0.7), A≁C: the case that makes connected components unsafe.
fn chain() -> Vec<ScoredPair> {
    vec![pair(0, 1, 0.8), pair(1, 2, 0.7)]
}

#[test]
fn chain_is_one_group_when_connected_and_c_only_linked_through_b() {
    let d = plain(&["a", "b", "c"]);
    let c = cluster(
        &d,
        &chain(),
        &params(ClusterMethod::Connected, KeepPolicy::First),
    );
    assert_eq!(
        shape(&c),
        vec![vec![
            (0, Some(1.0), true),
            (1, Some(0.8), false),
            (2, None, false)
        ]]
    );
}

#[test]
fn chain_under_center_never_groups_a_with_c() {
    let d = plain(&["a", "b", "c"]);
    let c = cluster(
        &d,
        &chain(),
        &params(ClusterMethod::Center, KeepPolicy::First),
    );
    // A is best, claims B; C's only partner is taken, so C stays alone (kept).
    assert_eq!(
        shape(&c),
        vec![vec![(0, Some(1.0), true), (1, Some(0.8), false)]]
    );
    assert_eq!(c.removable().map(|m| m.doc).collect::<Vec<_>>(), vec![1]);
}

#[test]
fn chain_under_center_with_the_middle_best_holds_all_three() {
    // B is largest, so it is the representative and similar to both ends.
    let d = docs(&[
        ("a", 1, None, false),
        ("b", 9, None, false),
        ("c", 1, None, false),
    ]);
    let c = cluster(
        &d,
        &chain(),
        &params(ClusterMethod::Center, KeepPolicy::Largest),
    );
    assert_eq!(
        shape(&c),
        vec![vec![
            (1, Some(1.0), true),
            (0, Some(0.8), false),
            (2, Some(0.7), false)
        ]]
    );
}

#[test]
fn center_member_joins_the_best_representative_it_is_similar_to() {
    // 0~2 and 1~2; 0 and 1 unrelated but both claim 2: the better (0) wins,
    // and 1, left with nothing, forms no group.
    let d = plain(&["a", "b", "c"]);
    let p = [pair(0, 2, 0.6), pair(1, 2, 0.9)];
    let c = cluster(&d, &p, &params(ClusterMethod::Center, KeepPolicy::First));
    assert_eq!(
        shape(&c),
        vec![vec![(0, Some(1.0), true), (2, Some(0.6), false)]]
    );
}

#[test]
fn pairs_below_the_threshold_and_self_pairs_are_ignored() {
    let d = plain(&["a", "b", "c"]);
    let p = [
        pair(0, 1, 0.49),
        pair(1, 2, 0.5),
        pair(0, 0, 1.0),
        pair(2, 0, f64::NAN),
    ];
    for method in [ClusterMethod::Center, ClusterMethod::Connected] {
        let c = cluster(&d, &p, &params(method, KeepPolicy::First));
        assert_eq!(
            shape(&c),
            vec![vec![(1, Some(1.0), true), (2, Some(0.5), false)]]
        );
    }
}

#[test]
fn duplicate_and_reversed_pairs_count_once_with_the_highest_similarity() {
    let d = plain(&["a", "b"]);
    let p = [pair(0, 1, 0.6), pair(1, 0, 0.9), pair(0, 1, 0.7)];
    for method in [ClusterMethod::Center, ClusterMethod::Connected] {
        let c = cluster(&d, &p, &params(method, KeepPolicy::First));
        assert_eq!(
            shape(&c),
            vec![vec![(0, Some(1.0), true), (1, Some(0.9), false)]]
        );
    }
}

#[test]
fn no_pairs_no_groups() {
    let d = plain(&["a"]);
    let c = cluster::<ScoredPair>(&d, &[], &params(ClusterMethod::Center, KeepPolicy::First));
    assert!(c.is_empty());
    assert_eq!(c.groups().count(), 0);
    assert_eq!(c.summary(&d), Summary::default());
}

#[test]
#[should_panic(expected = "pair names document 5 of 2")]
fn a_pair_outside_the_documents_is_a_bug() {
    cluster(
        &plain(&["a", "b"]),
        &[pair(0, 5, 0.9)],
        &params(ClusterMethod::Center, KeepPolicy::First),
    );
}

#[test]
fn groups_follow_representative_id_and_members_follow_id() {
    // Two groups; representatives chosen by largest are 4 and 1.
    let d = docs(&[
        ("g1/a", 1, None, false),
        ("g2/rep", 9, None, false),
        ("g1/b", 1, None, false),
        ("g2/x", 1, None, false),
        ("g1/rep", 5, None, false),
    ]);
    let p = [
        pair(0, 4, 0.9),
        pair(2, 4, 0.8),
        pair(0, 2, 0.8),
        pair(1, 3, 0.6),
    ];
    for method in [ClusterMethod::Center, ClusterMethod::Connected] {
        let c = cluster(&d, &p, &params(method, KeepPolicy::Largest));
        assert_eq!(
            shape(&c),
            vec![
                vec![(1, Some(1.0), true), (3, Some(0.6), false)],
                vec![
                    (4, Some(1.0), true),
                    (0, Some(0.9), false),
                    (2, Some(0.8), false)
                ],
            ],
            "{method:?}"
        );
        assert_eq!(c.group(1)[0].doc, 4);
        assert!(
            c.groups()
                .all(|g| g[0].representative && g[1..].iter().all(|m| !m.representative))
        );
    }
}

/// Keeps among a fully similar group of `specs` under `keep`.
fn kept_under(specs: &[Spec], keep: KeepPolicy) -> DocId {
    let d = docs(specs);
    let n = d.len() as DocId;
    let p: Vec<_> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| pair(a, b, 0.9)))
        .collect();
    let mut reps = Vec::new();
    for method in [ClusterMethod::Center, ClusterMethod::Connected] {
        let c = cluster(&d, &p, &params(method, keep));
        assert_eq!(c.len(), 1);
        reps.push(c.group(0)[0].doc);
    }
    assert_eq!(
        reps[0], reps[1],
        "both methods pick the same representative"
    );
    reps[0]
}

#[test]
fn newest_keeps_the_latest_time_and_never_an_unknown_one() {
    let specs = [
        ("a", 1, None, false),
        ("b", 1, Some(5), false),
        ("c", 1, Some(7), false),
    ];
    assert_eq!(kept_under(&specs, KeepPolicy::Newest), 2);
}

#[test]
fn oldest_keeps_the_earliest_time_and_never_an_unknown_one() {
    let specs = [
        ("a", 1, None, false),
        ("b", 1, Some(7), false),
        ("c", 1, Some(5), false),
    ];
    assert_eq!(kept_under(&specs, KeepPolicy::Oldest), 2);
    // Only unknown times: falls through to the first.
    let unknown = [("a", 1, None, false), ("b", 1, None, false)];
    assert_eq!(kept_under(&unknown, KeepPolicy::Oldest), 0);
    assert_eq!(kept_under(&unknown, KeepPolicy::Newest), 0);
}

#[test]
fn largest_and_smallest_compare_sizes() {
    let specs = [
        ("a", 5, None, false),
        ("b", 9, None, false),
        ("c", 2, None, false),
    ];
    assert_eq!(kept_under(&specs, KeepPolicy::Largest), 1);
    assert_eq!(kept_under(&specs, KeepPolicy::Smallest), 2);
}

#[test]
fn shortest_path_counts_bytes_not_characters() {
    // "é" is two bytes: "xé" (3 bytes) is longer than "xy" (2 bytes).
    let specs = [
        ("long/path", 1, None, false),
        ("xé", 1, None, false),
        ("xy", 1, None, false),
    ];
    assert_eq!(kept_under(&specs, KeepPolicy::ShortestPath), 2);
}

#[test]
fn first_keeps_the_smallest_id_whatever_else() {
    let specs = [("zzz/long", 1, Some(1), false), ("a", 9, Some(9), false)];
    assert_eq!(kept_under(&specs, KeepPolicy::First), 0);
}

#[test]
fn every_policy_breaks_ties_by_id() {
    // All equal in every key: the first id wins whatever the policy, even
    // when the paths sort the other way.
    let specs = [
        ("q", 3, Some(3), false),
        ("b", 3, Some(3), false),
        ("a", 3, Some(3), false),
    ];
    for keep in ALL_POLICIES {
        assert_eq!(kept_under(&specs, keep), 0, "{keep:?}");
    }
    // Tie on the policy key between 1 and 2 only: 1 wins.
    let specs = [
        ("long-one", 1, Some(1), false),
        ("bb", 8, Some(8), false),
        ("cc", 8, Some(8), false),
    ];
    for keep in [
        KeepPolicy::Newest,
        KeepPolicy::Largest,
        KeepPolicy::ShortestPath,
    ] {
        assert_eq!(kept_under(&specs, keep), 1, "{keep:?}");
    }
}

const ALL_POLICIES: [KeepPolicy; 7] = [
    KeepPolicy::Original,
    KeepPolicy::Newest,
    KeepPolicy::Oldest,
    KeepPolicy::Largest,
    KeepPolicy::Smallest,
    KeepPolicy::ShortestPath,
    KeepPolicy::First,
];

#[test]
fn a_reference_file_beats_every_policy() {
    // Doc 2 is a reference and loses on every policy key.
    let specs = [
        ("a", 9, Some(9), false),
        ("b", 1, Some(1), false),
        ("ref/archive/long/c", 5, None, true),
    ];
    for keep in ALL_POLICIES {
        assert_eq!(kept_under(&specs, keep), 2, "{keep:?}");
    }
}

#[test]
fn reference_files_are_kept_and_never_removable() {
    // Two references and two new files, all similar; plus a reference chain.
    let d = docs(&[
        ("new/a", 1, Some(1), false),
        ("ref/x", 1, Some(1), true),
        ("new/b", 1, Some(1), false),
        ("ref/y", 1, Some(1), true),
    ]);
    let p = [
        pair(0, 1, 0.9),
        pair(0, 2, 0.9),
        pair(0, 3, 0.9),
        pair(1, 2, 0.9),
        pair(1, 3, 0.9),
        pair(2, 3, 0.9),
    ];
    for method in [ClusterMethod::Center, ClusterMethod::Connected] {
        for keep in ALL_POLICIES {
            let c = cluster(&d, &p, &params(method, keep));
            assert_eq!(representatives(&c), vec![1]);
            let kept: Vec<_> = c
                .members()
                .iter()
                .filter(|m| m.kept)
                .map(|m| m.doc)
                .collect();
            assert_eq!(kept, vec![1, 3]);
            let removable: Vec<_> = c.removable().map(|m| m.doc).collect();
            assert_eq!(removable, vec![0, 2]);
        }
    }
}

#[test]
fn a_group_of_only_references_removes_nothing() {
    let d = docs(&[("r/a", 4, None, true), ("r/b", 6, None, true)]);
    let c = cluster(
        &d,
        &[pair(0, 1, 1.0)],
        &params(ClusterMethod::Center, KeepPolicy::First),
    );
    assert_eq!(c.len(), 1);
    assert_eq!(c.removable().count(), 0);
    assert_eq!(
        c.summary(&d),
        Summary {
            groups: 1,
            files_in_groups: 2,
            removable_files: 0,
            removable_bytes: 0,
            held_back_files: 0,
        }
    );
}

#[test]
fn summary_counts_bytes_of_removable_members_only() {
    let d = docs(&[
        ("a", 100, None, false),
        ("b", 20, None, false),
        ("c", 3, None, true),
        ("d", 4000, None, false),
    ]);
    let p = [pair(0, 1, 0.9), pair(0, 2, 0.9), pair(1, 2, 0.9)];
    let c = cluster(&d, &p, &params(ClusterMethod::Center, KeepPolicy::Largest));
    // Reference c is representative; a and b removable; d is in no group.
    assert_eq!(
        c.summary(&d),
        Summary {
            groups: 1,
            files_in_groups: 3,
            removable_files: 2,
            removable_bytes: 120,
            held_back_files: 0,
        }
    );
}

#[test]
fn members_missing_from_their_kept_copy_are_held_back() {
    use super::removal::{MAX_UNIQUE, OnlyIn};
    let d = docs(&[
        ("a", 100, None, false),
        ("b", 100, None, false),
        ("c", 100, None, false),
        ("d", 100, None, false),
    ]);
    let p = [pair(0, 1, 0.95), pair(0, 2, 0.95), pair(0, 3, 0.95)];
    let mut c = cluster(&d, &p, &params(ClusterMethod::Center, KeepPolicy::First));
    assert!(!c.measured());
    let pairs: Vec<_> = c.removal_pairs().collect();
    assert_eq!(pairs, vec![(1, 0), (2, 0), (3, 0)]);
    let unique = OnlyIn {
        share: 0.073,
        shingles: 73,
        bytes: 7,
    };
    let held = c.hold_back(
        [(1, Some(OnlyIn::IDENTICAL)), (2, Some(unique)), (3, None)],
        MAX_UNIQUE,
    );
    assert_eq!(held.len(), 2);
    assert_eq!((held[0].doc, held[0].representative), (2, 0));
    assert_eq!(held[0].only_in, Some(unique));
    assert_eq!(held[1].only_in, None);
    assert_eq!(c.removable().map(|m| m.doc).collect::<Vec<_>>(), vec![1]);
    assert_eq!(c.only_in(2), Some(Some(unique)));
    assert_eq!(c.only_in(0), None);
    let summary = c.summary(&d);
    assert_eq!((summary.removable_files, summary.held_back_files), (1, 2));
}

#[test]
fn histogram_buckets_agree_with_decimal_filters() {
    let mut h = SimilarityHistogram::default();
    for s in [
        0.5,
        0.49999999999999994,
        0.7,
        0.7 - f64::EPSILON,
        0.9999999999999999,
        1.0,
        0.3,
        0.0,
    ] {
        h.add(s);
    }
    let counts: Vec<u64> = h.buckets().map(|b| b.count).collect();
    assert_eq!(counts, vec![1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1]);
    assert_eq!(h.total(), 8);
    let last = h.buckets().last().unwrap();
    assert_eq!((last.lower, last.upper), (1.0, 1.0));
}

#[test]
fn histogram_shows_from_half_unless_pairs_go_lower() {
    let h = SimilarityHistogram::from_pairs(&[pair(0, 1, 0.95), pair(0, 2, 1.0)]);
    let lowers: Vec<f64> = h.shown_buckets().map(|b| b.lower).collect();
    assert_eq!(lowers, vec![0.5, 0.6, 0.7, 0.8, 0.9, 1.0]);
    let h = SimilarityHistogram::from_pairs(&[pair(0, 1, 0.35)]);
    assert_eq!(h.shown_buckets().next().unwrap().lower, 0.3);
}

/// A random graph: `n` documents with random sizes, times and reference
/// flags, and random pairs with similarities around the threshold.
fn random_input(seed: u64, n: u32, edges: usize) -> (Vec<FileFacts<'static>>, Vec<ScoredPair>) {
    // SplitMix64: a fixed, dependency-free generator for a fixed seed.
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    const PATHS: [&str; 4] = ["a", "bb", "ccc", "dddd"];
    let d = (0..n)
        .map(|_| FileFacts {
            path: PATHS[(next() % 4) as usize].as_bytes(),
            size: next() % 4,
            modified: (next() % 5 != 0).then(|| UNIX_EPOCH + Duration::from_secs(next() % 4)),
            reference: next() % 10 == 0,
        })
        .collect();
    let p = (0..edges)
        .map(|_| {
            let a = (next() % n as u64) as u32;
            let b = (next() % n as u64) as u32;
            let similarity = [0.4, 0.5, 0.6, 0.75, 0.9, 1.0][(next() % 6) as usize];
            pair(a.min(b), a.max(b), similarity)
        })
        .collect();
    (d, p)
}

#[test]
fn same_result_whatever_the_threads_and_the_pair_order() {
    let (d, p) = random_input(7, 3000, 2000);
    let mut reversed = p.clone();
    reversed.reverse();
    let run = |threads: usize, pairs: &[ScoredPair], prm: &ClusterParams| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| cluster(&d, pairs, prm))
    };
    for method in [ClusterMethod::Center, ClusterMethod::Connected] {
        for keep in ALL_POLICIES {
            let prm = params(method, keep);
            let one = run(1, &p, &prm);
            assert!(one.len() > 100, "the test graph should have many groups");
            assert_eq!(one, run(4, &p, &prm), "{method:?} {keep:?}");
            assert_eq!(one, run(4, &reversed, &prm), "{method:?} {keep:?}");
        }
    }
}

/// The edges `≥ t` as a set of unordered pairs with their best similarity.
fn edge_map(p: &[ScoredPair], t: f64) -> std::collections::BTreeMap<(u32, u32), f64> {
    let mut m = std::collections::BTreeMap::new();
    for q in p.iter().filter(|q| q.a != q.b && q.similarity >= t) {
        let e = m
            .entry((q.a.min(q.b), q.a.max(q.b)))
            .or_insert(q.similarity);
        *e = e.max(q.similarity);
    }
    m
}

fn best(d: &[FileFacts<'_>], keep: KeepPolicy, ids: impl Iterator<Item = DocId>) -> DocId {
    ids.min_by(|&x, &y| keep.compare((x, &d[x as usize]), (y, &d[y as usize])))
        .unwrap()
}

fn policy() -> impl Strategy<Value = KeepPolicy> {
    prop::sample::select(ALL_POLICIES.to_vec())
}

/// The keep order written the plain way, as the oracle for the sort key.
fn naive_compare(
    keep: KeepPolicy,
    x: (DocId, &FileFacts<'_>),
    y: (DocId, &FileFacts<'_>),
) -> Ordering {
    let (xd, yd) = (x.1, y.1);
    let known_first = |desc: bool| match (xd.modified, yd.modified) {
        (Some(a), Some(b)) if desc => b.cmp(&a),
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    yd.reference
        .cmp(&xd.reference)
        .then_with(|| match keep {
            KeepPolicy::Newest => known_first(true),
            KeepPolicy::Oldest => known_first(false),
            KeepPolicy::Largest => yd.size.cmp(&xd.size),
            KeepPolicy::Smallest => xd.size.cmp(&yd.size),
            KeepPolicy::ShortestPath => xd.path.len().cmp(&yd.path.len()),
            KeepPolicy::First => Ordering::Equal,
            KeepPolicy::Original => super::copy_marker(xd.path)
                .cmp(&super::copy_marker(yd.path))
                .then(xd.path.len().cmp(&yd.path.len()))
                .then(known_first(false)),
        })
        .then(x.0.cmp(&y.0))
}

#[test]
fn times_before_the_epoch_and_within_a_second_order_correctly() {
    let at = |secs: i64, nanos: u32| {
        let t = if secs >= 0 {
            UNIX_EPOCH + Duration::from_secs(secs as u64)
        } else {
            UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
        };
        t + Duration::from_nanos(nanos as u64)
    };
    let times = [
        at(-5, 0),
        at(-5, 1),
        at(-1, 999_999_999),
        at(0, 0),
        at(0, 1),
        at(7, 3),
    ];
    let paths = ["p"; 6];
    let d: Vec<FileFacts> = times
        .iter()
        .zip(paths)
        .map(|(&t, p)| FileFacts {
            path: p.as_bytes(),
            size: 0,
            modified: Some(t),
            reference: false,
        })
        .collect();
    for (i, x) in d.iter().enumerate() {
        for (j, y) in d.iter().enumerate() {
            let (xi, yi) = (i as DocId, j as DocId);
            assert_eq!(KeepPolicy::Oldest.compare((xi, x), (yi, y)), i.cmp(&j));
            assert_eq!(KeepPolicy::Newest.compare((xi, x), (yi, y)), j.cmp(&i));
        }
    }
}

proptest! {
    // A fixed seed and no regression file: a failure reproduces on any clone.
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xC1A5_7E01),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]
    #[test]
    fn keep_key_orders_like_the_plain_definition(
        raw in prop::collection::vec((any::<bool>(), 0u64..3, prop::option::of((-3i64..3, 0u32..3)), 0usize..5), 2..12),
    ) {
        // Two names with a copy marker, so that `original`'s marker rule is
        // met in both directions against every other rule.
        const PATHS: [&str; 5] = ["a", "bb", "ccc", "a~", "b copy"];
        let d: Vec<FileFacts> = raw
            .iter()
            .map(|&(reference, size, t, p)| FileFacts {
                path: PATHS[p].as_bytes(),
                size: if size == 2 { u64::MAX } else { size },
                modified: t.map(|(s, n)| {
                    let base = if s >= 0 { UNIX_EPOCH + Duration::from_secs(s as u64) } else { UNIX_EPOCH - Duration::from_secs(s.unsigned_abs()) };
                    base + Duration::from_nanos(n as u64 * 400_000_000)
                }),
                reference,
            })
            .collect();
        for keep in ALL_POLICIES {
            for (i, x) in d.iter().enumerate() {
                for (j, y) in d.iter().enumerate() {
                    let (x, y) = ((i as DocId, x), (j as DocId, y));
                    prop_assert_eq!(keep.compare(x, y), naive_compare(keep, x, y), "{:?}", keep);
                }
            }
        }
    }

    #[test]
    fn connected_matches_a_search_oracle(seed in any::<u64>(), n in 2u32..40, e in 0usize..80, keep in policy()) {
        let (d, p) = random_input(seed, n, e);
        let c = cluster(&d, &p, &params(ClusterMethod::Connected, keep));
        let edges = edge_map(&p, 0.5);
        // Oracle: depth-first search over the edge set.
        let mut seen = vec![false; n as usize];
        let mut expected = Vec::new();
        for start in 0..n {
            if seen[start as usize] { continue; }
            let mut comp = vec![start];
            seen[start as usize] = true;
            let mut i = 0;
            while i < comp.len() {
                let x = comp[i];
                for (&(a, b), _) in edges.iter().filter(|((a, b), _)| *a == x || *b == x) {
                    let y = if a == x { b } else { a };
                    if !seen[y as usize] { seen[y as usize] = true; comp.push(y); }
                }
                i += 1;
            }
            if comp.len() >= 2 {
                let rep = best(&d, keep, comp.iter().copied());
                comp.retain(|&x| x != rep);
                comp.sort();
                let mut group = vec![(rep, Some(1.0), true)];
                for x in comp {
                    let s = edges.get(&(rep.min(x), rep.max(x))).copied();
                    group.push((x, s, d[x as usize].reference));
                }
                expected.push(group);
            }
        }
        expected.sort_by_key(|g| g[0].0);
        prop_assert_eq!(shape(&c), expected);
    }

    #[test]
    fn center_follows_its_definition(seed in any::<u64>(), n in 2u32..40, e in 0usize..80, keep in policy()) {
        let (d, p) = random_input(seed, n, e);
        let c = cluster(&d, &p, &params(ClusterMethod::Center, keep));
        let edges = edge_map(&p, 0.5);
        let sim = |x: DocId, y: DocId| edges.get(&(x.min(y), x.max(y))).copied();
        let mut group_of = vec![None; n as usize];
        for (gi, g) in c.groups().enumerate() {
            prop_assert!(g.len() >= 2);
            let rep = g[0].doc;
            for m in g {
                prop_assert!(group_of[m.doc as usize].is_none(), "groups are disjoint");
                group_of[m.doc as usize] = Some(gi);
                prop_assert_eq!(m.kept, m.doc == rep || d[m.doc as usize].reference);
                if m.doc != rep {
                    // The invariant the method exists for.
                    prop_assert_eq!(m.similarity, sim(rep, m.doc));
                    prop_assert!(m.similarity.unwrap() >= 0.5);
                    // Not similar to any better representative.
                    for h in c.groups().take(c.len()).map(|h| h[0].doc) {
                        if h != rep && sim(h, m.doc).is_some() {
                            prop_assert_eq!(keep.compare((rep, &d[rep as usize]), (h, &d[h as usize])), Ordering::Less);
                        }
                    }
                }
            }
        }
        // Greedy is maximal: an ungrouped document with partners has only
        // grouped partners, each in the group of a better representative.
        for x in 0..n {
            if group_of[x as usize].is_some() { continue; }
            for (&(a, b), _) in edges.iter().filter(|((a, b), _)| *a == x || *b == x) {
                let y = if a == x { b } else { a };
                let gy = group_of[y as usize];
                prop_assert!(gy.is_some(), "{} and {} similar but both ungrouped", x, y);
                let r = c.group(gy.unwrap())[0].doc;
                prop_assert_eq!(keep.compare((r, &d[r as usize]), (x, &d[x as usize])), Ordering::Less);
            }
        }
    }
}

/// Random pairs held per content: documents `0..n` spread over contents,
/// some contents reporting their identical pairs, random pairs of contents.
fn random_contents(seed: u64, n: u32, contents: u32, edges: usize) -> crate::model::DocPairs {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut members = vec![Vec::new(); contents as usize];
    for d in 0..n {
        members[(next() % contents as u64) as usize].push(d);
    }
    let fields = |similarity| crate::model::SimilarPair {
        a: 0,
        b: 0,
        similarity,
        estimate: None,
        shared: None,
    };
    let same: Vec<_> = (0..contents)
        .map(|_| (next() % 3 != 0).then(|| fields(1.0)))
        .collect();
    let mut between: Vec<crate::model::SimilarPair> = (0..edges)
        .map(|_| {
            let (a, b) = (
                (next() % contents as u64) as u32,
                (next() % contents as u64) as u32,
            );
            let similarity = [0.4, 0.5, 0.6, 0.75, 0.9, 1.0][(next() % 6) as usize];
            crate::model::SimilarPair {
                a: a.min(b),
                b: a.max(b),
                ..fields(similarity)
            }
        })
        .filter(|p| p.a != p.b)
        .collect();
    between.sort_by_key(|p| (p.a, p.b));
    between.dedup_by_key(|p| (p.a, p.b));
    crate::model::DocPairs::new(members.iter().map(Vec::as_slice).zip(same), between)
}

proptest! {
    // A fixed seed and no regression file: a failure reproduces on any clone.
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xC1A5_7E02),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]
    #[test]
    fn clustering_per_content_matches_clustering_every_pair(
        seed in any::<u64>(), n in 2u32..40, contents in 1u32..12, e in 0usize..20,
        keep in policy(), threshold in prop::sample::select(vec![0.5, 0.8, 1.0]),
    ) {
        let (d, _) = random_input(seed, n, 0);
        let held = random_contents(seed ^ 1, n, contents, e);
        let listed: Vec<crate::model::SimilarPair> = held.iter().collect();
        for method in [ClusterMethod::Center, ClusterMethod::Connected] {
            let params = ClusterParams { threshold, method, keep };
            prop_assert_eq!(cluster_contents(&d, &held, &params), cluster(&d, &listed, &params), "{:?}", method);
        }
    }
}

#[test]
fn ten_thousand_copies_group_without_listing_their_pairs() {
    // 5·10⁷ pairs of documents: listing them would take 2.4 GB; held per
    // content they are one list of 10,000 ids.
    let members: Vec<u32> = (0..10_000).collect();
    let same = crate::model::SimilarPair {
        a: 0,
        b: 0,
        similarity: 1.0,
        estimate: None,
        shared: None,
    };
    let held = crate::model::DocPairs::new([(members.as_slice(), Some(same))], Vec::new());
    let paths: Vec<String> = (0..10_000).map(|i| format!("{i:05}")).collect();
    let d: Vec<FileFacts> = paths
        .iter()
        .map(|p| FileFacts {
            path: p.as_bytes(),
            size: 1,
            modified: None,
            reference: false,
        })
        .collect();
    let c = cluster_contents(&d, &held, &params(ClusterMethod::Center, KeepPolicy::First));
    assert_eq!(c.len(), 1);
    assert_eq!(c.group(0).len(), 10_000);
    assert_eq!(c.removable().count(), 9_999);
}
