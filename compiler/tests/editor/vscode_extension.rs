//! The VS Code extension (`editors/vscode/`): its grammar highlights every
//! reserved word (book: reference/lexical.md); the grammar tests (`vscode-tmgrammar-test`,
//! `test/*.test.tiss`) and `vsce package` pass, and the package holds the
//! grammar, the language configuration and the client. They need node and
//! the extension's packages (`npm ci` in `editors/vscode/`, which `.ci/run`
//! does; the suite installs nothing): without them the test fails when
//! `CI=true` and is skipped, visibly, elsewhere.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tiss_compiler::syntax::token::Kw;

fn extension_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/vscode")
}

/// Field names are highlighted after a `.` (`LAST_RUN.STDOUT`, `e.KIND`)
/// rather than as keywords: `COMMENT`, `LINE` and the like are common words.
const FIELDS: &[&str] = &[
    "STDOUT",
    "STDERR",
    "EXIT_CODE",
    "DURATION",
    "TIMED_OUT",
    "COMMAND",
    "KIND",
    "APPROVED",
    "COMMENT",
    "LINE",
];

#[test]
fn the_grammar_highlights_every_reserved_word() {
    let text = std::fs::read_to_string(extension_dir().join("syntaxes/tiss.tmLanguage.json")).unwrap();
    let grammar: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(grammar["scopeName"], "source.tiss");
    let patterns = grammar["repository"]["keyword"]["patterns"].as_array().unwrap();
    let words: Vec<String> = patterns
        .iter()
        .filter_map(|p| p["match"].as_str())
        .flat_map(|m| {
            m.trim_start_matches("\\b(?:")
                .trim_start_matches("\\b")
                .trim_end_matches(")\\b")
                .trim_end_matches("\\b")
                .split('|')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    for kw in Kw::ALL.iter().map(|k| k.as_str()).filter(|k| !FIELDS.contains(k)) {
        assert!(words.iter().any(|w| w == kw), "the grammar does not highlight `{kw}`");
    }
    assert!(words.iter().any(|w| w == "PARALLEL"), "PARALLEL (reserved for 1.1) is marked");
    let package: Value =
        serde_json::from_str(&std::fs::read_to_string(extension_dir().join("package.json")).unwrap())
            .unwrap();
    assert_eq!(package["contributes"]["languages"][0]["extensions"][0], ".tiss");
    assert_eq!(package["contributes"]["configuration"]["properties"]["tiss.server.path"]["default"], "tissc");
}

fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn run(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "`{program} {}` failed ({}):\n{}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn grammar_tests_pass_and_the_extension_packages() {
    let dir = extension_dir();
    if !(have("node") && have("npm")) {
        return tiss_test_support::skip::missing("node and npm", "the extension's grammar tests run on node");
    }
    if !dir.join("node_modules/.bin/vscode-tmgrammar-test").is_file() {
        let why = "its packages are not installed: run `npm ci` in editors/vscode (.ci/run does)";
        return tiss_test_support::skip::missing("VS Code extension packages", why);
    }
    run(&dir, "node", &["--check", "extension.js"]);
    run(&dir, "npm", &["test"]);
    let out = tempfile::tempdir().unwrap();
    let vsix = out.path().join("tisslang.vsix");
    run(&dir, "npx", &["--no-install", "vsce", "package", "--out", vsix.to_str().unwrap()]);
    // A .vsix is a zip; its central directory names every file in clear.
    let bytes = std::fs::read(&vsix).unwrap();
    assert!(bytes.starts_with(b"PK"), "not a zip");
    let names = String::from_utf8_lossy(&bytes);
    for file in [
        "extension/package.json",
        "extension/extension.js",
        "extension/syntaxes/tiss.tmLanguage.json",
        "extension/language-configuration.json",
        "extension/node_modules/vscode-languageclient/",
    ] {
        assert!(names.contains(file), "{file} is not in the package");
    }
    assert!(!names.contains("extension/test/"), "the grammar tests are not shipped");
}
