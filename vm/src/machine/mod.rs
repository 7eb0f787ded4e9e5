//! The machine: one plain, serializable state struct and one dispatch loop.
//!
//! No interpreter state lives on the Rust call stack: CALL pushes a frame on
//! `frames`, STEP_ENTER on `steps`, and TRY is a static handler table, so the
//! machine can stop after any instruction, be written out, and resume in
//! another process. [`Machine::step`] runs one instruction;
//! [`Machine::run_until`] loops over it.

pub mod bounds;
pub mod failure;
pub mod program;
pub mod shell;
pub mod value;

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tisslang::cost::{Dim, PerDim};
use tisslang::isa::{Instr, NO_SLOT, run_flags};
use tisslang::module::{Constant, NONE, PathRef, PathRootRef, TemplatePart};
use tisslang::types::Field;

use crate::host::{
    Answer, Event, FileQuery, Host, HostError, PromptRequest, Question, RunRequest, check_relative,
};
use crate::machine::failure::{BudgetStop, Failure, FailureKind, amount, cap_left, shorten};
use crate::machine::program::{Op, Program};
use crate::machine::shell::{Piece, build_command};
use crate::machine::value::{ErrorRecord, Record, RunResult, Value};
use crate::policy::{Policy, Verdict};

/// A CALL in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    pub return_pc: u32,
    /// How many steps were open at the CALL.
    pub step_base: u32,
}

/// A step in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenStep {
    pub step: u32,
    /// The run's meters when the step was entered.
    pub meters_at_entry: PerDim<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepStatus {
    Passed,
    Failed,
}

/// The outcome of a top-level step, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRecord {
    pub step: u32,
    pub status: StepStatus,
    pub duration_ms: u64,
    /// What the step spent, per dimension in `Dim::ALL` order.
    pub cost: PerDim<u64>,
}

/// A LOG message, for the report: under the top-level step it ran in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogRecord {
    pub step: u32,
    /// Shortened to head and tail, as any long value in a report.
    pub message: String,
}

fn no_fuel_limit() -> u64 {
    u64::MAX
}

/// The meters' growth since `base`.
fn spent_since(meters: &PerDim<u64>, base: &PerDim<u64>) -> PerDim<u64> {
    PerDim::from_fn(|dim| meters[dim].saturating_sub(base[dim]))
}

/// Why the machine stopped before the end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Suspension {
    /// A PAUSE, REQUEST_REVIEW or CHOOSE is waiting for a human.
    Interaction { question: Question, line: u32 },
    /// Stopped on request (debugger, SIGINT) at an instruction boundary.
    Requested,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    Running,
    Completed,
    Failed(Failure),
    Suspended(Suspension),
}

/// The result of running an instruction (or many).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// More to run.
    Running,
    Completed,
    Failed(Failure),
    Suspended(Suspension),
    /// The bytecode or the state broke an invariant the verifier or the
    /// snapshot check should have excluded: a bug, never the input's fault.
    Trapped(String),
}

/// The whole machine state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub pc: u32,
    #[serde(deserialize_with = "bounds::stack")]
    pub stack: Vec<Value>,
    #[serde(deserialize_with = "bounds::frames")]
    pub frames: Vec<Frame>,
    #[serde(deserialize_with = "bounds::open_steps")]
    pub steps: Vec<OpenStep>,
    #[serde(deserialize_with = "bounds::slots")]
    pub slots: Vec<Option<Value>>,
    pub last_run: Option<RunResult>,
    /// Run totals per dimension, in `Dim::ALL` order (time in ms).
    pub meters: PerDim<u64>,
    /// Caps per dimension (the lower of SET_BUDGET and `--budget`).
    pub budgets: PerDim<Option<u64>>,
    /// The INSTRUCTIONS cap, or `u64::MAX`: the dispatch loop compares
    /// against it unconditionally, so a budget costs nothing extra. Derived
    /// from `budgets` (refreshed whenever a run starts or resumes), so it is
    /// not part of the state a snapshot stores.
    #[serde(skip, default = "no_fuel_limit")]
    fuel_limit: u64,
    #[serde(deserialize_with = "bounds::env")]
    pub env: Vec<(String, String)>,
    /// An ENV was set from tainted text: every later RUN's environment
    /// holds it, so every later RUN counts as tainted (SPEC §8).
    pub env_tainted: bool,
    pub status: Status,
    #[serde(deserialize_with = "bounds::step_records")]
    pub step_records: Vec<StepRecord>,
    /// Every LOG message so far, in order.
    #[serde(deserialize_with = "bounds::logs")]
    pub logs: Vec<LogRecord>,
    /// Human interactions answered so far (the k-th answer of `--answers`).
    pub interactions: u32,
    /// PROMPT_AGENTs that reached the provider so far, answered or not (the
    /// k-th answer of `--mock-answers`).
    pub prompts: u32,
    /// How many times each query with its context has reached the provider,
    /// by fingerprint ([`prompt_fingerprint`]), sorted: the occurrence a
    /// cassette records and replays, counted across resume.
    #[serde(deserialize_with = "bounds::asked")]
    pub asked: Vec<([u8; 16], u32)>,
    /// Host clock at the last time-meter update; not part of the state
    /// (a resumed run restarts its clock, so suspended time never counts).
    #[serde(skip)]
    clock: Option<u64>,
    /// Why the dispatch loop stopped, handed from the instruction to the loop.
    #[serde(skip)]
    stopped: Option<Outcome>,
    /// The command policy every RUN is checked against before it starts
    /// (`None`: every command may run): a run option, not run state (a
    /// snapshot remembers it with the options).
    #[serde(skip)]
    policy: Option<Rc<Policy>>,
}

type Raise = (FailureKind, String);

