//! Every `tissc` command the README and the book (`docs/src/`) show works: each `cargo run ... --bin
//! tissc -- ARGS` line is run (through `sh`, for globs) with the built binary,
//! from the repository root, and must exit 0.

use std::path::Path;
use std::process::Command;

#[test]
fn readme_tissc_commands_succeed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repository root");
    let pages = tiss_test_support::docs::markdown_pages();
    let marker = "--bin tissc -- ";
    let mut ran = 0;
    for (page, line) in pages.iter().flat_map(|(page, text)| text.lines().map(move |line| (page, line))) {
        let Some(at) = line.find(marker) else { continue };
        if !line.trim_start().starts_with("cargo run") {
            continue;
        }
        let args = line[at + marker.len()..].split(" #").next().unwrap_or("").trim();
        let script = format!("\"$TISSC\" {args}");
        let out = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env("TISSC", env!("CARGO_BIN_EXE_tissc"))
            .current_dir(root)
            .output()
            .expect("sh runs");
        assert!(
            out.status.success(),
            "{page}: command `tissc {args}` failed with {:?}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 3, "expected the README and the book to show tissc commands, found {ran}");
}
