//! Suspension and resume through the real binary (book: reference/snapshots.md, cli/tissvm.md): every kind
//! of interaction suspended and answered with `tissvm resume`, `--answers`
//! files (good, wrong line, too few, wrong kind), snapshots that are
//! corrupt, truncated or for another plan (exit 2), and what carries across
//! a resume: effects exactly once, LAST_RUN, meters without the time spent
//! suspended, budgets, the workspace.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{Fixture, Run};
use serde_json::{Value as Json, json};
use tiss_vm::session::snapshot_key::KEY_FILE_VAR;

trait RunExt {
    fn snapshot(&self) -> String;
}

impl RunExt for Run {
    /// The snapshot a suspended run reported (JSON output).
    #[track_caller]
    fn snapshot(&self) -> String {
        let report = self.json();
        assert_eq!(report["status"], "suspended", "{report:#}\n{}", self.stderr);
        assert_eq!(report["exit_code"], 3);
        let path = report["snapshot"].as_str().expect("a snapshot path").to_string();
        assert!(Path::new(&path).is_file(), "{path} is missing");
        assert!(
            self.stderr.contains(&format!("tissvm resume {path}")),
            "the resume command names {path}:\n{}",
            self.stderr
        );
        path
    }
}

impl Fixture {
    fn snapshots(&self) -> Vec<String> {
        let mut names: Vec<String> = match std::fs::read_dir(self.ws().join(".tiss")) {
            Ok(dir) => dir.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect(),
            Err(_) => Vec::new(),
        };
        names.sort();
        names
    }
}

const PAUSE: &str = r#"TASK "Pause and go on"
STEP "first" {
    RUN "echo hello; echo a >> effects.txt"
    PAUSE "Look at effects.txt"
    ASSERT LAST_RUN.STDOUT CONTAINS "hello"
    RUN "echo b >> effects.txt"
}
STEP "second" {
    APPEND "effects.txt" FROM "c"
}
"#;

