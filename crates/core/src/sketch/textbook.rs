//! MinHash as the textbook computes it by hand (MMDS 3.3.2–3.3.5 and the
//! row-block speed-up of the lecture notes): explicit hash functions
//! `h(x) = ((a·x + b) mod p) + c` or explicit permutations over numbered rows,
//! the signature matrix with ∞ where a column has no 1, and the estimate
//! `a/(a+d)` over the rows where the two columns are not both ∞.
//!
//! Role: the teaching path (`simfind minhash`), where a student gives the
//! functions of an example and checks the book's signature matrix. The scan
//! never uses it: its hash functions come from the seed ([`super::minhash`]).
//! Pure: numbers in, numbers out.

use std::fmt;

/// A row hash function of the textbook form `((a·x + b) mod p) + c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearHash {
    pub a: u64,
    pub b: u64,
    pub p: u64,
    pub c: u64,
}

impl LinearHash {
    /// `((a·x + b) mod p) + c`, without overflow for any `u64` operands.
    pub fn eval(&self, x: u64) -> u64 {
        let v = (self.a as u128 * x as u128 + self.b as u128) % self.p as u128;
        v as u64 + self.c
    }
}

impl fmt::Display for LinearHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ax = if self.a == 1 {
            "x".to_string()
        } else {
            format!("{}x", self.a)
        };
        let inner = if self.b == 0 {
            ax
        } else {
            format!("({ax} + {})", self.b)
        };
        write!(f, "{inner} mod {}", self.p)?;
        if self.c != 0 {
            write!(f, " + {}", self.c)?;
        }
        Ok(())
    }
}

/// Why a hash expression could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashParseError {
    pub expression: String,
    pub reason: String,
}

impl fmt::Display for HashParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hash function {:?}: {} (expected the form `(a*x + b) mod p + c`, e.g. `3x+1 mod 5` or `(2x+1) mod 5 + 1`)",
            self.expression, self.reason
        )
    }
}

impl std::error::Error for HashParseError {}

/// Reads `(a·x + b) mod p [+ c]`: `a`, `b` and `c` optional, the parentheses
/// optional, `*`, `·` or nothing between `a` and `x`, `%` for `mod`, the
/// terms of `a·x + b` in either order, spaces anywhere (`x+1 mod 5`,
/// `3x+1 mod 5`, `x mod 5 + 1`, `(2*x + 1) % 5 + 1`, `1 + 3x mod 5`).
pub fn parse_hash(expression: &str) -> Result<LinearHash, HashParseError> {
    let fail = |reason: String| HashParseError {
        expression: expression.to_string(),
        reason,
    };
    let text: String = expression
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if c == '·' || c == '×' { '*' } else { c })
        .collect::<String>()
        .to_ascii_lowercase()
        .replace("mod", "%");
    let (linear, modulus) = match text.split_once('%') {
        Some(parts) => parts,
        None => return Err(fail("no `mod p`".into())),
    };
    if modulus.contains('%') {
        return Err(fail("more than one `mod`".into()));
    }
    let linear = match linear.strip_prefix('(') {
        Some(inner) => inner
            .strip_suffix(')')
            .ok_or_else(|| fail("unbalanced parentheses".into()))?,
        None => linear,
    };
    if linear.contains(['(', ')']) {
        return Err(fail("unbalanced parentheses".into()));
    }
    let number = |s: &str, what: &str| -> Result<u64, HashParseError> {
        s.parse::<u64>().map_err(|_| {
            fail(if s.is_empty() {
                format!("{what} is missing")
            } else {
                format!("{what} {s:?} is not a non-negative integer")
            })
        })
    };
    let (mut a, mut b, mut seen_x) = (0u64, 0u64, false);
    for term in linear.split('+') {
        if let Some(coefficient) = term.strip_suffix('x') {
            if seen_x {
                return Err(fail("`x` appears twice".into()));
            }
            seen_x = true;
            let coefficient = coefficient.strip_suffix('*').unwrap_or(coefficient);
            a = if coefficient.is_empty() {
                1
            } else {
                number(coefficient, "the coefficient of x")?
            };
        } else {
            b = b
                .checked_add(number(term, "the constant")?)
                .ok_or_else(|| fail("the constant overflows".into()))?;
        }
    }
    if !seen_x {
        return Err(fail("no `x`".into()));
    }
    let (p, c) = match modulus.split_once('+') {
        Some((p, c)) => (number(p, "the modulus")?, number(c, "the added constant")?),
        None => (number(modulus, "the modulus")?, 0),
    };
    if p == 0 {
        return Err(fail("the modulus must be at least 1".into()));
    }
    Ok(LinearHash { a, b, p, c })
}

/// One row function: a hash expression, or an explicit table of values
/// (a permutation given as the value of each row in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowFunction {
    Hash(LinearHash),
    /// `values[i]` is the value of row `i` (counted from the first row).
    Table(Vec<u64>),
}

impl RowFunction {
    /// The value of row `x` (`x` counted from the first row for a table).
    pub fn eval(&self, x: u64) -> u64 {
        match self {
            RowFunction::Hash(h) => h.eval(x),
            RowFunction::Table(values) => values[x as usize],
        }
    }
}

