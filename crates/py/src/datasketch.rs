//! The kernel of `simfind.datasketch`: datasketch 2.0's MinHash update with
//! its default hash function (SHA-1), done here for whole batches of tokens.
//!
//! What is reproduced (facts of datasketch 2.0.0, checked value for value
//! by crates/py/tests/test_datasketch.py against the installed package):
//! a token's hash is the first 4 (or, for "affine64", 8) bytes of its SHA-1
//! digest read little-endian; then per permutation `(a, b)`:
//! - "legacy" (datasketch 1.x): `((a·h + b) mod 2^64) mod (2^61 − 1)`, kept
//!   to its low 32 bits, in u64 (numpy's uint64 arithmetic wraps, and the
//!   values must too);
//! - "affine32" / "affine64": `h` first mixed by MurmurHash3's finalizer of
//!   that width, then `a·h + b` wrapping at the width.
//!
//! The permutation parameters are not generated here: the Python side draws
//! them with numpy's `RandomState(seed)`, as datasketch does, and hands them
//! over as little-endian bytes, so that the seed semantics are numpy's own.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use rayon::prelude::*;
use sha1::{Digest, Sha1};

const MERSENNE_61: u64 = (1 << 61) - 1;

#[derive(Clone, Copy)]
enum Scheme {
    Legacy,
    Affine32,
    Affine64,
}

impl Scheme {
    fn parse(name: &str) -> PyResult<Self> {
        match name {
            "legacy" => Ok(Scheme::Legacy),
            "affine32" => Ok(Scheme::Affine32),
            "affine64" => Ok(Scheme::Affine64),
            _ => Err(PyValueError::new_err(format!(
                "scheme must be one of affine32, affine64, legacy, got {name:?}"
            ))),
        }
    }
}

fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The first 8 bytes of the SHA-1 digest of `token`.
fn sha1_head(token: &[u8]) -> [u8; 8] {
    Sha1::digest(token)[..8]
        .try_into()
        .expect("a digest has 20 bytes")
}

/// Little-endian bytes as values of a fixed width.
fn words<const N: usize>(bytes: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
    bytes
        .chunks_exact(N)
        .map(|c| c.try_into().expect("chunks of N"))
}

/// The permutations of one scheme, ready to apply.
enum Perms {
    /// legacy and affine64: u64 parameters.
    Wide { a: Vec<u64>, b: Vec<u64> },
    /// affine32: u32 parameters, so the loop runs on 32-bit lanes.
    Narrow { a: Vec<u32>, b: Vec<u32> },
}

impl Perms {
    fn new(scheme: Scheme, a: &[u8], b: &[u8], num_perm: usize) -> PyResult<Self> {
        let width = match scheme {
            Scheme::Affine32 => 4,
            Scheme::Legacy | Scheme::Affine64 => 8,
        };
        if a.len() != num_perm * width || b.len() != num_perm * width {
            return Err(PyValueError::new_err(format!(
                "permutations must hold {num_perm} values of {width} bytes each"
            )));
        }
        Ok(match scheme {
            Scheme::Affine32 => Perms::Narrow {
                a: words::<4>(a).map(u32::from_le_bytes).collect(),
                b: words::<4>(b).map(u32::from_le_bytes).collect(),
            },
            _ => Perms::Wide {
                a: words::<8>(a).map(u64::from_le_bytes).collect(),
                b: words::<8>(b).map(u64::from_le_bytes).collect(),
            },
        })
    }
}

/// The tokens of `set` when every one is `bytes` or `bytearray` (what
/// SHA-1 can hash without a conversion); None otherwise, and the caller
/// takes the Python path, which raises what datasketch raises. `bytes`
/// are kept as they are (immutable, and alive while `items` holds them,
/// so they are read in place without the GIL); a `bytearray` can change
/// under us, so it is copied.
fn tokens_of<'py>(
    set: &Bound<'py, PyAny>,
    items: &mut Vec<Bound<'py, PyBytes>>,
) -> PyResult<Option<usize>> {
    let before = items.len();
    for item in set.try_iter()? {
        let item = item?;
        if let Ok(bytes) = item.cast::<PyBytes>() {
            items.push(bytes.clone());
        } else if let Ok(array) = item.cast::<PyByteArray>() {
            items.push(PyBytes::new(set.py(), &array.to_vec()));
        } else {
            return Ok(None);
        }
    }
    Ok(Some(items.len() - before))
}

