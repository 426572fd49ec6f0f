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
    format!("{s:.6}")
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
}
