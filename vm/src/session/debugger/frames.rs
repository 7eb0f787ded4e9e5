//! The paused run's stack as a front end shows it (DAP's `stackTrace`):
//! innermost first, a frame for each open STEP, each TRY around the pc and
//! each CALL, then the plan's top level. A frame stands where execution is
//! inside it: the innermost at the next instruction, each outer one where
//! the construct inside it starts (a CALL's frame of the caller at the CALL).

use super::Debugger;
use crate::host::Host;

/// One frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameInfo {
    /// `STEP "build"`, `TRY`, `CALL "lint"`, `TASK "release"`.
    pub name: String,
    pub line: u32,
    pub column: u32,
}

impl<H: Host> Debugger<H> {
    pub fn frames(&self) -> Vec<FrameInfo> {
        let module = &self.program.module;
        let machine = &self.machine;
        let at = |pc: u32| module.position(pc).unwrap_or((0, 0));
        let mut frames = Vec::new();
        let mut pc = machine.pc;
        let mut step_top = machine.steps.len();
        for depth in (0..=machine.frames.len()).rev() {
            let base = if depth == 0 { 0 } else { machine.frames[depth - 1].step_base as usize };
            // The constructs open in this code (main or a task), by where they start.
            let mut open: Vec<(u32, u32, String)> = machine.steps[base.min(step_top)..step_top]
                .iter()
                .filter_map(|s| module.steps.get(s.step as usize))
                .map(|info| (info.line, info.column, format!("STEP {:?}", self.program.string(info.name))))
                .collect();
            let region = self.task_at(pc);
            open.extend(
                module
                    .handlers
                    .iter()
                    .filter(|h| h.start <= pc && pc < h.end && self.task_at(h.start) == region)
                    .map(|h| {
                        let (line, column) = at(h.start);
                        (line, column, "TRY".to_string())
                    }),
            );
            open.sort_by_key(|(line, column, _)| std::cmp::Reverse((*line, *column)));
            let (mut line, mut column) = at(pc);
            for (start_line, start_column, name) in open {
                frames.push(FrameInfo { name, line, column });
                (line, column) = (start_line, start_column);
            }
            let name = match region {
                Some(task) => format!("CALL {:?}", self.program.string(task)),
                None => format!("TASK {:?}", self.task()),
            };
            frames.push(FrameInfo { name, line, column });
            if depth > 0 {
                pc = machine.frames[depth - 1].return_pc.saturating_sub(1);
                step_top = base;
            }
        }
        frames
    }
}
