//! Every family against its own collision probability on seeded random
//! inputs, and [`AnyFamily`] against the concrete family it wraps.

use super::*;
use crate::similarity::vectors::{cosine, euclidean, hamming_bits};
use crate::sketch::SplitMix64;

/// Two distinct random sets sharing `shared` elements, each with `own` more.
fn sets(rng: &mut SplitMix64, shared: usize, own: usize) -> (Vec<u64>, Vec<u64>, f64) {
    let common: Vec<u64> = (0..shared).map(|_| rng.next_u64()).collect();
    let mut a = common.clone();
    let mut b = common;
    a.extend((0..own).map(|_| rng.next_u64()));
    b.extend((0..own).map(|_| rng.next_u64()));
    let jaccard = shared as f64 / (shared + 2 * own) as f64;
    (a, b, jaccard)
}

/// Positions where two rows agree.
fn agree(family: &impl Family, a: Features<'_>, b: Features<'_>) -> usize {
    let n = family.signature_len();
    let (mut ra, mut rb) = (vec![0; n], vec![0; n]);
    family.sign_into(a, &mut ra);
    family.sign_into(b, &mut rb);
    ra.iter().zip(&rb).filter(|(x, y)| x == y).count()
}

/// `agreed` of `trials` positions is within `sigmas` standard deviations of
/// a binomial count at `p` (and one position, for p at 0 or 1).
#[track_caller]
fn within(agreed: usize, trials: usize, p: f64, sigmas: f64, what: &str) {
    let (n, k) = (trials as f64, agreed as f64);
    let sigma = (n * p * (1.0 - p)).sqrt();
    assert!(
        (k - n * p).abs() <= sigmas * sigma + 1.0,
        "{what}: {agreed} of {trials} agree, expected {} (σ {sigma})",
        n * p
    );
}

/// MinHash positions are independent samples of the Jaccard similarity for
/// classic; OPH's bins sample without replacement, whose count varies less
/// than a binomial's, so the binomial 4σ bounds them too. Sets of thousands
/// of elements leave no block empty.
#[test]
fn minhash_families_agree_at_the_jaccard_similarity() {
    let mut rng = SplitMix64(31);
    let n = 2000;
    for (shared, own) in [(3000, 500), (2000, 2000), (6000, 200)] {
        let (a, b, jaccard) = sets(&mut rng, shared, own);
        for family in [
            AnyFamily::from(Classic::new(n, 5)),
            AnyFamily::from(OnePermutation::new(n, 5)),
            AnyFamily::from(Block::new(n, 5)),
        ] {
            let p = family.collision_probability(jaccard);
            assert_eq!(p, jaccard);
            assert_eq!(family.measure(), Measure::Jaccard);
            let k = agree(&family, Features::Set(&a), Features::Set(&b));
            within(k, n, p, 4.0, family.name());
        }
    }
}

/// ICWS samples agree with probability the weighted Jaccard similarity.
#[test]
fn icws_agrees_at_the_weighted_jaccard_similarity() {
    let n = 4000;
    let icws = Icws::new(n, 13);
    type Bag<'a> = &'a [(u64, f64)];
    let cases: [(Bag, Bag, f64); 3] = [
        // Σ min = 2 + 1, Σ max = 3 + 2 + 1.
        (&[(1, 3.0), (2, 1.0)], &[(1, 2.0), (2, 2.0), (3, 1.0)], 0.5),
        // Σ min = 3.5 + 1, Σ max = 0.5 + 7.25 + 4.
        (
            &[(10, 0.5), (11, 7.25), (12, 1.0)],
            &[(11, 3.5), (12, 4.0)],
            4.5 / 11.75,
        ),
        (&[(5, 1.0)], &[(5, 4.0)], 0.25),
    ];
    for (a, b, truth) in cases {
        let p = icws.collision_probability(truth);
        let k = agree(&icws, Features::Weighted(a), Features::Weighted(b));
        within(k, n, p, 4.0, "icws");
    }
    // A set is a bag of weight-1 elements: its weighted Jaccard is its Jaccard.
    let mut rng = SplitMix64(8);
    let (a, b, jaccard) = sets(&mut rng, 300, 100);
    let k = agree(&icws, Features::Set(&a), Features::Set(&b));
    within(k, n, jaccard, 4.0, "icws over sets");
}

