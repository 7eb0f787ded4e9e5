//! How an instruction ends, as the dispatch loop and every instruction
//! share it: the loop's registers, whether it goes on, and why an
//! instruction did not simply complete.

use crate::host::{HostError, Question};
use crate::machine::failure::{BudgetStop, FailureKind};

pub(super) type Raise = (FailureKind, String);

/// The dispatch loop's registers, in locals while it runs (see `execute_one`).
#[derive(Clone, Copy)]
pub(super) struct Regs {
    pub(super) pc: u32,
    /// `meters[Dim::Instructions]`.
    pub(super) fuel: u64,
    pub(super) fuel_limit: u64,
}

/// Whether the dispatch loop goes on. Kept to one byte so the hot path
/// moves nothing: the outcome of a stop waits in `Machine::stopped`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    Stop,
}

/// Why an instruction did not simply complete.
pub(super) enum Exec {
    Raise(Raise),
    Assert(u32, String),
    /// Boxed: the figures and the message would make every `Exec` large.
    Budget(Box<BudgetStop>),
    Suspend(Question),
    Trap(String),
}

pub(super) fn budget(stop: BudgetStop) -> Exec {
    Exec::Budget(Box::new(stop))
}

pub(super) fn host_error(e: HostError) -> Exec {
    match e {
        HostError::Command(m) => Exec::Raise((FailureKind::CommandError, m)),
        HostError::Security(m) => Exec::Raise((FailureKind::SecurityViolation, m)),
    }
}
