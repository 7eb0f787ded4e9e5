//! Many plans' reports as one (book: guide/many-plans.md): what became of each
//! plan, the counts and the worst exit status, the combined JSON
//! (`{"status", "exit_code", "summary", "plans": [report…]}`), JUnit with one
//! testsuite per plan, and a plan's failure as text, read back from its JSON
//! report. Used by `tissvm run` of many plans and by `tissvm collect`.

use std::io::{self, Write};
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde_json::{Value as Json, json};

use super::style::{Tone, escape_controls};

/// What became of one plan, from its exit status (book: reference/failures.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanStatus {
    Passed,
    Failed,
    Suspended,
    /// Suspended, and another resume holds its snapshot now: a later
    /// continue resumes it. Its exit status is a suspended plan's (3).
    Busy,
    BudgetExceeded,
    SecurityViolation,
    /// The plan could not run: it does not compile, its bytecode is invalid
    /// (exit 2), or tissvm failed (70, or killed by a signal). Counted with
    /// the failed plans.
    Error,
}

impl PlanStatus {
    pub fn from_exit_code(code: i32) -> PlanStatus {
        match code {
            0 => PlanStatus::Passed,
            1 => PlanStatus::Failed,
            3 => PlanStatus::Suspended,
            4 => PlanStatus::BudgetExceeded,
            5 => PlanStatus::SecurityViolation,
            _ => PlanStatus::Error,
        }
    }

    /// The word of its line in the text output.
    pub fn label(self) -> &'static str {
        match self {
            PlanStatus::Passed => "PASS",
            PlanStatus::Failed => "FAIL",
            PlanStatus::Suspended => "SUSP",
            PlanStatus::Busy => "BUSY",
            PlanStatus::BudgetExceeded => "BUDGET",
            PlanStatus::SecurityViolation => "SECURITY",
            PlanStatus::Error => "ERROR",
        }
    }

    /// The colour of its word.
    pub fn tone(self) -> Tone {
        match self {
            PlanStatus::Passed => Tone::Good,
            PlanStatus::Suspended | PlanStatus::Busy => Tone::Warn,
            _ => Tone::Bad,
        }
    }

    /// Counts against `--max-failures`.
    pub fn is_failure(self) -> bool {
        !matches!(self, PlanStatus::Passed | PlanStatus::Suspended | PlanStatus::Busy)
    }
}

/// How bad an exit status is, for the worst of many: 5 > 4 > 1 > 3 > 0
/// (book: guide/many-plans.md). A plan that could not run (2, 70) ranks above them all: the
/// suite itself is broken.
fn severity(code: i32) -> u8 {
    match code {
        0 => 0,
        3 => 1,
        1 => 2,
        4 => 3,
        5 => 4,
        _ => 5,
    }
}

/// The counts of the plans so far, and the worst exit status.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub suspended: usize,
    pub budget_exceeded: usize,
    pub security_violation: usize,
    worst: i32,
}

impl Summary {
    pub fn add(&mut self, exit_code: i32) {
        match PlanStatus::from_exit_code(exit_code) {
            PlanStatus::Passed => self.passed += 1,
            PlanStatus::Failed | PlanStatus::Error => self.failed += 1,
            PlanStatus::Suspended | PlanStatus::Busy => self.suspended += 1,
            PlanStatus::BudgetExceeded => self.budget_exceeded += 1,
            PlanStatus::SecurityViolation => self.security_violation += 1,
        }
        if severity(exit_code) > severity(self.worst) {
            self.worst = exit_code;
        }
    }

    pub fn total(&self) -> usize {
        self.passed + self.failed + self.suspended + self.budget_exceeded + self.security_violation
    }

    /// The worst of the plans' exit statuses (0 for none).
    pub fn exit_code(&self) -> i32 {
        self.worst
    }

