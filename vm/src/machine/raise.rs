//! Failures and traps: a failure reaches the innermost TRY around it
//! (through CALL frames) or ends the run, with the report's account of it;
//! a trap is a broken invariant, never the input's fault.

use tisslang::cost::Dim;
use tisslang::module::{NONE, PathRef, PathRootRef};
use tisslang::types::Field;

use crate::host::Host;
use crate::host::RunResult;
use crate::machine::budget::spent_since;
use crate::machine::failure::{BudgetStop, Failure, FailureKind, shorten};
use crate::machine::flow::{Exec, Flow, Regs};
use crate::machine::program::Program;
use crate::machine::value::{ErrorRecord, Record, Value};
use crate::machine::{Machine, Outcome, Status, StepRecord, StepStatus, Suspension};

/// A failure on its way to a TRY or the end of the run.
pub(super) struct Raised {
    pub(super) kind: FailureKind,
    pub(super) message: String,
    /// The failing instruction took tainted data or asked a model, so the
    /// message may quote it: a caught `e.MESSAGE` stays tainted (book: reference/policy.md).
    pub(super) tainted: bool,
    /// The ASSERT that failed, for the report's condition and values.
    pub(super) assertion: Option<u32>,
}

impl Machine {
    #[cold]
    #[inline(never)]
    pub(super) fn trap(&mut self, r: Regs, pc: u32, message: String) -> Flow {
        self.save(&r);
        self.stop(Outcome::Trapped(format!("at pc {pc}: {message}")))
    }

    #[cold]
    #[inline(never)]
    pub(super) fn trap_past_end(&mut self, r: Regs) -> Flow {
        self.save(&r);
        let pc = r.pc;
        self.stop(Outcome::Trapped(format!("pc {pc} is past the end of the code")))
    }

    /// A missing operand (`found` is `None`) or one of the wrong type.
    #[cold]
    #[inline(never)]
    pub(super) fn bad_operand(&mut self, r: Regs, pc: u32, expected: &str, found: Option<&str>) -> Flow {
        let message = match found {
            None => "operand stack underflow".to_string(),
            Some(found) => format!("expected a {expected}, found a {found}"),
        };
        self.trap(r, pc, message)
    }

    #[cold]
    #[inline(never)]
    pub(super) fn assertion_failed(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        assertion: u32,
        pc: u32,
    ) -> Flow {
        let message = match program.module.assertions.get(assertion as usize) {
            Some(a) if a.message != NONE => program.string(a.message).to_string(),
            // The kind (`assertion_failed`) is reported beside the message:
            // the message says which condition, not that it failed.
            Some(a) => format!("`{}` is false", program.string(a.condition)),
            None => "the condition is false".to_string(),
        };
        // The MESSAGE is a constant here: built ones are FAIL's.
        self.exceptional(program, host, Exec::Assert(assertion, message), pc, false)
    }

    #[cold]
    pub(super) fn fuel_exhausted(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        cap: u64,
        pc: u32,
    ) -> Flow {
        self.meters[Dim::Instructions] -= 1;
        let stop = BudgetStop::refused(
            Dim::Instructions,
            cap,
            self.meters[Dim::Instructions],
            1,
            "the next instruction",
            false,
        );
        let outcome = self.budget_failure(program, host, stop, pc);
        self.stop(outcome)
    }

    /// An instruction that did not simply complete; `tainted`: a failure's
    /// message may hold tainted data (see [`Raised::tainted`]).
    #[cold]
    pub(super) fn exceptional(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        exec: Exec,
        pc: u32,
        tainted: bool,
    ) -> Flow {
        let outcome = match exec {
            Exec::Raise((kind, message)) => {
                self.raise(program, host, Raised { kind, message, tainted, assertion: None }, pc)
            }
            Exec::Assert(assertion, message) => {
                let kind = FailureKind::AssertionFailed;
                self.raise(program, host, Raised { kind, message, tainted, assertion: Some(assertion) }, pc)
            }
            Exec::Budget(stop) => self.budget_failure(program, host, *stop, pc),
            Exec::Suspend(question) => {
                // Re-run this instruction when answered; it has not happened yet.
                self.pc = pc;
                self.meters[Dim::Instructions] -= 1;
                let suspension = Suspension::Interaction { question, line: program.line(pc) };
                self.status = Status::Suspended(suspension.clone());
                Outcome::Suspended(suspension)
            }
            Exec::Trap(message) => Outcome::Trapped(format!("at pc {pc}: {message}")),
        };
        match outcome {
            Outcome::Running => Flow::Continue,
            other => self.stop(other),
        }
    }

    #[cold]
    pub(super) fn stop(&mut self, outcome: Outcome) -> Flow {
        self.stopped = Some(outcome);
        Flow::Stop
    }

    /// Evaluates a side-effect-free path, for an assertion's report.
    pub(super) fn observe(&self, path: &PathRef) -> Option<Value> {
        let mut value = match path.root {
            PathRootRef::Slot(slot) => self.slots.get(slot as usize)?.clone()?,
            PathRootRef::LastRun => self.last_run_record()?,
            PathRootRef::Cost => Value::Record(Box::new(Record::Cost(self.step_spending()))),
        };
        for &field in &path.fields {
            value = match &value {
                Value::Record(r) => r.field(Field::from_u8(field)?)?,
                _ => return None,
            };
        }
        Some(value)
    }

