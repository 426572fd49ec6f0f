//! The values a flag takes: the enums behind `value_enum` flags (each mapped
//! one-to-one to its library type) and the value parsers that reject a bad
//! value as a usage error (exit 2) naming the option, before any work starts.

use std::time::Duration;

use anyhow::{Result, bail};
use clap::ValueEnum;
use simfind::measure::Measure;
use simfind::pipeline::Verification;
use simfind::similarity::ExactIndex;
use simfind::sketch::SketchKind;
use simfind::text::ShingleKind;

/// An `--input` kind, by its name.
pub fn input_kind(text: &str) -> Result<simfind::input::InputKind, String> {
    text.parse()
        .map_err(|e: simfind::input::UnknownInputKind| e.to_string())
}

/// `--block FIELD[:exact|:prefix=N|:soundex]`: a blocking key (exact when
/// no kind is given).
pub fn block_key(text: &str) -> Result<simfind::pipeline::BlockKey, String> {
    use simfind::text::KeyKind;
    let (field, how) = match text.rsplit_once(':') {
        Some((field, how)) => (field, Some(how)),
        None => (text, None),
    };
    if field.is_empty() {
        return Err(format!("'{text}' names no field: give FIELD or FIELD:HOW"));
    }
    let kind = match how {
        None | Some("exact") => KeyKind::Exact,
        Some("soundex") => KeyKind::Soundex,
        Some(how) => match how.strip_prefix("prefix=").map(str::parse::<usize>) {
            Some(Ok(n)) if n >= 1 => KeyKind::Prefix(n),
            _ => {
                return Err(format!(
                    "'{how}' is not a key: give exact, prefix=N (N ≥ 1) or soundex"
                ));
            }
        },
    };
    Ok(simfind::pipeline::BlockKey {
        field: field.to_owned(),
        kind,
    })
}

/// `--delimiter C`: one ASCII byte (`\t` or `tab` for a tab), not a
/// quote or a line end.
pub fn delimiter(text: &str) -> Result<u8, String> {
    let byte = match text {
        "\\t" | "tab" | "\t" => b'\t',
        _ => match text.as_bytes() {
            [byte] if byte.is_ascii() => *byte,
            _ => {
                return Err(format!(
                    "'{text}' is not one character: give one such as ';' or '|', or '\\t' \
                     for a tab"
                ));
            }
        },
    };
    if matches!(byte, b'"' | b'\n' | b'\r') {
        return Err("a quote or a line end cannot separate fields".into());
    }
    Ok(byte)
}

