//! `--output-format github` on `tissvm run` (one plan and many) and
//! `tissvm collect`, read as GitHub's runner reads it: the workflow
//! commands it would act on (a model of its parser: a line that starts
//! with `::` once leading blanks are trimmed, nothing while commands are
//! stopped but the token that resumes them), the messages unescaped as it
//! unescapes them, and the step summary file.

use std::path::Path;

use crate::common::{self, Run};

/// A workflow command the runner acts on: name, properties, data.
#[derive(Debug)]
struct Command {
    name: String,
    properties: Vec<(String, String)>,
    data: String,
}

impl Command {
    fn property(&self, name: &str) -> Option<&str> {
        self.properties.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

fn unescape_data(text: &str) -> String {
    text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
}

fn unescape_property(text: &str) -> String {
    unescape_data(&text.replace("%3A", ":").replace("%2C", ","))
}

/// The commands the runner acts on in `output`, as its parser goes.
fn commands(output: &str) -> Vec<Command> {
    let mut stopped: Option<String> = None;
    let mut found = Vec::new();
    for line in output.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix("::") else { continue };
        let Some((head, data)) = rest.split_once("::") else { continue };
        let (name, properties) = head.split_once(' ').unwrap_or((head, ""));
        if let Some(token) = &stopped {
            if name == token && properties.is_empty() {
                stopped = None;
            }
            continue;
        }
        if name == "stop-commands" {
            stopped = Some(data.to_string());
            continue;
        }
        let properties = properties
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (n, v) = p.split_once('=').unwrap();
                (n.to_string(), unescape_property(v))
            })
            .collect();
        found.push(Command { name: name.to_string(), properties, data: unescape_data(data) });
    }
    found
}

fn tissvm(dir: &Path, args: &[&str], summary: Option<&Path>) -> Run {
    let summary = summary.map(|s| s.to_str().unwrap().to_string());
    let env: Vec<(&str, &str)> = summary.iter().map(|s| ("GITHUB_STEP_SUMMARY", s.as_str())).collect();
    common::tissvm(dir, args, &env)
}

/// A plan whose command prints workflow commands of its own, then fails
/// an assertion whose message holds `%`, CR and LF, in a file whose name
/// holds `,` and `:`.
const HOSTILE: &str = "TASK \"hostile\"\nSTEP \"s\" {\n    \
    RUN \"printf '::error file=x::pwned\\\\n  ::add-mask::secret\\\\n100%%\\\\r\\\\n'\"\n    \
    ASSERT LAST_RUN.STDOUT CONTAINS \"zz\"\n}\n";

#[test]
fn a_failure_is_one_error_at_its_place_and_the_plans_own_output_commands_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a,b:c.tiss"), HOSTILE).unwrap();
    let summary = dir.path().join("summary.md");
    let run = tissvm(dir.path(), &["run", "a,b:c.tiss", "--output-format", "github"], Some(&summary));
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("pwned"), "the output is shown, as text: {}", run.stdout);
    assert!(run.stderr.is_empty(), "stderr joins stdout, in order: {}", run.stderr);
    let marks = commands(&run.stdout);
    assert_eq!(marks.len(), 1, "{marks:?}\n{}", run.stdout);
    let error = &marks[0];
    assert_eq!(error.name, "error");
    assert_eq!(error.property("file"), Some("a,b:c.tiss"));
    assert_eq!((error.property("line"), error.property("col")), (Some("4"), Some("5")));
    assert_eq!(error.property("title"), Some("assertion_failed in step \"s\""));
    assert!(
        error.data.starts_with("assertion_failed: `LAST_RUN.STDOUT CONTAINS \"zz\"` is false\n"),
        "{}",
        error.data
    );
    assert!(error.data.contains("100%"), "{}", error.data);
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(summary.starts_with("### TissLang: `a,b:c.tiss` failed\n"), "{summary}");
    assert!(summary.contains("| `a,b:c.tiss` | ✗ failed | 0/1 |"), "{summary}");
    // A summary file that cannot be written is said; the status stays the plan's.
    let run = tissvm(dir.path(), &["run", "a,b:c.tiss", "--output-format", "github"], Some(dir.path()));
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stdout.contains("cannot append the step summary"), "{}", run.stdout);
}

