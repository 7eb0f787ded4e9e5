//! `tissc generate` through the binary: the compile-and-repair loop with
//! scripted answers (`--provider mock --mock-answers`), `-o` and
//! `NAME.rejected.tiss`, `--output-format json`, the exit statuses, and what
//! goes over the wire to an OpenAI-compatible server (a loopback server
//! speaking the real format): the grammar, the diagnostics sent back, a
//! refusal in the server's words, the key in no output.

use std::path::Path;
use std::process::Output;

use tiss_test_support::{command, text};

use serde_json::Value;
use tiss_test_support::loopback::{Reply, Server};

const BAD: &str = "```tiss\nTASK \"Say hi\"\nSTEP \"greet\" {\n    RUN \"echo hi\" TIMEOUT 5s\n    ASERT LAST_RUN.EXIT_CODE == 0\n}\n```";
const GOOD: &str = "TASK \"Say hi\"\n\nSTEP \"greet\" {\n    RUN \"echo hi\" TIMEOUT 5s\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n";
const ALSO_BAD: &str = "TASK \"Say hi\"\nSTEP \"greet\" {\n    LOG \"${nobody}\"\n}\n";

fn tissc(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    command("tissc", dir, args).envs(env.iter().copied()).output().expect("run tissc")
}

/// A directory with `answers.json` holding `answers`.
fn with_answers(answers: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("answers.json"), serde_json::to_string(answers).unwrap()).unwrap();
    dir
}