#[test]
fn a_pause_suspends_and_resume_continues_exactly_where_it_stood() {
    let fx = Fixture::new();
    let run = fx.run_json(PAUSE, &[]);
    run.expect(3);
    let snap = run.snapshot();
    assert!(snap.ends_with("ws/.tiss/pause-and-go-on-1.snap"), "{snap}");
    assert!(
        run.stderr.contains("suspended at line 4, waiting for an answer to PAUSE \"Look at effects.txt\"")
    );
    assert!(run.stderr.contains(&format!("tissvm resume {snap} --answer continue\n")), "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["steps"][0]["status"], "not_run");
    assert_eq!(report["cost"]["run_count"], 1);
    assert_eq!(fx.read("effects.txt"), "a\n");

    let done = fx.resume(&snap, &["--answer", "continue"]);
    done.expect(0);
    let report = done.json();
    assert_eq!(report["status"], "passed");
    assert_eq!(report["snapshot"], Json::Null);
    assert_eq!(report["cost"]["run_count"], 2, "meters continue");
    assert_eq!(report["steps"][0]["status"], "passed");
    assert_eq!(report["steps"][1]["status"], "passed");
    assert_eq!(fx.read("effects.txt"), "a\nb\nc", "nothing before the snapshot repeated, nothing skipped");
    assert_eq!(fx.snapshots(), ["pause-and-go-on-1.snap"]);
}

#[test]
fn text_output_names_the_snapshot_and_the_command() {
    let fx = Fixture::new();
    let plan = fx.write("plan.tiss", PAUSE);
    let ws = fx.ws();
    let run = fx.tissvm(&["run", &plan, "--workdir", ws.to_str().unwrap()]);
    run.expect(3);
    assert!(run.stdout.contains("suspended: Pause and go on"), "{}", run.stdout);
    assert!(run.stdout.contains("waiting at line 4 for an answer to PAUSE"), "{}", run.stdout);
    assert!(run.stdout.contains("snapshot: "), "{}", run.stdout);
    assert!(run.stderr.contains("--answer continue"), "{}", run.stderr);
}

const REVIEW: &str = r#"TASK "Review"
STEP "ask" {
    RUN "echo asked >> effects.txt"
    REQUEST_REVIEW "Ship it?" INTO r
    WRITE "review.txt" FROM "${r.APPROVED} ${r.COMMENT}"
}
"#;

#[test]
fn a_review_with_into_is_approved_or_rejected_with_a_comment() {
    for (answer, expected) in [("approve", "true looks good"), ("reject", "false not yet")] {
        let fx = Fixture::new();
        let run = fx.run_json(REVIEW, &[]);
        run.expect(3);
        let snap = run.snapshot();
        assert!(run.stderr.contains(&format!("tissvm resume {snap} --answer approve\n")), "{}", run.stderr);
        assert!(
            run.stderr.contains(&format!("tissvm resume {snap} --answer reject --comment '...'\n")),
            "{}",
            run.stderr
        );
        let comment = if answer == "approve" { "looks good" } else { "not yet" };
        fx.resume(&snap, &["--answer", answer, "--comment", comment]).expect(0);
        assert_eq!(fx.read("review.txt"), expected);
        assert_eq!(fx.read("effects.txt"), "asked\n");
    }
}

#[test]
fn a_review_without_into_fails_when_rejected() {
    let plan = "TASK \"Gate\"\nSTEP \"gate\" {\n    REQUEST_REVIEW \"Deploy?\"\n    WRITE \"deployed\" FROM \"yes\"\n}\n";
    let fx = Fixture::new();
    let snap = fx.run_json(plan, &[]).snapshot();
    let rejected = fx.resume(&snap, &["--answer", "reject", "--comment", "too risky"]);
    rejected.expect(1);
    let report = rejected.json();
    assert_eq!(report["failure"]["kind"], "review_rejected");
    assert!(report["failure"]["message"].as_str().unwrap().contains("too risky"), "{report:#}");
    assert_eq!(fx.read("deployed"), "");
    // The same snapshot, approved this time: it was resumed before, so only with --force.
    fx.resume(&snap, &["--answer", "approve"]).expect(2);
    fx.resume(&snap, &["--answer", "approve", "--force"]).expect(0);
    assert_eq!(fx.read("deployed"), "yes");
}

const CHOOSE: &str = r#"TASK "Pick"
STEP "pick" {
    CHOOSE "Which channel?" {
        OPTION "stable" { WRITE "channel.txt" FROM "stable" }
        OPTION "beta" { WRITE "channel.txt" FROM "beta" }
        OPTION "nightly" { WRITE "channel.txt" FROM "nightly" }
    }
}
"#;

/// A CHOOSE takes its option's number or its text (any case), with
/// `--answer` and in an answers file; a text no option has is refused
/// naming the options.
#[test]
fn a_choice_is_answered_by_option_number_or_text() {
    let fx = Fixture::new();
    let run = fx.run_json(CHOOSE, &[]);
    let snap = run.snapshot();
    for line in ["--answer 1  # stable\n", "--answer 2  # beta\n", "--answer 3  # nightly\n"] {
        assert!(run.stderr.contains(line), "{line:?} in:\n{}", run.stderr);
    }
    // Answers that do not fit a CHOOSE of three options are refused before anything runs.
    for bad in ["4", "0", "approve", "continue", "two"] {
        let refused = fx.resume(&snap, &["--answer", bad]);
        refused.expect(2);
        assert_eq!(refused.stdout, "");
        assert_eq!(fx.read("channel.txt"), "");
    }
    let refused = fx.resume(&snap, &["--answer", "approve"]);
    assert!(refused.stderr.contains("does not answer the CHOOSE at line 3"), "{}", refused.stderr);
    assert!(refused.stderr.contains("continue with one of:\n"), "{}", refused.stderr);
    assert_eq!(printed_commands(&refused.stderr).len(), 3, "{}", refused.stderr);
    let refused = fx.resume(&snap, &["--answer", "two"]);
    let options = r#"1 "stable", 2 "beta", 3 "nightly""#;
    assert!(
        refused.stderr.contains(&format!("no option `two`: the options are {options}")),
        "{}",
        refused.stderr
    );
    fx.resume(&snap, &["--answer", "Beta"]).expect(0);
    assert_eq!(fx.read("channel.txt"), "beta");
    assert_eq!(fx.snapshots().len(), 1, "refused resumes write no snapshot");
    // In an answers file, checked against the plan before anything runs.
    let fx = Fixture::new();
    let unknown = fx.write("unknown.json", r#"[{"answer": "weekly"}]"#);
    let run = fx.run_json(CHOOSE, &["--answers", &unknown]);
    run.expect(2);
    assert!(
        run.stderr.contains(&format!("no CHOOSE with an option `weekly` (line 3: {options})")),
        "{}",
        run.stderr
    );
    let named = fx.write("named.json", r#"[{"answer": "nightly", "line": 3}]"#);
    fx.run_json(CHOOSE, &["--answers", &named]).expect(0);
    assert_eq!(fx.read("channel.txt"), "nightly");
}

#[test]
fn resuming_without_an_answer_suspends_again_on_the_same_snapshot() {
    let fx = Fixture::new();
    let snap = fx.run_json(PAUSE, &[]).snapshot();
    let again = fx.resume(&snap, &[]);
    again.expect(3);
    assert_eq!(again.json()["snapshot"], snap.as_str(), "nothing ran: the same snapshot still holds");
    assert_eq!(fx.snapshots().len(), 1);
    assert_eq!(fx.read("effects.txt"), "a\n");
}

const THREE: &str = r#"TASK "Three questions"
STEP "ask" {
    RUN "echo start >> effects.txt"
    PAUSE "first"
    REQUEST_REVIEW "second" INTO r
    CHOOSE "third" {
        OPTION "x" { WRITE "choice.txt" FROM "x ${r.COMMENT}" }
        OPTION "y" { WRITE "choice.txt" FROM "y ${r.COMMENT}" }
    }
    RUN "echo end >> effects.txt"
}
"#;

#[test]
fn an_answers_file_answers_every_interaction_in_order() {
    let fx = Fixture::new();
    let answers = fx.write(
        "answers.json",
        r#"[{"answer": "continue", "line": 4}, {"answer": "approve", "comment": "ok", "line": 5}, {"answer": "2"}]"#,
    );
    let log = fx.path("log.jsonl");
    let run = fx.run_json(THREE, &["--answers", &answers, "--log-file", log.to_str().unwrap()]);
    run.expect(0);
    assert_eq!(fx.read("choice.txt"), "y ok");
    assert_eq!(fx.read("effects.txt"), "start\nend\n");
    assert!(fx.snapshots().is_empty(), "a run that did not suspend writes no snapshot");
    let log = std::fs::read_to_string(log).unwrap();
    let answered: Vec<Json> = log
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap())
        .filter(|e| e["event"] == "answer")
        .collect();
    let outcomes: Vec<&str> = answered.iter().map(|e| e["outcome"].as_str().unwrap()).collect();
    assert_eq!(outcomes, ["continue", "approved", "option 2"]);
    assert_eq!(answered[1]["comment"], "ok");
    // Each names the step it was asked in, as every other event does (it
    // was `null`).
    for answer in &answered {
        assert_eq!(answer["step"], "ask", "{answer}");
    }
}

/// An answer given when a suspended run resumes, in another process, is
/// logged in the step the question was asked in, too.
#[test]
fn an_answer_given_at_resume_names_its_step() {
    let fx = Fixture::new();
    let snap = fx.run_json(PAUSE, &[]).snapshot();
    let log = fx.path("resumed.jsonl");
    fx.resume(&snap, &["--answer", "continue", "--log-file", log.to_str().unwrap()]).expect(0);
    let log = std::fs::read_to_string(log).unwrap();
    let answer = log
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap())
        .find(|e| e["event"] == "answer")
        .unwrap_or_else(|| panic!("no answer event in:\n{log}"));
    assert_eq!((&answer["step"], &answer["outcome"]), (&json!("first"), &json!("continue")), "{answer}");
}

/// A missing answers file is named once, after its flag, as a malformed
/// one is (it read `--answers cannot read the answers file …`).
#[test]
fn a_missing_answers_file_is_named_after_its_flag() {
    let fx = Fixture::new();
    let missing = fx.path("missing.json");
    let run = fx.run(THREE, &["--answers", missing.to_str().unwrap()]);
    run.expect(2);
    let first = run.stderr.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!("tissvm: --answers {}: cannot read it: No such file or directory", missing.display())
    );
    assert!(!fx.ws().join("effects.txt").exists(), "nothing ran");
}

