//! The vector families in the exchange files: `sign --input vectors|bits`
//! signs each point as `scan --input vectors|bits` does (random hyperplanes
//! for cosine, p-stable buckets for Euclidean distance, bit sampling for
//! Hamming distance: [`crate::pipeline::vectors::sign_rows`] with the same
//! sketcher, seed and banding), keyed by its id, with its file, line and the
//! line's byte offset in `docs` (`simfind.key = vector`). The family and its
//! query are in every file's metadata (`simfind.family.*`); the recipe
//! fields that are MinHash's say `none`. `verify --pairs` reads each
//! candidate's point again from its file at its line, checks its id and
//! values against the signed ones, and measures the pair exactly as the scan
//! does.
//!
//! A signature row is `b·r` values as `list<int32>`: hyperplanes write 0 or 1
//! (the side of each hyperplane), p-stable projections their bucket index
//! (⌊(a·v + offset)/width⌋, negative ones as they are), bit sampling the
//! sampled bit (0 or 1). Bands are cut from the row as for MinHash.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_128;

use super::{Exchange, FAMILY_PREFIX, MetadataError};
use crate::input::vectors::{self, BitStrings, ReadError, RowError, Vectors};
use crate::lsh::Banding;
use crate::measure::Measure;
use crate::params::Params;
use crate::pipeline::vectors::{Found, sign_rows};
use crate::progress::{Reporter, Stage, Warning};
use crate::recipe::Recipe;
use crate::similarity::vectors as measure;
use crate::sketch::BitSampling;
use crate::sketch::Features;
use crate::sketch::Hyperplanes;
use crate::sketch::PStable;
use crate::sketch::SketchKind;
use crate::text::Normalization;
use crate::text::{ShingleKind, Shingler, StopWords};

/// A vector family and the pairs it is asked for (what `scan --input
/// vectors|bits` is given).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Family {
    /// Cosine similarity ≥ `min_cosine`, by random hyperplanes.
    Cosine { min_cosine: f64 },
    /// L2 distance ≤ `radius`, by p-stable projections into buckets of `width`.
    Euclidean { radius: f64, width: f64 },
    /// Hamming distance ≤ `radius` bits, by bit sampling.
    Hamming { radius: u32 },
}

impl Family {
    /// The measure its query is in (its name is the `metric` key).
    pub fn measure(self) -> Measure {
        match self {
            Family::Cosine { .. } => Measure::Cosine,
            Family::Euclidean { .. } => Measure::L2,
            Family::Hamming { .. } => Measure::Hamming,
        }
    }

    /// The sketch that signs its points.
    pub fn sketch(self) -> &'static str {
        match self {
            Family::Cosine { .. } => "hyperplane",
            Family::Euclidean { .. } => "pstable",
            Family::Hamming { .. } => "bit_sampling",
        }
    }
}

/// The family's parameters as key-value metadata; `width` is the points'
/// components (vectors) or bits (bit strings). Numbers are written so that
/// they parse back to the same `f64`.
pub fn family_metadata(family: Family, width: usize) -> Vec<(String, String)> {
    let mut kv = vec![
        ("metric", family.measure().name().to_string()),
        ("sketch", family.sketch().to_string()),
        ("width", width.to_string()),
    ];
    match family {
        Family::Cosine { min_cosine } => kv.push(("min_cosine", format!("{min_cosine:?}"))),
        Family::Euclidean { radius, width } => {
            kv.push(("radius", format!("{radius:?}")));
            kv.push(("bucket_width", format!("{width:?}")));
        }
        Family::Hamming { radius } => kv.push(("radius", radius.to_string())),
    }
    kv.into_iter()
        .map(|(k, v)| (format!("{FAMILY_PREFIX}{k}"), v))
        .collect()
}

