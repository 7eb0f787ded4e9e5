//! Every plan in `examples/` checks clean.

use std::path::Path;

#[test]
fn every_example_checks_clean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut checked = 0;
    let mut entries: Vec<_> =
        std::fs::read_dir(&dir).expect("examples/").flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries.iter().filter(|p| p.extension().is_some_and(|e| e == "tiss")) {
        let bytes = std::fs::read(path).expect("readable example");
        let fe = tiss_compiler::frontend(&path.display().to_string(), &bytes);
        let shown: Vec<_> = fe
            .diagnostics
            .iter()
            .map(|d| {
                format!(
                    "{}:{:?} {} {}",
                    path.display(),
                    fe.file.line_col(d.span.start as usize),
                    d.code,
                    d.message
                )
            })
            .collect();
        assert!(shown.is_empty(), "{}", shown.join("\n"));
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} examples found in {}", dir.display());
}
