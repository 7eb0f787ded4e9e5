//! Taint by type (book: reference/policy.md, reference/types.md) through `tissvm`: a typed answer's STRING
//! values stay tainted, its validated INT, BOOL and enum values are clean,
//! so under `[taint] run = "deny"` a command made of enum and integer
//! fields runs while one holding a STRING field (or the whole answer, or a
//! list of strings) is refused; `tissvm inspect` sees the same.

use serde_json::Value as Json;

use crate::common::{Fixture, Run};

const ANSWER: &str = r#"{"risk": 2, "env": "staging", "ok": true, "summary": "x; rm -rf ~", "tags": ["a", "b"], "envs": ["prod"]}"#;

/// A plan asking for a `Deploy` answer, then `lines`, the first at line 5.
fn plan(lines: &[&str]) -> String {
    let body: String = lines.iter().map(|l| format!("    {l}\n")).collect();
    format!(
        "TASK \"t\"\nTYPE Deploy = {{ risk: INT, env: \"staging\" | \"prod\", ok: BOOL, summary: STRING, tags: LIST OF STRING, envs: LIST OF \"staging\" | \"prod\" }}\nSTEP \"s\" {{\n    PROMPT_AGENT \"Plan the deploy.\" INTO r AS Deploy\n{body}}}\n"
    )
}

fn run(fx: &Fixture, plan: &str) -> Run {
    let policy = fx.path("p.toml");
    std::fs::write(&policy, "[taint]\nrun = \"deny\"\n").unwrap();
    let answers = fx.path("answers.json");
    std::fs::write(&answers, serde_json::to_string(&[ANSWER]).unwrap()).unwrap();
    fx.run(
        plan,
        &[
            "--output-format",
            "json",
            "--policy",
            policy.to_str().unwrap(),
            "--mock-answers",
            answers.to_str().unwrap(),
        ],
    )
}

#[track_caller]
fn passes(lines: &[&str]) {
    let fx = Fixture::new();
    let run = run(&fx, &plan(lines));
    let report = run.json();
    assert_eq!(report["status"], "passed", "{report:#}\n{}", run.stderr);
}

#[track_caller]
fn denied(lines: &[&str]) {
    let fx = Fixture::new();
    let run = run(&fx, &plan(lines));
    run.expect(5);
    let report: Json = run.json();
    assert_eq!(report["failure"]["kind"], "security_violation", "{report:#}");
    let message = report["failure"]["message"].as_str().unwrap();
    assert!(message.contains("is denied: it holds data"), "{message}");
}

#[test]
fn validated_integers_booleans_and_enums_reach_a_command() {
    passes(&[
        "RUN \"echo deploy --risk ${r.risk} --env ${r.env} --ok ${r.ok} ${r.envs}\" TIMEOUT 5s",
        "ASSERT LAST_RUN.STDOUT == \"deploy --risk 2 --env staging --ok true prod\\n\"",
    ]);
    // Copied into a variable first, still clean.
    passes(&["VAR e = r.env", "RUN \"echo ${e}\" TIMEOUT 5s"]);
}

#[test]
fn strings_inside_an_answer_stay_tainted() {
    denied(&["RUN \"echo ${r.summary}\" TIMEOUT 5s"]);
    denied(&["RUN \"echo ${r.tags}\" TIMEOUT 5s"]);
    denied(&["VAR s = r.summary", "RUN \"echo ${s}\" TIMEOUT 5s"]);
    // The whole answer, written to a file and read back.
    denied(&["WRITE \"r.json\" FROM r", "READ \"r.json\" AS back", "RUN \"echo ${back}\" TIMEOUT 5s"]);
}

#[test]
fn an_answer_without_strings_is_clean_whole() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    PROMPT_AGENT \"How many?\" INTO n AS INT\n    \
                PROMPT_AGENT \"Which?\" INTO w AS LIST OF \"a\" | \"b\"\n    RUN \"echo ${n} ${w}\" TIMEOUT 5s\n    \
                ASSERT LAST_RUN.STDOUT == \"0\\n\"\n}\n";
    // The mock's smallest answers: 0, and an empty list (no word at all).
    let policy = fx.path("p.toml");
    std::fs::write(&policy, "[taint]\nrun = \"deny\"\n").unwrap();
    let run = fx.run(plan, &["--output-format", "json", "--policy", policy.to_str().unwrap()]);
    let report = run.json();
    assert_eq!(report["status"], "passed", "{report:#}\n{}", run.stderr);

    // The static walk agrees: no flow to report.
    let path = fx.write_plan(plan);
    let inspect = fx.tissvm(&["inspect", &path, "--output-format", "json"]);
    inspect.expect(0);
    assert_eq!(inspect.json()["taint"]["flows"], serde_json::json!([]));
}

