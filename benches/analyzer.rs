//! In-process cost of checking a snippet: analysis plus judgement by the standard policy, for
//! typical Python and JavaScript of 10, 100 and 1,000 lines (a realistic block repeated).
//! Run with `cargo bench --bench analyzer`.

use code_sandbox_mcp::analysis::{Language, analyze};
use code_sandbox_mcp::policy::{Policy, load};

const PYTHON: &str = include_str!("data/typical.py");
const JAVASCRIPT: &str = include_str!("data/typical.js");

fn main() {
    divan::main();
}

/// The first `lines` lines of the sample, repeated as needed.
fn snippet(sample: &str, lines: usize) -> String {
    sample
        .lines()
        .cycle()
        .take(lines)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn policy() -> Policy {
    load("standard").expect("the standard preset loads")
}

#[divan::bench(args = [10, 100, 1000])]
fn python(bencher: divan::Bencher, lines: usize) {
    let policy = policy();
    let code = snippet(PYTHON, lines);
    bencher
        .counter(divan::counter::BytesCount::of_str(&code))
        .bench(|| {
            policy.judge(&analyze(
                Language::Python,
                divan::black_box(code.as_bytes()),
            ))
        });
}

#[divan::bench(args = [10, 100, 1000])]
fn javascript(bencher: divan::Bencher, lines: usize) {
    let policy = policy();
    let code = snippet(JAVASCRIPT, lines);
    bencher
        .counter(divan::counter::BytesCount::of_str(&code))
        .bench(|| {
            policy.judge(&analyze(
                Language::JavaScript,
                divan::black_box(code.as_bytes()),
            ))
        });
}

#[divan::bench(args = [100])]
fn python_analysis_only(bencher: divan::Bencher, lines: usize) {
    let code = snippet(PYTHON, lines);
    bencher.bench(|| analyze(Language::Python, divan::black_box(code.as_bytes())));
}

#[divan::bench(args = [100])]
fn python_parse_only(bencher: divan::Bencher, lines: usize) {
    let code = snippet(PYTHON, lines);
    bencher.bench(|| {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_python::LANGUAGE.into())
            .unwrap();
        p.parse(divan::black_box(code.as_bytes()), None)
    });
}
