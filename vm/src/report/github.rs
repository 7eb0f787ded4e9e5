//! `--output-format github` for `tissvm run` and `tissvm collect` (book:
//! cookbook/ci.md): from the plans' JSON reports, an annotation per failure, per
//! diagnostic of a plan that did not compile, per suspended or broken
//! plan, up to GitHub's caps; and, when the runner names a step summary
//! file, a Markdown table of the plans that counts the annotations past
//! the caps. The failure's full text goes to stderr as for the other
//! machine formats, so the log keeps it too.

use std::io::{self, Write};
use std::sync::Mutex;

use serde_json::Value as Json;
use tiss_support::github::{Annotation, Annotator, Level, append_step_summary, table_cell};

use crate::report::combined::failure_text;

/// The token that ends `::stop-commands::`, while commands are stopped.
static STOPPED: Mutex<Option<String>> = Mutex::new(None);

/// Before a run GitHub reads: what the run prints may hold text a plan's
/// commands or a model wrote, which the runner would take for workflow
/// commands (`::error::…`, `::add-mask::…`, even indented). So stderr
/// joins stdout (one stream, in order, as GitHub shows them anyway) and
/// workflow commands stop, with a token no output can guess, until
/// [`write`] resumes them for tissvm's own annotations.
pub fn stop_commands() -> io::Result<()> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    rustix::stdio::dup2_stderr(rustix::stdio::stdout())?;
    let mut out = io::stdout().lock();
    writeln!(out, "::stop-commands::{token}")?;
    out.flush()?;
    *STOPPED.lock().unwrap_or_else(|e| e.into_inner()) = Some(token);
    Ok(())
}

/// Resumes the workflow commands [`stop_commands`] stopped, if it did and
/// they are not resumed yet: before the annotations, or as tissvm ends
/// without any (a refused option, a plan that could not start).
pub fn resume_commands(out: &mut dyn Write) -> io::Result<()> {
    match STOPPED.lock().unwrap_or_else(|e| e.into_inner()).take() {
        Some(token) => writeln!(out, "::{token}::"),
        None => Ok(()),
    }
}

/// Writes the annotations of `reports` to `out` (resuming workflow
/// commands first if [`stop_commands`] stopped them) and appends the
/// summary headed `heading` to the step summary file, if the runner names
/// one. `plan` names a report that does not say its plan (a run of one plan).
pub fn write(
    out: &mut dyn Write,
    heading: &str,
    plan: &str,
    reports: impl Iterator<Item = Json>,
) -> io::Result<()> {
    resume_commands(out)?;
    let mut annotator = Annotator::default();
    let mut rows = String::new();
    let mut failures = String::new();
    for report in reports {
        let plan = report["plan"].as_str().unwrap_or(plan);
        for annotation in annotations(plan, &report) {
            annotator.annotate(out, &annotation)?;
        }
        rows.push_str(&row(plan, &report));
        failures.push_str(&failure_section(plan, &report["failure"]));
    }
    let summary = format!(
        "### {}\n\n| Plan | Status | Steps | Time | Failure |\n|---|---|---:|---:|---|\n{rows}\n{}{failures}",
        table_cell(heading),
        annotator.not_annotated()
    );
    if let Err(e) = append_step_summary(&summary) {
        eprintln!("tissvm: {e}");
    }
    Ok(())
}

/// What a report says GitHub should mark: nothing for a plan that passed.
fn annotations(plan: &str, report: &Json) -> Vec<Annotation> {
    let at = |level, line: &Json, column: &Json, title: String, message: String| Annotation {
        level,
        file: plan.to_string(),
        line: number(line).unwrap_or(0),
        column: number(column),
        end_line: None,
        end_column: None,
        title,
        message,
    };
    if let Some(diagnostics) = report["diagnostics"].as_array().filter(|d| !d.is_empty()) {
        return diagnostics.iter().map(|d| diagnostic(plan, d)).collect();
    }
    let failure = &report["failure"];
    if failure.is_object() {
        let kind = failure["kind"].as_str().unwrap_or("failed");
        let title = match failure["step"].as_str().filter(|s| !s.is_empty()) {
            Some(step) => format!("{kind} in step \"{step}\""),
            None => kind.to_string(),
        };
        let message = failure_text(failure).trim_end().to_string();
        return vec![at(Level::Error, &failure["line"], &failure["column"], title, message)];
    }
    if report["status"] == "suspended" {
        let message = match report["snapshot"].as_str() {
            Some(snapshot) => format!(
                "the plan waits for a human; its snapshot is `{snapshot}`, and `tissvm resume {snapshot}` goes on"
            ),
            None => "the plan waits for a human and kept no snapshot".to_string(),
        };
        return vec![at(Level::Warning, &Json::Null, &Json::Null, "suspended".into(), message)];
    }
    match report["error"].as_str() {
        Some(error) if report["exit_code"] != 0 => {
            let title = report["status"].as_str().unwrap_or("error").to_string();
            vec![at(Level::Error, &Json::Null, &Json::Null, title, error.to_string())]
        }
        _ => Vec::new(),
    }
}

/// A compiler diagnostic of a plan that did not compile, at its span.
fn diagnostic(plan: &str, d: &Json) -> Annotation {
    let level = match d["severity"].as_str() {
        Some("error") => Level::Error,
        Some("warning") => Level::Warning,
        _ => Level::Notice,
    };
    Annotation {
        level,
        file: d["file"].as_str().filter(|f| !f.is_empty()).unwrap_or(plan).to_string(),
        line: number(&d["line"]).unwrap_or(0),
        column: number(&d["column"]),
        end_line: number(&d["end_line"]),
        end_column: number(&d["end_column"]),
        title: d["code"].as_str().unwrap_or("invalid").to_string(),
        message: d["message"].as_str().unwrap_or("").to_string(),
    }
}

