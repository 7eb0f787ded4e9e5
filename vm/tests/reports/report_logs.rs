//! LOG messages in the reports (book: reference/failures.md), through the real binary: in the
//! text output, in the JSON report under their top-level step (`"logs"`),
//! in JUnit `<system-out>`, and whole across a suspension and resume.

use crate::common::Fixture;
use serde_json::{Value as Json, json};

/// Each top-level step's name and logs, in order.
fn step_logs(report: &Json) -> Vec<(String, Json)> {
    report["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_string(), s["logs"].clone()))
        .collect()
}

const LOGGING: &str = r#"TASK "logging"
DEFINE_TASK "helper" {
    LOG "from the helper"
}
SETUP {
    LOG "setting up"
}
STEP "quiet" {
    RUN "true"
}
STEP "chatty" {
    VAR who = "world"
    LOG "hello ${who}"
    STEP "inner" {
        LOG "nested <&>"
        CALL "helper"
    }
}
STEP "failing" {
    LOG "about to fail"
    ASSERT FILE "missing" EXISTS
}
STEP "never" {
    LOG "not run"
}
"#;

#[test]
fn json_steps_carry_their_logs() {
    let fx = Fixture::new();
    let run = fx.run(LOGGING, &["--output-format", "json"]);
    run.expect(1);
    assert_eq!(
        step_logs(&run.json()),
        [
            ("SETUP".to_string(), json!(["setting up"])),
            ("quiet".to_string(), json!([])),
            // A nested step's and a called task's messages go under the top-level step.
            ("chatty".to_string(), json!(["hello world", "nested <&>", "from the helper"])),
            ("failing".to_string(), json!(["about to fail"])),
            ("never".to_string(), json!([])),
        ]
    );
}

#[test]
fn text_output_shows_every_log() {
    let fx = Fixture::new();
    let run = fx.run(LOGGING, &[]);
    run.expect(1);
    for message in ["setting up", "hello world", "nested <&>", "from the helper", "about to fail"] {
        assert!(run.stdout.contains(&format!("LOG {message}\n")), "{message:?} in:\n{}", run.stdout);
    }
}

/// The text of `<system-out>` in the testcase named `name`, if any.
fn system_out(xml: &str, name: &str) -> Option<String> {
    let case = xml.split("<testcase ").find(|c| c.starts_with(&format!("name=\"{name}\"")))?;
    let case = &case[..case.find("</testcase>")?];
    let start = case.find("<system-out>")? + "<system-out>".len();
    Some(case[start..start + case[start..].find("</system-out>")?].to_string())
}

#[test]
fn junit_puts_logs_in_system_out() {
    let fx = Fixture::new();
    let run = fx.run(LOGGING, &["--output-format", "junit"]);
    run.expect(1);
    let xml = &run.stdout;
    assert_eq!(system_out(xml, "SETUP").as_deref(), Some("setting up\n"), "{xml}");
    assert_eq!(system_out(xml, "quiet"), None, "no logs, no system-out: {xml}");
    assert_eq!(
        system_out(xml, "chatty").as_deref(),
        Some("hello world\nnested &lt;&amp;&gt;\nfrom the helper\n"),
        "{xml}"
    );
    assert_eq!(system_out(xml, "failing").as_deref(), Some("about to fail\n"), "{xml}");
    assert_eq!(system_out(xml, "never"), None, "{xml}");
}

#[test]
fn logs_before_a_suspension_stay_in_the_report_after_resume() {
    let fx = Fixture::new();
    let plan =
        "TASK \"wait\"\nSTEP \"ask\" {\n    LOG \"before\"\n    PAUSE \"look\"\n    LOG \"after\"\n}\n";
    let run = fx.run(plan, &["--non-interactive", "--output-format", "json"]);
    run.expect(3);
    let report = run.json();
    // The step has not ended, but what it logged is in the report already.
    assert_eq!(step_logs(&report), [("ask".to_string(), json!(["before"]))]);
    let snap = report["snapshot"].as_str().expect("a snapshot").to_string();
    let done = fx.tissvm(&["resume", &snap, "--answer", "continue", "--output-format", "json"]);
    done.expect(0);
    assert_eq!(step_logs(&done.json()), [("ask".to_string(), json!(["before", "after"]))]);
}

/// A LOG of a command's output, which ends in a newline (or two), is shown
/// on the terminal without it: no blank line after the message. The value
/// is not changed: the plan sees the newlines, and the JSON report and
/// JUnit keep them.
#[test]
fn a_logged_output_shows_no_blank_line_and_keeps_its_newlines() {
    let fx = Fixture::new();
    let plan = r#"TASK "t"
STEP "s" {
    RUN "printf 'one\\ntwo\\n\\n'"
    LOG "${LAST_RUN.STDOUT}"
    LOG "next"
    ASSERT LAST_RUN.STDOUT == "one\ntwo\n\n"
}
"#;
    let run = fx.run(plan, &["--color", "never"]);
    run.expect(0);
    assert!(run.stdout.contains("  LOG one\n      two\n  LOG next\n"), "{}", run.stdout);
    let json = fx.run(plan, &["--output-format", "json"]);
    json.expect(0);
    assert_eq!(step_logs(&json.json()), [("s".to_string(), json!(["one\ntwo\n\n", "next"]))]);
}