/// Hyperplanes agree at `1 − θ/180` for vectors of cosine `cos θ`.
#[test]
fn hyperplanes_agree_at_one_minus_the_angle() {
    let n = 4000;
    let planes = Hyperplanes::new(6, n, 17);
    let mut rng = crate::sketch::Gaussian::new(4);
    for _ in 0..4 {
        let a: Vec<f32> = (0..6).map(|_| rng.next() as f32).collect();
        let b: Vec<f32> = (0..6).map(|_| rng.next() as f32).collect();
        let c = cosine(&a, &b).unwrap();
        let p = planes.collision_probability(c);
        let k = agree(&planes, Features::Vector(&a), Features::Vector(&b));
        within(k, n, p, 4.0, "hyperplanes");
    }
}

/// p-stable projections agree at the Datar et al. probability of the L2
/// distance over the bucket width.
#[test]
fn pstable_agrees_at_its_formula() {
    let n = 4000;
    let family = PStable::new(5, n, 1.5, 23);
    let mut rng = crate::sketch::Gaussian::new(6);
    for scale in [0.2, 0.5, 1.0] {
        let a: Vec<f32> = (0..5).map(|_| rng.next() as f32).collect();
        let b: Vec<f32> = a.iter().map(|&x| x + (scale * rng.next()) as f32).collect();
        let p = family.collision_probability(euclidean(&a, &b));
        let k = agree(&family, Features::Vector(&a), Features::Vector(&b));
        within(k, n, p, 4.0, "pstable");
    }
}

/// Sampled bits agree at `1 − h/len`.
#[test]
fn bit_sampling_agrees_at_one_minus_the_distance() {
    let n = 4000;
    let len = 192;
    let sampling = BitSampling::random(len, n, 29);
    let mut rng = SplitMix64(3);
    for flips in [5usize, 40, 100] {
        let a: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        let mut b = a.clone();
        for i in 0..flips {
            let bit = (i * 7 + 3) % len;
            b[bit / 64] ^= 1 << (bit % 64);
        }
        let h = f64::from(hamming_bits(&a, &b));
        let p = sampling.collision_probability(h);
        let k = agree(&sampling, Features::Bits(&a), Features::Bits(&b));
        within(k, n, p, 4.0, "bit sampling");
    }
}

/// SimHash's 64 bits, over 300 seeds: each is a hyperplane with hashed ±1
/// normals, so `1 − θ/180` holds only as the sums of many features become
/// Gaussian; 5σ, as `simhash`'s own test.
#[test]
fn simhash_agrees_near_one_minus_the_angle() {
    let mut rng = SplitMix64(12);
    let (trials, mut agreed) = (300, 0);
    let (a, b, _) = sets(&mut rng, 600, 200);
    let cos = 600.0 / 800.0;
    for seed in 0..trials {
        agreed += agree(&SimHash::new(seed), Features::Set(&a), Features::Set(&b));
    }
    let p = SimHash::new(0).collision_probability(cos);
    within(agreed, trials as usize * 64, p, 5.0, "simhash");
}

/// SimHash rows are the fingerprint's bits, low bit first, for sets and
/// for whole-number bags alike.
#[test]
fn simhash_rows_are_the_fingerprint() {
    use crate::sketch::simhash::{Weights, features, fingerprint};
    let hashes: Vec<u64> = (1..40u64).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let family = SimHash::new(7);
    let mut row = vec![0; 64];
    family.sign_into(Features::Set(&hashes), &mut row);
    let fp = fingerprint(&features(hashes.clone(), Weights::Set), 7);
    let bits: Vec<u32> = (0..64).map(|i| (fp >> i & 1) as u32).collect();
    assert_eq!(row, bits);
    let counted: Vec<(u64, u32)> = hashes.iter().map(|&h| (h, 1 + (h % 5) as u32)).collect();
    let bag: Vec<(u64, f64)> = counted.iter().map(|&(h, w)| (h, f64::from(w))).collect();
    family.sign_into(Features::Weighted(&bag), &mut row);
    let fp = fingerprint(&counted, 7);
    let bits: Vec<u32> = (0..64).map(|i| (fp >> i & 1) as u32).collect();
    assert_eq!(row, bits);
}

