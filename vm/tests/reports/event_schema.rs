//! The schema of the `--log-file` events and of the JSON report's
//! `effects` (book: reference/formats.md): every event kind a
//! run can log, each field with its JSON type — a count is a JSON number,
//! a flag a boolean, never a string holding one — and no field the schema
//! does not know, so a new detail has to be declared here.

use crate::common::Fixture;
use crate::run_reports::log_events;
use serde_json::Value as Json;

/// The JSON type of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Text,
    Count,
    Flag,
    /// A step's name, or `null` outside steps.
    TextOrNull,
}

impl Type {
    fn fits(self, value: &Json) -> bool {
        match self {
            Type::Text => value.is_string(),
            Type::Count => value.is_u64(),
            Type::Flag => value.is_boolean(),
            Type::TextOrNull => value.is_string() || value.is_null(),
        }
    }
}

/// The fields every event has (the report's effects have no `ts`).
const COMMON: [(&str, Type); 7] = [
    ("ts", Type::Text),
    ("event", Type::Text),
    ("step", Type::TextOrNull),
    ("line", Type::Count),
    ("op", Type::Text),
    ("outcome", Type::Text),
    ("duration_ms", Type::Count),
];

/// A detail of an event: its name, its type, and whether it is always there.
type Detail = (&'static str, Type, bool);

/// Every event kind with its details.
const KINDS: [(&str, &[Detail]); 19] = [
    ("step_start", &[]),
    ("step_end", &[]),
    ("run", &[("stdout", Type::Text, false), ("stderr", Type::Text, false)]),
    ("output", &[("data", Type::Text, true)]),
    ("output_omitted", &[("bytes", Type::Count, true)]),
    ("write", &[]),
    ("append", &[]),
    ("read", &[]),
    ("mkdir", &[]),
    ("delete", &[]),
    ("log", &[]),
    (
        "prompt",
        &[
            ("tokens", Type::Count, false),
            ("usage", Type::Text, false),
            ("requests", Type::Count, false),
            ("finish_reason", Type::Text, false),
            ("repair", Type::Flag, false),
        ],
    ),
    ("approval", &[]),
    ("answer", &[("statement", Type::Text, true), ("from", Type::Text, true), ("comment", Type::Text, true)]),
    ("estimate", &[]),
    ("budget_warning", &[]),
    ("caught", &[]),
    ("failed", &[]),
    // A RUN killed by a second Ctrl-C (suspend/suspend_sigint.rs): not
    // made here, its fields are the common ones.
    ("interrupted", &[]),
];

/// What fits nowhere in `event` (with `ts` when `logged`).
fn misfits(event: &Json, logged: bool) -> Vec<String> {
    let Some(fields) = event.as_object() else { return vec![format!("not an object: {event}")] };
    let kind = event["event"].as_str().unwrap_or("?");
    let Some((_, details)) = KINDS.iter().find(|(k, _)| *k == kind) else {
        return vec![format!("an event kind the schema does not know: {event}")];
    };
    let mut wrong = Vec::new();
    for (name, ty) in COMMON.iter().filter(|(name, _)| logged || *name != "ts") {
        if !fields.get(*name).is_some_and(|v| ty.fits(v)) {
            wrong.push(format!("`{name}` is not {ty:?} in {event}"));
        }
    }
    for (name, ty, always) in details.iter() {
        match fields.get(*name) {
            Some(value) if !ty.fits(value) => wrong.push(format!("`{name}` is not {ty:?} in {event}")),
            None if *always => wrong.push(format!("no `{name}` in {event}")),
            _ => {}
        }
    }
    for name in fields.keys() {
        let known = COMMON.iter().any(|(n, _)| n == name) || details.iter().any(|(n, _, _)| n == name);
        if !known || (!logged && name == "ts") {
            wrong.push(format!("`{name}` is no field of a `{kind}` event: {event}"));
        }
    }
    wrong
}

/// A plan with every event kind but `interrupted`: effects of each kind,
/// output cut by `--log-max-output`, a typed prompt and its repair, a
/// CHOOSE and a RUN the policy asks about (answered from a file), an
/// estimate, a budget warning, a caught failure and an uncaught one.
const PLAN: &str = r#"TASK "every event"
TYPE Colour = { name: "red" | "blue" }
SET_BUDGET RUN_COUNT = 4
STEP "effects" {
    RUN "printf 0123456789abcdef; printf oops >&2" TIMEOUT 5s
    WRITE "a.txt" FROM "one"
    APPEND "a.txt" FROM "two"
    READ "a.txt" AS text
    MKDIR "d"
    DELETE "d"
    LOG "read ${text}"
    PROMPT_AGENT "Name a colour." INTO colour AS Colour
    CHOOSE "pick" {
        OPTION "one" { LOG "one" }
        OPTION "two" { LOG "two" }
    }
    RUN "git push" TIMEOUT 5s
    ESTIMATE_COST INTO e {
        RUN "make" TIMEOUT 5s
    }
    TRY {
        ASSERT 1 == 2
    } CATCH {
        LOG "caught"
    }
}
STEP "warned" {
    IF FILE "a.txt" EXISTS {
        RUN "true" TIMEOUT 5s
        RUN "true" TIMEOUT 5s
        RUN "true" TIMEOUT 5s
    }
}
"#;

#[test]
fn every_event_and_effect_has_its_fields_with_their_json_types() {
    let fx = Fixture::new();
    let answers = fx.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "2"}, {"answer": "approve", "comment": "ok"}]"#).unwrap();
    let mock = fx.path("mock.json");
    std::fs::write(&mock, r#"["crimson", "{\"name\": \"red\"}"]"#).unwrap();
    let policy = fx.path("policy.toml");
    std::fs::write(&policy, "[commands]\napprove = [\"git push*\"]\n").unwrap();
    let log = fx.path("events.jsonl");
    let run = fx.run(
        PLAN,
        &[
            "--output-format",
            "json",
            "--log-file",
            log.to_str().unwrap(),
            "--log-max-output",
            "6",
            "--answers",
            answers.to_str().unwrap(),
            "--mock-answers",
            mock.to_str().unwrap(),
            "--policy",
            policy.to_str().unwrap(),
            "--sandbox-profile",
            "none",
        ],
    );
    // The budget's cap stops the third RUN of "warned".
    run.expect(4);
    let events = log_events(&log);
    let wrong: Vec<String> = events.iter().flat_map(|e| misfits(e, true)).collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let seen = |kind: &str| events.iter().any(|e| e["event"] == kind);
    let missing: Vec<&str> =
        KINDS.iter().map(|(k, _)| *k).filter(|k| *k != "interrupted" && !seen(k)).collect();
    assert!(missing.is_empty(), "the plan logs no {missing:?}");
    let repair = events.iter().find(|e| e["event"] == "prompt" && e.get("repair").is_some());
    assert_eq!(repair.map(|e| &e["repair"]), Some(&Json::Bool(true)), "the repair request is flagged");
    let omitted = events.iter().find(|e| e["event"] == "output_omitted").unwrap();
    assert_eq!(omitted["bytes"], 16 - 6, "{omitted}");

    let report = run.json();
    let effects = report["effects"].as_array().expect("effects");
    let wrong: Vec<String> = effects.iter().flat_map(|e| misfits(e, false)).collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let prompt = effects.iter().find(|e| e["event"] == "prompt").expect("a prompt effect");
    assert_eq!((prompt["requests"].as_u64(), prompt["tokens"].is_u64()), (Some(1), true), "{prompt}");
}