    /// A failure at `fail_pc`: caught by the innermost TRY around it (through
    /// CALL frames), or the end of the run.
    pub(super) fn raise(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        raised: Raised,
        fail_pc: u32,
    ) -> Outcome {
        let Raised { kind, message, tainted, assertion } = raised;
        let (line, column) = program.module.position(fail_pc).unwrap_or((0, 0));
        let step = self.step_path(program);
        if kind.catchable() {
            let mut pc = fail_pc;
            let mut frame_depth = self.frames.len();
            loop {
                let handler = program.module.handlers.iter().find(|h| h.start <= pc && pc < h.end).copied();
                if let Some(h) = handler {
                    let innermost = self.current_step_name(program).unwrap_or("").to_string();
                    self.frames.truncate(frame_depth);
                    let base = self.frames.last().map_or(0, |f| f.step_base);
                    let keep = (base + h.step_depth) as usize;
                    self.log_failed_step_ends(program, host, keep);
                    self.steps.truncate(keep);
                    self.stack.truncate(h.stack_depth as usize);
                    let record = ErrorRecord {
                        kind: kind.name().to_string(),
                        message: message.clone(),
                        step: innermost,
                        line: i64::from(line),
                        tainted,
                    };
                    if h.catch_slot != NONE
                        && let Some(cell) = self.slots.get_mut(h.catch_slot as usize)
                    {
                        *cell = Some(Value::Record(Box::new(Record::Error(record))));
                    }
                    self.log(program, host, "caught", &message, kind.name(), 0);
                    self.pc = h.target;
                    return Outcome::Running;
                }
                if frame_depth == 0 {
                    break;
                }
                frame_depth -= 1;
                pc = self.frames[frame_depth].return_pc - 1;
            }
        }
        let (condition, actual) = match assertion.and_then(|a| program.module.assertions.get(a as usize)) {
            Some(a) => (
                Some(program.string(a.condition).to_string()),
                a.observed
                    .iter()
                    .map(|o| {
                        let seen = self.observe(&o.path).map(|v| match v {
                            Value::Str(s) => Value::Str(shorten(&s).into()),
                            Value::Tainted(s) => Value::Tainted(shorten(&s).into()),
                            other => other,
                        });
                        (program.string(o.text).to_string(), seen)
                    })
                    .collect(),
            ),
            None => (None, Vec::new()),
        };
        let failure =
            Failure { kind, message, step, line, column, condition, actual, budget: None, command: None };
        self.fail(program, host, failure)
    }

    pub(super) fn budget_failure(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        stop: BudgetStop,
        pc: u32,
    ) -> Outcome {
        let (line, column) = program.module.position(pc).unwrap_or((0, 0));
        let failure = Failure {
            kind: FailureKind::BudgetExceeded,
            message: stop.message,
            step: self.step_path(program),
            line,
            column,
            condition: None,
            actual: Vec::new(),
            budget: Some(stop.breach),
            command: None,
        };
        self.fail(program, host, failure)
    }

    pub(super) fn fail(&mut self, program: &Program, host: &mut dyn Host, mut failure: Failure) -> Outcome {
        failure.command = self.failing_step_command();
        self.log(program, host, "failed", &failure.message, failure.kind.name(), 0);
        self.log_failed_step_ends(program, host, 0);
        self.status = Status::Failed(failure.clone());
        self.close_failed_step();
        Outcome::Failed(failure)
    }

    /// The last command of the top-level step that is failing, its output
    /// shortened: LAST_RUN, if that step set it (a command that started
    /// counts in RUN_COUNT and sets LAST_RUN, one that could not start does
    /// neither).
    pub(super) fn failing_step_command(&self) -> Option<Box<RunResult>> {
        let step = self.steps.first()?;
        let run_count = Dim::RunCount;
        if self.meters[run_count] <= step.meters_at_entry[run_count] {
            return None;
        }
        let run = self.last_run.as_ref()?;
        Some(Box::new(RunResult {
            stdout: shorten(&run.stdout),
            stderr: shorten(&run.stderr),
            ..(**run).clone()
        }))
    }

    /// Records the top-level step that was running as failed.
    pub(super) fn close_failed_step(&mut self) {
        if let Some(top) = self.steps.first() {
            let duration =
                self.meters[Dim::ExecutionTime].saturating_sub(top.meters_at_entry[Dim::ExecutionTime]);
            let cost = spent_since(&self.meters, &top.meters_at_entry);
            self.step_records.push(StepRecord {
                step: top.step,
                status: StepStatus::Failed,
                duration_ms: duration,
                cost,
            });
        }
    }

    /// A failure ends the open steps above the first `keep` (all of them if
    /// uncaught, those inside the TRY if caught): a failed `step_end` for
    /// each, innermost first, as STEP_EXIT would log a passed one.
    pub(super) fn log_failed_step_ends(&mut self, program: &Program, host: &mut dyn Host, keep: usize) {
        self.sync_time(host);
        for (depth, open) in self.steps.iter().enumerate().skip(keep).rev() {
            let duration =
                self.meters[Dim::ExecutionTime].saturating_sub(open.meters_at_entry[Dim::ExecutionTime]);
            self.log_step_end(program, host, open.step, depth as u32, "failed", duration);
        }
    }
}
