//! The run report (SPEC §9): JSON, JUnit XML and text, built from the
//! machine's final state.

pub mod event_log;

use serde_json::{Value as Json, json};

use crate::machine::failure::{Failure, FailureKind};
use crate::machine::program::Program;
use crate::machine::value::Value;
use crate::machine::{Machine, Outcome, StepStatus, Suspension};
use tisslang::cost::Dim;

/// What became of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    Passed,
    Failed(Failure),
    Suspended { snapshot: Option<String>, reason: Suspension },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepReport {
    pub name: String,
    /// `passed`, `failed`, `skipped` or `not_run`.
    pub status: &'static str,
    pub line: u32,
    pub duration_ms: u64,
    /// What the step spent, in `Dim::ALL` order (zero for a step not run).
    pub cost: [u64; 5],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub task: String,
    pub status: RunStatus,
    pub duration_ms: u64,
    pub steps: Vec<StepReport>,
    /// Run totals, in `Dim::ALL` order.
    pub cost: [u64; 5],
}

impl RunReport {
    pub fn new(
        program: &Program,
        machine: &Machine,
        outcome: &Outcome,
        snapshot: Option<String>,
    ) -> RunReport {
        let module = &program.module;
        let status = match outcome {
            Outcome::Completed => RunStatus::Passed,
            Outcome::Failed(f) => RunStatus::Failed(f.clone()),
            Outcome::Suspended(s) => RunStatus::Suspended { snapshot, reason: s.clone() },
            Outcome::Running => RunStatus::Suspended { snapshot, reason: Suspension::Requested },
            Outcome::Trapped(m) => RunStatus::Failed(Failure {
                kind: FailureKind::CommandError,
                message: format!("internal error: {m}"),
                step: String::new(),
                line: 0,
                column: 0,
                condition: None,
                actual: Vec::new(),
                budget: None,
            }),
        };
        let steps = program
            .top_level_steps
            .iter()
            .map(|&step| {
                let info = &module.steps[step as usize];
                let record = machine.step_records.iter().find(|r| r.step == step);
                let (status, duration_ms, cost) = match record {
                    Some(r) => (
                        if r.status == StepStatus::Passed { "passed" } else { "failed" },
                        r.duration_ms,
                        r.cost,
                    ),
                    None => ("not_run", 0, [0; 5]),
                };
                StepReport {
                    name: program.string(info.name).to_string(),
                    status,
                    line: info.line,
                    duration_ms,
                    cost,
                }
            })
            .collect();
        RunReport {
            task: program.string(module.task).to_string(),
            status,
            duration_ms: machine.meters[2],
            steps,
            cost: machine.meters,
        }
    }

