//! `tissvm SUBCOMMAND --help` lists exactly what the subcommand accepts
//! (book: cli/tissvm.md: every subcommand takes `--help`): each flag its help shows is
//! accepted and honoured on a real invocation, and each run option it does
//! not show is refused as a usage error.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

const PLAN: &str = "TASK \"Help\"\nSTEP \"s\" {\n    PAUSE \"go on?\"\n    RUN \"echo done\"\n}\n";

/// Every long flag of `run`, `resume` and `debug` there is, so a flag a
/// help does not show can be checked to be refused.
/// `run`'s restart flags, each needing a recorded journal.
const RESTART: &[&str] = &["--from-step", "--from-failed", "--from-line", "--trust-journal"];

const ALL_FLAGS: &[&str] = &[
    "--workdir",
    "--allow-system-workdir",
    "--output-format",
    "--report",
    "--log-file",
    "--log-max-output",
    "--journal",
    "--journal-max-output",
    "--from-step",
    "--from-failed",
    "--from-line",
    "--new-journal",
    "--trust-journal",
    "--budget",
    "--non-interactive",
    "--answers",
    "--snapshot-dir",
    "--checkpoint",
    "--sandbox-profile",
    "--max-procs",
    "--max-memory",
    "--provider",
    "--model",
    "--base-url",
    "--api-key-env",
    "--max-tokens",
    "--temperature",
    "--seed",
    "--repeat-penalty",
    "--template",
    "--mock-answers",
    "--record",
    "--cassette",
    "--connect-timeout",
    "--first-token-timeout",
    "--idle-timeout",
    "--request-timeout",
    "--max-retries",
    "--max-retry-wait",
    "--env-allow",
    "--policy",
    "--jobs",
    "--fail-fast",
    "--max-failures",
    "--shard",
    "--report-dir",
    "--continue-from-reports",
    "--restart",
    "--dry-run",
    "--plan",
    "--answer",
    "--comment",
    "--force",
    "--raise-budget",
    "--break",
];

/// The long flags `tissvm ARGS --help` lists under "Options:".
fn listed_flags(dir: &Path, subcommand: &str) -> BTreeSet<String> {
    let help = crate::common::tissvm(dir, &[subcommand, "--help"], &[]);
    help.expect(0);
    let options = help.stdout.split("\nOptions:\n").nth(1).expect("an Options section");
    options
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            // A short flag first (`-h, --help`, `-j, --jobs <N>`).
            let short = line.len() > 4
                && line.starts_with('-')
                && !line.starts_with("--")
                && line.get(2..4) == Some(", ");
            let line = if short { &line[4..] } else { line };
            line.starts_with("--").then(|| line.split([' ', '=']).next().unwrap().to_string())
        })
        .collect()
}

/// A value for each flag that takes one, valid in the fixture.
fn with_value(flag: &str, dir: &Path) -> Vec<String> {
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let value = match flag {
        "--workdir" => path("ws"),
        "--output-format" => "json".into(),
        "--log-file" => path("log.jsonl"),
        "--log-max-output" => "4096".into(),
        "--journal" => path("run.journal"),
        "--from-step" => "s".into(),
        "--from-line" => "2".into(),
        "--new-journal" => path("new.journal"),
        // It needs --journal: alone, refused as an unknown flag would be.
        "--journal-max-output" => "4096".into(),
        "--budget" => "RUN_COUNT=5".into(),
        "--answers" => path("answers.json"),
        "--snapshot-dir" => path("snaps"),
        "--checkpoint" => path("checkpoint.snap"),
        "--sandbox-profile" => "standard".into(),
        "--max-procs" => "64".into(),
        "--max-memory" => "1G".into(),
        "--provider" => "mock".into(),
        "--model" => "smollm2".into(),
        "--base-url" => "http://127.0.0.1:9/v1".into(),
        "--api-key-env" => "TISS_TEST_KEY".into(),
        "--max-tokens" | "--seed" => "100".into(),
        "--temperature" => "0.2".into(),
        "--repeat-penalty" => "1.15".into(),
        "--template" => "chatml".into(),
        "--mock-answers" => path("mock-answers.json"),
        "--record" => path("run.cassette.json"),
        // Only `replay` reads it; given for another provider it is refused.
        "--cassette" => {
            return vec![flag.into(), path("old.cassette.json"), "--provider".into(), "replay".into()];
        }
        "--connect-timeout" | "--first-token-timeout" | "--idle-timeout" | "--request-timeout" => "5s".into(),
        "--max-retries" => "1".into(),
        "--max-retry-wait" => "1s".into(),
        "--env-allow" => "HOME".into(),
        "--policy" => path("policy.toml"),
        "--plan" => path("plan.tiss"),
        "--answer" => "continue".into(),
        "--comment" => "fine".into(),
        "--break" => "3".into(),
        "--error-format" => "json".into(),
        "--color" => "never".into(),
        "--jobs" => "2".into(),
        "--max-failures" => "1".into(),
        "--shard" => "1/1".into(),
        "--report-dir" => path("reports"),
        "--continue-from-reports" | "--restart" => {
            return vec![flag.into(), "--report-dir".into(), path("reports")];
        }
        "--dry-run"
        | "--non-interactive"
        | "--force"
        | "--raise-budget"
        | "--fail-fast"
        | "--from-failed"
        | "--trust-journal"
        | "--allow-system-workdir" => {
            return vec![flag.into()];
        }
        // A report file takes a json, junit or html report.
        "--report" => return vec![flag.into(), path("report.html"), "--output-format".into(), "html".into()],
        other => panic!("{other} is new: give it a sample value in with_value and add it to ALL_FLAGS"),
    };
    vec![flag.into(), value]
}

