//! Typed answers (book: reference/types.md) through `tissvm run` against the loopback
//! server: the schema on the wire, the one repair request with the invalid
//! answer and its errors, `invalid_answer` when the repair fails too (caught
//! by TRY, or exit 1 with the errors and the answer's head in the report),
//! and the budget that refuses the repair.

use crate::common::{Fixture, Run};
use serde_json::Value as Json;
use tiss_test_support::loopback::{Reply, Server};

const PLAN: &str = "TASK \"t\"
TYPE Review = { verdict: \"approve\" | \"reject\", risk: INT, files?: LIST OF STRING }
STEP \"ask\" {
    PROMPT_AGENT \"Review the change.\" INTO r AS Review
    LOG \"verdict ${r.verdict} risk ${r.risk}\"
    IF r.files EXISTS {
        LOG \"files ${r.files}\"
    }
}
";

/// A 200 answer streamed as `text`, usage 10 + 5.
fn answer(text: &str) -> Reply {
    let delta = serde_json::json!({"choices": [{"delta": {"content": text}, "finish_reason": "stop"}]});
    Reply::sse(&[
        &delta.to_string(),
        r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}"#,
    ])
}

fn ask(fx: &Fixture, plan: &str, server: &Server, extra: &[&str]) -> Run {
    let args = [
        &["--provider", "openai", "--model", "m", "--base-url", &server.base_url, "--output-format", "json"]
            [..],
        extra,
    ]
    .concat();
    fx.run(plan, &args)
}

fn bodies(server: &Server) -> Vec<Json> {
    server.requests().iter().map(|r| serde_json::from_str(&r.body).unwrap()).collect()
}

#[test]
fn the_schema_is_sent_and_a_valid_answer_is_data() {
    let fx = Fixture::new();
    let server =
        Server::start(vec![answer(r#"{"verdict": "reject", "risk": 4, "files": ["a.py", "b.py"]}"#)]);
    let run = ask(&fx, PLAN, &server, &[]);
    run.expect(0);
    let report = run.json();
    assert_eq!(report["steps"][0]["logs"][0], "verdict reject risk 4");
    assert_eq!(report["steps"][0]["logs"][1], r#"files ["a.py","b.py"]"#);
    assert_eq!(report["cost"]["api_calls"], 1);
    let sent = bodies(&server);
    assert_eq!(sent.len(), 1);
    let format = &sent[0]["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "Review");
    assert_eq!(format["json_schema"]["strict"], true);
    assert_eq!(
        format["json_schema"]["schema"],
        serde_json::json!({
            "type": "object",
            "properties": {
                "verdict": {"type": "string", "enum": ["approve", "reject"]},
                "risk": {"type": "integer"},
                "files": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            },
            "required": ["verdict", "risk", "files"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn an_invalid_answer_gets_one_repair_with_its_errors() {
    let fx = Fixture::new();
    let bad = r#"{"verdict": "maybe", "risk": "high"}"#;
    let server =
        Server::start(vec![answer(bad), answer(r#"{"verdict": "approve", "risk": 1, "files": null}"#)]);
    let run = ask(&fx, PLAN, &server, &[]);
    run.expect(0);
    let report = run.json();
    assert_eq!(report["steps"][0]["logs"][0], "verdict approve risk 1");
    assert_eq!(report["steps"][0]["logs"].as_array().unwrap().len(), 1, "a null optional field is absent");
    assert_eq!(report["cost"]["api_calls"], 2, "the repair is a request like any other");
    assert_eq!(report["cost"]["token_count"], 30);
    let sent = bodies(&server);
    assert_eq!(sent.len(), 2);
    let messages = sent[1]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "{messages:?}");
    assert_eq!(messages[..2], sent[0]["messages"].as_array().unwrap()[..]);
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["content"], bad);
    let repair = messages[3]["content"].as_str().unwrap();
    assert!(repair.starts_with("Your answer does not fit the required JSON Schema:\n"), "{repair}");
    assert!(repair.contains("at $.verdict: \"maybe\" is not one of \"approve\", \"reject\""), "{repair}");
    assert!(repair.contains("at $.risk: expected an integer"), "{repair}");
    assert_eq!(sent[1]["response_format"], sent[0]["response_format"]);
}

#[test]
fn a_second_invalid_answer_is_invalid_answer() {
    let fx = Fixture::new();
    let server = Server::start(vec![answer("I think it is fine."), answer(r#"{"verdict": "approve"}"#)]);
    let run = ask(&fx, PLAN, &server, &[]);
    run.expect(1);
    let report = run.json();
    let failure = &report["failure"];
    assert_eq!(failure["kind"], "invalid_answer");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("does not fit the type `Review`"), "{message}");
    assert!(message.contains("missing required field \"risk\""), "{message}");
    assert!(message.contains(r#"the answer began: "{\"verdict\": \"approve\"}""#), "{message}");
    assert_eq!(report["cost"]["api_calls"], 2);

    // TRY catches it, as any model failure.
    let caught = PLAN.replace(
        "    PROMPT_AGENT \"Review the change.\" INTO r AS Review\n    LOG \"verdict ${r.verdict} risk ${r.risk}\"\n    IF r.files EXISTS {\n        LOG \"files ${r.files}\"\n    }\n",
        "    TRY {\n        PROMPT_AGENT \"Review the change.\" INTO r AS Review\n    } CATCH AS e {\n        LOG \"caught ${e.KIND}\"\n    }\n",
    );
    let fx = Fixture::new();
    let server = Server::start(vec![answer("no"), answer("still no")]);
    let run = ask(&fx, &caught, &server, &[]);
    run.expect(0);
    assert_eq!(run.json()["steps"][0]["logs"][0], "caught invalid_answer");
}

#[test]
fn a_cap_that_refuses_the_repair_is_budget_exceeded() {
    let fx = Fixture::new();
    let server = Server::start(vec![answer("not json"), answer(r#"{"verdict": "approve", "risk": 0}"#)]);
    let plan = PLAN.replace("TASK \"t\"\n", "TASK \"t\"\nSET_BUDGET API_CALLS = 1\n");
    let run = ask(&fx, &plan, &server, &[]);
    run.expect(4);
    assert_eq!(run.json()["failure"]["kind"], "budget_exceeded");
    assert_eq!(server.requests().len(), 1, "the repair was never sent");
}

#[test]
fn the_static_bound_counts_the_repair() {
    let fx = Fixture::new();
    let path = fx.write_plan(PLAN);
    let out = crate::common::command().args(["estimate", "--output-format", "json", &path]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let estimate: Json = serde_json::from_slice(&out.stdout).unwrap();
    let calls = &estimate["total"]["api_calls"];
    assert_eq!((calls["min"].as_u64(), calls["max"].as_u64()), (Some(1), Some(2)), "{estimate:#}");
    // Twice the untyped token maximum.
    let untyped = fx.write_plan(&PLAN.replace(" AS Review", "").replace("    LOG \"verdict ${r.verdict} risk ${r.risk}\"\n    IF r.files EXISTS {\n        LOG \"files ${r.files}\"\n    }\n", ""));
    let out =
        crate::common::command().args(["estimate", "--output-format", "json", &untyped]).output().unwrap();
    let plain: Json = serde_json::from_slice(&out.stdout).unwrap();
    let max = |e: &Json| e["total"]["token_count"]["max"].as_u64().unwrap();
    assert_eq!(max(&estimate), 2 * max(&plain), "{plain:#}");
}
