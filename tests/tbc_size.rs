//! Size report: `.tbc` size against source size for every plan in
//! `examples/`, with the source embedded and stripped. Run it with
//! `cargo test --test tbc_size -- --nocapture` to see the table.
//!
//! The only assertions are the invariants (stripping saves at least the
//! source text; the header is fixed); the ratio target is a design figure,
//! reported here, not enforced.

use std::fmt::Write as _;
use std::path::Path;

use tiss_compiler::lower::LowerOptions;

#[test]
fn tbc_size_report() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tiss"))
        .collect();
    paths.sort();
    let mut report = String::new();
    let _ = writeln!(
        report,
        "{:<22} {:>7} {:>7} {:>6} {:>9} {:>6} {:>6} {:>8} {:>6}",
        "plan", "source", ".tbc", "ratio", "stripped", "ratio", "code", "strings", "instrs"
    );
    let (mut total_source, mut total_full, mut total_stripped) = (0, 0, 0);
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read(path).expect("readable example");
        let compile = |strip_source| {
            let Ok((module, _)) = tiss_compiler::compile(&name, &source, LowerOptions { strip_source })
            else {
                panic!("{name} does not compile");
            };
            module
        };
        let module = compile(true);
        let full = tisslang::format::encode(&compile(false)).len();
        let stripped = tisslang::format::encode(&module).len();
        assert!(stripped + source.len() <= full + 8, "{name}: stripping saves the source text");
        let code = tisslang::isa::encode_all(&module.code).len();
        let strings = module.strings.text_len();
        let _ = writeln!(
            report,
            "{name:<22} {:>7} {full:>7} {:>6.2} {stripped:>9} {:>6.2} {code:>6} {strings:>8} {:>6}",
            source.len(),
            full as f64 / source.len() as f64,
            stripped as f64 / source.len() as f64,
            module.code.len()
        );
        total_source += source.len();
        total_full += full;
        total_stripped += stripped;
    }
    let _ = writeln!(
        report,
        "{:<22} {total_source:>7} {total_full:>7} {:>6.2} {total_stripped:>9} {:>6.2}",
        "total",
        total_full as f64 / total_source as f64,
        total_stripped as f64 / total_source as f64,
    );
    let _ = writeln!(
        report,
        "(bytes; ratio = .tbc / source; the {}-byte header is included; code = encoded instructions, \
         strings = string-table text)",
        tisslang::format::HEADER_LEN
    );
    eprint!("{report}");
    assert!(paths.len() >= 3);
}
