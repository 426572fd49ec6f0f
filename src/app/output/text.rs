//! Small formatting helpers shared by the writers: timestamps, JSON strings,
//! paths that may not be UTF-8.

use std::io::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

/// RFC 3339 in UTC with whole seconds (`2024-05-01T12:34:56Z`); sub-second
/// parts are dropped (the keep order still uses them). Times before 1970 work.
pub fn rfc3339(t: SystemTime) -> String {
    let secs: i64 = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs_f64().ceil() as i64),
    };
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian
/// calendar (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Writes `s` as a JSON string literal (quotes and escapes by serde_json).
pub fn json_str(w: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(w, s).map_err(io::Error::from)
}

/// Writes `"key":"path"` for a path, and when its bytes are not UTF-8 also
/// `,"key_bytes":[…]` with every byte, so that the exact name survives (the
/// string then has U+FFFD where the bytes were invalid).
pub fn json_path(w: &mut impl Write, key: &str, path: &[u8]) -> io::Result<()> {
    write!(w, "\"{key}\":")?;
    match std::str::from_utf8(path) {
        Ok(s) => json_str(w, s),
        Err(_) => {
            json_str(w, &String::from_utf8_lossy(path))?;
            write!(w, ",\"{key}_bytes\":[")?;
            for (i, b) in path.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                write!(w, "{b}")?;
            }
            w.write_all(b"]")
        }
    }
}

/// A similarity as written everywhere: six decimals.
pub fn similarity(s: f64) -> String {
    let mut out = Vec::with_capacity(8);
    push_similarity(&mut out, s);
    // Only ASCII digits, a dot and (in the fallback) what `format!` wrote.
    String::from_utf8(out).unwrap_or_else(|_| format!("{s:.6}"))
}

/// Appends `format!("{s:.6}")`'s bytes to `out` without formatting
/// machinery: the pairs writers print two of these per row, and
/// `core::fmt`'s exact mode (with its big-number fallback) was most of the
/// serial time spent writing tens of thousands of rows.
///
/// Exact for every `s`: a finite `0 ≤ s < 2²⁰` is `m · 2⁻ᵉ` with `m < 2⁵³`,
/// so `s · 10⁶ = m · 10⁶ / 2ᵉ` is an integer quotient and a remainder in
/// `u128` (`m · 10⁶ < 2⁷³`), rounded half to even as `format!` rounds a
/// tie; anything else (negative, huge, not finite) goes to `format!`.
pub fn push_similarity(out: &mut Vec<u8>, s: f64) {
    const SCALE: u128 = 1_000_000;
    let bits = s.to_bits();
    let biased = (bits >> 52) as i32; // the sign bit is 0 below
    let fraction = bits & ((1 << 52) - 1);
    if bits >> 63 != 0 || !s.is_finite() || s >= (1u64 << 20) as f64 {
        out.extend_from_slice(format!("{s:.6}").as_bytes());
        return;
    }
    // s = m · 2^-shift (subnormals: no implicit bit, exponent -1074).
    let (m, shift) = if biased == 0 {
        (fraction, 1074)
    } else {
        (fraction | 1 << 52, 1075 - biased)
    };
    let scaled = if shift >= 100 {
        // s < 2^53 · 2^-100, so s · 10^6 < 2^-27: rounds to 0.
        0
    } else {
        let p = u128::from(m) * SCALE;
        let (q, r) = (p >> shift, p & ((1u128 << shift) - 1));
        let half = 1u128 << (shift - 1);
        q + u128::from(r > half || (r == half && q & 1 == 1))
    };
    let (int, frac) = ((scaled / SCALE) as u64, (scaled % SCALE) as u32);
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(digits.format(int).as_bytes());
    out.push(b'.');
    let mut six = [b'0'; 6];
    let mut rest = frac;
    for d in six.iter_mut().rev() {
        *d = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend_from_slice(&six);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: i64) -> SystemTime {
        if secs >= 0 {
            UNIX_EPOCH + Duration::from_secs(secs as u64)
        } else {
            UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
        }
    }

    #[test]
    fn timestamps_in_utc() {
        assert_eq!(rfc3339(at(0)), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(at(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(at(1_700_000_000)), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(at(-1)), "1969-12-31T23:59:59Z");
        assert_eq!(
            rfc3339(at(1_700_000_000) + Duration::from_millis(999)),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(
            rfc3339(at(-1) + Duration::from_millis(500)),
            "1969-12-31T23:59:59Z"
        );
    }

    fn path_json(path: &[u8]) -> String {
        let mut out = Vec::new();
        out.push(b'{');
        json_path(&mut out, "path", path).unwrap();
        out.push(b'}');
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn paths_are_escaped_and_non_utf8_bytes_survive() {
        assert_eq!(
            path_json(b"a \"q\"\\b\n\x01.txt"),
            r#"{"path":"a \"q\"\\b\n\u0001.txt"}"#
        );
        assert_eq!(
            path_json(b"caf\xe9.txt"),
            r#"{"path":"caf�.txt","path_bytes":[99,97,102,233,46,116,120,116]}"#
        );
        let v: serde_json::Value = serde_json::from_str(&path_json(b"x\xff")).unwrap();
        assert_eq!(v["path_bytes"], serde_json::json!([120, 255]));
    }
    /// `push_similarity`'s bytes against `format!`'s, the definition.
    fn same_as_format(s: f64) {
        let mut got = Vec::new();
        push_similarity(&mut got, s);
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("{s:.6}"),
            "{s:e} ({:#x})",
            s.to_bits()
        );
    }

    #[test]
    fn similarities_print_as_format_prints_them_at_ties_edges_and_fallbacks() {
        // k/128 · 10^6 = k · 7812.5: exact ties, rounded half to even either way.
        for k in 0..=128 {
            same_as_format(k as f64 / 128.0);
        }
        // Next to the ties, and the values that round up into the next unit.
        for k in 0..=128u32 {
            let t = k as f64 / 128.0;
            same_as_format(f64::from_bits(t.to_bits() + 1));
            same_as_format(f64::from_bits(t.to_bits().saturating_sub(1)));
        }
        for s in [
            0.0,
            -0.0,
            1.0,
            0.9999995,
            0.99999949999,
            0.0000005,
            0.00000049999999,
            5e-7,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            2.0f64.powi(-60),
            2.0f64.powi(-27),
            1048575.9999996,
            1048576.0,
            1e300,
            -0.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            same_as_format(s);
        }
        // Every Jaccard a/b the scans can report, for small sets.
        for b in 1..=600u32 {
            for a in 0..=b {
                same_as_format(f64::from(a) / f64::from(b));
            }
        }
        assert_eq!(similarity(0.5), "0.500000");
    }

    proptest::proptest! {
        // A fixed seed and no regression file: a failure reproduces on any clone.
        #![proptest_config(proptest::test_runner::Config {
            cases: 20_000,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5_1D1F),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        #[test]
        fn similarities_print_as_format_prints_them(
            bits in proptest::prelude::any::<u64>(),
            a in 0u64..1 << 40,
            b in 1u64..1 << 40,
        ) {
            // Any f64 at all, and ratios as the scans make them.
            same_as_format(f64::from_bits(bits));
            same_as_format(a.min(b) as f64 / b as f64);
        }
    }
}
