//! `.tbc` size against source size, for every plan in `examples/` and the
//! generated 50,000-line plan (`cargo run --release --example gen_plan --
//! 50000`): the default `.tbc` (the source kept as its hash, as `tissc
//! compile` writes it) is at most as large as its source, besides the JSON
//! Schemas of its typed prompts (book: reference/types.md), which the compiler derives
//! from the plan's types so that no run derives them again. Run with
//! `cargo test --test tbc_size -- --nocapture` to see the table, with the
//! sizes `--embed-source` and `--strip` give.

#[path = "../benches/plan_gen.rs"]
mod plan_gen;

use std::fmt::Write as _;
use std::path::Path;

use tiss_compiler::KeepSource;
use tisslang::container::{HEADER_LEN, encode};
use tisslang::module::kept_source::HASH_LEN;

/// The plans: every example, then the generated one.
fn plans() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tiss"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 3, "the examples are missing");
    let mut plans: Vec<_> = paths
        .iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(p).expect("readable")))
        .collect();
    plans.push(("gen_plan 50000".into(), plan_gen::generate(50_000).into_bytes()));
    plans
}

/// The `.tbc` sizes of `source`: (text embedded, default, stripped), and
/// the bytes of its typed prompts' schemas.
fn sizes(name: &str, source: &[u8]) -> (usize, usize, usize, usize) {
    let compile = |keep| match tiss_compiler::compile(name, source, keep) {
        Ok((module, _)) => module,
        Err(_) => panic!("{name} does not compile"),
    };
    let embedded = compile(KeepSource::Text);
    let schemas = embedded
        .prompts
        .iter()
        .filter_map(|p| p.answer)
        .map(|a| embedded.string(a.schema).map_or(0, str::len))
        .sum();
    let hashed = compile(KeepSource::Hash);
    (encode(&embedded).len(), encode(&hashed).len(), encode(&compile(KeepSource::Nothing)).len(), schemas)
}

#[test]
fn the_default_tbc_is_no_larger_than_its_source() {
    let mut report = String::new();
    let _ = writeln!(
        report,
        "{:<22} {:>8} {:>8} {:>6} {:>8} {:>6} {:>8} {:>6}",
        "plan", "source", "default", "ratio", "embedded", "ratio", "stripped", "ratio"
    );
    let mut too_large = Vec::new();
    for (name, source) in plans() {
        let (embedded, default, stripped, schemas) = sizes(&name, &source);
        let ratio = |n: usize| n as f64 / source.len() as f64;
        let _ = writeln!(
            report,
            "{name:<22} {:>8} {default:>8} {:>6.2} {embedded:>8} {:>6.2} {stripped:>8} {:>6.2}",
            source.len(),
            ratio(default),
            ratio(embedded),
            ratio(stripped)
        );
        // What each form keeps: the hash (and its variant number), the text.
        assert_eq!(default, stripped + HASH_LEN, "{name}: the default keeps the hash, and only it");
        assert!(embedded >= stripped + source.len(), "{name}: --embed-source keeps the text");
        if default > source.len() + schemas {
            too_large.push(format!(
                "{name}: {default} bytes of .tbc ({schemas} of schemas) for {} of source",
                source.len()
            ));
        }
    }
    let _ = writeln!(report, "(bytes, the {HEADER_LEN}-byte header included; ratio = .tbc / source)");
    eprint!("{report}");
    assert!(too_large.is_empty(), "default .tbc larger than its source:\n{}\n{report}", too_large.join("\n"));
}
