//! The failure report (book: reference/failures.md), through the real binary: each kind said
//! once, budget figures with their units, values with their types in JSON,
//! and the failing step's command with its exit status and output.

use crate::common::{Fixture, Run};

impl Fixture {
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

// ---------------------------------------------------------------- budgets, in their units

/// Every number in `message` is followed by `dim`'s unit: a duration suffix
/// for EXECUTION_TIME, else the counted thing (`3 commands`, `1 token`).
/// A command quoted in backticks is the plan's text, not a figure.
#[track_caller]
fn numbers_have_units(message: &str, dim: &str) {
    let figures: String = message.split('`').step_by(2).collect();
    let unit: &[&str] = match dim {
        "EXECUTION_TIME" => &["ms", "s", "m", "h"],
        "RUN_COUNT" => &[" command"],
        "API_CALLS" => &[" model request"],
        "TOKEN_COUNT" => &[" token"],
        "INSTRUCTIONS" => &[" instruction"],
        other => panic!("{other}"),
    };
    let mut rest = figures.as_str();
    let mut numbers = 0;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let after = rest[at..].trim_start_matches(|c: char| c.is_ascii_digit());
        assert!(
            unit.iter().any(|u| after.starts_with(u)),
            "a number without its unit ({unit:?}) in {message:?}"
        );
        rest = after;
        numbers += 1;
    }
    assert!(numbers >= 2, "the message gives the figures: {message:?}");
}

/// The budget failure of `plan` under `args`, checked in text and JSON.
fn budget_failure(fx: &Fixture, plan: &str, args: &[&str]) -> serde_json::Value {
    let (text, report) = fx.both(plan, args, 4);
    let failure = report["failure"].clone();
    let message = failure["message"].as_str().unwrap();
    let dimension = failure["dimension"].as_str().unwrap();
    numbers_have_units(message, dimension);
    says_kind_once("budget_exceeded", message);
    // Two runs: time may differ between them, the wording does not.
    let shown =
        headline(&text.stdout, "budget_exceeded").trim_start().trim_start_matches("budget_exceeded: ");
    numbers_have_units(shown, dimension);
    let words = |m: &str| m.replace(|c: char| c.is_ascii_digit(), "");
    assert_eq!(words(shown), words(message));
    failure
}

#[test]
fn a_preflight_refusal_says_what_the_work_needs_and_claims_no_spend() {
    let fx = Fixture::new();
    let plan = step("    RUN \"true\"\n    RUN \"true\"");
    let f = budget_failure(&fx, &plan, &["--budget", "RUN_COUNT=1"]);
    assert_eq!(f["reason"], "preflight");
    assert_eq!((f["dimension"].as_str(), f["cap"].as_u64()), (Some("RUN_COUNT"), Some(1)));
    assert_eq!(f["spent"], 0, "nothing ran: {f}");
    assert_eq!(f["needed"], 2, "{f}");
    let message = f["message"].as_str().unwrap();
    for part in ["step \"s\"", "at least 2 commands", "cap of 1 command", "1 command left"] {
        assert!(message.contains(part), "{part:?} in {message:?}");
    }
    assert!(!fx.path("ws").join("ran").exists());
}

#[test]
fn a_refused_command_says_the_cap_is_used_up() {
    let fx = Fixture::new();
    // The step may run one command or two: preflight lets it start.
    let plan =
        step("    RUN \"true\"\n    VAR again = TRUE\n    IF again {\n        RUN \"touch ran\"\n    }");
    let f = budget_failure(&fx, &plan, &["--budget", "RUN_COUNT=1"]);
    assert_eq!(f["reason"], "limit");
    assert_eq!((f["cap"].as_u64(), f["spent"].as_u64(), f["needed"].as_u64()), (Some(1), Some(1), Some(1)));
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("cap of 1 command is used up"), "{message:?}");
    assert!(!fx.path("ws").join("ran").exists(), "the refused command did not run");
}

#[test]
fn an_execution_time_failure_reads_as_durations() {
    let fx = Fixture::new();
    let plan = step("    VAR slow = TRUE\n    IF slow {\n        RUN \"sleep 2\"\n    }");
    let f = budget_failure(&fx, &plan, &["--budget", "EXECUTION_TIME=300ms"]);
    assert_eq!((f["dimension"].as_str(), f["reason"].as_str()), (Some("EXECUTION_TIME"), Some("limit")));
    assert_eq!(f["cap"], 300);
    assert!(f["spent"].as_u64().unwrap() >= 300, "{f}");
    assert_eq!(f["needed"], serde_json::Value::Null, "the spend itself crossed the cap: {f}");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("cap of 300ms") && message.contains("sleep 2"), "{message:?}");
}

