//! The guards on resume (book: cli/tissvm.md), through the real binary: a snapshot is
//! resumed once (refused again, exit 2, naming what continued it, unless
//! `--force`); `tissvm resume` goes on with the run's options
//! (`--snapshot-dir`, `--log-file`, provider, sandbox profile,
//! `--env-allow`, the `strict` limits, budgets), a flag given again
//! overriding the remembered one; a budget or a limit on resume only
//! lowers a cap unless `--raise-budget`.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use crate::common::{Fixture, Run};
use tiss_vm::session::snapshot::{Continuation, read_snapshot};

impl Fixture {
    /// `tissvm run plan.tiss --workdir ws --output-format json ARGS`, in the
    /// fixture's root, with `env`.
    fn run_json_env(&self, plan: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.run_env(plan, &[&["--output-format", "json"][..], args].concat(), env)
    }
}

/// The snapshot a suspended run reported.
#[track_caller]
fn snapshot_of(run: &Run) -> String {
    run.expect(3);
    run.json()["snapshot"].as_str().expect("a snapshot").to_string()
}

fn mark(snap: &str) -> Option<Continuation> {
    read_snapshot(&std::fs::read(snap).unwrap()).expect("a valid snapshot").resumed
}

const TWO_PAUSES: &str = r#"TASK "Two pauses"
STEP "s" {
    RUN "echo a >> effects.txt"
    PAUSE "one"
    RUN "echo b >> effects.txt"
    PAUSE "two"
    RUN "echo c >> effects.txt"
}
"#;

#[test]
fn a_snapshot_is_resumed_once_unless_forced() {
    let fx = Fixture::new();
    let first = snapshot_of(&fx.run_json_env(TWO_PAUSES, &[], &[]));
    assert_eq!(mark(&first), None);
    let second = snapshot_of(&fx.resume(&first, &["--answer", "continue"]));
    assert_ne!(second, first);
    assert_eq!(fx.read("effects.txt"), "a\nb\n");
    let abs_second = std::path::absolute(&second).unwrap();
    assert_eq!(mark(&first), Some(Continuation::Snapshot(abs_second.clone())));

    // Again: refused before anything runs, naming the snapshot that continued it.
    let again = fx.resume(&first, &["--answer", "continue"]);
    again.expect(2);
    assert_eq!(fx.read("effects.txt"), "a\nb\n", "nothing ran twice");
    assert!(again.stderr.contains(&format!("`{first}` was resumed before")), "{}", again.stderr);
    assert!(
        again.stderr.contains(&format!("suspended again in `{}`", abs_second.display())),
        "{}",
        again.stderr
    );
    assert!(again.stderr.contains(&format!("tissvm resume {}", abs_second.display())), "{}", again.stderr);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert_eq!(again.json()["status"], "invalid");

    // The one that continued it runs to the end, and records that.
    fx.resume(&second, &["--answer", "continue"]).expect(0);
    assert_eq!(fx.read("effects.txt"), "a\nb\nc\n");
    assert_eq!(mark(&second), Some(Continuation::Ended("passed".into())));
    let again = fx.resume(&second, &["--answer", "continue"]);
    again.expect(2);
    assert!(again.stderr.contains("ended: passed"), "{}", again.stderr);

    // --force resumes it anyway: its effects run again.
    fx.resume(&second, &["--answer", "continue", "--force"]).expect(0);
    assert_eq!(fx.read("effects.txt"), "a\nb\nc\nc\n");
    let snapshots = tiss_test_support::listing(&fx.ws().join(".tiss"));
    assert!(snapshots.iter().all(|f| !f.ends_with(".lock")), "a lock file was left: {snapshots:?}");
}

#[test]
fn a_resume_that_runs_nothing_leaves_the_snapshot_as_it_was() {
    let fx = Fixture::new();
    let snap = snapshot_of(&fx.run_json_env(TWO_PAUSES, &[], &[]));
    let before = std::fs::read(&snap).unwrap();
    // No answer: it suspends again at once on the same snapshot.
    let same = fx.resume(&snap, &[]);
    assert_eq!(snapshot_of(&same), snap);
    // A refused answer runs nothing either.
    fx.resume(&snap, &["--answer", "approve"]).expect(2);
    assert_eq!(std::fs::read(&snap).unwrap(), before, "unmarked, byte for byte");
    fx.resume(&snap, &["--answer", "continue"]).expect(3);
}

