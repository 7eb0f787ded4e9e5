//! `tissc fmt` keeps meaning, is idempotent, and lays plans out as the book
//! says (guide/tissc.md), over every example and a corpus of messy plans
//! (`fmt_corpus/`). The command line is tested in `cli/fmt_cli.rs`.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tiss_compiler::KeepSource;
use tiss_compiler::fmt::{format_source, same_meaning};

fn plans(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut plans: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "tiss"))
        .collect();
    plans.sort();
    assert!(!plans.is_empty(), "no plans in {}", dir.display());
    plans
}

/// Every example and every corpus plan, with its text.
fn all_plans() -> Vec<(String, String)> {
    plans("../examples")
        .into_iter()
        .chain(plans("tests/front_end/fmt_corpus"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("plan is readable");
            (path.file_name().expect("file name").to_string_lossy().into_owned(), text)
        })
        .collect()
}

fn formatted(name: &str, text: &str) -> String {
    format_source(text)
        .unwrap_or_else(|d| panic!("{name}: {:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()))
}

fn ast_without_positions(text: &str) -> Value {
    let (plan, diagnostics) = tiss_compiler::parser::parse(text);
    assert!(diagnostics.iter().all(|d| !d.is_error()), "{diagnostics:?}");
    same_meaning::without_positions(text, &plan.items)
}

/// The module as JSON without what positions decide: line and column
/// fields, the line table, the source's hash. Everything else, the stored
/// text of each condition included, is the same before and after.
fn bytecode_without_lines(name: &str, text: &str) -> Value {
    let (module, _) = tiss_compiler::compile(name, text.as_bytes(), KeepSource::Nothing)
        .unwrap_or_else(|fe| panic!("{name} does not compile: {:?}", fe.diagnostics));
    let mut value = serde_json::to_value(&module).expect("a module serializes");
    // The manifest's ENV entries are (name, line) pairs.
    if let Some(Value::Array(env)) = value.get_mut("manifest").and_then(|m| m.get_mut("env")) {
        env.iter_mut().for_each(|pair| *pair = pair[0].clone());
    }
    strip_positions(&mut value);
    value
}

fn strip_positions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|key, _| !matches!(key.as_str(), "line" | "column" | "lines" | "source"));
            map.values_mut().for_each(strip_positions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_positions),
        _ => {}
    }
}

#[test]
fn formatting_keeps_the_syntax_tree() {
    for (name, text) in all_plans() {
        let out = formatted(&name, &text);
        assert_eq!(ast_without_positions(&text), ast_without_positions(&out), "{name}: the AST changed");
    }
}

#[test]
fn formatting_keeps_the_bytecode_apart_from_line_numbers() {
    for (name, text) in all_plans() {
        let out = formatted(&name, &text);
        let before = bytecode_without_lines(&name, &text);
        let after = bytecode_without_lines(&name, &out);
        if before != after {
            let (a, b) = (
                serde_json::to_string_pretty(&before).unwrap(),
                serde_json::to_string_pretty(&after).unwrap(),
            );
            let diff = similar::TextDiff::from_lines(&a, &b).unified_diff().to_string();
            panic!("{name}: the bytecode changed:\n{diff}");
        }
    }
}

#[test]
fn formatting_is_idempotent() {
    for (name, text) in all_plans() {
        let once = formatted(&name, &text);
        assert_eq!(formatted(&name, &once), once, "{name}: formatting the formatted text changed it");
    }
}

/// The layout itself, one snapshot per corpus plan (`tests/snapshots/fmt__*.snap`).
#[test]
fn corpus_layout() {
    for path in plans("tests/front_end/fmt_corpus") {
        let name = path.file_stem().expect("file stem").to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("plan is readable");
        insta::assert_snapshot!(name.clone(), formatted(&name, &text));
    }
}