/// The family and the points' width back from [`family_metadata`]'s pairs;
/// `Err` names what is missing or bad.
pub fn family_of(metadata: &[(String, String)]) -> Result<(Family, usize), MetadataError> {
    let get = |name: &str| {
        let key = format!("{FAMILY_PREFIX}{name}");
        metadata
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .ok_or(MetadataError::Missing { key })
    };
    fn number<T: std::str::FromStr>(name: &str, value: String) -> Result<T, MetadataError> {
        value.parse().map_err(|_| MetadataError::NotANumber {
            key: format!("{FAMILY_PREFIX}{name}"),
            value: Some(value),
        })
    }
    let width: usize = number("width", get("width")?)?;
    let metric = get("metric")?;
    // The measures without a vector family (the Jaccard ones) are refused
    // as unknown names are.
    let family = match metric.parse::<Measure>() {
        Ok(Measure::Cosine) => Family::Cosine {
            min_cosine: number("min_cosine", get("min_cosine")?)?,
        },
        Ok(Measure::L2) => Family::Euclidean {
            radius: number("radius", get("radius")?)?,
            width: number("bucket_width", get("bucket_width")?)?,
        },
        Ok(Measure::Hamming) => Family::Hamming {
            radius: number("radius", get("radius")?)?,
        },
        Ok(Measure::Jaccard | Measure::WeightedJaccard | Measure::Containment) | Err(_) => {
            return Err(MetadataError::NotAFamily {
                key: format!("{FAMILY_PREFIX}metric"),
                value: metric,
            });
        }
    };
    if width == 0 {
        return Err(MetadataError::Zero {
            key: format!("{FAMILY_PREFIX}width"),
        });
    }
    Ok((family, width))
}

/// The `simfind.recipe.*` fields of a vector shard: the banding, the seed
/// and the sketch; shingling and normalisation do not apply (`none`).
pub fn vector_params(family: Family, banding: Banding, seed: u64) -> Params {
    Params {
        shingle_kind: "none".to_string(),
        k: 0,
        normalisation: "none".to_string(),
        n: banding.signature_len() as u32,
        bands: banding.bands as u32,
        rows: banding.rows as u32,
        seed,
        minhash: family.sketch().to_string(),
        stop_words: String::new(),
        include_binary: false,
        extraction: "none".to_string(),
    }
}

/// A recipe carrying a vector shard's banding and seed, for what `verify`
/// shares with MinHash shards (its configuration's shape); nothing is
/// shingled or signed with it.
pub fn vector_recipe(params: &Params) -> Recipe {
    Recipe {
        normalization: Normalization {
            lowercase: false,
            collapse_whitespace: false,
            drop_whitespace: false,
            fold_accents: false,
            fold_punct: false,
        },
        shingler: Shingler::new(ShingleKind::Char, 1, StopWords::default()),
        sketch: SketchKind::Classic,
        seed: params.seed,
        banding: Banding {
            bands: params.bands.max(1) as usize,
            rows: params.rows.max(1) as usize,
        },
        include_binary: false,
    }
}

/// The rows of `points` (n × b·r), signed as `scan --input vectors` signs
/// them: hyperplanes for cosine, p-stable buckets for Euclidean.
pub fn sign_vectors(points: &Vectors, family: Family, banding: Banding, seed: u64) -> Vec<u32> {
    let n = banding.signature_len();
    match family {
        Family::Euclidean { width, .. } => sign_rows(
            &PStable::new(points.dim, n, width, seed),
            points.len(),
            |i| Features::Vector(points.row(i)),
        ),
        Family::Cosine { .. } | Family::Hamming { .. } => {
            sign_rows(&Hyperplanes::new(points.dim, n, seed), points.len(), |i| {
                Features::Vector(points.row(i))
            })
        }
    }
}

/// The rows of `strings`, sampled as `scan --input bits` samples them.
pub fn sign_bits(strings: &BitStrings, banding: Banding, seed: u64) -> Vec<u32> {
    let sampling = BitSampling::random(strings.bits, banding.signature_len(), seed);
    sign_rows(&sampling, strings.len(), |i| Features::Bits(strings.row(i)))
}

/// A vector's content hash: XXH3-128 of its components' bits.
pub fn vector_hash(values: &[f32]) -> u128 {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    xxh3_128(&bytes)
}

/// A bit string's content hash: XXH3-128 of its length and packed words.
pub fn bits_hash(bits: usize, words: &[u64]) -> u128 {
    let mut bytes = (bits as u64).to_le_bytes().to_vec();
    bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    xxh3_128(&bytes)
}

