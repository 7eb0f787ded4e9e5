//! A plan that cannot run still gives machine-readable output (book: reference/formats.md:
//! "Machine-readable output goes to stdout alone"): with `--output-format
//! json` stdout holds one report object of status `invalid` with the
//! diagnostics, with `junit` one testsuite with an error testcase; exit 2
//! either way, and the diagnostics still go to stderr.

use std::path::PathBuf;

use crate::common::Run;

/// A keyword in the wrong case: E0101 at line 3, with the fix `STEP`.
const BAD: &str = "TASK \"t\"\n\nStep \"a\" {\n    RUN \"make\"\n}\n";

const PAUSE: &str = "TASK \"Wait\"\nSTEP \"s\" {\n    PAUSE \"p\"\n}\n";

struct Fixture {
    root: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture { root: tempfile::tempdir().expect("temp dir") }
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.root.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn tissvm(&self, args: &[&str]) -> Run {
        crate::common::tissvm(self.root.path(), args, &[])
    }

    /// A `.tbc` of PAUSE with its last byte flipped: the checksum fails.
    fn corrupt_bytecode(&self) -> PathBuf {
        let Ok((module, _)) = tiss_compiler::compile("p.tiss", PAUSE.as_bytes(), Default::default()) else {
            panic!("the test plan compiles");
        };
        let mut bytes = tisslang::container::encode(&module);
        *bytes.last_mut().unwrap() ^= 1;
        self.write("corrupt.tbc", &bytes)
    }
}

/// The keys every report has, whatever its status.
const REPORT_KEYS: [&str; 8] =
    ["status", "exit_code", "task", "duration_ms", "steps", "failure", "cost", "snapshot"];

#[track_caller]
fn assert_invalid(run: &Run, error: &str) -> serde_json::Value {
    run.expect(2);
    let report = run.json();
    for key in REPORT_KEYS.iter().chain(&["error", "diagnostics"]) {
        assert!(report.get(key).is_some(), "no `{key}` in {report:#}");
    }
    assert_eq!(report["status"], "invalid");
    assert_eq!(report["exit_code"], 2);
    assert_eq!(report["steps"], serde_json::json!([]));
    assert_eq!(report["snapshot"], serde_json::Value::Null);
    assert_eq!(report["cost"]["run_count"], 0);
    assert!(report["error"].as_str().unwrap().contains(error), "{report:#}");
    report
}

#[test]
fn json_of_a_plan_that_does_not_compile_holds_its_diagnostics() {
    let fx = Fixture::new();
    fx.write("bad.tiss", BAD.as_bytes());
    let run = fx.tissvm(&["run", "bad.tiss", "--output-format", "json"]);
    let report = assert_invalid(&run, "could not compile `bad.tiss` due to 1 previous error");
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{report:#}");
    let d = &diagnostics[0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["code"], "E0101");
    assert_eq!(
        (d["file"].as_str(), d["line"].as_u64(), d["column"].as_u64()),
        (Some("bad.tiss"), Some(3), Some(1))
    );
    assert_eq!(d["suggestions"][0]["replacement"], "STEP");
    // The diagnostics are on stderr too, as without --output-format.
    assert!(run.stderr.contains("error[E0101]"), "{}", run.stderr);
}

#[test]
fn json_of_invalid_bytecode_names_what_is_wrong() {
    let fx = Fixture::new();
    fx.corrupt_bytecode();
    let run = fx.tissvm(&["run", "corrupt.tbc", "--output-format", "json"]);
    let report = assert_invalid(&run, "checksum");
    assert_eq!(report["diagnostics"], serde_json::json!([]));
    assert!(report["error"].as_str().unwrap().starts_with("corrupt.tbc: "), "{report:#}");
}

#[test]
fn junit_of_a_plan_that_cannot_run_is_one_suite_with_an_error() {
    let fx = Fixture::new();
    fx.write("bad.tiss", BAD.as_bytes());
    fx.corrupt_bytecode();
    for (plan, says) in [("bad.tiss", "error[E0101]"), ("corrupt.tbc", "checksum")] {
        let run = fx.tissvm(&["run", plan, "--output-format", "junit"]);
        run.expect(2);
        let xml = &run.stdout;
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite "), "{xml}");
        assert_eq!(xml.matches("<testsuite ").count(), 1, "{xml}");
        assert!(xml.contains(&format!("name=\"{plan}\" tests=\"1\" failures=\"0\" errors=\"1\"")), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), 1, "{xml}");
        assert!(xml.contains("<error type=\"invalid\" message=\""), "{xml}");
        assert!(xml.contains(says), "{plan}: {xml}");
        assert!(xml.ends_with("</testcase>\n</testsuite>\n"), "{xml}");
    }
}

