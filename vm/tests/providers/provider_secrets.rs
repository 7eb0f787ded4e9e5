//! SPEC §7, secrets: the API key is read from its variable at the moment of
//! the request and appears nowhere else. A plan runs against the loopback
//! server with a distinctive key — a server error that echoes the key, an
//! answer, a RUN of `env`, a suspension — and every artefact is searched for
//! it: stdout, stderr, the log file, the JSON report, the snapshot's bytes,
//! the cassette `--record` wrote (and the resumed run went on with), and a
//! debugger session's transcript.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{Fixture, tissvm};
use tiss_test_support::loopback::{Reply, Server};

const KEY: &str = "sk-tiss-distinctive-7f3a9c1e5b";
const KEY_VAR: &str = "TISS_TEST_SECRET_KEY";

const PLAN: &str = "TASK \"t\"\nSTEP \"ask\" {\n    TRY {\n        PROMPT_AGENT \"first\" INTO A\n    } CATCH AS e {\n        \
                    LOG \"caught ${e.MESSAGE}\"\n    }\n    PROMPT_AGENT \"second\" INTO B\n    RUN \"env\"\n    LOG \
                    \"env: ${LAST_RUN.STDOUT}\"\n    PAUSE \"look\"\n}\n";

fn server() -> Server {
    // The server echoes the key in its error, as some hosted APIs do.
    let echo = format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#);
    Server::start(vec![Reply::error(401, &echo, &[]), Reply::hello()])
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let found = bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes());
    assert!(!found, "the key is in {what}:\n{}", String::from_utf8_lossy(bytes));
}

#[test]
fn the_key_is_sent_and_appears_in_no_artefact() {
    let fx = Fixture::new();
    let server = server();
    let log = fx.path("log.jsonl");
    let snaps = fx.path("snaps");
    let cassette = fx.path("run.cassette.json");
    let flags = [
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        &server.base_url,
        "--api-key-env",
        KEY_VAR,
        "--log-file",
        log.to_str().unwrap(),
        "--snapshot-dir",
        snaps.to_str().unwrap(),
        "--record",
        cassette.to_str().unwrap(),
        "--non-interactive",
    ];
    let run = fx.run_env(PLAN, &[&flags[..], &["--output-format", "json"]].concat(), &[(KEY_VAR, KEY)]);
    run.expect(3);
    let report = run.json();
    let logs = report["steps"][0]["logs"].as_array().unwrap();
    let caught = logs[0].as_str().unwrap();
    assert!(
        caught.contains("HTTP 401") && caught.contains("Incorrect API key provided: [redacted]"),
        "{caught}"
    );
    assert!(logs[1].as_str().unwrap().starts_with("env: "), "{logs:?}");

    // It was sent, to the server only.
    let sent = server.requests();
    assert_eq!(sent.len(), 2);
    assert!(
        sent.iter().all(|r| r.head.contains(&format!("authorization: Bearer {KEY}"))
            || r.head.contains(&format!("Authorization: Bearer {KEY}"))),
        "{sent:?}"
    );

    assert_clean("stdout (the JSON report)", run.stdout.as_bytes());
    assert_clean("stderr", run.stderr.as_bytes());
    assert_clean("the log file", &std::fs::read(&log).unwrap());
    let snapshot = std::fs::read_dir(&snaps).unwrap().next().unwrap().unwrap().path();
    assert_clean("the snapshot", &std::fs::read(&snapshot).unwrap());
    // The answer is recorded, the failed request (whose error echoed the key) is not.
    let recorded = std::fs::read(&cassette).unwrap();
    assert_clean("the cassette", &recorded);
    assert!(String::from_utf8_lossy(&recorded).contains("\"text\": \"Hello\""));

    // Text output, and the resumed run's.
    let text = fx.run_env(
        PLAN,
        &[&flags[..], &["--snapshot-dir", fx.path("snaps2").to_str().unwrap()]].concat(),
        &[(KEY_VAR, KEY)],
    );
    assert_clean("text stdout", text.stdout.as_bytes());
    assert_clean("text stderr", text.stderr.as_bytes());
    let resumed = tissvm(
        fx.root.path(),
        &["resume", snapshot.to_str().unwrap(), "--answer", "continue"],
        &[(KEY_VAR, KEY)],
    );
    resumed.expect(0);
    assert_clean("the resumed run's stdout", resumed.stdout.as_bytes());
    assert_clean("the resumed run's stderr", resumed.stderr.as_bytes());
    assert_clean("the cassette the resumed run went on with", &std::fs::read(&cassette).unwrap());

    // The debugger shows the variables, LAST_RUN and the error.
    let debug_server = self::server();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tissvm"))
        .args(["debug", &fx.write_plan(PLAN), "--workdir", fx.ws().to_str().unwrap()])
        .args([
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            &debug_server.base_url,
            "--api-key-env",
            KEY_VAR,
        ])
        .args(["--non-interactive"])
        .env(KEY_VAR, KEY)
        .current_dir(fx.root.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"continue\nprint B\nprint LAST_RUN\nprint COST\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let transcript = String::from_utf8_lossy(&out.stdout);
    assert!(transcript.contains("Hello"), "the debugger ran the prompts: {transcript}");
    assert_clean("the debugger's stdout", &out.stdout);
    assert_clean("the debugger's stderr", &out.stderr);
}

#[test]
fn the_keys_variable_is_never_allowed_into_runs_environment() {
    let fx = Fixture::new();
    let run = fx.run_env(
        "TASK \"t\"\nSTEP \"s\" {\n    RUN \"env\"\n}\n",
        &["--provider", "openai", "--model", "m", "--api-key-env", KEY_VAR, "--env-allow", KEY_VAR],
        &[(KEY_VAR, KEY)],
    );
    run.expect(2);
    assert!(
        run.stderr.contains(&format!("--env-allow {KEY_VAR} would hand the model's API key")),
        "{}",
        run.stderr
    );
    assert_clean("stdout", run.stdout.as_bytes());
}