/// `--encoding NAME`: a WHATWG encoding label.
pub fn encoding(text: &str) -> Result<simfind::input::records::Encoding, String> {
    simfind::input::records::Encoding::for_label(text).ok_or_else(|| {
        format!(
            "'{text}' is not an encoding name (such as utf-8, windows-1252, latin1, utf-16le, \
             shift_jis)"
        )
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShingleArg {
    Char,
    Word,
    Stopword,
    Important,
}

impl ShingleArg {
    pub fn kind(self) -> ShingleKind {
        match self {
            ShingleArg::Char => ShingleKind::Char,
            ShingleArg::Word => ShingleKind::Word,
            ShingleArg::Stopword => ShingleKind::StopWord,
            ShingleArg::Important => ShingleKind::Important,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MinHashArg {
    Classic,
    Oph,
    Block,
}

impl MinHashArg {
    pub fn sketch(self) -> SketchKind {
        match self {
            MinHashArg::Classic => SketchKind::Classic,
            MinHashArg::Oph => SketchKind::Oph,
            MinHashArg::Block => SketchKind::Block,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    Auto,
    Exact,
    Lsh,
}

/// `--exact-index`: the names of [`ExactIndex`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExactIndexArg {
    Ppjoin,
    Length,
    Prefix,
    Position,
    Suffix,
}

impl ExactIndexArg {
    pub fn index(self) -> ExactIndex {
        match self {
            ExactIndexArg::Ppjoin => ExactIndex::PpJoin,
            ExactIndexArg::Length => ExactIndex::Length,
            ExactIndexArg::Prefix => ExactIndex::Prefix,
            ExactIndexArg::Position => ExactIndex::Position,
            ExactIndexArg::Suffix => ExactIndex::Suffix,
        }
    }
}

/// `scan --model`: how record pairs are scored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// The (weighted) Jaccard similarity of the records or of their fields.
    #[default]
    Jaccard,
    /// Match weights and probability of the Fellegi–Sunter model, trained by EM.
    FellegiSunter,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyArg {
    Exact,
    Signature,
}

impl VerifyArg {
    pub fn verification(self) -> Verification {
        match self {
            VerifyArg::Exact => Verification::Exact,
            VerifyArg::Signature => Verification::Signature,
        }
    }
}

/// `--format` of the commands that print a human table or the same as CSV
/// (`curve`, `tune`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TextOrCsv {
    Text,
    Csv,
}

/// Parses a byte size (`512K`, `10MB`, `1GiB`): in the library so that the
/// fuzz target checks the function the arguments go through.
pub use simfind::size::parse_size;

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

/// A probability in `(0, 1)`: `--min-recall` (1 is out of reach for T < 1).
pub fn unit_open(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if x <= 0.0 || x >= 1.0 {
        return Err(format!(
            "{x} is not in (0, 1): it must be greater than 0 and less than 1"
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

/// Validates `--wait` (`scan --db`, `index`, `query`). Checked after parsing, not
/// by clap, so its message reads like the other configuration errors.
pub fn wait_duration(seconds: f64) -> Result<Duration> {
    if !(seconds.is_finite() && (0.0..=86_400.0).contains(&seconds)) {
        bail!("--wait must be between 0 and 86400 seconds, got {seconds}");
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimHashWeightsArg {
    Set,
    Counts,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    Jaccard,
    Containment,
    Cosine,
    Euclidean,
    Hamming,
}

impl MetricArg {
    /// The library's measure `--metric` names: the one place the flag's
    /// vocabulary maps onto [`Measure`].
    pub fn measure(self) -> Measure {
        match self {
            MetricArg::Jaccard => Measure::Jaccard,
            MetricArg::Containment => Measure::Containment,
            MetricArg::Cosine => Measure::Cosine,
            MetricArg::Euclidean => Measure::L2,
            MetricArg::Hamming => Measure::Hamming,
        }
    }
}

/// `compare`'s and `explain`'s `--metric`: the set measures, of which
/// containment adds its two directions to what they print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SetMetricArg {
    Jaccard,
    Containment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SketchFamilyArg {
    Minhash,
    Simhash,
    Icws,
}

/// `--max-delete`: a share of the index's documents (`50%`) or a count (`10`).
pub fn max_delete(text: &str) -> Result<simfind::index::MaxDelete, String> {
    use simfind::index::MaxDelete;
    match text.strip_suffix('%') {
        Some(share) => match share.trim().parse::<f64>() {
            Ok(p) if (0.0..=100.0).contains(&p) => Ok(MaxDelete::Share(p / 100.0)),
            _ => Err(format!(
                "`{text}`: a share is a percentage from 0% to 100% (e.g. 50%)"
            )),
        },
        None => text
            .trim()
            .parse::<u64>()
            .map(MaxDelete::Count)
            .map_err(|_| {
                format!("`{text}`: give a share of the documents (e.g. 50%) or a count (e.g. 100)")
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("10mib"), Ok(10 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        // The decimal units mean what the summaries print (MB = 10^6).
        assert_eq!(parse_size("1KB"), Ok(1_000));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("2gb"), Ok(2_000_000_000));
        assert_eq!(parse_size("1TB"), Ok(1_000_000_000_000));
        assert!(parse_size("ten").is_err());
        assert!(parse_size("5X").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

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

/// `--format`: what a scan writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Pairs,
    Tsv,
    Clusters,
    Jsonl,
    Html,
}

/// `--sort`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    Path,
    Similarity,
}

/// `--cluster`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClusterArg {
    Center,
    Connected,
}

/// `--keep`: which member of a group is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeepArg {
    Newest,
    Oldest,
    Largest,
    Smallest,
    ShortestPath,
    First,
    Original,
}

impl KeepArg {
    /// The library's policy for this choice.
    pub fn policy(self) -> simfind::cluster::KeepPolicy {
        match self {
            KeepArg::Newest => simfind::cluster::KeepPolicy::Newest,
            KeepArg::Oldest => simfind::cluster::KeepPolicy::Oldest,
            KeepArg::Largest => simfind::cluster::KeepPolicy::Largest,
            KeepArg::Smallest => simfind::cluster::KeepPolicy::Smallest,
            KeepArg::ShortestPath => simfind::cluster::KeepPolicy::ShortestPath,
            KeepArg::First => simfind::cluster::KeepPolicy::First,
            KeepArg::Original => simfind::cluster::KeepPolicy::Original,
        }
    }
}
