//! Cassettes (book: reference/models.md) through `tissvm`: `--record FILE` against the
//! loopback server (`loopback/`), then `--provider replay --cassette FILE`
//! with nothing listening, giving the same report; the key of every field
//! sent; occurrences of repeated prompts; the miss report; the cassette
//! written however the run ends (failure, uncaught provider_error, budget,
//! SIGINT suspension, a debugger `save`) and gone on with by `tissvm resume`; errors never
//! recorded; bad cassettes refused before anything runs.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{Fixture, Run, tissvm};
use serde_json::Value as Json;
use tiss_test_support::loopback::{Reply, Server, refused_url};

const TWO_PROMPTS: &str = "TASK \"t\"\nSTEP \"ask\" {\n    PROMPT_AGENT \"Say hi.\" INTO A\n    PROMPT_AGENT \
                           \"Name a colour.\" INTO B\n    LOG \"${A} and ${B}\"\n}\n";

/// An OpenAI-style stream answering `text`, with usage 12 + 2.
fn answer(text: &str) -> Reply {
    let piece = serde_json::json!({"choices": [{"delta": {"content": text}, "finish_reason": "stop"}]});
    Reply::sse(&[
        &piece.to_string(),
        r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}"#,
    ])
}

/// The flags of the `openai` provider against `base_url`, JSON output, and `extra`.
fn openai<'a>(base_url: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    [&["--provider", "openai", "--model", "m", "--base-url", base_url, "--output-format", "json"][..], extra]
        .concat()
}

/// `--provider replay --cassette FILE` with the recording's other settings,
/// against a base URL where nothing listens.
fn replay(fx: &Fixture, plan: &str, cassette: &Path, extra: &[&str]) -> Run {
    let nowhere = refused_url();
    let args = [
        &["--provider", "replay", "--cassette", cassette.to_str().unwrap()][..],
        &["--model", "m", "--base-url", &nowhere, "--output-format", "json", "--max-retries", "0"],
        extra,
    ]
    .concat();
    fx.run(plan, &args)
}

