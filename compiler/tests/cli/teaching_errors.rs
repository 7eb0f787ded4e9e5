//! Mistakes new users make (issue 14), through the real `tissc`: each gets
//! exactly one error, at its place, with a message that says why and the
//! exact fix, and the errors after it are still reported. Every test compares
//! the whole list of diagnostics, so a second error for the same text fails it.

use std::process::Output;

use tiss_test_support::tissc;

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
    tissc(dir.path(), &["check", "--color", "never", "--error-format", format, "plan.tiss"])
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

// ---- defect 3: malformed durations get the literal that means the same -----

/// A plan with `duration` where a duration literal stands: a budget, a
/// timeout and a comparison (lines 2, 4 and 5, columns 29, 24 and 32).
fn durations_plan(duration: &str) -> String {
    format!(
        "TASK \"t\"\nSET_BUDGET EXECUTION_TIME = {duration}\nSTEP \"s\" {{\n    RUN \"make\" TIMEOUT {duration}\n    ASSERT LAST_RUN.DURATION < {duration}\n}}\n"
    )
}

#[test]
fn malformed_durations_are_fixed_without_changing_their_meaning() {
    for (written, fix, message) in [
        ("1.5s", "1500ms", "`1.5s` is not a duration: durations are whole numbers"),
        ("30S", "30s", "`30S` is not a duration: seconds are written `s`"),
        ("2m30s", "150s", "`2m30s` is not a duration: a duration has a single unit"),
        ("30sec", "30s", "`30sec` is not a duration: seconds are written `s`"),
        ("1d", "24h", "`1d` is not a duration: there are no days; the units are `ms`, `s`, `m` and `h`"),
        ("0.5m", "30s", "`0.5m` is not a duration: durations are whole numbers"),
        ("1.5h", "90m", "`1.5h` is not a duration: durations are whole numbers"),
        ("2h30m", "150m", "`2h30m` is not a duration: a duration has a single unit"),
        ("5MIN", "5m", "`5MIN` is not a duration: minutes are written `m`"),
    ] {
        let src = durations_plan(written);
        let diags = diagnostics(&src);
        assert_eq!(
            places(&src),
            [place("E0008", 2, 29, fix), place("E0008", 4, 24, fix), place("E0008", 5, 32, fix)],
            "{written}: {diags:#?}"
        );
        assert!(diags.iter().all(|d| d.message == message), "{written}: {diags:#?}");
    }
    let text = human(&durations_plan("1.5s"));
    assert!(text.contains("help: write it in a smaller unit: `1500ms`"), "{text}");
}

#[test]
fn a_duration_with_no_exact_literal_gets_no_fix_and_no_stray_0s() {
    for (written, message) in [
        ("1.0001s", "`1.0001s` is not a duration: durations are whole numbers"),
        ("0.5ms", "`0.5ms` is not a duration: durations are whole numbers"),
        ("30x", "`30x` is not a number or a duration"),
        (
            "99999999999999999999d",
            "`99999999999999999999d` is too long a duration: it does not fit in 64 bits of milliseconds",
        ),
    ] {
        let src = durations_plan(written);
        let diags = diagnostics(&src);
        assert_eq!(
            places(&src),
            [place("E0008", 2, 29, ""), place("E0008", 4, 24, ""), place("E0008", 5, 32, "")],
            "{written}: {diags:#?}"
        );
        assert!(diags.iter().all(|d| d.message == message), "{written}: {diags:#?}");
        assert!(!human(&src).contains("0s`"), "{written}: {}", human(&src));
    }
}

