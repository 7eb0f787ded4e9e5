//! A test whose real component is missing (a llama.cpp server, Slurm,
//! Chromium, Node, the MCP SDK): under `CI=true` it fails, since `.ci/run`
//! installs every component; elsewhere it skips, and says so where the
//! person running the suite sees it. libtest keeps a passing test's output
//! to itself (the old banners were swallowed and the test reported `ok`),
//! so the notice is written to the process's stderr directly, past
//! libtest's capture: it shows in `cargo test`'s output just above that
//! binary's `test result` line. The test suite never installs or builds a
//! component itself.

use std::io::Write;

/// Whether the suite runs in CI (`CI=true`), where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `component` is missing because `why`: panics under `CI=true`, else
/// tells the person running the suite that the test (named by its thread,
/// as libtest names it) checked nothing.
pub fn missing(component: &str, why: &str) {
    skipped(&format!("no {component}"), why);
}

/// This machine cannot run the test (it needs root, a kernel feature, a
/// tool), because `why`: as [`missing`].
pub fn cannot(why: &str) {
    skipped("this machine cannot run it", why);
}

fn skipped(what: &str, why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if in_ci() {
        panic!("{test} is required in CI (CI=true), and {what}: {why}");
    }
    let rule = "*".repeat(72);
    let notice =
        format!("\n{rule}\nSKIPPED {test}: {what}, so it checked nothing.\n{}\n{rule}\n", why.trim());
    let _ = std::io::stderr().lock().write_all(notice.as_bytes());
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    /// Run by [`the_notice_gets_past_libtests_capture_and_ci_fails`] in a
    /// child test process; does nothing in the suite's own run.
    #[test]
    fn probe() {
        if std::env::var_os("TISS_SKIP_PROBE").is_some() {
            super::missing("probe component", "it is not there");
        }
    }

    fn probe_run(ci: Option<&str>) -> std::process::Output {
        let mut child = Command::new(std::env::current_exe().unwrap());
        child.args(["--exact", "skip::tests::probe", "--test-threads=1"]).env("TISS_SKIP_PROBE", "1");
        match ci {
            Some(value) => child.env("CI", value),
            None => child.env_remove("CI"),
        };
        child.output().unwrap()
    }

    #[test]
    fn the_notice_gets_past_libtests_capture_and_ci_fails() {
        let out = probe_run(None);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains(
                "SKIPPED skip::tests::probe: no probe component, so it checked nothing.\nit is not there"
            ),
            "the notice is on stderr although libtest captured the test's output: {stderr}"
        );
        let out = probe_run(Some("true"));
        assert!(!out.status.success(), "CI=true fails the test");
        assert!(String::from_utf8_lossy(&out.stdout).contains("is required in CI (CI=true)"));
    }
}