struct Fixture {
    root: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(root.path().join("ws")).unwrap();
        std::fs::write(root.path().join("plan.tiss"), PLAN).unwrap();
        std::fs::write(root.path().join("answers.json"), r#"[{"answer": "continue"}]"#).unwrap();
        std::fs::write(root.path().join("mock-answers.json"), r#"["a scripted answer"]"#).unwrap();
        let cassette = tiss_vm::provider::cassette::Cassette::default();
        std::fs::write(root.path().join("old.cassette.json"), serde_json::to_vec(&cassette).unwrap())
            .unwrap();
        std::fs::write(root.path().join("policy.toml"), "[commands]\nallow = [\"echo *\"]\n").unwrap();
        Fixture { root }
    }

    fn dir(&self) -> &Path {
        self.root.path()
    }

    /// A fresh snapshot of PLAN waiting at its PAUSE.
    fn snapshot(&self, n: usize) -> String {
        let ws = self.dir().join("ws");
        let dir = self.dir().join(format!("snap-{n}"));
        let run = crate::common::tissvm(
            self.dir(),
            &["run", "plan.tiss", "--workdir", ws.to_str().unwrap(), "--snapshot-dir", dir.to_str().unwrap()],
            &[],
        );
        run.expect(3);
        dir.join("help-1.snap").to_str().unwrap().to_string()
    }
}

/// What one invocation did, with `input` on stdin.
fn invoke(dir: &Path, args: &[String], input: &str) -> (Option<i32>, String) {
    let mut child = crate::common::command()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tissvm");
    // tissvm may exit (refusing the arguments) before it reads its input.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Each flag `subcommand --help` shows works on `base` (with `input` on
/// stdin) and ends as `expected`; each of ALL_FLAGS it does not show is
/// refused by the argument parser.
fn help_matches_what_is_accepted(
    fx: &Fixture,
    subcommand: &str,
    base: &dyn Fn(usize) -> Vec<String>,
    input: &str,
    expected: i32,
) {
    let listed = listed_flags(fx.dir(), subcommand);
    for (n, flag) in listed.iter().enumerate() {
        let mut args = base(n);
        // `base` uses it already, and shows it works.
        if flag == "--help" || args.contains(flag) {
            continue;
        }
        // A restart needs a recorded journal: vm/tests/journal/ runs them.
        if RESTART.contains(&flag.as_str()) {
            continue;
        }
        args.extend(with_value(flag, fx.dir()));
        // It says what --workdir may name, so it comes with one.
        if flag == "--allow-system-workdir" && !args.iter().any(|a| a == "--workdir") {
            args.extend(with_value("--workdir", fx.dir()));
        }
        // With many plans it is a rule of the continue.
        if flag == "--raise-budget" && subcommand == "run" {
            args.extend(with_value("--continue-from-reports", fx.dir()));
        }
        let (code, stderr) = invoke(fx.dir(), &args, input);
        assert_eq!(code, Some(expected), "`{subcommand} --help` shows {flag}, but {args:?} fails:\n{stderr}");
    }
    for flag in ALL_FLAGS.iter().filter(|f| !listed.contains(**f)) {
        let mut args = base(1000);
        args.extend(with_value(flag, fx.dir()));
        let (code, stderr) = invoke(fx.dir(), &args, input);
        assert_eq!(code, Some(2), "{subcommand}: {flag} is not in its help, but {args:?} is accepted");
        assert!(stderr.contains("unexpected argument"), "{subcommand} {flag}: {stderr}");
    }
}

#[test]
fn run_help_shows_what_run_accepts() {
    let fx = Fixture::new();
    let ws = fx.dir().join("ws").to_str().unwrap().to_string();
    // With the answers file or --non-interactive the PAUSE is answered or
    // suspends; answered on stdin it is not a terminal either: so every run
    // passes through `--answers`, or suspends (3). Give every run the answers.
    let answers = fx.dir().join("answers.json").to_str().unwrap().to_string();
    let base = |_| -> Vec<String> {
        ["run", "plan.tiss", "--workdir", &ws, "--answers", &answers].map(String::from).to_vec()
    };
    help_matches_what_is_accepted(&fx, "run", &base, "", 0);
}

#[test]
fn resume_help_shows_what_resume_accepts() {
    let fx = Fixture::new();
    let base = |n| -> Vec<String> {
        let snap = fx.snapshot(n);
        ["resume", &snap, "--answer", "continue"].map(String::from).to_vec()
    };
    help_matches_what_is_accepted(&fx, "resume", &base, "", 0);
    assert!(listed_flags(fx.dir(), "resume").contains("--snapshot-dir"));
}

#[test]
fn debug_help_shows_what_debug_accepts() {
    let fx = Fixture::new();
    let ws = fx.dir().join("ws").to_str().unwrap().to_string();
    let answers = fx.dir().join("answers.json").to_str().unwrap().to_string();
    let base = |_| -> Vec<String> {
        ["debug", "plan.tiss", "--workdir", &ws, "--answers", &answers].map(String::from).to_vec()
    };
    help_matches_what_is_accepted(&fx, "debug", &base, "continue\n", 0);
    let listed = listed_flags(fx.dir(), "debug");
    for refused in ["--output-format", "--snapshot-dir"] {
        assert!(!listed.contains(refused), "debug --help shows {refused}, which debug refuses");
    }
}
