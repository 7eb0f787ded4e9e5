//! `launch` with `replay`: a recorded run stepped through again from its
//! journal, nothing run or written; a changed plan stops where it diverges.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::client::Client;
use crate::{PLAN, Setup};

/// Runs the plan in the workspace with `args`, journaled, expecting exit
/// `code`; the journal, and what the run printed.
fn record_printing(setup: &Setup, args: &[&str], code: i32) -> (PathBuf, String) {
    let journal = setup.fixture.path("run.journal");
    let ws = setup.fixture.ws();
    let run = [
        setup.plan.to_str().unwrap(),
        "--workdir",
        ws.to_str().unwrap(),
        "--journal",
        journal.to_str().unwrap(),
    ];
    let recorded = setup.fixture.tissvm(&[&["run"][..], &run, args].concat());
    assert_eq!(recorded.code, Some(code), "{}", recorded.stderr);
    (journal, recorded.stdout)
}

/// [`record_printing`]'s journal.
fn record(setup: &Setup, args: &[&str], code: i32) -> PathBuf {
    record_printing(setup, args, code).0
}

/// The plan run until it suspends at its PAUSE, then resumed with
/// `continue` (and `resume_args`), both parts in one journal: the journal.
fn suspended_and_resumed(setup: &Setup, resume_args: &[&str]) -> PathBuf {
    let (journal, printed) = record_printing(setup, &["--non-interactive", "--output-format", "json"], 3);
    let report: serde_json::Value = serde_json::from_str(&printed).unwrap();
    let snapshot = report["snapshot"].as_str().unwrap();
    let resume = ["resume", snapshot, "--answer", "continue", "--journal", journal.to_str().unwrap()];
    let resumed = setup.fixture.tissvm(&[&resume[..], resume_args].concat());
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    assert!(resumed.stdout.contains("passed: debug me"), "{}", resumed.stdout);
    journal
}

/// A client replaying `journal` under `plan`, told to stop nowhere: the
/// caller reads how it ends.
fn replaying(setup: &Setup, plan: &Path, journal: &Path) -> Client {
    let mut dap = setup.client();
    dap.launch(json!({ "plan": plan, "replay": journal }));
    dap.ok("setExceptionBreakpoints", json!({ "filters": [] }));
    dap.ok("configurationDone", json!({}));
    dap
}

/// Renames the last `no_new_privs` of the journal's sandbox entries (the
/// resumed part's, when there are two) to `no_new_pride`, a mechanism no
/// tissvm has, and checksums its frame again.
fn rename_last_mechanism(journal: &Path) {
    let mut bytes = std::fs::read(journal).unwrap();
    // Frames after the 10-byte header: a length, a CRC-32, the payload.
    let mut frames = Vec::new();
    let mut at = 10;
    while at + 8 <= bytes.len() {
        let end = at + 8 + u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        frames.push((at, end));
        at = end;
    }
    let (start, end) = *frames
        .iter()
        .rev()
        .find(|&&(start, end)| bytes[start..end].windows(12).any(|w| w == b"no_new_privs"))
        .unwrap();
    let i = start + bytes[start..end].windows(12).position(|w| w == b"no_new_privs").unwrap();
    bytes[i..i + 12].copy_from_slice(b"no_new_pride");
    let crc = tisslang::codec::crc32::crc32(&bytes[start + 8..end]);
    bytes[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(journal, &bytes).unwrap();
}

#[test]
fn a_journal_replays_under_the_debugger_and_a_changed_plan_diverges() {
    let setup = Setup::new(PLAN);
    let answers = setup.fixture.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}]"#).unwrap();
    let journal = record(&setup, &["--answers", answers.to_str().unwrap()], 0);
    let ws = setup.fixture.ws();
    std::fs::remove_file(ws.join("name.txt")).unwrap();

    let mut dap = setup.client();
    dap.launch(json!({ "plan": setup.plan, "replay": journal, "stopOnEntry": true }));
    setup.breakpoints(&mut dap, json!([{ "line": 17 }]));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    let risk = dap.ok("evaluate", json!({ "expression": "t.risk", "context": "hover" }));
    assert_eq!(risk["result"], "\"low\"", "the recorded answer");
    dap.ok("stepBack", json!({ "threadId": 1 }));
    assert_eq!(dap.line(), 16);
    dap.ok("setExceptionBreakpoints", json!({ "filters": ["gate"] }));
    dap.ok("continue", json!({ "threadId": 1 }));
    dap.stopped();
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(
        dap.event("exited")["body"]["exitCode"],
        0,
        "the recorded gate answer replays: {}",
        dap.output
    );
    assert!(!ws.join("name.txt").exists(), "a replay writes nothing");
    assert!(dap.output.contains("HELLO"), "the recorded output is shown: {}", dap.output);
    assert_eq!(dap.finish(), 0);

    // The plan changed: the replay stops at the first effect that differs.
    let edited = setup.fixture.path("edited.tiss");
    std::fs::write(&edited, PLAN.replace("echo HELLO", "echo GOODBYE")).unwrap();
    let mut dap = replaying(&setup, &edited, &journal);
    assert_eq!(dap.event("exited")["body"]["exitCode"], 1);
    assert!(dap.output.contains("diverged") && dap.output.contains("GOODBYE"), "{}", dap.output);
    assert_eq!(dap.finish(), 0);
}

