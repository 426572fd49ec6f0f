use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

use super::super::{all_pairs, all_pairs_owned_within};
use super::*;

/// (|a ∩ b|, |a ∪ b|) of two ascending slices.
fn jaccard<T: Ord>(a: &[T], b: &[T]) -> (usize, usize) {
    let common = a.iter().filter(|v| b.binary_search(v).is_ok()).count();
    (common, a.len() + b.len() - common)
}

/// A held set's tokens (ranks widened), for comparing with input sets.
fn tokens(set: HeldSet<'_>) -> Vec<u64> {
    match set {
        HeldSet::Tokens(tokens) => tokens.to_vec(),
        HeldSet::Ranks(ranks) => ranks.iter().map(|&r| u64::from(r)).collect(),
    }
}

/// `count` sets of 5–40 tokens from a vocabulary of 300, every 7th a
/// near-copy of the one before (one token swapped): pairs at every
/// similarity, from a fixed seed.
fn corpus(count: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut state = seed;
    let mut next = move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    let mut sets: Vec<Vec<u64>> = Vec::with_capacity(count);
    for i in 0..count {
        let set: BTreeSet<u64> = if i % 7 == 6 {
            let mut copy: Vec<u64> = sets[i - 1].clone();
            let at = next(copy.len() as u64) as usize;
            copy[at] = next(300);
            copy.into_iter().collect()
        } else {
            let len = 5 + next(36);
            (0..len).map(|_| next(300)).collect()
        };
        sets.push(set.into_iter().collect());
    }
    sets
}

#[test]
fn a_join_that_goes_on_after_its_sample_finds_what_the_unsampled_join_finds() {
    let sets = corpus(MIN_SETS + 300, 0x5eed_0001);
    for t in [0.3, 0.5, 0.8] {
        let asked = AtomicUsize::new(0);
        let go_on = |_: &Prediction| {
            asked.fetch_add(1, SeqCst);
            false
        };
        let sampled = all_pairs_owned_within(sets.clone(), t, Some(&go_on), &|_, _| {})
            .unwrap()
            .unwrap_or_else(|_| panic!("told to go on"));
        let plain = all_pairs(&sets, t).unwrap();
        assert_eq!(asked.load(SeqCst), 1, "asked once at t = {t}");
        assert!(!plain.pairs.is_empty());
        assert_eq!(sampled.pairs, plain.pairs, "t = {t}");
        // The sample's work is counted once, not twice or never.
        assert_eq!(sampled.stats.verified, plain.stats.verified, "t = {t}");
        assert_eq!(sampled.stats.probe_hits, plain.stats.probe_hits, "t = {t}");
    }
}

#[test]
fn a_given_up_join_hands_back_every_set_with_every_jaccard_unchanged() {
    let sets = corpus(MIN_SETS + 100, 0x5eed_0002);
    let t = 0.4;
    let abandoned = match all_pairs_owned_within(sets.clone(), t, Some(&|_| true), &|_, _| {}) {
        Ok(Err(abandoned)) => abandoned,
        _ => panic!("told to give up"),
    };
    let nonempty = sets.iter().filter(|s| !s.is_empty()).count();
    assert_eq!(abandoned.len(), nonempty);
    // Every pair as a candidate: verification must give exactly the join's pairs,
    // with the same intersections and unions.
    let mut candidates = Vec::new();
    for x in 0..abandoned.len() as u32 {
        for y in x + 1..abandoned.len() as u32 {
            candidates.push((x, y));
        }
    }
    let verified = abandoned.verify(&candidates, t);
    assert_eq!(verified, all_pairs(&sets, t).unwrap().pairs);
    // Ranks are a bijection of the tokens: sizes and overlaps survive.
    for k in (0..abandoned.len()).step_by(97) {
        let d = abandoned.document(k) as usize;
        assert!(matches!(abandoned.set(k), HeldSet::Ranks(_)));
        assert_eq!(abandoned.set(k).len(), sets[d].len());
        let e = abandoned.document((k + 1) % abandoned.len()) as usize;
        let next = abandoned.set((k + 1) % abandoned.len());
        let (i, u) = jaccard(&tokens(abandoned.set(k)), &tokens(next));
        assert_eq!((i, u), jaccard(&sets[d], &sets[e]));
    }
    // Each set comes back as the input's own tokens, for signing as LSH does.
    let mut scratch = Vec::new();
    for k in 0..abandoned.len() {
        let mut back = abandoned.tokens(k, &mut scratch).to_vec();
        back.sort_unstable();
        assert_eq!(back, sets[abandoned.document(k) as usize]);
    }
    // The prediction describes this join.
    let p = abandoned.prediction;
    assert_eq!(p.sets, nonempty as u64);
    assert_eq!(p.thinned, 1);
    assert_eq!(p.sampled, (nonempty / STRIDE) as u64);
    assert_eq!(p.tokens, sets.iter().map(|s| s.len() as u64).sum::<u64>());
    assert!(p.seconds() > 0.0 && p.work.hits > 0 && p.work.verified > 0);
}

