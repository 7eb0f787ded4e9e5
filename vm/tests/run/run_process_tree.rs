//! No process of a RUN outlives the `tissvm` that started it (issue 16,
//! defect 6), through the real binary: SIGTERM and SIGUSR1 suspend the run
//! (snapshot, exit 3) and leave none of the RUN's processes; a SIGKILL of
//! tissvm, or of its whole process group, takes the RUN's tree with it (the
//! watchdog, `host/src/watchdog.rs`); `tissvm debug` ends on SIGTERM.
//!
//! A RUN's processes are found through /proc by a marker in their command
//! line: a `sleep` duration no other process has. Whatever a failed test
//! leaves is killed by its pid when the marker is dropped.

use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::marker::{DEADLINE, Marker};
use serde_json::Value as Json;

fn setup(plan: &str) -> (tempfile::TempDir, String) {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("ws")).unwrap();
    std::fs::write(root.path().join("plan.tiss"), plan).unwrap();
    (root, "plan.tiss".to_string())
}

fn tissvm(root: &Path, args: &[&str]) -> Command {
    let mut command = crate::common::command();
    command.args(args).current_dir(root).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

fn signal(pid: i32, signal: libc::c_int) {
    // SAFETY: plain syscall on a process (or group) this test started.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill({pid}, {signal})");
}

/// Waits for `child` to exit, killing it (by its pid) if it does not.
fn finish(mut child: Child, what: &str) -> Output {
    let deadline = Instant::now() + DEADLINE;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("{what}: tissvm did not exit\n{}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn report(out: &Output) -> Json {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e})\nstderr:\n{}", String::from_utf8_lossy(&out.stderr)))
}

/// A RUN of three processes besides its shell: two in the background.
fn tree_plan(marker: &Marker) -> String {
    let m = &marker.0;
    format!("TASK \"Tree\"\nSTEP \"s\" {{\n    RUN \"sleep {m} & sleep {m} & sleep {m}\"\n}}\n")
}

#[test]
fn a_sigkill_of_tissvm_takes_the_runs_whole_tree_with_it() {
    for group in [false, true] {
        let what = if group { "a SIGKILL of tissvm's process group" } else { "a SIGKILL of tissvm" };
        let marker = Marker::new();
        let (root, plan) = setup(&tree_plan(&marker));
        let mut command = tissvm(root.path(), &["run", &plan, "--workdir", "ws"]);
        command.process_group(0);
        let mut child = command.spawn().unwrap();
        marker.wait_for(3, &mut child);
        let pid = child.id() as i32;
        signal(if group { -pid } else { pid }, libc::SIGKILL);
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        marker.assert_gone(what);
    }
}

/// A watchdog that died (here: killed by a RUN) is replaced at the next
/// RUN, which it guards: its groups are registered in memory shared with
/// whichever watchdog is running, so tissvm's SIGKILL still ends the tree.
#[test]
fn a_killed_watchdog_is_replaced_and_still_ends_the_tree() {
    let marker = Marker::new();
    let m = &marker.0;
    // tissvm's children are the RUN's shell and the watchdog.
    let plan = format!(
        "TASK \"Tree\"\nSTEP \"s\" {{\n    RUN \"for p in $(cat /proc/$PPID/task/*/children); do [ $p = $$ ] || kill -9 $p; done\"\n    \
         RUN \"sleep {m} & sleep {m} & sleep {m}\"\n}}\n"
    );
    let (root, plan) = setup(&plan);
    let mut child = tissvm(root.path(), &["run", &plan, "--workdir", "ws"]).spawn().unwrap();
    marker.wait_for(3, &mut child);
    signal(child.id() as i32, libc::SIGKILL);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    marker.assert_gone("a SIGKILL of tissvm after its first watchdog was killed");
}

/// A RUN's group is registered with the watchdog by its first process
/// before it executes anything: a command that kills tissvm at once (as a
/// SIGTERM or SIGKILL can land the moment a RUN starts) still leaves
/// nothing behind. When tissvm registered the group itself after the
/// spawn, the command could run first, and under load it did.
#[test]
fn a_run_that_kills_tissvm_at_once_leaves_no_process_behind() {
    for round in 0..5 {
        let marker = Marker::new();
        let m = &marker.0;
        let plan = format!(
            "TASK \"Regicide\"\nSTEP \"s\" {{\n    RUN \"kill -KILL $PPID; sleep {m} & sleep {m}\"\n}}\n"
        );
        let (root, plan) = setup(&plan);
        let status = tissvm(root.path(), &["run", &plan, "--workdir", "ws"]).status().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL), "round {round}: the RUN killed tissvm");
        marker.assert_gone(&format!("round {round}: the RUN's SIGKILL of tissvm"));
    }
}

