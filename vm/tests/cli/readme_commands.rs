//! Every `tissvm` command the README and the book (`docs/src/`) show does what it says: each `cargo run
//! ... --bin tissvm -- ARGS` line is run through `sh` (for `$(mktemp -d)`)
//! with the built binary, from the repository root, and must exit 0, or the
//! status its comment announces (`   # exit 4: ...`). A line may not hide its
//! status behind `||`, so an example that stops failing is caught.

use std::path::Path;
use std::process::Command;

#[test]
fn readme_tissvm_commands_succeed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repository root");
    let pages = tiss_test_support::docs::markdown_pages();
    let marker = "--bin tissvm -- ";
    let mut ran = 0;
    for (page, line) in pages.iter().flat_map(|(page, text)| text.lines().map(move |line| (page, line))) {
        let Some(at) = line.find(marker) else { continue };
        if !line.trim_start().starts_with("cargo run") {
            continue;
        }
        // A trailing `# comment` (not a `#` inside the arguments) may announce
        // the exit status.
        let mut parts = line[at + marker.len()..].splitn(2, "   #");
        let args = parts.next().unwrap_or("").trim();
        let expected = expected_status(parts.next().unwrap_or(""));
        assert!(!args.contains("||"), "{page}: command `tissvm {args}` hides its exit status behind `||`");
        let script = format!("\"$TISSVM\" {args}");
        let out = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env("TISSVM", env!("CARGO_BIN_EXE_tissvm"))
            .env(tiss_vm::session::snapshot_key::KEY_FILE_VAR, crate::common::key_file())
            .current_dir(root)
            .output()
            .expect("sh runs");
        assert_eq!(
            out.status.code(),
            Some(expected),
            "{page}: command `tissvm {args}` exited with {:?}, expected {expected}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 4, "expected the README and the book to show tissvm commands, found {ran}");
}

/// The status a command's comment announces (`# exit 4: budget exceeded`), else 0.
fn expected_status(comment: &str) -> i32 {
    let comment = comment.trim();
    match comment.strip_prefix("exit ") {
        Some(rest) => {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().unwrap_or_else(|_| panic!("comment `# {comment}`: expected `exit N`"))
        }
        None => 0,
    }
}
