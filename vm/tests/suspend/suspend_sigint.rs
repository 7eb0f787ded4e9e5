//! Ctrl-C (SIGINT) during `tissvm run` (book: reference/snapshots.md): the first lets the RUN
//! in flight finish and suspends at the next instruction boundary; the
//! second kills the RUN's process group and suspends before it. Either way
//! a snapshot is written (exit 3), and `tissvm resume` completes the plan
//! without running any completed command again (effects are counted with
//! appends to files).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

fn tissvm(args: &[&str], cwd: &Path) -> Command {
    let mut command = crate::common::command();
    command.args(args).current_dir(cwd).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

fn wait_for(path: &Path, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("tissvm exited ({status}) before {} appeared", path.display());
        }
        assert!(Instant::now() < deadline, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn interrupt(child: &Child) {
    signal(child, libc::SIGINT);
}

fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: plain syscall on our own child.
    let r = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(r, 0, "kill -{signal}");
}

struct Finished {
    code: Option<i32>,
    report: Json,
    stderr: String,
}

fn finish(child: Child) -> Finished {
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("no JSON report ({e}): {}\n{stderr}", String::from_utf8_lossy(&out.stdout))
    });
    Finished { code: out.status.code(), report, stderr }
}

fn read(ws: &Path, name: &str) -> String {
    std::fs::read_to_string(ws.join(name)).unwrap_or_default()
}

fn setup(plan: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let plan_path = root.path().join("plan.tiss");
    std::fs::write(&plan_path, plan).unwrap();
    (root, ws, plan_path)
}

const LONG_RUN: &str = r#"TASK "Interrupted"
STEP "work" {
    RUN "echo one >> effects.txt"
    RUN "touch started; sleep 1; echo two >> effects.txt"
    RUN "echo hello"
    RUN "echo three >> effects.txt"
}
STEP "check" {
    ASSERT LAST_RUN.STDOUT == ""
    APPEND "effects.txt" FROM "four"
}
"#;

#[test]
fn the_first_ctrl_c_lets_the_run_finish_and_suspends() {
    let (root, ws, plan) = setup(LONG_RUN);
    let ws_arg = ws.to_str().unwrap();
    let mut child =
        tissvm(&["run", plan.to_str().unwrap(), "--workdir", ws_arg, "--output-format", "json"], root.path())
            .spawn()
            .unwrap();
    wait_for(&ws.join("started"), &mut child);
    interrupt(&child);
    let done = finish(child);
    assert_eq!(done.code, Some(3), "{}", done.stderr);
    assert_eq!(done.report["status"], "suspended");
    assert_eq!(done.report["cost"]["run_count"], 2, "the RUN in flight finished and counts");
    assert_eq!(read(&ws, "effects.txt"), "one\ntwo\n", "the RUN in flight was let finish");
    let snap = done.report["snapshot"].as_str().expect("a snapshot").to_string();
    assert!(Path::new(&snap).is_file());
    assert!(done.stderr.contains("interrupted"), "{}", done.stderr);
    assert!(done.stderr.contains(&format!("  tissvm resume {snap}\n")), "{}", done.stderr);
    assert!(done.stderr.contains("suspended at line 5 (interrupted)"), "{}", done.stderr);

    // An interrupted run waits for no answer.
    let refused = tissvm(&["resume", &snap, "--answer", "continue"], root.path()).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not waiting for an answer"));

    let out = tissvm(&["resume", &snap, "--output-format", "json"], root.path()).output().unwrap();
    let report: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{report:#}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&ws, "effects.txt"), "one\ntwo\nthree\nfour", "no command ran twice");
    assert_eq!(report["cost"]["run_count"], 4);
}

#[test]
fn the_second_ctrl_c_kills_the_run_which_runs_again_on_resume() {
    let plan = r#"TASK "Killed"
STEP "work" {
    RUN "echo one >> effects.txt"
    RUN "echo attempt >> attempts.txt; if [ -f started ]; then exit 0; fi; echo $$ > shell.pid; touch started; sleep 30"
    ASSERT LAST_RUN.EXIT_CODE == 0
    RUN "echo two >> effects.txt"
}
"#;
    let (root, ws, plan) = setup(plan);
    let ws_arg = ws.to_str().unwrap();
    let started = Instant::now();
    let mut child =
        tissvm(&["run", plan.to_str().unwrap(), "--workdir", ws_arg, "--output-format", "json"], root.path())
            .spawn()
            .unwrap();
    wait_for(&ws.join("started"), &mut child);
    interrupt(&child);
    std::thread::sleep(Duration::from_millis(300));
    interrupt(&child);
    let done = finish(child);
    assert!(started.elapsed() < Duration::from_secs(20), "the sleep was not killed: {:?}", started.elapsed());
    assert_eq!(done.code, Some(3), "{}", done.stderr);
    assert!(done.stderr.contains("was killed"), "{}", done.stderr);
    assert_eq!(done.report["cost"]["run_count"], 1, "the killed RUN did not complete");
    let pid: i32 = read(&ws, "shell.pid").trim().parse().unwrap();
    // SAFETY: signal 0 only checks; the shell was our grandchild, now reaped.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    assert!(!alive, "the killed RUN's shell {pid} is still running");
    let snap = done.report["snapshot"].as_str().unwrap().to_string();

    let out = tissvm(&["resume", &snap, "--output-format", "json"], root.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&ws, "effects.txt"), "one\ntwo\n", "completed work is neither lost nor repeated");
    assert_eq!(read(&ws, "attempts.txt"), "attempt\nattempt\n", "the killed RUN ran again");
}

