//! Structured answers (book: reference/types.md, "Asking") over real HTTP: a typed request
//! and its repair request, sent by `openai`, `ollama` and `completion` to the
//! loopback server (`tiss_test_support::loopback`), each body exact and the
//! same bytes as `wire` (what a cassette keys); the requests refused before
//! anything is sent; a cassette recorded from those answers, where another
//! schema misses and the repair is an entry of its own; and a real
//! llama.cpp server with a real model kept to a schema it would not follow
//! unprompted.

use serde_json::{Value, json};
use tiss_providers::cassette::{Cassette, Recorder};
use tiss_providers::settings::ProviderSettings;
use tiss_providers::{AnswerFormat, PromptRequest, PromptResponse, Provider, Repair, Wire, layout};
use tiss_test_support::loopback::{Reply, Server};

/// The schema of `TYPE Review = { verdict: "approve" | "reject", risk: INT, files?: LIST OF STRING }`
/// as strict mode takes it: every property required, the optional one nullable.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["approve", "reject"]},
            "risk": {"type": "integer"},
            "files": {"type": ["array", "null"], "items": {"type": "string"}}
        },
        "required": ["verdict", "risk", "files"],
        "additionalProperties": false
    })
}

/// `schema()` as sent: compact, its keys in their order.
const SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"verdict":{"type":"string","enum":["approve","reject"]},"#,
    r#""risk":{"type":"integer"},"files":{"type":["array","null"],"items":{"type":"string"}}},"#,
    r#""required":["verdict","risk","files"],"additionalProperties":false}"#
);

const INVALID: &str = r#"{"verdict": "maybe", "risk": "high"}"#;
const ERRORS: &str = "$.verdict: \"maybe\" is not one of \"approve\", \"reject\"\n$.risk: expected an integer\n$: missing field `files`";

fn typed() -> PromptRequest {
    PromptRequest {
        query: "Review this change.".into(),
        context: vec![("diff".into(), "-a\n+b".into())],
        answer_format: Some(AnswerFormat { name: "Review".into(), schema: schema() }),
        step: "review".into(),
        line: 5,
        ..Default::default()
    }
}

/// The repair request of `typed()`: the next prompt place, the same format.
fn repair() -> PromptRequest {
    PromptRequest {
        index: 1,
        repair: Some(Repair { answer: INVALID.into(), errors: ERRORS.into() }),
        ..typed()
    }
}

/// The layout's messages of `typed()` as JSON, and those of `repair()`.
fn messages(repaired: bool) -> String {
    let mut out = json!([
        {"role": "system", "content": layout::SYSTEM},
        {"role": "user", "content": "Review this change.\n\n### diff\n```\n-a\n+b\n```"},
    ]);
    if repaired {
        let list = out.as_array_mut().unwrap();
        list.push(json!({"role": "assistant", "content": INVALID}));
        list.push(json!({"role": "user", "content": layout::repair_message(ERRORS)}));
    }
    out.to_string()
}

fn settings(provider: &str, base_url: &str) -> ProviderSettings {
    ProviderSettings {
        provider: provider.into(),
        model: Some("m".into()),
        base_url: Some(base_url.into()),
        max_retries: 0,
        ..Default::default()
    }
}

/// Sends `requests` with `provider` to `server`: each answer's text, and
/// each body as the server received it, checked to be `wire`'s.
fn send(provider: &mut dyn Provider, server: &Server, requests: &[PromptRequest], path: &str) -> Vec<String> {
    let mut bodies = Vec::new();
    for (n, request) in requests.iter().enumerate() {
        let wire = provider.wire(request).unwrap();
        let answer = provider.complete(request, &mut |_| {}).unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(answer.requests, 1);
        let received = &server.requests()[n];
        assert!(received.head.starts_with(&format!("POST {path} HTTP/1.1")), "{}", received.head);
        // What a cassette keys is what was sent, byte for byte.
        assert_eq!(wire.endpoint, path);
        assert_eq!(wire.body.to_string(), received.body);
        bodies.push(received.body.clone());
    }
    assert_eq!(server.requests().len(), requests.len());
    bodies
}