    /// The combined `status`: the worst plan's.
    pub fn status_name(&self) -> &'static str {
        match PlanStatus::from_exit_code(self.worst) {
            PlanStatus::Passed => "passed",
            PlanStatus::Suspended | PlanStatus::Busy => "suspended",
            PlanStatus::BudgetExceeded => "budget_exceeded",
            PlanStatus::SecurityViolation => "security_violation",
            PlanStatus::Failed | PlanStatus::Error => "failed",
        }
    }

    /// The last line of the text output, without its newline.
    pub fn counts_line(&self, elapsed: Duration) -> String {
        format!(
            "{} passed, {} failed, {} suspended, {} budget_exceeded, {} security_violation in {}",
            self.passed,
            self.failed,
            self.suspended,
            self.budget_exceeded,
            self.security_violation,
            seconds(elapsed)
        )
    }

    pub fn to_json(&self, elapsed: Duration) -> Json {
        json!({
            "total": self.total(),
            "passed": self.passed,
            "failed": self.failed,
            "suspended": self.suspended,
            "budget_exceeded": self.budget_exceeded,
            "security_violation": self.security_violation,
            "duration_ms": elapsed.as_millis() as u64,
        })
    }
}

/// `1.25s`, as the plan lines and the counts line give times.
pub fn seconds(elapsed: Duration) -> String {
    format!("{:.2}s", elapsed.as_secs_f64())
}

/// Writes the combined JSON report one plan at a time, so that however many
/// plans there are only one report is in memory: the head (status, exit
/// code, summary) first, as the book's reference/formats.md orders the keys, then `reports` in turn.
/// The combined report without its plans: `status`, `exit_code`, `summary`.
pub fn head(summary: &Summary, elapsed: Duration) -> Json {
    json!({
        "status": summary.status_name(),
        "exit_code": summary.exit_code(),
        "summary": summary.to_json(elapsed),
    })
}

pub fn write_json<W: Write>(
    mut out: W,
    summary: &Summary,
    elapsed: Duration,
    reports: impl Iterator<Item = Json>,
) -> io::Result<()> {
    let head = serde_json::to_string_pretty(&head(summary, elapsed)).map_err(io::Error::other)?;
    // The head's closing brace makes way for "plans".
    let head = head.trim_end().strip_suffix('}').unwrap_or(&head).trim_end();
    write!(out, "{head},\n  \"plans\": [")?;
    for (i, report) in reports.enumerate() {
        let text = serde_json::to_string_pretty(&report).map_err(io::Error::other)?;
        let indented = text.replace('\n', "\n    ");
        write!(out, "{}\n    {indented}", if i == 0 { "" } else { "," })?;
    }
    writeln!(out, "\n  ]\n}}")?;
    out.flush()
}

/// JUnit XML: one testsuite per plan report (named by its `plan`, else its
/// task), one testcase per top-level step.
pub fn junit(reports: impl Iterator<Item = Json>) -> String {
    let mut report = Report::new("tissvm");
    for plan in reports {
        report.add_test_suite(testsuite(&plan));
    }
    report.to_string().unwrap_or_default()
}

fn testsuite(plan: &Json) -> TestSuite {
    let name = plan["plan"].as_str().or(plan["task"].as_str()).unwrap_or("plan");
    let mut suite = TestSuite::new(name);
    suite.set_time(Duration::from_millis(plan["duration_ms"].as_u64().unwrap_or(0)));
    let steps = plan["steps"].as_array().map(Vec::as_slice).unwrap_or_default();
    let failure = &plan["failure"];
    if steps.is_empty() && !failure.is_object() && plan["status"] != "passed" {
        // A plan that did not run (it does not compile): one testcase saying why.
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_type(plan["status"].as_str().unwrap_or("error"));
        status.set_message(plan["error"].as_str().unwrap_or("the plan did not run"));
        suite.add_test_case(TestCase::new(name, status));
        return suite;
    }
    let task = plan["task"].as_str().unwrap_or(name);
    for step in steps {
        let step_name = step["name"].as_str().unwrap_or("step");
        let status = match step["status"].as_str() {
            Some("passed") => TestCaseStatus::success(),
            Some("failed") => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_type(failure["kind"].as_str().unwrap_or("failed"));
                status.set_message(failure["message"].as_str().unwrap_or(""));
                status.set_description(failure_text(failure));
                status
            }
            _ => TestCaseStatus::skipped(),
        };
        let mut case = TestCase::new(step_name, status);
        case.set_classname(task);
        case.set_time(Duration::from_millis(step["duration_ms"].as_u64().unwrap_or(0)));
        let mut system_out: String = step["logs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
            .map(|m| format!("{m}\n"))
            .collect();
        if step["status"] == "failed"
            && let Some(run) = failure["command"].as_object()
        {
            system_out.push_str(&format!(
                "$ {}\n{}",
                run["command"].as_str().unwrap_or(""),
                run["stdout"].as_str().unwrap_or("")
            ));
            if let Some(stderr) = run["stderr"].as_str().filter(|s| !s.is_empty()) {
                case.set_system_err(stderr);
            }
        }
        if !system_out.is_empty() {
            case.set_system_out(system_out);
        }
        suite.add_test_case(case);
    }
    suite
}