#[test]
fn a_number_with_a_fraction_is_one_error() {
    // After TIMEOUT a unitless number is in seconds, as `TIMEOUT 90` is.
    let src = durations_plan("1.5");
    let diags = diagnostics(&src);
    assert_eq!(
        places(&src),
        [place("E0008", 2, 29, ""), place("E0008", 4, 24, "1500ms"), place("E0008", 5, 32, "")],
        "{diags:#?}"
    );
    assert_eq!(diags[0].message, "`1.5` is not a number: numbers are whole");
    assert_eq!(
        diags[1].message,
        "`1.5` is not a duration: a timeout needs a unit, and durations are whole numbers"
    );
    let src = "TASK \"t\"\nSTEP \"s\" {\n    VAR n = 2.5\n    ASSERT n == 2\n}\n";
    assert_eq!(places(src), [place("E0008", 3, 13, "")]);
    // Too large for 64 bits, after TIMEOUT: the overflow alone, no `0s`.
    let src = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"make\" TIMEOUT 99999999999999999999\n}\n";
    assert_eq!(places(src), [place("E0005", 3, 24, "")]);
}

#[test]
fn a_negative_malformed_duration_gets_the_positive_literal() {
    let src = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"make\"\n    ASSERT LAST_RUN.DURATION > -1.5s\n}\n";
    let diags = diagnostics(src);
    assert_eq!(places(src), [place("E0008", 4, 32, "1500ms")], "{diags:#?}");
    assert_eq!(diags[0].message, "a duration cannot be negative");
}

#[test]
fn a_quoted_duration_gets_the_literal_that_means_the_same() {
    for (quoted, fix) in
        [("\"30s\"", "30s"), ("\"1.5s\"", "1500ms"), ("\"2m30s\"", "150s"), ("\"30 sec\"", "30s")]
    {
        let src = format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"make\" TIMEOUT {quoted}\n}}\n");
        assert_eq!(places(&src), [place("E0100", 3, 24, fix)], "{quoted}");
        let src = format!("TASK \"t\"\nSET_BUDGET EXECUTION_TIME = {quoted}\n");
        assert_eq!(places(&src), [place("E0208", 2, 29, fix)], "{quoted}");
    }
}

// ---- defect 17: hints that were missing ---------------------------------------

#[test]
fn not_inside_a_file_test_moves_before_file() {
    for (test, fix) in [
        ("FILE \"x\" NOT CONTAINS \"y\"", "NOT FILE \"x\" CONTAINS \"y\""),
        ("FILE \"out/${name}.txt\" NOT EXISTS", "NOT FILE \"out/${name}.txt\" EXISTS"),
        ("FILE \"x\" NOT IS_EMPTY", "NOT FILE \"x\" IS_EMPTY"),
    ] {
        let src = format!(
            "TASK \"t\"\nSTEP \"s\" {{\n    VAR name = \"a\"\n    ASSERT {test}\n    ASERT TRUE\n}}\n"
        );
        let diags = diagnostics(&src);
        assert_eq!(places(&src), [place("E0100", 4, 12, fix), place("E0101", 5, 5, "ASSERT")], "{diags:#?}");
        assert_eq!(diags[0].message, "`NOT` negates the whole file test, so it stands before `FILE`");
    }
    let text = human("TASK \"t\"\nSTEP \"s\" {\n    ASSERT FILE \"x\" NOT CONTAINS \"y\"\n}\n");
    assert!(text.contains("help: write: `NOT FILE \"x\" CONTAINS \"y\"`"), "{text}");
}

#[test]
fn operators_from_other_languages_get_the_tisslang_one() {
    for (written, fix, column) in [
        ("=>", ">=", 31),
        ("=<", "<=", 31),
        ("<>", "!=", 31),
        ("===", "==", 31),
        ("!==", "!=", 31),
        ("=", "==", 31),
    ] {
        let src = format!(
            "TASK \"t\"\nSTEP \"s\" {{\n    RUN \"make\"\n    ASSERT LAST_RUN.EXIT_CODE {written} 0\n    ASERT TRUE\n}}\n"
        );
        let diags = diagnostics(&src);
        assert_eq!(
            places(&src),
            [place("E0100", 4, column, fix), place("E0101", 5, 5, "ASSERT")],
            "{written}: {diags:#?}"
        );
        let message = if written == "=" {
            "`=` binds; comparison is `==`".to_string()
        } else {
            format!("`{written}` is not an operator; did you mean `{fix}`?")
        };
        assert_eq!(diags[0].message, message);
    }
}

