//! Static taint (SPEC §8): which RUNs may hold data from a model
//! (PROMPT_AGENT) or a file (READ), and which RUNs come after a WRITE of
//! model output (the plan may run code a model wrote). `tissvm inspect`
//! lists both and raises the risk to high for them.
//!
//! The bytecode is walked in instruction order with a symbolic operand
//! stack whose values carry the sources they derive from, each CALLed task
//! inline at its CALL (bounded like the dry run's expansion). Variables
//! keep every source any path stored in them (a union over the arms of
//! IF, TRY and CHOOSE), so a flow is listed if some path may carry it.
//! What carries taint: LOAD and STORE, interpolation (`${x}`, RUN's quoted
//! form included), ENV (every later RUN's environment holds it), WRITE
//! FROM (a later READ of that file also carries the written sources), a
//! caught failure (`e.MESSAGE` carries the data the failing instruction
//! took, and a model's whenever PROMPT_AGENT fails), and LAST_RUN (its
//! STDOUT, STDERR and COMMAND carry what its command and environment held).
//! Integers, durations, booleans and the control flow a condition decides
//! do not carry it.
//!
//! The analysis may over-approximate, never under: a variable, LAST_RUN
//! and a caught error keep every source stored in them earlier in
//! instruction order, on any path, even after a clean value replaced it;
//! every instruction that can fail inside a TRY counts as failing.

use crate::answer::shape::{Shape, holds_text};
use crate::isa::{Instr, run_flags};
use crate::module::{Constant, Module, NONE};
use crate::types::{Field, ValueType};

/// Past this many instructions walked, CALLs are no longer expanded (a task
/// called from many places, calling others that are, would repeat
/// exponentially); the result then says it is incomplete.
const MAX_WALKED: usize = 1_000_000;

/// Where tainted data comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SourceKind {
    Prompt,
    Read,
}

impl SourceKind {
    pub fn statement(self) -> &'static str {
        match self {
            SourceKind::Prompt => "PROMPT_AGENT",
            SourceKind::Read => "READ",
        }
    }
}

/// A statement that makes tainted data: its kind and source line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    pub kind: SourceKind,
    pub line: u32,
}

/// Tainted data that reaches a RUN.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Flow {
    pub source: Source,
    pub run_line: u32,
    /// The RUN's column, which tells RUNs on one line apart.
    pub run_column: u32,
}

/// A RUN after a WRITE (or APPEND) of model output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ModelCodeRun {
    pub write_line: u32,
    pub run_line: u32,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct TaintReport {
    /// Sorted by RUN line, then source; each once.
    pub flows: Vec<Flow>,
    pub model_code_runs: Vec<ModelCodeRun>,
    /// CALLs were left unexpanded past [`MAX_WALKED`]: flows through them
    /// may be missing.
    pub incomplete: bool,
}

/// The sources a value derives from, sorted, each once.
type Sources = Vec<Source>;

fn join(into: &mut Sources, from: &[Source]) {
    for s in from {
        if let Err(at) = into.binary_search(s) {
            into.insert(at, *s);
        }
    }
}

/// A value on the symbolic stack: its sources, and its text if a constant
/// (a WRITE's or READ's path).
#[derive(Debug, Clone, Default)]
struct Sym {
    sources: Sources,
    text: Option<String>,
    /// A typed answer's shape (a list or record), to know which of its
    /// fields hold text.
    shape: Option<u32>,
}

struct Walker<'m> {
    module: &'m Module,
    stack: Vec<Sym>,
    slots: Vec<Sources>,
    env: Sources,
    /// What the text fields of LAST_RUN may hold: every RUN's so far.
    last_run: Sources,
    /// Files written with tainted data (constant paths), with its sources;
    /// a written path that is not a constant taints every later READ.
    files: Vec<(Option<String>, Sources)>,
    /// Lines of WRITEs and APPENDs of model output so far.
    model_writes: Vec<u32>,
    /// The tasks being walked, with the pc of the CALL that entered each.
    calls: Vec<(u32, u32)>,
    walked: usize,
    report: TaintReport,
}

