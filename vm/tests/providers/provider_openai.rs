//! The `openai` provider through `tissvm run`, against the loopback server
//! (`loopback/`): the request layout on the wire, streamed answers and their
//! usage, retries (429 + Retry-After, 5xx, connection refused) each counted
//! as an API call and capped by the budget, stalls, malformed and error
//! bodies as `provider_error`, which TRY catches.

use std::time::Instant;

use crate::common::{Fixture, Run};
use serde_json::Value as Json;
use tiss_test_support::loopback::{Reply, Server, refused_url};

const ASK: &str =
    "TASK \"t\"\nSTEP \"ask\" {\n    PROMPT_AGENT \"Say hi.\" INTO ANSWER\n    LOG \"got ${ANSWER}\"\n}\n";

/// `tissvm run` of `plan` against `base_url` with JSON output and `extra` flags.
fn ask(fx: &Fixture, plan: &str, base_url: &str, extra: &[&str]) -> Run {
    let log = fx.path("log.jsonl");
    let args = [
        &["--provider", "openai", "--model", "m", "--base-url", base_url, "--output-format", "json"][..],
        &["--log-file", log.to_str().unwrap()],
        extra,
    ]
    .concat();
    fx.run(plan, &args)
}

fn api_calls(report: &Json) -> u64 {
    report["cost"]["api_calls"].as_u64().unwrap()
}

fn failure(run: &Run) -> (String, String) {
    let report = run.json();
    let f = &report["failure"];
    (f["kind"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string())
}

fn prompt_events(fx: &Fixture) -> Vec<Json> {
    std::fs::read_to_string(fx.path("log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap())
        .filter(|e| e["event"] == "prompt")
        .collect()
}

#[test]
fn a_streamed_answer_is_stored_and_its_usage_counted() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::hello()]);
    let run = ask(&fx, ASK, &server.base_url, &[]);
    run.expect(0);
    let report = run.json();
    assert_eq!(report["steps"][0]["logs"][0], "got Hello");
    assert_eq!(api_calls(&report), 1);
    assert_eq!(report["cost"]["token_count"], 14);
    let events = prompt_events(&fx);
    assert_eq!(
        (&events[0]["usage"], &events[0]["tokens"], &events[0]["requests"], &events[0]["finish_reason"]),
        (&"reported".into(), &14.into(), &1.into(), &"stop".into())
    );

    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].head.starts_with("POST /v1/chat/completions HTTP/1.1"), "{}", sent[0].head);
    assert!(!sent[0].head.to_ascii_lowercase().contains("authorization"), "no key set, none sent");
    let body: Json = serde_json::from_str(&sent[0].body).unwrap();
    assert_eq!(body["messages"][1]["content"], "Say hi.");
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["max_tokens"], 1024);

    // The same plan and inputs send the same bytes.
    let again = Server::start(vec![Reply::hello()]);
    ask(&fx, ASK, &again.base_url, &[]).expect(0);
    assert_eq!(again.requests()[0].body, sent[0].body);
}

#[test]
fn an_answer_cut_at_max_tokens_says_so() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::sse(&[
        r#"{"choices":[{"delta":{"content":"Hel"},"finish_reason":"length"}]}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}"#,
    ])]);
    ask(&fx, ASK, &server.base_url, &["--max-tokens", "1"]).expect(0);
    assert_eq!(prompt_events(&fx)[0]["finish_reason"], "length");
}

#[test]
fn without_reported_usage_tokens_are_estimated_and_marked() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::sse(&[
        r#"{"choices":[{"delta":{"content":"Hi"},"finish_reason":"stop"}]}"#,
    ])]);
    let run = ask(&fx, ASK, &server.base_url, &[]);
    run.expect(0);
    assert!(run.json()["cost"]["token_count"].as_u64().unwrap() > 0);
    assert_eq!(prompt_events(&fx)[0]["usage"], "estimated");
}

#[test]
fn a_429_is_retried_after_its_retry_after() {
    let fx = Fixture::new();
    let busy = Reply::error(429, r#"{"error":{"message":"slow down"}}"#, &[("Retry-After", "1")]);
    let server = Server::start(vec![busy, Reply::hello()]);
    let started = Instant::now();
    let run = ask(&fx, ASK, &server.base_url, &[]);
    run.expect(0);
    assert!(started.elapsed().as_millis() >= 1000, "Retry-After: 1 was not waited for");
    assert_eq!(api_calls(&run.json()), 2, "each request sent is one API call");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_retry_after_longer_than_max_retry_wait_fails_at_once() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::error(429, "{}", &[("Retry-After", "120")]), Reply::hello()]);
    let run = ask(&fx, ASK, &server.base_url, &["--max-retry-wait", "5s"]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    assert!(message.contains("retry after 2m, longer than --max-retry-wait 5s"), "{message}");
    assert_eq!(api_calls(&run.json()), 1);
}

