//! The `completion` provider against the loopback server (`loopback/`),
//! which speaks both raw completion APIs as llama.cpp's server does:
//! `POST /completion` (SSE, `content` pieces, a last event with `stop:
//! true`, `tokens_evaluated` and `tokens_predicted`; errors as llama.cpp
//! words them) and the OpenAI-style `POST /v1/completions` (SSE,
//! `choices[0].text`, usage, `[DONE]`). The real server is in
//! `provider_real.rs`.

use crate::common::{Fixture, Run};
use serde_json::Value as Json;
use tiss_test_support::loopback::{Reply, Server, refused_url};
use tiss_vm::host::PromptRequest;
use tiss_vm::provider::Provider;
use tiss_vm::provider::completion::Completion;
use tiss_vm::provider::layout;
use tiss_vm::provider::settings::ProviderSettings;

const ASK: &str =
    "TASK \"t\"\nSTEP \"ask\" {\n    PROMPT_AGENT \"Say hi.\" INTO ANSWER\n    LOG \"got ${ANSWER}\"\n}\n";

/// llama.cpp's `/completion` stream for "Hello": 14 prompt tokens, 3 predicted.
fn llama_hello() -> Reply {
    Reply::sse_raw(&[
        r#"{"index":0,"content":"Hel","tokens":[19556],"stop":false,"id_slot":-1,"tokens_predicted":1,"tokens_evaluated":14}"#,
        r#"{"index":0,"content":"lo","tokens":[30],"stop":false,"id_slot":-1,"tokens_predicted":2,"tokens_evaluated":14}"#,
        r#"{"index":0,"content":"","tokens":[],"id_slot":0,"stop":true,"model":"smollm2","tokens_predicted":3,"tokens_evaluated":14,"stop_type":"eos","stopping_word":"","tokens_cached":16,"timings":{"cache_n":0,"prompt_n":14,"prompt_ms":201.6,"predicted_n":3,"predicted_ms":33.584}}"#,
    ])
}

/// An OpenAI-style `/v1/completions` stream for "Hello", usage 12 + 2.
fn openai_hello() -> Reply {
    Reply::sse(&[
        r#"{"choices":[{"text":"Hel","index":0,"logprobs":null,"finish_reason":null}],"object":"text_completion"}"#,
        r#"{"choices":[{"text":"lo","index":0,"logprobs":null,"finish_reason":"stop"}],"object":"text_completion","usage":{"completion_tokens":2,"prompt_tokens":12,"total_tokens":14}}"#,
    ])
}

/// `tissvm run` with `--template chatml` unless `extra` names another.
fn ask(fx: &Fixture, base_url: &str, extra: &[&str]) -> Run {
    let template: &[&str] = if extra.contains(&"--template") { &[] } else { &["--template", "chatml"] };
    let args = [
        &["--provider", "completion", "--base-url", base_url, "--output-format", "json"][..],
        template,
        extra,
    ]
    .concat();
    fx.run(ASK, &args)
}

fn failure(run: &Run) -> (String, String) {
    let report = run.json();
    let f = &report["failure"];
    (f["kind"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string())
}

#[test]
fn llama_cpp_completion_end_to_end() {
    let fx = Fixture::new();
    let server = Server::start(vec![llama_hello()]);
    let run = ask(&fx, &server.root_url(), &["--seed", "5"]);
    run.expect(0);
    let report = run.json();
    assert_eq!(report["steps"][0]["logs"][0], "got Hello");
    assert_eq!((&report["cost"]["api_calls"], &report["cost"]["token_count"]), (&1.into(), &17.into()));

    let sent = server.requests();
    assert!(sent[0].head.starts_with("POST /completion HTTP/1.1"), "{}", sent[0].head);
    let body: Json = serde_json::from_str(&sent[0].body).unwrap();
    let prompt = format!(
        "<|im_start|>system\n{}<|im_end|>\n<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n",
        layout::SYSTEM
    );
    assert_eq!(
        body,
        serde_json::json!({"prompt": prompt, "n_predict": 1024, "temperature": 0.0, "seed": 5, "stream": true})
    );
    assert!(body.get("grammar").is_none(), "PROMPT_AGENT sends no grammar");
}

#[test]
fn openai_style_completions_when_the_base_ends_in_v1() {
    let fx = Fixture::new();
    let server = Server::start(vec![openai_hello()]);
    let log = fx.path("log.jsonl");
    let run = ask(
        &fx,
        &server.base_url,
        &["--model", "m", "--template", "llama2", "--log-file", log.to_str().unwrap()],
    );
    run.expect(0);
    let report = run.json();
    assert_eq!(report["steps"][0]["logs"][0], "got Hello");
    assert_eq!(report["cost"]["token_count"], 14);
    let log = std::fs::read_to_string(&log).unwrap();
    let event: Json = log
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap())
        .find(|e| e["event"] == "prompt")
        .unwrap();
    assert_eq!(event["finish_reason"], "stop", "{event}");
    let sent = server.requests();
    assert!(sent[0].head.starts_with("POST /v1/completions HTTP/1.1"), "{}", sent[0].head);
    let body: Json = serde_json::from_str(&sent[0].body).unwrap();
    assert_eq!(body["model"], "m");
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["stream_options"]["include_usage"], true);
    let prompt = body["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("[INST] <<SYS>>\n") && prompt.ends_with("Say hi. [/INST]"), "{prompt}");
}

