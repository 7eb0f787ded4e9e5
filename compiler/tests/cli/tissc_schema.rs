//! `tissc schema FILE TYPE` (book: reference/types.md): the JSON Schema the VM sends for a
//! TYPE, pretty-printed; an unknown TYPE names the nearest ones (exit 2); a
//! plan with errors gets its diagnostics (exit 1).

use std::path::Path;

use serde_json::Value;
use tiss_test_support::{stderr, stdout, tissc, workspace};

fn examples() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"))
}

/// The schema text the compiler keeps in the bytecode for each typed
/// prompt of `file`: what the VM sends the provider.
fn sent_schemas(file: &Path) -> Vec<Value> {
    let bytes = std::fs::read(file).unwrap();
    let Ok((module, _)) = tiss_compiler::compile("x.tiss", &bytes, Default::default()) else {
        panic!("{} does not compile", file.display())
    };
    let schemas: Vec<Value> = module
        .prompts
        .iter()
        .filter_map(|p| p.answer)
        .map(|a| serde_json::from_str(module.string(a.schema).unwrap()).unwrap())
        .collect();
    assert!(!schemas.is_empty(), "no typed prompt in {}", file.display());
    schemas
}

#[test]
fn prints_the_schema_the_vm_sends_pretty() {
    for (example, name) in [("triage.tiss", "Triage"), ("test_selection.tiss", "Selection")] {
        let file = examples().join(example);
        let o = tissc(examples(), &["schema", example, name]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stderr(&o), "");
        let out = stdout(&o);
        assert!(out.starts_with("{\n  \"type\": \"object\",\n"), "pretty-printed, keys in order:\n{out}");
        assert!(out.ends_with("}\n"), "{out}");
        let printed: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(vec![printed], sent_schemas(&file), "{example}");
    }
    // Key order is the declared order, as sent (not sorted).
    let o = tissc(examples(), &["schema", "triage.tiss", "Triage"]);
    let out = stdout(&o);
    let at = |key: &str| out.find(&format!("\"{key}\"")).unwrap();
    assert!(at("severity") < at("component") && at("component") < at("labels"), "{out}");
    assert!(at("labels") < at("duplicate_of"), "{out}");
}

#[test]
fn a_type_no_prompt_uses_and_a_scalar_type() {
    let plan =
        "TASK \"t\"\nTYPE Level = \"low\" | \"high\"\nTYPE Count = INT\nSTEP \"s\" {\n    LOG \"x\"\n}\n";
    let dir = workspace(&[("p.tiss", plan)]);
    let o = tissc(dir.path(), &["schema", "p.tiss", "Level"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let level: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(level, serde_json::json!({"type": "string", "enum": ["low", "high"]}));
    let o = tissc(dir.path(), &["schema", "p.tiss", "Count"]);
    assert_eq!(stdout(&o), "{\n  \"type\": \"integer\"\n}\n");
}

#[test]
fn an_unknown_type_is_a_usage_error_naming_the_nearest() {
    let o = tissc(examples(), &["schema", "triage.tiss", "Triag"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "tissc: `triage.tiss` has no `TYPE Triag`; the nearest it defines: `Triage`\n");

    let dir = workspace(&[("none.tiss", "TASK \"t\"\nSTEP \"s\" {\n    LOG \"x\"\n}\n")]);
    let o = tissc(dir.path(), &["schema", "none.tiss", "Review"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("tissc: `none.tiss` defines no TYPE"), "{}", stderr(&o));

    let o = tissc(examples(), &["schema", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("JSON Schema") && stdout(&o).contains("<TYPE>"), "{}", stdout(&o));

    // Without a TYPE argument, clap's usage error.
    let o = tissc(examples(), &["schema", "triage.tiss"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("<TYPE>"), "{}", stderr(&o));
}

#[test]
fn a_plan_with_errors_gets_its_diagnostics() {
    let plan = "TASK \"t\"\nTYPE R = { a: Missing }\nSTEP \"s\" {\n    PROMPT_AGENT \"q\" INTO r AS R\n}\n";
    let dir = workspace(&[("bad.tiss", plan)]);
    let o = tissc(dir.path(), &["schema", "bad.tiss", "R"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(err.starts_with("error[E0218]: "), "{err}");
    assert!(err.ends_with("error: could not compile `bad.tiss` due to 1 previous error\n"), "{err}");

    let o = tissc(dir.path(), &["--error-format", "json", "schema", "bad.tiss", "R"]);
    assert_eq!(o.status.code(), Some(1));
    let first: Value = serde_json::from_str(stderr(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["code"], "E0218");

    // Unreadable, or bytecode: usage errors, as for every command that reads source.
    let o = tissc(dir.path(), &["schema", "missing.tiss", "R"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read `missing.tiss`"), "{}", stderr(&o));
}
