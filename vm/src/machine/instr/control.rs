//! CALL and RETURN, STEP_ENTER and STEP_EXIT, FAIL and HALT.

use tisslang::cost::Dim;
use tisslang::module::NONE;

use crate::host::Host;
use crate::machine::budget::spent_since;
use crate::machine::flow::{Exec, Flow};
use crate::machine::program::Program;
use crate::machine::{Frame, Machine, OpenStep, Outcome, Status, StepRecord, StepStatus};

impl Machine {
    pub(in crate::machine) fn call(
        &mut self,
        task: u32,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let info = program.module.tasks.get(task as usize).ok_or_else(|| Exec::Trap("bad task".into()))?;
        let entry = info.entry;
        let what = format!("task \"{}\"", program.string(info.name));
        if let Some(bound) = program.task_bound(task) {
            self.preflight(program, host, bound, 0, &what)?;
        }
        self.frames.push(Frame { return_pc: self.pc, step_base: self.steps.len() as u32 });
        self.pc = entry;
        Ok(())
    }

    pub(in crate::machine) fn return_from_call(&mut self) -> Result<(), Exec> {
        let frame = self.frames.pop().ok_or_else(|| Exec::Trap("RETURN with no CALL".into()))?;
        self.pc = frame.return_pc;
        Ok(())
    }

    pub(in crate::machine) fn halt(&mut self) -> Flow {
        self.status = Status::Completed;
        self.stopped = Some(Outcome::Completed);
        Flow::Stop
    }

    pub(in crate::machine) fn enter_step(
        &mut self,
        step: u32,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let module = &program.module;
        self.sync_time(host);
        self.check_time()?;
        self.steps.push(OpenStep { step, meters_at_entry: self.meters });
        if let (Some(info), Some(bound)) = (module.steps.get(step as usize), program.step_bound(step)) {
            let what = format!("step \"{}\"", program.string(info.name));
            // The step's bound counts this STEP_ENTER, which is already
            // metered. A refused step is open, so the report names it.
            self.preflight(program, host, bound, 1, &what)?;
        }
        let name = program.string(module.steps.get(step as usize).map_or(NONE, |s| s.name)).to_string();
        self.log(program, host, "step_start", &name, "started", 0);
        Ok(())
    }

    pub(in crate::machine) fn exit_step(
        &mut self,
        step: u32,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        self.sync_time(host);
        let open = self.steps.pop().ok_or_else(|| Exec::Trap("STEP_EXIT with no open step".into()))?;
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
        Ok(())
    }

    /// FAIL: always the failure of `assertion`, with the message popped.
    pub(in crate::machine) fn fail_assertion(&mut self, assertion: u32) -> Result<(), Exec> {
        let message = self.pop_str()?.to_string();
        Err(Exec::Assert(assertion, message))
    }
}