#[test]
fn the_library_sends_a_grammar_to_llama_cpp_only() {
    let server = Server::start(vec![llama_hello()]);
    let settings = ProviderSettings {
        provider: "completion".into(),
        base_url: Some(server.root_url()),
        template: Some("alpaca".into()),
        ..Default::default()
    };
    let grammar = "root ::= \"yes\" | \"no\"";
    let request =
        PromptRequest { query: "Yes or no?".into(), grammar: Some(grammar.into()), ..Default::default() };
    let mut pieces = String::new();
    let response =
        Completion::new(&settings).unwrap().complete(&request, &mut |p| pieces.push_str(p)).unwrap();
    assert_eq!((response.text.as_str(), pieces.as_str(), response.tokens), ("Hello", "Hello", 17));
    // llama.cpp's `stop_type: eos`, in the OpenAI API's words.
    assert_eq!(response.finish_reason.as_deref(), Some("stop"));
    let body: Json = serde_json::from_str(&server.requests()[0].body).unwrap();
    assert_eq!(body["grammar"], grammar);
    assert!(body["prompt"].as_str().unwrap().ends_with("Yes or no?\n\n### Response:"));

    let v1 = ProviderSettings { base_url: Some(server.base_url.clone()), ..settings };
    let e = Completion::new(&v1).unwrap().complete(&request, &mut |_| {}).unwrap_err();
    assert!(e.message.contains("grammar is sent only to llama.cpp's {base}/completion"), "{}", e.message);
    assert_eq!((e.requests, server.requests().len()), (0, 1), "nothing was sent");
}