#[test]
fn ctrl_c_at_a_boundary_with_text_output() {
    let plan = "TASK \"Steps\"\nSTEP \"a\" {\n    RUN \"touch started; sleep 0.5\"\n}\nSTEP \"b\" {\n    RUN \"echo b >> effects.txt\"\n}\n";
    let (root, ws, plan) = setup(plan);
    let mut child = tissvm(&["run", plan.to_str().unwrap(), "--workdir", ws.to_str().unwrap()], root.path())
        .spawn()
        .unwrap();
    wait_for(&ws.join("started"), &mut child);
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("suspended: Steps"), "{stdout}");
    assert!(stdout.contains("snapshot: "), "{stdout}");
    assert_eq!(read(&ws, "effects.txt"), "");
    let snaps: Vec<_> = std::fs::read_dir(ws.join(".tiss")).unwrap().collect();
    assert_eq!(snaps.len(), 1);
}

/// A scheduler's warning (SIGUSR1, Slurm's `--signal=B:USR1@60`) suspends
/// like one Ctrl-C: the RUN in flight finishes, then a snapshot, exit 3.
#[test]
fn sigusr1_lets_the_run_finish_and_suspends() {
    let (root, ws, plan) = setup(LONG_RUN);
    let ws_arg = ws.to_str().unwrap();
    let mut child =
        tissvm(&["run", plan.to_str().unwrap(), "--workdir", ws_arg, "--output-format", "json"], root.path())
            .spawn()
            .unwrap();
    wait_for(&ws.join("started"), &mut child);
    signal(&child, libc::SIGUSR1);
    let done = finish(child);
    assert_eq!(done.code, Some(3), "{}", done.stderr);
    assert_eq!(done.report["status"], "suspended");
    assert_eq!(read(&ws, "effects.txt"), "one\ntwo\n", "the RUN in flight was let finish");
    assert!(done.stderr.contains("SIGUSR1"), "{}", done.stderr);
    let snap = done.report["snapshot"].as_str().expect("a snapshot").to_string();
    let out = tissvm(&["resume", &snap, "--output-format", "json"], root.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&ws, "effects.txt"), "one\ntwo\nthree\nfour", "no command ran twice");
}

/// SIGTERM ("time is up") kills the RUN in flight with its process group
/// and suspends before it, however often it comes: a snapshot, exit 3, no
/// process of the RUN left, and the RUN runs again on resume.
#[test]
fn sigterm_kills_the_run_and_suspends() {
    let plan = r#"TASK "Terminated"
STEP "work" {
    RUN "echo one >> effects.txt"
    RUN "echo attempt >> attempts.txt; if [ -f started ]; then exit 0; fi; echo $$ > shell.pid; touch started; sleep 30"
    RUN "echo two >> effects.txt"
}
"#;
    let (root, ws, plan) = setup(plan);
    let started = Instant::now();
    let mut child = tissvm(
        &["run", plan.to_str().unwrap(), "--workdir", ws.to_str().unwrap(), "--output-format", "json"],
        root.path(),
    )
    .spawn()
    .unwrap();
    wait_for(&ws.join("started"), &mut child);
    signal(&child, libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(100));
    if let Ok(None) = child.try_wait() {
        signal(&child, libc::SIGTERM);
    }
    let done = finish(child);
    assert!(started.elapsed() < Duration::from_secs(20), "the sleep was not killed: {:?}", started.elapsed());
    assert_eq!(done.code, Some(3), "{}", done.stderr);
    assert!(done.stderr.contains("SIGTERM"), "{}", done.stderr);
    assert_eq!(done.report["cost"]["run_count"], 1, "the killed RUN did not complete");
    let pid: i32 = read(&ws, "shell.pid").trim().parse().unwrap();
    // SAFETY: signal 0 only checks.
    assert!(unsafe { libc::kill(pid, 0) } != 0, "the RUN's shell {pid} is still running");
    let snap = done.report["snapshot"].as_str().unwrap().to_string();
    let out = tissvm(&["resume", &snap, "--output-format", "json"], root.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&ws, "effects.txt"), "one\ntwo\n");
    assert_eq!(read(&ws, "attempts.txt"), "attempt\nattempt\n", "the killed RUN ran again");
}

/// A scheduler signals every process of a job at once (Slurm's requeue):
/// the RUN's command dies of the same SIGTERM as tissvm. That RUN did not
/// complete either: the run suspends before it, and it runs again on
/// resume, instead of its exit status 143 failing the plan.
#[test]
fn a_run_that_dies_of_the_jobs_sigterm_runs_again_on_resume() {
    let plan = r#"TASK "Job signalled"
STEP "work" {
    RUN "echo attempt >> attempts.txt; if [ -f started ]; then exit 0; fi; touch started; kill -TERM $PPID $$"
    ASSERT LAST_RUN.EXIT_CODE == 0
    RUN "echo done >> effects.txt"
}
"#;
    let (root, ws, plan) = setup(plan);
    let child = tissvm(
        &["run", plan.to_str().unwrap(), "--workdir", ws.to_str().unwrap(), "--output-format", "json"],
        root.path(),
    )
    .spawn()
    .unwrap();
    let done = finish(child);
    assert_eq!(done.code, Some(3), "{}", done.stderr);
    assert_eq!(done.report["cost"]["run_count"], 0, "the RUN that died of the signal did not complete");
    assert!(done.stderr.contains("runs again on resume"), "{}", done.stderr);
    let snap = done.report["snapshot"].as_str().unwrap().to_string();
    let out = tissvm(&["resume", &snap, "--output-format", "json"], root.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&ws, "attempts.txt"), "attempt\nattempt\n", "the RUN ran again");
    assert_eq!(read(&ws, "effects.txt"), "done\n");
}