#[test]
fn a_resume_that_is_killed_leaves_its_mark() {
    let plan = "TASK \"Slow\"\nSTEP \"s\" {\n    PAUSE \"go\"\n    RUN \"touch started; sleep 5\"\n}\n";
    let fx = Fixture::new();
    let snap = snapshot_of(&fx.run_json_env(plan, &[], &[]));
    let mut child = crate::common::command()
        .args(["resume", &snap, "--answer", "continue"])
        .current_dir(fx.root.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !fx.ws().join("started").exists() {
        assert!(std::time::Instant::now() < deadline, "the resumed RUN never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(mark(&snap), Some(Continuation::Started));
    // The killed resume's lock died with it (its file is left, unlocked):
    // the next resume is refused by the mark, not held up by the lock, and
    // --force resumes it; the lock file is gone once they end.
    let lock = fx.root.path().join(format!("{snap}.lock"));
    assert!(lock.is_file(), "a SIGKILL leaves the lock file");
    let again = fx.resume(&snap, &["--answer", "continue"]);
    again.expect(2);
    assert!(again.stderr.contains("recorded no end"), "{}", again.stderr);
    std::fs::remove_file(fx.ws().join("started")).unwrap();
    fx.resume(&snap, &["--answer", "continue", "--force"]).expect(0);
    assert!(!lock.exists(), "the lock file was left");
}

/// A resume that is still running holds its snapshot: a second resume of it
/// is refused (exit 2) naming the process that holds it, even with --force
/// (which overrides the mark of a resume that ended, not one that runs).
#[test]
fn a_snapshot_being_resumed_is_refused_even_with_force() {
    let plan = "TASK \"Held\"\nSTEP \"s\" {\n    PAUSE \"go\"\n    RUN \"echo ran >> effects.txt; touch started; \
                while [ ! -f release ]; do sleep 0.05; done\"\n}\n";
    let fx = Fixture::new();
    let snap = snapshot_of(&fx.run_json_env(plan, &[], &[]));
    let first = crate::common::command()
        .args(["resume", &snap, "--answer", "continue"])
        .current_dir(fx.root.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !fx.ws().join("started").exists() {
        assert!(std::time::Instant::now() < deadline, "the resumed RUN never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for extra in [&[][..], &["--force"]] {
        let second = fx.resume(&snap, &[&["--answer", "continue"], extra].concat());
        second.expect(2);
        assert_eq!(second.json()["status"], "invalid");
        let holder = format!("is being resumed right now by another tissvm (pid {})", first.id());
        assert!(second.stderr.contains(&holder), "{extra:?}: {}", second.stderr);
        assert!(second.stderr.contains(&format!("{snap}.lock")), "{}", second.stderr);
    }
    std::fs::write(fx.ws().join("release"), "").unwrap();
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fx.read("effects.txt"), "ran\n", "the effects after the snapshot ran once");
}

/// A snapshot read from a pipe cannot be marked: refused unless --force.
#[test]
fn a_snapshot_that_cannot_be_marked_is_refused_unless_forced() {
    let fx = Fixture::new();
    let snap = snapshot_of(&fx.run_json_env(TWO_PAUSES, &[], &[]));
    let bytes = std::fs::read(&snap).unwrap();
    let through_pipe = |extra: &[&str]| {
        let mut child = crate::common::command()
            .args([&["resume", "/dev/stdin", "--answer", "continue"], extra].concat())
            .current_dir(fx.root.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(&bytes);
        let out = child.wait_with_output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, stderr) = through_pipe(&[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot record in `/dev/stdin` that it is resumed"), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(fx.read("effects.txt"), "a\n", "nothing ran");
    let (code, stderr) = through_pipe(&["--force"]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("warning: nothing records that `/dev/stdin` was resumed"), "{stderr}");
    assert_eq!(fx.read("effects.txt"), "a\nb\n");
}

const REMEMBER: &str = r#"TASK "Remember"
STEP "a" {
    RUN "echo $MY_VAR >> env.txt"
    PAUSE "one"
    RUN "echo $MY_VAR >> env.txt"
    PAUSE "two"
}
STEP "b" {
    RUN "echo $MY_VAR >> env.txt"
    RUN "echo $MY_VAR >> env.txt"
}
"#;

#[test]
fn resume_goes_on_with_the_runs_options() {
    let fx = Fixture::new();
    let env = [("MY_VAR", "passed")];
    let run = fx.run_json_env(
        REMEMBER,
        &[
            "--snapshot-dir",
            "snaps",
            "--log-file",
            "log.jsonl",
            "--env-allow",
            "MY_VAR",
            "--provider",
            "mock",
            "--sandbox-profile",
            "none",
            "--budget",
            "RUN_COUNT=3",
        ],
        &env,
    );
    let first = snapshot_of(&run);
    assert!(Path::new(&first).starts_with(fx.path("snaps")) || first.starts_with("snaps/"), "{first}");
    let remembered = read_snapshot(&std::fs::read(fx.path(&first)).unwrap()).unwrap().options;
    assert_eq!(remembered.snapshot_dir, Some(fx.path("snaps")), "absolute");
    assert_eq!(remembered.log_file, Some(fx.path("log.jsonl")));
    assert_eq!(
        (remembered.provider.provider.as_str(), remembered.sandbox_profile.as_str()),
        ("mock", "none")
    );
    assert_eq!(remembered.env_allow, ["MY_VAR"]);

    // From elsewhere, with no option: the same snapshot directory, log
    // file, allowed variable and budget.
    let elsewhere = tempfile::tempdir().unwrap();
    let first = fx.path(&first).to_str().unwrap().to_string();
    let second = snapshot_of(&fx.resume_in(elsewhere.path(), &first, &["--answer", "continue"], &env));
    assert!(Path::new(&second).starts_with(fx.path("snaps")), "{second}");
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0, "nothing written where it was run");
    assert_eq!(fx.read("env.txt"), "passed\npassed\n");
    let log = std::fs::read_to_string(fx.path("log.jsonl")).unwrap();
    assert_eq!(log.matches("\"event\":\"run\"").count(), 2, "{log}");
    let remembered_again = read_snapshot(&std::fs::read(&second).unwrap()).unwrap().options;
    assert_eq!(remembered_again, remembered, "the next snapshot remembers them too");
    // The remembered RUN_COUNT cap of 3 holds: step "b" needs two more RUNs
    // and only one is left, so it is refused before it starts.
    let last = fx.resume(&second, &["--answer", "continue"]);
    last.expect(4);
    assert_eq!(last.json()["failure"]["kind"], "budget_exceeded");
    assert_eq!(fx.read("env.txt"), "passed\npassed\n");
}

#[test]
fn a_flag_given_on_resume_overrides_the_remembered_one() {
    let fx = Fixture::new();
    let first = snapshot_of(&fx.run_json_env(
        REMEMBER,
        &["--snapshot-dir", "snaps", "--env-allow", "MY_VAR"],
        &[("MY_VAR", "x")],
    ));
    let other = fx.path("other snaps");
    let env = [("MY_VAR", "x"), ("OTHER", "y")];
    let run = fx.resume_in(
        fx.root.path(),
        fx.path(&first).to_str().unwrap(),
        &["--answer", "continue", "--snapshot-dir", other.to_str().unwrap(), "--env-allow", "OTHER"],
        &env,
    );
    let second = snapshot_of(&run);
    assert!(Path::new(&second).starts_with(&other), "{second}");
    assert_eq!(fx.read("env.txt"), "x\n\n", "--env-allow OTHER replaces MY_VAR");
    let remembered = read_snapshot(&std::fs::read(&second).unwrap()).unwrap().options;
    assert_eq!(remembered.snapshot_dir, Some(other));
    assert_eq!(remembered.env_allow, ["OTHER"]);
}

const BUDGETED: &str = r#"TASK "Budgeted"
SET_BUDGET RUN_COUNT = 2
STEP "first" {
    RUN "echo 1 >> effects.txt"
    PAUSE "half way"
}
STEP "second" {
    RUN "echo 2 >> effects.txt"
    RUN "echo 3 >> effects.txt"
}
"#;

#[test]
fn a_budget_on_resume_lowers_a_cap_and_raises_it_only_with_raise_budget() {
    let fx = Fixture::new();
    let snap = snapshot_of(&fx.run_json_env(BUDGETED, &[], &[]));
    let bytes = std::fs::read(&snap).unwrap();
    // Higher than the cap in force: not raised, and stderr says so.
    let kept = fx.resume(&snap, &["--answer", "continue", "--budget", "RUN_COUNT=5"]);
    kept.expect(4);
    assert!(
        kept.stderr.contains("--budget RUN_COUNT=5 does not raise the cap in force (2); add --raise-budget"),
        "{}",
        kept.stderr
    );
    assert_eq!(fx.read("effects.txt"), "1\n", "the second step does not fit the cap of 2");
    // With --raise-budget it is raised.
    std::fs::write(&snap, &bytes).unwrap();
    let raised = fx.resume(&snap, &["--answer", "continue", "--budget", "RUN_COUNT=5", "--raise-budget"]);
    raised.expect(0);
    assert_eq!(raised.json()["cost"]["run_count"], 3);
    assert_eq!(fx.read("effects.txt"), "1\n2\n3\n");
    // --raise-budget alone changes nothing; a lower budget still lowers.
    std::fs::write(&snap, &bytes).unwrap();
    let lowered = fx.resume(&snap, &["--answer", "continue", "--budget", "RUN_COUNT=1", "--raise-budget"]);
    lowered.expect(4);
    assert_eq!(lowered.json()["failure"]["cap"], 1);
}

#[test]
fn resume_help_says_what_it_remembers() {
    let fx = Fixture::new();
    let help = crate::common::tissvm(fx.root.path(), &["resume", "--help"], &[]);
    help.expect(0);
    for text in [
        "--force",
        "--raise-budget",
        "--snapshot-dir, --log-file, the provider settings (the key's variable by name, never its value), \
         --sandbox-profile, the command policy (its rules; only --policy or TISS_POLICY replaces it), --env-allow, \
         --max-procs, --max-memory, --log-max-output and the budgets in force",
        "a --budget, --max-procs or --max-memory only lowers a cap, and a weaker --sandbox-profile is refused, \
         unless --raise-budget",
        "A flag given here overrides the remembered one",
        "A snapshot is resumed once",
    ] {
        assert!(help.stdout.contains(text), "{text}:\n{}", help.stdout);
    }
}

/// On a terminal-style (text) resume, stderr names the run's options it
/// goes on with, and not those given again.
#[test]
fn a_text_resume_names_the_options_it_goes_on_with() {
    let fx = Fixture::new();
    let run = fx.run_json_env(
        REMEMBER,
        &["--snapshot-dir", "snaps", "--env-allow", "MY_VAR", "--log-file", "log"],
        &[],
    );
    let snap = fx.path(&snapshot_of(&run)).to_str().unwrap().to_string();
    let text = crate::common::tissvm(
        fx.root.path(),
        &["resume", &snap, "--answer", "continue", "--log-file", "other"],
        &[],
    );
    text.expect(3);
    let line =
        format!("tissvm: with the run's --snapshot-dir {} --env-allow MY_VAR\n", fx.path("snaps").display());
    assert!(text.stderr.contains(&line), "{}", text.stderr);
}

/// Two resumes of one snapshot started at the same instant: exactly one
/// runs the effects after it, the other is refused (exit 2), round after
/// round.
#[test]
fn of_two_concurrent_resumes_exactly_one_runs() {
    let fx = Fixture::new();
    let snap = snapshot_of(&fx.run_json_env(TWO_PAUSES, &[], &[]));
    let start = |copy: &str| {
        crate::common::command()
            .args(["resume", copy, "--answer", "continue", "--output-format", "json"])
            .current_dir(fx.root.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    for round in 1..=20 {
        let copy = fx.path(&format!("copy-{round}.snap"));
        std::fs::copy(&snap, &copy).unwrap();
        let copy = copy.to_str().unwrap();
        let (a, b) = (start(copy), start(copy));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let mut codes = [a.status.code(), b.status.code()];
        codes.sort();
        // The loser was refused by the winner's lock, or (if it came after
        // the winner's end) by its mark.
        let refused = if a.status.code() == Some(2) { &a.stderr } else { &b.stderr };
        let refused = String::from_utf8_lossy(refused);
        assert!(
            refused.contains("is being resumed right now") || refused.contains("was resumed before"),
            "round {round}: {refused}"
        );
        assert_eq!(
            codes,
            [Some(2), Some(3)],
            "round {round}: one resume runs (and suspends at the next PAUSE), the other is refused\n{}\n{}",
            String::from_utf8_lossy(&a.stderr),
            String::from_utf8_lossy(&b.stderr)
        );
        let expected = "a\n".to_string() + &"b\n".repeat(round);
        assert_eq!(fx.read("effects.txt"), expected, "round {round}: the effect after the snapshot ran once");
    }
}

/// Appends the `pids.max` of the cgroup a RUN runs in (v1 or v2) to `limits.txt`.
const PIDS_MAX: &str = r#"    RUN "for f in /sys/fs/cgroup/pids$(grep :pids: /proc/self/cgroup | cut -d: -f3)/pids.max /sys/fs/cgroup$(grep ^0:: /proc/self/cgroup | cut -d: -f3)/pids.max; do if [ -f $f ]; then cat $f >> limits.txt; break; fi; done""#;

/// The `strict` profile's limits (`--max-procs`, `--max-memory`) hold on
/// resume without being given again; given again they only lower, unless
/// `--raise-budget`. Needs `strict` (root, cgroups): skips loudly where it
/// is refused, fails under `CI=true`.
#[test]
fn resume_keeps_the_sandbox_limits_and_only_lowers_them() {
    let fx = Fixture::new();
    let probe = fx.run("TASK \"p\"\nSTEP \"s\" {\n    RUN \"true\"\n}\n", &["--sandbox-profile", "strict"]);
    if probe.code != Some(0) {
        probe.expect(5);
        let message = format!("the strict profile is refused on this machine: {}", probe.stderr.trim());
        tiss_test_support::skip::cannot(&message);
        return;
    }
    let plan = format!("TASK \"Limits\"\nSTEP \"s\" {{\n{PIDS_MAX}\n    PAUSE \"half\"\n{PIDS_MAX}\n}}\n");
    let args =
        ["--sandbox-profile", "strict", "--max-procs", "7", "--max-memory", "64M", "--log-max-output", "100"];
    let snap = snapshot_of(&fx.run_json_env(&plan, &args, &[]));
    let remembered = read_snapshot(&std::fs::read(&snap).unwrap()).unwrap().options;
    assert_eq!((remembered.limits.max_procs, remembered.limits.max_memory), (7, 64 << 20));
    assert_eq!(remembered.log_max_output, Some(100));
    let bytes = std::fs::read(&snap).unwrap();
    let limits = |expected: &str| {
        assert_eq!(fx.read("limits.txt"), expected);
        std::fs::remove_file(fx.ws().join("limits.txt")).unwrap();
        std::fs::write(&snap, &bytes).unwrap();
    };
    limits("7\n");

    // Nothing given: the run's limit.
    fx.resume(&snap, &["--answer", "continue"]).expect(0);
    limits("7\n");
    // Higher: not raised, and stderr says so.
    let kept = fx.resume(&snap, &["--answer", "continue", "--max-procs", "50"]);
    kept.expect(0);
    assert!(
        kept.stderr.contains("--max-procs 50 does not raise the run's limit (7); add --raise-budget"),
        "{}",
        kept.stderr
    );
    limits("7\n");
    // With --raise-budget it is raised; lower is always taken.
    fx.resume(&snap, &["--answer", "continue", "--max-procs", "50", "--raise-budget"]).expect(0);
    limits("50\n");
    fx.resume(&snap, &["--answer", "continue", "--max-procs", "5"]).expect(0);
    limits("5\n");
}

/// A weaker sandbox profile on resume (flag or `TISS_SANDBOX_PROFILE`) is
/// refused, before anything runs, unless `--raise-budget`; a stronger one
/// is taken.
#[test]
fn a_weaker_sandbox_profile_on_resume_is_refused_unless_raise_budget() {
    let fx = Fixture::new();
    let snap = snapshot_of(&fx.run_json_env(TWO_PAUSES, &[], &[]));
    let bytes = std::fs::read(&snap).unwrap();
    let flag = fx.resume(&snap, &["--answer", "continue", "--sandbox-profile", "none"]);
    flag.expect(2);
    assert!(
        flag.stderr.contains(
            "--sandbox-profile none would confine the resumed run less than the run's `standard` sandbox; resume \
             without it to keep `standard`, or add --raise-budget to loosen it"
        ),
        "{}",
        flag.stderr
    );
    let env =
        fx.resume_in(fx.root.path(), &snap, &["--answer", "continue"], &[("TISS_SANDBOX_PROFILE", "none")]);
    env.expect(2);
    assert!(env.stderr.contains("TISS_SANDBOX_PROFILE=none would confine"), "{}", env.stderr);
    assert_eq!(fx.read("effects.txt"), "a\n", "nothing ran");
    assert_eq!(mark(&snap), None, "not marked resumed");

    let loosened = fx.resume(&snap, &["--answer", "continue", "--sandbox-profile", "none", "--raise-budget"]);
    loosened.expect(3);
    assert_eq!(loosened.json()["sandbox"]["profile"], "none", "{}", loosened.stdout);
    std::fs::write(&snap, &bytes).unwrap();
    let next = snapshot_of(&fx.resume(&snap, &["--answer", "continue", "--sandbox-profile", "standard"]));
    assert_ne!(next, snap);
}
