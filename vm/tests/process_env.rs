//! A RUN sees exactly the environment it is given: a secret in the caller's
//! environment does not leak. Its own test binary, because it sets a variable
//! in this process.

use tiss_host::environment::build_env;
use tiss_host::process::{ProcessSpec, WorkDir, run};
use tiss_host::sandbox::UNCONFINED;

#[test]
fn the_callers_secrets_do_not_leak() {
    // SAFETY: the only test in this binary; no other thread reads the
    // environment concurrently.
    unsafe {
        std::env::set_var("TISS_TEST_SECRET_TOKEN", "hunter2");
        std::env::set_var("TISS_TEST_ALLOWED", "visible");
    }
    let workdir = tempfile::tempdir().unwrap();
    let env = build_env(
        workdir.path(),
        &["TISS_TEST_ALLOWED".to_string()],
        &[("PLAN_VAR".to_string(), "from plan".to_string())],
    );
    let spec = ProcessSpec {
        command: "env",
        cwd: WorkDir::Path(workdir.path()),
        env: &env,
        timeout: None,
        output_cap: 100_000,
        sandbox: &UNCONFINED,
    };
    let result = run(&spec, None).unwrap();
    assert_eq!(result.exit_code, 0);
    assert!(!result.stdout.contains("hunter2"), "{}", result.stdout);
    let mut names: Vec<&str> =
        result.stdout.lines().filter_map(|l| l.split_once('=')).map(|(name, _)| name).collect();
    names.sort_unstable();
    assert_eq!(names, ["HOME", "LANG", "PATH", "PLAN_VAR", "PWD", "TERM", "TISS_TEST_ALLOWED"]);
    let home = format!("HOME={}", workdir.path().display());
    assert!(result.stdout.lines().any(|l| l == home), "{}", result.stdout);
    assert!(result.stdout.lines().any(|l| l == "TISS_TEST_ALLOWED=visible"));
    assert!(result.stdout.lines().any(|l| l == "PLAN_VAR=from plan"));
}
