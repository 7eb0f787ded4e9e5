//! Rendering of diagnostics: snapshots of the human format for typical errors
//! (through the whole front end), and the exact shape of the JSON format.

use serde_json::Value;
use tiss_compiler::diagnostics::Diagnostic;
use tiss_compiler::diagnostics::codes;
use tiss_compiler::diagnostics::render;
use tiss_compiler::source_file::SourceFile;
use tiss_compiler::syntax::span::Span;

/// Runs the front end on `src` and renders its diagnostics without color.
fn human(src: &str) -> String {
    let fe = tiss_compiler::frontend("plan.tiss", src.as_bytes());
    render::human_to_string(&fe.file, &fe.diagnostics)
}

fn json_lines(src: &str) -> Vec<Value> {
    let fe = tiss_compiler::frontend("plan.tiss", src.as_bytes());
    let mut out = Vec::new();
    render::emit_json(&mut out, &fe.file, &fe.diagnostics).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect()
}

/// Asserts that `src` gives exactly the diagnostic codes `expected`, in order.
fn assert_codes(src: &str, expected: &[&str]) {
    let fe = tiss_compiler::frontend("plan.tiss", src.as_bytes());
    let got: Vec<&str> = fe.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(got, expected, "{}", render::human_to_string(&fe.file, &fe.diagnostics));
}

const MISSPELLED_KEYWORD: &str = r#"TASK "Build"

Step "compile" {
    RUN "make"
}
"#;

const UNKNOWN_FIELD: &str = r#"TASK "Test"

STEP "test" {
    RUN "pytest"
    ASSERT LAST_RUN.EXITCODE == 0
}
"#;

const TYPE_MISMATCH: &str = r#"TASK "Test"

STEP "test" {
    RUN "pytest"
    ASSERT LAST_RUN.EXIT_CODE == "0"
}
"#;

const UNTERMINATED_HEREDOC: &str = r#"TASK "Create the script"

STEP "write" {
    WRITE "main.py" <<PYTHON
print("hello")
}
"#;

const UNDEFINED_VARIABLE: &str = r#"TASK "Greet"

STEP "greet" {
    VAR greeting = "Hello"
    LOG "${greting}, world"
}
"#;

#[test]
fn misspelled_keyword() {
    assert_codes(MISSPELLED_KEYWORD, &["E0101"]);
    insta::assert_snapshot!(human(MISSPELLED_KEYWORD));
}

#[test]
fn unknown_field() {
    assert_codes(UNKNOWN_FIELD, &["E0202"]);
    insta::assert_snapshot!(human(UNKNOWN_FIELD));
}

#[test]
fn type_mismatch() {
    assert_codes(TYPE_MISMATCH, &["E0205"]);
    insta::assert_snapshot!(human(TYPE_MISMATCH));
}

#[test]
fn unterminated_heredoc() {
    let fe = tiss_compiler::frontend("plan.tiss", UNTERMINATED_HEREDOC.as_bytes());
    assert_eq!(fe.diagnostics.first().map(|d| d.code), Some(codes::UNTERMINATED_HEREDOC));
    insta::assert_snapshot!(human(UNTERMINATED_HEREDOC));
}

#[test]
fn undefined_variable() {
    assert_codes(UNDEFINED_VARIABLE, &["E0200"]);
    insta::assert_snapshot!(human(UNDEFINED_VARIABLE));
}

#[test]
fn human_format_is_rustc_style() {
    let text = human(MISSPELLED_KEYWORD);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("error[E0101]: "), "{text}");
    assert_eq!(lines[1], "  --> plan.tiss:3:1");
    assert!(text.contains("3 | Step \"compile\" {\n  | ^^^^"), "{text}");
    assert!(text.contains("= help: ") && text.contains(": `STEP`"), "{text}");
    assert!(!text.contains('\x1b'), "no color in strings");
}

