//! What `tissvm` reports, through the real binary: the JSON report's exact
//! shape, JUnit XML, the `--log-file` event log and the text output (book:
//! reference/formats.md).

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::Fixture;
use serde_json::Value as Json;

const PASSING: &str = r#"TASK "A passing plan"
SETUP {
    MKDIR "build"
}
STEP "write" {
    WRITE "build/a.txt" FROM "a"
}
STEP "check" {
    RUN "cat build/a.txt"
    ASSERT LAST_RUN.STDOUT == "a"
    STEP "nested" {
        LOG "inside"
    }
}
"#;

const FAILING: &str = r#"TASK "A failing plan"
STEP "first" {
    RUN "echo hello"
}
STEP "second" {
    VAR expected = "goodbye"
    ASSERT LAST_RUN.STDOUT CONTAINS expected MESSAGE "no goodbye"
}
STEP "third" {
    LOG "never"
}
STEP "fourth" {
    RUN "touch never"
}
"#;

fn keys(value: &Json) -> BTreeSet<&str> {
    value.as_object().unwrap_or_else(|| panic!("not an object: {value}")).keys().map(String::as_str).collect()
}

fn set<'a>(names: &[&'a str]) -> BTreeSet<&'a str> {
    names.iter().copied().collect()
}

#[track_caller]
fn assert_report_shape(report: &Json) {
    assert_eq!(
        keys(report),
        set(&[
            "status",
            "exit_code",
            "task",
            "duration_ms",
            "steps",
            "failure",
            "cost",
            "snapshot",
            "sandbox",
            "budgets",
            "effects",
            "effects_omitted"
        ]),
        "{report:#}"
    );
    // The caps in force (`null`: none), and every effect as its log event says it.
    assert_eq!(
        keys(&report["budgets"]),
        set(&["api_calls", "token_count", "execution_time_ms", "run_count", "instructions"]),
        "{report:#}"
    );
    for effect in report["effects"].as_array().unwrap() {
        for key in ["event", "step", "line", "op", "outcome", "duration_ms"] {
            assert!(effect.get(key).is_some(), "{key} in {effect}");
        }
    }
    assert!(report["effects_omitted"].is_u64());
    // book: reference/sandbox.md: the isolation RUN had.
    assert_eq!(keys(&report["sandbox"]), set(&["profile", "enforced", "missing"]), "{report:#}");
    assert!(report["status"].is_string());
    assert!(report["exit_code"].is_i64());
    assert!(report["task"].is_string());
    assert!(report["duration_ms"].is_u64());
    for step in report["steps"].as_array().unwrap() {
        // book: reference/formats.md's four keys, plus the step's own spending (the cost issue)
        // and its LOG messages (book: reference/failures.md).
        assert_eq!(keys(step), set(&["name", "status", "line", "duration_ms", "cost", "logs"]), "{step}");
        assert!(step["logs"].as_array().is_some_and(|l| l.iter().all(Json::is_string)), "{step}");
        assert_eq!(
            keys(&step["cost"]),
            set(&["api_calls", "token_count", "execution_time_ms", "run_count", "instructions"]),
            "{step}"
        );
        assert!(step["name"].is_string() && step["line"].is_u64() && step["duration_ms"].is_u64(), "{step}");
        let status = step["status"].as_str().unwrap();
        assert!(["passed", "failed", "skipped", "not_run"].contains(&status), "{step}");
    }
    let cost = &report["cost"];
    assert_eq!(
        keys(cost),
        set(&["api_calls", "token_count", "execution_time_ms", "run_count", "instructions"]),
        "{cost}"
    );
    for (_, v) in cost.as_object().unwrap() {
        assert!(v.is_u64(), "{cost}");
    }
}

// ---------------------------------------------------------------- JSON

