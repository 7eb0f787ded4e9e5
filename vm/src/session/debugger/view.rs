//! What the debugger shows of the paused run: where it is, values
//! (`print`, `locals`), and the source around the current line (`list`).

use std::collections::BTreeSet;

use tisslang::cost::PerDim;
use tisslang::isa::Instr;
use tisslang::module::NONE;
use tisslang::types::Field;

use super::text::{a, ended_name, record_fields, show};
use super::{Debugger, FIELD_LIMIT, LIST_CONTEXT, LOCALS_LIMIT, PRINT_LIMIT};
use crate::host::Host;
use crate::machine::value::{Answer, Record, Value};
use crate::machine::{Outcome, Status, Suspension};
use crate::report::style::escape_controls;

impl<H: Host> Debugger<H> {
    /// `line 7:5, step "Write the module", task "lint"` (and `, entering
    /// step "X"` before a STEP_ENTER).
    pub(super) fn here(&self) -> String {
        let pc = self.machine.pc;
        let mut text = match self.program.module.position(pc) {
            Some((line, column)) => format!("line {line}:{column}"),
            None => format!("pc {pc} (no source position)"),
        };
        let path = self.machine.step_path(&self.program);
        if !self.machine.steps.is_empty() {
            text.push_str(&format!(", step {path:?}"));
        }
        if let Some(task) = self.task_at(pc) {
            text.push_str(&format!(", task {:?}", self.program.string(task)));
        }
        if let Some(Instr::StepEnter { step }) = self.program.module.code.get(pc as usize) {
            text.push_str(&format!(", entering step {:?}", self.step_name(*step)));
        }
        text
    }

    /// The name (string index) of the DEFINE_TASK whose body holds `pc`;
    /// `None` in the main code.
    pub fn task_at(&self, pc: u32) -> Option<u32> {
        self.program.module.tasks.iter().filter(|t| t.entry <= pc).max_by_key(|t| t.entry).map(|t| t.name)
    }

    pub(super) fn step_name(&self, step: u32) -> &str {
        self.program.string(self.program.module.steps.get(step as usize).map_or(NONE, |s| s.name))
    }

    pub fn task(&self) -> &str {
        self.program.string(self.program.module.task)
    }

    pub(super) fn source(&self) -> Option<&str> {
        self.source.as_ref().ok().map(|s| s.text.as_str())
    }

    /// A line of the plan as shown: its control characters written out,
    /// as a plan may carry them to drive the terminal of whoever steps
    /// through it (book: reference/sandbox.md).
    pub(super) fn source_line(&self, line: u32) -> Option<String> {
        let text = self.source()?.lines().nth((line as usize).checked_sub(1)?)?;
        Some(escape_controls(text).into_owned())
    }

    /// The line the session stands at: the next instruction's, or where the
    /// run failed; `None` when it ran to its end.
    pub fn current_line(&self) -> Option<u32> {
        match &self.ended {
            Some(Outcome::Failed(f)) => Some(f.line),
            Some(_) => None,
            None => Some(self.program.line(self.machine.pc)),
        }
    }

    pub(super) fn where_text(&self) -> String {
        let mut lines = Vec::new();
        match &self.ended {
            Some(outcome @ Outcome::Failed(f)) => {
                lines.push(format!("the plan has ended: {} ({})", ended_name(outcome), f.kind.name()));
                lines.push(format!("at line {}, column {}", f.line, f.column));
                lines.push(format!(
                    "step path: {}",
                    if f.step.is_empty() { "(no step open)" } else { &f.step }
                ));
                return lines.join("\n");
            }
            Some(outcome) => return format!("the plan has ended: {}", ended_name(outcome)),
            None => {}
        }
        let pc = self.machine.pc;
        match self.program.module.position(pc) {
            Some((line, column)) => {
                lines.push(format!("at line {line}, column {column}"));
                match (&self.source, self.source_line(line)) {
                    (_, Some(text)) => lines.push(format!("{line:>5} | {text}")),
                    (Err(why), None) => lines.push(format!("no source to show: {why}")),
                    (Ok(_), None) => {}
                }
            }
            None => lines.push(format!("at pc {pc} (no source position)")),
        }
        let path = self.machine.step_path(&self.program);
        lines.push(format!("step path: {}", if path.is_empty() { "(no step open)" } else { &path }));
        if let Some(Instr::StepEnter { step }) = self.program.module.code.get(pc as usize) {
            lines.push(format!("next: entering step {:?}", self.step_name(*step)));
        }
        lines.push("call stack, innermost first:".into());
        let mut at = pc;
        for frame in self.machine.frames.iter().rev() {
            lines.push(format!("  {} at {}", self.code_name(at), self.position(at)));
            at = frame.return_pc.saturating_sub(1);
        }
        lines.push(format!("  {} at {}", self.code_name(at), self.position(at)));
        if let Status::Suspended(Suspension::Interaction { question, .. }) = &self.machine.status {
            lines.push(format!("waiting for an answer to {}", question.describe()));
        }
        lines.join("\n")
    }

