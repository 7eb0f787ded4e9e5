//! The failure report (SPEC §5), through the real binary: each kind said
//! once, budget figures with their units, values with their types in JSON,
//! and the failing step's command with its exit status and output.

mod common;

use std::path::PathBuf;

use common::Run;

struct Fixture {
    root: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(root.path().join("ws")).unwrap();
        Fixture { root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    fn run(&self, plan: &str, args: &[&str]) -> Run {
        let path = self.path("plan.tiss");
        std::fs::write(&path, plan).unwrap();
        let ws = self.path("ws");
        let args = [&["run", path.to_str().unwrap(), "--workdir", ws.to_str().unwrap()], args].concat();
        common::tissvm(self.root.path(), &args, &[])
    }

    /// The text report and the JSON report of the same plan.
    fn both(&self, plan: &str, args: &[&str], code: i32) -> (Run, serde_json::Value) {
        let text = self.run(plan, args);
        text.expect(code);
        let json = self.run(plan, &[args, &["--output-format", "json"]].concat());
        json.expect(code);
        (text, json.json())
    }
}

fn step(body: &str) -> String {
    format!("TASK \"t\"\nSTEP \"s\" {{\n{body}\n}}\n")
}

/// The report's headline: the line that starts with the failure's kind.
fn headline<'a>(out: &'a str, kind: &str) -> &'a str {
    out.lines()
        .find(|l| l.trim_start().starts_with(&format!("{kind}: ")))
        .unwrap_or_else(|| panic!("no `{kind}: ` line in:\n{out}"))
}

/// The kind is said once: not again in other words in the message.
#[track_caller]
fn says_kind_once(kind: &str, message: &str) {
    let words = kind.replace('_', " ");
    assert!(!message.to_lowercase().contains(&words), "{kind} said twice: {message:?}");
    assert!(!message.contains(kind), "{kind} said twice: {message:?}");
}

// ---------------------------------------------------------------- the kind, once

#[test]
fn an_assertion_without_message_says_its_kind_once() {
    let fx = Fixture::new();
    let plan = step("    RUN \"exit 3\"\n    ASSERT LAST_RUN.EXIT_CODE == 0");
    let (text, report) = fx.both(&plan, &[], 1);
    let message = report["failure"]["message"].as_str().unwrap();
    says_kind_once("assertion_failed", message);
    assert!(message.contains("LAST_RUN.EXIT_CODE == 0"), "the message names the condition: {message:?}");
    let head = headline(&text.stdout, "assertion_failed");
    assert_eq!(head.trim_start(), format!("assertion_failed: {message}"));
}

#[test]
fn a_caught_assertion_gives_the_plan_a_message_without_its_kind() {
    let fx = Fixture::new();
    let plan = step(
        "    VAR x = 1\n    TRY {\n        ASSERT x == 2\n    } CATCH AS e {\n        LOG \"caught ${e.KIND}: ${e.MESSAGE}\"\n    }",
    );
    let run = fx.run(&plan, &[]);
    run.expect(0);
    let logged = run.stdout.lines().find(|l| l.contains("LOG caught")).expect("the LOG line");
    let message = logged.split_once("caught assertion_failed: ").expect("kind then message").1;
    says_kind_once("assertion_failed", message);
    assert!(message.contains("x == 2"), "{logged}");
}

#[test]
fn a_rejected_review_says_its_kind_once() {
    let fx = Fixture::new();
    let answers = fx.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "reject", "comment": "too risky"}]"#).unwrap();
    let plan = step("    REQUEST_REVIEW \"Ship it?\"");
    let (text, report) = fx.both(&plan, &["--answers", answers.to_str().unwrap()], 1);
    let message = report["failure"]["message"].as_str().unwrap();
    assert_eq!(report["failure"]["kind"], "review_rejected");
    says_kind_once("review_rejected", message);
    assert!(message.contains("Ship it?") && message.contains("too risky"), "{message:?}");
    headline(&text.stdout, "review_rejected");
}

#[test]
fn a_budget_failure_says_its_kind_once() {
    let fx = Fixture::new();
    let plan = step("    RUN \"true\"\n    RUN \"true\"");
    let (text, report) = fx.both(&plan, &["--budget", "RUN_COUNT=1"], 4);
    let message = report["failure"]["message"].as_str().unwrap();
    says_kind_once("budget_exceeded", message);
    let head = headline(&text.stdout, "budget_exceeded");
    assert_eq!(head.trim_start(), format!("budget_exceeded: {message}"));
}
