//! The machine: one plain, serializable state struct and one dispatch loop.
//!
//! No interpreter state lives on the Rust call stack: CALL pushes a frame on
//! `frames`, STEP_ENTER on `steps`, and TRY is a static handler table, so the
//! machine can stop after any instruction, be written out, and resume in
//! another process. [`Machine::step`] runs one instruction;
//! [`Machine::run_until`] loops over it.
//!
//! This file holds the state; `dispatch.rs` the loop's body, and `exec`,
//! which names for each instruction the function in `instr/` that runs it;
//! `raise.rs` what a failure does, `budget.rs` the caps, `events.rs` what is
//! logged to the host.

mod budget;
mod dispatch;
mod events;
pub mod failure;
mod flow;
pub mod held;
mod instr;
pub mod program;
mod raise;
pub mod shell;
pub mod state_limits;
pub mod value;

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tisslang::cost::{Dim, PerDim};

use crate::host::{Host, Question, RunResult};
use crate::machine::failure::Failure;
use crate::machine::program::Program;
use crate::machine::value::Value;
use crate::policy::Policy;
use flow::{Flow, Regs};

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
    #[serde(deserialize_with = "state_limits::stack")]
    pub stack: Vec<Value>,
    #[serde(deserialize_with = "state_limits::frames")]
    pub frames: Vec<Frame>,
    #[serde(deserialize_with = "state_limits::open_steps")]
    pub steps: Vec<OpenStep>,
    #[serde(deserialize_with = "state_limits::slots")]
    pub slots: Vec<Option<Value>>,
    /// Shared with every `LAST_RUN` record made of it: reading a field
    /// copies no output.
    pub last_run: Option<Rc<RunResult>>,
    /// The last RUN's command or environment held tainted data: its
    /// LAST_RUN text fields are tainted (book: reference/policy.md).
    pub last_run_tainted: bool,
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
    #[serde(deserialize_with = "state_limits::env")]
    pub env: Vec<(String, String)>,
    /// An ENV was set from tainted text: every later RUN's environment
    /// holds it, so every later RUN counts as tainted (book: reference/policy.md).
    pub env_tainted: bool,
    /// The line of the first WRITE or APPEND of tainted data, or RUN that
    /// held it and ran: every later RUN may run what it wrote (`sh
    /// gen.sh`), so it counts as tainted (book: reference/policy.md).
    pub wrote_tainted: Option<u32>,
    pub status: Status,
    #[serde(deserialize_with = "state_limits::step_records")]
    pub step_records: Vec<StepRecord>,
    /// Every LOG message so far, in order.
    #[serde(deserialize_with = "state_limits::logs")]
    pub logs: Vec<LogRecord>,
    /// Human interactions answered so far (the k-th answer of `--answers`).
    pub interactions: u32,
    /// PROMPT_AGENTs that reached the provider so far, answered or not (the
    /// k-th answer of `--mock-answers`).
    pub prompts: u32,
    /// How many times each query with its context has reached the provider,
    /// by fingerprint (`instr/prompt.rs`), sorted: the occurrence a
    /// cassette records and replays, counted across resume.
    #[serde(deserialize_with = "state_limits::asked")]
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
    /// At most how much text the values hold (`held.rs`): not part of the
    /// state, counted again after a resume.
    #[serde(skip)]
    held_bound: held::HeldBound,
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
            last_run_tainted: false,
            meters: PerDim::default(),
            budgets: PerDim::default(),
            fuel_limit: u64::MAX,
            env: Vec::new(),
            env_tainted: false,
            wrote_tainted: None,
            status: Status::Running,
            step_records: Vec::new(),
            logs: Vec::new(),
            interactions: 0,
            prompts: 0,
            asked: Vec::new(),
            clock: None,
            stopped: None,
            policy: None,
            held_bound: held::HeldBound::NOTHING,
        }
    }

    /// The command policy for the RUNs from here on (`None`: none).
    pub fn set_policy(&mut self, policy: Option<Rc<Policy>>) {
        self.policy = policy;
    }

    /// The command policy RUNs go by, if any.
    pub fn policy(&self) -> Option<&Policy> {
        self.policy.as_deref()
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
}
