//! `tissvm run --provider openai` end to end against a real llama.cpp server
//! with a real model (`llm_server/`), at temperature 0: the answer, the
//! token count the server reports, one API call.

mod common;
mod llm_server;

use std::io::{Read, Write};

use common::Fixture;
use serde_json::Value as Json;
use tiss_vm::host::PromptRequest;
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
    let (body, _) = OpenAi::new(&settings(base_url)).unwrap().body(&request);
    let mut body: Json = serde_json::from_slice(&body).unwrap();
    body["stream"] = false.into();
    body.as_object_mut().unwrap().remove("stream_options");
    let body = body.to_string();
    let addr = base_url.strip_prefix("http://").unwrap();
    let mut socket = std::net::TcpStream::connect(addr).unwrap();
    write!(
        socket,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).unwrap();
    let (_, json) = response.split_once("\r\n\r\n").unwrap();
    let json: Json = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {response}"));
    let text = json["choices"][0]["message"]["content"].as_str().unwrap().to_string();
    (text, json["usage"]["total_tokens"].as_u64().unwrap())
}

#[test]
fn a_real_model_answers_and_its_usage_is_counted() {
    let Some(base_url) = llm_server::base_url() else { return };
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
