//! The dispatch loop of a run on the real host: the machine runs until it
//! ends or suspends, stopping when Ctrl-C asks it to and, with a
//! checkpoint, before each effect to write it. A RUN killed by a second
//! Ctrl-C did not complete: the run suspends before it, not after.

use crate::host::{Event, Host};
use crate::machine::program::Program;
use crate::machine::{Machine, Outcome};
use crate::runner::execute::checkpoint::Checkpoint;
use crate::runner::execute::host::{AnswersFile, answers_left};
use crate::runner::execute::suspend::Parts;
use crate::runner::os_host::OsHost;
use crate::session::interrupt;
use crate::session::snapshot::RememberedOptions;
use tisslang::isa::Instr;

/// What the loop goes by besides the machine and its host.
pub struct Dispatch<'a> {
    pub program: &'a Program,
    pub checkpoint: Option<&'a Checkpoint>,
    pub answers_file: Option<&'a AnswersFile>,
    pub remembered: &'a RememberedOptions,
}

impl Dispatch<'_> {
    /// Runs `machine` until it ends or suspends: `Outcome::Running` when
    /// Ctrl-C stopped it.
    pub fn run(&self, machine: &mut Machine, host: &mut OsHost) -> Outcome {
        let program = self.program;
        let killed_before = interrupt::killed_runs();
        // The machine as it stood before a RUN: a RUN killed by a second Ctrl-C
        // did not complete, so the run suspends before it, not after.
        let mut before_run: Option<Machine> = None;
        // With a checkpoint, the run stops before each effect to write it, and
        // goes on from that boundary without stopping there again.
        let mut checkpointed = false;
        let checkpointing = self.checkpoint.is_some();
        let outcome = loop {
            let outcome = machine.run_until(program, host, |m| {
                if interrupt::requested() {
                    return true;
                }
                if checkpointing && !std::mem::take(&mut checkpointed) && Checkpoint::due(program, m) {
                    return true;
                }
                before_run = matches!(program.module.code.get(m.pc as usize), Some(Instr::Run { .. }))
                    .then(|| m.clone());
                false
            });
            match self.checkpoint {
                Some(checkpoint)
                    if outcome == Outcome::Running
                        && !interrupt::requested()
                        && Checkpoint::due(program, machine) =>
                {
                    self.write_checkpoint(checkpoint, machine, host);
                    host.journal(|_| crate::session::journal::Entry::Stop);
                    checkpointed = true;
                }
                _ => break outcome,
            }
        };
        if interrupt::killed_runs() > killed_before
            && let Some(saved) = before_run.take()
        {
            self.undo_killed_run(machine, host, saved);
            return Outcome::Running;
        }
        outcome
    }

    fn write_checkpoint(&self, checkpoint: &Checkpoint, machine: &Machine, host: &mut OsHost) {
        let position = self.answers_file.map(|f| f.position(answers_left(host)));
        let workspace = host.workspace.root().to_path_buf();
        let parts = Parts { workspace: &workspace, answers: position.as_ref(), options: self.remembered };
        checkpoint.write(self.program, machine, &parts, host);
    }

    /// Puts `machine` back where it stood before the RUN in flight, which
    /// was killed: it runs again on resume. Told on stderr and in the log.
    fn undo_killed_run(&self, machine: &mut Machine, host: &mut OsHost, saved: Machine) {
        let command = machine.last_run.as_ref().map(|r| r.command.clone()).unwrap_or_default();
        eprintln!(
            "tissvm: the RUN in flight (`{command}`) was killed: it did not complete, and runs again on resume"
        );
        let line = self.program.line(saved.pc);
        host.log(&Event {
            event: "interrupted",
            step: None,
            depth: 0,
            line,
            op: &command,
            outcome: "killed",
            duration_ms: 0,
            details: &[],
        });
        *machine = saved;
    }
}