pub fn analyze(module: &Module) -> TaintReport {
    let code_len = module.code.len() as u32;
    let main_end = module.tasks.iter().map(|t| t.entry).min().unwrap_or(code_len);
    let mut walker = Walker {
        module,
        stack: Vec::new(),
        slots: vec![Vec::new(); module.slots.len()],
        env: Vec::new(),
        last_run: Vec::new(),
        files: Vec::new(),
        model_writes: Vec::new(),
        calls: Vec::new(),
        walked: 0,
        report: TaintReport::default(),
    };
    walker.walk(0, main_end.min(code_len));
    let mut report = walker.report;
    report.flows.sort();
    report.flows.dedup();
    report.model_code_runs.sort();
    report.model_code_runs.dedup();
    report
}

impl Walker<'_> {
    fn pop(&mut self) -> Sym {
        self.stack.pop().unwrap_or_default()
    }

    /// `instr` at `pc` may fail with a catchable failure whose message
    /// quotes its operands (and, for a PROMPT, the model's server): what
    /// they hold reaches the error record of the TRY that catches it, found
    /// as the VM finds it (innermost at `pc`, then at each CALL out).
    fn failure_at(&mut self, instr: Instr, pc: u32, line: u32) {
        let mut sources = Vec::new();
        let (pops, _) = instr.stack_effect();
        for sym in self.stack.iter().rev().take(pops as usize) {
            join(&mut sources, &sym.sources);
        }
        if matches!(instr, Instr::Prompt { .. }) {
            join(&mut sources, &[Source { kind: SourceKind::Prompt, line }]);
        }
        if sources.is_empty() {
            return;
        }
        let handlers = &self.module.handlers;
        let sites = std::iter::once(pc).chain(self.calls.iter().rev().map(|&(_, at)| at));
        let handler = sites.filter_map(|at| handlers.iter().find(|h| h.start <= at && at < h.end)).next();
        if let Some(h) = handler
            && h.catch_slot != NONE
            && let Some(cell) = self.slots.get_mut(h.catch_slot as usize)
        {
            join(cell, &sources);
        }
    }

    /// Walks `[start, end)` in instruction order.
    fn walk(&mut self, start: u32, end: u32) {
        let module = self.module;
        for pc in start..end {
            self.walked += 1;
            let Some(&instr) = module.code.get(pc as usize) else { return };
            let (line, column) = module.position(pc).unwrap_or((0, 0));
            if may_fail(instr) {
                self.failure_at(instr, pc, line);
            }
            match instr {
                Instr::PushConst { index } => {
                    let text = match module.constants.get(index as usize) {
                        Some(Constant::Str(s)) => Some(module.string(*s).unwrap_or("").to_string()),
                        _ => None,
                    };
                    self.stack.push(Sym { sources: Vec::new(), text, shape: None });
                }
                Instr::Load { slot } => {
                    let sources = self.slots.get(slot as usize).cloned().unwrap_or_default();
                    let shape = match module.slots.get(slot as usize).map(|s| s.ty) {
                        Some(ValueType::Answer(shape)) => Some(shape),
                        _ => None,
                    };
                    self.stack.push(Sym { sources, text: None, shape });
                }
                Instr::Store { slot } => {
                    let value = self.pop();
                    if let Some(cell) = self.slots.get_mut(slot as usize) {
                        join(cell, &value.sources);
                    }
                }
                Instr::LastRun {} => {
                    self.stack.push(Sym { sources: self.last_run.clone(), text: None, shape: None })
                }
                Instr::Field { field } => {
                    let record = self.pop();
                    let text = matches!(
                        Field::from_u8(field),
                        Some(Field::Stdout | Field::Stderr | Field::Command | Field::Message)
                    );
                    let sources = if text { record.sources } else { Vec::new() };
                    self.stack.push(Sym { sources, text: None, shape: None });
                }
                Instr::Interp { holes, .. } | Instr::InterpShell { holes, .. } => {
                    let mut sources = Vec::new();
                    for _ in 0..holes {
                        join(&mut sources, &self.pop().sources);
                    }
                    self.stack.push(Sym { sources, text: None, shape: None });
                }
                Instr::Read { slot } => {
                    let path = self.pop();
                    let mut sources = vec![Source { kind: SourceKind::Read, line }];
                    for (file, written) in &self.files {
                        if file.is_none() || path.text.is_none() || *file == path.text {
                            join(&mut sources, written);
                        }
                    }
                    if let Some(cell) = self.slots.get_mut(slot as usize) {
                        join(cell, &sources);
                    }
                }
                Instr::Prompt { prompt } => {
                    self.pop();
                    let info = module.prompts.get(prompt as usize);
                    let into = info.map_or(NONE, |p| p.into);
                    // A typed answer without a STRING in it carries no free
                    // text: validated integers, booleans and enum literals
                    // are clean (SPEC §8, §12).
                    let text =
                        info.and_then(|p| p.answer).is_none_or(|a| holds_text(&module.shapes, a.shape));
                    if text && let Some(cell) = self.slots.get_mut(into as usize) {
                        join(cell, &[Source { kind: SourceKind::Prompt, line }]);
                    }
                }
                Instr::Member { index } => {
                    let record = self.pop();
                    let field = match record.shape.and_then(|s| module.shapes.get(s as usize)) {
                        Some(Shape::Record(fields)) => fields.get(index as usize).map(|f| f.shape),
                        _ => None,
                    };
                    // A field without a STRING in it is clean; one whose
                    // shape is unknown (a module the verifier refuses) is not.
                    let text = field.is_none_or(|f| holds_text(&module.shapes, f));
                    let sources = if text { record.sources } else { Vec::new() };
                    self.stack.push(Sym { sources, text: None, shape: field });
                }
                Instr::Write {} | Instr::Append {} => {
                    let content = self.pop();
                    let path = self.pop();
                    if !content.sources.is_empty() {
                        if content.sources.iter().any(|s| s.kind == SourceKind::Prompt) {
                            self.model_writes.push(line);
                        }
                        self.files.push((path.text, content.sources));
                    }
                }
                Instr::Env { .. } => {
                    let value = self.pop();
                    join(&mut self.env, &value.sources);
                }
                Instr::Run { flags } => {
                    if flags & run_flags::TIMEOUT != 0 {
                        self.pop();
                    }
                    if flags & run_flags::DIR != 0 {
                        self.pop();
                    }
                    let mut sources = self.pop().sources;
                    join(&mut sources, &self.env);
                    join(&mut self.last_run, &sources);
                    self.report.flows.extend(sources.into_iter().map(|source| Flow {
                        source,
                        run_line: line,
                        run_column: column,
                    }));
                    self.report.model_code_runs.extend(
                        self.model_writes.iter().map(|&w| ModelCodeRun { write_line: w, run_line: line }),
                    );
                }
                Instr::Call { task } => {
                    let entry = module.tasks.get(task as usize).map(|t| t.entry);
                    match entry {
                        Some(entry)
                            if !self.calls.iter().any(|&(t, _)| t == task) && self.walked < MAX_WALKED =>
                        {
                            let end = module.task_end(entry);
                            self.calls.push((task, pc));
                            self.walk(entry, end);
                            self.calls.pop();
                        }
                        _ => self.report.incomplete = true,
                    }
                }
                Instr::Return {} | Instr::Halt {} => {}
                other => {
                    let (pops, pushes) = other.stack_effect();
                    for _ in 0..pops {
                        self.pop();
                    }
                    for _ in 0..pushes {
                        self.stack.push(Sym::default());
                    }
                }
            }
        }
    }
}

/// Whether `instr` can fail with a failure TRY catches, its message made
/// from its operands (SPEC §5); the VM's `operands_tainted` agrees.
fn may_fail(instr: Instr) -> bool {
    matches!(
        instr,
        Instr::Fail { .. }
            | Instr::Run { .. }
            | Instr::Write {}
            | Instr::Append {}
            | Instr::Read { .. }
            | Instr::Mkdir {}
            | Instr::Delete { .. }
            | Instr::FileExists {}
            | Instr::FileIsEmpty {}
            | Instr::FileContains {}
            | Instr::MatchesDynamic {}
            | Instr::Prompt { .. }
            | Instr::Review { .. }
    )
}
