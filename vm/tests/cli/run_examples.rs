//! Every plan in `examples/` through the real `tissvm`: it runs in a fresh
//! workspace and passes (or, with a human interaction, suspends with exit 3
//! under `--non-interactive`), and `--dry-run` lists its effects and touches
//! nothing.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::Value as Json;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn tissvm(args: &[&str], cwd: &Path) -> Output {
    crate::common::command().args(args).current_dir(cwd).stdin(Stdio::null()).output().expect("run tissvm")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The workspace's entries, recursively.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.is_symlink() {
            out.extend(entries(&path));
        }
        out.push(path);
    }
    out
}

fn inspect(plan: &Path) -> Json {
    let out = tissvm(&["inspect", "--output-format", "json", plan.to_str().unwrap()], &examples_dir());
    assert_eq!(out.status.code(), Some(0), "inspect {}: {}", plan.display(), text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("inspect prints JSON")
}

/// Runs the example in a fresh workspace and checks its exit status and report.
fn run_example(name: &str) {
    let plan = examples_dir().join(name);
    assert!(plan.is_file(), "{} is missing", plan.display());
    let manifest = inspect(&plan);
    let interactive = !manifest["interactions"].as_array().expect("interactions").is_empty();

    let ws = tempfile::tempdir().unwrap();
    // A typed example's scripted answers lie beside it (`triage.answers.json`).
    let answers = plan.with_extension("answers.json");
    let mut args = vec![
        "run",
        "--non-interactive",
        "--output-format",
        "json",
        plan.to_str().unwrap(),
        "--workdir",
        ws.path().to_str().unwrap(),
    ];
    if answers.is_file() {
        args.extend(["--mock-answers", answers.to_str().unwrap()]);
    }
    let out = tissvm(&args, ws.path());
    let report: Json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{name}: no JSON report ({e}): {}\n{}", text(&out.stdout), text(&out.stderr))
    });
    let (code, status) = if interactive { (3, "suspended") } else { (0, "passed") };
    assert_eq!(out.status.code(), Some(code), "{name}: {report:#}\nstderr:\n{}", text(&out.stderr));
    assert_eq!(report["status"], status, "{name}: {report:#}");
    assert_eq!(report["exit_code"], code, "{name}");
    assert_eq!(report["failure"], Json::Null, "{name}: {report:#}");
    assert_eq!(report["task"], manifest["task"], "{name}");
    let reported: Vec<&Json> = report["steps"].as_array().unwrap().iter().map(|s| &s["name"]).collect();
    let listed: Vec<&Json> = manifest["steps"].as_array().unwrap().iter().map(|s| &s["name"]).collect();
    assert_eq!(reported, listed, "{name}: the report lists the manifest's steps");
    if !interactive {
        for step in report["steps"].as_array().unwrap() {
            assert_eq!(step["status"], "passed", "{name}: {step}");
        }
    }
}

/// `--dry-run`: exit 0, one line or more, every step and literal command
/// named, and nothing created in the workspace or the current directory.
fn dry_run_example(name: &str) {
    let plan = examples_dir().join(name);
    let manifest = inspect(&plan);
    let ws = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let out = tissvm(
        &["run", "--dry-run", plan.to_str().unwrap(), "--workdir", ws.path().to_str().unwrap()],
        cwd.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
    let listing = text(&out.stdout);
    assert!(listing.lines().count() >= 1, "{name}: empty dry run");
    for step in manifest["steps"].as_array().unwrap() {
        let step = step["name"].as_str().unwrap();
        assert!(listing.contains(step), "{name}: the dry run does not name step {step:?}:\n{listing}");
    }
    for command in manifest["commands"].as_array().unwrap() {
        if command["dynamic"] == false {
            let command = command["command"].as_str().unwrap();
            assert!(listing.contains(command), "{name}: the dry run does not list {command:?}:\n{listing}");
        }
    }
    assert!(entries(ws.path()).is_empty(), "{name}: the dry run created {:?}", entries(ws.path()));
    assert!(entries(cwd.path()).is_empty(), "{name}: the dry run created {:?}", entries(cwd.path()));
}

macro_rules! examples {
    ($($test:ident => $file:literal,)*) => {
        const COVERED: &[&str] = &[$($file),*];

        mod run {
            $(#[test] fn $test() { super::run_example($file); })*
        }

        mod dry_run {
            $(#[test] fn $test() { super::dry_run_example($file); })*
        }
    };
}

examples! {
    budgeted => "budgeted.tiss",
    c_program => "c_program.tiss",
    cleanup => "cleanup.tiss",
    config_edit => "config_edit.tiss",
    fallback => "fallback.tiss",
    hello => "hello.tiss",
    reviewed_release => "reviewed_release.tiss",
    subtasks => "subtasks.tiss",
    test_selection => "test_selection.tiss",
    triage => "triage.tiss",
}

/// A new example needs a line in `examples!` above, so it is run too.
#[test]
fn every_example_is_covered() {
    let mut found: Vec<String> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tiss"))
        .collect();
    found.sort();
    let mut covered: Vec<&str> = COVERED.to_vec();
    covered.sort();
    assert_eq!(found, covered, "add the new example to `examples!` in {}", file!());
}

#[test]
fn the_interactive_example_is_detected_as_interactive() {
    // Keeps the suspended-run branch of `run_example` exercised.
    let manifest = inspect(&examples_dir().join("reviewed_release.tiss"));
    let kinds: Vec<&str> =
        manifest["interactions"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["review", "pause", "choose"]);
}
