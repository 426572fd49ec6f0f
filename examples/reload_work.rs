//! The per-document CPU work of exact verification's reload, by step, on
//! one thread: every distinct file under DIR is normalised once (not timed),
//! then each step runs over all of them and prints its thread CPU seconds.
//! Reading is left out (the page cache's cost, not ours). Used for
//! docs/PERFORMANCE.md, "Pair-dense corpora"; not a test. Compare two
//! commits by running it on each (the steps call the library's own
//! `RepeatFilter` and `HashSorter`).
//!
//! ```text
//! cargo run --release --example reload_work -- DIR [ROUNDS]
//! ```

use simfind::text::distinct::{HashSorter, RepeatFilter};
use simfind::text::normalize::{Normalization, normalize_into};
use simfind::text::shingle::{Scratch, ShingleKind, Shingler, StopWords};

mod common;

use common::{files, thread_cpu};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: reload_work DIR [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    let mut docs = Vec::new();
    files(dir.as_ref(), &mut docs)?;
    // Verification loads each content once.
    docs.sort();
    docs.dedup();
    // scan's defaults: lowercase, whitespace collapsed, char 5-shingles.
    let norm = Normalization {
        lowercase: true,
        collapse_whitespace: true,
        drop_whitespace: false,
        fold_accents: false,
        fold_punct: false,
    };
    let shingler = Shingler::new(ShingleKind::Char, 5, StopWords::default());
    let texts: Vec<String> = docs
        .iter()
        .map(|d| {
            let mut text = String::new();
            normalize_into(d, norm, &mut text);
            text
        })
        .collect();
    let mut scratch = Scratch::default();
    let mut filter = RepeatFilter::default();
    let mut sorter = HashSorter::default();
    let mut set = Vec::new();
    // What the filter passes for each text, as the sort gets it.
    let mut passed: Vec<Vec<u64>> = Vec::with_capacity(texts.len());
    let (mut windows, mut distinct) = (0usize, 0usize);
    for text in &texts {
        filter.filter_into(text.len() / 4, &mut set, |passing| {
            shingler.for_each_hash_block(text, &mut scratch, |block| {
                windows += block.len();
                passing.offer_block(block);
            })
        });
        passed.push(set.clone());
        sorter.sort(&mut set);
        set.dedup();
        distinct += set.len();
    }
    let passes: usize = passed.iter().map(Vec::len).sum();
    println!(
        "{} contents, {windows} windows, {passes} passed the filter, {distinct} distinct",
        texts.len()
    );
    for round in 1..=rounds {
        let start = thread_cpu();
        let mut check = 0u64;
        for text in &texts {
            shingler.for_each_hash_block(text, &mut scratch, |block| check ^= block[0]);
        }
        let hash = thread_cpu() - start;
        let start = thread_cpu();
        for text in &texts {
            filter.filter_into(text.len() / 4, &mut set, |passing| {
                shingler.for_each_hash_block(text, &mut scratch, |block| passing.offer_block(block))
            });
            check ^= set.len() as u64;
        }
        let filtered = thread_cpu() - start;
        let mut sets = passed.clone();
        let start = thread_cpu();
        sets.iter_mut().for_each(|s| sorter.sort(s));
        let sort = thread_cpu() - start;
        let start = thread_cpu();
        sets.iter_mut().for_each(|s| s.dedup());
        let dedup = thread_cpu() - start;
        println!(
            "round {round}: hash {hash:.3} s, hash + filter {filtered:.3} s, \
             sort {sort:.3} s, dedup {dedup:.3} s (check {})",
            check & 0xff
        );
    }
    Ok(())
}