/// The lowest permuted value of each permutation over `tokens`, from the
/// scheme's "empty" value.
/// `portable`: the baseline loops even where the CPU has wider vectors
/// (the tests compare both).
fn mins(scheme: Scheme, perms: &Perms, tokens: &[&[u8]], portable: bool) -> Mins {
    match perms {
        Perms::Narrow { a, b } => {
            #[cfg(target_arch = "x86_64")]
            if !portable && is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                return Mins::Narrow(unsafe { narrow_mins_avx2(a, b, tokens) });
            }
            Mins::Narrow(narrow_mins(a, b, tokens))
        }
        Perms::Wide { a, b } => {
            let legacy = matches!(scheme, Scheme::Legacy);
            #[cfg(target_arch = "x86_64")]
            if !portable
                && is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512dq")
            {
                // SAFETY: the CPU has AVX-512 F and DQ, checked just above.
                return Mins::Wide(unsafe { wide_mins_avx512(legacy, a, b, tokens) });
            }
            Mins::Wide(wide_mins(legacy, a, b, tokens))
        }
    }
}

/// `x mod (2^61 − 1)` without a division: 2^61 ≡ 1, so the high bits fold
/// onto the low ones, and one subtraction finishes (the fold is < 2·p).
/// Branch-free, so that it vectorises; scalar, `%` by the constant is as
/// fast.
#[inline(always)]
fn mod_mersenne61(x: u64) -> u64 {
    let folded = (x & MERSENNE_61) + (x >> 61);
    folded - MERSENNE_61 * u64::from(folded >= MERSENNE_61)
}

/// legacy's and affine64's minima (u64 values). Inlined into
/// [`wide_mins_avx512`], where the permutation loop becomes 8-lane 64-bit
/// multiplies (AVX-512 DQ); the baseline has none.
#[inline(always)]
fn wide_mins(legacy: bool, a: &[u64], b: &[u64], tokens: &[&[u8]]) -> Vec<u64> {
    // legacy's empty value is 2^32 − 1 (its values are 32 bits stored in
    // u64); affine64's is 2^64 − 1.
    let empty = if legacy {
        u64::from(u32::MAX)
    } else {
        u64::MAX
    };
    let mut mins = vec![empty; a.len()];
    for token in tokens {
        let digest = sha1_head(token);
        if legacy {
            let h = u64::from(u32::from_le_bytes(digest[..4].try_into().expect("4")));
            for ((m, &a), &b) in mins.iter_mut().zip(a).zip(b) {
                let v = mod_mersenne61(a.wrapping_mul(h).wrapping_add(b)) & 0xffff_ffff;
                *m = (*m).min(v);
            }
        } else {
            let h = fmix64(u64::from_le_bytes(digest));
            for ((m, &a), &b) in mins.iter_mut().zip(a).zip(b) {
                *m = (*m).min(a.wrapping_mul(h).wrapping_add(b));
            }
        }
    }
    mins
}

/// [`wide_mins`] compiled for AVX-512 F and DQ: the same values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn wide_mins_avx512(legacy: bool, a: &[u64], b: &[u64], tokens: &[&[u8]]) -> Vec<u64> {
    wide_mins(legacy, a, b, tokens)
}

/// affine32's minima: per token, its hash, then `a·h + b` for every
/// permutation. Inlined into [`narrow_mins_avx2`], where the permutation
/// loop becomes 8-lane multiplies (SSE2, the baseline, has no 32-bit lane
/// multiply).
#[inline(always)]
fn narrow_mins(a: &[u32], b: &[u32], tokens: &[&[u8]]) -> Vec<u32> {
    let mut mins = vec![u32::MAX; a.len()];
    for token in tokens {
        let digest = sha1_head(token);
        let h = fmix32(u32::from_le_bytes(digest[..4].try_into().expect("4 bytes")));
        for ((m, &a), &b) in mins.iter_mut().zip(a).zip(b) {
            *m = (*m).min(a.wrapping_mul(h).wrapping_add(b));
        }
    }
    mins
}

/// [`narrow_mins`] compiled for AVX2: the same values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn narrow_mins_avx2(a: &[u32], b: &[u32], tokens: &[&[u8]]) -> Vec<u32> {
    narrow_mins(a, b, tokens)
}

enum Mins {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Mins {
    fn min_with(self, other: Mins) -> Mins {
        match (self, other) {
            (Mins::Narrow(mut a), Mins::Narrow(b)) => {
                a.iter_mut().zip(b).for_each(|(a, b)| *a = (*a).min(b));
                Mins::Narrow(a)
            }
            (Mins::Wide(mut a), Mins::Wide(b)) => {
                a.iter_mut().zip(b).for_each(|(a, b)| *a = (*a).min(b));
                Mins::Wide(a)
            }
            _ => unreachable!("one scheme per call"),
        }
    }

