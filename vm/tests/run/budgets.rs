//! Budget enforcement per dimension (book: reference/costs.md), through the real binary.

use serde_json::Value as Json;

fn run(plan: &str, extra: &[&str]) -> (Option<i32>, Json, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan_path = dir.path().join("plan.tiss");
    std::fs::write(&plan_path, plan).unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let out = crate::common::command()
        .arg("run")
        .arg(&plan_path)
        .arg("--workdir")
        .arg(&ws)
        .args(["--output-format", "json", "--non-interactive"])
        .args(extra)
        .output()
        .expect("tissvm runs");
    let report: Json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code(), report, dir)
}

/// The budget warnings a run of `plan` that passes logs, in order.
fn budget_warnings(plan: &str, extra: &[&str]) -> Vec<String> {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("log.jsonl");
    let mut args = vec!["--log-file", log.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, report, _dir) = run(plan, &args);
    assert_eq!(code, Some(0), "{report:#}");
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap())
        .filter(|e| e["event"] == "budget_warning")
        .map(|e| e["op"].as_str().unwrap().to_string())
        .collect()
}

fn alive(pid: i32) -> bool {
    // A zombie (reparented to an init that does not reap) counts as dead.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'),
        Err(_) => false,
    }
}

#[test]
fn the_time_budget_kills_a_long_command_and_its_children() {
    let plan = "TASK \"t\"\nSET_BUDGET EXECUTION_TIME = 1s\nSTEP \"slow\" {\n    RUN \"sleep 30 & echo $! > child.pid; sleep 30\"\n}\n";
    let started = std::time::Instant::now();
    let (code, report, dir) = run(plan, &[]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(code, Some(4), "{report}");
    assert_eq!(report["status"], "budget_exceeded");
    assert_eq!(report["failure"]["dimension"], "EXECUTION_TIME");
    assert_eq!(report["failure"]["cap"], 1000);
    let pid: i32 = std::fs::read_to_string(dir.path().join("ws/child.pid")).unwrap().trim().parse().unwrap();
    // A SIGKILLed process takes a moment to die on a loaded machine.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while alive(pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!alive(pid), "the command's child {pid} survived the budget");
}

#[test]
fn a_command_that_ends_within_its_timeout_but_past_the_budget_still_fails() {
    let plan = "TASK \"t\"\nSTEP \"slow\" {\n    RUN \"sleep 2\" TIMEOUT 10s\n}\n";
    let (code, report, _dir) = run(plan, &["--budget", "EXECUTION_TIME=500ms"]);
    assert_eq!(code, Some(4), "{report}");
    assert_eq!(report["failure"]["dimension"], "EXECUTION_TIME");
    assert!(report["duration_ms"].as_u64().unwrap() < 2000, "{report}");
}

#[test]
fn try_does_not_catch_a_budget_failure() {
    let plan = "TASK \"t\"\nSTEP \"a\" { RUN \"true\" }\nSTEP \"b\" {\n    TRY { RUN \"true\" } CATCH { LOG \"caught\" }\n}\n";
    let (code, report, _dir) = run(plan, &["--budget", "RUN_COUNT=1"]);
    assert_eq!(code, Some(4), "{report}");
    assert_eq!(report["failure"]["kind"], "budget_exceeded");
    assert_eq!(report["cost"]["run_count"], 1);
}

#[test]
fn api_calls_are_checked_before_the_call() {
    let plan =
        "TASK \"t\"\nSTEP \"a\" { PROMPT_AGENT \"one\" }\nSTEP \"b\" { IF TRUE { PROMPT_AGENT \"two\" } }\n";
    let (code, report, _dir) = run(plan, &["--budget", "API_CALLS=1"]);
    assert_eq!(code, Some(4), "{report}");
    assert_eq!(report["failure"]["dimension"], "API_CALLS");
    assert_eq!(report["cost"]["api_calls"], 1, "the second call never happened");
}

#[test]
fn token_usage_counts_after_the_call() {
    let plan = "TASK \"t\"\nSTEP \"a\" { PROMPT_AGENT \"Summarise the project in one line\" INTO s }\n";
    let (code, report, _dir) = run(plan, &["--budget", "TOKEN_COUNT=3"]);
    assert_eq!(code, Some(4), "{report}");
    assert_eq!(report["failure"]["dimension"], "TOKEN_COUNT");
}

#[test]
fn the_instruction_budget_stops_at_the_same_instruction_every_time() {
    // The step's minimum (the empty ELSE) fits, so preflight lets it start;
    // the arm taken is longer than the cap.
    let plan = "TASK \"t\"\nSTEP \"a\" {\n    VAR x = 1\n    VAR y = 2\n    IF x < y { VAR z = 3 VAR w = 4 VAR v = 5 VAR u = 6 } ELSE { }\n    ASSERT x == 1\n}\n";
    let (code, first, _d1) = run(plan, &["--budget", "INSTRUCTIONS=20"]);
    let (_, second, _d2) = run(plan, &["--budget", "INSTRUCTIONS=20"]);
    assert_eq!(code, Some(4), "{first}");
    assert_eq!(first["failure"]["dimension"], "INSTRUCTIONS");
    assert_eq!(first["cost"]["instructions"], 20);
    assert_eq!(first["failure"]["reason"], "limit");
    assert_eq!(first["failure"]["line"], second["failure"]["line"]);
    assert_eq!(first["cost"]["instructions"], second["cost"]["instructions"]);
}

#[test]
fn preflight_refuses_a_call_whose_minimum_cannot_fit() {
    // The step may skip the CALL (so its own minimum fits); the CALL itself cannot.
    let plan = "TASK \"t\"\nDEFINE_TASK \"three\" { RUN \"touch a\" RUN \"touch b\" RUN \"touch c\" }\nSTEP \"s\" {\n    RUN \"touch first\"\n    IF TRUE { CALL \"three\" }\n}\n";
    let (code, report, dir) = run(plan, &["--budget", "RUN_COUNT=3"]);
    assert_eq!(code, Some(4), "{report}");
    assert_eq!(report["failure"]["reason"], "preflight");
    assert!(dir.path().join("ws/first").exists());
    assert!(!dir.path().join("ws/a").exists(), "preflight must refuse before any effect of the task");
}

#[test]
fn the_lower_cap_wins() {
    let plan =
        "TASK \"t\"\nSET_BUDGET RUN_COUNT = 5\nSTEP \"a\" { RUN \"true\" }\nSTEP \"b\" { RUN \"true\" }\n";
    let (code, report, _dir) = run(plan, &["--budget", "RUN_COUNT=1"]);
    assert_eq!(code, Some(4), "{report}");
    assert_eq!(report["failure"]["cap"], 1);
    let (code, _, _dir) = run(plan, &["--budget", "RUN_COUNT=50"]);
    assert_eq!(code, Some(0));
}

#[test]
fn preflight_refuses_a_prompt_whose_estimate_cannot_fit() {
    // The static model puts this prompt at ≥ 25 tokens (200 bytes of literal text, 8 per token).
    let plan =
        format!("TASK \"t\"\nSTEP \"a\" {{ IF TRUE {{ PROMPT_AGENT \"{}\" INTO s }} }}\n", "q".repeat(200));
    let plan = plan.as_str();
    let (code, report, _dir) = run(plan, &["--budget", "TOKEN_COUNT=10"]);
    assert_eq!(code, Some(4), "{report}");
    assert_eq!(report["failure"]["dimension"], "TOKEN_COUNT");
    assert_eq!(report["failure"]["reason"], "preflight");
    assert_eq!(report["cost"]["api_calls"], 0, "the prompt was never sent");
}

/// book: reference/models.md: a prompt's minimum is only what is certain (its literal text at
/// a token per 8 bytes, its context 0), so preflight lets run a prompt with
/// context that fits; the old minimum assumed 1000 tokens per variable.
#[test]
fn preflight_lets_a_prompt_with_context_that_fits_run() {
    let plan = "TASK \"t\"\nSET_BUDGET TOKEN_COUNT = 200\nSTEP \"read\" {\n    WRITE \"a.txt\" FROM \"short\"\n    READ \
                \"a.txt\" AS A\n    READ \"a.txt\" AS B\n}\nSTEP \"ask\" {\n    PROMPT_AGENT \"Compare them.\" WITH A, \
                B INTO ANSWER\n}\n";
    let (code, report, _dir) = run(plan, &[]);
    assert_eq!(code, Some(0), "{report:#}");
    let spent = report["cost"]["token_count"].as_u64().unwrap();
    assert!(spent > 0 && spent <= 200, "{report:#}");
}

/// A prompt's own check allows the provider's `max_tokens` for the answer,
/// not always the default 1,024: with `--max-tokens 50` the prompt (at
/// most 17 tokens of text) fits the 200 left without a warning, and with the
/// default it is warned about (it was warned about either way). The cap is
/// set inside the step, so the step's own check, on the bound compiled into
/// the plan, has no cap to compare with.
#[test]
fn a_prompts_check_allows_the_providers_max_tokens_for_the_answer() {
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    SET_BUDGET TOKEN_COUNT = 200\n    PROMPT_AGENT \"Hi.\" INTO answer\n}\n";
    let warnings = |extra: &[&str]| budget_warnings(plan, extra);
    let default = warnings(&[]);
    assert!(default.len() == 1 && default[0].contains("1041 tokens"), "{default:?}");
    assert_eq!(warnings(&["--max-tokens", "50"]), Vec::<String>::new());
}

/// A step's check allows the run's `max_tokens` too: its bound, compiled
/// with the default 1,024 of answer (2,041 tokens here, with 1,000 for the
/// unknown `LAST_RUN` context), is remade for `--max-tokens 50` (1,067), so
/// a cap of 1,500 warns with the default and not with 50.
#[test]
fn a_steps_check_allows_the_providers_max_tokens_for_each_answer() {
    let plan = "TASK \"t\"\nSET_BUDGET TOKEN_COUNT = 1500\nSTEP \"ask\" {\n    PROMPT_AGENT \"Hi.\" INTO answer\n}\n";
    let warnings = |extra: &[&str]| budget_warnings(plan, extra);
    let default = warnings(&[]);
    assert!(
        default.len() == 1 && default[0].starts_with("step \"ask\" may need up to 2041 tokens"),
        "{default:?}"
    );
    assert_eq!(warnings(&["--max-tokens", "50"]), Vec::<String>::new());
}