/// Every call through [`AnyFamily`] gives what the family itself gives.
#[test]
fn dispatch_equals_the_concrete_family() {
    let set: Vec<u64> = (0..500u64).map(|i| i.wrapping_mul(0x5851_f42d)).collect();
    let other: Vec<u64> = (250..750u64).map(|i| i.wrapping_mul(0x5851_f42d)).collect();
    let bag: Vec<(u64, f64)> = set.iter().map(|&k| (k, 1.0 + (k % 3) as f64)).collect();
    let vector: Vec<f32> = (0..8).map(|i| i as f32 - 3.5).collect();
    let bits = [0xdead_beef_u64, 0x1234_5678];

    fn check<F: Family + Clone + Into<AnyFamily>>(family: F, a: Features<'_>, b: Features<'_>) {
        let any: AnyFamily = family.clone().into();
        let n = family.signature_len();
        assert_eq!(any.signature_len(), n);
        assert_eq!(any.measure(), family.measure());
        let (mut x, mut y) = (vec![0; n], vec![0; n]);
        family.sign_into(a, &mut x);
        any.sign_into(a, &mut y);
        assert_eq!(x, y, "{}", any.name());
        family.sign_into(b, &mut y);
        assert_eq!(any.estimate(&x, &y), family.estimate(&x, &y));
        for v in [0.0, 0.3, 0.8, 1.0, 2.5] {
            let (p, q) = (
                any.collision_probability(v),
                family.collision_probability(v),
            );
            assert!(p == q || (p.is_nan() && q.is_nan()), "{}", any.name());
        }
    }

    let (s, o) = (Features::Set(&set), Features::Set(&other));
    check(Classic::new(64, 1), s, o);
    check(OnePermutation::new(64, 1), s, o);
    check(Block::new(64, 1), s, o);
    check(Icws::new(64, 1), Features::Weighted(&bag), s);
    check(SimHash::new(1), Features::Weighted(&bag), s);
    let (v, w) = (Features::Vector(&vector), Features::Vector(&vector[..]));
    check(Hyperplanes::new(8, 64, 1), v, w);
    check(PStable::new(8, 64, 2.0, 1), v, w);
    check(
        BitSampling::random(128, 64, 1),
        Features::Bits(&bits),
        Features::Bits(&[0, 0]),
    );
    assert_eq!(
        AnyFamily::from(AnySketcher::new(crate::sketch::SketchKind::Oph, 8, 1)).name(),
        "oph"
    );
}

/// The estimates invert the collision probabilities: rows agreeing at
/// rate `p(v)` estimate `v`.
#[test]
fn estimates_invert_the_collision_probability() {
    let n = 1000;
    let rows = |agreeing: usize| {
        let a = vec![1u32; n];
        let b: Vec<u32> = (0..n).map(|i| u32::from(i < agreeing)).collect();
        (a, b)
    };
    let families: [(AnyFamily, f64); 4] = [
        (Hyperplanes::new(3, n, 1).into(), 0.5),
        (PStable::new(3, n, 2.0, 1).into(), 1.0),
        (BitSampling::random(100, n, 1).into(), 30.0),
        (Classic::new(n, 1).into(), 0.4),
    ];
    for (family, value) in families {
        let p = family.collision_probability(value);
        let (a, b) = rows((p * n as f64).round() as usize);
        let estimate = family.estimate(&a, &b);
        // One position of n moves the estimate by at most this much here.
        assert!(
            (estimate - value).abs() < 0.01 * value.max(1.0),
            "{}: {estimate} for {value}",
            family.name()
        );
    }
}

#[test]
#[should_panic(expected = "hyperplanes does not sign a set")]
fn wrong_features_panic_with_the_family_named() {
    let planes = Hyperplanes::new(2, 4, 1);
    planes.sign_into(Features::Set(&[1, 2]), &mut [0; 4]);
}