/// A prompt's identity within a run: the first 16 bytes of the SHA-256 of its
/// query and each context name and value, each with its length first.
pub fn prompt_fingerprint(query: &str, context: &[(String, String)]) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for part in std::iter::once(query).chain(context.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()])) {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    let digest = hash.finalize();
    let mut out = [0; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

impl Machine {
    pub fn new(program: &Program) -> Machine {
        Machine {
            pc: 0,
            stack: Vec::with_capacity(program.module.max_stack as usize),
            frames: Vec::new(),
            steps: Vec::new(),
            // Not `vec![None; n]`: that clones `None` element by element.
            slots: std::iter::repeat_with(|| None).take(program.module.slots.len()).collect(),
            last_run: None,
            meters: PerDim::default(),
            budgets: PerDim::default(),
            fuel_limit: u64::MAX,
            env: Vec::new(),
            env_tainted: false,
            status: Status::Running,
            step_records: Vec::new(),
            logs: Vec::new(),
            interactions: 0,
            prompts: 0,
            asked: Vec::new(),
            clock: None,
            stopped: None,
            policy: None,
        }
    }

    /// The command policy for the RUNs from here on (`None`: none).
    pub fn set_policy(&mut self, policy: Option<Rc<Policy>>) {
        self.policy = policy;
    }

    /// Applies a cap; the lower of two caps wins.
    pub fn cap(&mut self, dim: Dim, value: u64) {
        let slot = &mut self.budgets[dim];
        *slot = Some(slot.map_or(value, |old| old.min(value)));
        if dim == Dim::Instructions {
            self.fuel_limit = self.budgets[dim].unwrap_or(u64::MAX);
        }
    }

    /// Runs until `stop` says so before an instruction, or the run ends.
    pub fn run_until(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        mut stop: impl FnMut(&Machine) -> bool,
    ) -> Outcome {
        if let Some(done) = self.resume_status() {
            return done;
        }
        self.start_clock(host);
        let mut regs = self.regs();
        let outcome = loop {
            self.save(&regs);
            if stop(self) {
                break Outcome::Running;
            }
            if self.execute_one(&mut regs, program, host) == Flow::Stop {
                break self.stopped.take().unwrap_or(Outcome::Running);
            }
        };
        self.sync_time(host);
        self.clock = None;
        outcome
    }

    /// Runs to the end (or a failure or suspension).
    pub fn run(&mut self, program: &Program, host: &mut dyn Host) -> Outcome {
        self.run_until(program, host, |_| false)
    }

    fn start_clock(&mut self, host: &mut dyn Host) {
        if self.clock.is_none() {
            self.clock = Some(host.now_ms());
        }
    }

    /// Folds the wall time since the last update into EXECUTION_TIME.
    fn sync_time(&mut self, host: &mut dyn Host) {
        let now = host.now_ms();
        if let Some(then) = self.clock {
            self.meters[Dim::ExecutionTime] =
                self.meters[Dim::ExecutionTime].saturating_add(now.saturating_sub(then));
        }
        self.clock = Some(now);
    }

    /// Whether this state is `before` but for EXECUTION_TIME: what a resumed
    /// run that suspends again at once (no answer yet) leaves, since finding
    /// that out takes a few milliseconds of the clock. Such a run keeps its
    /// snapshot instead of writing a new one.
    pub fn is_unchanged_since(&self, before: &Machine) -> bool {
        let time = Dim::ExecutionTime;
        if self.meters[time] < before.meters[time] {
            return false;
        }
        let mut timed = before.clone();
        timed.meters[time] = self.meters[time];
        timed == *self
    }

    /// Runs one instruction.
    pub fn step(&mut self, program: &Program, host: &mut dyn Host) -> Outcome {
        if let Some(done) = self.resume_status() {
            return done;
        }
        let mut regs = self.regs();
        match self.execute_one(&mut regs, program, host) {
            Flow::Continue => {
                self.save(&regs);
                Outcome::Running
            }
            Flow::Stop => self.stopped.take().unwrap_or(Outcome::Running),
        }
    }

    #[inline(always)]
    fn regs(&self) -> Regs {
        Regs { pc: self.pc, fuel: self.meters[Dim::Instructions], fuel_limit: self.fuel_limit }
    }

    /// Writes the loop's registers back: the machine is the whole state again.
    #[inline(always)]
    fn save(&mut self, regs: &Regs) {
        self.pc = regs.pc;
        self.meters[Dim::Instructions] = regs.fuel;
    }

    /// The outcome of a run that has ended; a suspended run is running again.
    fn resume_status(&mut self) -> Option<Outcome> {
        self.fuel_limit = self.budgets[Dim::Instructions].unwrap_or(u64::MAX);
        match &self.status {
            Status::Running => None,
            Status::Completed => Some(Outcome::Completed),
            Status::Failed(f) => Some(Outcome::Failed(f.clone())),
            Status::Suspended(_) => {
                self.status = Status::Running;
                None
            }
        }
    }

    /// The dispatch loop's body: fetch, meter, execute. The frequent,
    /// effect-free instructions run here on pre-decoded `Op`s and work on
    /// the stack in place; everything else goes through `exec_other`, and
    /// everything off the straight path (failures, budgets, suspension) is in
    /// cold functions. The verifier and the snapshot check (which holds a
    /// resumed machine to the verifier's facts) exclude every wrong operand;
    /// the checks here stay as a second guard, so a bug in either is a
    /// trap, never a panic.
    ///
    /// `r` holds the pc and the INSTRUCTIONS meter; every path that leaves
    /// this function's straight line (`exec_other`, every cold function)
    /// writes them back first, and on `Flow::Stop` the machine is the state.
    #[inline(always)]
    fn execute_one(&mut self, r: &mut Regs, program: &Program, host: &mut dyn Host) -> Flow {
        let pc = r.pc;
        let Some(&op) = program.ops.get(pc as usize) else {
            return self.trap_past_end(*r);
        };
        r.pc = pc + 1;
        r.fuel += 1;
        if r.fuel > r.fuel_limit {
            self.save(r);
            return self.fuel_exhausted(program, host, r.fuel_limit, pc);
        }
        match op {
            Op::PushStr(i) => match program.const_strs.get(i as usize) {
                Some(text) => self.stack.push(Value::Str(text.clone())),
                None => return self.trap(*r, pc, format!("string constant {i} out of range")),
            },
            Op::PushInt(i) => self.stack.push(Value::Int(i64::from(i))),
            Op::PushDuration(d) => self.stack.push(Value::Duration(u64::from(d))),
            Op::PushBool(b) => self.stack.push(Value::Bool(b)),
            Op::Pop => match self.stack.pop() {
                Some(value) => value.discard(),
                None => return self.bad_operand(*r, pc, "value", None),
            },
            Op::Load(slot) => match self.slots.get(slot as usize) {
                Some(Some(value)) => {
                    let value = value.clone();
                    self.stack.push(value);
                }
                _ => return self.trap(*r, pc, format!("slot {slot} read before it was bound")),
            },
            Op::Store(slot) => {
                let Some(value) = self.stack.pop() else { return self.bad_operand(*r, pc, "value", None) };
                match self.slots.get_mut(slot as usize) {
                    Some(cell) => {
                        if let Some(old) = cell.replace(value) {
                            old.discard();
                        }
                    }
                    None => return self.trap(*r, pc, format!("slot {slot} out of range")),
                }
            }
            Op::Eq => return self.equality(*r, pc, true),
            Op::Ne => return self.equality(*r, pc, false),
            Op::Lt => return self.order(*r, pc, std::cmp::Ordering::is_lt),
            Op::Le => return self.order(*r, pc, std::cmp::Ordering::is_le),
            Op::Gt => return self.order(*r, pc, std::cmp::Ordering::is_gt),
            Op::Ge => return self.order(*r, pc, std::cmp::Ordering::is_ge),
            Op::Contains => return self.str_test(*r, pc, crate::machine::value::contains),
            Op::StartsWith => return self.str_test(*r, pc, |h, n| h.starts_with(n)),
            Op::EndsWith => return self.str_test(*r, pc, |h, n| h.ends_with(n)),
            Op::IsEmpty => {
                let Some(top) = self.stack.last_mut() else {
                    return self.bad_operand(*r, pc, "string", None);
                };
                let Some(s) = top.text() else {
                    let found = top.type_name();
                    return self.bad_operand(*r, pc, "string", Some(found));
                };
                let empty = s.is_empty();
                std::mem::replace(top, Value::Bool(empty)).discard();
            }
            Op::Not => match self.stack.last_mut() {
                Some(Value::Bool(b)) => *b = !*b,
                other => {
                    let found = other.map(|v| v.type_name());
                    return self.bad_operand(*r, pc, "boolean", found);
                }
            },
            Op::Jump(target) => r.pc = target,
            Op::JumpIfFalse(target) => match self.pop_bool() {
                Ok(b) => {
                    if !b {
                        r.pc = target;
                    }
                }
                Err(found) => return self.bad_operand(*r, pc, "boolean", found),
            },
            Op::JumpIfTrue(target) => match self.pop_bool() {
                Ok(b) => {
                    if b {
                        r.pc = target;
                    }
                }
                Err(found) => return self.bad_operand(*r, pc, "boolean", found),
            },
            Op::Assert(assertion) => match self.pop_bool() {
                Ok(true) => {}
                Ok(false) => {
                    self.save(r);
                    let flow = self.assertion_failed(program, host, assertion, pc);
                    // A TRY may have caught it: the pc is the handler's.
                    *r = self.regs();
                    return flow;
                }
                Err(found) => return self.bad_operand(*r, pc, "boolean", found),
            },
            Op::Other => {
                self.save(r);
                let flow = self.exec_other(program, host, pc);
                // The instruction may have moved the pc (CALL, a caught
                // failure) or changed the fuel cap (SET_BUDGET).
                *r = self.regs();
                return flow;
            }
        }
        Flow::Continue
    }

    /// Pops a boolean, or says what was there instead (`None`: nothing).
    /// The value is consumed by `discard` on every path: matching on the
    /// popped `Option<Value>` directly would leave the compiler's
    /// out-of-line drop glue on the boolean path.
    #[inline(always)]
    fn pop_bool(&mut self) -> Result<bool, Option<&'static str>> {
        let Some(value) = self.stack.pop() else { return Err(None) };
        let result = match &value {
            Value::Bool(b) => Ok(*b),
            other => Err(Some(other.type_name())),
        };
        value.discard();
        result
    }

    /// EQ and NE: the top two values compared where they lie, the result
    /// replacing them.
    #[inline(always)]
    fn equality(&mut self, r: Regs, pc: u32, want_equal: bool) -> Flow {
        let Some(b) = self.stack.pop() else { return self.bad_operand(r, pc, "value", None) };
        let Some(a) = self.stack.last_mut() else { return self.bad_operand(r, pc, "value", None) };
        let equal = match (&*a, &b) {
            // `Rc` equality looks at the pointers first.
            (Value::Str(x), Value::Str(y)) => x == y,
            (Value::Int(x), Value::Int(y)) => x == y,
            _ => a.same_as(&b),
        };
        std::mem::replace(a, Value::Bool(equal == want_equal)).discard();
        b.discard();
        Flow::Continue
    }

    /// LT, LE, GT, GE on two integers or two durations.
    #[inline(always)]
    fn order(&mut self, r: Regs, pc: u32, test: impl Fn(std::cmp::Ordering) -> bool) -> Flow {
        let Some(b) = self.stack.pop() else { return self.bad_operand(r, pc, "value", None) };
        let Some(a) = self.stack.last_mut() else { return self.bad_operand(r, pc, "value", None) };
        let ordering = match (&*a, &b) {
            (Value::Int(x), Value::Int(y)) => x.cmp(y),
            (Value::Duration(x), Value::Duration(y)) => x.cmp(y),
            _ => {
                let message = format!("cannot order a {} and a {}", a.type_name(), b.type_name());
                return self.trap(r, pc, message);
            }
        };
        std::mem::replace(a, Value::Bool(test(ordering))).discard();
        b.discard();
        Flow::Continue
    }

    /// CONTAINS, STARTS_WITH, ENDS_WITH: pop the needle, test the haystack
    /// below it in place.
    #[inline(always)]
    fn str_test(&mut self, r: Regs, pc: u32, test: impl Fn(&str, &str) -> bool) -> Flow {
        let needle = match self.stack.pop() {
            Some(Value::Str(s) | Value::Tainted(s)) => s,
            other => return self.bad_operand(r, pc, "string", other.as_ref().map(Value::type_name)),
        };
        let Some(top) = self.stack.last_mut() else { return self.bad_operand(r, pc, "string", None) };
        let Some(haystack) = top.text() else {
            let found = top.type_name();
            return self.bad_operand(r, pc, "string", Some(found));
        };
        let result = test(haystack, &needle);
        std::mem::replace(top, Value::Bool(result)).discard();
        Flow::Continue
    }

    /// The instructions `Op` leaves as bytecode: effects, steps, calls,
    /// records. Out of line, so the hot loop stays small.
    #[inline(never)]
    fn exec_other(&mut self, program: &Program, host: &mut dyn Host, pc: u32) -> Flow {
        // `ops` and `code` have the same length (`Program::new`).
        let Some(&instr) = program.module.code.get(pc as usize) else {
            return self.stop(Outcome::Trapped(format!("pc {pc} is past the end of the code")));
        };
        match self.exec(instr, program, host) {
            Ok(flow) => flow,
            Err(exec) => self.exceptional(program, host, exec, pc),
        }
    }

    #[cold]
    #[inline(never)]
    fn trap(&mut self, r: Regs, pc: u32, message: String) -> Flow {
        self.save(&r);
        self.stop(Outcome::Trapped(format!("at pc {pc}: {message}")))
    }

    #[cold]
    #[inline(never)]
    fn trap_past_end(&mut self, r: Regs) -> Flow {
        self.save(&r);
        let pc = r.pc;
        self.stop(Outcome::Trapped(format!("pc {pc} is past the end of the code")))
    }

    /// A missing operand (`found` is `None`) or one of the wrong type.
    #[cold]
    #[inline(never)]
    fn bad_operand(&mut self, r: Regs, pc: u32, expected: &str, found: Option<&str>) -> Flow {
        let message = match found {
            None => "operand stack underflow".to_string(),
            Some(found) => format!("expected a {expected}, found a {found}"),
        };
        self.trap(r, pc, message)
    }

    #[cold]
    #[inline(never)]
    fn assertion_failed(&mut self, program: &Program, host: &mut dyn Host, assertion: u32, pc: u32) -> Flow {
        let message = match program.module.assertions.get(assertion as usize) {
            Some(a) if a.message != NONE => program.string(a.message).to_string(),
            // The kind (`assertion_failed`) is reported beside the message:
            // the message says which condition, not that it failed.
            Some(a) => format!("`{}` is false", program.string(a.condition)),
            None => "the condition is false".to_string(),
        };
        self.exceptional(program, host, Exec::Assert(assertion, message), pc)
    }

    #[cold]
    fn fuel_exhausted(&mut self, program: &Program, host: &mut dyn Host, cap: u64, pc: u32) -> Flow {
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

    /// An instruction that did not simply complete.
    #[cold]
    fn exceptional(&mut self, program: &Program, host: &mut dyn Host, exec: Exec, pc: u32) -> Flow {
        let outcome = match exec {
            Exec::Raise((kind, message)) => self.raise(program, host, kind, message, pc, None),
            Exec::Assert(assertion, message) => {
                self.raise(program, host, FailureKind::AssertionFailed, message, pc, Some(assertion))
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
    fn stop(&mut self, outcome: Outcome) -> Flow {
        self.stopped = Some(outcome);
        Flow::Stop
    }

    #[inline]
    fn pop(&mut self) -> Result<Value, Exec> {
        self.stack.pop().ok_or_else(|| Exec::Trap("operand stack underflow".into()))
    }

    #[inline]
    fn pop_str(&mut self) -> Result<std::rc::Rc<str>, Exec> {
        match self.pop()? {
            Value::Str(s) | Value::Tainted(s) => Ok(s),
            other => Err(Exec::Trap(format!("expected a string, found a {}", other.type_name()))),
        }
    }

    #[inline]
    fn push(&mut self, value: Value) {
        self.stack.push(value);
    }

    /// A plan path, checked lexically; an escape is a security violation.
    fn pop_path(&mut self) -> Result<String, Exec> {
        let path = self.pop_str()?.to_string();
        check_relative(&path).map_err(|m| Exec::Raise((FailureKind::SecurityViolation, m)))?;
        Ok(path)
    }

    /// Runs an instruction that `Op` does not pre-decode.
    fn exec(&mut self, instr: Instr, program: &Program, host: &mut dyn Host) -> Result<Flow, Exec> {
        let module = &program.module;
        match instr {
            // Mostly an `Op`: here only for a number too large for one, or
            // a constant that does not exist.
            Instr::PushConst { index } => {
                let value = match module.constants.get(index as usize) {
                    Some(Constant::Str(s)) => Value::Str(program.string(*s).into()),
                    Some(Constant::Int(i)) => Value::Int(*i),
                    Some(Constant::Duration(d)) => Value::Duration(*d),
                    Some(Constant::Bool(b)) => Value::Bool(*b),
                    None => return Err(Exec::Trap(format!("constant {index} out of range"))),
                };
                self.push(value);
            }
            Instr::Pop {}
            | Instr::Load { .. }
            | Instr::Store { .. }
            | Instr::Eq {}
            | Instr::Ne {}
            | Instr::Lt {}
            | Instr::Le {}
            | Instr::Gt {}
            | Instr::Ge {}
            | Instr::Contains {}
            | Instr::StartsWith {}
            | Instr::EndsWith {}
            | Instr::IsEmpty {}
            | Instr::Not {}
            | Instr::Jump { .. }
            | Instr::JumpIfFalse { .. }
            | Instr::JumpIfTrue { .. }
            | Instr::Assert { .. } => {
                return Err(Exec::Trap(format!("{} is run by execute_one", instr.mnemonic())));
            }
            Instr::LastRun {} => {
                let run =
                    self.last_run.clone().ok_or_else(|| Exec::Trap("LAST_RUN before any RUN".into()))?;
                self.push(Value::Record(Box::new(Record::LastRun(run))));
            }
            Instr::Cost {} => {
                self.sync_time(host);
                let spent = self.step_spending();
                self.push(Value::Record(Box::new(Record::Cost(spent))));
            }
            Instr::Field { field } => {
                let record = self.pop()?;
                let field = Field::from_u8(field).ok_or_else(|| Exec::Trap(format!("bad field {field}")))?;
                let value = match &record {
                    Value::Record(r) => r.field(field),
                    _ => None,
                };
                let value = value.ok_or_else(|| {
                    Exec::Trap(format!("no field {} on a {}", field.name(), record.type_name()))
                })?;
                self.push(value);
            }
            Instr::Interp { template, holes } | Instr::InterpShell { template, holes } => {
                let at = self
                    .stack
                    .len()
                    .checked_sub(holes as usize)
                    .ok_or_else(|| Exec::Trap("underflow".into()))?;
                let tainted = self.stack[at..].iter().any(Value::is_tainted);
                let values: Vec<String> = self.stack.drain(at..).map(|v| v.to_text()).collect();
                let parts = &module
                    .templates
                    .get(template as usize)
                    .ok_or_else(|| Exec::Trap("bad template".into()))?
                    .parts;
                let mut next = values.iter();
                let pieces = parts.iter().map(|part| match part {
                    TemplatePart::Text(s) => Piece::Text(program.string(*s)),
                    TemplatePart::Hole => Piece::Value(next.next().map_or("", String::as_str)),
                });
                let out = if matches!(instr, Instr::InterpShell { .. }) {
                    build_command(pieces)
                } else {
                    pieces
                        .map(|p| match p {
                            Piece::Text(t) | Piece::Value(t) => t,
                        })
                        .collect()
                };
                // What is made from tainted text is tainted (SPEC §8).
                self.push(if tainted { Value::Tainted(out.into()) } else { Value::Str(out.into()) });
            }
            Instr::Estimate { estimate } => {
                let bound = *module
                    .estimates
                    .get(estimate as usize)
                    .ok_or_else(|| Exec::Trap("bad estimate".into()))?;
                let summary = format!(
                    "runs {}..{}, api calls {}..{}",
                    bound.min[Dim::RunCount],
                    bound.max[Dim::RunCount],
                    bound.min[Dim::ApiCalls],
                    bound.max[Dim::ApiCalls]
                );
                self.log(program, host, "estimate", &summary, "ok", 0);
                self.push(Value::Record(Box::new(Record::Estimate(bound))));
            }
            Instr::Matches { regex } => {
                let text = self.pop_str()?;
                let re = program.regexes.get(regex as usize).ok_or_else(|| Exec::Trap("bad regex".into()))?;
                self.push(Value::Bool(re.is_match(&text)));
            }
            Instr::MatchesDynamic {} => {
                let pattern = self.pop_str()?;
                let text = self.pop_str()?;
                let re = regex::Regex::new(&pattern).map_err(|e| {
                    Exec::Raise((
                        FailureKind::CommandError,
                        format!("`{pattern}` is not a valid regular expression: {e}"),
                    ))
                })?;
                self.push(Value::Bool(re.is_match(&text)));
            }
            Instr::FileExists {} | Instr::FileIsEmpty {} | Instr::FileContains {} => {
                let needle =
                    if matches!(instr, Instr::FileContains {}) { Some(self.pop()?.to_text()) } else { None };
                let path = self.pop_path()?;
                let query = match (&instr, &needle) {
                    (Instr::FileExists {}, _) => FileQuery::Exists,
                    (Instr::FileIsEmpty {}, _) => FileQuery::IsEmpty,
                    (_, Some(n)) => FileQuery::Contains(n),
                    _ => FileQuery::Exists,
                };
                let result = host.file_test(&path, query).map_err(host_error)?;
                self.push(Value::Bool(result));
            }
            Instr::Call { task } => {
                let info = module.tasks.get(task as usize).ok_or_else(|| Exec::Trap("bad task".into()))?;
                let entry = info.entry;
                let what = format!("task \"{}\"", program.string(info.name));
                self.preflight(program, host, &info.bound, 0, &what)?;
                self.frames.push(Frame { return_pc: self.pc, step_base: self.steps.len() as u32 });
                self.pc = entry;
            }
            Instr::Return {} => {
                let frame = self.frames.pop().ok_or_else(|| Exec::Trap("RETURN with no CALL".into()))?;
                self.pc = frame.return_pc;
            }
            Instr::Halt {} => {
                self.status = Status::Completed;
                self.stopped = Some(Outcome::Completed);
                return Ok(Flow::Stop);
            }
            Instr::StepEnter { step } => {
                self.sync_time(host);
                self.check_time()?;
                self.steps.push(OpenStep { step, meters_at_entry: self.meters });
                if let Some(info) = module.steps.get(step as usize) {
                    let what = format!("step \"{}\"", program.string(info.name));
                    // The step's bound counts this STEP_ENTER, which is already
                    // metered. A refused step is open, so the report names it.
                    self.preflight(program, host, &info.bound, 1, &what)?;
                }
                let name =
                    program.string(module.steps.get(step as usize).map_or(NONE, |s| s.name)).to_string();
                self.log(program, host, "step_start", &name, "started", 0);
            }
            Instr::StepExit { step } => {
                self.sync_time(host);
                let open =
                    self.steps.pop().ok_or_else(|| Exec::Trap("STEP_EXIT with no open step".into()))?;
                let duration = self.meters[Dim::ExecutionTime] - open.meters_at_entry[Dim::ExecutionTime];
                if self.steps.is_empty() && self.frames.is_empty() {
                    let cost = spent_since(&self.meters, &open.meters_at_entry);
                    self.step_records.push(StepRecord {
                        step,
                        status: StepStatus::Passed,
                        duration_ms: duration,
                        cost,
                    });
                }
                self.log_step_end(program, host, step, self.steps.len() as u32, "passed", duration);
            }
            Instr::Fail { assertion } => {
                let message = self.pop_str()?.to_string();
                return Err(Exec::Assert(assertion, message));
            }
            Instr::Choose { choice } => {
                let table =
                    module.choices.get(choice as usize).ok_or_else(|| Exec::Trap("bad choice".into()))?;
                let question = Question::Choose {
                    prompt: (table.prompt != NONE).then(|| program.string(table.prompt).to_string()),
                    options: table.options.iter().map(|o| program.string(o.label).to_string()).collect(),
                };
                let line = program.line(self.pc - 1);
                match host.ask(&question, line) {
                    Some(Answer::Choice(i)) if i < table.options.len() => {
                        self.interactions = self.interactions.saturating_add(1);
                        self.pc = table.options[i].target;
                    }
                    Some(other) => {
                        return Err(Exec::Raise((
                            FailureKind::CommandError,
                            format!(
                                "`{other:?}` does not answer a CHOOSE of {} options",
                                table.options.len()
                            ),
                        )));
                    }
                    None => return Err(Exec::Suspend(question)),
                }
            }
            Instr::Run { flags } => self.run_command(flags, program, host)?,
            Instr::Write {} | Instr::Append {} => {
                let content = self.pop()?.to_text();
                let path = self.pop_path()?;
                let append = matches!(instr, Instr::Append {});
                let started = host.now_ms();
                let result = host.write(&path, &content, append);
                let took = host.now_ms().saturating_sub(started);
                let op = if append { "append" } else { "write" };
                self.log(program, host, op, &path, if result.is_ok() { "ok" } else { "failed" }, took);
                result.map_err(host_error)?;
            }
            Instr::Read { slot } => {
                let path = self.pop_path()?;
                let text = host.read(&path);
                self.log(program, host, "read", &path, if text.is_ok() { "ok" } else { "failed" }, 0);
                self.store(slot, Value::Tainted(text.map_err(host_error)?.into()))?;
            }
            Instr::Mkdir {} => {
                let path = self.pop_path()?;
                let result = host.mkdir(&path);
                self.log(program, host, "mkdir", &path, if result.is_ok() { "ok" } else { "failed" }, 0);
                result.map_err(host_error)?;
            }
            Instr::Delete { recursive } => {
                let path = self.pop_path()?;
                let result = host.delete(&path, recursive == 1);
                self.log(program, host, "delete", &path, if result.is_ok() { "ok" } else { "failed" }, 0);
                result.map_err(host_error)?;
            }
            Instr::Log {} => {
                let message = self.pop()?.to_text();
                self.log(program, host, "log", &message, "ok", 0);
                // Statements stand only inside steps (SETUP is one), so a
                // top-level step is open; the report lists the message under it.
                if let Some(top) = self.steps.first() {
                    self.logs.push(LogRecord { step: top.step, message: shorten(&message) });
                }
            }
            Instr::Env { name } => {
                let value = self.pop()?;
                self.env_tainted |= value.is_tainted();
                let value = value.to_text();
                let name = program.string(name).to_string();
                self.env.retain(|(n, _)| *n != name);
                self.env.push((name, value));
            }
            Instr::Prompt { prompt } => self.prompt(prompt, program, host)?,
            Instr::Pause {} => {
                let message = self.stack.last().map(Value::to_text).unwrap_or_default();
                let question = Question::Pause { message };
                match host.ask(&question, program.line(self.pc - 1)) {
                    Some(_) => {
                        self.pop()?;
                        self.interactions = self.interactions.saturating_add(1);
                    }
                    None => return Err(Exec::Suspend(question)),
                }
            }
            Instr::Review { slot } => {
                let message = self.stack.last().map(Value::to_text).unwrap_or_default();
                let question = Question::Review { message: message.clone() };
                let (approved, comment) = self.ask_approval(question, "a REQUEST_REVIEW", program, host)?;
                self.pop()?;
                self.interactions = self.interactions.saturating_add(1);
                if slot == NO_SLOT {
                    if !approved {
                        // The kind says it was rejected: the message says what, and why.
                        let why = rejection_comment(&comment);
                        return Err(Exec::Raise((
                            FailureKind::ReviewRejected,
                            format!("{message:?} ({why})"),
                        )));
                    }
                } else {
                    self.store(slot, Value::Record(Box::new(Record::Review { approved, comment })))?;
                }
            }
            Instr::SetBudget { dim } => {
                let value = match self.pop()? {
                    Value::Int(i) => u64::try_from(i).unwrap_or(0),
                    Value::Duration(ms) => ms,
                    other => return Err(Exec::Trap(format!("a budget of type {}", other.type_name()))),
                };
                let dim =
                    *Dim::ALL.get(usize::from(dim)).ok_or_else(|| Exec::Trap("bad dimension".into()))?;
                self.cap(dim, value);
            }
        }
        Ok(Flow::Continue)
    }

    #[inline]
    fn store(&mut self, slot: u32, value: Value) -> Result<(), Exec> {
        let cell = self
            .slots
            .get_mut(slot as usize)
            .ok_or_else(|| Exec::Trap(format!("slot {slot} out of range")))?;
        *cell = Some(value);
        Ok(())
    }

    /// What the current step has spent (the whole run outside steps).
    fn step_spending(&self) -> PerDim<u64> {
        let base = self.steps.last().map_or(PerDim::default(), |s| s.meters_at_entry);
        spent_since(&self.meters, &base)
    }

    /// Fails with `budget_exceeded` before an effect (`what`) that would
    /// cross a cap.
    fn charge(&mut self, dim: Dim, amount: u64, what: &str) -> Result<(), Exec> {
        if let Some(cap) = self.budgets[dim] {
            let after = self.meters[dim].saturating_add(amount);
            if after > cap {
                return Err(budget(BudgetStop::refused(dim, cap, self.meters[dim], amount, what, false)));
            }
        }
        Ok(())
    }

    /// Fails when the run has used more EXECUTION_TIME than its cap.
    fn check_time(&self) -> Result<(), Exec> {
        match self.budgets[Dim::ExecutionTime] {
            Some(cap) if self.meters[Dim::ExecutionTime] > cap => {
                Err(budget(BudgetStop::crossed(Dim::ExecutionTime, cap, self.meters[Dim::ExecutionTime], "")))
            }
            _ => Ok(()),
        }
    }

    /// Preflight (SPEC §4): work whose *minimum* cost exceeds what is left of
    /// a budget cannot fit on any path and is refused before it starts; work
    /// whose maximum exceeds it is logged as a warning and runs.
    /// `already_counted` instructions of the bound have been metered.
    fn preflight(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        bound: &tisslang::cost::bound::CostBound,
        already_counted: u64,
        what: &str,
    ) -> Result<(), Exec> {
        for dim in Dim::ALL {
            let Some(cap) = self.budgets[dim] else { continue };
            let counted = if dim == Dim::Instructions { already_counted } else { 0 };
            let (min, max) = (bound.min[dim].saturating_sub(counted), bound.max[dim].saturating_sub(counted));
            let left = cap.saturating_sub(self.meters[dim]);
            if min > left {
                return Err(budget(BudgetStop::refused(dim, cap, self.meters[dim], min, what, true)));
            }
            if max > left {
                let message = format!(
                    "{what} may need up to {}, but the {} {}; it runs, and stops if it crosses the cap",
                    amount(dim, max),
                    dim.name(),
                    cap_left(dim, cap, self.meters[dim])
                );
                self.log(program, host, "budget_warning", &message, "warning", 0);
            }
        }
        Ok(())
    }

    fn run_command(&mut self, flags: u8, program: &Program, host: &mut dyn Host) -> Result<(), Exec> {
        self.check_policy(flags, program, host)?;
        let timeout_ms = if flags & run_flags::TIMEOUT != 0 {
            match self.pop()? {
                Value::Duration(ms) => Some(ms),
                other => return Err(Exec::Trap(format!("a timeout of type {}", other.type_name()))),
            }
        } else {
            None
        };
        let dir = if flags & run_flags::DIR != 0 { Some(self.pop_path()?) } else { None };
        let command = self.pop_str()?.to_string();
        self.charge(Dim::RunCount, 1, "this RUN")?;
        self.sync_time(host);
        self.check_time()?;
        // What is left of the time budget bounds the command too: a command
        // still running when it runs out has its process group killed.
        let time_left =
            self.budgets[Dim::ExecutionTime].map(|cap| cap.saturating_sub(self.meters[Dim::ExecutionTime]));
        let (limit, limited_by_budget) = match (timeout_ms, time_left) {
            (Some(t), Some(left)) if left < t => (Some(left), true),
            (None, Some(left)) => (Some(left), true),
            (t, _) => (t, false),
        };
        let request = RunRequest {
            command: command.clone(),
            dir,
            timeout_ms: limit,
            env: self.env.clone(),
            step: self.current_step_name(program).map(str::to_string),
            line: program.line(self.pc - 1),
        };
        let result = host.run(&request);
        // A command that could not start is not a run.
        if result.is_ok() {
            self.meters[Dim::RunCount] += 1;
        }
        self.sync_time(host);
        match result {
            Ok(run) => {
                let outcome =
                    if run.timed_out { "timed_out".to_string() } else { format!("exit {}", run.exit_code) };
                let details = [("stdout", shorten(&run.stdout)), ("stderr", shorten(&run.stderr))];
                let details: Vec<(&str, &str)> = details.iter().map(|(k, v)| (*k, v.as_str())).collect();
                let event = Event {
                    event: "run",
                    step: self.current_step_name(program),
                    depth: self.steps.len() as u32,
                    line: program.line(self.pc - 1),
                    op: &command,
                    outcome: &outcome,
                    duration_ms: run.duration_ms,
                    details: &details,
                };
                host.log(&event);
                let killed_by_budget = limited_by_budget && run.timed_out;
                self.last_run = Some(run);
                if killed_by_budget {
                    // The command ran until the time left ran out: the cap is spent.
                    let cap = self.budgets[Dim::ExecutionTime].unwrap_or(0);
                    let how = format!("; `{command}` was still running and was killed");
                    return Err(budget(BudgetStop::crossed(
                        Dim::ExecutionTime,
                        cap,
                        self.meters[Dim::ExecutionTime].max(cap),
                        &how,
                    )));
                }
                self.check_time()
            }
            Err(e) => {
                self.log(program, host, "run", &command, "failed", 0);
                Err(host_error(e))
            }
        }
    }

    /// The command policy's verdict on the RUN about to start (SPEC §8),
    /// before anything is taken off the stack: an approval that must wait
    /// for a human suspends, and the RUN then runs again from the start.
    fn check_policy(&mut self, flags: u8, program: &Program, host: &mut dyn Host) -> Result<(), Exec> {
        let Some(policy) = self.policy.clone() else { return Ok(()) };
        let above = usize::from(flags & run_flags::TIMEOUT != 0) + usize::from(flags & run_flags::DIR != 0);
        let value = self
            .stack
            .len()
            .checked_sub(1 + above)
            .and_then(|i| self.stack.get(i))
            .ok_or_else(|| Exec::Trap("operand stack underflow".into()))?;
        let command = value.text().ok_or_else(|| Exec::Trap("the command is not a string".into()))?;
        let tainted = value.is_tainted() || self.env_tainted;
        let reason = match policy.decide(command, tainted) {
            Verdict::Run => return Ok(()),
            Verdict::Deny(message) => {
                self.log(program, host, "run", command, "denied", 0);
                return Err(Exec::Raise((FailureKind::SecurityViolation, message)));
            }
            Verdict::Approve(reason) => reason,
        };
        let command = command.to_string();
        let question = Question::Approval { command: command.clone(), reason: reason.clone() };
        let (approved, comment) = self.ask_approval(question, "a RUN that needs approval", program, host)?;
        self.interactions = self.interactions.saturating_add(1);
        if approved {
            self.log(program, host, "approval", &command, "approved", 0);
            return Ok(());
        }
        self.log(program, host, "approval", &command, "rejected", 0);
        let why = rejection_comment(&comment);
        Err(Exec::Raise((
            FailureKind::ReviewRejected,
            format!("`{command}` was not approved to run ({reason}; {why})"),
        )))
    }

    /// Asks `question`, which takes approve or reject (REQUEST_REVIEW, a RUN
    /// the policy holds): the answer and its comment, or a suspension when
    /// there is no answer yet. `what` names the asker if a choice comes back.
    fn ask_approval(
        &self,
        question: Question,
        what: &str,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(bool, String), Exec> {
        match host.ask(&question, program.line(self.pc - 1)) {
            Some(Answer::Review { approved, comment }) => Ok((approved, comment)),
            Some(Answer::Continue) => Ok((true, String::new())),
            Some(Answer::Choice(_)) => {
                Err(Exec::Raise((FailureKind::CommandError, format!("{what} takes approve or reject"))))
            }
            None => Err(Exec::Suspend(question)),
        }
    }

    fn prompt(&mut self, prompt: u32, program: &Program, host: &mut dyn Host) -> Result<(), Exec> {
        let info =
            program.module.prompts.get(prompt as usize).ok_or_else(|| Exec::Trap("bad prompt".into()))?;
        let query = self.pop()?.to_text();
        self.charge(Dim::ApiCalls, 1, "this PROMPT_AGENT")?;

        let mut context = Vec::new();
        for &slot in &info.context {
            let name = program.module.slots.get(slot as usize).map_or("", |s| program.string(s.name));
            if let Some(Some(value)) = self.slots.get(slot as usize) {
                context.push((name.to_string(), value.to_text()));
            }
        }
        if info.default_context
            && let Some(run) = &self.last_run
        {
            context.push(("LAST_RUN.STDOUT".to_string(), run.stdout.clone()));
            context.push(("LAST_RUN.STDERR".to_string(), run.stderr.clone()));
            context.push(("LAST_RUN.EXIT_CODE".to_string(), run.exit_code.to_string()));
        }
        let into = info.into;
        // Preflight on tokens: what is certain of the prompt as it will be
        // sent (query and context, a token per 8 bytes) must fit, and the
        // estimate with the completion allowance may not (a warning).
        let chars: usize = query.chars().count()
            + context.iter().map(|(k, v)| k.chars().count() + v.chars().count()).sum::<usize>();
        let bytes: usize = query.len() + context.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
        let (min_tokens, max_tokens) =
            tisslang::cost::model::prompt_tokens_for_text(bytes as u64, chars as u64);
        let mut bound = tisslang::cost::bound::CostBound::ZERO;
        bound.add_range(Dim::TokenCount, min_tokens, max_tokens);
        self.preflight(program, host, &bound, 0, "the prompt")?;
        self.sync_time(host);
        let calls = Dim::ApiCalls;
        let requests_allowed = self.budgets[calls].map(|cap| cap.saturating_sub(self.meters[calls]));
        let started = host.now_ms();
        let index = self.prompts;
        self.prompts = self.prompts.saturating_add(1);
        let occurrence = self.count_asked(prompt_fingerprint(&query, &context));
        let request = PromptRequest {
            query: query.clone(),
            context,
            requests_allowed,
            index,
            grammar: None,
            occurrence,
            step: self.step_path(program),
            line: program.line(self.pc - 1),
        };
        let result = host.prompt(&request);
        let duration_ms = host.now_ms().saturating_sub(started);
        self.sync_time(host);
        // Every request sent counts, retries included (SPEC §7).
        let requests = match &result {
            Ok(r) => r.requests,
            Err(e) => e.requests,
        };
        let spent_before = self.meters[calls];
        self.meters[calls] = spent_before.saturating_add(requests);
        let response = match result {
            Ok(r) => r,
            Err(e) => {
                self.log(program, host, "prompt", &query, "failed", duration_ms);
                if e.out_of_calls {
                    let cap = self.budgets[calls].unwrap_or(0);
                    let what = format!("a retry of this PROMPT_AGENT (after: {})", e.message);
                    return Err(budget(BudgetStop::refused(
                        Dim::ApiCalls,
                        cap,
                        self.meters[calls],
                        1,
                        &what,
                        false,
                    )));
                }
                return Err(Exec::Raise((FailureKind::ProviderError, e.message)));
            }
        };
        self.meters[Dim::TokenCount] = self.meters[Dim::TokenCount].saturating_add(response.tokens);
        let (tokens, sent) = (response.tokens.to_string(), requests.to_string());
        let usage = if response.estimated { "estimated" } else { "reported" };
        let finish = response.finish_reason.as_deref().unwrap_or("");
        let mut details = vec![("tokens", tokens.as_str()), ("usage", usage), ("requests", sent.as_str())];
        if !finish.is_empty() {
            details.push(("finish_reason", finish));
        }
        let event = Event {
            event: "prompt",
            step: self.current_step_name(program),
            depth: self.steps.len() as u32,
            line: program.line(self.pc - 1),
            op: &query,
            outcome: "ok",
            duration_ms,
            details: &details,
        };
        host.log(&event);
        if into != NONE {
            self.store(into, Value::Tainted(response.text.into()))?;
        }
        // The provider's reported usage counts against TOKEN_COUNT after the fact.
        if let Some(cap) = self.budgets[Dim::TokenCount]
            && self.meters[Dim::TokenCount] > cap
        {
            let how = " (the model's reported usage)";
            return Err(budget(BudgetStop::crossed(Dim::TokenCount, cap, self.meters[Dim::TokenCount], how)));
        }
        self.check_time()
    }

    /// Counts one more asking of the prompt with `fingerprint`; how many
    /// times it was asked before.
    fn count_asked(&mut self, fingerprint: [u8; 16]) -> u32 {
        match self.asked.binary_search_by(|(f, _)| f.cmp(&fingerprint)) {
            Ok(at) => {
                let before = self.asked[at].1;
                self.asked[at].1 = before.saturating_add(1);
                before
            }
            Err(at) => {
                self.asked.insert(at, (fingerprint, 1));
                0
            }
        }
    }

    fn current_step_name<'p>(&self, program: &'p Program) -> Option<&'p str> {
        let step = self.steps.last()?.step;
        Some(program.string(program.module.steps.get(step as usize)?.name))
    }

    /// The open steps' names, outermost first, joined with ` > `.
    pub fn step_path(&self, program: &Program) -> String {
        self.steps
            .iter()
            .map(|s| program.string(program.module.steps.get(s.step as usize).map_or(NONE, |i| i.name)))
            .collect::<Vec<_>>()
            .join(" > ")
    }

    fn log(
        &self,
        program: &Program,
        host: &mut dyn Host,
        event: &str,
        op: &str,
        outcome: &str,
        duration_ms: u64,
    ) {
        let line = program.line(self.pc.saturating_sub(1));
        let event = Event {
            event,
            step: self.current_step_name(program),
            depth: self.steps.len() as u32,
            line,
            op,
            outcome,
            duration_ms,
            details: &[],
        };
        host.log(&event);
    }

    /// `step_end`: names the step that ended (at `depth`, 0 = top level),
    /// not the one around it.
    fn log_step_end(
        &self,
        program: &Program,
        host: &mut dyn Host,
        step: u32,
        depth: u32,
        outcome: &str,
        duration_ms: u64,
    ) {
        let info = program.module.steps.get(step as usize);
        let name = program.string(info.map_or(NONE, |s| s.name));
        host.log(&Event {
            event: "step_end",
            step: Some(name),
            depth,
            line: info.map_or(0, |s| s.line),
            op: name,
            outcome,
            duration_ms,
            details: &[],
        });
    }

    /// A failure ends the open steps above the first `keep` (all of them if
    /// uncaught, those inside the TRY if caught): a failed `step_end` for
    /// each, innermost first, as STEP_EXIT would log a passed one.
    fn log_failed_step_ends(&mut self, program: &Program, host: &mut dyn Host, keep: usize) {
        self.sync_time(host);
        for (depth, open) in self.steps.iter().enumerate().skip(keep).rev() {
            let duration =
                self.meters[Dim::ExecutionTime].saturating_sub(open.meters_at_entry[Dim::ExecutionTime]);
            self.log_step_end(program, host, open.step, depth as u32, "failed", duration);
        }
    }

    /// Evaluates a side-effect-free path, for an assertion's report.
    fn observe(&self, path: &PathRef) -> Option<Value> {
        let mut value = match path.root {
            PathRootRef::Slot(slot) => self.slots.get(slot as usize)?.clone()?,
            PathRootRef::LastRun => Value::Record(Box::new(Record::LastRun(self.last_run.clone()?))),
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
    fn raise(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        kind: FailureKind,
        message: String,
        fail_pc: u32,
        assertion: Option<u32>,
    ) -> Outcome {
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

    fn budget_failure(
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

    fn fail(&mut self, program: &Program, host: &mut dyn Host, mut failure: Failure) -> Outcome {
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
    fn failing_step_command(&self) -> Option<Box<RunResult>> {
        let step = self.steps.first()?;
        let run_count = Dim::RunCount;
        if self.meters[run_count] <= step.meters_at_entry[run_count] {
            return None;
        }
        let run = self.last_run.as_ref()?;
        Some(Box::new(RunResult {
            stdout: shorten(&run.stdout),
            stderr: shorten(&run.stderr),
            ..run.clone()
        }))
    }

    /// Records the top-level step that was running as failed.
    fn close_failed_step(&mut self) {
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
}

/// The dispatch loop's registers, in locals while it runs (see `execute_one`).
#[derive(Clone, Copy)]
struct Regs {
    pc: u32,
    /// `meters[Dim::Instructions]`.
    fuel: u64,
    fuel_limit: u64,
}

/// Whether the dispatch loop goes on. Kept to one byte so the hot path
/// moves nothing: the outcome of a stop waits in `Machine::stopped`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

/// Why an instruction did not simply complete.
enum Exec {
    Raise(Raise),
    Assert(u32, String),
    /// Boxed: the figures and the message would make every `Exec` large.
    Budget(Box<BudgetStop>),
    Suspend(Question),
    Trap(String),
}

fn budget(stop: BudgetStop) -> Exec {
    Exec::Budget(Box::new(stop))
}

fn host_error(e: HostError) -> Exec {
    match e {
        HostError::Command(m) => Exec::Raise((FailureKind::CommandError, m)),
        HostError::Security(m) => Exec::Raise((FailureKind::SecurityViolation, m)),
    }
}

/// What a rejection's message says of the reviewer's comment.
fn rejection_comment(comment: &str) -> String {
    if comment.is_empty() { "no comment".to_string() } else { format!("comment: {comment}") }
}
