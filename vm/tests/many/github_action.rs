//! The composite action (`action.yml`): its steps' scripts run as the
//! runner would run them, with the inputs in their environment variables,
//! on plans that pass and fail, the built `tissvm` on PATH (the install
//! step builds it from the action's checkout with `cargo install`, which a
//! test does not repeat; its script is checked for what it installs).

use std::path::Path;
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn the_action_runs_plans_with_annotations_a_summary_and_reports() {
    let action = std::fs::read_to_string(repo().join("action.yml")).unwrap();
    for wired in [
        "using: composite",
        "bash \"$GITHUB_ACTION_PATH/.github/action/install.sh\"",
        "bash \"$GITHUB_ACTION_PATH/.github/action/run.sh\"",
        "TISS_PLANS: ${{ inputs.plans }}",
        "TISS_ARGS: ${{ inputs.args }}",
        "TISS_REPORT_DIR: ${{ inputs.report-dir }}",
        "actions/upload-artifact@v4",
        "path: ${{ inputs.report-dir }}",
    ] {
        assert!(action.contains(wired), "action.yml lacks `{wired}`");
    }
    let install = std::fs::read_to_string(repo().join(".github/action/install.sh")).unwrap();
    assert!(install.contains("--path \"$TISS_SOURCE/compiler\" --bin tissc"));
    assert!(install.contains("--path \"$TISS_SOURCE/vm\" --bin tissvm"));

    let dir = tempfile::tempdir().unwrap();
    let plans = dir.path().join("plans");
    std::fs::create_dir(&plans).unwrap();
    std::fs::write(plans.join("good.tiss"), "TASK \"good\"\nSTEP \"s\" {\n    ASSERT 1 == 1\n}\n").unwrap();
    std::fs::write(plans.join("bad.tiss"), "TASK \"bad\"\nSTEP \"s\" {\n    ASSERT 1 == 2\n}\n").unwrap();
    let summary = dir.path().join("summary.md");
    let bin = Path::new(env!("CARGO_BIN_EXE_tissvm")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let run = |plans_input: &str| {
        Command::new("bash")
            .arg(repo().join(".github/action/run.sh"))
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("TISS_PLANS", plans_input)
            .env("TISS_ARGS", "--budget INSTRUCTIONS=1000")
            .env("TISS_REPORT_DIR", "reports")
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env(tiss_vm::session::snapshot_key::KEY_FILE_VAR, crate::common::key_file())
            .output()
            .unwrap()
    };
    let out = run("plans");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the worst plan's status:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.lines().any(|l| l.starts_with("::error ") && l.contains("bad.tiss")), "{stdout}");
    for plan in ["bad", "good"] {
        let report = dir.path().join(format!("reports/plans/{plan}.tiss.json"));
        assert!(report.is_file(), "the report of {plan} is kept for the artifact");
    }
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(summary.contains("bad") && summary.contains("good"), "{summary}");

    let out = run("plans/good.tiss");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run("");
    assert_ne!(out.status.code(), Some(0), "no plans is an error");
}
