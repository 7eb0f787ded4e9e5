//! The text report: the summary after the step lines, and the failure report.

use super::style::{Style, Tone, escape_controls, escape_indented};
use super::{RunReport, RunStatus};
use crate::machine::Suspension;
use crate::machine::failure::Failure;
use crate::machine::value::Value;

impl RunReport {
    /// The human summary printed after the step lines.
    pub fn to_text(&self, style: Style) -> String {
        let mut out = String::new();
        match &self.status {
            RunStatus::Passed => {
                out.push_str(&format!("{}: {}\n", style.paint(Tone::Good, "passed"), self.task))
            }
            RunStatus::Failed(f) => {
                // `failed` for every kind: the report's headline names the kind, once.
                out.push_str(&format!("{}: {}\n", style.paint(Tone::Bad, "failed"), self.task));
                out.push_str(&failure_text(f, style));
            }
            RunStatus::Suspended { snapshot, reason } => {
                out.push_str(&format!("{}: {}\n", style.paint(Tone::Warn, "suspended"), self.task));
                if let Suspension::Interaction { question, line } = reason {
                    out.push_str(&format!(
                        "  waiting at line {line} for an answer to {}\n",
                        escape_controls(&question.describe())
                    ));
                }
                if let Some(s) = snapshot {
                    out.push_str(&format!("  snapshot: {s}\n"));
                }
            }
        }
        let cost: Vec<String> = self.cost.iter().map(|(d, v)| format!("{}={v}", d.json_key())).collect();
        out.push_str(&format!("cost: {}\n", cost.join(" ")));
        if let Some(sandbox) = &self.sandbox {
            out.push_str(&sandbox.line());
            out.push('\n');
        }
        out
    }
}

/// A failure report as text: kind, message, place, condition and values,
/// and the failing step's command with its output.
pub fn failure_text(f: &Failure, style: Style) -> String {
    let mut out = failure_summary(f, style);
    if let Some(run) = &f.command {
        out.push_str(&stream_text("stdout", &run.stdout));
        out.push_str(&stream_text("stderr", &run.stderr));
    }
    out
}

/// The failure report up to the command's exit status, without its output
/// (JUnit gives that in `<system-out>` and `<system-err>`).
pub(super) fn failure_summary(f: &Failure, style: Style) -> String {
    let mut out =
        format!("  {}: {}\n", style.paint(Tone::Bad, f.kind.name()), escape_indented(&f.message, "    "));
    if !f.step.is_empty() {
        out.push_str(&format!("  in step: {}\n", escape_controls(&f.step)));
    }
    out.push_str(&format!("  at line {}, column {}\n", f.line, f.column));
    if let Some(c) = &f.condition {
        out.push_str(&format!("  condition: {c}\n"));
    }
    for (expr, value) in &f.actual {
        let shown = match value {
            Some(Value::Str(s) | Value::Tainted(s)) => format!("{s:?}"),
            Some(other) => other.to_text(),
            None => "<unbound>".to_string(),
        };
        out.push_str(&format!("  {expr} = {shown}\n"));
    }
    if let Some(run) = &f.command {
        out.push_str(&format!("  command: {}\n", escape_controls(&run.command)));
        let timed_out = if run.timed_out { " (timed out)" } else { "" };
        out.push_str(&format!("  exit status: {}{timed_out}\n", run.exit_code));
    }
    out
}

/// `  stdout:` and the stream's lines indented below it.
fn stream_text(name: &str, text: &str) -> String {
    if text.is_empty() {
        return format!("  {name}: (empty)\n");
    }
    let mut out = format!("  {name}:\n");
    for line in text.lines() {
        out.push_str(&format!("    {}\n", escape_controls(line)));
    }
    out
}