/// One column's minhash under `f`: the least value over the rows holding a 1
/// (`rows`, as row numbers), `None` (∞) for a column without a 1.
pub fn minhash(rows: &[u64], f: &RowFunction) -> Option<u64> {
    rows.iter().map(|&x| f.eval(x)).min()
}

/// The signature matrix: one row per function, one column per set.
pub fn signature_matrix(columns: &[Vec<u64>], functions: &[RowFunction]) -> Vec<Vec<Option<u64>>> {
    functions
        .iter()
        .map(|f| columns.iter().map(|c| minhash(c, f)).collect())
        .collect()
}

/// The row-block signature (lecture notes, "Speeding up Minhashing",
/// Practice IV): the `m` rows are cut into blocks of `block_rows`; within each
/// block, `f` is applied to a row's index inside the block (from
/// `first_row`), so one function gives `m / block_rows` minhashes. A block in
/// which the column has no 1 keeps ∞ (`None`). Rows are `0..m` here.
pub fn block_signature(
    rows: &[u64],
    m: u64,
    block_rows: u64,
    first_row: u64,
    f: &RowFunction,
) -> Vec<Option<u64>> {
    let blocks = m.div_ceil(block_rows);
    (0..blocks)
        .map(|block| {
            rows.iter()
                .filter(|&&x| x / block_rows == block)
                .map(|&x| f.eval(x % block_rows + first_row))
                .min()
        })
        .collect()
}

/// The counts of the lecture's estimator over two signature columns: `a`
/// rows agree, `d` disagree (one ∞ against a value disagrees), rows where
/// both are ∞ are skipped.
pub fn agreement(x: &[Option<u64>], y: &[Option<u64>]) -> (usize, usize) {
    let mut a = 0;
    let mut d = 0;
    for (u, v) in x.iter().zip(y) {
        match (u, v) {
            (None, None) => {}
            (Some(u), Some(v)) if u == v => a += 1,
            _ => d += 1,
        }
    }
    (a, d)
}

/// A non-negative fraction in lowest terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fraction {
    pub numerator: u128,
    pub denominator: u128,
}

impl Fraction {
    /// `n / d` reduced (`d` must not be 0).
    pub fn new(n: u128, d: u128) -> Fraction {
        let g = gcd(n, d).max(1);
        Fraction {
            numerator: n / g,
            denominator: d / g,
        }
    }

    pub fn value(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.denominator == 1 {
            write!(f, "{}", self.numerator)
        } else {
            write!(f, "{}/{}", self.numerator, self.denominator)
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The Jaccard similarity of two sorted, distinct row lists, exactly.
pub fn jaccard(x: &[u64], y: &[u64]) -> Fraction {
    let shared = x.iter().filter(|v| y.binary_search(v).is_ok()).count() as u128;
    let union = (x.len() + y.len()) as u128 - shared;
    if union == 0 {
        return Fraction::new(0, 1);
    }
    Fraction::new(shared, union)
}

/// The largest block for which [`expected_block_estimate`] enumerates every
/// permutation (8! = 40,320 of them).
pub const MAX_ENUMERATED_BLOCK: u64 = 8;

/// The expected `a/(a+d)` estimate of two columns over every permutation of
/// a block's `block_rows` positions, the same permutation applied to every
/// block (one hash function, Practice IV), exactly: what the lecture's
/// "expected across randomly picked hash functions" means. `None` if some
/// permutation leaves the two columns ∞ in every block (no estimate).
///
/// Requires `1 ≤ block_rows ≤ MAX_ENUMERATED_BLOCK`.
pub fn expected_block_estimate(x: &[u64], y: &[u64], m: u64, block_rows: u64) -> Option<Fraction> {
    assert!((1..=MAX_ENUMERATED_BLOCK).contains(&block_rows));
    let blocks = m.div_ceil(block_rows) as u128;
    // Every a/(a+d) has a + d ≤ blocks: lcm(1..=blocks) is a common denominator.
    let lcm = (1..=blocks).fold(1u128, |l, k| l / gcd(l, k) * k);
    let mut permutation: Vec<u64> = (0..block_rows).collect();
    let (mut sum, mut count) = (0u128, 0u128);
    loop {
        let f = RowFunction::Table(permutation.clone());
        let sx = block_signature(x, m, block_rows, 0, &f);
        let sy = block_signature(y, m, block_rows, 0, &f);
        let (a, d) = agreement(&sx, &sy);
        if a + d == 0 {
            return None;
        }
        sum += a as u128 * (lcm / (a + d) as u128);
        count += 1;
        if !next_permutation(&mut permutation) {
            break;
        }
    }
    Some(Fraction::new(sum, lcm * count))
}

/// Steps `v` to its next permutation in lexicographic order; `false` after the last.
fn next_permutation(v: &mut [u64]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        return false;
    };
    let j = (i..v.len()).rev().find(|&j| v[j] > v[i - 1]).unwrap();
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

#[cfg(test)]
mod tests;
