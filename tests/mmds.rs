//! The worked examples of MMDS ch. 3 through the real binary (issue #20).
//! Expected values are the book's (or the closed forms beside them), never
//! numbers the code under test produced. Citations follow the 3rd edition
//! (Leskovec, Rajaraman, Ullman, 2020), as docs/MMDS.md states.

mod util;

use util::{run, stderr, stdout};

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn field(text: &str, prefix: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.contains(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} in {text}"));
    let rest = &line[line.find(prefix).unwrap() + prefix.len()..];
    let number: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number.parse().unwrap_or_else(|_| panic!("{line}"))
}

/// MMDS 3.4.2: the 20 × 5 curve is 1/2 at (1 - 2^(-1/20))^(1/5) and steepest
/// at ((r-1)/(br-1))^(1/r), not at the (1/b)^(1/r) = 0.5493 approximation.
#[test]
fn curve_prints_the_exact_half_point_and_the_steepest_point() {
    let text = ok(&["curve", "--bands", "20", "--rows", "5"]);
    let half = (1.0 - 0.5f64.powf(1.0 / 20.0)).powf(0.2);
    let steep = (4.0f64 / 99.0).powf(0.2);
    let slope = 100.0 * steep.powi(4) * (1.0 - steep.powi(5)).powi(19);
    assert!(
        (field(&text, "P = 1/2 at s =") - half).abs() < 5e-5,
        "{text}"
    );
    assert!(
        (field(&text, "steepest at s =") - steep).abs() < 5e-5,
        "{text}"
    );
    assert!((field(&text, "(slope") - slope).abs() < 5e-4, "{text}");
    assert!((half - 0.5087).abs() < 5e-5 && (steep - 0.5264).abs() < 5e-5);
    // A cascade's half point: AND 4 then OR 4 is 1/2 where (1 - s^4)^4 = 1/2.
    let text = ok(&["curve", "--and", "4", "--or", "4"]);
    let half = (1.0 - 0.5f64.powf(0.25)).powf(0.25);
    assert!(
        (field(&text, "P = 1/2 at s =") - half).abs() < 5e-5,
        "{text}"
    );
}