#[test]
fn llama_cpp_errors_name_endpoint_status_and_the_servers_text() {
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::error(
        400,
        r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4100,"n_ctx":2048}}"#,
        &[],
    )]);
    let run = ask(&fx, &server.root_url(), &[]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    let endpoint = format!("completion: POST {}/completion: HTTP 400 Bad Request", server.root_url());
    assert!(message.contains(&endpoint), "{message}");
    assert!(message.contains("the request exceeds the available context size"), "{message}");

    let server = Server::start(vec![Reply {
        pieces: vec![(
            0,
            "error: {\"code\":500,\"message\":\"slot unavailable\",\"type\":\"server_error\"}\n\n".into(),
        )],
        ..Reply::sse_raw(&[])
    }]);
    let (_, message) = failure(ask(&fx, &server.root_url(), &[]).expect(1));
    assert!(message.contains("the server reported an error in its answer: slot unavailable"), "{message}");

    let server = Server::start(vec![Reply::sse_raw(&[r#"{"content":"Hel","stop":false}"#, "{broken"])]);
    let (_, message) = failure(ask(&fx, &server.root_url(), &[]).expect(1));
    assert!(message.contains("an event that is not JSON: `{broken`"), "{message}");

    let server = Server::start(vec![Reply::sse_raw(&[r#"{"content":"Hel","stop":false}"#])]);
    let (_, message) = failure(ask(&fx, &server.root_url(), &[]).expect(1));
    assert!(message.contains("ended early (1 events, none with \"stop\": true)"), "{message}");
}

#[test]
fn a_stall_ends_at_the_first_token_timeout() {
    let fx = Fixture::new();
    let server = Server::start(vec![llama_hello().delayed(&[3000])]);
    let run = ask(&fx, &server.root_url(), &["--first-token-timeout", "300ms"]);
    let (kind, message) = failure(run.expect(1));
    assert_eq!(kind, "provider_error");
    assert!(message.contains("no answer within --first-token-timeout 300ms"), "{message}");
}

#[test]
fn without_a_template_the_run_is_refused_before_it_starts() {
    let fx = Fixture::new();
    let run = fx.run(ASK, &["--provider", "completion"]);
    run.expect(2);
    assert!(run.stderr.contains("needs --template chatml|llama2|alpaca"), "{}", run.stderr);
    let run = fx.run(ASK, &["--provider", "completion", "--template", "vicuna"]);
    assert!(run.expect(2).stderr.contains("`vicuna` is not a template"), "{}", run.stderr);
}

#[test]
fn a_repeat_penalty_goes_to_llama_cpp_and_a_bad_one_is_a_usage_error() {
    let fx = Fixture::new();
    let server = Server::start(vec![llama_hello()]);
    ask(&fx, &server.root_url(), &["--seed", "5", "--repeat-penalty", "1.15"]).expect(0);
    let body: Json = serde_json::from_str(&server.requests()[0].body).unwrap();
    let sampling: Vec<(&str, &Json)> = ["temperature", "seed", "repeat_penalty", "repeat_last_n", "stream"]
        .into_iter()
        .map(|field| (field, &body[field]))
        .collect();
    let expected = [
        ("temperature", &0.0.into()),
        ("seed", &5.into()),
        ("repeat_penalty", &1.15.into()),
        ("repeat_last_n", &64.into()),
        ("stream", &true.into()),
    ];
    assert_eq!(sampling, expected, "{body}");

    // Refused before anything runs, in words, from each source: never a panic.
    let v1 = refused_url();
    let nowhere = v1.trim_end_matches("/v1");
    for (args, env, file, said) in [
        (&["--repeat-penalty", "0"][..], None, None, "--repeat-penalty: `0` is not a repeat penalty"),
        (&["--repeat-penalty", "-1.1"], None, None, "--repeat-penalty: `-1.1` is not a repeat penalty"),
        (&["--repeat-penalty", "NaN"], None, None, "--repeat-penalty: `NaN` is not a repeat penalty"),
        (&[], Some("strong"), None, "TISS_REPEAT_PENALTY: `strong` is not a repeat penalty"),
        (&[], None, Some("repeat_penalty = -2"), "[provider] repeat_penalty: `-2` is not a repeat penalty"),
    ] {
        let _ = std::fs::remove_file(fx.path("tiss.toml"));
        if let Some(line) = file {
            std::fs::write(fx.path("tiss.toml"), format!("[provider]\n{line}\n")).unwrap();
        }
        let env: Vec<(&str, &str)> = env.map(|v| ("TISS_REPEAT_PENALTY", v)).into_iter().collect();
        let base = ["--provider", "completion", "--template", "chatml", "--base-url", nowhere];
        let run = fx.run_env(ASK, &[&base[..], args].concat(), &env);
        run.expect(2);
        assert!(run.stderr.contains(said) && run.stderr.contains("give a number above 0"), "{}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    let _ = std::fs::remove_file(fx.path("tiss.toml"));
    // An API with no such field refuses it rather than dropping it.
    let run = fx.run(
        ASK,
        &["--provider", "completion", "--template", "chatml", "--base-url", &v1, "--repeat-penalty", "1.15"],
    );
    assert!(run.expect(2).stderr.contains("is an OpenAI-style /completions endpoint"), "{}", run.stderr);
    let run =
        fx.run(ASK, &["--provider", "openai", "--model", "m", "--base-url", &v1, "--repeat-penalty", "1.15"]);
    assert!(
        run.expect(2).stderr.contains("the openai provider cannot send --repeat-penalty 1.15"),
        "{}",
        run.stderr
    );
}
