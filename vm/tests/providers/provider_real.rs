//! `tissvm run --provider openai` and `--provider completion` end to end
//! against a real llama.cpp server with a real model (`llm_server/`), at
//! temperature 0: the answer, the token count the server reports, one API
//! call; a GBNF grammar sent by the `completion` provider constraining
//! the real model's answer; and a run recorded from the real model
//! (`--record`) replayed offline (`--provider replay`) to the same report.

use std::io::{Read, Write};

use crate::common::Fixture;
use serde_json::Value as Json;
use tiss_vm::host::PromptRequest;
use tiss_vm::provider::Provider;
use tiss_vm::provider::chat::ChatRequest;
use tiss_vm::provider::completion::Completion;
use tiss_vm::provider::openai::OpenAi;
use tiss_vm::provider::settings::ProviderSettings;

const QUERY: &str = "Name one colour. Answer with one word.";

fn settings(base_url: &str) -> ProviderSettings {
    ProviderSettings {
        provider: "openai".into(),
        model: Some("smollm2".into()),
        base_url: Some(format!("{base_url}/v1")),
        max_tokens: 16,
        ..Default::default()
    }
}

/// The same request `tissvm` sends, not streamed, straight over a socket:
/// the server's own answer and usage, to hold the run to.
fn direct(base_url: &str) -> (String, u64) {
    let request = PromptRequest { query: QUERY.into(), ..Default::default() };
    let body = OpenAi::new(&settings(base_url)).unwrap().body(&ChatRequest::from_prompt(&request));
    let mut body: Json = serde_json::from_slice(&body).unwrap();
    body["stream"] = false.into();
    body.as_object_mut().unwrap().remove("stream_options");
    let json = post_json(base_url, "/v1/chat/completions", &body);
    let text = json["choices"][0]["message"]["content"].as_str().unwrap().to_string();
    (text, json["usage"]["total_tokens"].as_u64().unwrap())
}

/// `body` POSTed to `path` of the server over a plain socket; the JSON answer.
fn post_json(base_url: &str, path: &str, body: &Json) -> Json {
    let body = body.to_string();
    let addr = base_url.strip_prefix("http://").unwrap();
    let mut socket = std::net::TcpStream::connect(addr).unwrap();
    write!(
        socket,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).unwrap();
    let (_, json) = response.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {response}"))
}

fn completion_settings(base_url: &str) -> ProviderSettings {
    ProviderSettings {
        provider: "completion".into(),
        base_url: Some(base_url.into()),
        template: Some("chatml".into()),
        max_tokens: 16,
        ..Default::default()
    }
}

#[test]
fn a_real_model_answers_and_its_usage_is_counted() {
    let Some(base_url) = tiss_test_support::llm_server::base_url() else { return };
    let fx = Fixture::new();
    let plan = format!(
        "TASK \"t\"\nSTEP \"ask\" {{\n    PROMPT_AGENT \"{QUERY}\" INTO ANSWER\n    LOG \"${{ANSWER}}\"\n}}\n"
    );
    let v1 = format!("{base_url}/v1");
    let run = fx.run(
        &plan,
        &[
            "--provider",
            "openai",
            "--base-url",
            &v1,
            "--model",
            "smollm2",
            "--temperature",
            "0",
            "--max-tokens",
            "16",
            "--output-format",
            "json",
        ],
    );
    run.expect(0);
    let report = run.json();
    let answer = report["steps"][0]["logs"][0].as_str().unwrap();
    assert!(!answer.trim().is_empty(), "an empty answer: {report:#}");
    assert_eq!(report["cost"]["api_calls"], 1);

    let (text, total) = direct(base_url);
    assert_eq!(answer, text, "temperature 0 gives the same answer");
    assert_eq!(report["cost"]["token_count"], total, "TOKEN_COUNT is the server's reported usage");
}