#[test]
fn a_misspelled_keyword_says_what_it_is_not_and_what_it_is_near() {
    // One edit away, at the top level and inside a block.
    let src = "TASK \"t\"\nSTPE \"s\" {\n    STPE \"inner\" { }\n}\n";
    let diags = diagnostics(src);
    assert_eq!(places(src), [place("E0101", 2, 1, "STEP"), place("E0101", 3, 5, "STEP")], "{diags:#?}");
    for d in &diags {
        assert_eq!(d.message, "`STPE` is not a statement; did you mean `STEP` (one edit away)?");
    }
    let text = human(src);
    assert!(text.contains("help: did you mean: `STEP`"), "{text}");
    // Another case: the keyword in the wrong case.
    let src = "TASK \"t\"\nStep \"s\" { }\n";
    let diags = diagnostics(src);
    assert_eq!(places(src), [place("E0101", 2, 1, "STEP")]);
    assert_eq!(diags[0].message, "`Step` is not a statement: keywords are uppercase, so write `STEP`");
    // Elsewhere the message names what was expected there.
    let src = "TASK \"t\"\nSTEP \"s\" {\n    VAR x = \"a\"\n    ASSERT x CONTIANS \"a\"\n}\n";
    let diags = diagnostics(src);
    assert_eq!(places(src), [place("E0101", 4, 14, "CONTAINS")]);
    assert_eq!(diags[0].message, "`CONTIANS` is not an operator; did you mean `CONTAINS` (one edit away)?");
}

#[test]
fn a_pragma_in_another_case_is_reported_not_ignored() {
    let src = "#tiss! Language=Python\n#Tiss_Version >= 1.0\nTASK \"t\"\n";
    let diags = diagnostics(src);
    assert_eq!(
        places(src),
        [place("E0010", 1, 1, "#TISS!"), place("E0010", 2, 1, "#TISS_VERSION")],
        "{diags:#?}"
    );
    assert_eq!(diags[0].message, "`#tiss!` is the pragma `#TISS!` in another case: pragmas are uppercase");
    assert_eq!(
        diags[1].message,
        "`#Tiss_Version` is the pragma `#TISS_VERSION` in another case: pragmas are uppercase"
    );
    // The pragma is still read, as if it were written right: its own
    // mistakes are reported too.
    let src = "#tiss_version >= 9.0\nTASK \"t\"\n";
    let got: Vec<String> = diagnostics(src).into_iter().map(|d| d.code).collect();
    assert_eq!(got, ["E0010", "E0011"]);
    // Comments that only begin like it stay comments; `#TISSUE` in capitals
    // is an unknown pragma, as before.
    let got: Vec<(String, u64)> =
        diagnostics("#tissue samples\n# tiss! not a pragma\n#TISSUE\n#   #TISS!\nTASK \"t\"\n")
            .into_iter()
            .map(|d| (d.code, d.line))
            .collect();
    assert_eq!(got, [("E0010".to_string(), 3)]);
}

#[test]
fn a_timeout_unit_written_apart_is_joined() {
    for (written, fix) in [("5 sec", "5s"), ("2 minutes", "2m"), ("30 s", "30s"), ("1 d", "24h")] {
        let src =
            format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"make\" TIMEOUT {written}\n    ASERT TRUE\n}}\n");
        let diags = diagnostics(&src);
        assert_eq!(
            places(&src),
            [place("E0100", 3, 24, fix), place("E0101", 4, 5, "ASSERT")],
            "{written}: {diags:#?}"
        );
        assert_eq!(diags[0].message, "a timeout's unit follows its number directly");
    }
}

// ---- a bare string after WRITE: the help shows the whole fixed operand -------

#[test]
fn write_with_a_bare_string_is_fixed_to_from_the_string() {
    let src = "TASK \"t\"\nSTEP \"s\" {\n    WRITE \"a.txt\" \"x\"\n}\n";
    assert_eq!(places(src), [place("E0100", 3, 19, "FROM \"x\"")]);
    assert!(human(src).contains("= help: write the string with `FROM`: `FROM \"x\"`"), "{}", human(src));
}
