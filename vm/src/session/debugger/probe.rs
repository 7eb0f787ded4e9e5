//! Probes: a condition or a message a debugger front end asks about a
//! paused run (a breakpoint's `condition` and `logMessage`, the debug
//! console's `evaluate`; book: cookbook/debugging.md), compiled and checked like any other
//! plan text, then run on the paused machine's values.
//!
//! **How.** The text goes into the plan's source as a statement of its own
//! where the paused statement starts (`ASSERT <condition>` or `LOG
//! "<message>"`), and the whole plan is compiled again: the condition is
//! checked in the scope and at the point of that statement, definite
//! assignment and typed answers included, and its errors are the compiler's.
//! The new module's slots are the old ones (a statement binds nothing new,
//! and that is checked), so the probe's code, run from the statement's first
//! instruction to its `ASSERT` or `LOG`, reads the paused machine's slots,
//! `LAST_RUN` and `COST` as the plan would have there and leaves the value
//! on the stack. The probe runs on a host that refuses every effect, so
//! looking never changes the run.

use tisslang::isa::Instr;
use tisslang::module::kept_source::SourceText;

use crate::host::{
    Answer, AskedAt, Event, FileQuery, Host, HostError, PromptError, PromptRequest, PromptResponse, Question,
    RunRequest, RunResult,
};
use crate::machine::program::Program;
use crate::machine::value::Value;
use crate::machine::{Machine, Outcome};

/// What a probe computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeKind {
    /// A TissLang condition: `TRUE` or `FALSE`.
    Condition,
    /// A message with `${…}` holes, as a plan string.
    Message,
}

/// A compiled probe: the plan compiled with it, and where its code is.
pub struct Probe {
    program: Program,
    start: u32,
    /// The probe's `ASSERT` or `LOG`: its value is on the stack here.
    end: u32,
}

impl std::fmt::Debug for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe").field("start", &self.start).field("end", &self.end).finish()
    }
}

/// Where in the plan a probe is checked: the statement at `pc` of the
/// running program.
pub struct At<'a> {
    pub program: &'a Program,
    pub source: &'a SourceText,
    pub pc: u32,
}

impl Probe {
    /// Compiles `text` as a `kind` at the statement `at` stands before. The
    /// error is the compiler's first message for the text, with its column
    /// in `text`.
    pub fn compile(at: &At<'_>, kind: ProbeKind, text: &str) -> Result<Probe, String> {
        if text.trim().is_empty() {
            return Err(match kind {
                ProbeKind::Condition => "the condition is empty".into(),
                ProbeKind::Message => "the message is empty".into(),
            });
        }
        if text.contains('\n') || text.contains('\r') {
            return Err("a condition or a message is one line".into());
        }
        let module = &at.program.module;
        let Some((line, column)) = module.position(at.pc) else {
            return Err("the paused instruction has no source position".into());
        };
        let source = &at.source.text;
        let Some(mut offset) = offset_of(source, line, column) else {
            return Err(format!("line {line}, column {column} is not in the plan's source"));
        };
        // A step's first instruction enters it: the probe goes first inside
        // its braces, where statements stand (not at the top level).
        if matches!(module.code.get(at.pc as usize), Some(Instr::StepEnter { .. })) {
            match source[offset..].find('{') {
                Some(brace) => offset += brace + 1,
                None => return Err("the step's `{` was not found in the source".into()),
            }
        }
        let (statement, prefix) = match kind {
            ProbeKind::Condition => (format!("ASSERT {text}"), "ASSERT ".len()),
            ProbeKind::Message => (format!("LOG \"{}\"", quote(text)), "LOG \"".len()),
        };
        let mut probed = String::with_capacity(source.len() + statement.len() + 2);
        probed.push_str(&source[..offset]);
        probed.push('\n');
        let probe_start = probed.len();
        probed.push_str(&statement);
        let probe_end = probed.len();
        probed.push('\n');
        probed.push_str(&source[offset..]);
        let (module, frontend) = match tiss_compiler::compile(
            &at.source.name,
            probed.as_bytes(),
            Default::default(),
        ) {
            Ok(compiled) => compiled,
            Err(frontend) => {
                let error = frontend.diagnostics.iter().find(|d| d.is_error());
                return Err(match error {
                    Some(d)
                        if d.span.start as usize >= probe_start && (d.span.start as usize) <= probe_end =>
                    {
                        let column = (d.span.start as usize).saturating_sub(probe_start + prefix) + 1;
                        format!("{} (column {column}) [{}]", d.message, d.code)
                    }
                    Some(d) => format!(
                        "it cannot be checked at line {line}: the plan with it does not compile ({}); put the \
                         breakpoint on a line that starts a statement",
                        d.message
                    ),
                    None => "it does not compile".into(),
                });
            }
        };
        let probe_line = frontend.file.line_col(probe_start).line as u32;
        let Some(entry) = module.lines.iter().find(|e| e.line == probe_line) else {
            return Err("the probe's code was not found".into());
        };
        let start = entry.pc;
        let end = module.code[start as usize..]
            .iter()
            .position(|instr| match kind {
                ProbeKind::Condition => matches!(instr, Instr::Assert { .. }),
                ProbeKind::Message => matches!(instr, Instr::Log {}),
            })
            .map(|i| start + i as u32)
            .ok_or("the probe's code was not found")?;
        let old = &at.program.module.slots;
        if module.slots.len() != old.len()
            || module.slots.iter().zip(old).any(|(new, old)| {
                new.ty != old.ty || module.string(new.name) != at.program.module.string(old.name)
            })
        {
            return Err(
                "it cannot be evaluated here: the plan's variables are laid out otherwise with it".into()
            );
        }
        let program = Program::new(module).map_err(|e| format!("the plan with it does not load: {e}"))?;
        Ok(Probe { program, start, end })
    }