/// `tissvm inspect` lists each typed prompt with its type as written, the
/// schema the VM sends, and which of its fields reach which RUN, clean or
/// tainted; a taint flow from a typed answer names its field.
#[test]
fn inspect_lists_typed_prompts_and_the_fields_that_reach_each_run() {
    let fx = Fixture::new();
    let path = fx.write_plan(&plan(&[
        "RUN \"echo ${r.env} ${r.risk}\" TIMEOUT 5s",
        "VAR s = r.summary",
        "RUN \"echo ${s}\" TIMEOUT 5s",
        "PROMPT_AGENT \"How many?\" INTO n AS INT",
    ]));
    let inspect = fx.tissvm(&["inspect", &path, "--output-format", "json"]);
    inspect.expect(0);
    let json = inspect.json();
    let typed = json["typed_prompts"].as_array().expect("typed_prompts");
    assert_eq!(typed.len(), 2, "{json:#}");
    let deploy = &typed[0];
    assert_eq!(
        (&deploy["line"], &deploy["into"], &deploy["name"]),
        (&4.into(), &"r".into(), &"Deploy".into())
    );
    assert_eq!(
        deploy["type"],
        "{ risk: INT, env: \"staging\" | \"prod\", ok: BOOL, summary: STRING, tags: LIST OF STRING, envs: LIST OF \"staging\" | \"prod\" }"
    );
    let schema = &deploy["schema"];
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["risk", "env", "ok", "summary", "tags", "envs"], "declared order, as sent");
    assert_eq!(
        schema["properties"]["env"],
        serde_json::json!({"type": "string", "enum": ["staging", "prod"]})
    );
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        deploy["reaches"],
        serde_json::json!([
            {"field": "r.env", "type": "\"staging\" | \"prod\"", "tainted": false, "run_line": 5},
            {"field": "r.risk", "type": "INT", "tainted": false, "run_line": 5},
            {"field": "r.summary", "type": "STRING", "tainted": true, "run_line": 7},
        ])
    );
    assert_eq!(
        typed[1],
        serde_json::json!({"line": 8, "into": "n", "name": "answer", "type": "INT",
                           "schema": {"type": "integer"}, "reaches": []})
    );
    assert_eq!(
        json["taint"]["flows"],
        serde_json::json!([{"source": "PROMPT_AGENT", "source_line": 4, "run_line": 7, "field": "r.summary"}])
    );
    let reasons = json["risk"]["reasons"].as_array().unwrap();
    assert!(
        reasons.iter().any(|r| r["reason"]
            == "the command holds `r.summary` from the PROMPT_AGENT at line 4 (tainted)"
            && r["line"] == 7),
        "{reasons:#?}"
    );

    let text = fx.tissvm(&["inspect", &path]);
    text.expect(0);
    let out = &text.stdout;
    assert!(
        out.contains(
            "typed prompts:\n  line    4  INTO r AS Deploy = { risk: INT, env: \"staging\" | \"prod\", ok: BOOL, \
             summary: STRING, tags: LIST OF STRING, envs: LIST OF \"staging\" | \"prod\" }\n             \
             schema {\"type\":\"object\",\"properties\":{\"risk\":{\"type\":\"integer\"},"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "\n             r.env (\"staging\" | \"prod\", clean) → line 5 RUN\n             \
             r.risk (INT, clean) → line 5 RUN\n             r.summary (STRING, tainted) → line 7 RUN\n  \
             line    8  INTO n AS INT\n             schema {\"type\":\"integer\"}\n             reaches no RUN\n"
        ),
        "{out}"
    );
    assert!(out.contains("taint flows:\n  line    4  PROMPT_AGENT r.summary → line 7 RUN\n"), "{out}");
}

#[test]
fn inspect_of_the_triage_example_shows_its_enum_reaching_the_run_clean() {
    let fx = Fixture::new();
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/triage.tiss");
    let inspect = fx.tissvm(&["inspect", example, "--output-format", "json"]);
    inspect.expect(0);
    let json = inspect.json();
    assert_eq!(json["typed_prompts"][0]["name"], "Triage");
    assert_eq!(
        json["typed_prompts"][0]["reaches"],
        serde_json::json!([{"field": "t.severity", "type": "\"low\" | \"medium\" | \"high\"", "tainted": false, "run_line": 31}])
    );
    assert_eq!(json["taint"]["flows"], serde_json::json!([]));
}
