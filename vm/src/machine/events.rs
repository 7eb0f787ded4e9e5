//! The events the machine logs to the host, and the step names they carry.

use tisslang::module::NONE;

use crate::host::{AskedAt, Event, Host};
use crate::machine::Machine;
use crate::machine::program::Program;

impl Machine {
    pub(super) fn current_step_name<'p>(&self, program: &'p Program) -> Option<&'p str> {
        let step = self.steps.last()?.step;
        Some(program.string(program.module.steps.get(step as usize)?.name))
    }

    /// Where a question asked now is asked (the instruction just read).
    pub(super) fn asked_at<'p>(&self, program: &'p Program) -> AskedAt<'p> {
        AskedAt {
            line: program.line(self.pc.saturating_sub(1)),
            step: self.current_step_name(program),
            depth: self.steps.len() as u32,
        }
    }

    /// The open steps' names, outermost first, joined with ` > `.
    pub fn step_path(&self, program: &Program) -> String {
        self.steps
            .iter()
            .map(|s| program.string(program.module.steps.get(s.step as usize).map_or(NONE, |i| i.name)))
            .collect::<Vec<_>>()
            .join(" > ")
    }

    pub(super) fn log(
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
    pub(super) fn log_step_end(
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
}