#[test]
fn openai_asks_for_a_json_schema_response_format_and_repairs_with_two_more_messages() {
    let server = Server::start(vec![Reply::hello()]);
    let mut openai = tiss_providers::build(&settings("openai", &server.base_url)).unwrap();
    let bodies = send(openai.as_mut(), &server, &[typed(), repair()], "/v1/chat/completions");
    let expected = |repaired| {
        format!(
            concat!(
                r#"{{"model":"m","messages":{},"max_tokens":1024,"temperature":0.0,"#,
                r#""response_format":{{"type":"json_schema","json_schema":{{"name":"Review","strict":true,"schema":{}}}}},"#,
                r#""stream":true,"stream_options":{{"include_usage":true}}}}"#
            ),
            messages(repaired),
            SCHEMA
        )
    };
    assert_eq!(bodies, [expected(false), expected(true)]);
    // The repair message, as the model reads it.
    let sent: Value = serde_json::from_str(&bodies[1]).unwrap();
    assert_eq!(
        sent["messages"][3]["content"],
        "Your answer does not fit the required JSON Schema:\n$.verdict: \"maybe\" is not one of \"approve\", \
         \"reject\"\n$.risk: expected an integer\n$: missing field `files`\nAnswer again with only the corrected JSON."
    );
}

#[test]
fn openai_sends_a_name_openai_takes() {
    let server = Server::start(vec![Reply::hello()]);
    let mut openai = tiss_providers::build(&settings("openai", &server.base_url)).unwrap();
    let mut request = typed();
    request.answer_format.as_mut().unwrap().name = "Revue v2 (brouillon) é".into();
    send(openai.as_mut(), &server, &[request], "/v1/chat/completions");
    let sent: Value = serde_json::from_str(&server.requests()[0].body).unwrap();
    assert_eq!(sent["response_format"]["json_schema"]["name"], "Revue_v2__brouillon___");
}

