//! OPH's `add_batch` variants on the real shingle windows of a corpus, on
//! one thread: every file under DIR normalised and its char 5-shingle
//! hashes made once (not timed), then each variant the CPU runs signs every
//! document into 100 bins, a block of window hashes at a time as signing
//! feeds it, and prints its thread CPU seconds per window (the least of
//! ROUNDS). The bins are checked equal across variants. Used for
//! docs/PERFORMANCE.md ("OPH's bins without the gather"): which variant
//! `simd::best` should prefer on this CPU. Not a test.
//!
//! ```text
//! cargo run --release --example oph_kernels -- DIR [ROUNDS]
//! ```

use simfind::simd::KernelSet;
use simfind::sketch::oph::{self, kernel::Variant};
use simfind::text::normalize::{Normalization, normalize_into};
use simfind::text::shingle::{Scratch, ShingleKind, Shingler, StopWords};

mod common;

use common::{files, thread_cpu};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: oph_kernels DIR [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut docs = Vec::new();
    files(dir.as_ref(), &mut docs)?;
    // scan's defaults: lowercase, whitespace collapsed, char 5-shingles.
    let norm = Normalization {
        lowercase: true,
        collapse_whitespace: true,
        drop_whitespace: false,
        fold_accents: false,
        fold_punct: false,
    };
    let shingler = Shingler::new(ShingleKind::Char, 5, StopWords::default());
    let mut scratch = Scratch::default();
    // Each document's windows as the blocks signing hands to add_batch.
    let blocks: Vec<Vec<Vec<u64>>> = docs
        .iter()
        .map(|d| {
            let mut text = String::new();
            normalize_into(d, norm, &mut text);
            let mut blocks = Vec::new();
            shingler.for_each_hash_block(&text, &mut scratch, |b| blocks.push(b.to_vec()));
            blocks
        })
        .collect();
    let windows: usize = blocks.iter().flatten().map(Vec::len).sum();
    println!(
        "{} documents, {windows} windows; best: {}",
        blocks.len(),
        simfind::simd::best::<Variant>().name()
    );
    let mut reference: Option<Vec<u32>> = None;
    simfind::simd::for_each_supported::<Variant>(|variant| {
        let mut least = f64::INFINITY;
        let mut bins = Vec::new();
        for _ in 0..rounds {
            bins.clear();
            let start = thread_cpu();
            for doc in &blocks {
                let mut out = vec![0u32; 100];
                let mut sketch = oph::Sketch::new(1, &mut out);
                for block in doc {
                    sketch.add_batch_variant(variant, block);
                }
                bins.extend_from_slice(&out);
            }
            least = least.min(thread_cpu() - start);
        }
        match &reference {
            Some(r) => assert!(*r == bins, "{} differs", variant.name()),
            None => reference = Some(bins.clone()),
        }
        println!(
            "{:>14}: {:.3} s, {:.2} ns per window (least of {rounds})",
            variant.name(),
            least,
            least * 1e9 / windows as f64
        );
    });
    Ok(())
}
