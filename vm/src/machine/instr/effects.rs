//! Instructions with an effect on the workspace: file tests, WRITE and
//! APPEND, READ, MKDIR, DELETE, LOG, and RUN.

use tisslang::cost::Dim;
use tisslang::isa::{Instr, run_flags};

use crate::host::{Detail, Event, FileQuery, Host, RunRequest};
use crate::machine::failure::{BudgetStop, shorten};
use crate::machine::flow::{Exec, budget, host_error};
use crate::machine::program::Program;
use crate::machine::value::Value;
use crate::machine::{LogRecord, Machine};
use crate::policy::Taint;

impl Machine {
    /// FILE_EXISTS, FILE_IS_EMPTY, FILE_CONTAINS.
    pub(in crate::machine) fn file_test(&mut self, instr: Instr, host: &mut dyn Host) -> Result<(), Exec> {
        let needle = if matches!(instr, Instr::FileContains {}) { Some(self.pop()?.to_text()) } else { None };
        let path = self.pop_path()?;
        let query = match (&instr, &needle) {
            (Instr::FileExists {}, _) => FileQuery::Exists,
            (Instr::FileIsEmpty {}, _) => FileQuery::IsEmpty,
            (_, Some(n)) => FileQuery::Contains(n),
            _ => FileQuery::Exists,
        };
        let result = host.file_test(&path, query).map_err(host_error)?;
        self.push(Value::Bool(result));
        Ok(())
    }

    /// WRITE, or APPEND (`append`).
    pub(in crate::machine) fn write_file(
        &mut self,
        append: bool,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let content = self.pop()?;
        if content.is_tainted() && self.wrote_tainted.is_none() {
            // Before the write, which may fail after a part is written.
            self.wrote_tainted = Some(program.line(self.pc - 1));
        }
        let content = content.to_text();
        let path = self.pop_path()?;
        let started = host.now_ms();
        let result = host.write(&path, &content, append);
        let took = host.now_ms().saturating_sub(started);
        let op = if append { "append" } else { "write" };
        self.log(program, host, op, &path, if result.is_ok() { "ok" } else { "failed" }, took);
        result.map_err(host_error)
    }

    pub(in crate::machine) fn read_file(
        &mut self,
        slot: u32,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let path = self.pop_path()?;
        let text = host.read(&path);
        self.log(program, host, "read", &path, if text.is_ok() { "ok" } else { "failed" }, 0);
        let text = text.map_err(host_error)?;
        self.room_for(text.len(), "this READ")?;
        self.store(slot, Value::Tainted(text.into()))
    }

    pub(in crate::machine) fn make_dir(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let path = self.pop_path()?;
        let result = host.mkdir(&path);
        self.log(program, host, "mkdir", &path, if result.is_ok() { "ok" } else { "failed" }, 0);
        result.map_err(host_error)
    }

    pub(in crate::machine) fn delete(
        &mut self,
        recursive: bool,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let path = self.pop_path()?;
        let result = host.delete(&path, recursive);
        self.log(program, host, "delete", &path, if result.is_ok() { "ok" } else { "failed" }, 0);
        result.map_err(host_error)
    }

    /// LOG: to the host's event log, and under the top-level step in the report.
    pub(in crate::machine) fn log_message(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let message = self.pop()?.to_text();
        self.log(program, host, "log", &message, "ok", 0);
        // Statements stand only inside steps (SETUP is one), so a
        // top-level step is open; the report lists the message under it.
        if let Some(top) = self.steps.first() {
            self.logs.push(LogRecord { step: top.step, message: shorten(&message) });
        }
        Ok(())
    }

    pub(in crate::machine) fn run_command(
        &mut self,
        flags: u8,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        self.check_policy(flags, program, host)?;
        // Read before the pops: what the RUN held taints LAST_RUN.
        let taint = self.run_taint(flags);
        let tainted = taint.is_some();
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
        // A RUN that holds tainted data may write it anywhere, as a WRITE
        // of it does: every RUN after it may run that (before it runs,
        // which may fail after a part is written).
        if taint == Some(Taint::Holds) && self.wrote_tainted.is_none() {
            self.wrote_tainted = Some(request.line);
        }
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
                let (stdout, stderr) = (shorten(&run.stdout), shorten(&run.stderr));
                let details = [("stdout", Detail::Text(&stdout)), ("stderr", Detail::Text(&stderr))];
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
                self.last_run = Some(std::rc::Rc::new(run));
                self.last_run_tainted = tainted;
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
}