/// SIGTERM ("time is up"): the RUN in flight is killed with every process
/// of its tree, the run suspends before it (snapshot, exit 3), and it runs
/// again on resume.
#[test]
fn sigterm_suspends_and_leaves_no_process_of_the_run() {
    let marker = Marker::new();
    let m = &marker.0;
    let plan = format!(
        "TASK \"Terminated\"\nSTEP \"s\" {{\n    RUN \"echo attempt >> attempts.txt; [ -f done ] && exit 0; \
         touch done; sleep {m} & sleep {m} & sleep {m}\"\n}}\n"
    );
    let (root, plan) = setup(&plan);
    let mut child =
        tissvm(root.path(), &["run", &plan, "--workdir", "ws", "--output-format", "json"]).spawn().unwrap();
    marker.wait_for(3, &mut child);
    signal(child.id() as i32, libc::SIGTERM);
    let out = finish(child, "SIGTERM");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let report = report(&out);
    assert_eq!(report["status"], "suspended");
    assert_eq!(report["cost"]["run_count"], 0, "the killed RUN did not complete");
    let snap = report["snapshot"].as_str().expect("a snapshot").to_string();
    marker.assert_gone("SIGTERM");

    let resumed = tissvm(root.path(), &["resume", &snap]).output().unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", String::from_utf8_lossy(&resumed.stderr));
    let attempts = std::fs::read_to_string(root.path().join("ws/attempts.txt")).unwrap();
    assert_eq!(attempts, "attempt\nattempt\n", "the killed RUN ran again");
}

/// SIGUSR1 (the scheduler's warning): the RUN in flight finishes, its
/// background process is killed with its group as after any RUN, and the
/// run suspends before the next statement.
#[test]
fn sigusr1_suspends_after_the_run_and_leaves_no_process_of_it() {
    let marker = Marker::new();
    let m = &marker.0;
    let plan = format!(
        "TASK \"Warned\"\nSTEP \"s\" {{\n    RUN \"sleep {m} & while [ ! -f go ]; do sleep 0.05; done\"\n    \
         RUN \"echo after >> effects.txt\"\n}}\n"
    );
    let (root, plan) = setup(&plan);
    let mut child =
        tissvm(root.path(), &["run", &plan, "--workdir", "ws", "--output-format", "json"]).spawn().unwrap();
    marker.wait_for(2, &mut child);
    signal(child.id() as i32, libc::SIGUSR1);
    // The signal is pending before the RUN can end, so the run stops after it.
    std::fs::write(root.path().join("ws/go"), "").unwrap();
    let out = finish(child, "SIGUSR1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let report = report(&out);
    assert_eq!(report["cost"]["run_count"], 1, "the RUN in flight finished");
    assert!(report["snapshot"].as_str().is_some_and(|s| Path::new(&root.path().join(s)).is_file()));
    assert!(!root.path().join("ws/effects.txt").exists(), "the run stopped before the next RUN");
    marker.assert_gone("SIGUSR1");
}

/// `tissvm debug` is a person's session: Ctrl-C pauses it, but SIGTERM
/// ends it (it used to pause it too, and the session went on), and the RUN
/// in flight goes with it.
#[test]
fn sigterm_ends_a_debug_session_and_its_run() {
    let marker = Marker::new();
    let (root, plan) = setup(&tree_plan(&marker));
    let mut child =
        tissvm(root.path(), &["debug", &plan, "--workdir", "ws"]).stdin(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"continue\n").unwrap();
    marker.wait_for(3, &mut child);
    signal(child.id() as i32, libc::SIGTERM);
    let out = finish(child, "SIGTERM to tissvm debug");
    drop(stdin);
    assert_eq!(out.status.signal(), Some(libc::SIGTERM), "{}", String::from_utf8_lossy(&out.stderr));
    marker.assert_gone("SIGTERM to tissvm debug");
}
