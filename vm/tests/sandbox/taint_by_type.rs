//! Taint by type (SPEC §8, §12) through `tissvm`: a typed answer's STRING
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
