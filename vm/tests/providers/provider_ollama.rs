//! The `ollama` provider against the loopback server (`loopback/`) speaking
//! Ollama's native wire format (`POST /api/chat`, NDJSON: one object per
//! line, `message.content` pieces, a last object with `done: true`,
//! `prompt_eval_count` and `eval_count`; errors as `{"error": "..."}`),
//! through the library and end to end through `tissvm run --provider ollama`.

use std::time::Instant;

use crate::common::{Fixture, Run};
use serde_json::Value as Json;
use tiss_test_support::loopback::{Reply, Server};
use tiss_vm::host::PromptRequest;
use tiss_vm::provider::Provider;
use tiss_vm::provider::ollama::Ollama;
use tiss_vm::provider::settings::ProviderSettings;

const ASK: &str =
    "TASK \"t\"\nSTEP \"ask\" {\n    PROMPT_AGENT \"Say hi.\" INTO ANSWER\n    LOG \"got ${ANSWER}\"\n}\n";

/// "Hello" in two pieces, then the last object with 10 + 17 tokens, as Ollama sends it.
fn hello() -> Reply {
    Reply::ndjson(&[
        r#"{"model":"llama3.2","created_at":"2024-08-07T03:57:33.0365888Z","message":{"role":"assistant","content":"Hel"},"done":false}"#,
        r#"{"model":"llama3.2","created_at":"2024-08-07T03:57:33.2801449Z","message":{"role":"assistant","content":"lo"},"done":false}"#,
        r#"{"model":"llama3.2","created_at":"2024-08-07T03:57:37.0774624Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":4353619900,"load_duration":63915300,"prompt_eval_count":10,"prompt_eval_duration":246847000,"eval_count":17,"eval_duration":4032296000}"#,
    ])
}

fn ask(fx: &Fixture, plan: &str, server: &Server, extra: &[&str]) -> Run {
    let root = server.root_url();
    let args = [
        &["--provider", "ollama", "--model", "llama3.2", "--base-url", &root, "--output-format", "json"][..],
        extra,
    ]
    .concat();
    fx.run(plan, &args)
}

fn failure(run: &Run) -> (String, String) {
    let report = run.json();
    let f = &report["failure"];
    (f["kind"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string())
}

#[test]
fn the_library_streams_the_pieces_and_counts_the_reported_usage() {
    let server = Server::start(vec![hello()]);
    let settings = ProviderSettings {
        provider: "ollama".into(),
        model: Some("llama3.2".into()),
        base_url: Some(server.root_url()),
        seed: Some(42),
        ..Default::default()
    };
    let mut ollama = Ollama::new(&settings).unwrap();
    let request = PromptRequest { query: "Say hi.".into(), ..Default::default() };
    let mut pieces = Vec::new();
    let response = ollama.complete(&request, &mut |p| pieces.push(p.to_string())).unwrap();
    assert_eq!(response.text, "Hello");
    assert_eq!(pieces, ["Hel", "lo", ""]);
    assert_eq!((response.tokens, response.estimated, response.requests), (27, false, 1));
    assert_eq!(response.finish_reason.as_deref(), Some("stop"), "the last object's done_reason");

    let sent = server.requests();
    assert!(sent[0].head.starts_with("POST /api/chat HTTP/1.1"), "{}", sent[0].head);
    assert!(sent[0].head.to_ascii_lowercase().contains("accept: application/x-ndjson"), "{}", sent[0].head);
    let body: Json = serde_json::from_str(&sent[0].body).unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["options"], serde_json::json!({"num_predict": 1024, "temperature": 0.0, "seed": 42}));
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1]["content"], "Say hi.");
}

#[test]
fn a_streamed_answer_is_stored_and_its_usage_counted() {
    let fx = Fixture::new();
    let server = Server::start(vec![hello()]);
    let run = ask(&fx, ASK, &server, &["--max-tokens", "64"]);
    run.expect(0);
    let report = run.json();
    assert_eq!(report["steps"][0]["logs"][0], "got Hello");
    assert_eq!(report["cost"]["api_calls"], 1);
    assert_eq!(report["cost"]["token_count"], 27);
    let sent = server.requests();
    let body: Json = serde_json::from_str(&sent[0].body).unwrap();
    assert_eq!(body["options"]["num_predict"], 64);

    // The same plan and inputs send the same bytes.
    let again = Server::start(vec![hello()]);
    ask(&fx, ASK, &again, &["--max-tokens", "64"]).expect(0);
    assert_eq!(again.requests()[0].body, sent[0].body);
}