/// A failure of a JSON report as text: kind and message, the place, the
/// condition with the values it saw, the command with its exit status.
/// The report's strings can hold what a command or a model printed: their
/// control characters are shown escaped (`\u{1b}`), never sent to the
/// terminal that reads this (`tissvm collect`, a run of many plans).
pub fn failure_text(failure: &Json) -> String {
    let text = |key: &str, of: &Json| escape_controls(of[key].as_str().unwrap_or("")).into_owned();
    let mut out = format!(
        "{}: {}\n",
        escape_controls(failure["kind"].as_str().unwrap_or("failed")),
        text("message", failure)
    );
    if failure["step"].as_str().is_some_and(|s| !s.is_empty()) {
        out.push_str(&format!("  in step \"{}\", line {}\n", text("step", failure), failure["line"]));
    }
    if failure["condition"].is_string() {
        out.push_str(&format!("  condition: {}\n", text("condition", failure)));
    }
    for (name, value) in failure["actual"].as_object().into_iter().flatten() {
        out.push_str(&format!("  {} = {value}\n", escape_controls(name)));
    }
    if let Some(run) = failure["command"].as_object() {
        let command = escape_controls(run.get("command").and_then(Json::as_str).unwrap_or(""));
        out.push_str(&format!("  command: {command} (exit status {})\n", run["exit_code"]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_never_sends_its_control_characters_to_the_terminal() {
        let failure = serde_json::json!({
            "kind": "assertion_failed", "message": "saw \u{1b}[2Jcleared", "step": "s\u{9b}1",
            "line": 3, "condition": "x", "command": {"command": "printf '\u{1b}]0;t\u{7}'", "exit_code": 0},
        });
        let text = failure_text(&failure);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert!(
            text.contains("cleared") && text.contains("in step") && text.contains("command: printf"),
            "{text}"
        );
    }

    #[test]
    fn the_worst_status_wins_in_the_order_of_the_spec() {
        let worst = |codes: &[i32]| {
            let mut summary = Summary::default();
            codes.iter().for_each(|&c| summary.add(c));
            summary.exit_code()
        };
        assert_eq!(worst(&[]), 0);
        assert_eq!(worst(&[0, 3, 0]), 3);
        assert_eq!(worst(&[3, 1, 0]), 1);
        assert_eq!(worst(&[1, 4, 3]), 4);
        assert_eq!(worst(&[4, 5, 1]), 5);
        assert_eq!(worst(&[5, 2]), 2);
    }

    #[test]
    fn the_combined_json_streams_into_one_object() {
        let mut summary = Summary::default();
        summary.add(0);
        summary.add(1);
        let mut out = Vec::new();
        let reports = vec![json!({"status": "passed"}), json!({"status": "failed"})];
        write_json(&mut out, &summary, Duration::from_millis(1500), reports.into_iter()).unwrap();
        let parsed: Json = serde_json::from_slice(&out).unwrap();
        let keys: Vec<&String> = parsed.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["status", "exit_code", "summary", "plans"]);
        assert_eq!(parsed["status"], "failed");
        assert_eq!(parsed["exit_code"], 1);
        assert_eq!(parsed["summary"]["passed"], 1);
        assert_eq!(parsed["plans"][1]["status"], "failed");

        let mut none = Vec::new();
        write_json(&mut none, &Summary::default(), Duration::ZERO, std::iter::empty()).unwrap();
        let parsed: Json = serde_json::from_slice(&none).unwrap();
        assert_eq!(parsed["plans"], json!([]));
    }
}