#[test]
fn a_large_join_is_looked_at_first_through_a_thinned_copy() {
    let sets = corpus(MIN_THINNED + 700, 0x5eed_0005);
    let n = sets.iter().filter(|s| !s.is_empty()).count();
    for t in [0.3, 0.8] {
        let asked = std::sync::Mutex::new(Vec::new());
        let go_on = |p: &Prediction| {
            asked.lock().unwrap().push(*p);
            false
        };
        let kept = all_pairs_owned_within(sets.clone(), t, Some(&go_on), &|_, _| {})
            .unwrap()
            .unwrap_or_else(|_| panic!("told to go on"));
        assert_eq!(kept.pairs, all_pairs(&sets, t).unwrap().pairs, "t = {t}");
        let asked = asked.into_inner().unwrap();
        let [look, sample] = asked[..] else {
            panic!("asked {} times at t = {t}", asked.len())
        };
        // The look probed its thinned copy as often as the sample probes
        // the join, each probe meeting 1/THIN of the sets.
        assert_eq!(
            (look.thinned, look.sampled),
            (THIN as u64, (n / THIN / THIN_STRIDE) as u64)
        );
        assert_eq!((sample.thinned, sample.sampled), (1, (n / STRIDE) as u64));
        assert_eq!((look.sets, look.tokens), (sample.sets, sample.tokens));
        // What the margin's widening by sqrt(THIN) allows for: the look's
        // prediction within that factor of the sample's, either way.
        let ratio = look.seconds() / sample.seconds();
        let widening = (THIN as f64).sqrt();
        assert!(
            (1.0 / widening..=widening).contains(&ratio),
            "t = {t}: look {:.4} s, sample {:.4} s",
            look.seconds(),
            sample.seconds()
        );
    }

    // Given up at the look: the input's own sets come back, unranked.
    let t = 0.5;
    let at_look = |p: &Prediction| p.thinned > 1;
    let abandoned = match all_pairs_owned_within(sets.clone(), t, Some(&at_look), &|_, _| {}) {
        Ok(Err(abandoned)) => abandoned,
        _ => panic!("told to give up at the look"),
    };
    assert_eq!(abandoned.prediction.thinned, THIN as u64);
    assert_eq!(abandoned.len(), n);
    for k in 0..abandoned.len() {
        let d = abandoned.document(k) as usize;
        assert!(matches!(abandoned.set(k), HeldSet::Tokens(s) if s == sets[d].as_slice()));
        assert_eq!(abandoned.tokens(k, &mut Vec::new()), sets[d].as_slice());
        if k > 0 {
            assert!(
                abandoned.set(k - 1).len() <= abandoned.set(k).len(),
                "size order"
            );
        }
    }
    // The join's pairs and every two neighbours in size order as
    // candidates: verification keeps exactly the join's pairs, with their
    // intersections and unions.
    let joined = all_pairs(&sets, t).unwrap().pairs;
    let mut position = vec![u32::MAX; sets.len()];
    for k in 0..n {
        position[abandoned.document(k) as usize] = k as u32;
    }
    let mut candidates: Vec<(u32, u32)> = (1..n as u32).map(|k| (k - 1, k)).collect();
    for p in &joined {
        let (x, y) = (position[p.a as usize], position[p.b as usize]);
        candidates.push((x.min(y), x.max(y)));
    }
    candidates.sort_unstable();
    candidates.dedup();
    assert!(joined.len() > 100);
    assert_eq!(abandoned.verify(&candidates, t), joined);
}

#[test]
fn too_few_sets_to_sample_are_joined_without_asking() {
    let sets = corpus(MIN_SETS - 1, 0x5eed_0003);
    let never = |_: &Prediction| -> bool { panic!("a join this small is not sampled") };
    let joined = all_pairs_owned_within(sets.clone(), 0.5, Some(&never), &|_, _| {})
        .unwrap()
        .unwrap_or_else(|_| panic!("not given up"));
    assert_eq!(joined.pairs, all_pairs(&sets, 0.5).unwrap().pairs);
}

#[test]
fn a_join_of_many_overlapping_sets_is_predicted_dearer_than_one_of_disjoint_sets() {
    // Same sizes, same count: sets drawn from 300 tokens meet each other in
    // the index; sets of their own tokens meet nobody.
    let shared = corpus(MIN_SETS * 2, 0x5eed_0004);
    let disjoint: Vec<Vec<u64>> = shared
        .iter()
        .enumerate()
        .map(|(i, s)| s.iter().map(|&v| (i as u64) << 20 | v).collect())
        .collect();
    let predict = |sets: Vec<Vec<u64>>| match all_pairs_owned_within(
        sets,
        0.3,
        Some(&|_| true),
        &|_, _| {},
    ) {
        Ok(Err(abandoned)) => abandoned.prediction,
        _ => panic!("told to give up"),
    };
    let (shared, disjoint) = (predict(shared), predict(disjoint));
    assert_eq!(disjoint.work.hits, 0);
    assert_eq!(disjoint.pairs, 0);
    assert!(shared.work.hits > 0 && shared.pairs > 0);
    assert!(shared.seconds() > 10.0 * disjoint.seconds());
}