#[test]
fn instruction_and_token_budgets_count_their_units() {
    let fx = Fixture::new();
    let plan = step("    LOG \"a\"\n    LOG \"b\"\n    LOG \"c\"");
    let f = budget_failure(&fx, &plan, &["--budget", "INSTRUCTIONS=3"]);
    assert_eq!(f["dimension"], "INSTRUCTIONS");

    let plan = step("    PROMPT_AGENT \"Summarise the plan in one sentence\" INTO s");
    // At least its 34 bytes / 8 = 4 tokens: a cap of 3 refuses it before it is sent.
    let f = budget_failure(&fx, &plan, &["--budget", "TOKEN_COUNT=3"]);
    assert_eq!((f["dimension"].as_str(), f["reason"].as_str()), (Some("TOKEN_COUNT"), Some("preflight")));
    assert_eq!(f["spent"], 0, "{f}");

    let f = budget_failure(&fx, &plan, &["--budget", "API_CALLS=0"]);
    assert_eq!(f["dimension"], "API_CALLS");
}

#[test]
fn a_budget_warning_is_shown_in_its_units() {
    let fx = Fixture::new();
    // One command for sure, a second one maybe: the maximum may not fit.
    let plan = step("    RUN \"true\"\n    VAR again = FALSE\n    IF again {\n        RUN \"true\"\n    }");
    let log = fx.path("events.jsonl");
    let run = fx.run(&plan, &["--budget", "RUN_COUNT=1", "--log-file", log.to_str().unwrap()]);
    run.expect(0);
    let text = std::fs::read_to_string(&log).unwrap();
    let warning: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["event"] == "budget_warning")
        .expect("a budget_warning event");
    let message = warning["op"].as_str().unwrap();
    numbers_have_units(message, "RUN_COUNT");
    assert!(message.contains("up to 2 commands"), "{message:?}");
    let shown = run.stdout.lines().find(|l| l.contains("warning:")).expect("the warning in the text output");
    assert!(shown.contains(message), "{shown:?}");
}

// ---------------------------------------------------------------- values keep their types

#[test]
fn actual_values_keep_their_types_in_json() {
    let fx = Fixture::new();
    let plan = step(
        "    RUN \"printf 'out\\\\n'; exit 3\"\n    VAR flag = TRUE\n    VAR name = \"x\"\n    ASSERT LAST_RUN.EXIT_CODE == 0 OR LAST_RUN.TIMED_OUT OR flag == FALSE OR LAST_RUN.DURATION > 1h OR LAST_RUN.STDOUT == name",
    );
    let (text, report) = fx.both(&plan, &[], 1);
    let actual = &report["failure"]["actual"];
    assert_eq!(actual["LAST_RUN.EXIT_CODE"], 3, "{actual}");
    assert_eq!(actual["LAST_RUN.TIMED_OUT"], false, "{actual}");
    assert_eq!(actual["flag"], true, "{actual}");
    assert!(actual["LAST_RUN.DURATION"].is_u64(), "a duration is its milliseconds: {actual}");
    assert_eq!(actual["LAST_RUN.STDOUT"], "out\n", "a string as itself, not quoted: {actual}");
    assert_eq!(actual["name"], "x", "{actual}");
    // The text report shows them as a plan would write them.
    for shown in [
        "LAST_RUN.EXIT_CODE = 3",
        "LAST_RUN.TIMED_OUT = false",
        "LAST_RUN.STDOUT = \"out\\n\"",
        "name = \"x\"",
    ] {
        assert!(text.stdout.contains(shown), "{shown:?} in:\n{}", text.stdout);
    }
    assert!(
        text.stdout.lines().any(|l| l.starts_with("  LAST_RUN.DURATION = ") && l.ends_with(['s', 'm', 'h'])),
        "{}",
        text.stdout
    );
}

// ---------------------------------------------------------------- the failing step's command

const FAILING_COMMAND: &str = r#"TASK "t"
STEP "build" {
    RUN "echo compiling; echo 'error: missing semicolon' >&2; exit 3"
    STEP "check" {
        ASSERT LAST_RUN.EXIT_CODE == 0
    }
}
"#;

#[test]
fn the_text_report_shows_the_failing_steps_command_and_output() {
    let fx = Fixture::new();
    let run = fx.run(FAILING_COMMAND, &[]);
    run.expect(1);
    let report = run.stdout.split_once("failed: t\n").expect("the report").1;
    let expected = "  command: echo compiling; echo 'error: missing semicolon' >&2; exit 3\n  exit status: 3\n  stdout:\n    compiling\n  stderr:\n    error: missing semicolon\n";
    assert!(report.contains(expected), "{expected}\nin:\n{report}");
}

#[test]
fn the_json_report_carries_the_failing_steps_command() {
    let fx = Fixture::new();
    let run = fx.run(FAILING_COMMAND, &["--output-format", "json"]);
    run.expect(1);
    let command = &run.json()["failure"]["command"];
    assert_eq!(command["command"], "echo compiling; echo 'error: missing semicolon' >&2; exit 3");
    assert_eq!(command["exit_code"], 3);
    assert_eq!(command["timed_out"], false);
    assert!(command["duration_ms"].is_u64(), "{command}");
    assert_eq!(command["stdout"], "compiling\n");
    assert_eq!(command["stderr"], "error: missing semicolon\n");
}