#[test]
fn a_plan_with_a_syntax_error_is_refused_with_its_diagnostics() {
    let errors = format_source("TASK \"t\"\nSTEP \"s\" { RUN }\n").expect_err("RUN needs a command");
    assert!(errors.iter().any(|d| d.code.as_str() == "E0100"), "{errors:?}");
}

#[test]
fn crlf_and_a_bom_become_lf_without_bom() {
    let out = formatted(
        "crlf",
        "\u{FEFF}TASK \"t\"\r\nSTEP \"s\" { # c\r\n WRITE \"f\" <<EOF\r\nbody\r\nEOF\r\n}\r\n",
    );
    assert_eq!(out, "TASK \"t\"\n\nSTEP \"s\" { # c\n    WRITE \"f\" <<EOF\nbody\nEOF\n}\n");
}

#[test]
fn a_comment_inside_a_statement_moves_above_it_unless_it_would_read_as_a_pragma() {
    let out = formatted(
        "inside",
        "TASK \"t\"\nSTEP \"s\" {\n  ASSERT TRUE # one\n  AND TRUE #TISS! x=y\n  OR FALSE # two\n}\n",
    );
    assert_eq!(
        out,
        "TASK \"t\"\n\nSTEP \"s\" {\n    # one\n    ASSERT TRUE AND TRUE OR FALSE #TISS! x=y # two\n}\n"
    );
}

#[test]
fn a_type_stays_on_its_line_when_it_fits_and_breaks_its_records_when_not() {
    let out = formatted(
        "types",
        "TASK \"t\"\nTYPE A={a:INT,b?:LIST OF STRING,}\nTYPE B = { first_field_name: STRING, second_field_name: LIST OF STRING, third_field_name: INT, x: INT }\n",
    );
    assert_eq!(
        out,
        "TASK \"t\"\n\nTYPE A = { a: INT, b?: LIST OF STRING }\nTYPE B = {\n    first_field_name: STRING,\n    \
         second_field_name: LIST OF STRING,\n    third_field_name: INT,\n    x: INT,\n}\n"
    );
    // Exactly 100 columns fit; 101 do not.
    let fits = format!("TASK \"t\"\n\nTYPE C = {{ a: \"{}\" }}\n", "x".repeat(100 - 18));
    assert_eq!(fits.lines().nth(2).unwrap().chars().count(), 100);
    assert_eq!(formatted("fits", &fits), fits);
    let too_long = format!("TASK \"t\"\n\nTYPE C = {{ a: \"{}\" }}\n", "x".repeat(101 - 18));
    assert_eq!(
        formatted("too long", &too_long),
        format!("TASK \"t\"\n\nTYPE C = {{\n    a: \"{}\",\n}}\n", "x".repeat(83))
    );
}

#[test]
fn a_typed_prompt_keeps_its_type_on_its_line_and_a_comment_keeps_its_field() {
    let out = formatted(
        "typed prompt",
        "TASK \"t\"\nSTEP \"s\" {\nPROMPT_AGENT \"q\"   INTO r AS\n  LIST   OF {ok:BOOL}\nPROMPT_AGENT \"q\" INTO v AS { a: INT, # why\n b: \"x\"|\"y\" }\nIF v.a EXISTS { }\n}\n",
    );
    assert_eq!(
        out,
        "TASK \"t\"\n\nSTEP \"s\" {\n    PROMPT_AGENT \"q\" INTO r AS LIST OF { ok: BOOL }\n    \
         PROMPT_AGENT \"q\" INTO v AS {\n        a: INT, # why\n        b: \"x\" | \"y\",\n    }\n    \
         IF v.a EXISTS {}\n}\n"
    );
}

#[test]
fn adjacent_types_keep_the_blank_lines_of_the_source() {
    let src = "TASK \"t\"\n\nTYPE A = INT\nTYPE B = BOOL\n\nTYPE C = STRING\n\nSTEP \"s\" {}\n";
    assert_eq!(formatted("adjacent", src), src);
}