#[test]
fn text_output_of_a_plan_that_cannot_run_leaves_stdout_empty() {
    let fx = Fixture::new();
    fx.write("bad.tiss", BAD.as_bytes());
    let run = fx.tissvm(&["run", "bad.tiss"]);
    run.expect(2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("error[E0101]"), "{}", run.stderr);
}

#[test]
fn resume_reports_an_invalid_snapshot_or_plan_in_json() {
    let fx = Fixture::new();
    let snap = fx.write("broken.snap", b"\x1bTSN\r\n\x1a\n\x01");
    let run = fx.tissvm(&["resume", snap.to_str().unwrap(), "--output-format", "json"]);
    assert_invalid(&run, "broken.snap: truncated TissLang snapshot");
    // A good snapshot, resumed with a --plan that does not compile.
    fx.write("pause.tiss", PAUSE.as_bytes());
    let ws = fx.root.path().to_str().unwrap();
    fx.tissvm(&["run", "pause.tiss", "--workdir", ws]).expect(3);
    fx.write("bad.tiss", BAD.as_bytes());
    let run = fx.tissvm(&["resume", ".tiss/wait-1.snap", "--plan", "bad.tiss", "--output-format", "json"]);
    let report = assert_invalid(&run, "could not compile `bad.tiss`");
    assert_eq!(report["diagnostics"][0]["code"], "E0101");
}

#[test]
fn inspect_and_estimate_give_a_json_object_for_what_they_refuse() {
    let fx = Fixture::new();
    fx.write("bad.tiss", BAD.as_bytes());
    let corrupt = fx.corrupt_bytecode();
    let corrupt = corrupt.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["inspect", "bad.tiss"], "could not compile"),
        (&["estimate", "bad.tiss"], "could not compile"),
        (&["inspect", corrupt], "checksum"),
        (&["estimate", corrupt], "checksum"),
        (&["estimate", "bad.tiss", "--cost-model", "missing.toml"], "cannot read `missing.toml`"),
    ];
    for (args, error) in cases {
        let run = fx.tissvm(&[args, &["--output-format", "json"]].concat());
        run.expect(2);
        let report = run.json();
        assert_eq!(report["status"], "invalid", "{args:?}");
        assert_eq!(report["exit_code"], 2, "{args:?}");
        assert!(report["error"].as_str().unwrap().contains(error), "{args:?}: {report:#}");
        assert!(report["file"].is_string(), "{args:?}");
        assert!(report["diagnostics"].is_array(), "{args:?}");
        // The diagnostics are still told on stderr.
        assert!(run.stderr.contains(error) || run.stderr.contains("error"), "{args:?}: {}", run.stderr);
    }
    let compile_error = fx.tissvm(&["inspect", "bad.tiss", "--output-format", "json"]).json();
    assert_eq!(compile_error["diagnostics"][0]["code"], "E0101");
    // Text output stays on stderr alone.
    let text = fx.tissvm(&["inspect", "bad.tiss"]);
    text.expect(2);
    assert_eq!(text.stdout, "");
}
