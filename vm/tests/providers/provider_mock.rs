//! `--provider mock --mock-answers FILE` through `tissvm`: scripted answers
//! in order or by pattern, what happens when they run out or none matches,
//! a malformed file refused before the run, and a resumed run going on with
//! the next answer without the flag given again (the snapshot remembers the
//! file, the machine how many prompts it made).

use crate::common::{Fixture, Run, tissvm};

const TWO: &str = "TASK \"t\"\nSTEP \"ask\" {\n    PROMPT_AGENT \"First question\" INTO A\n    LOG \"1: ${A}\"\n    \
                   PROMPT_AGENT \"Second question\" INTO B\n    LOG \"2: ${B}\"\n}\n";

fn answers(fx: &Fixture, json: &str) -> String {
    let path = fx.path("answers.json");
    std::fs::write(&path, json).unwrap();
    path.to_str().unwrap().to_string()
}

fn logs(run: &Run) -> Vec<String> {
    let report = run.json();
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["logs"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()))
        .collect()
}

fn failure(run: &Run) -> (String, String) {
    let report = run.json();
    let f = &report["failure"];
    (f["kind"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string())
}

#[test]
fn two_prompts_get_the_scripted_answers_in_order() {
    let fx = Fixture::new();
    let file = answers(&fx, r#"["the first answer", "the second answer"]"#);
    let run = fx.run(TWO, &["--mock-answers", &file, "--output-format", "json"]);
    run.expect(0);
    assert_eq!(logs(&run), ["1: the first answer", "2: the second answer"]);
    assert_eq!(run.json()["cost"]["api_calls"], 2);

    // The same through TISS_MOCK_ANSWERS and through tiss.toml.
    let run = fx.run_env(TWO, &["--output-format", "json"], &[("TISS_MOCK_ANSWERS", &file)]);
    assert_eq!(logs(run.expect(0)), ["1: the first answer", "2: the second answer"]);
    std::fs::write(fx.path("tiss.toml"), "[provider]\nmock_answers = \"answers.json\"\n").unwrap();
    let run = fx.run(TWO, &["--output-format", "json"]);
    assert_eq!(logs(run.expect(0)), ["1: the first answer", "2: the second answer"]);
}

#[test]
fn running_out_of_answers_is_a_provider_error_naming_the_file_and_the_count() {
    let fx = Fixture::new();
    let file = answers(&fx, r#"["only one"]"#);
    let run = fx.run(TWO, &["--mock-answers", &file, "--output-format", "json"]);
    run.expect(1);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "provider_error");
    assert!(
        message.contains(&format!(
            "mock: --mock-answers `{file}` has 1 answer and this is the run's PROMPT_AGENT number 2"
        )),
        "{message}"
    );
}

#[test]
fn patterns_answer_by_the_query_and_a_miss_names_the_query_and_the_patterns() {
    let fx = Fixture::new();
    let file = answers(
        &fx,
        r#"[{"match": "^Second", "answer": "by pattern two"}, {"match": "(?i)FIRST", "answer": "by pattern one"}]"#,
    );
    let run = fx.run(TWO, &["--mock-answers", &file, "--output-format", "json"]);
    assert_eq!(logs(run.expect(0)), ["1: by pattern one", "2: by pattern two"]);

    let file = answers(&fx, r#"[{"match": "^Second", "answer": "x"}]"#);
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    TRY {\n        PROMPT_AGENT \"First question\" INTO A\n    } CATCH AS e \
                {\n        LOG \"${e.KIND}: ${e.MESSAGE}\"\n    }\n}\n";
    let run = fx.run(plan, &["--mock-answers", &file, "--output-format", "json"]);
    let log = &logs(run.expect(0))[0];
    assert!(log.starts_with("provider_error: mock: no pattern of --mock-answers"), "{log}");
    assert!(log.contains("matches the query `First question` (patterns: `^Second`)"), "{log}");
}

#[test]
fn a_malformed_file_is_refused_before_the_run_naming_file_line_and_column() {
    let fx = Fixture::new();
    let plan =
        "TASK \"t\"\nSTEP \"s\" {\n    WRITE \"touched\" <<TEXT\nx\nTEXT\n    PROMPT_AGENT \"q\" INTO A\n}\n";
    let file = answers(&fx, "[\n  \"fine\",\n  oops\n]\n");
    let run = fx.run(plan, &["--mock-answers", &file]);
    run.expect(2);
    // Named once, by its own flag (it used to read `tissvm: --provider: --mock-answers`).
    assert!(run.stderr.starts_with(&format!("tissvm: --mock-answers `{file}`")), "{}", run.stderr);
    assert!(run.stderr.contains("expected value at line 3 column 3"), "{}", run.stderr);
    assert!(!fx.ws().join("touched").exists(), "nothing ran");

    let file = answers(&fx, r#"[{"match": "[unclosed", "answer": "x"}]"#);
    let run = fx.run(plan, &["--mock-answers", &file]);
    assert!(
        run.expect(2).stderr.contains("entry 1: \"match\" `[unclosed` is not a valid regex"),
        "{}",
        run.stderr
    );

    let run = fx.run(plan, &["--mock-answers", fx.path("missing.json").to_str().unwrap()]);
    assert!(run.expect(2).stderr.starts_with("tissvm: cannot read --mock-answers"), "{}", run.stderr);
}

#[test]
fn a_resumed_run_goes_on_with_the_next_answer() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"ask\" {\n    PROMPT_AGENT \"First question\" INTO A\n    LOG \"1: ${A}\"\n    \
                PAUSE \"go on?\"\n    PROMPT_AGENT \"Second question\" INTO B\n    LOG \"2: ${B}\"\n}\n";
    let file = answers(&fx, r#"["before the pause", "after the pause"]"#);
    let snaps = fx.path("snaps");
    let run = fx.run(plan, &["--mock-answers", &file, "--snapshot-dir", snaps.to_str().unwrap()]);
    run.expect(3);
    assert!(run.stdout.contains("1: before the pause"), "{}", run.stdout);
    let snap = std::fs::read_dir(&snaps).unwrap().next().unwrap().unwrap().path();

    // From another directory, without the flag: the snapshot remembers the file by its absolute path.
    let elsewhere = fx.ws();
    let resumed = tissvm(&elsewhere, &["resume", snap.to_str().unwrap(), "--answer", "continue"], &[]);
    resumed.expect(0);
    assert!(resumed.stdout.contains("LOG 2: after the pause"), "{}", resumed.stdout);
    assert!(resumed.stderr.contains(&format!("--mock-answers {file}")), "{}", resumed.stderr);
}