    /// `task "lint"` or `main` (the plan's top level).
    pub(super) fn code_name(&self, pc: u32) -> String {
        match self.task_at(pc) {
            Some(name) => format!("task {:?}", self.program.string(name)),
            None => "main".into(),
        }
    }

    pub(super) fn position(&self, pc: u32) -> String {
        match self.program.module.position(pc) {
            Some((line, column)) => format!("line {line}:{column}"),
            None => format!("pc {pc}"),
        }
    }

    /// The value at `NAME`, `NAME.FIELD...`, `LAST_RUN...` or `COST...`.
    pub fn resolve(&self, arg: &str) -> Result<Value, String> {
        let mut parts = arg.split('.');
        let root = parts.next().unwrap_or("");
        let mut value = self.lookup(root)?;
        let mut path = root.to_string();
        for name in parts {
            // A typed answer's field (book: reference/types.md): a leaf as its value, a list
            // or record as a typed answer again.
            if let Value::Answer(answer) = &value {
                let shapes = &self.program.shapes;
                let Some((index, field)) = shapes.field(answer.shape, name) else {
                    return Err(format!(
                        "`{path}` ({}) has no field `{name}`",
                        shapes.describe(answer.shape)
                    ));
                };
                let tisslang::answer::AnswerValue::Record(values) = &answer.value else {
                    return Err(format!("`{path}` is not a record"));
                };
                match values.get(index).and_then(|v| v.as_ref()) {
                    Some(v) => match Answer::stack_value(shapes, field.shape, v.clone()) {
                        Some(v) => value = v,
                        None => return Err(format!("`{path}.{name}` does not follow its type")),
                    },
                    None => return Err(format!("{arg} is absent (an optional field the answer left out)")),
                }
                path.push('.');
                path.push_str(name);
                continue;
            }
            let Value::Record(record) = &value else {
                return Err(format!("`{path}` is {}: it has no field `{name}`", a(value.type_name())));
            };
            match Field::from_name(name).and_then(|f| record.field(f)) {
                Some(v) => value = v,
                None => {
                    let fields: Vec<&str> =
                        record_fields(record).into_iter().map(|(f, _)| f.name()).collect();
                    let mut text = format!("{} record has no field `{name}`", a(record.kind_name()));
                    if let Some(close) = tiss_support::suggest::closest(name, fields.iter().copied()) {
                        text.push_str(&format!("; did you mean `{path}.{close}`?"));
                    } else {
                        text.push_str(&format!("; its fields are {}", fields.join(", ")));
                    }
                    return Err(text);
                }
            }
            path.push('.');
            path.push_str(name);
        }
        Ok(value)
    }

    /// The value of a variable by name, `LAST_RUN` or `COST`, then fields.
    pub(super) fn print(&self, arg: &str) -> String {
        if arg.is_empty() {
            return "print needs a name: print NAME, print NAME.FIELD, print LAST_RUN or print COST".into();
        }
        let value = match self.resolve(arg) {
            Ok(v) => v,
            Err(e) => return e,
        };
        match &value {
            Value::Record(record) => {
                let what = match record.as_ref() {
                    Record::Cost(_) if self.machine.steps.is_empty() => {
                        "COST record: what the run has spent (no step is open)".to_string()
                    }
                    Record::Cost(_) => format!(
                        "COST record: what step {:?} has spent so far",
                        self.step_name(self.machine.steps.last().map_or(NONE, |s| s.step))
                    ),
                    other => format!("{} record", other.kind_name()),
                };
                let fields = record_fields(record);
                let width = fields.iter().map(|(f, _)| f.name().len()).max().unwrap_or(0);
                let mut text = format!("{arg} = {what}");
                for (field, v) in fields {
                    text.push_str(&format!("\n  {:width$} = {}", field.name(), show(&v, FIELD_LIMIT)));
                }
                text
            }
            other => format!("{arg} = {}", show(other, PRINT_LIMIT)),
        }
    }