#[test]
fn json_report_of_a_passing_plan() {
    let fx = Fixture::new();
    let run = fx.run(PASSING, &["--output-format", "json"]);
    run.expect(0);
    let report = run.json();
    assert_report_shape(&report);
    assert_eq!(report["status"], "passed");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["task"], "A passing plan");
    assert_eq!(report["failure"], Json::Null);
    assert_eq!(report["snapshot"], Json::Null);
    let steps: Vec<(&str, &str, u64)> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["status"].as_str().unwrap(), s["line"].as_u64().unwrap()))
        .collect();
    // SETUP is reported as a step; nested steps are not top-level steps.
    assert_eq!(steps, [("SETUP", "passed", 2), ("write", "passed", 5), ("check", "passed", 8)]);
    assert_eq!(report["cost"]["run_count"], 1);
    assert_eq!(report["cost"]["api_calls"], 0);
    assert!(report["cost"]["instructions"].as_u64().unwrap() > 0);
    assert_eq!(report["budgets"]["run_count"], Json::Null, "no cap");
    let effects: Vec<(&str, &str, &str)> = report["effects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["event"].as_str().unwrap(), e["op"].as_str().unwrap(), e["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        effects,
        [("mkdir", "build", "ok"), ("write", "build/a.txt", "ok"), ("run", "cat build/a.txt", "exit 0")]
    );
    let run_effect = &report["effects"][2];
    assert_eq!((&run_effect["step"], &run_effect["line"]), (&Json::from("check"), &Json::from(9)));
    assert_eq!((&run_effect["stdout"], &run_effect["stderr"]), (&Json::from("a"), &Json::from("")));
    // Step lines and messages go to stderr: stdout holds the report alone.
    assert!(run.stdout.trim_start().starts_with('{') && run.stdout.trim_end().ends_with('}'));
}

#[test]
fn json_report_of_a_failing_plan() {
    let fx = Fixture::new();
    let run = fx.run(FAILING, &["--output-format", "json"]);
    run.expect(1);
    let report = run.json();
    assert_report_shape(&report);
    assert_eq!(report["status"], "failed");
    assert_eq!(report["exit_code"], 1);
    let statuses: Vec<(&str, &str)> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [("first", "passed"), ("second", "failed"), ("third", "not_run"), ("fourth", "not_run")]
    );
    let f = &report["failure"];
    assert_eq!(
        keys(f),
        set(&["kind", "message", "step", "line", "column", "condition", "actual", "command"]),
        "{f}"
    );
    // The command was run by an earlier step, not the failing one.
    assert_eq!(f["command"], Json::Null);
    assert_eq!(f["kind"], "assertion_failed");
    assert_eq!(f["message"], "no goodbye");
    assert_eq!(f["step"], "second");
    assert_eq!(f["line"], 7);
    assert_eq!(f["column"], 5);
    assert_eq!(f["condition"], "LAST_RUN.STDOUT CONTAINS expected");
    assert_eq!(keys(&f["actual"]), set(&["LAST_RUN.STDOUT", "expected"]));
    assert!(f["actual"]["LAST_RUN.STDOUT"].as_str().unwrap().contains("hello"));
    assert!(f["actual"]["expected"].as_str().unwrap().contains("goodbye"));
    assert_eq!(report["snapshot"], Json::Null);
    assert!(!fx.ws().join("never").exists());
    // The human failure report still goes to stderr.
    assert!(run.stderr.contains("no goodbye"), "{}", run.stderr);
}

#[test]
fn json_failure_in_a_nested_step_names_the_step_path() {
    let fx = Fixture::new();
    let plan = r#"TASK "nested"
DEFINE_TASK "check" {
    STEP "deep" {
        ASSERT FILE "missing" EXISTS
    }
}
STEP "outer" {
    STEP "inner" {
        CALL "check"
    }
}
"#;
    let run = fx.run(plan, &["--output-format", "json"]);
    run.expect(1);
    let report = run.json();
    assert_eq!(report["failure"]["step"], "outer > inner > deep");
    assert_eq!(report["failure"]["line"], 4);
    assert_eq!(report["failure"]["condition"], "FILE \"missing\" EXISTS");
    assert_eq!(report["steps"].as_array().unwrap().len(), 1);
    assert_eq!(report["steps"][0]["status"], "failed");
}

#[test]
fn long_values_in_a_failure_are_shortened_with_head_and_tail() {
    let fx = Fixture::new();
    let plan = r#"TASK "long"
STEP "long" {
    RUN "seq 1 1000"
    ASSERT LAST_RUN.STDOUT CONTAINS "x"
}
"#;
    let run = fx.run(plan, &["--output-format", "json"]);
    run.expect(1);
    let shown = run.json()["failure"]["actual"]["LAST_RUN.STDOUT"].as_str().unwrap().to_string();
    // The string itself, not its quoted form.
    assert!(shown.starts_with("1\n2\n3\n"), "head kept: {shown}");
    assert!(shown.ends_with("999\n1000\n"), "tail kept: {shown}");
    assert!(!shown.contains("\n500\n"), "middle omitted: {shown}");
    assert!(shown.contains("omitted"), "{shown}");
}

