//! Tests of verification: the agreement cut against the binomial tail, and
//! the streaming verifier against brute force with tracked loads.

mod basics {
    use super::super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// `P[Binomial(n, p) < m]`, summed in log space.
    fn binomial_below(n: usize, p: f64, m: usize) -> f64 {
        let ln_choose = |k: usize| -> f64 {
            (1..=k)
                .map(|i| ((n - k + i) as f64).ln() - (i as f64).ln())
                .sum()
        };
        (0..m)
            .map(|k| (ln_choose(k) + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp())
            .sum()
    }

    #[test]
    fn agreements_needed_misses_at_most_the_allowed_share_at_the_threshold() {
        for (n, t, miss) in [
            (100, 0.8, 1e-6),
            (96, 0.8, 3.5e-6),
            (100, 0.5, 5e-3),
            (128, 0.9, 1e-9),
            (20, 0.6, 1e-2),
        ] {
            let m = agreements_needed(n, t, miss);
            assert!(m > 0 && (m as f64) < n as f64 * t, "{n} {t} {miss}: {m}");
            // The exact tail at the threshold is within the bound, and so is
            // every similarity above it.
            for j in [t, (t + 1.0) / 2.0] {
                let p = binomial_below(n, j, m);
                assert!(p <= miss, "{n} {t} {miss}: P[X < {m}] = {p:e} at J = {j}");
            }
            // Not vacuous: one more agreement needed would still be a rare
            // miss (within 10 000 × the allowance), so the cut is near the tail.
            assert!(binomial_below(n, t, m + 1) <= miss * 1e4, "{n} {t} {miss}");
        }
    }

    #[test]
    fn ruled_out_is_the_scan_of_agreements_needed() {
        for n in [0, 1, 20, 64, 128, 256] {
            for t in [0.0, 0.003, 0.05, 0.3, 0.5, 0.7, 0.9, 0.999, 1.0] {
                for miss in [0.0, 1e-9, 1e-3, 0.01, 0.5, 1.0] {
                    let needed = agreements_needed(n, t, miss);
                    for agree in 0..=n {
                        assert_eq!(
                            ruled_out(agree, n, t, miss),
                            agree < needed,
                            "n {n} t {t} miss {miss} agree {agree} needed {needed}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn agreements_needed_at_the_edges() {
        assert_eq!(
            agreements_needed(100, 0.8, 0.0),
            0,
            "no miss allowed: no cut"
        );
        assert_eq!(agreements_needed(0, 0.8, 1e-6), 0);
        assert_eq!(agreements_needed(100, 0.0, 1e-6), 0);
        // J = 1 agrees everywhere: anything less is ruled out.
        assert_eq!(agreements_needed(100, 1.0, 1e-6), 100);
        // A larger allowance never needs fewer agreements.
        let cuts: Vec<usize> = [1e-12, 1e-9, 1e-6, 1e-3, 1e-1]
            .iter()
            .map(|&miss| agreements_needed(100, 0.8, miss))
            .collect();
        assert!(cuts.windows(2).all(|w| w[0] <= w[1]), "{cuts:?}");
    }

    fn corpus() -> Vec<Vec<u64>> {
        vec![
            (0..100).collect(),
            (10..110).collect(),  // J with 0 = 90/110
            (0..100).collect(),   // identical to 0
            (500..600).collect(), // unrelated
        ]
    }

    #[test]
    fn keeps_pairs_at_or_above_threshold() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2)];
        let out = verify_exact(
            &pairs,
            90.0 / 110.0,
            1 << 20,
            |_| 800,
            |d| Ok::<_, ()>(sets[d as usize].clone()),
        );
        let got: Vec<(u32, u32, usize)> = out.pairs.iter().map(|p| (p.a, p.b, p.shared)).collect();
        assert_eq!(got, vec![(0, 1, 90), (0, 2, 100), (1, 2, 90)]);
    }

    #[test]
    fn loads_each_document_once_when_the_budget_allows() {
        let sets = corpus();
        let loads = AtomicUsize::new(0);
        let pairs = [(0, 1), (0, 2), (1, 2), (2, 3)];
        verify_exact(
            &pairs,
            0.5,
            1 << 20,
            |_| 800,
            |d| {
                loads.fetch_add(1, Ordering::Relaxed);
                Ok::<_, ()>(sets[d as usize].clone())
            },
        );
        assert_eq!(loads.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn tiny_budget_gives_the_same_answer() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        let load = |d: u32| Ok::<_, ()>(sets[d as usize].clone());
        let roomy = verify_exact(&pairs, 0.5, 1 << 20, |_| 800, load);
        let tight = verify_exact(&pairs, 0.5, 1000, |_| 800, load);
        assert_eq!(roomy.pairs, tight.pairs);
    }

    #[test]
    fn failed_loads_drop_their_pairs_and_are_reported_once() {
        let sets = corpus();
        let pairs = [(0, 1), (0, 2), (1, 2)];
        let out = verify_exact(
            &pairs,
            0.5,
            1 << 20,
            |_| 800,
            |d| {
                if d == 1 {
                    Err("gone")
                } else {
                    Ok(sets[d as usize].clone())
                }
            },
        );
        assert_eq!(
            out.pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(),
            vec![(0, 2)]
        );
        assert_eq!(out.failures, vec![(1, "gone")]);
    }
}

/// The new verifier against brute force on random candidate graphs, with
/// tracked loads: how often each document is loaded and how many bytes of
/// sets are alive at once (counted by the loaded values' `Drop`).
mod streaming_tests {
    use super::super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// What a tracked loader saw.
    #[derive(Default)]
    struct Tracker {
        loads: Mutex<Vec<u32>>,
        alive: AtomicUsize,
        peak: AtomicUsize,
    }

    /// A loaded set that reports its bytes as alive until dropped.
    struct Tracked<'t> {
        set: Vec<u64>,
        bytes: usize,
        tracker: &'t Tracker,
    }

    impl AsRef<[u64]> for Tracked<'_> {
        fn as_ref(&self) -> &[u64] {
            &self.set
        }
    }

    impl Drop for Tracked<'_> {
        fn drop(&mut self) {
            self.tracker.alive.fetch_sub(self.bytes, Ordering::SeqCst);
        }
    }

    fn bytes_of(set: &[u64]) -> usize {
        8 * set.len()
    }

    /// Runs the verifier with a tracked loader; `fails` lists documents whose
    /// load fails.
    fn run(
        sets: &[Vec<u64>],
        pairs: &[(u32, u32)],
        threshold: f64,
        budget: Budget,
        fails: &[u32],
    ) -> (ExactVerification<u32>, Tracker) {
        let tracker = Tracker::default();
        let out = verify_exact(
            pairs,
            threshold,
            budget,
            |d| bytes_of(&sets[d as usize]),
            |d| {
                tracker.loads.lock().unwrap().push(d);
                if fails.contains(&d) {
                    return Err(d);
                }
                let set = sets[d as usize].clone();
                let bytes = bytes_of(&set);
                let now = tracker.alive.fetch_add(bytes, Ordering::SeqCst) + bytes;
                tracker.peak.fetch_max(now, Ordering::SeqCst);
                Ok(Tracked {
                    set,
                    bytes,
                    tracker: &tracker,
                })
            },
        );
        assert_eq!(tracker.alive.load(Ordering::SeqCst), 0, "every set dropped");
        (out, tracker)
    }

    /// What the verifier must return: every listed pair that reaches the
    /// threshold and whose documents both load, sorted (the old block-wise
    /// verifier's answer).
    fn expected(
        sets: &[Vec<u64>],
        pairs: &[(u32, u32)],
        threshold: f64,
        fails: &[u32],
    ) -> Vec<(u32, u32, usize)> {
        let mut out: Vec<(u32, u32, usize)> = pairs
            .iter()
            .filter(|(a, b)| !fails.contains(a) && !fails.contains(b))
            .filter(|&&(a, b)| jaccard(&sets[a as usize], &sets[b as usize]) >= threshold)
            .map(|&(a, b)| {
                (
                    a,
                    b,
                    intersection_size(&sets[a as usize], &sets[b as usize]),
                )
            })
            .collect();
        out.sort_unstable();
        out
    }

    fn got(out: &ExactVerification<u32>) -> Vec<(u32, u32, usize)> {
        out.pairs.iter().map(|p| (p.a, p.b, p.shared)).collect()
    }

    /// `count` sets of 10 values; set `i` shares 9 of them with set `i ± 1`
    /// in `chain` order, so consecutive chain members have J = 9/11.
    fn chain_sets(chain: &[u32]) -> Vec<Vec<u64>> {
        let mut sets = vec![Vec::new(); chain.len()];
        for (k, &d) in chain.iter().enumerate() {
            sets[d as usize] = (k as u64..k as u64 + 10).collect();
        }
        sets
    }

    #[test]
    fn clusters_with_far_apart_ids_are_loaded_once_within_the_working_budget() {
        // 8 clusters of 11 near-copies each; member k of cluster c has id
        // c + 8k, like one page in 11 releases walked in path order.
        let (clusters, copies) = (8u32, 11u32);
        let id = |c: u32, k: u32| c + clusters * k;
        let mut sets = vec![Vec::new(); (clusters * copies) as usize];
        let mut pairs = Vec::new();
        for c in 0..clusters {
            for k in 0..copies {
                sets[id(c, k) as usize] =
                    (1000 * c as u64..1000 * c as u64 + 20 + k as u64).collect();
                for l in k + 1..copies {
                    pairs.push((id(c, k).min(id(c, l)), id(c, k).max(id(c, l))));
                }
            }
        }
        pairs.sort_unstable();
        let cluster_bytes = (0..copies).map(|k| 8 * (20 + k as usize)).sum::<usize>();
        // Room for two clusters, not for all eight (a window over ids would
        // need all of them: every cluster spans the whole id range).
        let budget = Budget {
            working: 2 * cluster_bytes,
            cap: 2 * cluster_bytes,
        };
        let (out, tracker) = run(&sets, &pairs, 0.8, budget, &[]);
        assert_eq!(got(&out), expected(&sets, &pairs, 0.8, &[]));
        let mut loads = tracker.loads.into_inner().unwrap();
        loads.sort_unstable();
        assert_eq!(
            loads,
            (0..clusters * copies).collect::<Vec<_>>(),
            "each once"
        );
        assert!(tracker.peak.load(Ordering::SeqCst) <= budget.working);
    }

    #[test]
    fn a_chain_with_scattered_ids_is_streamed_in_breadth_first_order() {
        // 60 documents in a chain whose ids are a scrambled permutation: in id
        // order every set stays alive until the far end of the chain is
        // loaded; breadth-first, at most three are needed at once.
        let chain: Vec<u32> = (0..60u32).map(|k| (k * 37) % 60).collect();
        let sets = chain_sets(&chain);
        let mut pairs: Vec<(u32, u32)> = chain
            .windows(2)
            .map(|w| (w[0].min(w[1]), w[0].max(w[1])))
            .collect();
        pairs.sort_unstable();
        let budget = Budget::from(3 * 80);
        let (out, tracker) = run(&sets, &pairs, 0.8, budget, &[]);
        assert_eq!(got(&out), expected(&sets, &pairs, 0.8, &[]));
        assert_eq!(out.pairs.len(), 59);
        assert_eq!(tracker.loads.into_inner().unwrap().len(), 60, "each once");
        assert!(tracker.peak.load(Ordering::SeqCst) <= 3 * 80);
    }

    #[test]
    fn a_component_over_the_working_budget_uses_the_cap_and_still_loads_once() {
        let chain: Vec<u32> = (0..10).collect();
        let sets = chain_sets(&chain);
        // A clique: its window is all ten sets (800 bytes).
        let pairs: Vec<(u32, u32)> = (0..10)
            .flat_map(|a| (a + 1..10).map(move |b| (a, b)))
            .collect();
        let budget = Budget {
            working: 200,
            cap: 800,
        };
        let (out, tracker) = run(&sets, &pairs, 0.5, budget, &[]);
        assert_eq!(got(&out), expected(&sets, &pairs, 0.5, &[]));
        assert_eq!(tracker.loads.into_inner().unwrap().len(), 10);
        assert!(tracker.peak.load(Ordering::SeqCst) <= 800);
    }

    #[test]
    fn a_component_over_the_cap_is_verified_in_blocks_within_it() {
        let chain: Vec<u32> = (0..10).collect();
        let sets = chain_sets(&chain);
        let pairs: Vec<(u32, u32)> = (0..10)
            .flat_map(|a| (a + 1..10).map(move |b| (a, b)))
            .collect();
        let budget = Budget::from(320);
        let (out, tracker) = run(&sets, &pairs, 0.5, budget, &[]);
        assert_eq!(got(&out), expected(&sets, &pairs, 0.5, &[]));
        assert!(
            tracker.loads.into_inner().unwrap().len() > 10,
            "blocks re-loaded"
        );
        assert!(tracker.peak.load(Ordering::SeqCst) <= 320);
    }

    #[test]
    fn output_does_not_depend_on_the_thread_count() {
        let chain: Vec<u32> = (0..40u32).map(|k| (k * 17) % 40).collect();
        let sets = chain_sets(&chain);
        let mut pairs: Vec<(u32, u32)> = (0..40u32)
            .flat_map(|a| (a + 1..40).map(move |b| (a, b)))
            .filter(|&(a, b)| (a * b) % 3 != 1)
            .collect();
        pairs.sort_unstable();
        let with = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let (out, _) = run(&sets, &pairs, 0.3, Budget::from(400), &[3, 17]);
                (out.pairs, out.failures)
            })
        };
        assert_eq!(with(1), with(4));
    }

    /// A random corpus: sets drawn from a small universe (so that many pairs
    /// are similar) and a random candidate graph over them, plus a clique of
    /// the first `giant` documents (one component larger than small budgets).
    fn corpus() -> impl Strategy<Value = (Vec<Vec<u64>>, Vec<(u32, u32)>)> {
        (2usize..40)
            .prop_flat_map(|docs| {
                (
                    prop::collection::vec(prop::collection::btree_set(0u64..40, 0..25), docs),
                    prop::collection::vec((0..docs as u32, 0..docs as u32), 0..80),
                    0..docs.min(12),
                )
            })
            .prop_map(|(sets, raw, giant)| {
                let sets: Vec<Vec<u64>> =
                    sets.into_iter().map(|s| s.into_iter().collect()).collect();
                let mut pairs: Vec<(u32, u32)> = raw
                    .into_iter()
                    .filter(|(a, b)| a != b)
                    .map(|(a, b)| (a.min(b), a.max(b)))
                    .chain(
                        (0..giant as u32).flat_map(|a| (a + 1..giant as u32).map(move |b| (a, b))),
                    )
                    .collect();
                pairs.sort_unstable();
                pairs.dedup();
                (sets, pairs)
            })
    }

    proptest! {
        #![proptest_config(Config {
            cases: 400,
            rng_seed: RngSeed::Fixed(0x7E41_F1ED),
            failure_persistence: None,
            ..Config::default()
        })]

        /// Same pairs as brute force (the old verifier's answer) under any
        /// budgets, with failing loads; never more than the cap alive (or two
        /// of the largest sets, when one set alone exceeds half the cap); and
        /// each document loaded once when the cap holds all sets.
        #[test]
        fn streaming_equals_brute_force_within_the_budget(
            (sets, pairs) in corpus(),
            threshold in 0.05f64..=1.0,
            working in 1usize..400,
            extra in 0usize..800,
            fail_mask in any::<u64>(),
        ) {
            let fails: Vec<u32> = (0..sets.len() as u32).filter(|d| fail_mask >> (d % 64) & 1 == 1 && d % 5 == 0).collect();
            let budget = Budget { working, cap: working + extra };
            let (out, tracker) = run(&sets, &pairs, threshold, budget, &fails);
            prop_assert_eq!(got(&out), expected(&sets, &pairs, threshold, &fails));

            let involved = involved_documents(&pairs);
            let failed: Vec<u32> = out.failures.iter().map(|f| f.0).collect();
            let expected_failed: Vec<u32> = involved.iter().copied().filter(|d| fails.contains(d)).collect();
            prop_assert_eq!(failed, expected_failed, "each failure reported once");

            let largest = involved.iter().map(|&d| bytes_of(&sets[d as usize])).max().unwrap_or(0);
            prop_assert!(tracker.peak.load(Ordering::SeqCst) <= budget.cap.max(2 * largest));
            let loads = tracker.loads.into_inner().unwrap();
            let total: usize = involved.iter().map(|&d| bytes_of(&sets[d as usize])).sum();
            if total <= budget.cap {
                prop_assert_eq!(loads.len(), involved.len(), "each document loaded once");
            }
            // A failed document is never loaded again.
            for d in &fails {
                prop_assert!(loads.iter().filter(|&&x| x == *d).count() <= 1);
            }
        }
    }
}