#[test]
fn junit_puts_the_failing_commands_output_in_system_out_and_err() {
    let fx = Fixture::new();
    let run = fx.run(FAILING_COMMAND, &["--output-format", "junit"]);
    run.expect(1);
    let xml = &run.stdout;
    let case = xml.split("<testcase ").nth(1).expect("the testcase");
    let between = |open: &str, close: &str| -> String {
        let start = case.find(open).unwrap_or_else(|| panic!("no {open} in {case}")) + open.len();
        case[start..start + case[start..].find(close).unwrap()].to_string()
    };
    let out = between("<system-out>", "</system-out>");
    assert!(
        out.contains("$ echo compiling; echo &apos;error: missing semicolon&apos; &gt;&amp;2; exit 3"),
        "{out}"
    );
    assert!(out.contains("compiling\n"), "{out}");
    assert_eq!(between("<system-err>", "</system-err>"), "error: missing semicolon\n");
    // The failure itself names the command and its status, once.
    let failure = between("<failure", "</failure>");
    assert!(failure.contains("exit status: 3"), "{failure}");
    assert!(
        !failure.contains("stdout:") && !failure.contains("stderr:"),
        "the output is not repeated: {failure}"
    );
}

#[test]
fn long_command_output_is_shortened_to_head_and_tail() {
    let fx = Fixture::new();
    let plan = step("    RUN \"seq 1 1000; seq 1 1000 >&2\"\n    ASSERT LAST_RUN.STDOUT IS_EMPTY");
    let run = fx.run(&plan, &["--output-format", "json"]);
    run.expect(1);
    let command = &run.json()["failure"]["command"];
    for stream in ["stdout", "stderr"] {
        let text = command[stream].as_str().unwrap();
        assert!(text.starts_with("1\n2\n") && text.ends_with("999\n1000\n"), "{stream}: {text}");
        assert!(!text.contains("\n500\n") && text.contains("omitted"), "{stream}: {text}");
    }
}

#[test]
fn no_command_is_shown_when_the_failing_step_ran_none() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"a\" {\n    RUN \"echo earlier\"\n}\nSTEP \"b\" {\n    ASSERT FILE \"missing\" EXISTS\n}\n";
    let (text, report) = fx.both(plan, &[], 1);
    assert_eq!(report["failure"]["command"], serde_json::Value::Null, "{report}");
    assert!(!text.stdout.contains("command:"), "{}", text.stdout);
}

#[test]
fn a_command_killed_by_its_timeout_says_so() {
    let fx = Fixture::new();
    let plan = step("    RUN \"sleep 5\" TIMEOUT 200ms\n    ASSERT NOT LAST_RUN.TIMED_OUT");
    let (text, report) = fx.both(&plan, &[], 1);
    assert_eq!(report["failure"]["command"]["timed_out"], true);
    assert_eq!(report["failure"]["command"]["exit_code"], 124);
    assert!(text.stdout.contains("  exit status: 124 (timed out)\n"), "{}", text.stdout);
}

// ---------------------------------------------------------------- typed answers

/// A failed ASSERT on a typed answer's fields shows the answer whole, as the
/// JSON it is (book: reference/types.md), under the name the plan gave it: the compiler
/// observes the root of a typed path. A list is a JSON array, a leaf (an
/// enum) a JSON string.
#[test]
fn a_typed_answer_is_shown_as_json_in_actual() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nTYPE Review = { verdict: \"approve\" | \"reject\", risk: INT, files?: LIST OF STRING, why: STRING }\n\
                STEP \"s\" {\n    PROMPT_AGENT \"Review.\" INTO r AS Review\n    PROMPT_AGENT \"Lines?\" INTO k AS LIST OF INT\n    \
                PROMPT_AGENT \"Ship?\" INTO v AS \"yes\" | \"no\"\n    \
                ASSERT r.verdict == \"approve\" OR r.risk < 3 OR k IS_EMPTY OR v == \"yes\" MESSAGE \"not approved\"\n}\n";
    let answers = fx.path("answers.json");
    let review = r#"{"verdict": "reject", "risk": 4, "files": ["a.py", "b c.py"], "why": "x\ny \"quoted\""}"#;
    std::fs::write(&answers, serde_json::to_string(&[review, "[3, 5]", "\"no\""]).unwrap()).unwrap();
    let (text, report) = fx.both(plan, &["--mock-answers", answers.to_str().unwrap()], 1);
    let failure = &report["failure"];
    assert_eq!(failure["kind"], "assertion_failed", "{report:#}");
    assert_eq!(failure["message"], "not approved");
    assert_eq!(
        failure["actual"],
        serde_json::json!({
            "r": {"verdict": "reject", "risk": 4, "files": ["a.py", "b c.py"], "why": "x\ny \"quoted\""},
            "k": [3, 5],
            "v": "no",
        }),
        "the answer as JSON, not a string of it: {report:#}"
    );
    // Key order is the answer's, as validated.
    let keys: Vec<&String> = failure["actual"]["r"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["verdict", "risk", "files", "why"]);
    // The text report shows each once, by its name.
    assert!(text.stdout.contains("  r = {"), "{}", text.stdout);
    assert!(text.stdout.contains("  k = [3,5]"), "{}", text.stdout);
}