/// A positive number of the report, or none.
fn number(value: &Json) -> Option<usize> {
    value.as_u64().filter(|&n| n > 0).and_then(|n| usize::try_from(n).ok())
}

/// The summary table's row for one plan.
fn row(plan: &str, report: &Json) -> String {
    let status = report["status"].as_str().unwrap_or("error");
    let mark = match status {
        "passed" => "✓",
        "suspended" => "⏸",
        _ => "✗",
    };
    let steps = report["steps"].as_array().map_or(&[][..], Vec::as_slice);
    let passed = steps.iter().filter(|s| s["status"] == "passed").count();
    let failure = &report["failure"];
    let why = if failure.is_object() {
        let kind = failure["kind"].as_str().unwrap_or("failed");
        let message = failure["message"].as_str().unwrap_or("");
        match number(&failure["line"]) {
            Some(line) => format!("{kind} at line {line}: {message}"),
            None => format!("{kind}: {message}"),
        }
    } else if let Some(snapshot) = report["snapshot"].as_str() {
        format!("resume: `tissvm resume {snapshot}`")
    } else {
        report["error"].as_str().unwrap_or("").to_string()
    };
    format!(
        "| {} | {mark} {status} | {passed}/{} | {} ms | {} |\n",
        table_cell(&format!("`{plan}`")),
        steps.len(),
        report["duration_ms"].as_u64().unwrap_or(0),
        table_cell(&why)
    )
}

/// A failed plan's failure in the summary, whole: the condition, the
/// values it saw, the command; in a fence no text of the failure can close.
fn failure_section(plan: &str, failure: &Json) -> String {
    if !failure.is_object() {
        return String::new();
    }
    let text = failure_text(failure);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("\n**`{}`**\n\n{fence}text\n{text}{fence}\n", plan.replace(['\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn failed(plan: &str) -> Json {
        json!({
            "plan": plan, "status": "failed", "exit_code": 1, "duration_ms": 3,
            "steps": [{"name": "s", "status": "failed"}, {"name": "t", "status": "not_run"}],
            "failure": {"kind": "assertion_failed", "message": "`1 == 2` is false\nsecond | line",
                        "step": "s", "line": 4, "column": 5, "condition": "1 == 2"},
        })
    }

    #[test]
    fn a_failure_is_an_error_at_its_place_with_the_whole_failure_escaped() {
        let mut out = Vec::new();
        write(&mut out, "h", "-", [failed("dir/a,b.tiss")].into_iter()).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "::error file=dir/a%2Cb.tiss,line=4,col=5,title=assertion_failed in step \"s\"::\
             assertion_failed: `1 == 2` is false%0Asecond | line%0A  in step \"s\", line 4%0A  condition: 1 == 2\n"
        );
    }

    #[test]
    fn a_plan_that_did_not_compile_marks_each_diagnostic_at_its_span() {
        let report = json!({"status": "invalid", "exit_code": 2, "error": "e", "diagnostics": [
            {"severity": "error", "code": "E0201", "message": "m", "file": "p.tiss",
             "line": 2, "column": 3, "end_line": 2, "end_column": 7},
            {"severity": "warning", "code": "W0101", "message": "w", "file": "p.tiss",
             "line": 5, "column": 1, "end_line": 5, "end_column": 2},
        ]});
        let marks = annotations("p.tiss", &report);
        assert_eq!(marks.len(), 2);
        assert_eq!(
            marks[0].command(),
            "::error file=p.tiss,line=2,col=3,endLine=2,endColumn=7,title=E0201::m"
        );
        assert_eq!(marks[1].level, Level::Warning);
    }

    #[test]
    fn a_passed_plan_is_not_marked_and_a_suspended_one_is_a_warning_naming_the_resume() {
        assert!(annotations("p", &json!({"status": "passed", "exit_code": 0, "failure": null})).is_empty());
        let suspended = json!({"status": "suspended", "exit_code": 3, "failure": null, "snapshot": "s.snap"});
        let marks = annotations("p", &suspended);
        assert_eq!(marks[0].level, Level::Warning);
        assert!(marks[0].message.contains("tissvm resume s.snap"), "{}", marks[0].message);
        assert!(row("p", &suspended).contains("tissvm resume s.snap"));
    }

    #[test]
    fn the_summary_holds_each_failure_whole_in_a_fence_its_text_cannot_close() {
        let mut report = failed("p.tiss");
        report["failure"]["condition"] = json!("X ```` Y");
        let section = failure_section("p.tiss", &report["failure"]);
        assert!(section.contains("\n`````text\nassertion_failed: "), "{section}");
        assert!(section.contains("  condition: X ```` Y\n"), "{section}");
        assert!(section.ends_with("\n`````\n"), "{section}");
        assert_eq!(failure_section("p", &Json::Null), "");
    }

    #[test]
    fn the_row_keeps_to_its_cells() {
        let row = row("a|b.tiss", &failed("x"));
        assert_eq!(row.lines().count(), 1, "{row}");
        assert!(
            row.starts_with("| `a\\|b.tiss` | ✗ failed | 0/2 | 3 ms | assertion_failed at line 4:"),
            "{row}"
        );
    }
}
