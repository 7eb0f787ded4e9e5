//! The run report (book: reference/formats.md), built from the machine's final state; written
//! as JSON (`json.rs`), JUnit XML (`junit.rs`) or text (`text.rs`); the
//! HTML report (`html/`) is rendered from the JSON, one plan's or many's.

pub mod combined;
pub mod effects;
pub mod event_log;
pub mod github;
pub mod html;
mod json;
mod junit;
pub mod style;
mod text;

pub use junit::xml;
pub use text::failure_text;

use tisslang::cost::{Dim, PerDim};

use crate::machine::failure::{Failure, FailureKind};
use crate::machine::program::Program;
use crate::machine::{Machine, Outcome, StepRecord, StepStatus, Suspension};
use crate::report::effects::Effects;
use tiss_host::sandbox::Isolation;

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
    /// What the step spent (zero for a step not run).
    pub cost: PerDim<u64>,
    /// Its LOG messages (and those of the steps and tasks inside it), in order.
    pub logs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub task: String,
    pub status: RunStatus,
    pub duration_ms: u64,
    pub steps: Vec<StepReport>,
    /// Run totals.
    pub cost: PerDim<u64>,
    /// The isolation RUN had (set by the caller that prepared the sandbox).
    pub sandbox: Option<Isolation>,
    /// The caps in force at the end (`None`: no cap).
    pub budgets: PerDim<Option<u64>>,
    /// The effects of this session of the run (set by the caller whose host
    /// recorded them; a resumed run's report has those since the resume).
    pub effects: Effects,
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
                command: None,
            }),
        };
        // Records and logs by step, gathered in one pass each: a plan of many
        // steps must not rescan them for every step.
        let mut records: Vec<Option<&StepRecord>> = vec![None; module.steps.len()];
        for record in machine.step_records.iter().rev() {
            if let Some(slot) = records.get_mut(record.step as usize) {
                *slot = Some(record);
            }
        }
        let mut logs: Vec<Vec<String>> = vec![Vec::new(); module.steps.len()];
        for log in &machine.logs {
            if let Some(list) = logs.get_mut(log.step as usize) {
                list.push(log.message.clone());
            }
        }
        let steps = program
            .top_level_steps
            .iter()
            .map(|&step| {
                let info = &module.steps[step as usize];
                let (status, duration_ms, cost) = match records.get(step as usize).copied().flatten() {
                    Some(r) => (
                        if r.status == StepStatus::Passed { "passed" } else { "failed" },
                        r.duration_ms,
                        r.cost,
                    ),
                    None => ("not_run", 0, PerDim::default()),
                };
                StepReport {
                    name: program.string(info.name).to_string(),
                    status,
                    line: info.line,
                    duration_ms,
                    cost,
                    logs: logs.get_mut(step as usize).map(std::mem::take).unwrap_or_default(),
                }
            })
            .collect();
        RunReport {
            task: program.string(module.task).to_string(),
            status,
            duration_ms: machine.meters[Dim::ExecutionTime],
            steps,
            cost: machine.meters,
            sandbox: None,
            budgets: machine.budgets,
            effects: Effects::default(),
        }
    }

    /// The report's `status` (book: reference/formats.md).
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

    /// The process exit status (book: reference/failures.md).
    pub fn exit_code(&self) -> i32 {
        match &self.status {
            RunStatus::Passed => 0,
            RunStatus::Failed(f) => f.kind.exit_code(),
            RunStatus::Suspended { .. } => 3,
        }
    }
}
