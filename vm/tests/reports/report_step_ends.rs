//! How the end of a step is reported, through the real binary: the text
//! line of every step that ends, passed or failed, with its time, and the
//! `step_end` event of `--log-file` naming the step that ended.

use std::path::Path;

use crate::common::Fixture;
use serde_json::Value as Json;

fn log_events(path: &Path) -> Vec<Json> {
    let text = std::fs::read_to_string(path).expect("the log file exists");
    text.lines().map(|line| serde_json::from_str(line).expect("one JSON event per line")).collect()
}

/// The time in a step line's `(...)`, in milliseconds, if it has one.
fn line_time_ms(line: &str) -> Option<u64> {
    let inside = line.rsplit_once("  (")?.1.strip_suffix(')')?;
    let digits = inside.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let number: u64 = digits.parse().ok()?;
    match &inside[digits.len()..] {
        "ms" => Some(number),
        "s" => Some(number * 1000),
        "m" => Some(number * 60_000),
        _ => None,
    }
}

const NESTED: &str = r#"TASK "nested"
STEP "outer" {
    STEP "inner" {
        LOG "in inner"
    }
    LOG "in outer"
}
"#;

#[test]
fn log_file_step_end_names_the_step_that_ended() {
    let fx = Fixture::new();
    let log = fx.path("events.jsonl");
    fx.run(NESTED, &["--log-file", log.to_str().unwrap()]).expect(0);
    let ends: Vec<(Json, Json)> = log_events(&log)
        .into_iter()
        .filter(|e| e["event"] == "step_end")
        .map(|e| (e["step"].clone(), e["op"].clone()))
        .collect();
    assert_eq!(ends, [("inner".into(), "inner".into()), ("outer".into(), "outer".into())]);
}

const FAILING_SLOWLY: &str = r#"TASK "slow failure"
STEP "outer" {
    STEP "inner" {
        RUN "sleep 0.2"
        ASSERT LAST_RUN.EXIT_CODE == 1
    }
}
STEP "later" {
    LOG "never"
}
"#;

#[test]
fn a_failed_step_line_shows_its_time_like_a_passed_one() {
    let fx = Fixture::new();
    let run = fx.run(FAILING_SLOWLY, &[]);
    run.expect(1);
    // Every open step ends, innermost first, each with its time.
    let failed: Vec<&str> = run.stdout.lines().filter(|l| l.trim_start().starts_with('✗')).collect();
    assert_eq!(failed.len(), 2, "{}", run.stdout);
    assert!(failed[0].starts_with("  ✗ inner  ("), "{}", run.stdout);
    assert!(failed[1].starts_with("✗ outer  ("), "{}", run.stdout);
    for line in failed {
        let ms = line_time_ms(line).unwrap_or_else(|| panic!("no time on {line:?}"));
        assert!(ms >= 200, "the step ran `sleep 0.2`: {line:?}");
    }
    assert!(!run.stdout.contains("later"), "{}", run.stdout);
}

#[test]
fn log_file_has_a_failed_step_end_for_every_step_a_failure_ends() {
    let fx = Fixture::new();
    let log = fx.path("events.jsonl");
    fx.run(FAILING_SLOWLY, &["--log-file", log.to_str().unwrap()]).expect(1);
    let events = log_events(&log);
    let ends: Vec<(&str, &str, u64)> = events
        .iter()
        .filter(|e| e["event"] == "step_end")
        .map(|e| {
            (e["step"].as_str().unwrap(), e["outcome"].as_str().unwrap(), e["duration_ms"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(
        ends.iter().map(|&(s, o, _)| (s, o)).collect::<Vec<_>>(),
        [("inner", "failed"), ("outer", "failed")]
    );
    assert!(ends.iter().all(|&(_, _, ms)| ms >= 200), "{ends:?}");
    // The failure comes first, then the steps it ends.
    let names: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap()).collect();
    let failed = names.iter().position(|&n| n == "failed").expect("a failed event");
    assert_eq!(&names[failed..], ["failed", "step_end", "step_end"]);
}

#[test]
fn steps_a_caught_failure_leaves_end_as_failed() {
    let fx = Fixture::new();
    let plan = r#"TASK "caught"
STEP "outer" {
    TRY {
        STEP "inner" {
            RUN "sleep 0.2"
            ASSERT LAST_RUN.EXIT_CODE == 1
        }
    } CATCH {
        LOG "recovered"
    }
}
"#;
    let log = fx.path("events.jsonl");
    let run = fx.run(plan, &["--log-file", log.to_str().unwrap()]);
    run.expect(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let inner =
        lines.iter().position(|l| l.starts_with("  ✗ inner  (")).unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line_time_ms(lines[inner]).is_some_and(|ms| ms >= 200), "{}", lines[inner]);
    let caught = lines.iter().position(|l| l.starts_with("  caught ")).expect("the caught line");
    let outer = lines.iter().position(|l| l.starts_with("✓ outer  (")).expect("outer passed");
    assert!(inner < caught && caught < outer, "{}", run.stdout);
    // Every step that started has ended.
    let events = log_events(&log);
    let count = |kind: &str| events.iter().filter(|e| e["event"] == kind).count();
    assert_eq!(count("step_start"), count("step_end"), "{events:?}");
}

#[test]
fn a_log_file_that_cannot_be_opened_is_named_once_without_the_os_error_number() {
    let fx = Fixture::new();
    let log = fx.path("no/such/dir/events.jsonl");
    let run = fx.run(NESTED, &["--log-file", log.to_str().unwrap()]);
    run.expect(2);
    assert!(run.stderr.contains("tissvm: cannot open the log file"), "{}", run.stderr);
    assert!(run.stderr.contains("No such file or directory"), "{}", run.stderr);
    assert!(!run.stderr.contains("os error"), "{}", run.stderr);
}