/// The byte offset of every line's start in `input` (line `k`, from 1, at
/// `[k − 1]`), and last the input's length: a point's line and offset for
/// `docs`.
pub fn line_offsets(input: impl Read) -> std::io::Result<Vec<u64>> {
    let mut offsets = vec![0u64];
    let mut at = 0u64;
    let mut input = std::io::BufReader::with_capacity(1 << 16, input);
    loop {
        let buf = std::io::BufRead::fill_buf(&mut input)?;
        if buf.is_empty() {
            break;
        }
        for (i, &b) in buf.iter().enumerate() {
            if b == b'\n' {
                offsets.push(at + i as u64 + 1);
            }
        }
        let len = buf.len();
        at += len as u64;
        std::io::BufRead::consume(&mut input, len);
    }
    if offsets.last() != Some(&at) {
        offsets.push(at);
    }
    Ok(offsets)
}

/// What [`verify_vectors`] found.
#[derive(Debug, Default)]
pub struct VectorOutcome {
    /// Every point's id, in the scan's order (input, then line).
    pub ids: Vec<Vec<u8>>,
    /// Verified pairs, sorted by `(a, b)` (indices into `ids`).
    pub pairs: Vec<Found>,
    /// Distinct candidates the engine gave.
    pub candidates: u64,
    /// Points that could not be read again as signed (each a warning).
    pub errors: u64,
}

/// A point read again.
enum Point {
    Vector(Vec<f32>),
    Bits(Vec<u64>),
}

