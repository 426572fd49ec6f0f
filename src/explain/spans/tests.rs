use super::*;
use crate::lsh::Banding;
use crate::sketch::SketchKind;
use crate::text::normalize::Normalization;
use crate::text::shingle::{ShingleKind, Shingler, StopWords};

fn recipe(kind: ShingleKind, k: usize) -> Recipe {
    Recipe {
        normalization: Normalization::default(),
        shingler: Shingler::new(kind, k, StopWords::english()),
        sketch: SketchKind::Classic,
        seed: 42,
        banding: Banding { bands: 16, rows: 8 },
        include_binary: true,
    }
}

#[test]
fn an_edit_in_the_middle() {
    let a = b"The quick brown fox jumps over the lazy dog. It barked.";
    let b = b"the  quick\r\nbrown fox JUMPS over the sleepy dog. It barked.";
    let e = explain(a, b, &recipe(ShingleKind::Char, 5));
    assert_eq!(e.shared.len(), 2, "{e:?}");
    assert_eq!(
        &a[e.shared[0].a.clone()],
        b"The quick brown fox jumps over the "
    );
    assert_eq!(
        &b[e.shared[0].b.clone()],
        b"the  quick\r\nbrown fox JUMPS over the "
    );
    assert_eq!(&a[e.shared[1].a.clone()], b"y dog. It barked.");
    assert_eq!(&b[e.shared[1].b.clone()], b"y dog. It barked.");
    assert_eq!(e.only_a, vec![35..38]);
    assert_eq!(&a[35..38], b"laz");
    assert_eq!(&b[e.only_b[0].clone()], b"sleep");
    let total: f64 = e.shared.iter().map(|s| s.share).sum();
    assert!((total - e.jaccard.unwrap()).abs() < 1e-12);
    assert_eq!(
        e.jaccard,
        measures::jaccard(
            &recipe(ShingleKind::Char, 5).set_of(a),
            &recipe(ShingleKind::Char, 5).set_of(b)
        )
    );
}