#[test]
fn a_plan_that_does_not_compile_is_repaired_and_written() {
    let dir = with_answers(&[BAD, GOOD]);
    let out = tissc(
        dir.path(),
        &["generate", "Say hi", "-o", "hi.tiss", "--provider", "mock", "--mock-answers", "answers.json"],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("attempt 1 of 4: 1 error\n") && stderr.contains("attempt 2 of 4: compiles\n"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("hi.tiss")).unwrap(), GOOD);
    assert!(!dir.path().join("hi.rejected.tiss").exists());
    assert!(out.stdout.is_empty(), "the plan went to -o, not stdout");
    // What was written compiles.
    let check = tissc(dir.path(), &["check", "hi.tiss"], &[]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
}

#[test]
fn without_o_the_plan_goes_to_stdout() {
    let dir = with_answers(&[GOOD]);
    let out = tissc(
        dir.path(),
        &["generate", "Say hi", "--provider", "mock", "--mock-answers", "answers.json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), GOOD);
}

#[test]
fn the_diagnostics_go_back_to_the_model_with_its_plan() {
    // The mock answers by the last user message: the good plan only to a
    // request that carries the compiler's JSON diagnostic of the bad one.
    let dir = tempfile::tempdir().unwrap();
    let rules = serde_json::json!([
        {"match": r#"rejected that plan with 1 error(?s:.*)"code":"E0101".*"line":4.*"replacement":"ASSERT""#, "answer": GOOD},
        {"match": "^Write a TissLang plan for this goal: Say hi$", "answer": BAD},
    ]);
    std::fs::write(dir.path().join("rules.json"), rules.to_string()).unwrap();
    let out =
        tissc(dir.path(), &["generate", "Say hi", "--provider", "mock", "--mock-answers", "rules.json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), GOOD);
}

#[test]
fn when_the_repairs_run_out_the_last_attempt_is_saved_as_rejected() {
    let dir = with_answers(&[BAD, ALSO_BAD, GOOD]);
    let out = tissc(
        dir.path(),
        &[
            "generate",
            "Say hi",
            "-o",
            "hi.tiss",
            "--max-repairs",
            "1",
            "--provider",
            "mock",
            "--mock-answers",
            "answers.json",
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("attempt 2 of 2: 1 error") && stderr.contains("no plan compiled after 2 attempts")
    );
    assert!(
        stderr.contains("E0201") || stderr.contains("nobody"),
        "the last attempt's diagnostics: {stderr}"
    );
    assert!(
        !dir.path().join("hi.tiss").exists(),
        "a plan that does not compile is never written as the plan"
    );
    let rejected = std::fs::read_to_string(dir.path().join("hi.rejected.tiss")).unwrap();
    assert!(rejected.starts_with(ALSO_BAD), "{rejected}");
    assert!(rejected.contains("# tissc generate: this plan, attempt 2, does not compile:"), "{rejected}");
    assert!(rejected.contains("#   --> hi.tiss:3:"), "diagnostics name the plan's lines: {rejected}");

    // --error-format json: the last attempt's diagnostics as JSON lines on stderr.
    let dir = with_answers(&[BAD]);
    let out = tissc(
        dir.path(),
        &[
            "--error-format",
            "json",
            "generate",
            "Say hi",
            "--max-repairs",
            "0",
            "--provider",
            "mock",
            "--mock-answers",
            "answers.json",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let line = text(&out.stderr).lines().find(|l| l.starts_with('{')).map(str::to_string).unwrap_or_default();
    let diagnostic: Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stderr)));
    assert_eq!((diagnostic["code"].as_str(), diagnostic["line"].as_u64()), (Some("E0101"), Some(4)));
}

#[test]
fn json_output_has_every_attempt_and_the_usage() {
    let dir = with_answers(&[BAD, GOOD]);
    let out = tissc(
        dir.path(),
        &[
            "generate",
            "Say hi",
            "-o",
            "hi.tiss",
            "--output-format",
            "json",
            "--provider",
            "mock",
            "--mock-answers",
            "answers.json",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(json["status"], "compiled");
    assert_eq!(json["plan"], GOOD);
    assert_eq!(json["output"], "hi.tiss");
    let attempts = json["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["errors"][0]["code"], "E0101");
    assert_eq!(attempts[0]["errors"][0]["suggestions"][0]["replacement"], "ASSERT");
    assert_eq!(attempts[1]["errors"], serde_json::json!([]));
    assert_eq!(json["usage"]["requests"], 2);
    let tokens = attempts[0]["tokens"].as_u64().unwrap() + attempts[1]["tokens"].as_u64().unwrap();
    assert_eq!(json["usage"]["tokens"].as_u64(), Some(tokens));

    let dir = with_answers(&[BAD]);
    let out = tissc(
        dir.path(),
        &["generate", "Say hi", "--max-repairs", "0", "--output-format", "json", "--provider", "mock"],
        &[("TISS_MOCK_ANSWERS", "answers.json")],
    );
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (json["status"].as_str(), json["attempts"].as_array().map(Vec::len)),
        (Some("rejected"), Some(1))
    );
    assert_eq!(json["output"], Value::Null, "no -o: nothing saved");
}

#[test]
fn usage_errors_are_found_before_the_model_is_asked() {
    let dir = with_answers(&[GOOD]);
    std::fs::write(dir.path().join("c.json"), r#"{"version": 1, "entries": []}"#).unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["generate", "  "], "the goal is empty"),
        (
            &["generate", "x", "-o", "no/such/dir/p.tiss", "--provider", "mock"],
            "`no/such/dir` does not exist",
        ),
        (&["generate", "x", "--provider", "gpt"], "unknown provider `gpt`"),
        (&["generate", "x", "--provider", "completion"], "needs --template"),
        // A cassette holds a tissvm run's answers, not a generation's.
        (
            &["generate", "x", "--provider", "replay", "--cassette", "c.json"],
            "answers only the PROMPT_AGENTs",
        ),
    ];
    for (args, message) in cases {
        let out = tissc(dir.path(), args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
    // The settings come from ./tiss.toml as for tissvm, checked the same way.
    std::fs::write(dir.path().join("tiss.toml"), "[provider]\nmax_tokens = -1\n").unwrap();
    let out = tissc(dir.path(), &["generate", "x"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("[provider] max_tokens"), "{}", text(&out.stderr));
}

/// An SSE answer of an OpenAI-compatible server whose text is `plan`.
fn answer(plan: &str) -> Reply {
    let piece = serde_json::json!({"choices": [{"delta": {"content": plan}, "finish_reason": "stop"}]});
    let usage = r#"{"choices":[],"usage":{"prompt_tokens":700,"completion_tokens":60,"total_tokens":760}}"#;
    Reply::sse(&[&piece.to_string(), usage])
}

const KEY: &str = "sk-generate-secret-4711";

#[test]
fn openai_requests_carry_the_grammar_and_the_repair() {
    let server = Server::start(vec![answer(BAD), answer(GOOD)]);
    let dir = tempfile::tempdir().unwrap();
    let args = ["generate", "Say hi", "--provider", "openai", "--model", "m", "--base-url", &server.base_url];
    let out =
        tissc(dir.path(), &[&args[..], &["--output-format", "json"]].concat(), &[("OPENAI_API_KEY", KEY)]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stdout.contains(KEY) && !stderr.contains(KEY));
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["usage"], serde_json::json!({"requests": 2, "tokens": 1520, "estimated": false}));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first: Value = serde_json::from_str(&requests[0].body).unwrap();
    assert_eq!(first["grammar"], tiss_compiler::generate::grammar::plan_gbnf());
    assert_eq!(first["messages"][0]["role"], "system");
    assert!(
        first["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("TASK \"Create and test a Python script\"")
    );
    assert_eq!(first["messages"][1]["content"], "Write a TissLang plan for this goal: Say hi");
    let second: Value = serde_json::from_str(&requests[1].body).unwrap();
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(
        (messages[2]["role"].as_str(), messages[2]["content"].as_str()),
        (Some("assistant"), Some(&BAD[8..BAD.len() - 3]))
    );
    assert!(messages[3]["content"].as_str().unwrap().contains(r#""code":"E0101""#));
    assert!(requests[0].head.contains(&format!("Bearer {KEY}")), "the key goes only where it belongs");

    // --no-grammar: no grammar field.
    let server = Server::start(vec![answer(GOOD)]);
    let args = ["generate", "Say hi", "--provider", "openai", "--model", "m", "--base-url", &server.base_url];
    let out = tissc(dir.path(), &[&args[..], &["--no-grammar"]].concat(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let body: Value = serde_json::from_str(&server.requests()[0].body).unwrap();
    assert!(body.get("grammar").is_none(), "{body}");
}

#[test]
fn a_provider_error_is_reported_in_the_servers_words_without_the_key() {
    // A server that refuses the grammar field, and echoes the key it was sent.
    let refusal =
        format!(r#"{{"error":{{"message":"Unrecognized request argument supplied: grammar (key {KEY})"}}}}"#);
    let server = Server::start(vec![Reply::error(400, &refusal, &[])]);
    let dir = tempfile::tempdir().unwrap();
    let out = tissc(
        dir.path(),
        &[
            "generate",
            "Say hi",
            "-o",
            "hi.tiss",
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            &server.base_url,
            "--output-format",
            "json",
        ],
        &[("OPENAI_API_KEY", KEY)],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stdout.contains(KEY) && !stderr.contains(KEY), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("HTTP 400") && stderr.contains("Unrecognized request argument supplied: grammar")
    );
    assert!(stderr.contains("try again with --no-grammar"), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["status"], "provider_error");
    assert_eq!(json["attempts"], serde_json::json!([]));
    assert_eq!(json["plan"], Value::Null);
    assert!(json["message"].as_str().unwrap().contains(&server.base_url));
    assert!(!dir.path().join("hi.tiss").exists() && !dir.path().join("hi.rejected.tiss").exists());

    // Nothing listening: a connection error, after the retries asked for.
    let out = tissc(
        dir.path(),
        &[
            "generate",
            "x",
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            &tiss_test_support::loopback::refused_url(),
            "--max-retries",
            "0",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("the model could not be asked"), "{}", text(&out.stderr));
}

#[test]
fn certain_fixes_are_applied_before_a_repair_round_is_spent() {
    // Earlier TissLang: `->` for INTO, `FILE_EXISTS`, a `//` comment. One
    // answer only: a repair round would find the mock with nothing to say.
    let old = "TASK \"Say hi\"\n\nSTEP \"greet\" {\n    // greet\n    PROMPT_AGENT \"Say hi\" -> hi\n    WRITE \"hi.txt\" FROM hi\n    ASSERT FILE_EXISTS \"hi.txt\"\n}\n";
    let dir = with_answers(&[old]);
    let out = tissc(
        dir.path(),
        &["generate", "Say hi", "-o", "hi.tiss", "--provider", "mock", "--mock-answers", "answers.json"],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("attempt 1 of 4: compiles (after 3 certain fixes)\n"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hi.tiss")).unwrap(),
        "TASK \"Say hi\"\n\nSTEP \"greet\" {\n    # greet\n    PROMPT_AGENT \"Say hi\" INTO hi\n    WRITE \"hi.txt\" FROM hi\n    ASSERT FILE \"hi.txt\" EXISTS\n}\n"
    );
}

#[test]
fn the_mock_without_answers_is_refused_before_any_attempt() {
    // Its answers echo the prompt: no attempt could ever compile.
    let dir = tempfile::tempdir().unwrap();
    for args in [&["generate", "Say hi"][..], &["generate", "Say hi", "--provider", "mock"]] {
        let out = tissc(dir.path(), args, &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("--provider") && stderr.contains("--mock-answers"), "{stderr}");
        assert!(!stderr.contains("attempt"), "{stderr}");
    }
}

#[test]
fn a_long_report_shows_its_first_errors_and_counts_the_rest() {
    let junk = "TASK \"t\"\nSTEP \"s\" {\n".to_string() + &"    LOG \"${nobody}\"\n".repeat(40) + "}\n";
    let dir = with_answers(&[&junk]);
    let out = tissc(
        dir.path(),
        &[
            "generate",
            "x",
            "-o",
            "p.tiss",
            "--max-repairs",
            "0",
            "--provider",
            "mock",
            "--mock-answers",
            "answers.json",
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.matches("error[E").count(), 10, "{stderr}");
    assert!(stderr.contains("and 30 more errors, all in `p.rejected.tiss`"), "{stderr}");
    // The saved attempt keeps every diagnostic.
    let saved = std::fs::read_to_string(dir.path().join("p.rejected.tiss")).unwrap();
    assert_eq!(saved.matches("error[E").count(), 40);
}
