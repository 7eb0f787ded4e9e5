//! The `strict` sandbox profile (book: reference/sandbox.md), through the real binary: writes
//! outside the workspace and its TMPDIR fail and leave nothing (Landlock);
//! a TCP connection and a UDP datagram to listeners this test opens outside
//! never arrive, and DNS fails (a network namespace); a bounded fork bomb is
//! contained and a memory hog killed (cgroups); nothing survives the run.
//! Where the profile is unavailable it is refused, exit 5, naming what is
//! missing.
//!
//! `strict` needs root and a kernel with Landlock, network namespaces and
//! the `pids` and `memory` cgroup controllers. Where it is refused, these
//! tests skip loudly; with `CI=true` they fail instead.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::Fixture;
use crate::common::marker::{DEADLINE, Marker};

fn plan(body: &str) -> String {
    format!("TASK \"Strict\"\nSTEP \"s\" {{\n{body}\n}}\n")
}

/// Whether `strict` can run here; if not, the test skips loudly (or fails
/// under `CI=true`).
fn strict_available(f: &Fixture) -> bool {
    let run = f.run(&plan("    RUN \"true\""), &["--sandbox-profile", "strict"]);
    if run.code == Some(0) {
        return true;
    }
    assert!(crate::common::strict_refused(run.code, &run.stderr), "neither ran nor refused:\n{}", run.stderr);
    false
}

#[test]
fn writes_land_only_in_the_workspace_and_tmpdir() {
    let f = Fixture::new();
    if !strict_available(&f) {
        return;
    }
    let outside = f.path("outside");
    std::fs::create_dir(&outside).unwrap();
    let o = outside.to_str().unwrap();
    let body = format!(
        r#"    RUN "echo x > {o}/new; echo rc=$?; mkdir {o}/dir; echo rc=$?; ln -s /etc {o}/link; echo rc=$?; echo x > /tmp/tiss-strict-$$; echo rc=$?; echo x > inside && echo x > \"$TMPDIR/t\" && echo x > /dev/null && cat /etc/hostname > /dev/null && echo fine"
    ASSERT LAST_RUN.STDOUT == "rc=2\nrc=1\nrc=1\nrc=2\nfine\n""#
    );
    let run = f.run(&plan(&body), &["--sandbox-profile", "strict", "--output-format", "json"]);
    run.expect(0);
    assert!(tiss_test_support::listing(&outside).is_empty(), "{:?}", tiss_test_support::listing(&outside));
    assert_eq!(std::fs::read_to_string(f.ws().join("inside")).unwrap(), "x\n");
    let report = run.json();
    for mechanism in
        ["landlock", "network_namespace", "cgroup_pids", "cgroup_memory", "no_new_privs", "rlimits"]
    {
        assert!(
            report["sandbox"]["enforced"].as_array().unwrap().iter().any(|m| m == mechanism),
            "{mechanism}: {report}"
        );
    }
    assert_eq!(report["sandbox"]["missing"], serde_json::json!([]));
}

#[test]
fn the_private_tmpdir_is_gone_after_the_run() {
    let f = Fixture::new();
    if !strict_available(&f) {
        return;
    }
    let run = f.run(
        &plan("    RUN \"echo $TMPDIR; touch $TMPDIR/left\""),
        &["--sandbox-profile", "strict", "--output-format", "json"],
    );
    run.expect(0);
    let log = f.run(
        &plan("    RUN \"printf %s $TMPDIR\"\n    ASSERT LAST_RUN.STDOUT CONTAINS \"tissvm-tmp-\"\n    LOG \"${LAST_RUN.STDOUT}\""),
        &["--sandbox-profile", "strict", "--output-format", "json"],
    );
    log.expect(0);
    let tmpdir = log.json()["steps"][0]["logs"][0].as_str().unwrap().to_string();
    assert!(tmpdir.starts_with(std::env::temp_dir().join("tissvm-tmp-").to_str().unwrap()), "{tmpdir}");
    assert!(!std::path::Path::new(&tmpdir).exists(), "{tmpdir} survived its run");
}