#[test]
fn the_completion_provider_gets_a_real_answer_and_its_usage() {
    let Some(base_url) = tiss_test_support::llm_server::base_url() else { return };
    let fx = Fixture::new();
    let plan = format!(
        "TASK \"t\"\nSTEP \"ask\" {{\n    PROMPT_AGENT \"{QUERY}\" INTO ANSWER\n    LOG \"${{ANSWER}}\"\n}}\n"
    );
    let args = ["--provider", "completion", "--template", "chatml", "--base-url", base_url];
    let run = fx.run(&plan, &[&args[..], &["--max-tokens", "16", "--output-format", "json"]].concat());
    run.expect(0);
    let report = run.json();
    let answer = report["steps"][0]["logs"][0].as_str().unwrap();
    assert!(!answer.trim().is_empty(), "an empty answer: {report:#}");
    assert_eq!(report["cost"]["api_calls"], 1);

    // The same body, not streamed: the server's own answer and counts.
    let request = PromptRequest { query: QUERY.into(), ..Default::default() };
    let body = Completion::new(&completion_settings(base_url))
        .unwrap()
        .body(&ChatRequest::from_prompt(&request))
        .unwrap();
    let mut body: Json = serde_json::from_slice(&body).unwrap();
    body["stream"] = false.into();
    let json = post_json(base_url, "/completion", &body);
    assert_eq!(answer, json["content"].as_str().unwrap(), "temperature 0 gives the same answer");
    let usage = json["tokens_evaluated"].as_u64().unwrap() + json["tokens_predicted"].as_u64().unwrap();
    assert_eq!(report["cost"]["token_count"], usage, "TOKEN_COUNT is the server's reported usage");
}

#[test]
fn a_grammar_constrains_the_real_models_answer() {
    let Some(base_url) = tiss_test_support::llm_server::base_url() else { return };
    let mut provider = Completion::new(&completion_settings(base_url)).unwrap();
    let ask = |provider: &mut Completion, query: &str, grammar: &str| {
        let request =
            PromptRequest { query: query.into(), grammar: Some(grammar.into()), ..Default::default() };
        provider.complete(&request, &mut |_| {}).unwrap_or_else(|e| panic!("{}", e.message))
    };
    let answer = ask(&mut provider, "Is the sky blue? Answer yes or no.", r#"root ::= "yes" | "no""#);
    assert!(answer.text == "yes" || answer.text == "no", "not constrained: {:?}", answer.text);
    assert!(!answer.estimated && answer.tokens > 0);
    // An answer no model would give unprompted: only the grammar makes it.
    let forced = ask(&mut provider, "Name one colour.", r#"root ::= "purple-elephant-42""#);
    assert_eq!(forced.text, "purple-elephant-42");

    // A grammar the server cannot parse is its error, in its words.
    let e = provider
        .complete(
            &PromptRequest { query: "x".into(), grammar: Some("root ::= oops".into()), ..Default::default() },
            &mut |_| {},
        )
        .unwrap_err();
    assert!(e.message.contains("HTTP 400") && e.message.contains("failed to parse grammar"), "{}", e.message);
}

#[test]
fn a_run_recorded_from_the_real_model_replays_offline() {
    let Some(base_url) = tiss_test_support::llm_server::base_url() else { return };
    let fx = Fixture::new();
    let plan = format!(
        "TASK \"t\"\nSTEP \"ask\" {{\n    PROMPT_AGENT \"{QUERY}\" INTO ANSWER\n    PROMPT_AGENT \"{QUERY}\" INTO AGAIN\n    \
         LOG \"${{ANSWER}} / ${{AGAIN}}\"\n}}\n"
    );
    let cassette = fx.path("real.cassette.json");
    let v1 = format!("{base_url}/v1");
    let settings = ["--model", "smollm2", "--max-tokens", "16", "--output-format", "json"];
    let recorded = fx.run(
        &plan,
        &[
            &["--provider", "openai", "--base-url", &v1, "--record", cassette.to_str().unwrap()][..],
            &settings,
        ]
        .concat(),
    );
    recorded.expect(0);
    let entries: Json = serde_json::from_slice(&std::fs::read(&cassette).unwrap()).unwrap();
    let entries = entries["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!((&entries[0]["occurrence"], &entries[1]["occurrence"]), (&0.into(), &1.into()));
    let reason = entries[0]["response"]["finish_reason"].as_str().unwrap();
    assert!(reason == "stop" || reason == "length", "the real server's finish_reason: {reason}");
    assert_eq!(entries[0]["response"]["usage"]["estimated"], false);

    // Offline: the base URL is a port where nothing listens.
    let nowhere = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let replayed = fx.run(
        &plan,
        &[
            &["--provider", "replay", "--cassette", cassette.to_str().unwrap(), "--base-url", &nowhere][..],
            &settings,
        ]
        .concat(),
    );
    replayed.expect(0);
    let (a, b) = (recorded.json(), replayed.json());
    assert_eq!(a["steps"][0]["logs"], b["steps"][0]["logs"]);
    assert_eq!(a["cost"]["token_count"], b["cost"]["token_count"]);
    assert_eq!(a["status"], b["status"]);
    // One call per answer replayed; the recording may have needed retries (the
    // server has one slot, shared with the other tests), which are not replayed.
    assert_eq!(b["cost"]["api_calls"], 2);
    assert!(a["cost"]["api_calls"].as_u64().unwrap() >= 2);
}