#[test]
fn past_githubs_caps_the_annotations_are_counted_in_the_summary_and_collect_gives_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let plans = dir.path().join("plans");
    std::fs::create_dir(&plans).unwrap();
    for i in 0..12 {
        let plan = format!("TASK \"p{i}\"\nSTEP \"s\" {{\n    ASSERT {i} == 100\n}}\n");
        std::fs::write(plans.join(format!("p{i:02}.tiss")), plan).unwrap();
    }
    std::fs::write(plans.join("ok.tiss"), "TASK \"ok\"\nSTEP \"s\" {\n    ASSERT 1 == 1\n}\n").unwrap();
    let summary = dir.path().join("summary.md");
    let args = ["run", "plans", "--output-format", "github", "--report-dir", "reports", "-j", "2"];
    let run = tissvm(dir.path(), &args, Some(&summary));
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let errors = commands(&run.stdout);
    assert_eq!(errors.len(), 10, "GitHub shows 10 errors per step: {}", run.stdout);
    assert!(errors.iter().all(|e| e.name == "error" && e.property("line") == Some("3")));
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.contains("12 failed"), "{text}");
    assert!(text.contains("- 2 more errors not annotated"), "{text}");
    assert_eq!(text.matches("| ✗ failed |").count(), 12, "every plan has its row: {text}");
    assert!(text.contains("| `plans/ok.tiss` | ✓ passed | 1/1 |"), "{text}");

    std::fs::remove_file(&summary).unwrap();
    let collected = tissvm(dir.path(), &["collect", "reports", "--output-format", "github"], Some(&summary));
    assert_eq!(collected.code, Some(1), "{}", collected.stdout);
    assert_eq!(commands(&collected.stdout).len(), 10, "{}", collected.stdout);
    let again = std::fs::read_to_string(&summary).unwrap();
    assert!(again.contains("- 2 more errors not annotated"), "{again}");

    std::fs::remove_file(&summary).unwrap();
    let unset = tissvm(dir.path(), &["collect", "reports", "--output-format", "github"], None);
    assert_eq!(unset.code, Some(1));
    assert!(!summary.exists(), "no summary without GITHUB_STEP_SUMMARY");
}

#[test]
fn a_plan_that_does_not_compile_marks_each_error_and_a_suspended_one_says_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.tiss"), "TASK \"b\"\nSTEP \"s\" {\n  ASERT 1 == 1\n}\n").unwrap();
    let run = tissvm(dir.path(), &["run", "bad.tiss", "--output-format", "github"], None);
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    let marks = commands(&run.stdout);
    assert_eq!(marks.len(), 1, "{}", run.stdout);
    let error = &marks[0];
    assert_eq!(
        [error.property("line"), error.property("col"), error.property("endColumn"), error.property("title")],
        [Some("3"), Some("3"), Some("8"), Some("E0101")]
    );

    std::fs::write(dir.path().join("wait.tiss"), "TASK \"w\"\nSTEP \"s\" {\n    PAUSE \"look\"\n}\n")
        .unwrap();
    let run = tissvm(dir.path(), &["run", "wait.tiss", "--output-format", "github"], None);
    assert_eq!(run.code, Some(3), "{}", run.stdout);
    let warning = &commands(&run.stdout)[0];
    assert_eq!(warning.name, "warning");
    assert!(warning.data.contains("tissvm resume "), "{}", warning.data);
}

#[test]
fn a_report_file_is_refused_with_github_output_and_commands_are_resumed_as_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.tiss"), "TASK \"p\"\nSTEP \"s\" {\n    ASSERT 1 == 1\n}\n").unwrap();
    let run = tissvm(dir.path(), &["run", "p.tiss", "--output-format", "github", "--report", "r.txt"], None);
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(run.stdout.contains("drop --report"), "{}", run.stdout);
    let first = run.stdout.lines().next().unwrap();
    let token = first.strip_prefix("::stop-commands::").expect("commands stop first");
    assert_eq!(run.stdout.lines().last(), Some(format!("::{token}::").as_str()), "and resume last");
    assert!(!dir.path().join("r.txt").exists());
}

#[test]
fn a_resumed_run_is_annotated_as_a_run_is() {
    let dir = tempfile::tempdir().unwrap();
    let plan = "TASK \"w\"\nSTEP \"s\" {\n    PAUSE \"look\"\n    ASSERT 1 == 2\n}\n";
    std::fs::write(dir.path().join("wait.tiss"), plan).unwrap();
    let run = tissvm(dir.path(), &["run", "wait.tiss", "--output-format", "github"], None);
    assert_eq!(run.code, Some(3), "{}", run.stdout);
    let warning = &commands(&run.stdout)[0];
    let snapshot = warning.data.split('`').nth(1).expect("the snapshot is named").to_string();
    let summary = dir.path().join("summary.md");
    let args = ["resume", snapshot.as_str(), "--answer", "continue", "--output-format", "github"];
    let resumed = tissvm(dir.path(), &args, Some(&summary));
    assert_eq!(resumed.code, Some(1), "{}", resumed.stdout);
    let marks = commands(&resumed.stdout);
    assert_eq!(marks.len(), 1, "{}", resumed.stdout);
    assert_eq!((marks[0].name.as_str(), marks[0].property("line")), ("error", Some("4")));
    assert_eq!(marks[0].property("file"), Some("wait.tiss"), "the plan the snapshot ran");
    assert!(std::fs::read_to_string(&summary).unwrap().contains("✗ failed"));
}