/// Another local user can neither list nor read what a RUN keeps in its
/// private `TMPDIR`: the directory is the run's user's alone (it was 0755,
/// left to the umask), as a RUN sees it and as the host does.
#[test]
fn the_private_tmpdir_is_the_runs_alone() {
    let f = Fixture::new();
    if !strict_available(&f) {
        return;
    }
    let body = "    RUN \"echo secret > $TMPDIR/key; stat -c '%a %u' $TMPDIR; printf %s $TMPDIR\"\n    LOG \"${LAST_RUN.STDOUT}\"";
    let run = f.run(&plan(body), &["--sandbox-profile", "strict", "--output-format", "json"]);
    run.expect(0);
    let log = run.json()["steps"][0]["logs"][0].as_str().unwrap().to_string();
    let (mode, path) = log.split_once('\n').unwrap();
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(f.ws()).unwrap());
    assert_eq!(mode, format!("700 {uid}"), "{log}");
    assert!(path.contains("tissvm-tmp-"), "{log}");
}

#[test]
fn no_tcp_connection_nor_udp_datagram_leaves_and_dns_fails() {
    let f = Fixture::new();
    if !strict_available(&f) {
        return;
    }
    let tcp = TcpListener::bind("0.0.0.0:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = UdpSocket::bind("0.0.0.0:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let (tcp_port, udp_port) = (tcp.local_addr().unwrap().port(), udp.local_addr().unwrap().port());
    // This machine's address on its way out (no packet is sent to find it).
    let probe = UdpSocket::bind("0.0.0.0:0").unwrap();
    let own = probe.connect("192.0.2.1:9").and_then(|()| probe.local_addr()).map(|a| a.ip().to_string());
    let mut hosts = vec!["127.0.0.1".to_string()];
    hosts.extend(own.ok().filter(|ip| ip != "0.0.0.0"));
    let mut body = String::new();
    for host in &hosts {
        body.push_str(&format!(
            "    RUN \"bash -c 'echo hello > /dev/tcp/{host}/{tcp_port}'\" TIMEOUT 5s\n    ASSERT LAST_RUN.EXIT_CODE != 0\n    \
             RUN \"bash -c 'echo hello > /dev/udp/{host}/{udp_port}'; echo sent\" TIMEOUT 5s\n"
        ));
    }
    body.push_str("    RUN \"getent hosts example.com\" TIMEOUT 20s\n    ASSERT LAST_RUN.EXIT_CODE != 0");
    let run = f.run(&plan(&body), &["--sandbox-profile", "strict"]);
    run.expect(0);
    // The same commands outside the sandbox do arrive: the test can see them.
    let standard = f.run(&plan(&body.replace("ASSERT LAST_RUN.EXIT_CODE != 0", "")), &[]);
    standard.expect(0);
    let mut buf = [0u8; 64];
    let arrived = (0..hosts.len()).filter(|_| udp.recv(&mut buf).is_ok()).count();
    let accepted = std::iter::from_fn(|| tcp.accept().ok()).count();
    assert_eq!(
        (accepted, arrived),
        (hosts.len(), hosts.len()),
        "the unconfined RUNs should have got through"
    );
    let before = Instant::now();
    let run = f.run(&plan(&body), &["--sandbox-profile", "strict"]);
    run.expect(0);
    assert!(before.elapsed() < DEADLINE);
    assert_eq!(udp.recv(&mut buf).map_err(|e| e.kind()), Err(ErrorKind::WouldBlock), "a datagram got out");
    assert_eq!(
        tcp.accept().map(|_| ()).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "a connection got out"
    );
}

#[test]
fn a_bounded_fork_bomb_is_contained_and_nothing_survives() {
    let f = Fixture::new();
    if !strict_available(&f) {
        return;
    }
    let marker = Marker::new();
    let m = &marker.0;
    let plan_path = f.write_plan(&plan(&format!(
        // The forks run in a subshell, which dies at the first fork the limit
        // refuses ("Cannot fork"), while the shell itself waits a second for
        // the `sleep 1` it started first: so the bomb's processes are up for
        // that second, long enough to be counted, rather than the instant
        // between the first fork and the subshell's end.
        "    RUN \"sleep 1 & (for i in $(seq 200); do sleep {m} & done); wait $!\" TIMEOUT 10s\n    ASSERT LAST_RUN.STDERR CONTAINS \"fork\""
    )));
    let mut child = crate::common::command()
        .args([
            "run",
            &plan_path,
            "--workdir",
            f.ws().to_str().unwrap(),
            "--sandbox-profile",
            "strict",
            "--max-procs",
            "40",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut most = 0;
    while child.try_wait().unwrap().is_none() {
        most = most.max(marker.processes().len());
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // The shell, whose command line holds the marker too, counts.
    assert!((10..=40).contains(&most), "{most} processes of the 201 ran at once; --max-procs is 40");
    marker.assert_gone("the fork bomb's run");
}

#[test]
fn a_memory_hog_is_killed() {
    let f = Fixture::new();
    if !strict_available(&f) {
        return;
    }
    // `tail` keeps the current line, and /dev/zero has no newline.
    let run = f.run(
        &plan("    RUN \"tail /dev/zero\" TIMEOUT 60s\n    ASSERT LAST_RUN.EXIT_CODE == 137"),
        &["--sandbox-profile", "strict", "--max-memory", "64M", "--output-format", "json"],
    );
    run.expect(0);
}

#[test]
fn strict_is_refused_where_it_cannot_be_enforced() {
    let f = Fixture::new();
    // An unprivileged user cannot make cgroups unless some are delegated.
    if !std::path::Path::new("/usr/bin/setpriv").exists() || unsafe { libc::geteuid() } != 0 {
        let message = "the refusal test needs root and setpriv(1) to drop to an unprivileged user";
        tiss_test_support::skip::cannot(message);
        return;
    }
    let plan_path = f.write_plan(&plan("    WRITE \"ran\" FROM \"yes\"\n    RUN \"true\""));
    for path in [f.root.path(), &f.ws()] {
        std::os::unix::fs::chown(path, Some(65534), Some(65534)).unwrap();
    }
    let out = std::process::Command::new("/usr/bin/setpriv")
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups", env!("CARGO_BIN_EXE_tissvm"), "run"])
        .args([&plan_path, "--workdir", f.ws().to_str().unwrap(), "--sandbox-profile", "strict"])
        .env("TISS_SNAPSHOT_KEY_FILE", f.path("key"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(
        stderr
            .contains("security_violation: the `strict` sandbox profile cannot be enforced on this machine"),
        "{stderr}"
    );
    // Without delegated cgroups an ordinary user has no limits to set (the
    // namespaces it may have: `strict_as_root.rs` runs as `nobody` with
    // cgroups delegated).
    assert!(stderr.contains("cgroup_pids (cannot create a `pids` cgroup"), "{stderr}");
    assert!(stderr.contains("refusing to run with weaker isolation"), "{stderr}");
    assert!(!f.ws().join("ran").exists(), "the plan ran before the refusal");
    // `inspect` says the same, as the isolation a run would (not) get.
    let out = std::process::Command::new("/usr/bin/setpriv")
        .args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            env!("CARGO_BIN_EXE_tissvm"),
            "inspect",
        ])
        .args([&plan_path, "--sandbox-profile", "strict", "--output-format", "json"])
        .current_dir(f.ws())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["sandbox"]["enforced"], serde_json::json!([]), "{report}");
    let missing = report["sandbox"]["missing"].as_array().unwrap();
    for mechanism in ["cgroup_pids", "cgroup_memory"] {
        assert!(missing.iter().any(|m| m == mechanism), "{mechanism}: {report}");
    }
}