    /// The probe's value on `machine`'s variables, `LAST_RUN` and `COST`.
    pub fn eval(&self, machine: &Machine) -> Result<Value, String> {
        let mut probe = Machine::new(&self.program);
        probe.slots.clone_from(&machine.slots);
        probe.slots.resize(self.program.module.slots.len(), None);
        probe.last_run.clone_from(&machine.last_run);
        probe.last_run_tainted = machine.last_run_tainted;
        probe.meters = machine.meters;
        probe.steps.clone_from(&machine.steps);
        // It holds what the paused run holds: counted at its first new text.
        probe.held_unknown();
        probe.pc = self.start;
        let end = self.end;
        match probe.run_until(&self.program, &mut NoEffects, |m| m.pc == end) {
            Outcome::Running => probe.stack.pop().ok_or_else(|| "the probe left no value".to_string()),
            Outcome::Failed(failure) => Err(failure.message),
            Outcome::Trapped(why) => Err(format!("the probe trapped: {why}")),
            Outcome::Completed | Outcome::Suspended(_) => Err("the probe did not reach its end".into()),
        }
    }

    /// A condition probe's truth.
    pub fn holds(&self, machine: &Machine) -> Result<bool, String> {
        match self.eval(machine)? {
            Value::Bool(b) => Ok(b),
            other => Err(format!("the condition gave {} instead of TRUE or FALSE", other.type_name())),
        }
    }
}

/// `text` as the inside of a plan string: its `"` and `\` escaped, its
/// `${…}` holes kept.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out
}

/// The byte offset of 1-based `line` and `column` (in chars).
fn offset_of(text: &str, line: u32, column: u32) -> Option<usize> {
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let rest = &text[start..];
    let end = rest.find('\n').unwrap_or(rest.len());
    let skip = column.checked_sub(1)? as usize;
    rest[..end].char_indices().nth(skip).map(|(i, _)| start + i).or((skip == 0).then_some(start))
}

/// The host a probe runs on: it has no effects to give.
struct NoEffects;

const NO_EFFECT: &str = "a condition or message of the debugger cannot have effects";

impl Host for NoEffects {
    fn run(&mut self, _: &RunRequest) -> Result<RunResult, HostError> {
        Err(HostError::Command(NO_EFFECT.into()))
    }
    fn read(&mut self, _: &str) -> Result<String, HostError> {
        Err(HostError::Command(NO_EFFECT.into()))
    }
    fn write(&mut self, _: &str, _: &str, _: bool) -> Result<(), HostError> {
        Err(HostError::Command(NO_EFFECT.into()))
    }
    fn mkdir(&mut self, _: &str) -> Result<(), HostError> {
        Err(HostError::Command(NO_EFFECT.into()))
    }
    fn delete(&mut self, _: &str, _: bool) -> Result<(), HostError> {
        Err(HostError::Command(NO_EFFECT.into()))
    }
    fn file_test(&mut self, _: &str, _: FileQuery<'_>) -> Result<bool, HostError> {
        Err(HostError::Command("a condition of the debugger cannot look at files".into()))
    }
    fn prompt(&mut self, _: &PromptRequest) -> Result<PromptResponse, PromptError> {
        Err(PromptError { message: NO_EFFECT.into(), requests: 0, out_of_calls: false })
    }
    fn ask(&mut self, _: &Question, _: AskedAt<'_>) -> Option<Answer> {
        None
    }
    fn now_ms(&mut self) -> u64 {
        0
    }
    fn log(&mut self, _: &Event<'_>) {}
}

#[cfg(test)]
mod tests {
    use super::offset_of;

    #[test]
    fn offsets_count_lines_and_chars() {
        let text = "ab\nçd e\n";
        assert_eq!(offset_of(text, 1, 1), Some(0));
        assert_eq!(offset_of(text, 2, 1), Some(3));
        assert_eq!(offset_of(text, 2, 3), Some(6));
        assert_eq!(offset_of(text, 3, 1), Some(9));
        assert_eq!(offset_of(text, 4, 1), None);
    }
}