#[test]
fn server_errors_name_provider_endpoint_status_and_the_servers_text() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::error(
        404,
        r#"{"error":"model \"llama3.2\" not found, try pulling it first"}"#,
        &[],
    )]);
    let run = ask(&fx, ASK, &server, &[]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    let endpoint = format!("ollama: POST {}/api/chat: HTTP 404 Not Found", server.root_url());
    assert!(message.contains(&endpoint), "{message}");
    assert!(message.contains(r#"model "llama3.2" not found, try pulling it first"#), "{message}");
    assert_eq!(server.requests().len(), 1, "a 404 is not retried");

    // Once streaming, Ollama reports a failure as an `error` object.
    let server = Server::start(vec![Reply::ndjson(&[
        r#"{"model":"llama3.2","message":{"role":"assistant","content":"Hel"},"done":false}"#,
        r#"{"error":"an error was encountered while running the model: unexpected EOF"}"#,
    ])]);
    let (kind, message) = failure(ask(&fx, ASK, &server, &[]).expect(1));
    assert_eq!(kind, "provider_error");
    assert!(
        message.contains("the server reported an error in its answer: an error was encountered"),
        "{message}"
    );
}

#[test]
fn malformed_lines_and_cut_streams_are_provider_errors_that_try_catches() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::ndjson(&[
        r#"{"model":"llama3.2","message":{"role":"assistant","content":"Hel"},"done":false}"#,
        r#"{"model":"llama3.2","message":{"role":"#,
    ])]);
    let (kind, message) = failure(ask(&fx, ASK, &server, &[]).expect(1));
    assert_eq!(kind, "provider_error");
    assert!(
        message.contains("a line that is not JSON: `{\"model\":\"llama3.2\",\"message\":{\"role\":`"),
        "{message}"
    );

    let server = Server::start(vec![Reply::ndjson(&[
        r#"{"model":"llama3.2","message":{"role":"assistant","content":"Hel"},"done":false}"#,
    ])]);
    let (_, message) = failure(ask(&fx, ASK, &server, &[]).expect(1));
    assert!(message.contains("ended early (1 objects, none with \"done\": true)"), "{message}");

    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    TRY {\n        PROMPT_AGENT \"Say hi.\" INTO ANSWER\n    } \
                CATCH AS e {\n        LOG \"caught ${e.KIND}\"\n    }\n}\n";
    let server = Server::start(vec![Reply::ndjson(&["<html>"])]);
    let run = ask(&fx, plan, &server, &[]);
    run.expect(0);
    assert_eq!(run.json()["steps"][0]["logs"][0], "caught provider_error");
}

#[test]
fn a_stall_ends_at_the_idle_timeout() {
    let fx = Fixture::new();
    // A stall far longer than the run may take on a loaded machine.
    let server = Server::start(vec![hello().delayed(&[0, 30_000])]);
    let started = Instant::now();
    let run = ask(&fx, ASK, &server, &["--idle-timeout", "300ms"]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    assert!(message.contains("the answer stalled for --idle-timeout 300ms"), "{message}");
    assert!(started.elapsed().as_secs() < 20, "the stall was waited out");
    assert_eq!(run.json()["cost"]["api_calls"], 1, "a timeout is not retried");
}

#[test]
fn a_missing_model_or_a_v1_base_is_a_usage_error() {
    let fx = Fixture::new();
    let run = fx.run(ASK, &["--provider", "ollama"]);
    assert!(run.expect(2).stderr.contains("the ollama provider needs a model"), "{}", run.stderr);
    let run =
        fx.run(ASK, &["--provider", "ollama", "--model", "m", "--base-url", "http://127.0.0.1:11434/v1"]);
    assert!(run.expect(2).stderr.contains("--provider openai with this one"), "{}", run.stderr);
}