#[test]
fn json_report_of_a_budget_and_a_security_failure() {
    let fx = Fixture::new();
    let plan = "TASK \"b\"\nSTEP \"s\" {\n    RUN \"true\"\n    RUN \"true\"\n}\n";
    let run = fx.run(plan, &["--output-format", "json", "--budget", "RUN_COUNT=1"]);
    run.expect(4);
    let report = run.json();
    assert_report_shape(&report);
    assert_eq!(report["status"], "budget_exceeded");
    assert_eq!(report["exit_code"], 4);
    let f = &report["failure"];
    assert_eq!(f["kind"], "budget_exceeded");
    assert_eq!(f["dimension"], "RUN_COUNT");
    assert_eq!(f["cap"], 1);
    // Preflight refused the step: nothing was spent, and it needed two.
    assert_eq!((f["spent"].as_u64(), f["needed"].as_u64()), (Some(0), Some(2)), "{f}");
    assert_eq!(f["reason"], "preflight");

    let plan = "TASK \"s\"\nSTEP \"s\" {\n    VAR p = \"/etc/passwd\"\n    READ \"${p}\" AS x\n}\n";
    let run = fx.run(plan, &["--output-format", "json"]);
    run.expect(5);
    let report = run.json();
    assert_report_shape(&report);
    assert_eq!(report["status"], "security_violation");
    assert_eq!(report["exit_code"], 5);
    assert_eq!(report["failure"]["kind"], "security_violation");
    assert_eq!(report["failure"]["line"], 4);
}

#[test]
fn json_report_of_a_suspended_run() {
    let fx = Fixture::new();
    let plan =
        "TASK \"wait\"\nSTEP \"ask\" {\n    PAUSE \"look at it\"\n    WRITE \"after.txt\" FROM \"x\"\n}\n";
    let run = fx.run(plan, &["--output-format", "json", "--non-interactive"]);
    run.expect(3);
    let report = run.json();
    assert_report_shape(&report);
    assert_eq!(report["status"], "suspended");
    assert_eq!(report["exit_code"], 3);
    assert_eq!(report["failure"], Json::Null);
    assert!(!fx.ws().join("after.txt").exists());
}

// ---------------------------------------------------------------- JUnit

/// A small well-formedness check: balanced tags, quoted attributes, no raw
/// `<` or stray `&` in text. Returns the element names in document order.
fn check_xml(xml: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut opened = Vec::new();
    let mut rest = xml.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>").expect("XML declaration");
    let mut roots = 0;
    while !rest.is_empty() {
        let lt = rest.find('<').unwrap_or(rest.len());
        check_text(&rest[..lt]);
        assert!(
            !stack.is_empty() || rest[..lt].trim().is_empty(),
            "text outside the root: {:?}",
            &rest[..lt]
        );
        rest = &rest[lt..];
        if rest.is_empty() {
            break;
        }
        let gt = rest.find('>').expect("unclosed tag");
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name.trim()), "mismatched </{name}>");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name = tag.split_whitespace().next().expect("tag name").to_string();
        check_attributes(&tag[name.len()..]);
        if stack.is_empty() {
            roots += 1;
        }
        opened.push(name.clone());
        if !self_closing {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    assert_eq!(roots, 1, "one root element");
    opened
}

