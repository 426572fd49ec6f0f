//! clap value parsers for the numbers subcommands take, so that a bad value is a
//! usage error (exit 2) naming the option before any work starts.

/// An integer ≥ 1 (bands, rows, hash counts, AND/OR sizes).
pub fn count(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    if n == 0 {
        return Err("must be at least 1".into());
    }
    Ok(n)
}

fn number(text: &str) -> Result<f64, String> {
    let x: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if !x.is_finite() {
        return Err("must be a finite number".into());
    }
    Ok(x)
}

/// A similarity threshold or probability in `(0, 1]`.
pub fn unit_open_closed(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if x <= 0.0 || x > 1.0 {
        return Err(format!(
            "{x} is not in (0, 1]: it must be greater than 0 and at most 1"
        ));
    }
    Ok(x)
}

/// A distance or probability in `[0, 1]`.
pub fn unit_closed(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if !(0.0..=1.0).contains(&x) {
        return Err(format!("{x} is not in [0, 1]"));
    }
    Ok(x)
}

/// A weight: finite and ≥ 0.
pub fn weight(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if x < 0.0 {
        return Err(format!("{x} is negative: weights must be 0 or more"));
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_reject_zero_and_junk() {
        assert_eq!(count("20"), Ok(20));
        assert!(count("0").is_err());
        assert!(count("-3").is_err());
        assert!(count("2.5").is_err());
    }

    #[test]
    fn unit_intervals_have_the_documented_ends() {
        assert_eq!(unit_open_closed("1"), Ok(1.0));
        assert!(unit_open_closed("0").is_err());
        assert!(unit_open_closed("1.01").is_err());
        assert!(unit_open_closed("NaN").is_err());
        assert_eq!(unit_closed("0"), Ok(0.0));
        assert!(unit_closed("-0.1").is_err());
    }

    #[test]
    fn weights_are_non_negative_and_finite() {
        assert_eq!(weight("0"), Ok(0.0));
        assert_eq!(weight("2.5"), Ok(2.5));
        assert!(weight("-1").is_err());
        assert!(weight("inf").is_err());
    }
}