    fn write(self, out: &mut [u8]) {
        match self {
            Mins::Narrow(m) => out
                .chunks_exact_mut(4)
                .zip(m)
                .for_each(|(o, m)| o.copy_from_slice(&m.to_le_bytes())),
            Mins::Wide(m) => out
                .chunks_exact_mut(8)
                .zip(m)
                .for_each(|(o, m)| o.copy_from_slice(&m.to_le_bytes())),
        }
    }
}

/// Tokens read from Python before they are hashed (see [`_ds_sign`]).
const GROUP_TOKENS: usize = 1 << 16;

/// What signing a group of sets needs.
struct Group<'p> {
    scheme: Scheme,
    perms: &'p Perms,
    portable: bool,
    /// Bytes of one set's values.
    row: usize,
}

impl Group<'_> {
    /// Appends to `out` the values of the sets whose tokens are `items`,
    /// `sizes[i]` of them for set i, signed with the GIL released.
    fn sign(
        &self,
        py: Python<'_>,
        items: &[Bound<'_, PyBytes>],
        sizes: &[usize],
        out: &mut Vec<u8>,
    ) {
        let slices: Vec<&[u8]> = items.iter().map(|b| b.as_bytes()).collect();
        let mut rows: Vec<&[&[u8]]> = Vec::with_capacity(sizes.len());
        let mut rest = &slices[..];
        for &n in sizes {
            let (row, tail) = rest.split_at(n);
            rows.push(row);
            rest = tail;
        }
        let start = out.len();
        out.resize(start + rows.len() * self.row, 0);
        let out = &mut out[start..];
        let Group {
            scheme,
            perms,
            portable,
            row,
        } = *self;
        py.detach(|| {
            if let [tokens] = rows[..] {
                // One set (update_batch): its tokens in pieces on the pool.
                tokens
                    .par_chunks(PIECE)
                    .map(|piece| mins(scheme, perms, piece, portable))
                    .reduce_with(Mins::min_with)
                    .unwrap_or_else(|| mins(scheme, perms, &[], portable))
                    .write(out);
            } else if row > 0 {
                out.par_chunks_mut(row)
                    .zip(rows.par_iter())
                    .for_each(|(out, tokens)| mins(scheme, perms, tokens, portable).write(out));
            }
        });
    }
}

/// Tokens per parallel piece of one large set: enough that splitting
/// costs nothing beside the hashing.
const PIECE: usize = 8192;

/// The hash values of each set of tokens in `sets` (an iterable of
/// iterables of bytes) under `scheme` with the permutations `a`, `b`
/// (little-endian bytes of num_perm values each): one bytes object of
/// `len(sets) × num_perm` values of the scheme's width, little-endian, row
/// by row; each row starts from the empty value, so a set with no token
/// gives the empty MinHash. None when some token is not bytes/bytearray
/// (the caller then hashes in Python, as datasketch would, and raises
/// what it raises). Hashing runs with the GIL released, on rayon's pool:
/// the sets side by side, or the pieces of a single large set. `portable`
/// keeps to the baseline instruction set (for the tests).
#[pyfunction]
#[pyo3(signature = (sets, scheme, a, b, num_perm, portable = false))]
pub(crate) fn _ds_sign<'py>(
    py: Python<'py>,
    sets: &Bound<'py, PyAny>,
    scheme: &str,
    a: &[u8],
    b: &[u8],
    num_perm: usize,
    portable: bool,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let scheme = Scheme::parse(scheme)?;
    let perms = Perms::new(scheme, a, b, num_perm)?;
    let width = match perms {
        Perms::Narrow { .. } => 4,
        Perms::Wide { .. } => 8,
    };
    let group = Group {
        scheme,
        perms: &perms,
        portable,
        row: num_perm * width,
    };
    // Sets are taken a group at a time, so that a token is hashed soon
    // after it was read (still in cache) and a bulk of many sets never
    // holds all their tokens at once.
    let mut out = Vec::new();
    let mut items = Vec::new();
    let mut sizes = Vec::new();
    for set in sets.try_iter()? {
        match tokens_of(&set?, &mut items)? {
            Some(n) => sizes.push(n),
            None => return Ok(None),
        }
        if items.len() >= GROUP_TOKENS {
            group.sign(py, &items, &sizes, &mut out);
            items.clear();
            sizes.clear();
            // A long bulk stops at Ctrl-C between groups (milliseconds).
            py.check_signals()?;
        }
    }
    if !sizes.is_empty() {
        group.sign(py, &items, &sizes, &mut out);
    }
    Ok(Some(PyBytes::new(py, &out)))
}