#[test]
fn ollama_sends_the_schema_as_format_and_repairs_with_two_more_messages() {
    let done = r#"{"message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":10,"eval_count":3}"#;
    let server = Server::start(vec![Reply::ndjson(&[r#"{"message":{"content":"{}"},"done":false}"#, done])]);
    let mut ollama = tiss_providers::build(&settings("ollama", &server.root_url())).unwrap();
    let bodies = send(ollama.as_mut(), &server, &[typed(), repair()], "/api/chat");
    let expected = |repaired| {
        format!(
            r#"{{"model":"m","messages":{},"format":{SCHEMA},"stream":true,"options":{{"num_predict":1024,"temperature":0.0}}}}"#,
            messages(repaired)
        )
    };
    assert_eq!(bodies, [expected(false), expected(true)]);
}

fn llama_cpp_done() -> Reply {
    Reply::sse_raw(&[
        r#"{"content":"{}","stop":false}"#,
        r#"{"content":"","stop":true,"stop_type":"eos","tokens_evaluated":20,"tokens_predicted":2}"#,
    ])
}

#[test]
fn completion_sends_json_schema_to_llama_cpp_and_renders_the_repair_as_a_conversation() {
    let server = Server::start(vec![llama_cpp_done()]);
    let settings = ProviderSettings {
        model: None,
        template: Some("chatml".into()),
        ..settings("completion", &server.root_url())
    };
    let mut completion = tiss_providers::build(&settings).unwrap();
    let bodies = send(completion.as_mut(), &server, &[typed(), repair()], "/completion");
    let user = "Review this change.\n\n### diff\n```\n-a\n+b\n```";
    let first = format!(
        "<|im_start|>system\n{}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n",
        layout::SYSTEM
    );
    let repaired = format!(
        "{first}{INVALID}<|im_end|>\n<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n",
        layout::repair_message(ERRORS)
    );
    let expected = |prompt: &str| {
        format!(
            r#"{{"prompt":{},"n_predict":1024,"temperature":0.0,"json_schema":{SCHEMA},"stream":true}}"#,
            Value::from(prompt)
        )
    };
    assert_eq!(bodies, [expected(&first), expected(&repaired)]);

    // Llama 2's turns: the invalid answer closes the first, the repair opens the next.
    let server = Server::start(vec![llama_cpp_done()]);
    let settings =
        ProviderSettings { template: Some("llama2".into()), base_url: Some(server.root_url()), ..settings };
    let mut llama2 = tiss_providers::build(&settings).unwrap();
    let bodies = send(llama2.as_mut(), &server, &[repair()], "/completion");
    let sent: Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(
        sent["prompt"],
        format!(
            "[INST] <<SYS>>\n{}\n<</SYS>>\n\n{user} [/INST] {INVALID} </s><s>[INST] {} [/INST]",
            layout::SYSTEM,
            layout::repair_message(ERRORS)
        )
    );
}

#[test]
fn what_cannot_be_sent_as_asked_is_refused_and_nothing_is_sent() {
    let server = Server::start(vec![Reply::hello()]);
    let both = PromptRequest { grammar: Some("root ::= \"{}\"".into()), ..typed() };
    let completion = |base: String| ProviderSettings {
        model: None,
        template: Some("chatml".into()),
        ..settings("completion", &base)
    };
    let providers = [
        settings("openai", &server.base_url),
        settings("ollama", &server.root_url()),
        completion(server.root_url()),
        ProviderSettings { provider: "mock".into(), ..Default::default() },
    ];
    for settings in &providers {
        let mut provider = tiss_providers::build(settings).unwrap();
        let both_repaired = PromptRequest { grammar: both.grammar.clone(), ..repair() };
        for request in [&both, &both_repaired] {
            let e = provider.complete(request, &mut |_| {}).unwrap_err();
            assert!(
                e.message.contains(
                    "a GBNF grammar or by an answer format (the JSON Schema of `Review`), not both"
                ),
                "{}: {}",
                settings.provider,
                e.message
            );
            assert_eq!((e.requests, e.out_of_calls), (0, false));
            assert!(provider.wire(request).unwrap_err().contains("not both"));
        }
    }
    // An OpenAI-style /completions endpoint has no field servers agree on.
    let mut v1 = tiss_providers::build(&completion(server.base_url.clone())).unwrap();
    for request in [typed(), repair()] {
        let e = v1.complete(&request, &mut |_| {}).unwrap_err();
        assert!(
            e.message.contains("JSON Schema (of `Review`) is sent only to llama.cpp's {base}/completion")
                && e.message.contains("--provider openai, whose /chat/completions takes response_format"),
            "{}",
            e.message
        );
        assert_eq!(e.requests, 0);
        assert_eq!(v1.wire(&request).unwrap_err(), e.message);
    }
    assert_eq!(server.requests().len(), 0, "nothing was sent");
}

/// A file removed when dropped.
struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_recorded_typed_prompt_replays_its_repair_and_misses_another_schema() {
    // Recorded as `--record` does: the wire of each request answered.
    let server = Server::start(vec![Reply::hello()]);
    let mut openai = tiss_providers::build(&settings("openai", &server.base_url)).unwrap();
    let file = TempFile(std::env::temp_dir().join(format!("tiss-typed-{}.json", std::process::id())));
    let mut recorder = Recorder::new(file.0.clone(), Cassette::default());
    for request in [typed(), repair()] {
        let answer = openai.complete(&request, &mut |_| {}).unwrap();
        recorder.record(openai.name(), openai.wire(&request).unwrap(), &request, &answer);
    }
    let entries = &recorder.cassette.entries;
    assert_eq!(entries.len(), 2, "the repair is an entry of its own");
    assert_ne!(entries[0].key, entries[1].key);
    // Same step, line and occurrence: only the body tells them apart.
    let place = |n: usize| (entries[n].step.as_str(), entries[n].line, entries[n].occurrence);
    assert_eq!((place(0), place(1)), (("review", 5, 0), ("review", 5, 0)));
    assert_eq!(entries[1].request["messages"].as_array().unwrap().len(), 4);
    std::fs::write(&file.0, recorder.cassette.to_bytes()).unwrap();

    // Offline: nothing listens at the base URL.
    let replay_settings = ProviderSettings {
        provider: "replay".into(),
        cassette: Some(file.0.to_str().unwrap().into()),
        ..settings("openai", &tiss_test_support::loopback::refused_url())
    };
    let mut replay = tiss_providers::build(&replay_settings).unwrap();
    let mut ask = |request: &PromptRequest| -> Result<PromptResponse, String> {
        replay.complete(request, &mut |_| {}).map_err(|e| e.message)
    };
    assert_eq!(ask(&typed()).unwrap().text, "Hello");
    assert_eq!(ask(&repair()).unwrap().text, "Hello");
    // The same query and context with another schema: a miss.
    let mut other = typed();
    other.answer_format.as_mut().unwrap().schema["properties"]["risk"]["type"] = "number".into();
    let e = ask(&other).unwrap_err();
    assert!(
        e.contains("has no answer for the request of line 5")
            && e.contains(r#"response_format.json_schema.schema.properties.risk.type (recorded "integer", now "number")"#),
        "{e}"
    );
    // Its repair misses too, nearest the recorded repair.
    let e = ask(&PromptRequest { answer_format: other.answer_format.clone(), ..repair() }).unwrap_err();
    assert!(e.contains("has no answer for the repair request of line 5"), "{e}");
    assert!(e.contains("properties.risk.type") && !e.contains("items"), "{e}");
    // Another type's name is another request as well.
    let mut renamed = typed();
    renamed.answer_format.as_mut().unwrap().name = "Verdict".into();
    let e = ask(&renamed).unwrap_err();
    assert!(e.contains(r#"response_format.json_schema.name (recorded "Review", now "Verdict")"#), "{e}");
    // The key is the body's: the recorded entries' keys are what replay computes.
    let wire: Wire =
        tiss_providers::build(&settings("openai", "http://elsewhere:1/v1")).unwrap().wire(&typed()).unwrap();
    assert_eq!(tiss_providers::cassette::key("openai", &wire), recorder.cassette.entries[0].key);
}

/// The real model asked for a colour, kept to a schema whose only value it
/// would never give unprompted.
#[test]
fn a_real_llama_cpp_server_keeps_to_the_schema() {
    let Some(base_url) = tiss_test_support::llm_server::base_url() else { return };
    let schema = json!({
        "type": "object",
        "properties": {"colour": {"type": "string", "enum": ["purple-elephant-42"]}},
        "required": ["colour"],
        "additionalProperties": false
    });
    let request = PromptRequest {
        query: "Name one colour of the sky.".into(),
        answer_format: Some(AnswerFormat { name: "Colour".into(), schema }),
        ..Default::default()
    };
    let real = |provider: &str, base: String| ProviderSettings {
        model: Some("smollm2".into()),
        template: Some("chatml".into()),
        max_tokens: 128,
        max_retries: 2,
        ..settings(provider, &base)
    };
    for settings in [real("completion", base_url.to_string()), real("openai", format!("{base_url}/v1"))] {
        let mut provider = tiss_providers::build(&settings).unwrap();
        let answer = provider.complete(&request, &mut |_| {}).unwrap_or_else(|e| panic!("{}", e.message));
        let parsed: Value = serde_json::from_str(&answer.text)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {:?}", settings.provider, answer.text));
        assert_eq!(parsed, json!({"colour": "purple-elephant-42"}), "{}", settings.provider);
        assert!(!answer.estimated && answer.tokens > 0);
        // And the repair request, four messages, kept to it too.
        let repair = PromptRequest {
            repair: Some(Repair { answer: "blue".into(), errors: "$: not JSON".into() }),
            ..request.clone()
        };
        let answer = provider.complete(&repair, &mut |_| {}).unwrap_or_else(|e| panic!("{}", e.message));
        let parsed: Value = serde_json::from_str(&answer.text).unwrap();
        assert_eq!(parsed, json!({"colour": "purple-elephant-42"}), "{} repair", settings.provider);
    }
}
