//! The tree-kill promise against a process that leaves its RUN's cgroup and
//! session (book: reference/sandbox.md; issue 25, item 8): a RUN's helper moves itself into
//! another cgroup, starts a new session and outlives the RUN's shell. The
//! old `standard` skipped its sweep of orphans when the RUN's cgroup looked
//! empty, and the process survived tissvm. Run as root and, through
//! `setpriv`, as the ordinary user `nobody` (who may not move itself out,
//! but whose tree must die all the same), under `standard` and `strict`.

use std::process::Stdio;

use crate::common::Fixture;
use crate::common::marker::Marker;

fn plan(body: &str) -> String {
    format!("TASK \"Escape\"\nSTEP \"s\" {{\n{body}\n}}\n")
}

/// A cgroup v2 directory beneath this test's own (beside the ones tissvm
/// makes for its RUNs), writable by `owner`, removed when dropped.
struct Elsewhere(std::path::PathBuf);

impl Elsewhere {
    fn new(owner: Option<u32>) -> Option<Elsewhere> {
        let own = crate::sandbox_standard::own_v2_cgroup()?;
        let dir = own.join(format!("tiss-elsewhere-{}", Marker::new().0));
        std::fs::create_dir(&dir).ok()?;
        if !dir.join("cgroup.procs").exists() {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        if let Some(uid) = owner {
            for file in [dir.clone(), dir.join("cgroup.procs")] {
                std::os::unix::fs::chown(file, Some(uid), Some(uid)).ok()?;
            }
        }
        Some(Elsewhere(dir))
    }
}

impl Drop for Elsewhere {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Runs the escaping plan under `profile`, as `nobody` with `as_nobody`,
/// and checks that nothing of it is left once tissvm has exited.
fn escape(profile: &str, as_nobody: bool) {
    // SAFETY: a plain system call.
    if unsafe { libc::geteuid() } != 0 || !std::path::Path::new("/usr/bin/setpriv").exists() {
        let message = "the escape test needs root (to make a second cgroup) and setpriv(1)";
        tiss_test_support::skip::cannot(message);
        return;
    }
    let f = Fixture::new();
    let Some(elsewhere) = Elsewhere::new(as_nobody.then_some(65534)) else {
        let message = "no cgroup v2 tree to make a second cgroup in";
        tiss_test_support::skip::cannot(message);
        return;
    };
    let marker = Marker::new();
    let procs = elsewhere.0.join("cgroup.procs");
    // The helper moves itself out, then becomes a new session's `sleep`;
    // the RUN's shell ends at once.
    let body = format!(
        "    RUN \"sh -c 'echo $$ > {} 2>/dev/null; exec setsid sleep {}' & sleep 0.5; echo started\" TIMEOUT 30s",
        procs.display(),
        marker.0
    );
    let plan_path = f.write_plan(&plan(&body));
    let mut command = if as_nobody {
        for path in [f.root.path().to_path_buf(), f.ws()] {
            std::os::unix::fs::chown(path, Some(65534), Some(65534)).unwrap();
        }
        let mut c = std::process::Command::new("/usr/bin/setpriv");
        c.args(["--reuid", "65534", "--regid", "65534", "--clear-groups", env!("CARGO_BIN_EXE_tissvm")]);
        c.env("TISS_SNAPSHOT_KEY_FILE", f.path("key"));
        c
    } else {
        crate::common::command()
    };
    let out = command
        .args(["run", &plan_path, "--workdir", f.ws().to_str().unwrap(), "--sandbox-profile", profile])
        .current_dir(f.root.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if profile == "strict" && crate::common::strict_refused(out.status.code(), &stderr) {
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // Gone when tissvm is: not a moment later.
    assert_eq!(marker.processes(), Vec::<i32>::new(), "a process outlived tissvm ({profile})");
}

#[test]
fn standard_ends_a_process_that_left_the_runs_cgroup_and_session() {
    escape("standard", false);
}

#[test]
fn standard_ends_an_ordinary_users_escaping_process() {
    escape("standard", true);
}

#[test]
fn strict_ends_a_process_that_tried_to_leave() {
    escape("strict", false);
}