fn check_text(text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        rest = &rest[at..];
        let end = rest.find(';').expect("`&` without `;`");
        let entity = &rest[1..end];
        assert!(
            ["amp", "lt", "gt", "quot", "apos"].contains(&entity) || entity.starts_with('#'),
            "unknown entity &{entity};"
        );
        rest = &rest[end + 1..];
    }
    assert!(!text.chars().any(|c| (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r')), "{text:?}");
}

fn check_attributes(mut attrs: &str) {
    loop {
        attrs = attrs.trim_start();
        if attrs.is_empty() {
            return;
        }
        let eq = attrs.find('=').unwrap_or_else(|| panic!("attribute without value: {attrs}"));
        let value =
            attrs[eq + 1..].strip_prefix('"').unwrap_or_else(|| panic!("unquoted attribute: {attrs}"));
        let end = value.find('"').expect("unterminated attribute");
        check_text(&value[..end]);
        attrs = &value[end + 1..];
    }
}

#[test]
fn junit_of_a_passing_plan() {
    let fx = Fixture::new();
    let run = fx.run(PASSING, &["--output-format", "junit"]);
    run.expect(0);
    let xml = &run.stdout;
    let elements = check_xml(xml);
    assert_eq!(elements.iter().filter(|e| *e == "testsuite").count(), 1, "{xml}");
    assert_eq!(elements.iter().filter(|e| *e == "testcase").count(), 3, "{xml}");
    assert!(!elements.iter().any(|e| e == "failure"), "{xml}");
    assert!(xml.contains("name=\"A passing plan\""), "{xml}");
    for step in ["SETUP", "write", "check"] {
        assert!(xml.contains(&format!("<testcase name=\"{step}\"")), "{step}: {xml}");
    }
    assert!(xml.contains("tests=\"3\"") && xml.contains("failures=\"0\""), "{xml}");
}

#[test]
fn junit_of_a_failing_plan() {
    let fx = Fixture::new();
    let run = fx.run(FAILING, &["--output-format", "junit"]);
    run.expect(1);
    let xml = &run.stdout;
    let elements = check_xml(xml);
    assert_eq!(elements.iter().filter(|e| *e == "testsuite").count(), 1, "{xml}");
    assert_eq!(elements.iter().filter(|e| *e == "testcase").count(), 4, "{xml}");
    assert_eq!(elements.iter().filter(|e| *e == "failure").count(), 1, "{xml}");
    // The <failure> sits in the failing step's testcase.
    let second = xml.split("<testcase ").find(|c| c.starts_with("name=\"second\"")).expect("testcase second");
    let second = &second[..second.find("</testcase>").unwrap()];
    assert!(second.contains("<failure type=\"assertion_failed\""), "{second}");
    assert!(second.contains("no goodbye"), "{second}");
    let first = xml.split("<testcase ").find(|c| c.starts_with("name=\"first\"")).unwrap();
    assert!(!first[..first.find("</testcase>").unwrap()].contains("<failure"), "{xml}");
    assert!(xml.contains("tests=\"4\"") && xml.contains("failures=\"1\""), "{xml}");
}

#[test]
fn junit_escapes_names_and_messages() {
    let fx = Fixture::new();
    let plan = r#"TASK "Task <&> \"quoted\" 'single'"
STEP "step <one> & \"two\"" {
    RUN "printf '</testcase> & <failure> \\033[1m'"
    ASSERT LAST_RUN.STDOUT == "x" MESSAGE "bad <output> & \"worse\""
}
"#;
    let run = fx.run(plan, &["--output-format", "junit"]);
    run.expect(1);
    let elements = check_xml(&run.stdout);
    // The command wrote to stdout only: no empty <system-err>.
    assert_eq!(elements, ["testsuite", "testcase", "failure", "system-out"], "{}", run.stdout);
    assert!(run.stdout.contains("Task &lt;&amp;&gt; &quot;quoted&quot;"), "{}", run.stdout);
}

// ---------------------------------------------------------------- --log-file

pub fn log_events(path: &Path) -> Vec<Json> {
    let text = std::fs::read_to_string(path).expect("the log file exists");
    assert!(text.ends_with('\n'), "the log ends with a newline");
    text.lines()
        .enumerate()
        .map(|(i, line)| serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}: {line}", i + 1)))
        .collect()
}

fn is_timestamp(ts: &str) -> bool {
    // 2026-11-22T20:48:52.123Z
    let b = ts.as_bytes();
    b.len() == 24
        && ts.ends_with('Z')
        && [4, 7].iter().all(|&i| b[i] == b'-')
        && b[10] == b'T'
        && [13, 16].iter().all(|&i| b[i] == b':')
        && b[19] == b'.'
        && ts.chars().filter(|c| c.is_ascii_digit()).count() == 17
}

#[test]
fn log_file_has_one_json_event_per_line() {
    let fx = Fixture::new();
    let plan = r#"TASK "logged"
STEP "work" {
    RUN "seq 1 100"
    LOG "a message"
    WRITE "out.txt" FROM "x"
}
STEP "fail" {
    ASSERT FILE "missing" EXISTS
}
"#;
    let log = fx.path("events.jsonl");
    let run = fx.run(plan, &["--log-file", log.to_str().unwrap()]);
    run.expect(1);
    let events = log_events(&log);
    assert!(!events.is_empty());
    for event in &events {
        for key in ["ts", "event", "step", "line", "op", "outcome", "duration_ms"] {
            assert!(event.get(key).is_some(), "no `{key}` in {event}");
        }
        assert!(is_timestamp(event["ts"].as_str().unwrap()), "{event}");
        assert!(
            event["event"].is_string() && event["op"].is_string() && event["outcome"].is_string(),
            "{event}"
        );
        assert!(event["step"].is_string() || event["step"].is_null(), "{event}");
        assert!(event["line"].is_u64() && event["duration_ms"].is_u64(), "{event}");
    }
    let names: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap()).collect();
    for expected in ["step_start", "run", "log", "write", "step_end", "failed"] {
        assert!(names.contains(&expected), "no `{expected}` event in {names:?}");
    }

    let run_event = events.iter().find(|e| e["event"] == "run").unwrap();
    assert_eq!(run_event["op"], "seq 1 100");
    assert_eq!(run_event["step"], "work");
    assert_eq!(run_event["line"], 3);
    assert_eq!(run_event["outcome"], "exit 0");
    let stdout = run_event["stdout"].as_str().expect("the run event carries stdout");
    assert!(stdout.starts_with("1\n2\n3\n") && stdout.ends_with("99\n100\n"), "{stdout}");
    assert!(!stdout.contains("\n50\n") && stdout.contains("omitted"), "shortened: {stdout}");
    assert!(run_event.get("stderr").is_some(), "{run_event}");

    let log_event = events.iter().find(|e| e["event"] == "log").unwrap();
    assert_eq!(log_event["op"], "a message");
    assert_eq!(log_event["line"], 4);
    let failed = events.iter().find(|e| e["event"] == "failed").unwrap();
    assert_eq!(failed["step"], "fail");
    assert_eq!(failed["outcome"], "assertion_failed");
    assert_eq!(failed["line"], 8);

    // The timestamps do not go backwards.
    let stamps: Vec<&str> = events.iter().map(|e| e["ts"].as_str().unwrap()).collect();
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");
}

#[test]
fn log_file_is_appended_to_and_is_separate_from_the_report() {
    let fx = Fixture::new();
    let log = fx.path("events.jsonl");
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    LOG \"hello\"\n}\n";
    let first = fx.run(plan, &["--log-file", log.to_str().unwrap(), "--output-format", "json"]);
    first.expect(0);
    first.json();
    let after_one = log_events(&log).len();
    fx.run(plan, &["--log-file", log.to_str().unwrap()]).expect(0);
    assert_eq!(log_events(&log).len(), 2 * after_one);
}

#[test]
fn an_unwritable_log_file_is_a_usage_error() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch ran\"\n}\n";
    let run = fx.run(plan, &["--log-file", fx.path("no/such/dir/log.jsonl").to_str().unwrap()]);
    run.expect(2);
    assert!(!fx.ws().join("ran").exists(), "the plan ran without its log");
}