    /// SPEC §9 `status`.
    pub fn status_name(&self) -> &'static str {
        match &self.status {
            RunStatus::Passed => "passed",
            RunStatus::Failed(f) => match f.kind {
                FailureKind::BudgetExceeded => "budget_exceeded",
                FailureKind::SecurityViolation => "security_violation",
                _ => "failed",
            },
            RunStatus::Suspended { .. } => "suspended",
        }
    }

    /// The process exit status (SPEC §9).
    pub fn exit_code(&self) -> i32 {
        match &self.status {
            RunStatus::Passed => 0,
            RunStatus::Failed(f) => f.kind.exit_code(),
            RunStatus::Suspended { .. } => 3,
        }
    }

    pub fn to_json(&self) -> Json {
        let failure = match &self.status {
            RunStatus::Failed(f) => {
                let mut obj = json!({
                    "kind": f.kind.name(),
                    "message": f.message,
                    "step": f.step,
                    "line": f.line,
                    "column": f.column,
                    "condition": f.condition,
                    "actual": f.actual.iter().map(|(k, v)| (k.clone(), value_json(v.as_ref()))).collect::<serde_json::Map<_, _>>(),
                });
                if let Some(b) = &f.budget {
                    obj["dimension"] = json!(b.dimension);
                    obj["cap"] = json!(b.cap);
                    obj["spent"] = json!(b.spent);
                    obj["needed"] = json!(b.needed);
                    obj["reason"] = json!(b.reason);
                }
                obj
            }
            _ => Json::Null,
        };
        let snapshot = match &self.status {
            RunStatus::Suspended { snapshot: Some(s), .. } => json!(s),
            _ => Json::Null,
        };
        let cost: serde_json::Map<String, Json> =
            Dim::ALL.iter().zip(self.cost).map(|(d, v)| (d.json_key().to_string(), json!(v))).collect();
        json!({
            "status": self.status_name(),
            "exit_code": self.exit_code(),
            "task": self.task,
            "duration_ms": self.duration_ms,
            "steps": self.steps.iter().map(|s| json!({
                "name": s.name, "status": s.status, "line": s.line, "duration_ms": s.duration_ms,
                "cost": cost_json(&s.cost),
            })).collect::<Vec<_>>(),
            "failure": failure,
            "cost": cost,
            "snapshot": snapshot,
        })
    }

    /// One testsuite for the plan, one testcase per top-level step.
    pub fn to_junit(&self) -> String {
        let failures = self.steps.iter().filter(|s| s.status == "failed").count();
        let skipped = self.steps.iter().filter(|s| s.status != "passed" && s.status != "failed").count();
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&format!(
            "<testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{}\">\n",
            xml(&self.task),
            self.steps.len(),
            seconds(self.duration_ms)
        ));
        for step in &self.steps {
            out.push_str(&format!(
                "  <testcase name=\"{}\" classname=\"{}\" time=\"{}\">",
                xml(&step.name),
                xml(&self.task),
                seconds(step.duration_ms)
            ));
            match (step.status, &self.status) {
                ("failed", RunStatus::Failed(f)) => {
                    out.push_str(&format!(
                        "\n    <failure type=\"{}\" message=\"{}\">{}</failure>\n  ",
                        f.kind.name(),
                        xml(&f.message),
                        xml(&failure_text(f))
                    ));
                }
                ("passed", _) => {}
                _ => out.push_str("\n    <skipped/>\n  "),
            }
            out.push_str("</testcase>\n");
        }
        out.push_str("</testsuite>\n");
        out
    }

    /// The human summary printed after the step lines.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        match &self.status {
            RunStatus::Passed => out.push_str(&format!("passed: {}\n", self.task)),
            RunStatus::Failed(f) => {
                // `failed` for every kind: the report's headline names the kind, once.
                out.push_str(&format!("failed: {}\n", self.task));
                out.push_str(&failure_text(f));
            }
            RunStatus::Suspended { snapshot, reason } => {
                out.push_str(&format!("suspended: {}\n", self.task));
                if let Suspension::Interaction { question, line } = reason {
                    out.push_str(&format!(
                        "  waiting at line {line} for an answer to {}\n",
                        crate::session::answers::describe(question)
                    ));
                }
                if let Some(s) = snapshot {
                    out.push_str(&format!("  snapshot: {s}\n"));
                }
            }
        }
        let cost: Vec<String> =
            Dim::ALL.iter().zip(self.cost).map(|(d, v)| format!("{}={v}", d.json_key())).collect();
        out.push_str(&format!("cost: {}\n", cost.join(" ")));
        out
    }
}

/// A cost per dimension as the JSON object of SPEC §9 (`api_calls`, ...).
fn cost_json(cost: &[u64; 5]) -> Json {
    Json::Object(Dim::ALL.iter().zip(cost).map(|(d, v)| (d.json_key().to_string(), json!(v))).collect())
}

/// A failure report as text: kind, message, place, condition and values.
pub fn failure_text(f: &Failure) -> String {
    let mut out = format!("  {}: {}\n", f.kind.name(), f.message);
    if !f.step.is_empty() {
        out.push_str(&format!("  in step: {}\n", f.step));
    }
    out.push_str(&format!("  at line {}, column {}\n", f.line, f.column));
    if let Some(c) = &f.condition {
        out.push_str(&format!("  condition: {c}\n"));
    }
    for (expr, value) in &f.actual {
        let shown = match value {
            Some(Value::Str(s)) => format!("{s:?}"),
            Some(other) => other.to_text(),
            None => "<unbound>".to_string(),
        };
        out.push_str(&format!("  {expr} = {shown}\n"));
    }
    out
}

/// A value the failure saw, with its type: integers and booleans as JSON's,
/// a duration as its milliseconds (as every `_ms` field), `null` if unread.
fn value_json(value: Option<&Value>) -> Json {
    match value {
        Some(Value::Str(s)) => json!(&**s),
        Some(Value::Int(i)) => json!(i),
        Some(Value::Duration(ms)) => json!(ms),
        Some(Value::Bool(b)) => json!(b),
        Some(record @ Value::Record(_)) => json!(record.to_text()),
        None => Json::Null,
    }
}

fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Escapes text for an XML attribute or element; drops characters XML 1.0 forbids.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}
