//! Taint is never dropped (book: reference/policy.md) through `tissvm`: model text put in a
//! caught failure's message (an ASSERT's MESSAGE, a READ's path, a failed
//! model request) comes back tainted as `e.MESSAGE`, and the text fields
//! of LAST_RUN after a RUN whose command held tainted data are tainted;
//! `[taint] run` decides on them and `tissvm inspect` lists the flows.

use serde_json::Value as Json;

use crate::common::{Fixture, Run};

/// A plan of one step whose statements are `lines`, the first at line 3.
fn step(lines: &[&str]) -> String {
    let body: String = lines.iter().map(|l| format!("    {l}\n")).collect();
    format!("TASK \"t\"\nSTEP \"s\" {{\n{body}}}\n")
}

struct Taint {
    fx: Fixture,
    mock: String,
}

impl Taint {
    fn new() -> Taint {
        let fx = Fixture::new();
        let mock = fx.path("mock.json");
        std::fs::write(&mock, r#"[{"match": ".", "answer": "model-said"}]"#).unwrap();
        let mock = mock.to_str().unwrap().to_string();
        Taint { fx, mock }
    }

    /// Runs `plan` under `[taint] run = RULE` with the mock model.
    fn run(&self, plan: &str, rule: &str, extra: &[&str]) -> Run {
        let policy = self.fx.path("p.toml");
        std::fs::write(&policy, format!("[taint]\nrun = \"{rule}\"\n")).unwrap();
        let args = [
            &["--output-format", "json", "--policy", policy.to_str().unwrap(), "--mock-answers", &self.mock]
                [..],
            extra,
        ]
        .concat();
        self.fx.run(plan, &args)
    }

    /// Under deny: refused at `line` with `command` named, or (`None`) passed.
    #[track_caller]
    fn denied_at(&self, plan: &str, refused: Option<(u32, &str)>) {
        let run = self.run(plan, "deny", &[]);
        let report = run.json();
        match refused {
            Some((line, command)) => {
                run.expect(5);
                let f = &report["failure"];
                assert_eq!(f["kind"], "security_violation", "{report:#}");
                assert_eq!(f["line"], line, "{report:#}");
                let message = f["message"].as_str().unwrap();
                assert!(message.contains(&format!("`{command}` is denied: it holds data")), "{message}");
            }
            None => {
                assert_eq!(report["status"], "passed", "{report:#}\n{}", run.stderr);
            }
        }
    }

    /// `tissvm inspect`'s flows as (source, source line, RUN line).
    fn flows(&self, plan: &str) -> Vec<(String, u64, u64)> {
        let path = self.fx.write_plan(plan);
        let run = self.fx.tissvm(&["inspect", &path, "--output-format", "json"]);
        run.expect(0);
        let report = run.json();
        let flows = report["taint"]["flows"].as_array().expect("flows").clone();
        flows
            .iter()
            .map(|f: &Json| {
                let n = |k: &str| f[k].as_u64().unwrap();
                (f["source"].as_str().unwrap().to_string(), n("source_line"), n("run_line"))
            })
            .collect()
    }
}

#[test]
fn an_assert_message_caught_keeps_the_models_taint() {
    let t = Taint::new();
    let plan = step(&[
        "PROMPT_AGENT \"name\" INTO x",
        "TRY {",
        "    ASSERT x == \"never\" MESSAGE \"saw ${x}\"",
        "} CATCH AS e {",
        "    RUN \"echo ${e.KIND} ${e.LINE}\"",
        "    RUN \"echo ${e.MESSAGE}\"",
        "}",
    ]);
    t.denied_at(&plan, Some((8, "echo 'saw model-said'")));
    assert_eq!(t.flows(&plan), [("PROMPT_AGENT".to_string(), 3, 8)]);
    let text = t.fx.tissvm(&["inspect", &t.fx.write_plan(&plan)]);
    assert!(text.stdout.contains("line    3  PROMPT_AGENT → line 8 RUN"), "{}", text.stdout);
    // The same with a constant MESSAGE: clean, and it runs.
    let clean = plan.replace("\"saw ${x}\"", "\"saw it\"");
    t.denied_at(&clean, None);
    assert_eq!(t.flows(&clean), []);
}

#[test]
fn a_read_errors_message_keeps_its_paths_taint() {
    let t = Taint::new();
    let plan = step(&[
        "PROMPT_AGENT \"name\" INTO x",
        "TRY {",
        "    READ \"no-${x}.txt\" AS y",
        "} CATCH AS e {",
        "    RUN \"echo ${e.MESSAGE}\"",
        "}",
    ]);
    t.denied_at(&plan, Some((7, "echo 'cannot read `no-model-said.txt`: no such file'")));
    assert_eq!(t.flows(&plan), [("PROMPT_AGENT".to_string(), 3, 7)]);
    // A failed model request (the mock has no answer for it): its message
    // may quote the model's server, so it is tainted too.
    let plan = step(&[
        "TRY {",
        "    PROMPT_AGENT \"q\" INTO x",
        "} CATCH AS e {",
        "    RUN \"echo caught\"",
        "    RUN \"echo ${e.MESSAGE}\"",
        "}",
    ]);
    std::fs::write(&t.mock, r#"[{"match": "^never$", "answer": "x"}]"#).unwrap();
    let run = t.run(&plan, "deny", &[]);
    run.expect(5);
    let report = run.json();
    assert_eq!(report["failure"]["line"], 7, "{report:#}");
    assert_eq!(report["cost"]["run_count"], 1, "the clean echo ran");
    assert_eq!(t.flows(&plan), [("PROMPT_AGENT".to_string(), 4, 7)]);
}

#[test]
fn last_run_after_a_tainted_command_is_tainted() {
    let t = Taint::new();
    let plan = step(&[
        "PROMPT_AGENT \"name\" INTO x",
        "RUN \"echo ${x}\"",
        "RUN \"echo ${LAST_RUN.STDOUT}\"",
        "RUN \"echo ${LAST_RUN.EXIT_CODE} ${LAST_RUN.TIMED_OUT}\"",
        "RUN \"echo ${LAST_RUN.COMMAND}\"",
    ]);
    t.denied_at(&plan, Some((4, "echo 'model-said'")));
    // Approving each RUN that asks: the log says which did.
    let answers = t.fx.path("a.json");
    let approve = r#"{"answer": "approve"}"#;
    std::fs::write(&answers, format!("[{}]", [approve; 4].join(", "))).unwrap();
    let log = t.fx.path("log.jsonl");
    let run = t.run(
        &plan,
        "approve",
        &["--answers", answers.to_str().unwrap(), "--log-file", log.to_str().unwrap()],
    );
    run.expect(0);
    let asked: Vec<u64> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap())
        .filter(|e| e["event"] == "approval")
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    // Line 5 echoes line 4's output. Lines 6 and 7 ask too, for another
    // reason: line 4 held model data, which it may have written anywhere,
    // so every RUN after it may run that (as after a WRITE of it). That
    // line 6 holds only numbers, and so its LAST_RUN, shows in the flows.
    assert_eq!(asked, [4, 5, 6, 7]);
    // Statically LAST_RUN keeps what every earlier RUN held: line 7 is
    // listed (the analysis over-approximates, never under).
    let p = "PROMPT_AGENT".to_string();
    assert_eq!(t.flows(&plan), [(p.clone(), 3, 4), (p.clone(), 3, 5), (p, 3, 7)]);
}

/// A model writes a script, the plan writes it to a file and runs it with a
/// constant command: the RUN holds no tainted text, yet it runs the model's.
#[test]
fn a_run_after_the_plan_wrote_model_text_is_held_by_the_taint_rule() {
    let t = Taint::new();
    std::fs::write(&t.mock, r#"[{"match": ".", "answer": "touch pwned"}]"#).unwrap();
    let plan = step(&[
        "RUN \"echo before\"",
        "PROMPT_AGENT \"Write a shell script.\" INTO script",
        "WRITE \"gen.sh\" FROM script",
        "RUN \"sh gen.sh\"",
    ]);
    let pwned = t.fx.ws().join("pwned");
    // What the rule stops: with taint only tracked, the model's script runs.
    let run = t.run(&plan, "allow", &[]);
    run.expect(0);
    assert!(pwned.exists(), "the attack does not reach the RUN: {}", run.stderr);
    std::fs::remove_file(&pwned).unwrap();

    let run = t.run(&plan, "deny", &[]);
    run.expect(5);
    let report = run.json();
    let f = &report["failure"];
    assert_eq!((&f["kind"], &f["line"]), (&"security_violation".into(), &6.into()), "{report:#}");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("`sh gen.sh` is denied: it runs after line 5 put data from a model"),
        "{message}"
    );
    assert_eq!(report["cost"]["run_count"], 1, "the RUN before the WRITE ran");
    assert!(!pwned.exists(), "the model's script ran");

    // `tissvm inspect` says the same before anything runs.
    let policy = t.fx.path("p.toml");
    let inspected = t.fx.tissvm(&["inspect", &t.fx.write_plan(&plan), "--policy", policy.to_str().unwrap()]);
    inspected.expect(0);
    assert!(inspected.stdout.contains("line    3  echo before"), "{}", inspected.stdout);
    assert!(
        inspected.stdout.contains("sh gen.sh  [denied: `sh gen.sh` is denied: it runs after line 5 put data"),
        "{}",
        inspected.stdout
    );
    assert!(!inspected.stdout.contains("echo before  [denied"), "{}", inspected.stdout);
}

/// A model's script written by a RUN rather than a WRITE: under approve, the
/// person asked about `echo '…' > gen.sh` saw a file written, not run, and
/// the constant `sh gen.sh` after it ran the model's script unasked. It is
/// asked now, as after a WRITE of it.
#[test]
fn a_run_after_a_run_that_held_model_text_is_held_by_the_taint_rule() {
    let t = Taint::new();
    std::fs::write(&t.mock, r#"[{"match": ".", "answer": "touch pwned"}]"#).unwrap();
    let plan = step(&[
        "PROMPT_AGENT \"Write a shell script.\" INTO script",
        "RUN \"printf '%s\\\\n' '${script}' > gen.sh\"",
        "RUN \"sh gen.sh\"",
    ]);
    let answers = t.fx.path("a.json");
    std::fs::write(&answers, r#"[{"answer": "approve"}, {"answer": "reject", "comment": "no"}]"#).unwrap();
    let run = t.run(&plan, "approve", &["--answers", answers.to_str().unwrap()]);
    run.expect(1);
    let report = run.json();
    let f = &report["failure"];
    assert_eq!((&f["kind"], &f["line"]), (&"review_rejected".into(), &5.into()), "{report:#}");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("`sh gen.sh` was not approved to run (it runs after line 4 put data"),
        "{message}"
    );
    assert!(t.fx.ws().join("gen.sh").exists(), "the approved RUN wrote the script");
    assert!(!t.fx.ws().join("pwned").exists(), "the model's script ran");
    // `tissvm inspect` lists it, with what put the data there.
    let path = t.fx.write_plan(&plan);
    let inspected = t.fx.tissvm(&["inspect", &path]);
    assert!(
        inspected.stdout.contains("line    4  RUN holding model output → line 5 RUN"),
        "{}",
        inspected.stdout
    );
    let json = t.fx.tissvm(&["inspect", &path, "--output-format", "json"]).json();
    let runs = &json["taint"]["model_code_runs"];
    assert_eq!(runs, &serde_json::json!([{"write_line": 4, "run_line": 5, "by": "run"}]), "{json:#}");
}

/// The same through a file the plan READ (file data is tainted too), under
/// approve, across a suspension: the resumed run still asks, and a
/// rejection keeps the command from running.
#[test]
fn the_written_taint_survives_a_resume_and_asks_under_approve() {
    let t = Taint::new();
    std::fs::write(t.fx.ws().join("input.txt"), "touch pwned").unwrap();
    let plan = step(&[
        "READ \"input.txt\" AS text",
        "APPEND \"gen.sh\" FROM text",
        "PAUSE \"a person looks\"",
        "RUN \"sh gen.sh\"",
    ]);
    let run = t.run(&plan, "approve", &[]);
    run.expect(3);
    let snapshots: Vec<_> = std::fs::read_dir(t.fx.ws().join(".tiss"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "snap"))
        .collect();
    assert_eq!(snapshots.len(), 1, "{snapshots:?}");
    let snapshot = snapshots[0].to_str().unwrap();
    let answers = t.fx.path("a.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}, {"answer": "reject", "comment": "no"}]"#).unwrap();
    let resumed =
        t.fx.tissvm(&["resume", snapshot, "--answers", answers.to_str().unwrap(), "--output-format", "json"]);
    resumed.expect(1);
    let report = resumed.json();
    assert_eq!(report["failure"]["kind"], "review_rejected", "{report:#}\n{}", resumed.stderr);
    let message = report["failure"]["message"].as_str().unwrap();
    assert!(message.contains("it runs after line 4 put data"), "{message}");
    assert!(!t.fx.ws().join("pwned").exists(), "the rejected command ran");
}

/// An IN directory a model named picks what a constant command runs.
#[test]
fn a_run_in_a_directory_a_model_named_is_tainted() {
    let t = Taint::new();
    let plan = step(&[
        "MKDIR \"model-said\"",
        "PROMPT_AGENT \"which directory?\" INTO d",
        "RUN \"true\" IN \"${d}\"",
        "RUN \"true\" IN \"model-said\"",
    ]);
    t.denied_at(&plan, Some((5, "true")));
    assert_eq!(t.flows(&plan), [("PROMPT_AGENT".to_string(), 4, 5)]);
    t.denied_at(&plan.replace("IN \"${d}\"", "IN \"model-said\""), None);
}