#[test]
fn server_errors_are_retried_then_succeed() {
    let fx = Fixture::new();
    let server =
        Server::start(vec![Reply::error(500, "{}", &[]), Reply::error(503, "{}", &[]), Reply::hello()]);
    let run = ask(&fx, ASK, &server.base_url, &["--max-retry-wait", "1s"]);
    run.expect(0);
    assert_eq!(api_calls(&run.json()), 3);
}

#[test]
fn exhausted_retries_name_provider_endpoint_status_and_server_text() {
    let fx = Fixture::new();
    let server =
        Server::start(vec![Reply::error(500, r#"{"error":{"message":"the GPU caught fire"}}"#, &[])]);
    let run = ask(&fx, ASK, &server.base_url, &["--max-retries", "1", "--max-retry-wait", "1s"]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    let endpoint = format!("POST {}/chat/completions", server.base_url);
    for part in
        ["openai: ", &endpoint, "HTTP 500 Internal Server Error", "the GPU caught fire", "(2 requests sent)"]
    {
        assert!(message.contains(part), "{part:?} not in {message}");
    }
    assert_eq!(api_calls(&run.json()), 2);
    assert_eq!(prompt_events(&fx)[0]["outcome"], "failed");
}

#[test]
fn max_retries_0_means_one_request_and_4xx_are_not_retried() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::error(503, "{}", &[])]);
    let run = ask(&fx, ASK, &server.base_url, &["--max-retries", "0"]);
    run.expect(1);
    assert_eq!((api_calls(&run.json()), server.requests().len()), (1, 1));

    let server =
        Server::start(vec![Reply::error(404, r#"{"error":{"message":"model `m` not found"}}"#, &[])]);
    let run = ask(&fx, ASK, &server.base_url, &[]);
    run.expect(1);
    let (_, message) = failure(&run);
    assert!(message.contains("HTTP 404") && message.contains("model `m` not found"), "{message}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn the_api_calls_budget_caps_retries() {
    let fx = Fixture::new();
    let server =
        Server::start(vec![Reply::error(500, "{}", &[]), Reply::error(500, "{}", &[]), Reply::hello()]);
    let run = ask(
        &fx,
        ASK,
        &server.base_url,
        &["--max-retries", "5", "--max-retry-wait", "1s", "--budget", "API_CALLS=2"],
    );
    run.expect(4);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "budget_exceeded");
    assert!(message.contains("a retry of this PROMPT_AGENT") && message.contains("HTTP 500"), "{message}");
    assert_eq!(api_calls(&run.json()), 2);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_refused_connection_is_retried_then_fails() {
    let fx = Fixture::new();
    let run = ask(&fx, ASK, &refused_url(), &["--max-retries", "1", "--max-retry-wait", "1s"]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    assert!(message.contains("connection refused") && message.contains("(2 requests sent)"), "{message}");
    assert_eq!(api_calls(&run.json()), 2);
}

#[test]
fn stalls_end_at_the_first_token_and_idle_timeouts() {
    let fx = Fixture::new();
    // A stall far longer than the run may take on a loaded machine.
    let server = Server::start(vec![Reply::hello().delayed(&[30_000])]);
    let started = Instant::now();
    let run = ask(&fx, ASK, &server.base_url, &["--first-token-timeout", "300ms"]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    assert!(message.contains("no answer within --first-token-timeout 300ms"), "{message}");
    assert!(started.elapsed().as_secs() < 20, "the stall was waited out");
    assert_eq!(api_calls(&run.json()), 1, "a timeout is not retried");

    let server = Server::start(vec![Reply::hello().delayed(&[0, 3000])]);
    let run = ask(&fx, ASK, &server.base_url, &["--idle-timeout", "300ms"]);
    run.expect(1);
    assert!(failure(&run).1.contains("the answer stalled for --idle-timeout 300ms"), "{}", failure(&run).1);

    let server = Server::start(vec![Reply::hello().delayed(&[0, 400, 400, 400])]);
    let run = ask(&fx, ASK, &server.base_url, &["--idle-timeout", "1s", "--request-timeout", "700ms"]);
    run.expect(1);
    assert!(failure(&run).1.contains("longer than --request-timeout 700ms"), "{}", failure(&run).1);
}

#[test]
fn malformed_bodies_are_provider_errors_and_try_catches_them() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::sse(&["{not json"])]);
    let run = ask(&fx, ASK, &server.base_url, &[]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    assert!(message.contains("not JSON: `{not json`"), "{message}");

    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    TRY {\n        PROMPT_AGENT \"Say hi.\" INTO ANSWER\n    } \
                CATCH AS e {\n        LOG \"caught ${e.KIND}\"\n    }\n}\n";
    let server =
        Server::start(vec![Reply { pieces: vec![(0, "<html>".into())], ..Reply::error(200, "", &[]) }]);
    let run = ask(&fx, plan, &server.base_url, &[]);
    run.expect(0);
    assert_eq!(run.json()["steps"][0]["logs"][0], "caught provider_error");
}
