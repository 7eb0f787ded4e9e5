//! Secrets (book: reference/models.md, reference/sandbox.md): the API key is taken out of the environment
//! before anything runs, sent in the request, and appears nowhere else. A plan runs against the loopback
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

/// What a RUN tries, to find the key: its own environment, tissvm's
/// environment block and command line (`/proc/$PPID`), and the process
/// above tissvm (a batch's parent), each written into `seen.txt`.
const PEEK: &str = "TASK \"peek\"\nSTEP \"s\" {\n    PROMPT_AGENT \"hi\" INTO A\n    RUN \"P=$PPID; \
                    G=$(cut -d' ' -f4 /proc/$P/stat); { env; echo; cat /proc/$P/environ; echo; \
                    cat /proc/$P/cmdline; echo; cat /proc/$G/environ; echo; echo peeked; } > seen.txt 2>&1\"\n}\n";

/// book: reference/sandbox.md: under every profile, `none` included, the key is in no RUN's
/// environment and cannot be read from tissvm — its environment block is
/// scrubbed once the key is read and the process is not dumpable — while
/// the request still carries it. As root (a container's default user,
/// which may read any process's /proc files) and as an ordinary user; for
/// one plan and for a batch, whose children get the key through a memory
/// file rather than their environment.
#[test]
fn no_run_can_read_the_key_from_its_environment_or_from_tissvm() {
    let root = unsafe { libc::geteuid() } == 0;
    let mut users = vec![None];
    if root && std::path::Path::new("/usr/bin/setpriv").exists() {
        users.push(Some(65534));
    } else {
        // Only part of the test is left out here, so no skip notice.
        let message = "the key test runs as an ordinary user only when started as root with setpriv(1)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true: {message}");
        eprintln!("not run (ordinary user): {message}");
    }
    for user in users {
        let profiles: &[&str] =
            if user.is_some() { &["none", "standard"] } else { &["none", "standard", "strict"] };
        for profile in profiles {
            for batch in [false, true] {
                peek(user, profile, batch);
            }
        }
    }
}

fn peek(user: Option<u32>, profile: &str, batch: bool) {
    let case = format!("user {user:?}, {profile}, batch {batch}");
    let fx = Fixture::new();
    let server = Server::start(vec![Reply::hello()]);
    let plans = fx.path("plans");
    std::fs::create_dir(&plans).unwrap();
    std::fs::write(plans.join("a.tiss"), PEEK).unwrap();
    if batch {
        std::fs::write(plans.join("b.tiss"), PEEK).unwrap();
    }
    let target = if batch { plans.clone() } else { plans.join("a.tiss") };
    if let Some(uid) = user {
        for path in [fx.root.path(), &fx.ws(), &plans] {
            std::os::unix::fs::chown(path, Some(uid), Some(uid)).unwrap();
        }
    }
    let ws = fx.ws();
    let args = [
        "run",
        target.to_str().unwrap(),
        "--workdir",
        ws.to_str().unwrap(),
        "--sandbox-profile",
        profile,
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        &server.base_url,
        "--api-key-env",
        KEY_VAR,
        "-j",
        "2",
    ];
    let args = if batch { &args[..] } else { &args[..args.len() - 2] };
    let mut command = match user {
        Some(uid) => {
            let mut c = Command::new("/usr/bin/setpriv");
            let id = uid.to_string();
            c.args(["--reuid", &id, "--regid", &id, "--clear-groups", env!("CARGO_BIN_EXE_tissvm")]);
            c.args(args).env(tiss_vm::session::snapshot_key::KEY_FILE_VAR, fx.path("key"));
            c
        }
        None => {
            let mut c = crate::common::command();
            c.args(args);
            c
        }
    };
    let out = command.env(KEY_VAR, KEY).current_dir(fx.root.path()).stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if profile == "strict" && crate::common::strict_refused(out.status.code(), &stderr) {
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{case}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout));
    let seen =
        tiss_test_support::listing(&ws).into_iter().filter(|p| p.ends_with("seen.txt")).collect::<Vec<_>>();
    assert_eq!(seen.len(), if batch { 2 } else { 1 }, "{case}: {seen:?}");
    for file in seen {
        let text = std::fs::read(ws.join(&file)).unwrap();
        assert!(String::from_utf8_lossy(&text).contains("peeked"), "{case}: the RUN did not run whole");
        assert_clean(&format!("what a RUN read ({case})"), &text);
    }
    let requests = server.requests();
    assert_eq!(requests.len(), if batch { 2 } else { 1 }, "{case}");
    for request in requests {
        assert!(
            request.head.contains(&format!("Bearer {KEY}")),
            "{case}: the key was not sent:\n{}",
            request.head
        );
    }
}