    /// A root of `print`: a variable, `LAST_RUN` or `COST`.
    pub fn lookup(&self, name: &str) -> Result<Value, String> {
        match name {
            "LAST_RUN" => {
                return self
                    .machine
                    .last_run_record()
                    .ok_or_else(|| "LAST_RUN is not set: no RUN has happened yet".into());
            }
            "COST" => return Ok(Value::Record(Box::new(Record::Cost(self.spending())))),
            _ => {}
        }
        let module = &self.program.module;
        let slots: Vec<usize> =
            (0..module.slots.len()).filter(|&i| self.program.string(module.slots[i].name) == name).collect();
        if let Some(value) = slots.iter().find_map(|&i| self.machine.slots.get(i).cloned().flatten()) {
            return Ok(value);
        }
        if let Some(&i) = slots.first() {
            return Err(format!("`{name}` is not bound yet ({} variable)", a(module.slots[i].ty.name())));
        }
        let mut candidates: Vec<&str> = module.slots.iter().map(|s| self.program.string(s.name)).collect();
        candidates.extend(["LAST_RUN", "COST"]);
        let mut text = format!("no variable is named `{name}`");
        if let Some(close) = tiss_support::suggest::closest(name, candidates) {
            text.push_str(&format!("; did you mean `{close}`?"));
        }
        Err(text)
    }

    /// What the current step has spent (the whole run outside steps).
    pub fn spending(&self) -> PerDim<u64> {
        let base = self.machine.steps.last().map_or(PerDim::default(), |s| s.meters_at_entry);
        PerDim::from_fn(|dim| self.machine.meters[dim].saturating_sub(base[dim]))
    }

    pub(super) fn locals(&self) -> String {
        let module = &self.program.module;
        let lines: Vec<String> = module
            .slots
            .iter()
            .zip(&self.machine.slots)
            .filter_map(|(slot, value)| {
                let value = value.as_ref()?;
                let ty = match slot.ty {
                    tisslang::types::ValueType::Answer(shape) => self.program.shapes.describe(shape),
                    ty => ty.name().to_string(),
                };
                Some(format!("{}: {ty} = {}", self.program.string(slot.name), show(value, LOCALS_LIMIT)))
            })
            .collect();
        if lines.is_empty() { "no variable is bound yet".into() } else { lines.join("\n") }
    }

    pub(super) fn list(&self, arg: &str) -> String {
        let source = match &self.source {
            Ok(source) => &source.text,
            Err(why) => return format!("no source to show: {why}; `tissvm disasm` shows the code"),
        };
        let lines: Vec<&str> = source.lines().collect();
        let total = lines.len() as u32;
        let current = self.current_line();
        let center = if arg.is_empty() {
            // At the end of a run that passed, the end of the plan.
            current.unwrap_or(total)
        } else {
            match arg.parse::<u32>() {
                Ok(0) | Err(_) => return format!("list takes a line number, not `{arg}`"),
                Ok(n) => n,
            }
        };
        if center > total || center == 0 {
            return format!("line {center} is past the end of the plan ({total} lines)");
        }
        let from = center.saturating_sub(LIST_CONTEXT).max(1);
        let to = (center + LIST_CONTEXT).min(total);
        let marked: BTreeSet<u32> =
            self.breakpoints.iter().flat_map(|b| &b.pcs).map(|&pc| self.program.line(pc)).collect();
        let width = to.to_string().len();
        (from..=to)
            .map(|n| {
                let here = if Some(n) == current { "->" } else { "  " };
                let mark = if marked.contains(&n) { "*" } else { " " };
                format!("{here}{mark} {n:>width$} | {}", escape_controls(lines[(n - 1) as usize]))
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
