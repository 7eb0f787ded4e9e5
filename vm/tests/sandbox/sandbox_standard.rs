//! The `standard` and `none` sandbox profiles (book: reference/sandbox.md), through the real
//! binary: what a RUN's processes see (no new privileges, rlimits, a session
//! of their own), that the whole tree dies at the RUN's end — 200 children
//! at a timeout, daemonised grandchildren (`setsid`, `nohup … &`) — and that
//! `none` hands over the caller's environment and says so. The isolation in
//! force is in the report.

use crate::common::Fixture;
use crate::common::marker::Marker;
use serde_json::Value as Json;

/// The mechanisms in the report's `sandbox.enforced`.
fn enforced(report: &Json) -> Vec<String> {
    report["sandbox"]["enforced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// A plan of one step with `body` in it.
fn plan(body: &str) -> String {
    format!("TASK \"Sandbox\"\nSTEP \"s\" {{\n{body}\n}}\n")
}

#[test]
fn standard_runs_without_new_privileges_core_dumps_or_a_shared_session() {
    let f = Fixture::new();
    // The shell is its session's leader: its pid is field 6 of its stat.
    let run = f.run(
        &plan(
            r#"    RUN "grep NoNewPrivs /proc/self/status; ulimit -c; ulimit -n; ulimit -f; awk '{print ($6 == $1) ? \"leader\" : \"member\"}' /proc/$$/stat"
    ASSERT LAST_RUN.STDOUT == "NoNewPrivs:\t1\n0\n8192\n16777216\nleader\n""#,
        ),
        &["--output-format", "json"],
    );
    run.expect(0);
    let report = run.json();
    assert_eq!(report["sandbox"]["profile"], "standard", "{report}");
    let enforced = enforced(&report);
    for mechanism in ["env_allowlist", "session", "no_new_privs", "rlimits", "subreaper"] {
        assert!(enforced.iter().any(|m| m == mechanism), "{mechanism} missing from {enforced:?}");
    }
    // The tree is ended by the cgroup kill, or else by the sweep; never neither.
    let kill = enforced.iter().any(|m| m == "cgroup_kill");
    assert!(kill || enforced.iter().any(|m| m == "orphan_sweep"), "{enforced:?}");
    assert_eq!(report["sandbox"]["missing"].as_array().unwrap().is_empty(), kill, "{report}");
}

/// A signal mask of `/proc/PID/status` (`SigBlk:\t0000…`) as bits.
fn signal_mask(status: &str, field: &str) -> u64 {
    let line =
        status.lines().find_map(|l| l.strip_prefix(field)).unwrap_or_else(|| panic!("{field} in {status}"));
    u64::from_str_radix(line.trim(), 16).unwrap()
}

#[test]
fn a_run_starts_with_no_signal_blocked_and_sigpipe_at_its_default() {
    // tissvm blocks every signal across the clone and ignores SIGPIPE (as
    // Rust programs do); the child must undo both before it execs, whether
    // it shares tissvm's memory (`standard`, `none`) or not.
    for profile in ["standard", "none"] {
        let f = Fixture::new();
        let run = f.run(
            &plan("    RUN \"grep ^Sig /proc/self/status\""),
            &["--sandbox-profile", profile, "--output-format", "json"],
        );
        run.expect(0);
        let status = run.json()["effects"][0]["stdout"].as_str().unwrap().to_string();
        assert_eq!(signal_mask(&status, "SigBlk:"), 0, "{profile}: {status}");
        let sigpipe = 1 << (libc::SIGPIPE - 1);
        assert_eq!(signal_mask(&status, "SigIgn:") & sigpipe, 0, "{profile}: {status}");
    }
}

#[test]
fn standard_is_the_default_and_text_output_names_it() {
    let f = Fixture::new();
    let run = f.run(&plan("    RUN \"true\""), &[]);
    run.expect(0);
    assert!(
        run.stdout.contains("\nsandbox: standard (enforced: env_allowlist, session, no_new_privs"),
        "{}",
        run.stdout
    );
}

#[test]
fn two_hundred_children_at_a_timeout_leave_nothing_behind() {
    let f = Fixture::new();
    let marker = Marker::new();
    let m = &marker.0;
    // Half of them detach into sessions of their own.
    let run = f.run(
        &plan(&format!(
            "    RUN \"for i in $(seq 100); do sleep {m} & setsid sleep {m} & done; echo started; wait\" TIMEOUT 3s\n    \
             ASSERT LAST_RUN.STDOUT == \"started\\n\""
        )),
        &["--output-format", "json"],
    );
    run.expect(0);
    assert_eq!(run.json()["steps"][0]["status"], "passed", "{}", run.stdout);
    // Gone when tissvm exits (`assert_gone` allows only for dying).
    marker.assert_gone("a timeout with 200 children");
}

#[test]
fn a_daemonised_grandchild_dies_with_its_run_not_with_tissvm() {
    let f = Fixture::new();
    let marker = Marker::new();
    let m = &marker.0;
    // The first RUN leaves at once; the second looks for what it left.
    let run = f.run(
        &plan(&format!(
            "    RUN \"setsid sh -c 'sleep {m}' >/dev/null 2>&1 < /dev/null & nohup sh -c '(sleep {m} &)' >/dev/null 2>&1 &\"\n    \
             RUN \"sleep 0.3; pgrep -f -c 'slee[p] {m}'\"\n    \
             ASSERT LAST_RUN.STDOUT == \"0\\n\""
        )),
        &[],
    );
    run.expect(0);
    marker.assert_gone("the run");
}

#[test]
fn none_hands_over_the_callers_environment_and_warns_once() {
    let f = Fixture::new();
    let body = "    RUN \"echo $CALLER_SECRET; ulimit -c; grep NoNewPrivs /proc/self/status\"\n    \
                RUN \"echo $CALLER_SECRET\"\n    \
                ASSERT LAST_RUN.STDOUT == \"leaked\\n\"";
    let run = f.run_env(
        &plan(body),
        &["--sandbox-profile", "none", "--output-format", "json"],
        &[("CALLER_SECRET", "leaked")],
    );
    run.expect(0);
    assert_eq!(run.stderr.matches("--sandbox-profile none").count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("whole environment and no limits"), "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["sandbox"], serde_json::json!({"profile": "none", "enforced": [], "missing": []}));
    // `standard` does not: the variable is not on the allowlist.
    let run = f.run_env(&plan(body), &[], &[("CALLER_SECRET", "leaked")]);
    run.expect(1);
    assert!(!run.stderr.contains("--sandbox-profile none"), "{}", run.stderr);
}

#[test]
fn the_profile_comes_from_tiss_sandbox_profile_unless_a_flag_names_one() {
    let f = Fixture::new();
    let run = f.run_env(
        &plan("    RUN \"true\""),
        &["--output-format", "json"],
        &[("TISS_SANDBOX_PROFILE", "none")],
    );
    run.expect(0);
    assert_eq!(run.json()["sandbox"]["profile"], "none");
    let run = f.run_env(
        &plan("    RUN \"true\""),
        &["--output-format", "json", "--sandbox-profile", "standard"],
        &[("TISS_SANDBOX_PROFILE", "none")],
    );
    run.expect(0);
    assert_eq!(run.json()["sandbox"]["profile"], "standard");
    let run = f.run_env(&plan("    RUN \"true\""), &[], &[("TISS_SANDBOX_PROFILE", "loose")]);
    run.expect(2);
    assert!(
        run.stderr.contains(
            "TISS_SANDBOX_PROFILE=`loose` is not a sandbox profile; use one of none, standard, strict"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn inspect_reports_the_isolation_runs_would_get() {
    let f = Fixture::new();
    let plan_path = f.write_plan(&plan("    RUN \"true\""));
    let run = f.tissvm(&["inspect", &plan_path, "--output-format", "json"]);
    run.expect(0);
    let report = run.json();
    assert_eq!(report["sandbox"]["profile"], "standard", "{report}");
    assert!(enforced(&report).iter().any(|m| m == "no_new_privs"), "{report}");
    let run =
        crate::common::tissvm(f.root.path(), &["inspect", &plan_path], &[("TISS_SANDBOX_PROFILE", "none")]);
    run.expect(0);
    assert!(run.stdout.ends_with("\nsandbox: none\n"), "{}", run.stdout);
}

#[test]
fn bad_limits_are_usage_errors_naming_the_flag() {
    let f = Fixture::new();
    let run = f.run(&plan("    RUN \"true\""), &["--max-memory", "4X"]);
    run.expect(2);
    assert!(
        run.stderr.contains("--max-memory `4X` is not a size; write e.g. `4G`, `512M`"),
        "{}",
        run.stderr
    );
    let run = f.run(&plan("    RUN \"true\""), &["--max-procs", "0"]);
    run.expect(2);
    assert!(run.stderr.contains("--max-procs 0 would let a RUN start nothing"), "{}", run.stderr);
    // Valid, but not what `standard` limits: said, not silently dropped.
    let run = f.run(&plan("    RUN \"true\""), &["--max-procs", "10"]);
    run.expect(0);
    assert!(
        run.stderr.contains("note: --max-procs and --max-memory are limits of the `strict` sandbox profile"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_second_ctrl_c_ends_the_runs_whole_tree_daemons_included() {
    let f = Fixture::new();
    let marker = Marker::new();
    let m = &marker.0;
    let plan_path = f.write_plan(&plan(&format!(
        "    RUN \"setsid sleep {m} & nohup sleep {m} >/dev/null 2>&1 & sleep {m}\""
    )));
    let mut child = crate::common::command()
        .args(["run", &plan_path, "--workdir", f.ws().to_str().unwrap(), "--output-format", "json"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    marker.wait_for(3, &mut child);
    for _ in 0..2 {
        // SAFETY: a signal to the tissvm this test started.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    marker.assert_gone("two Ctrl-C");
}

#[test]
fn without_cgroups_the_subreapers_sweep_ends_daemons() {
    // An unprivileged user cannot make cgroups here: `standard` falls back
    // to the sweep, and says so.
    if !std::path::Path::new("/usr/bin/setpriv").exists() || unsafe { libc::geteuid() } != 0 {
        let message = "the sweep test needs root and setpriv(1) to drop to an unprivileged user";
        tiss_test_support::skip::cannot(message);
        return;
    }
    let f = Fixture::new();
    let marker = Marker::new();
    let m = &marker.0;
    let plan_path = f.write_plan(&plan(&format!(
        "    RUN \"setsid sh -c 'sleep {m}' >/dev/null 2>&1 < /dev/null & nohup sh -c '(sleep {m} &)' >/dev/null 2>&1 &\"\n    \
         RUN \"sleep 0.3; pgrep -f -c 'slee[p] {m}'\"\n    \
         ASSERT LAST_RUN.STDOUT == \"0\\n\""
    )));
    for path in [f.root.path(), &f.ws()] {
        std::os::unix::fs::chown(path, Some(65534), Some(65534)).unwrap();
    }
    let out = std::process::Command::new("/usr/bin/setpriv")
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups", env!("CARGO_BIN_EXE_tissvm"), "run"])
        .args([&plan_path, "--workdir", f.ws().to_str().unwrap(), "--output-format", "json"])
        .env("TISS_SNAPSHOT_KEY_FILE", f.path("key"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let report: Json = serde_json::from_str(&stdout).unwrap();
    assert!(enforced(&report).iter().any(|m| m == "orphan_sweep"), "{report}");
    assert_eq!(report["sandbox"]["missing"], serde_json::json!(["cgroup_kill"]), "{report}");
    marker.assert_gone("the run");
}

#[test]
fn a_daemon_left_by_a_sigkilled_tissvm_is_ended_by_the_next_run() {
    let f = Fixture::new();
    let probe = f.run(&plan("    RUN \"true\""), &["--output-format", "json"]);
    probe.expect(0);
    if !enforced(&probe.json()).iter().any(|m| m == "cgroup_kill") {
        let message = "no cgroup v2 `cgroup.kill` here: a SIGKILLed tissvm's daemons are not findable";
        tiss_test_support::skip::cannot(message);
        return;
    }
    let marker = Marker::new();
    let m = &marker.0;
    // The daemon says when it has left the group (a kill before its
    // `setsid` would end it with the group).
    let plan_path = f.write_plan(&plan(&format!(
        "    RUN \"setsid sh -c 'touch daemon-ready; exec sleep {m}' & sleep {m}\""
    )));
    let mut child = crate::common::command()
        .args(["run", &plan_path, "--workdir", f.ws().to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    marker.wait_for(3, &mut child);
    let deadline = std::time::Instant::now() + crate::common::marker::DEADLINE;
    while !f.ws().join("daemon-ready").exists() {
        assert!(std::time::Instant::now() < deadline, "the daemon never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The watchdog ends the RUN's process group; the daemon left it.
    let deadline = std::time::Instant::now() + crate::common::marker::DEADLINE;
    while marker.processes().len() > 1 {
        assert!(std::time::Instant::now() < deadline, "the group outlived tissvm: {:?}", marker.processes());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The daemon is left, unless another test's run (tests run in
    // parallel) came first: any next run on this machine ends it.
    // The next run finds the dead tissvm's cgroup, and ends and removes it.
    f.run(&plan("    RUN \"true\""), &[]).expect(0);
    marker.assert_gone("the next run");
}

/// This test process's cgroup in the cgroup v2 tree (tissvm, its child,
/// makes its RUNs' cgroups beneath it), if a v2 tree is mounted.
pub(crate) fn own_v2_cgroup() -> Option<std::path::PathBuf> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?.to_string();
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mounts.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        if !right.starts_with("cgroup2 ") {
            return None;
        }
        let mut fields = left.split(' ').skip(3);
        let (root, mount) = (fields.next()?, fields.next()?);
        let rest = path.strip_prefix(root.trim_end_matches('/'))?;
        Some(std::path::Path::new(mount).join(rest.trim_start_matches('/')))
    })
}

/// Reads `tissvm debug`'s output up to a line containing `wanted` (its
/// prompt comes with the command echoed, once a command is read).
fn until_line(out: &mut impl std::io::BufRead, wanted: &str) -> String {
    let mut seen = String::new();
    while !seen.lines().any(|l| l.contains(wanted)) {
        assert!(out.read_line(&mut seen).unwrap() > 0, "tissvm debug ended before `{wanted}`: {seen}");
    }
    seen
}

#[test]
fn standard_makes_its_cgroup_at_the_first_run_and_not_before() {
    use std::io::Write;
    let f = Fixture::new();
    let probe = f.run(&plan("    RUN \"true\""), &["--output-format", "json"]);
    probe.expect(0);
    let cgroup = own_v2_cgroup();
    if cgroup.is_none() || !enforced(&probe.json()).iter().any(|m| m == "cgroup_kill") {
        let message = "no cgroup v2 `cgroup.kill` here: RUN's cgroup is not made";
        tiss_test_support::skip::cannot(message);
        return;
    }
    let cgroup = cgroup.unwrap();
    let plan_path = f.write_plan(&plan("    LOG \"before\"\n    RUN \"true\"\n    LOG \"after\""));
    let mut child = crate::common::command()
        .args(["debug", &plan_path, "--workdir", f.ws().to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mine = format!("tissvm-{}-", child.id());
    let made = || -> Vec<String> {
        std::fs::read_dir(&cgroup)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|name| name.starts_with(&mine))
            .collect()
    };
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    // The plan has started and the sandbox is prepared: still no cgroup.
    until_line(&mut stdout, "paused before the first statement");
    assert_eq!(made(), Vec::<String>::new(), "a cgroup before any RUN");
    stdin.write_all(b"break 5\ncontinue\n").unwrap();
    until_line(&mut stdout, "hit breakpoint 1 at line 5");
    // The first RUN made it; it is kept for the next RUN.
    assert_eq!(made().len(), 1, "the RUN's cgroup: {:?}", made());
    stdin.write_all(b"continue\n").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(made(), Vec::<String>::new(), "removed at the end");
}

#[test]
fn a_run_after_one_whose_leftovers_were_killed_starts_normally() {
    // The first RUN leaves a daemon, so its cgroup is killed at its end; a
    // child started in that cgroup again would be killed at birth (Linux
    // 6.18), so the next RUN must get a cgroup of its own.
    let f = Fixture::new();
    let run = f.run(
        &plan(
            "    RUN \"setsid sleep 30 & echo first\"\n    RUN \"echo second\"\n    ASSERT LAST_RUN.STDOUT == \"second\\n\"\n    RUN \"/bin/echo third\"\n    ASSERT LAST_RUN.EXIT_CODE == 0",
        ),
        &[],
    );
    run.expect(0);
}

/// book: reference/sandbox.md: under `standard` and `strict`, a descriptor the caller left open
/// above stderr (`tissvm run … 9>>outside.log`) does not reach the command;
/// under `none`, the opt-out, it does (which shows the test would see it).
#[test]
fn descriptors_the_caller_left_open_do_not_reach_the_command() {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    for profile in ["none", "standard", "strict"] {
        let f = Fixture::new();
        let outside = f.path("outside.log");
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&outside).unwrap();
        let fd = log.as_raw_fd();
        let plan_path = f.write_plan(&plan("    RUN \"echo pwned >&9\""));
        let mut command = crate::common::command();
        command.args([
            "run",
            &plan_path,
            "--workdir",
            f.ws().to_str().unwrap(),
            "--sandbox-profile",
            profile,
        ]);
        // SAFETY: dup2 is async-signal-safe; it leaves fd 9 open across exec.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(fd, 9) < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
            })
        };
        let out = command.stdin(std::process::Stdio::null()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if profile == "strict" && crate::common::strict_refused(out.status.code(), &stderr) {
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{profile}: {stderr}");
        let written = std::fs::read_to_string(&outside).unwrap();
        if profile == "none" {
            assert_eq!(written, "pwned\n", "under none the caller's descriptor is the command's");
        } else {
            assert_eq!(written, "", "{profile}: the command wrote through the caller's descriptor 9");
        }
    }
}