#[test]
fn log_output_events_name_their_step_and_line() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo hi\"\n}\n";
    let log = fx.path("events.jsonl");
    fx.run(plan, &["--log-file", log.to_str().unwrap()]).expect(0);
    let events = log_events(&log);
    let output = events.iter().find(|e| e["event"] == "output").expect("an output event");
    assert_eq!(output["step"], "s", "{output}");
    assert_eq!(output["line"], 3, "{output}");
}

#[test]
fn a_budget_failure_is_logged_like_any_failure() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"spender\" {\n    RUN \"true\"\n    RUN \"true\"\n}\n";
    let log = fx.path("events.jsonl");
    let run = fx.run(plan, &["--budget", "RUN_COUNT=1", "--log-file", log.to_str().unwrap()]);
    run.expect(4);
    assert!(run.stdout.lines().any(|l| l.starts_with('✗') && l.contains("spender")), "{}", run.stdout);
    let events = log_events(&log);
    let failed = events.iter().find(|e| e["event"] == "failed").expect("a failed event");
    assert_eq!(failed["outcome"], "budget_exceeded");
    assert_eq!(failed["step"], "spender");
}

// ---------------------------------------------------------------- text output

#[test]
fn text_output_of_a_passing_plan() {
    let fx = Fixture::new();
    let run = fx.run(PASSING, &[]);
    run.expect(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    for step in ["SETUP", "write", "check", "nested"] {
        assert!(
            lines.iter().any(|l| l.trim_start().starts_with(&format!("✓ {step}  ("))),
            "no line for {step}:\n{}",
            run.stdout
        );
    }
    assert!(run.stdout.contains("inside"), "the LOG message: {}", run.stdout);
    assert!(run.stdout.contains("passed: A passing plan"), "{}", run.stdout);
    assert!(run.stdout.contains("run_count=1"), "{}", run.stdout);
    // Steps are listed in the order they finish: the nested one first.
    let at =
        |name: &str| lines.iter().position(|l| l.trim_start().starts_with(&format!("✓ {name}  "))).unwrap();
    assert!(at("SETUP") < at("write") && at("write") < at("nested") && at("nested") < at("check"));
}

#[test]
fn text_output_of_a_failing_plan() {
    let fx = Fixture::new();
    let run = fx.run(FAILING, &[]);
    run.expect(1);
    let out = &run.stdout;
    assert!(out.lines().any(|l| l.starts_with("✓ first")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("✗ second")), "{out}");
    assert!(!out.contains("third") && !out.contains("fourth"), "steps after the failure do not run: {out}");
    for expected in [
        "assertion_failed: no goodbye",
        "in step: second",
        "at line 7, column 5",
        "condition: LAST_RUN.STDOUT CONTAINS expected",
        "LAST_RUN.STDOUT = \"hello\\n\"",
        "expected = \"goodbye\"",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
}

// ---------------------------------------------------------------- inspect

/// The log keeps at most `--log-max-output` bytes of each stream of a
/// command (head and tail) and says how much it left out, however much the
/// command prints (book: reference/formats.md); the default is 1 MiB per stream.
#[test]
fn log_file_keeps_a_bounded_head_and_tail_of_each_stream() {
    let fx = Fixture::new();
    // 5,000,000 bytes on stdout: "start", then dots, then "end"; 300 on stderr.
    let plan = r#"TASK "loud"
STEP "print" {
    RUN "printf start; head -c 4999992 /dev/zero | tr '\\0' .; printf end; head -c 300 /dev/zero | tr '\\0' e >&2"
}
"#;
    for (max, args) in [(1000u64, vec!["--log-max-output", "1000"]), (1 << 20, vec![])] {
        let log = fx.path(&format!("events-{max}.jsonl"));
        let mut all = vec!["--log-file", log.to_str().unwrap()];
        all.extend(args);
        fx.run(plan, &all).expect(0);
        let size = std::fs::metadata(&log).unwrap().len();
        assert!(size < max * 2 + 20_000, "a {size}-byte log for a cap of {max} per stream");
        let events = log_events(&log);
        let output = |stream: &str| -> String {
            events
                .iter()
                .filter(|e| e["event"] == "output" && e["outcome"] == stream)
                .map(|e| e["data"].as_str().unwrap())
                .collect()
        };
        let stdout = output("stdout");
        assert_eq!(stdout.len() as u64, max, "head and tail together");
        assert!(stdout.starts_with("start") && stdout.ends_with("end"), "head and tail kept");
        let omitted: Vec<&Json> = events.iter().filter(|e| e["event"] == "output_omitted").collect();
        assert_eq!(omitted.len(), 1, "only stdout was cut: {omitted:?}");
        assert_eq!(omitted[0]["outcome"], "stdout");
        assert_eq!(omitted[0]["bytes"], 5_000_000 - max);
        assert_eq!(output("stderr"), "e".repeat(300), "a short stream is kept whole");
    }
}

/// A command that prints a byte at a time gets its head written in a few
/// batches, not an event (a few hundred bytes, the command included) per
/// byte: the log stays bounded however the output comes. A batch is due
/// every 64 KiB or every second, so the events are at most a few plus one
/// per second the command ran.
#[test]
fn log_file_writes_output_that_trickles_in_few_events() {
    let fx = Fixture::new();
    // 120 bytes, each in its own write, 10 ms apart; 60 are kept.
    let plan = r#"TASK "trickle"
STEP "print" {
    RUN "i=0; while [ $i -lt 120 ]; do printf x; sleep 0.01; i=$((i+1)); done"
}
"#;
    let log = fx.path("events.jsonl");
    let started = std::time::Instant::now();
    fx.run(plan, &["--log-file", log.to_str().unwrap(), "--log-max-output", "60"]).expect(0);
    let seconds = started.elapsed().as_secs() as usize;
    let events = log_events(&log);
    let output: Vec<&str> =
        events.iter().filter(|e| e["event"] == "output").map(|e| e["data"].as_str().unwrap()).collect();
    assert_eq!(output.concat(), "x".repeat(60), "head and tail");
    assert!(output.len() <= 3 + seconds, "{} output events in {seconds}s: {output:?}", output.len());
    let omitted: Vec<&Json> = events.iter().filter(|e| e["event"] == "output_omitted").collect();
    assert_eq!(omitted.len(), 1);
    assert_eq!(omitted[0]["bytes"], 60);
}