/// Verifies an engine's candidate pairs of a vector shard as `scan --input
/// vectors|bits` verifies its own: each candidate's point read again at its
/// file and line (another id or other values there, or no point, is a
/// warning naming file and line; its pairs are left out and counted as
/// errors), then the exact cosine, L2 or Hamming distance against the
/// family's query.
pub fn verify_vectors(
    exchange: Exchange,
    candidates: Vec<(u32, u32)>,
    family: Family,
    reporter: &dyn Reporter,
) -> VectorOutcome {
    let docs = exchange.docs;
    let mut candidates: Vec<(u32, u32)> = candidates
        .into_iter()
        .filter(|&(a, b)| a != b)
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    candidates.sort_unstable();
    candidates.dedup();

    let mut wanted = vec![false; docs.len()];
    for &(a, b) in &candidates {
        wanted[a as usize] = true;
        wanted[b as usize] = true;
    }
    // By input: its file, and line → index into docs.
    let mut by_input: HashMap<u32, (PathBuf, Vec<(u64, u32)>)> = HashMap::new();
    for (i, doc) in docs.iter().enumerate().filter(|(i, _)| wanted[*i]) {
        let origin = doc.origin.as_ref().expect("vector docs have origins");
        by_input
            .entry(origin.input)
            .or_insert_with(|| (PathBuf::from(OsStr::from_bytes(&origin.source)), Vec::new()))
            .1
            .push((origin.line, i as u32));
    }
    let mut inputs: Vec<_> = by_input.into_iter().collect();
    inputs.sort_by_key(|(input, _)| *input);

    reporter.begin(Stage::Verify, Some(candidates.len() as u64));
    let mut errors = 0u64;
    let mut found: Vec<Option<Point>> = (0..docs.len()).map(|_| None).collect();
    let hamming = matches!(family, Family::Hamming { .. });
    for (_, (path, at)) in &inputs {
        let mut bad: HashMap<u64, String> = HashMap::new();
        let mut on_skip = |e: RowError| {
            bad.insert(e.line, e.reason);
        };
        let read = std::fs::File::open(path)
            .map_err(ReadError::Io)
            .and_then(|file| {
                if hamming {
                    vectors::read_bits(file, true, &mut on_skip).map(|s| {
                        let w = s.words_per_string();
                        let rows = (0..s.len()).map(|i| Point::Bits(s.row(i).to_vec()));
                        let hashes =
                            (0..s.len()).map(|i| bits_hash(s.bits, &s.words[i * w..][..w]));
                        (
                            s.ids.clone(),
                            s.lines.clone(),
                            hashes.collect::<Vec<_>>(),
                            rows.collect::<Vec<_>>(),
                        )
                    })
                } else {
                    vectors::read_vectors(file, true, &mut on_skip).map(|v| {
                        let rows = (0..v.len()).map(|i| Point::Vector(v.row(i).to_vec()));
                        let hashes = (0..v.len()).map(|i| vector_hash(v.row(i)));
                        (
                            v.ids.clone(),
                            v.lines.clone(),
                            hashes.collect::<Vec<_>>(),
                            rows.collect::<Vec<_>>(),
                        )
                    })
                }
            });
        let (ids, lines, hashes, rows) = match read {
            Ok(read) => read,
            Err(err) => {
                reporter.warn(
                    path,
                    &format!(
                        "{err}; {} of its points in candidate pairs not verified",
                        at.len()
                    ),
                );
                errors += at.len() as u64;
                continue;
            }
        };
        let mut rows: Vec<Option<Point>> = rows.into_iter().map(Some).collect();
        for &(line, i) in at {
            let doc = &docs[i as usize];
            let place = PathBuf::from(format!("{}:{line}", path.display()));
            let id = String::from_utf8_lossy(&doc.path);
            let moved = |now: String| Warning::ChangedSinceSigned {
                now,
                id: id.to_string(),
            };
            let problem = match lines.binary_search(&line) {
                Err(_) => Some(moved(match bad.get(&line) {
                    Some(reason) => reason.to_string(),
                    None => "no point there now".to_string(),
                })),
                Ok(j) if ids[j].as_bytes() != doc.path.as_slice() => {
                    Some(moved(format!("point '{}' there now", ids[j])))
                }
                Ok(j) if hashes[j] != doc.hash => Some(Warning::ContentChangedSinceSigned {
                    what: format!("point '{id}' has other values"),
                }),
                Ok(j) => {
                    found[i as usize] = rows[j].take();
                    None
                }
            };
            if let Some(problem) = problem {
                reporter.warning(&place, &problem);
                errors += 1;
            }
        }
    }
    let pairs: Vec<Found> = candidates
        .par_iter()
        .filter_map(|&(a, b)| {
            let value = match (
                found[a as usize].as_ref()?,
                found[b as usize].as_ref()?,
                family,
            ) {
                (Point::Vector(x), Point::Vector(y), Family::Cosine { min_cosine }) => {
                    measure::cosine(x, y).filter(|&c| c >= min_cosine)
                }
                (Point::Vector(x), Point::Vector(y), Family::Euclidean { radius, .. }) => {
                    Some(measure::euclidean(x, y)).filter(|&d| d <= radius)
                }
                (Point::Bits(x), Point::Bits(y), Family::Hamming { radius }) => {
                    let h = measure::hamming_bits(x, y);
                    (h <= radius).then_some(f64::from(h))
                }
                _ => None,
            }?;
            Some(Found { a, b, value })
        })
        .collect();
    reporter.advance(candidates.len() as u64);
    reporter.end(Stage::Verify);
    VectorOutcome {
        ids: docs.into_iter().map(|d| d.path).collect(),
        pairs,
        candidates: candidates.len() as u64,
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_offsets_mark_every_line_start_and_the_end() {
        assert_eq!(
            line_offsets(&b"a,1\nbb,2\n\nc,3"[..]).unwrap(),
            vec![0, 4, 9, 10, 13]
        );
        assert_eq!(line_offsets(&b"a,1\n"[..]).unwrap(), vec![0, 4]);
        assert_eq!(line_offsets(&b""[..]).unwrap(), vec![0]);
    }

    #[test]
    fn family_metadata_reads_back_exactly() {
        for family in [
            Family::Cosine {
                min_cosine: 0.1 + 0.2,
            },
            Family::Euclidean {
                radius: 1.0 / 3.0,
                width: 2.0 / 3.0,
            },
            Family::Hamming { radius: 7 },
        ] {
            assert_eq!(family_of(&family_metadata(family, 17)), Ok((family, 17)));
        }
        assert!(
            family_of(&[])
                .unwrap_err()
                .to_string()
                .contains("simfind.family.width")
        );
    }

    /// The `metric` strings stored shards carry, whatever the measure's
    /// variant is called; a Jaccard measure names no vector family.
    #[test]
    fn metric_strings_stay_as_stored() {
        let metric = |family| family_metadata(family, 4)[0].1.clone();
        assert_eq!(metric(Family::Cosine { min_cosine: 0.5 }), "cosine");
        let l2 = Family::Euclidean {
            radius: 1.0,
            width: 2.0,
        };
        assert_eq!(metric(l2), "euclidean");
        assert_eq!(metric(Family::Hamming { radius: 1 }), "hamming");
        let mut kv = family_metadata(l2, 4);
        kv[0].1 = "jaccard".to_string();
        assert_eq!(
            family_of(&kv),
            Err(MetadataError::NotAFamily {
                key: "simfind.family.metric".to_string(),
                value: "jaccard".to_string(),
            })
        );
    }
}
