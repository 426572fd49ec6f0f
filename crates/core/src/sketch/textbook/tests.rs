//! Oracles: the worked examples of MMDS 3.3 and of the lecture notes, with the
//! values the texts print.

use super::*;

fn h(text: &str) -> RowFunction {
    RowFunction::Hash(parse_hash(text).unwrap())
}

/// MMDS Fig. 3.4: S1 = {a, d}, S2 = {c}, S3 = {b, d, e}, S4 = {a, c, d},
/// rows a..e numbered 0..4.
fn fig_3_4() -> Vec<Vec<u64>> {
    vec![vec![0, 3], vec![2], vec![1, 3, 4], vec![0, 2, 3]]
}

#[test]
fn example_3_8_signature_matrix() {
    let m = signature_matrix(&fig_3_4(), &[h("x+1 mod 5"), h("3x+1 mod 5")]);
    let want = [[1, 3, 0, 1], [0, 2, 0, 0]].map(|r| r.map(Some).to_vec());
    assert_eq!(m, want);
    // The book's estimates: SIM(S1, S4) = 1, SIM(S1, S3) = 1/2; truths 2/3, 1/4.
    let col = |j: usize| m.iter().map(|r| r[j]).collect::<Vec<_>>();
    assert_eq!(agreement(&col(0), &col(3)), (2, 0));
    assert_eq!(agreement(&col(0), &col(2)), (1, 1));
    assert_eq!(jaccard(&fig_3_4()[0], &fig_3_4()[3]), Fraction::new(2, 3));
    assert_eq!(jaccard(&fig_3_4()[0], &fig_3_4()[2]).to_string(), "1/4");
}

/// CS5344 slides: rows 1..5, C1 = {1, 3, 4}, C2 = {2, 3, 5};
/// h(x) = x mod 5 + 1 and g(x) = (2x + 1) mod 5 + 1 give Sig1 = [2, 3], Sig2 = [1, 1].
#[test]
fn slides_h_and_g_example() {
    let columns = vec![vec![1, 3, 4], vec![2, 3, 5]];
    let m = signature_matrix(&columns, &[h("x mod 5 + 1"), h("(2x+1) mod 5 + 1")]);
    assert_eq!(m, vec![vec![Some(2), Some(1)], vec![Some(3), Some(1)]]);
}

/// CS5344 slides, "Minhash Signatures": three permutations of 7 rows (the
/// value of each row), Sig/Sig 0.67, 1.00, 0 for columns 1-3, 2-4, 1-2.
#[test]
fn slides_permutation_example() {
    let columns = vec![
        vec![0, 1, 5, 6],
        vec![2, 3, 4],
        vec![0, 5, 6],
        vec![1, 2, 3, 4],
    ];
    let perms = [
        vec![3, 4, 7, 6, 1, 2, 5],
        vec![4, 2, 1, 3, 6, 7, 5],
        vec![1, 3, 7, 6, 2, 5, 4],
    ]
    .map(RowFunction::Table);
    let m = signature_matrix(&columns, &perms);
    assert_eq!(m[0], [2, 1, 2, 1].map(Some).to_vec());
    let col = |j: usize| m.iter().map(|r| r[j]).collect::<Vec<_>>();
    assert_eq!(agreement(&col(0), &col(2)), (2, 1));
    assert_eq!(agreement(&col(1), &col(3)), (3, 0));
    assert_eq!(agreement(&col(0), &col(1)), (0, 3));
}

/// The lecture's block example: m = 8, m̄ = 4, S1 = rows {4, 5, 6},
/// S2 = {3, 4, 5}, S3 = {2, 3, 4}; expected estimates 1/3 and 1/6 against
/// truths 1/2 and 1/5; S2/S3 by hand: block 1 agrees w.p. 1/2 (min of
/// {3} vs {2, 3}), block 2 w.p. 1/2 ({4, 5} vs {4}): E = 1/2.
#[test]
fn lecture_block_example() {
    let (s1, s2, s3) = (vec![4, 5, 6], vec![3, 4, 5], vec![2, 3, 4]);
    assert_eq!(jaccard(&s1, &s2).to_string(), "1/2");
    assert_eq!(jaccard(&s1, &s3).to_string(), "1/5");
    assert_eq!(
        expected_block_estimate(&s1, &s2, 8, 4).unwrap().to_string(),
        "1/3"
    );
    assert_eq!(
        expected_block_estimate(&s1, &s3, 8, 4).unwrap().to_string(),
        "1/6"
    );
    assert_eq!(
        expected_block_estimate(&s2, &s3, 8, 4).unwrap().to_string(),
        "1/2"
    );
    // The first block of S1 is empty: ∞.
    let sig = block_signature(&s1, 8, 4, 0, &RowFunction::Table(vec![0, 1, 2, 3]));
    assert_eq!(sig, vec![None, Some(0)]);
    // With one block the expectation is the Jaccard similarity (MinHash property).
    assert_eq!(
        expected_block_estimate(&s1, &s3, 8, 8).unwrap(),
        jaccard(&s1, &s3)
    );
}

#[test]
fn next_permutation_visits_every_permutation_once() {
    let mut v = vec![0, 1, 2, 3];
    let mut seen = std::collections::BTreeSet::new();
    loop {
        assert!(seen.insert(v.clone()));
        if !next_permutation(&mut v) {
            break;
        }
    }
    assert_eq!(seen.len(), 24);
}

#[test]
fn hash_expressions_in_every_written_form() {
    let want = LinearHash {
        a: 3,
        b: 1,
        p: 5,
        c: 0,
    };
    for text in [
        "3x+1 mod 5",
        "(3x + 1) mod 5",
        "3*x+1 % 5",
        "1 + 3x mod 5",
        "3·x+1 MOD 5",
    ] {
        assert_eq!(parse_hash(text), Ok(want), "{text}");
    }
    assert_eq!(
        parse_hash("x mod 5 + 1"),
        Ok(LinearHash {
            a: 1,
            b: 0,
            p: 5,
            c: 1
        })
    );
    assert_eq!(
        parse_hash("(2x+1) mod 5 + 1").unwrap().to_string(),
        "(2x + 1) mod 5 + 1"
    );
    assert_eq!(
        parse_hash("x+1 mod 5").unwrap().to_string(),
        "(x + 1) mod 5"
    );
    let big = parse_hash("18446744073709551615x + 7 mod 18446744073709551557").unwrap();
    let oracle = (u64::MAX as u128 * 12345 + 7) % 18446744073709551557u128;
    assert_eq!(big.eval(12345) as u128, oracle);
    for (text, reason) in [
        ("x+1", "no `mod p`"),
        (
            "3y+1 mod 5",
            "the constant \"3y\" is not a non-negative integer",
        ),
        ("3x+1 mod 0", "the modulus must be at least 1"),
        ("x + x mod 5", "`x` appears twice"),
        ("(x+1 mod 5", "unbalanced parentheses"),
        ("1 mod 5", "no `x`"),
        ("x mod 5 mod 3", "more than one `mod`"),
        (
            "-x mod 5",
            "the coefficient of x \"-\" is not a non-negative integer",
        ),
        ("x mod", "the modulus is missing"),
    ] {
        let err = parse_hash(text).unwrap_err();
        assert_eq!(err.reason, reason, "{text}");
        assert!(err.to_string().contains(&format!("{text:?}")));
    }
}
