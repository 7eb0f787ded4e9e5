//! Restart from a step (book: cookbook/journal.md) through `tissvm run --journal J
//! --from-failed | --from-step NAME | --from-line N`: the worked example of
//! docs/src/cookbook/journal.md run as written there (the earlier step is not run again,
//! its effects taken from the journal), a changed workspace or plan before
//! the restart point refused with nothing run, and the new journal complete.

use std::path::Path;

use tiss_vm::session::journal::Entry;

use crate::common::Fixture;

/// The ```tiss blocks of docs/src/cookbook/journal.md: the plan, then the plan fixed.
fn doc_plans() -> (String, String) {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/cookbook/journal.md"),
    )
    .unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match (&mut current, line) {
            (None, "```tiss") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    assert_eq!(blocks.len(), 2, "docs/src/cookbook/journal.md shows the plan and its fix");
    (blocks[0].clone(), blocks[1].clone())
}

#[test]
fn the_documented_fix_and_restart_works_as_written() {
    let (plan, fixed) = doc_plans();
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let failed = fx.run(&plan, &["--journal", j, "--output-format", "json"]);
    failed.expect(1);
    assert_eq!(failed.json()["failure"]["step"], "test");
    let built = std::fs::read_to_string(fx.ws().join("built.txt")).unwrap();

    let again = fx.path("run2.journal");
    let a = again.to_str().unwrap();
    let run =
        fx.run(&fixed, &["--journal", j, "--from-failed", "--new-journal", a, "--output-format", "json"]);
    run.expect(0);
    assert!(run.stderr.contains("restarting at step \"test\" (line 9)"), "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["steps"][0]["status"], "passed");
    assert_eq!(report["steps"][1]["status"], "passed");
    assert_eq!(std::fs::read_to_string(fx.ws().join("built.txt")).unwrap(), built, "the build ran again");
    // The new journal is complete: it replays to the restarted run's report.
    let replayed = fx.tissvm(&["replay", a, "--output-format", "json"]);
    replayed.expect(0);
    assert_eq!(replayed.stdout, run.stdout);

    // --from-step and --from-line name the same step.
    for (flag, value) in [("--from-step", "test"), ("--from-line", "9")] {
        let out = fx.path(&format!("run{flag}.journal"));
        let run = fx.run(&fixed, &["--journal", j, flag, value, "--new-journal", out.to_str().unwrap()]);
        run.expect(0);
        assert_eq!(std::fs::read_to_string(fx.ws().join("built.txt")).unwrap(), built);
    }
}

#[test]
fn a_restart_from_another_state_is_refused_with_nothing_run() {
    let (plan, fixed) = doc_plans();
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    fx.run(&plan, &["--journal", j]).expect(1);

    // A file the run wrote has changed since.
    let main = fx.ws().join("main.sh");
    std::fs::write(&main, "echo changed").unwrap();
    let run = fx.run(&fixed, &["--journal", j, "--from-failed"]);
    run.expect(2);
    assert!(run.stderr.contains("the workspace's `main.sh` has changed"), "{}", run.stderr);
    std::fs::remove_file(&main).unwrap();
    let run = fx.run(&fixed, &["--journal", j, "--from-failed"]);
    run.expect(2);
    assert!(run.stderr.contains("`main.sh` is gone"), "{}", run.stderr);
    std::fs::write(&main, "echo hello").unwrap();

    // The plan asks for another effect before the restart point.
    let changed = fixed.replace("sleep 0.2", "sleep 0.3");
    let run = fx.run(&changed, &["--journal", j, "--from-failed"]);
    run.expect(2);
    assert!(run.stderr.contains("before step \"test\""), "{}", run.stderr);
    assert!(run.stderr.contains("nothing ran"), "{}", run.stderr);

    // This run's cap stops the steps taken over: said so, not blamed on the recording.
    let run = fx.run(&fixed, &["--journal", j, "--from-failed", "--budget", "RUN_COUNT=0"]);
    run.expect(2);
    assert!(
        run.stderr.contains("before step \"test\", the steps taken over from the run")
            && run.stderr.contains("stop: budget_exceeded at line")
            && run.stderr.contains("under this run's --budget and policy; nothing ran"),
        "{}",
        run.stderr
    );

    // No such step.
    let run = fx.run(&fixed, &["--journal", j, "--from-step", "deploy"]);
    run.expect(2);
    assert!(
        run.stderr.contains("no top-level step \"deploy\" to restart at; its steps are \"build\", \"test\""),
        "{}",
        run.stderr
    );
    // A restart needs the journal.
    let run = fx.run(&fixed, &["--from-failed"]);
    run.expect(2);
}

/// A run suspended at a gate, resumed, and failed after it restarts from
/// its failed step as any failed run does: the gate's answer is the resumed
/// part's, taken from the journal with everything else before the step.
#[test]
fn a_run_suspended_resumed_and_failed_restarts_at_its_failed_step() {
    let fx = Fixture::new();
    // The first part's clock passes 300 ms; the resumed part's starts again
    // from zero, in a process of its own, and its 100 ms count in the step.
    let plan = "TASK \"t\"\nSTEP \"build\" {\n    WRITE \"built.txt\" FROM \"b\"\n    RUN \"sleep 0.3\" TIMEOUT 5s\n    \
                PAUSE \"Go on?\"\n    RUN \"sleep 0.1\" TIMEOUT 5s\n}\nSTEP \"test\" {\n    ASSERT FILE \"fixed.txt\" EXISTS\n}\n";
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let (_, snapshot) = crate::suspend(&fx, plan, j, &[]);
    let failed = fx.tissvm(&["resume", &snapshot, "--answer", "continue", "--journal", j]);
    failed.expect(1);

    std::fs::write(fx.ws().join("fixed.txt"), "").unwrap();
    let again = fx.path("run2.journal");
    let a = again.to_str().unwrap();
    let restarted =
        fx.run(plan, &["--journal", j, "--from-failed", "--new-journal", a, "--output-format", "json"]);
    restarted.expect(0);
    assert!(restarted.stderr.contains("restarting at step \"test\""), "{}", restarted.stderr);
    let build = &restarted.json()["steps"][0];
    assert!(build["duration_ms"].as_u64().unwrap() >= 400, "both parts' time: {build}");
    // The new journal is one run: its clock never goes back (the resumed
    // part's readings go on from the first part's), and it replays to the
    // restarted run's report.
    let readings: Vec<u64> = crate::recording::entries(&again)
        .into_iter()
        .filter_map(|e| match e {
            Entry::Clock { ms } => Some(ms),
            _ => None,
        })
        .collect();
    assert!(readings.windows(2).all(|w| w[0] <= w[1]), "{readings:?}");
    let replayed = fx.tissvm(&["replay", a, "--output-format", "json"]);
    replayed.expect(0);
    assert_eq!(replayed.stdout, restarted.stdout);
}
