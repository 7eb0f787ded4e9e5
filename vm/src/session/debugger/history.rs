//! The statements `back` can return to (book: cookbook/debugging.md). Every statement the run
//! reaches is kept by where it stands (its instruction count, pc, call
//! depth and tape position); the whole machine only now and then, when the
//! instructions run since the last one kept cost more than copying it
//! ([`History::keep`]). A statement kept without its machine is rebuilt
//! from the machine kept before it, run forward on the tape: the same code
//! from the same state takes the same effects, answered from the tape.
//!
//! A copy of the machine at every statement made a session's memory and
//! time grow with the plan's variables times its statements: a 20,000-line
//! plan of VARs took 16 s and 5.2 GB to `continue` through.

use std::collections::VecDeque;

use tisslang::cost::Dim;

use super::Debugger;
use super::rewind::Rewind;
use crate::host::Host;
use crate::machine::{Machine, Outcome};

/// Statements `back` can go back over.
const HISTORY: usize = 10_000;

/// A statement the run reached.
pub(super) struct Reached {
    /// The machine there, if it was kept whole.
    pub machine: Option<Machine>,
    pub instructions: u64,
    pub pc: u32,
    /// CALL depth.
    pub depth: usize,
    /// Where the tape stood.
    pub position: usize,
}

#[derive(Default)]
pub(super) struct History {
    pub reached: VecDeque<Reached>,
    /// The instruction count of the last machine kept whole.
    last_whole: u64,
    /// Statements kept since then.
    since_whole: usize,
}

/// At most this many statements between two machines kept whole: the
/// oldest dropped (from [`HISTORY`]) take at most these with them.
const SPAN: usize = HISTORY / 8;

/// Roughly what copying `m` costs, in instructions run: a value of each of
/// its collections (an instruction and a copied value take about as long).
fn copy_cost(m: &Machine) -> u64 {
    (m.slots.len()
        + m.stack.len()
        + m.frames.len()
        + m.steps.len()
        + m.env.len()
        + m.step_records.len()
        + m.logs.len()
        + m.asked.len()) as u64
}

impl History {
    /// Keeps the statement `m` stands at (`position` on the tape), its
    /// machine whole when the run since the last one kept whole took more
    /// than copying it would (so copies cost at most what running does, and
    /// rebuilding a statement runs at most that far again), or [`SPAN`]
    /// statements ago.
    pub fn keep(&mut self, m: &Machine, position: usize) {
        let instructions = m.meters[Dim::Instructions];
        let whole = self.reached.is_empty()
            || self.since_whole >= SPAN
            || instructions.saturating_sub(self.last_whole) >= copy_cost(m);
        if self.reached.len() == HISTORY {
            self.reached.pop_front();
            // What is kept must start with a machine to rebuild from.
            while self.reached.front().is_some_and(|r| r.machine.is_none()) {
                self.reached.pop_front();
            }
        }
        let whole = whole || self.reached.is_empty();
        if whole {
            self.last_whole = instructions;
            self.since_whole = 0;
        } else {
            self.since_whole += 1;
        }
        self.reached.push_back(Reached {
            machine: whole.then(|| m.clone()),
            instructions,
            pc: m.pc,
            depth: m.frames.len(),
            position,
        });
    }
}

impl<H: Host> Debugger<H> {
    /// The machine at the statement `i` of the history, rebuilt if it was
    /// not kept whole; the tape then stands where it stood there.
    pub(super) fn machine_at(&mut self, i: usize) -> Result<Machine, String> {
        let reached = &self.history.reached;
        let target = reached.get(i).ok_or("nothing kept to go back to")?;
        let (target_instructions, target_pc, target_position) =
            (target.instructions, target.pc, target.position);
        let from =
            (0..=i).rev().find(|&j| reached[j].machine.is_some()).ok_or("nothing kept to go back to")?;
        let mut machine = reached[from].machine.clone().ok_or("nothing kept to go back to")?;
        self.tape.rewind_to(reached[from].position);
        if from != i {
            let mut host = Rewind { live: &mut self.host, tape: &mut self.tape, quiet: true };
            let outcome = machine
                .run_until(&self.program, &mut host, |m| m.meters[Dim::Instructions] >= target_instructions);
            if outcome != Outcome::Running
                || machine.meters[Dim::Instructions] != target_instructions
                || machine.pc != target_pc
            {
                return Err("the statement could not be rebuilt from the run's record".into());
            }
        }
        self.tape.rewind_to(target_position);
        Ok(machine)
    }
}