#[test]
fn suggestions_render_as_help_lines() {
    let file = SourceFile::new("p.tiss", "TASK \"t\"\n".to_string());
    let d = Diagnostic::error(codes::UNEXPECTED_TOKEN, Span::new(0, 4), "message")
        .with_note("a note")
        .with_suggestion("first fix", Span::new(0, 4), "ONE")
        .with_suggestion("second fix", Span::new(0, 4), "TWO")
        .with_suggestion("delete it", Span::new(0, 4), "");
    let text = render::human_to_string(&file, &[d]);
    let notes: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("= ")).collect();
    assert_eq!(
        notes,
        ["note: a note", "help: first fix: `ONE`", "help: second fix: `TWO`", "help: delete it"]
    );
}

#[test]
fn json_has_exactly_the_spec_fields_in_order() {
    let file = SourceFile::new("p.tiss", "TASK \"t\"\nStep \"a\" {}\n".to_string());
    let d = Diagnostic::error(codes::MISSPELLED_KEYWORD, Span::new(9, 13), "unknown word `Step`")
        .with_label(Span::new(0, 4), "labels are not in the JSON")
        .with_note("notes are not in the JSON")
        .with_suggestion("write", Span::new(9, 13), "STEP");
    let line = render::json_line(&file, &d);
    assert_eq!(
        line,
        r#"{"severity":"error","code":"E0101","message":"unknown word `Step`","file":"p.tiss","line":2,"column":1,"end_line":2,"end_column":5,"suggestions":[{"message":"write","replacement":"STEP","applicability":"maybe"}]}"#
    );
    let w = Diagnostic::warning(codes::UNEXPECTED_TOKEN, Span::new(0, 0), "w");
    let value: Value = serde_json::from_str(&render::json_line(&file, &w)).unwrap();
    assert_eq!(value["severity"], "warning");
    assert_eq!(value["suggestions"], serde_json::json!([]));
}

#[test]
fn json_columns_count_unicode_scalar_values() {
    // `é` is 2 bytes and `😀` 4, but one column each.
    let src = "TASK \"t\"\nSTEP \"é😀\" { LOG \"é\" ; }\n";
    let file = SourceFile::new("p.tiss", src.to_string());
    let start = src.find(';').unwrap();
    let d = Diagnostic::error(codes::UNEXPECTED_CHARACTER, Span::new(start, start + 1), "`;`");
    let value: Value = serde_json::from_str(&render::json_line(&file, &d)).unwrap();
    assert_eq!((&value["line"], &value["column"]), (&2.into(), &21.into()));
    assert_eq!((&value["end_line"], &value["end_column"]), (&2.into(), &22.into()));
    // The human format agrees.
    assert!(render::human_to_string(&file, &[d]).contains("--> p.tiss:2:21"));

    // And through the front end: the lexer's error on the same character.
    let lines = json_lines(src);
    let semi = lines.iter().find(|v| v["code"] == "E0006").expect("`;` is an error");
    assert_eq!((&semi["line"], &semi["column"]), (&2.into(), &21.into()));
}

#[test]
fn json_lines_from_the_front_end_have_the_spec_fields() {
    let keys =
        ["severity", "code", "message", "file", "line", "column", "end_line", "end_column", "suggestions"];
    for src in [MISSPELLED_KEYWORD, UNKNOWN_FIELD, TYPE_MISMATCH, UNTERMINATED_HEREDOC] {
        let lines = json_lines(src);
        assert!(!lines.is_empty());
        for value in lines {
            let object = value.as_object().unwrap();
            let mut got: Vec<&str> = object.keys().map(String::as_str).collect();
            let mut want = keys.to_vec();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want);
            assert_eq!(value["file"], "plan.tiss");
            for s in value["suggestions"].as_array().unwrap() {
                let mut fields: Vec<&String> = s.as_object().unwrap().keys().collect();
                fields.sort();
                assert_eq!(fields, ["applicability", "message", "replacement"]);
                assert!(matches!(s["applicability"].as_str(), Some("machine" | "maybe")), "{s}");
            }
        }
    }
}