#[test]
fn a_run_its_policy_stopped_replays_to_the_same_stop() {
    let setup = Setup::new(PLAN);
    let policy = setup.fixture.path("policy.toml");
    std::fs::write(&policy, "[commands]\ndeny = [\"echo HELLO\"]\n").unwrap();
    let journal = record(&setup, &["--policy", policy.to_str().unwrap()], 5);

    // Held to the recorded policy (the journal's), the replay stops where the run did.
    let mut dap = replaying(&setup, &setup.plan, &journal);
    assert_eq!(dap.event("exited")["body"]["exitCode"], 5, "{}", dap.output);
    assert!(!dap.output.contains("diverged"), "{}", dap.output);
    assert_eq!(dap.finish(), 0);
}

/// A journal whose sandbox entry names a mechanism this tissvm does not
/// have is refused by the launch, naming it, as `tissvm replay` refuses it.
#[test]
fn a_journal_naming_an_unknown_mechanism_is_refused_at_launch() {
    let setup = Setup::new(PLAN);
    let answers = setup.fixture.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}]"#).unwrap();
    let journal =
        record(&setup, &["--answers", answers.to_str().unwrap(), "--sandbox-profile", "standard"], 0);
    rename_last_mechanism(&journal);

    let mut dap = setup.client();
    dap.ok("initialize", json!({ "adapterID": "tiss", "linesStartAt1": true, "columnsStartAt1": true }));
    let message = dap.refused("launch", json!({ "plan": setup.plan, "replay": journal }));
    assert!(message.contains("names `no_new_pride`, which is no sandbox mechanism"), "{message}");
}

/// A run suspended at a gate and resumed replays as one, as `tissvm replay`
/// replays it: the recorded suspension is not where the replay ends.
#[test]
fn a_suspended_and_resumed_run_replays_to_its_end() {
    let setup = Setup::new(PLAN);
    let journal = suspended_and_resumed(&setup, &[]);
    let mut dap = replaying(&setup, &setup.plan, &journal);
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0, "{}", dap.output);
    assert!(dap.output.contains("done"), "the resumed part replays: {}", dap.output);
    assert_eq!(dap.finish(), 0);

    // Stopped in the resumed part, back across the gate and on again.
    let mut dap = setup.client();
    dap.launch(json!({ "plan": setup.plan, "replay": journal }));
    setup.breakpoints(&mut dap, json!([{ "line": 28 }]));
    dap.ok("setExceptionBreakpoints", json!({ "filters": [] }));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    assert_eq!(dap.line(), 28);
    dap.ok("stepBack", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "step");
    assert_eq!(dap.line(), 27, "{}", dap.output);
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "breakpoint", "{}", dap.output);
    assert_eq!(dap.line(), 28);
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0, "{}", dap.output);
    assert_eq!(dap.finish(), 0);
}

/// A run suspended at a gate and never resumed: its replay ends there, as
/// the run did (exit 3), rather than waiting for an answer the journal
/// cannot give.
#[test]
fn a_suspended_run_replays_to_its_suspension() {
    let setup = Setup::new(PLAN);
    let journal = record(&setup, &["--non-interactive"], 3);
    let mut dap = replaying(&setup, &setup.plan, &journal);
    assert_eq!(dap.event("exited")["body"]["exitCode"], 3, "{}", dap.output);
    assert!(dap.output.contains("suspended here and not resumed: its snapshot was"), "{}", dap.output);
    assert_eq!(dap.finish(), 0);
}

/// A journal cut short before a gate's answer (the recorded run was
/// killed there, say): the replay ends at the gate saying so, rather than
/// waiting for an answer or calling it a suspension.
#[test]
fn a_journal_cut_short_at_a_gate_ends_there_saying_so() {
    let setup = Setup::new(PLAN);
    let journal = record(&setup, &["--non-interactive"], 3);
    let bytes = std::fs::read(&journal).unwrap();
    // Inside the last frame, the run's end.
    std::fs::write(&journal, &bytes[..bytes.len() - 3]).unwrap();
    let mut dap = replaying(&setup, &setup.plan, &journal);
    assert_eq!(dap.event("exited")["body"]["exitCode"], 3, "{}", dap.output);
    assert!(dap.output.contains("the journal ends cut short at byte"), "{}", dap.output);
    assert!(!dap.output.contains("not resumed"), "{}", dap.output);
    // Cut short, as a crash cuts it: what is left is still the user's.
    assert!(!dap.output.contains("not signed"), "{}", dap.output);
    assert_eq!(dap.finish(), 0);
}

/// A resumed part whose sandbox entry names a mechanism this tissvm does
/// not have: the replay ends where that part starts, naming it, with
/// `tissvm replay`'s status for a journal it cannot replay (2).
#[test]
fn a_resumed_part_naming_an_unknown_mechanism_ends_the_replay_there() {
    let setup = Setup::new(PLAN);
    let journal = suspended_and_resumed(&setup, &["--sandbox-profile", "standard"]);
    rename_last_mechanism(&journal);
    let mut dap = replaying(&setup, &setup.plan, &journal);
    assert_eq!(dap.event("exited")["body"]["exitCode"], 2, "{}", dap.output);
    assert!(
        dap.output.contains("the journal cannot be replayed: its sandbox entry names `no_new_pride`"),
        "{}",
        dap.output
    );
    assert!(dap.output.contains("HELLO") && !dap.output.contains("done"), "{}", dap.output);
    // Edited since the run: the console says from where it is not yours.
    assert!(dap.output.contains("run.journal` is not signed by your key from byte"), "{}", dap.output);
    assert_eq!(dap.finish(), 0);
}