fn cassette(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn entries(path: &Path) -> Vec<Json> {
    cassette(path)["entries"].as_array().unwrap().clone()
}

/// The report without what depends on the clock.
fn timeless(mut report: Json) -> Json {
    fn strip(value: &mut Json) {
        match value {
            Json::Object(map) => {
                map.retain(|k, _| !k.contains("duration") && !k.contains("execution_time"));
                map.values_mut().for_each(strip);
            }
            Json::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut report);
    report
}

fn failure(run: &Run) -> (String, String) {
    let report = run.json();
    let f = &report["failure"];
    (f["kind"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string())
}

#[test]
fn a_recorded_run_replays_offline_with_the_same_report() {
    let fx = Fixture::new();
    let server = Server::start(vec![answer("Hello"), answer("Blue")]);
    let file = fx.path("run.cassette.json");
    let recorded = fx.run(TWO_PROMPTS, &openai(&server.base_url, &["--record", file.to_str().unwrap()]));
    recorded.expect(0);
    assert_eq!(recorded.json()["steps"][0]["logs"][0], "Hello and Blue");

    let all = cassette(&file);
    assert_eq!(all["version"], 1);
    let entries = all["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    let first = &entries[0];
    let fields: Vec<&str> = first.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(fields, ["key", "occurrence", "provider", "endpoint", "request", "response", "step", "line"]);
    assert_eq!((&first["provider"], &first["endpoint"]), (&"openai".into(), &"/v1/chat/completions".into()));
    assert_eq!((&first["step"], &first["line"], &first["occurrence"]), (&"ask".into(), &3.into(), &0.into()));
    assert_eq!(first["key"].as_str().unwrap().len(), 64);
    // The request is the body that was sent, byte for byte.
    let sent: Json = serde_json::from_str(&server.requests()[0].body).unwrap();
    assert_eq!(first["request"], sent);
    assert_eq!(
        first["response"],
        serde_json::json!({"text": "Hello", "usage": {"tokens": 14, "estimated": false}, "finish_reason": "stop"})
    );
    assert_eq!(entries[1]["response"]["text"], "Blue");

    let replayed = replay(&fx, TWO_PROMPTS, &file, &[]);
    replayed.expect(0);
    assert_eq!(timeless(replayed.json()), timeless(recorded.json()));
    assert_eq!(server.requests().len(), 2, "replay sent nothing");
}

#[test]
fn the_key_changes_with_every_field_sent() {
    let fx = Fixture::new();
    std::fs::write(fx.ws().join("notes.txt"), "first").unwrap();
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    READ \"notes.txt\" AS NOTES\n    PROMPT_AGENT \"Sum up.\" \
                WITH NOTES INTO A\n    LOG \"${A}\"\n}\n";
    let server = Server::start(vec![answer("ok")]);
    let key = |name: &str, model: &str, extra: &[&str]| -> String {
        let file = fx.path(name);
        let args =
            [&["--provider", "openai", "--base-url", &server.base_url, "--model", model][..], extra].concat();
        fx.run(plan, &[&args[..], &["--record", file.to_str().unwrap()]].concat()).expect(0);
        entries(&file)[0]["key"].as_str().unwrap().to_string()
    };
    let base = key("base.json", "m", &[]);
    assert_eq!(base, key("again.json", "m", &[]), "the same request, the same key");
    let model = key("model.json", "other", &[]);
    let temperature = key("temperature.json", "m", &["--temperature", "0.5"]);
    let max_tokens = key("max-tokens.json", "m", &["--max-tokens", "64"]);
    std::fs::write(fx.ws().join("notes.txt"), "second").unwrap();
    let context = key("context.json", "m", &[]);
    let keys = [&base, &model, &temperature, &max_tokens, &context];
    for (i, a) in keys.iter().enumerate() {
        for b in &keys[i + 1..] {
            assert_ne!(a, b, "two different requests have one key");
        }
    }

    // Replay asks what the recording asked: the same settings and inputs hit…
    let hit = replay(&fx, plan, &fx.path("context.json"), &[]);
    hit.expect(0);
    assert_eq!(hit.json()["steps"][0]["logs"][0], "ok");
    // …other settings miss, naming what differs.
    let miss = replay(&fx, plan, &fx.path("context.json"), &["--temperature", "0.5"]);
    miss.expect(1);
    let (kind, message) = failure(&miss);
    assert_eq!(kind, "provider_error");
    assert!(message.starts_with("replay: "), "{message}");
    assert!(message.contains("temperature (recorded 0.0, now 0.5)"), "{message}");
}

#[test]
fn repeated_prompts_get_occurrences_and_replay_in_order() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    PROMPT_AGENT \"Roll a die.\" INTO A\n    PROMPT_AGENT \"Roll a \
                die.\" INTO B\n    PROMPT_AGENT \"Roll a die.\" INTO C\n    LOG \"${A} ${B} ${C}\"\n}\n";
    let server = Server::start(vec![answer("4"), answer("1"), answer("6")]);
    let file = fx.path("dice.json");
    fx.run(plan, &openai(&server.base_url, &["--record", file.to_str().unwrap()])).expect(0);
    let entries = entries(&file);
    let occurrences: Vec<u64> = entries.iter().map(|e| e["occurrence"].as_u64().unwrap()).collect();
    assert_eq!(occurrences, [0, 1, 2]);
    assert!(entries.iter().all(|e| e["key"] == entries[0]["key"]));

    let replayed = replay(&fx, plan, &file, &[]);
    replayed.expect(0);
    assert_eq!(replayed.json()["steps"][0]["logs"][0], "4 1 6");

    // A fourth roll was never recorded.
    let more = plan.replace("LOG", "PROMPT_AGENT \"Roll a die.\" INTO D\n    LOG");
    let run = replay(&fx, &more, &file, &[]);
    run.expect(1);
    let (_, message) = failure(&run);
    assert!(
        message.contains("has 3 answers of the request of line 6") && message.contains("(time 4)"),
        "{message}"
    );
}

#[test]
fn a_miss_names_the_nearest_entry_and_the_fields_that_differ() {
    let fx = Fixture::new();
    let server = Server::start(vec![answer("Hello"), answer("Blue")]);
    let file = fx.path("c.json");
    fx.run(TWO_PROMPTS, &openai(&server.base_url, &["--record", file.to_str().unwrap()])).expect(0);
    // The second query changed, on the same line.
    let changed = TWO_PROMPTS.replace("Name a colour.", "Name a color.");
    let run = replay(&fx, &changed, &file, &[]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    for part in [
        "has no answer for the request of line 4 (openai /v1/chat/completions)",
        "the nearest recorded request, of line 4 (step `ask`), differs in: messages[1].content",
        "\"Name a colour.\"",
        "\"Name a color.\"",
        "Replay with the settings it was recorded with, or record it again",
    ] {
        assert!(message.contains(part), "{part:?} not in {message}");
    }
    let logs = &run.json()["steps"][0]["logs"];
    assert!(logs.as_array().is_some_and(Vec::is_empty), "the LOG after the miss ran: {logs}");
}

#[test]
fn errors_are_never_recorded() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    TRY {\n        PROMPT_AGENT \"first\" INTO A\n    } CATCH AS e {\n        \
                LOG \"caught ${e.KIND}\"\n    }\n    PROMPT_AGENT \"second\" INTO B\n}\n";
    let server = Server::start(vec![Reply::error(400, r#"{"error":{"message":"bad"}}"#, &[]), answer("ok")]);
    let file = fx.path("c.json");
    fx.run(plan, &openai(&server.base_url, &["--record", file.to_str().unwrap()])).expect(0);
    let entries = entries(&file);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["response"]["text"], "ok");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("bad") && !text.to_ascii_lowercase().contains("content-type"), "{text}");

    // Replayed, the failed request misses again, and TRY catches it again.
    let replayed = replay(&fx, plan, &file, &[]);
    replayed.expect(0);
    assert_eq!(replayed.json()["steps"][0]["logs"][0], "caught provider_error");
}

#[test]
fn every_end_of_a_run_writes_the_cassette() {
    let fx = Fixture::new();
    let ends = [
        ("assertion", "    ASSERT A == \"nope\"\n", &[][..], 1, 1),
        ("provider_error", "    PROMPT_AGENT \"again\" INTO B\n", &[], 1, 1),
        // The answer's reported usage (14) crosses the cap after the fact: it was answered, so recorded.
        ("budget", "    LOG \"${A}\"\n", &["--budget", "TOKEN_COUNT=10"], 4, 1),
        ("pass", "    LOG \"${A}\"\n", &[], 0, 1),
    ];
    for (name, rest, extra, status, recorded) in ends {
        let plan = format!("TASK \"t\"\nSTEP \"ask\" {{\n    PROMPT_AGENT \"hi\" INTO A\n{rest}}}\n");
        let file = fx.path(&format!("{name}.json"));
        let args = [&["--record", file.to_str().unwrap()][..], extra].concat();
        let server =
            Server::start(vec![answer("Hello"), Reply::error(400, r#"{"error":{"message":"no"}}"#, &[])]);
        let run = fx.run(&plan, &openai(&server.base_url, &args));
        run.expect(status);
        assert_eq!(entries(&file).len(), recorded, "{name}");
    }
}

/// A run that records, is interrupted by SIGINT during a RUN, and resumed:
/// the cassette is complete up to the suspension, and the resumed run goes
/// on recording into it, its earlier entries kept and occurrences counted on.
#[test]
fn a_sigint_suspension_keeps_the_cassette_and_resume_goes_on_recording() {
    let fx = Fixture::new();
    // The same query and context (WITH X: not LAST_RUN) before and after the RUN.
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    VAR X = \"x\"\n    PROMPT_AGENT \"hi\" WITH X INTO A\n    RUN \"touch \
                started; sleep 2\"\n    PROMPT_AGENT \"hi\" WITH X INTO B\n    LOG \"${A} then ${B}\"\n}\n";
    let server = Server::start(vec![answer("one"), answer("two")]);
    let file = fx.path("c.json");
    let snaps = fx.path("snaps");
    let plan_path = fx.write_plan(plan);
    let ws = fx.ws();
    let args = [
        &["run", &plan_path, "--workdir", ws.to_str().unwrap()][..],
        &["--snapshot-dir", snaps.to_str().unwrap(), "--record", file.to_str().unwrap()],
        &openai(&server.base_url, &[]),
    ]
    .concat();
    let child = crate::common::start(fx.root.path(), &args);
    let started = fx.ws().join("started");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the RUN never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a plain syscall on our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let before = entries(&file);
    assert_eq!(before.len(), 1);
    assert_eq!(before[0]["response"]["text"], "one");

    let snapshot = std::fs::read_dir(&snaps).unwrap().next().unwrap().unwrap().path();
    let resumed = tissvm(fx.root.path(), &["resume", snapshot.to_str().unwrap()], &[]);
    resumed.expect(0);
    assert!(resumed.stderr.contains(&format!(" --record {}\n", file.display())), "{}", resumed.stderr);
    let after = entries(&file);
    assert_eq!(after.len(), 2);
    assert_eq!(after[0], before[0], "the entry before the suspension is kept");
    assert_eq!((&after[1]["occurrence"], &after[1]["response"]["text"]), (&1.into(), &"two".into()));

    // The whole run replays from the cassette, across a suspension too.
    let replayed = replay(&fx, plan, &file, &[]);
    replayed.expect(0);
    assert_eq!(replayed.json()["steps"][0]["logs"][0], "one then two");
}

#[test]
fn bad_cassettes_and_flags_are_usage_errors_before_anything_runs() {
    let fx = Fixture::new();
    let plan =
        "TASK \"t\"\nSTEP \"s\" {\n    WRITE \"ran.txt\" FROM \"yes\"\n    PROMPT_AGENT \"hi\" INTO A\n}\n";
    let refused = |args: &[&str], env: &[(&str, &str)], says: &str| {
        let run = fx.run_env(plan, args, env);
        run.expect(2);
        assert!(run.stderr.contains(says), "{says:?} not in {}", run.stderr);
        assert!(!fx.ws().join("ran.txt").exists(), "the plan ran");
    };
    refused(&["--provider", "replay"], &[], "the replay provider needs a cassette: --cassette FILE");
    refused(&["--provider", "replay", "--cassette", "missing.json"], &[], "cannot read --cassette");
    let corrupt = fx.path("corrupt.json");
    std::fs::write(&corrupt, "{\"version\": 1, \"entries\": [").unwrap();
    refused(
        &["--provider", "replay", "--cassette", corrupt.to_str().unwrap()],
        &[],
        "not a cassette (not JSON",
    );
    let future = fx.path("future.json");
    std::fs::write(&future, r#"{"version": 2, "entries": []}"#).unwrap();
    refused(
        &[],
        &[("TISS_PROVIDER", "replay"), ("TISS_CASSETTE", future.to_str().unwrap())],
        "a cassette of version 2, and this tissvm reads version 1",
    );
    let empty = fx.path("empty.json");
    std::fs::write(&empty, r#"{"version": 1, "entries": []}"#).unwrap();
    refused(
        &["--provider", "replay", "--cassette", empty.to_str().unwrap(), "--record", "new.json"],
        &[],
        "`replay` only gives back recorded ones",
    );
    refused(&["--record", fx.path("no/such/dir/c.json").to_str().unwrap()], &[], "there is no directory");
}

#[test]
fn the_environment_and_tiss_toml_name_the_cassette_and_providers_shows_it() {
    let fx = Fixture::new();
    let file = fx.path("from-env.json");
    let run = fx.run_env(TWO_PROMPTS, &[], &[("TISS_RECORD", file.to_str().unwrap())]);
    run.expect(0);
    assert_eq!(entries(&file).len(), 2, "the mock's answers are recorded too");
    assert_eq!(entries(&file)[0]["provider"], "mock");

    std::fs::write(fx.path("tiss.toml"), "[provider]\nprovider = \"replay\"\ncassette = \"from-env.json\"\n")
        .unwrap();
    let replayed = fx.run(TWO_PROMPTS, &["--output-format", "json"]);
    replayed.expect(0);
    assert_eq!(
        replayed.json()["steps"][0]["logs"][0],
        "mock answer to: Say hi. and mock answer to: Name a colour."
    );

    let shown = fx.tissvm(&["providers"]);
    shown.expect(0);
    let listed = |name: &str| shown.stdout.lines().any(|l| l.trim_start().starts_with(name));
    assert!(listed("replay ") && listed("record ") && listed("cassette "), "{}", shown.stdout);
    let line = shown.stdout.lines().find(|l| l.trim_start().starts_with("cassette ")).unwrap();
    assert!(line.contains(&file.display().to_string()) && line.contains("tiss.toml [provider]"), "{line}");
    let summary = format!("\ncassette {}:\n  2 answers recorded with mock\n", file.display());
    assert!(shown.stdout.ends_with(&summary), "{}", shown.stdout);
    std::fs::write(&file, "{}").unwrap();
    let unreadable = fx.tissvm(&["providers"]);
    unreadable.expect(2);
    assert!(unreadable.stderr.contains("not a cassette: no \"version\""), "{}", unreadable.stderr);
}

/// The occurrence is the machine's count, kept in the snapshot: a replayed
/// run suspended between two identical prompts goes on, once resumed, with
/// the second recorded answer, not the first again.
#[test]
fn a_replayed_run_resumed_goes_on_with_the_next_occurrence() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    VAR X = \"x\"\n    PROMPT_AGENT \"hi\" WITH X INTO A\n    PAUSE \
                \"go on?\"\n    PROMPT_AGENT \"hi\" WITH X INTO B\n    LOG \"${A} then ${B}\"\n}\n";
    let server = Server::start(vec![answer("one"), answer("two")]);
    let file = fx.path("c.json");
    let answers = fx.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}]"#).unwrap();
    let args = ["--record", file.to_str().unwrap(), "--answers", answers.to_str().unwrap()];
    fx.run(plan, &openai(&server.base_url, &args)).expect(0);

    let snaps = fx.path("snaps");
    let suspended =
        replay(&fx, plan, &file, &["--non-interactive", "--snapshot-dir", snaps.to_str().unwrap()]);
    suspended.expect(3);
    let snapshot = std::fs::read_dir(&snaps).unwrap().next().unwrap().unwrap().path();
    let resumed = tissvm(
        fx.root.path(),
        &["resume", snapshot.to_str().unwrap(), "--answer", "continue", "--output-format", "json"],
        &[],
    );
    resumed.expect(0);
    assert_eq!(resumed.json()["steps"][0]["logs"][0], "one then two");
}

/// `tissvm debug --record`: the debugger's `save` writes the cassette with
/// its snapshot (checked while the session is still open), and the snapshot
/// resumed goes on recording into it.
#[test]
fn a_debugger_save_writes_the_cassette_and_its_resume_goes_on() {
    use std::io::Write;
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    VAR X = \"x\"\n    PROMPT_AGENT \"hi\" WITH X INTO A\n    PAUSE \
                \"go on?\"\n    PROMPT_AGENT \"hi\" WITH X INTO B\n    LOG \"${A} then ${B}\"\n}\n";
    let file = fx.path("c.json");
    let snapshot = fx.path("saved.snap");
    let plan_path = fx.write_plan(plan);
    std::fs::write(fx.path("answers.json"), r#"["first", "second"]"#).unwrap();
    let mut child = crate::common::command()
        .args(["debug", &plan_path, "--workdir", fx.ws().to_str().unwrap(), "--non-interactive"])
        .args([
            "--mock-answers",
            fx.path("answers.json").to_str().unwrap(),
            "--record",
            file.to_str().unwrap(),
        ])
        .current_dir(fx.root.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "continue\nsave {}", snapshot.display()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !snapshot.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            let out = child.wait_with_output().unwrap();
            panic!("debug exited ({status}): {}", String::from_utf8_lossy(&out.stderr));
        }
        assert!(Instant::now() < deadline, "the snapshot never appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    let saved = entries(&file);
    assert_eq!(saved.len(), 1, "the cassette is written with the snapshot, before the session ends");
    assert_eq!(saved[0]["response"]["text"], "first");
    drop(stdin);
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(0));

    let resumed = tissvm(
        fx.root.path(),
        &["resume", snapshot.to_str().unwrap(), "--answer", "continue", "--output-format", "json"],
        &[],
    );
    resumed.expect(0);
    assert_eq!(resumed.json()["steps"][0]["logs"][0], "first then second");
    let after = entries(&file);
    assert_eq!(after.len(), 2);
    assert_eq!((&after[1]["occurrence"], &after[1]["response"]["text"]), (&1.into(), &"second".into()));
}

/// Every live provider records, and its cassette replays with its settings:
/// `ollama` (NDJSON, its own endpoint) and `completion` (llama.cpp's SSE).
#[test]
fn ollama_and_completion_answers_record_and_replay() {
    let ollama = Reply::ndjson(&[
        r#"{"model":"m","message":{"role":"assistant","content":"Hel"},"done":false}"#,
        r#"{"model":"m","message":{"role":"assistant","content":"lo"},"done_reason":"length","done":true,"prompt_eval_count":10,"eval_count":17}"#,
    ]);
    let llama = Reply::sse_raw(&[
        r#"{"content":"Hel","stop":false}"#,
        r#"{"content":"lo","stop":true,"tokens_predicted":3,"tokens_evaluated":14,"stop_type":"eos"}"#,
    ]);
    for (provider, reply, settings, endpoint, reason) in [
        ("ollama", ollama, &["--model", "m"][..], "/api/chat", "length"),
        ("completion", llama, &["--template", "chatml"][..], "/completion", "stop"),
    ] {
        let fx = Fixture::new();
        let server = Server::start(vec![reply]);
        let file = fx.path("c.json");
        let root = server.root_url();
        let live = [&["--provider", provider, "--base-url", &root][..], settings].concat();
        let record = [&live[..], &["--record", file.to_str().unwrap(), "--output-format", "json"]].concat();
        let recorded = fx.run(TWO_PROMPTS, &record);
        recorded.expect(0);
        let entries = entries(&file);
        assert_eq!(entries.len(), 2, "{provider}");
        assert_eq!((&entries[0]["provider"], &entries[0]["endpoint"]), (&provider.into(), &endpoint.into()));
        assert_eq!(entries[0]["response"]["finish_reason"], reason, "{provider}");

        let offline =
            [&["--provider", "replay", "--cassette", file.to_str().unwrap()][..], settings].concat();
        let replayed = fx.run(TWO_PROMPTS, &[&offline[..], &["--output-format", "json"]].concat());
        replayed.expect(0);
        assert_eq!(timeless(replayed.json()), timeless(recorded.json()), "{provider}");
        assert_eq!(server.requests().len(), 2, "{provider}: replay sent nothing");
    }
}

/// Replay needs no provider flags (book: reference/models.md): the settings a run does not
/// give — model, template, sampling, token limit, and the endpoint's path —
/// are the cassette's, so `--provider replay --cassette FILE` alone re-runs
/// a recording; a setting given takes part in the key as usual, and
/// `tissvm providers` says which came from the cassette.
#[test]
fn replay_takes_the_settings_it_is_not_given_from_the_cassette() {
    let openai_style = |text: &str| {
        let piece = serde_json::json!({"choices": [{"text": text, "finish_reason": "stop"}]});
        Reply::sse(&[
            &piece.to_string(),
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}"#,
        ])
    };
    let settings = ["--model", "m", "--max-tokens", "64", "--temperature", "0.5", "--seed", "7"];
    for (provider, replies, extra) in [
        ("openai", vec![answer("Hello"), answer("Blue")], &[][..]),
        // OpenAI-style /v1/completions, not the default llama.cpp /completion.
        ("completion", vec![openai_style("Hello"), openai_style("Blue")], &["--template", "alpaca"][..]),
    ] {
        let fx = Fixture::new();
        let server = Server::start(replies);
        let file = fx.path("c.json");
        let live = [&["--provider", provider, "--base-url", &server.base_url][..], &settings, extra].concat();
        let record = [&live[..], &["--record", file.to_str().unwrap(), "--output-format", "json"]].concat();
        let recorded = fx.run(TWO_PROMPTS, &record);
        recorded.expect(0);

        let alone = ["--provider", "replay", "--cassette", file.to_str().unwrap(), "--output-format", "json"];
        let replayed = fx.run(TWO_PROMPTS, &alone);
        replayed.expect(0);
        assert_eq!(timeless(replayed.json()), timeless(recorded.json()), "{provider}: {}", replayed.stderr);
        assert_eq!(server.requests().len(), 2, "{provider}: replay sent nothing");

        let given = fx.run(TWO_PROMPTS, &[&alone[..], &["--temperature", "0"]].concat());
        given.expect(1);
        let (kind, message) = failure(&given);
        assert_eq!(kind, "provider_error");
        assert!(message.contains("temperature (recorded 0.5, now 0.0)"), "{provider}: {message}");

        let shown = fx.tissvm(&["providers", "--provider", "replay", "--cassette", file.to_str().unwrap()]);
        shown.expect(0);
        for (name, value) in [("model", "m"), ("max_tokens", "64"), ("temperature", "0.5"), ("seed", "7")] {
            let line =
                shown.stdout.lines().find(|l| l.trim_start().starts_with(&format!("{name} "))).unwrap();
            assert!(line.contains(value) && line.ends_with("the cassette"), "{provider}: {line}");
        }
    }
}

/// `--repeat-penalty` is part of what is sent, so of the key: a cassette
/// recorded with one replays with it (given, or taken from the cassette
/// when not given, book: reference/models.md), and misses with another, naming it; a cassette
/// recorded without one (every older cassette) keys the same bodies as
/// before.
#[test]
fn a_repeat_penalty_is_keyed_like_any_sampling_setting() {
    let fx = Fixture::new();
    let llama = |text: &str| {
        Reply::sse_raw(&[&format!(
            r#"{{"content":"{text}","stop":true,"tokens_predicted":3,"tokens_evaluated":14,"stop_type":"eos"}}"#
        )])
    };
    let server = Server::start(vec![llama("ok"), llama("ok"), llama("ok"), llama("ok")]);
    let root = server.root_url();
    let live = ["--provider", "completion", "--template", "chatml", "--base-url", &root];
    let file = fx.path("penalised.json");
    let record = ["--repeat-penalty", "1.15", "--record", file.to_str().unwrap()];
    fx.run(TWO_PROMPTS, &[&live[..], &record].concat()).expect(0);
    assert_eq!(entries(&file)[0]["request"]["repeat_penalty"], 1.15);
    let offline = |extra: &[&str]| {
        let args = ["--provider", "replay", "--cassette", file.to_str().unwrap(), "--template", "chatml"];
        fx.run(TWO_PROMPTS, &[&args[..], extra, &["--output-format", "json"]].concat())
    };
    offline(&["--repeat-penalty", "1.15"]).expect(0);
    offline(&[]).expect(0);
    let miss = offline(&["--repeat-penalty", "1.2"]);
    miss.expect(1);
    let (_, message) = failure(&miss);
    assert!(message.contains("repeat_penalty (recorded 1.15, now 1.2)"), "{message}");
    let plain = fx.path("plain.json");
    fx.run(TWO_PROMPTS, &[&live[..], &["--record", plain.to_str().unwrap()]].concat()).expect(0);
    let request = &entries(&plain)[0]["request"];
    assert!(request.get("repeat_penalty").is_none() && request.get("repeat_last_n").is_none(), "{request}");
}