#[test]
fn too_few_answers_suspend_and_the_count_continues_across_resume() {
    let fx = Fixture::new();
    let one = fx.write("answers.json", r#"[{"answer": "continue"}]"#);
    let run = fx.run_json(THREE, &["--answers", &one]);
    run.expect(3);
    let snap = run.snapshot();
    assert!(run.stderr.contains("waiting for an answer to REQUEST_REVIEW \"second\""), "{}", run.stderr);
    assert!(run.stderr.contains(&format!("tissvm resume {snap} --answers {one}\n")), "{}", run.stderr);
    // The same file, with more answers: its first entry was for the first
    // interaction, already answered, so the second entry answers the review.
    fx.write(
        "answers.json",
        r#"[{"answer": "continue", "line": 4}, {"answer": "reject", "comment": "meh", "line": 5}, {"answer": "1", "line": 6}]"#,
    );
    let done = fx.resume(&snap, &["--answers", &one]);
    done.expect(0);
    assert!(done.stderr.contains("going on from its entry 2"), "{}", done.stderr);
    assert_eq!(fx.read("choice.txt"), "x meh");
    assert_eq!(fx.read("effects.txt"), "start\nend\n");
    // `--answer` answers the waiting interaction; the same file goes on after it.
    let fx = Fixture::new();
    let one = fx.write("answers.json", r#"[{"answer": "continue"}]"#);
    let snap = fx.run_json(THREE, &["--answers", &one]).snapshot();
    fx.write("answers.json", r#"[{"answer": "continue"}, {"answer": "reject"}, {"answer": "2"}]"#);
    fx.resume(&snap, &["--answer", "approve", "--comment", "fine", "--answers", &one]).expect(0);
    assert_eq!(fx.read("choice.txt"), "y fine");
}

/// A file the run did not use is new answers: its first entry answers the
/// interaction the run waits for (or, after `--answer`, the next one).
#[test]
fn a_different_answers_file_on_resume_is_used_from_its_first_entry() {
    let fx = Fixture::new();
    let one = fx.write("one.json", r#"[{"answer": "continue"}]"#);
    let snap = fx.run_json(THREE, &["--answers", &one]).snapshot();
    let rest = fx.write(
        "rest.json",
        r#"[{"answer": "reject", "comment": "meh", "line": 5}, {"answer": "1", "line": 6}]"#,
    );
    let done = fx.resume(&snap, &["--answers", &rest]);
    done.expect(0);
    assert!(done.stderr.contains("its first entry answers"), "{}", done.stderr);
    assert_eq!(fx.read("choice.txt"), "x meh");
    assert_eq!(fx.read("effects.txt"), "start\nend\n");
    // A one-entry file on a run that had none: used, not skipped.
    let fx = Fixture::new();
    let snap = fx.run_json(THREE, &[]).snapshot();
    let first = fx.write("first.json", r#"[{"answer": "continue", "line": 4}]"#);
    let run = fx.resume(&snap, &["--answers", &first]);
    run.expect(3);
    assert!(run.stderr.contains("waiting for an answer to REQUEST_REVIEW"), "{}", run.stderr);
    // With --answer first: the file's first entry answers the next interaction.
    let fx = Fixture::new();
    let snap = fx.run_json(THREE, &[]).snapshot();
    let next =
        fx.write("next.json", r#"[{"answer": "approve", "comment": "ok", "line": 5}, {"answer": "2"}]"#);
    fx.resume(&snap, &["--answer", "continue", "--answers", &next]).expect(0);
    assert_eq!(fx.read("choice.txt"), "y ok");
}

/// Resumed without `--answers`, a run that had an answers file says how to
/// go on with it rather than dropping it silently.
#[test]
fn resuming_without_the_answers_file_says_how_to_go_on_with_it() {
    let fx = Fixture::new();
    let one = fx.write("answers.json", r#"[{"answer": "continue"}]"#);
    let snap = fx.run_json(THREE, &["--answers", &one]).snapshot();
    let run = fx.resume(&snap, &[]);
    run.expect(3);
    assert!(
        run.stderr.contains(&format!("answered from `{one}`, whose entry 2 is next; it is not used without")),
        "{}",
        run.stderr
    );
}

#[test]
fn an_answer_for_another_line_is_refused_naming_both_lines() {
    // Statically wrong: no interaction at line 9. Nothing runs.
    let fx = Fixture::new();
    let bad = fx.write("bad.json", r#"[{"answer": "continue", "line": 9}]"#);
    let run = fx.run_json(THREE, &["--answers", &bad]);
    run.expect(2);
    assert!(run.stderr.contains("line 9") && run.stderr.contains("lines 4, 5, 6"), "{}", run.stderr);
    assert_eq!(fx.read("effects.txt"), "");
    assert_eq!(run.stdout, "");

    // An interaction's line, but not the one the run meets first.
    let plan = "TASK \"Two pauses\"\nSTEP \"s\" {\n    RUN \"echo start >> effects.txt\"\n    PAUSE \"one\"\n    PAUSE \"two\"\n    RUN \"echo end >> effects.txt\"\n}\n";
    let swapped =
        fx.write("swapped.json", r#"[{"answer": "continue", "line": 5}, {"answer": "continue", "line": 4}]"#);
    let run = fx.run_json(plan, &["--answers", &swapped]);
    run.expect(2);
    assert!(
        run.stderr.contains("entry 1 is for line 5, but the interaction it answers is the PAUSE at line 4"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "", "a usage error prints no report");
    assert_eq!(fx.read("effects.txt"), "start\n", "the run stopped before the interaction");
    // Work done before is not lost: the state is saved, and the right answers continue it.
    assert!(run.stderr.contains("its state is in"), "{}", run.stderr);
    let snap = fx.ws().join(".tiss/two-pauses-1.snap");
    let good =
        fx.write("good.json", r#"[{"answer": "continue", "line": 4}, {"answer": "continue", "line": 5}]"#);
    fx.resume(snap.to_str().unwrap(), &["--answers", &good]).expect(0);
    assert_eq!(fx.read("effects.txt"), "start\nend\n");
}

#[test]
fn an_answer_of_the_wrong_kind_is_refused() {
    let fx = Fixture::new();
    // `approve` answers the review, but the pause comes first.
    let wrong = fx.write("wrong.json", r#"[{"answer": "approve"}]"#);
    let run = fx.run_json(THREE, &["--answers", &wrong]);
    run.expect(2);
    assert!(run.stderr.contains("(`approve`) does not answer the PAUSE at line 4"), "{}", run.stderr);
    // An option number the plan's choices do not have.
    let wrong = fx.write(
        "wrong.json",
        r#"[{"answer": "continue"}, {"answer": "approve"}, {"answer": "3", "line": 6}]"#,
    );
    let run = fx.run_json(THREE, &["--answers", &wrong]);
    run.expect(2);
    assert!(run.stderr.contains("does not answer the CHOOSE at line 6"), "{}", run.stderr);
    // Malformed files: refused before anything runs.
    let fx = Fixture::new();
    for (text, says) in [
        ("{}", "expected a JSON array"),
        ("[{\"answer\": \"yes\"}]", "no CHOOSE with an option `yes` (line 6: 1 \"x\", 2 \"y\")"),
        ("[{\"answer\": \"continue\", \"note\": 1}]", "unknown key `note`"),
        ("[{\"answer\": \"3\"}]", "no CHOOSE with 3 options"),
    ] {
        let file = fx.write("bad.json", text);
        let run = fx.run_json(THREE, &["--answers", &file]);
        run.expect(2);
        assert!(run.stderr.contains(says), "{says}: {}", run.stderr);
    }
    assert_eq!(fx.read("effects.txt"), "", "refused files run nothing");
}

#[test]
fn corrupt_truncated_and_foreign_snapshots_are_refused() {
    let fx = Fixture::new();
    let snap = fx.run_json(PAUSE, &[]).snapshot();
    let bytes = std::fs::read(&snap).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "flipped",
            {
                let mut b = bytes.clone();
                let at = b.len() / 2;
                b[at] ^= 0x40;
                b
            },
            "checksum does not match",
        ),
        ("truncated", bytes[..bytes.len() - 10].to_vec(), "truncated TissLang snapshot"),
        ("header", bytes[..20].to_vec(), "truncated TissLang snapshot"),
        ("empty", Vec::new(), "the file is empty"),
        ("trailing", [bytes.clone(), b"x".to_vec()].concat(), "unexpected bytes after the payload"),
        (
            "version",
            {
                let mut b = bytes.clone();
                b[8] = 99;
                b
            },
            "format v99",
        ),
        ("text", b"notes\n".to_vec(), "not a TissLang snapshot (no snapshot magic number)"),
        ("plan", b"TASK \"x\"\n".to_vec(), "is a plan, not a snapshot; run it with `tissvm run"),
    ];
    for (name, content, says) in cases {
        let path = fx.path(&format!("{name}.snap"));
        std::fs::write(&path, content).unwrap();
        let run = fx.resume(path.to_str().unwrap(), &["--answer", "continue"]);
        run.expect(2);
        assert!(run.stderr.contains(says), "{name}: {}", run.stderr);
        let report = run.json();
        assert_eq!(report["status"], "invalid", "{name}: {report:#}");
        assert!(report["error"].as_str().unwrap().contains(says), "{name}: {report:#}");
    }
    let missing = fx.resume(fx.path("nope.snap").to_str().unwrap(), &[]);
    missing.expect(2);
    assert!(missing.stderr.contains("cannot read the snapshot"), "{}", missing.stderr);
    // A plan given as the snapshot: the command that runs it is named.
    let plan = fx.path("plan.tiss");
    let run = fx.resume(plan.to_str().unwrap(), &[]);
    run.expect(2);
    let name = plan.to_str().unwrap();
    let says = format!("`{name}` is a plan, not a snapshot; run it with `tissvm run {name}`");
    assert!(run.stderr.contains(&says), "{}", run.stderr);
    assert_eq!(fx.read("effects.txt"), "a\n", "nothing ran");
}

#[test]
fn resume_insists_on_the_plan_it_is_given() {
    let fx = Fixture::new();
    let snap = fx.run_json(PAUSE, &[]).snapshot();
    let inspect = |plan: &str| -> String {
        let run = fx.tissvm(&["inspect", plan, "--output-format", "json"]);
        run.expect(0);
        run.json()["hash"].as_str().unwrap().to_string()
    };
    let other = fx.write("other.tiss", &PAUSE.replace("echo b", "echo B"));
    let run = fx.resume(&snap, &["--plan", &other, "--answer", "continue"]);
    run.expect(2);
    let (ours, theirs) = (inspect(fx.path("plan.tiss").to_str().unwrap()), inspect(&other));
    assert_ne!(ours, theirs);
    assert!(run.stderr.contains(&ours) && run.stderr.contains(&theirs), "both hashes:\n{}", run.stderr);
    assert_eq!(fx.read("effects.txt"), "a\n");
    // The same code is accepted, whatever the source's name or trailing comments.
    let same = fx.write("same.tiss", &format!("{PAUSE}# a comment changes no code\n"));
    let run = fx.resume(&snap, &["--plan", &same, "--answer", "continue"]);
    run.expect(0);
    assert_eq!(fx.read("effects.txt"), "a\nb\nc");
}

#[test]
fn time_spent_suspended_does_not_count() {
    // Suspended 5 s, far longer than the run itself takes on a loaded machine.
    let plan = "TASK \"Timed\"\nSTEP \"s\" {\n    RUN \"sleep 0.3\"\n    PAUSE \"wait\"\n    RUN \"sleep 0.3\"\n    ASSERT COST.EXECUTION_TIME < 5s\n}\n";
    let fx = Fixture::new();
    let run = fx.run_json(plan, &[]);
    let snap = run.snapshot();
    let before = run.json()["cost"]["execution_time_ms"].as_u64().unwrap();
    assert!((300..5000).contains(&before), "{before}");
    std::thread::sleep(std::time::Duration::from_millis(5000));
    let done = fx.resume(&snap, &["--answer", "continue"]);
    done.expect(0);
    let after = done.json()["cost"]["execution_time_ms"].as_u64().unwrap();
    assert!(after >= before + 300, "{before} → {after}");
    assert!(after < 5000, "the 5 s suspended are not counted: {after}");
}

#[test]
fn the_workspace_is_remembered_and_can_be_overridden() {
    let fx = Fixture::new();
    let snap = fx.run_json(PAUSE, &[]).snapshot();
    // From elsewhere, the snapshot's own workspace is used.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = crate::common::command()
        .args(["resume", &snap, "--answer", "continue"])
        .current_dir(elsewhere.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fx.read("effects.txt"), "a\nb\nc");
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    // --workdir: a copy of the workspace, continued there (the original is untouched).
    let copy = fx.path("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::write(copy.join("effects.txt"), "a\n").unwrap();
    fx.resume(&snap, &["--answer", "continue", "--workdir", copy.to_str().unwrap(), "--force"]).expect(0);
    assert_eq!(std::fs::read_to_string(copy.join("effects.txt")).unwrap(), "a\nb\nc");
    assert_eq!(fx.read("effects.txt"), "a\nb\nc");
    // A workspace that is gone.
    let gone = Fixture::new();
    let snap = gone.run_json(PAUSE, &[]).snapshot();
    let moved = gone.path("moved.snap");
    std::fs::copy(&snap, &moved).unwrap();
    std::fs::remove_dir_all(gone.ws()).unwrap();
    let run = gone.resume(moved.to_str().unwrap(), &["--answer", "continue"]);
    run.expect(2);
    assert!(
        run.stderr.contains("workspace `") && run.stderr.contains("` is not a directory here"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--answer continue --workdir DIR\n"), "{}", run.stderr);
}

#[test]
fn snapshot_dir_and_budgets_on_resume() {
    let plan = "TASK \"Budgeted\"\nSET_BUDGET RUN_COUNT = 3\nSTEP \"s\" {\n    RUN \"echo 1 >> effects.txt\"\n    PAUSE \"half way\"\n    RUN \"echo 2 >> effects.txt\"\n    RUN \"echo 3 >> effects.txt\"\n}\n";
    let fx = Fixture::new();
    let dir = fx.path("snaps");
    let run = fx.run_json(plan, &["--snapshot-dir", dir.to_str().unwrap()]);
    let snap = run.snapshot();
    assert!(Path::new(&snap).starts_with(&dir), "{snap}");
    assert!(fx.snapshots().is_empty());
    // --budget on resume can lower a cap...
    let low = fx.resume(&snap, &["--answer", "continue", "--budget", "RUN_COUNT=2"]);
    low.expect(4);
    assert_eq!(low.json()["failure"]["kind"], "budget_exceeded");
    assert_eq!(fx.read("effects.txt"), "1\n2\n");
    // ...but not raise one (without --raise-budget): the plan's cap of 3 stands.
    std::fs::write(fx.ws().join("effects.txt"), "1\n").unwrap();
    let high = fx.resume(&snap, &["--answer", "continue", "--budget", "RUN_COUNT=100", "--force"]);
    high.expect(0);
    assert_eq!(high.json()["cost"]["run_count"], 3);
    assert!(high.stderr.contains("does not raise the cap in force (3)"), "{}", high.stderr);
    let bad = fx.resume(&snap, &["--answer", "continue", "--budget", "RUNS=1", "--force"]);
    bad.expect(2);
    assert!(bad.stderr.contains("`RUNS` is not a cost dimension"), "{}", bad.stderr);
}

#[test]
fn resume_help_and_usage() {
    let fx = Fixture::new();
    let help = fx.tissvm(&["resume", "--help"]);
    help.expect(0);
    for flag in
        ["--plan", "--answer", "--comment", "--answers", "--workdir", "--snapshot-dir", "--output-format"]
    {
        assert!(help.stdout.contains(flag), "{flag} in:\n{}", help.stdout);
    }
    let snap = fx.run_json(PAUSE, &[]).snapshot();
    // --comment needs --answer.
    fx.resume(&snap, &["--comment", "x"]).expect(2);
    // SNAPSHOT is required.
    fx.tissvm(&["resume"]).expect(2);
}

/// The commands printed after "continue with", one per line.
fn printed_commands(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("  tissvm resume "))
        .map(|rest| format!("tissvm resume {rest}"))
        .collect()
}

/// Each command a suspended run prints can be pasted into a shell as it
/// stands, even with a quote and a space in the snapshot's path: one per
/// answer the interaction takes, and each continues the run.
#[test]
fn every_printed_resume_command_works_when_pasted() {
    let cases: [(&str, &[&str], &[&str]); 3] = [
        (PAUSE, &["--answer continue"], &["a\nb\nc"]),
        (REVIEW, &["--answer approve", "--answer reject --comment '...'"], &["true ", "false ..."]),
        (
            CHOOSE,
            &["--answer 1  # stable", "--answer 2  # beta", "--answer 3  # nightly"],
            &["stable", "beta", "nightly"],
        ),
    ];
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_tissvm")).parent().unwrap().to_path_buf();
    for (plan, answers, results) in cases {
        let fx = Fixture::new();
        let dir = fx.path("it's my snaps");
        let run = fx.run_json(plan, &["--snapshot-dir", dir.to_str().unwrap()]);
        let snap = dir.join(std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().file_name());
        let quoted = format!("'{}'", snap.to_str().unwrap().replace('\'', "'\\''"));
        let commands = printed_commands(&run.stderr);
        let expected: Vec<String> = answers.iter().map(|a| format!("tissvm resume {quoted} {a}")).collect();
        assert_eq!(commands, expected, "{}", run.stderr);
        let original = std::fs::read(&snap).unwrap();
        let ws_files = |fx: &Fixture| (fx.read("effects.txt"), fx.read("review.txt"), fx.read("channel.txt"));
        let before = ws_files(&fx);
        for (command, result) in commands.iter().zip(results) {
            // Each from the state the run suspended in.
            std::fs::write(&snap, &original).unwrap();
            std::fs::write(fx.ws().join("effects.txt"), &before.0).unwrap();
            let out = Command::new("sh")
                .arg("-c")
                .arg(command)
                .env("PATH", format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default()))
                .env(KEY_FILE_VAR, crate::common::key_file())
                .current_dir(fx.root.path())
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{command}\n{}", String::from_utf8_lossy(&out.stderr));
            let after = ws_files(&fx);
            assert!([after.0, after.1, after.2].iter().any(|f| f == result), "{command}: no {result:?}");
        }
    }
}

/// A typed answer (book: reference/types.md) kept across a suspension: the snapshot holds
/// the validated value, the resumed process reads its fields, and its
/// strings are still tainted there (a RUN of one is refused under deny).
#[test]
fn a_typed_answer_survives_a_resume_with_its_taint() {
    let fx = Fixture::new();
    let answers = fx.write("answers.json", r#"["{\"env\": \"prod\", \"note\": \"x; rm -rf ~\", \"n\": 3}"]"#);
    let policy = fx.write("p.toml", "[taint]\nrun = \"deny\"\n");
    let plan = "TASK \"Typed across a resume\"
TYPE Plan = { env: \"staging\" | \"prod\", note: STRING, n: INT }
STEP \"ask\" {
    PROMPT_AGENT \"Plan it.\" INTO p AS Plan
    PAUSE \"Deploy ${p.env}?\"
    RUN \"echo ${p.env} ${p.n}\" TIMEOUT 5s
    ASSERT LAST_RUN.STDOUT == \"prod 3\\n\"
    LOG \"${p}\"
    RUN \"echo ${p.note}\" TIMEOUT 5s
}
";
    let run = fx.run_json(plan, &["--mock-answers", &answers, "--policy", &policy]);
    run.expect(3);
    let snap = run.snapshot();
    assert!(run.stderr.contains("PAUSE \"Deploy prod?\""), "{}", run.stderr);
    let done = fx.resume(&snap, &["--answer", "continue", "--policy", &policy]);
    done.expect(5);
    let report = done.json();
    assert_eq!(report["steps"][0]["logs"][0], r#"{"env":"prod","note":"x; rm -rf ~","n":3}"#, "{report:#}");
    assert_eq!(report["failure"]["kind"], "security_violation", "{report:#}");
    assert_eq!(report["failure"]["line"], 9, "{report:#}");
}
