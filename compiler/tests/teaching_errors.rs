//! Mistakes new users make (issue 14), through the real `tissc`: each gets
//! exactly one error, at its place, with a message that says why and the
//! exact fix, and the errors after it are still reported. Every test compares
//! the whole list of diagnostics, so a second error for the same text fails it.

use std::process::{Command, Output};

use serde_json::Value;

/// One JSON diagnostic, reduced to what these tests pin down.
#[derive(Debug, PartialEq)]
struct Diag {
    code: String,
    line: u64,
    column: u64,
    message: String,
    /// The first suggestion's replacement, "" for none.
    replacement: String,
}

/// Runs `tissc check` on `src` in a temporary directory.
fn check(src: &str, format: &str) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("plan.tiss"), src).expect("write plan");
    Command::new(env!("CARGO_BIN_EXE_tissc"))
        .args(["check", "--color", "never", "--error-format", format, "plan.tiss"])
        .current_dir(dir.path())
        .output()
        .expect("run tissc")
}

/// The JSON diagnostics of `src`, in the order `tissc` prints them.
fn diagnostics(src: &str) -> Vec<Diag> {
    let o = check(src, "json");
    let err = String::from_utf8(o.stderr).expect("stderr is UTF-8");
    let diags: Vec<Diag> = err
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            Diag {
                code: v["code"].as_str().unwrap().to_string(),
                line: v["line"].as_u64().unwrap(),
                column: v["column"].as_u64().unwrap(),
                message: v["message"].as_str().unwrap().to_string(),
                replacement: v["suggestions"][0]["replacement"].as_str().unwrap_or("").to_string(),
            }
        })
        .collect();
    let expected_status = if diags.is_empty() { 0 } else { 1 };
    assert_eq!(o.status.code(), Some(expected_status), "{diags:#?}");
    diags
}

/// `(code, line, column, replacement)` of each diagnostic.
fn places(src: &str) -> Vec<(String, u64, u64, String)> {
    diagnostics(src).into_iter().map(|d| (d.code, d.line, d.column, d.replacement)).collect()
}

fn place(code: &str, line: u64, column: u64, replacement: &str) -> (String, u64, u64, String) {
    (code.to_string(), line, column, replacement.to_string())
}

/// The human rendering of `src`'s diagnostics.
fn human(src: &str) -> String {
    String::from_utf8(check(src, "human").stderr).expect("stderr is UTF-8")
}

// ---- defect 2: a bad TIMEOUT operand does not hide what follows --------------

#[test]
fn quoted_timeout_is_fixed_and_the_next_line_still_checked() {
    let src =
        "TASK \"t\"\nSTEP \"s\" {\n    RUN \"make\" TIMEOUT \"30s\"\n    ASERT LAST_RUN.EXIT_CODE == 0\n}\n";
    let diags = diagnostics(src);
    assert_eq!(places(src), [place("E0100", 3, 24, "30s"), place("E0101", 4, 5, "ASSERT")], "{diags:#?}");
    assert_eq!(diags[0].message, "a timeout is a duration literal, not a string");
    let text = human(src);
    assert!(
        text.contains("3 |     RUN \"make\" TIMEOUT \"30s\"\n  |                        ^^^^^"),
        "{text}"
    );
    assert!(text.contains("help: drop the quotes: `30s`"), "{text}");
    assert!(text.contains("could not check `plan.tiss` due to 2 previous errors"), "{text}");
}

#[test]
fn every_bad_timeout_operand_lets_parsing_go_on() {
    // A unitless number, a string that is no duration, and no operand at all:
    // each is one error, and the misspelled ASSERT on the next line is found.
    for (operand, column, replacement) in [("90", 24, "90s"), ("\"soon\"", 24, ""), ("", 5, "")] {
        let src = format!(
            "TASK \"t\"\nSTEP \"s\" {{\n    RUN \"make\" TIMEOUT {operand}\n    ASERT LAST_RUN.EXIT_CODE == 0\n}}\n"
        );
        let line = if operand.is_empty() { 4 } else { 3 };
        let got = places(&src);
        assert_eq!(got[0], place("E0100", line, column, replacement), "{operand}: {got:#?}");
        assert_eq!(got[1..], [place("E0101", 4, 5, "ASSERT")], "{operand}: {got:#?}");
    }
}

#[test]
fn recovery_resumes_at_the_next_line() {
    // The value is missing at the end of the line: the VAR on the next line
    // is parsed, so `y` is bound and the ASSERT raises nothing.
    let src = "TASK \"t\"\nSTEP \"s\" {\n    VAR x =\n    VAR y = 1\n    ASSERT y == 1\n}\n";
    let diags = diagnostics(src);
    assert_eq!(places(src), [place("E0100", 4, 5, "")], "{diags:#?}");
    assert_eq!(diags[0].message, "expected the value, an expression, found `VAR`");
}
