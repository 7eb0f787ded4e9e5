//! Static taint (book: reference/policy.md): which RUNs may hold data from a model
//! (PROMPT_AGENT) or a file (READ), and which RUNs come after a WRITE of
//! model output or a RUN that held it (the plan may run code a model wrote). `tissvm inspect`
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
//!
//! A typed answer (`INTO t AS T`, book: reference/types.md) is followed part by part: its
//! source names the part a value derives from (`t`, then `t.severity` after
//! MEMBER), so a flow says which field reaches the RUN. A part without a
//! STRING in it (an INT, a BOOL, an enum, or lists and records of those)
//! carries no free text: it is clean, and reaches a RUN as a *clean flow*
//! (listed by `tissvm inspect`, never counted as taint).

use std::collections::HashMap;

use crate::answer::shape::{Shape, holds_text};
use crate::isa::{Instr, run_flags};
use crate::module::{Constant, Module, NONE};
use crate::types::{Field, ValueType};

/// Past this many instructions walked, CALLs are no longer expanded (a task
/// called from many places, calling others that are, would repeat
/// exponentially); the result then says it is incomplete.
const MAX_WALKED: usize = 1_000_000;

/// At most this many sources are kept for one value (the last of them
/// [`SourceKind::More`] when there were more): a plan of many prompts
/// feeding one ENV, LAST_RUN or variable would otherwise list every source
/// at every RUN after, a list the square of the plan's size (a 15,000-line
/// plan took 8 s and 1.5 GB to inspect).
pub const MAX_SOURCES: usize = 32;

/// Where tainted data comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SourceKind {
    Prompt,
    Read,
    /// Sources past [`MAX_SOURCES`], not listed; counted as tainted.
    More,
}

impl SourceKind {
    pub fn statement(self) -> &'static str {
        match self {
            SourceKind::Prompt => "PROMPT_AGENT",
            SourceKind::Read => "READ",
            SourceKind::More => "more sources",
        }
    }
}

/// A statement that makes data from outside the plan: its kind and source
/// line, and for a typed answer which part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    pub kind: SourceKind,
    pub line: u32,
    /// The part of a typed answer (`t`, `t.severity`): an index into
    /// [`TaintReport::fields`]. `NONE` for an untyped answer, a file, and
    /// the message of a failed model request.
    pub field: u32,
}

impl Source {
    /// A source that is text as a whole (not a part of a typed answer).
    pub fn untyped(kind: SourceKind, line: u32) -> Source {
        Source { kind, line, field: NONE }
    }

    /// The source that stands for those past [`MAX_SOURCES`].
    const MORE: Source = Source { kind: SourceKind::More, line: 0, field: NONE };

    /// How a message names it: `PROMPT_AGENT (line 3)`, `more sources`.
    pub fn described(&self) -> String {
        match self.kind {
            SourceKind::More => "more sources than are listed".into(),
            kind => format!("{} (line {})", kind.statement(), self.line),
        }
    }
}

/// A part of a typed answer that a value derives from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerField {
    /// The prompt's index in `Module::prompts`.
    pub prompt: u32,
    /// The part as the plan reads it: the INTO variable, then its fields
    /// (`t`, `t.severity`, `r.author.name`).
    pub path: String,
    /// Its index in `Module::shapes`.
    pub shape: u32,
    /// Whether it can hold free text (a STRING somewhere inside): then it
    /// is tainted, else clean (book: reference/policy.md, reference/types.md).
    pub tainted: bool,
}

/// Data that reaches a RUN.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Flow {
    pub source: Source,
    pub run_line: u32,
    /// The RUN's column, which tells RUNs on one line apart.
    pub run_column: u32,
}

/// A RUN after a WRITE (or APPEND) of model output, or a RUN whose command,
/// directory or environment held it (which may have written it anywhere),
/// or (in `written_runs`) of any tainted data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ModelCodeRun {
    /// The line of the statement that put the data in the workspace.
    pub write_line: u32,
    pub run_line: u32,
    /// That statement was a RUN, not a WRITE or APPEND.
    pub by_run: bool,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct TaintReport {
    /// Tainted data into a RUN: sorted (by source, then RUN), each once.
    pub flows: Vec<Flow>,
    /// Clean parts of typed answers that reach a RUN (no free text, so not
    /// taint), sorted the same way.
    pub clean_flows: Vec<Flow>,
    /// The parts of typed answers the sources of both name.
    pub fields: Vec<AnswerField>,
    /// RUNs after a WRITE or APPEND of model output, each with the first
    /// such write before it (not each of them: a plan of many would list
    /// the square of its size).
    pub model_code_runs: Vec<ModelCodeRun>,
    /// RUNs after a WRITE or APPEND of tainted data (from a model or a
    /// file), each with the first such write before it: the RUN may run
    /// what was written, so `[taint] run` holds it (book: reference/policy.md).
    pub written_runs: Vec<ModelCodeRun>,
    /// CALLs were left unexpanded past [`MAX_WALKED`]: flows through them
    /// may be missing.
    pub incomplete: bool,
}

impl TaintReport {
    /// Whether data from `source` is tainted: all of it is but a clean part
    /// of a typed answer.
    pub fn tainted(&self, source: &Source) -> bool {
        tainted(&self.fields, source)
    }

    /// The line of the first WRITE or APPEND of tainted data before the RUN
    /// at `run_line`, if there is one.
    pub fn written_before(&self, run_line: u32) -> Option<u32> {
        let at = self.written_runs.partition_point(|r| r.run_line < run_line);
        self.written_runs.get(at).filter(|r| r.run_line == run_line).map(|r| r.write_line)
    }

    /// The part of a typed answer `source` names, if it names one.
    pub fn field(&self, source: &Source) -> Option<&AnswerField> {
        self.fields.get(source.field as usize)
    }
}

fn tainted(fields: &[AnswerField], source: &Source) -> bool {
    fields.get(source.field as usize).is_none_or(|f| f.tainted)
}

/// The sources a value derives from, sorted, each once.
type Sources = Vec<Source>;

/// `from` added to `into`, which keeps at most [`MAX_SOURCES`]: past that,
/// the greatest are dropped for [`Source::MORE`], which sorts last. That
/// may count a dropped clean part of a typed answer as tainted: the
/// analysis may list more, never less.
fn join(into: &mut Sources, from: &[Source]) {
    for s in from {
        if let Err(at) = into.binary_search(s) {
            into.insert(at, *s);
            if into.len() > MAX_SOURCES {
                into.truncate(MAX_SOURCES - 1);
                into.push(Source::MORE);
            }
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
    /// Files written with tainted data, by constant path, with its sources.
    files: HashMap<String, Sources>,
    /// What was written to a path that is not a constant: every later READ
    /// may read it.
    written_anywhere: Sources,
    /// What was written at all: a READ of a path that is not a constant
    /// may read any of it.
    written_all: Sources,
    /// The first WRITE or APPEND of model output so far, or RUN that held
    /// it: its line, and whether it was a RUN.
    model_write: Option<(u32, bool)>,
    /// The same of any tainted data.
    tainted_write: Option<(u32, bool)>,
    /// The tasks being walked, with the pc of the CALL that entered each.
    calls: Vec<(u32, u32)>,
    walked: usize,
    /// The parts of typed answers named so far, and each one's index by
    /// (parent part, field position), a whole answer by (`NONE`, prompt).
    fields: Vec<AnswerField>,
    field_index: HashMap<(u32, u32), u32>,
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
        files: HashMap::new(),
        written_anywhere: Vec::new(),
        written_all: Vec::new(),
        model_write: None,
        tainted_write: None,
        calls: Vec::new(),
        walked: 0,
        fields: Vec::new(),
        field_index: HashMap::new(),
        report: TaintReport::default(),
    };
    walker.walk(0, main_end.min(code_len));
    let mut report = walker.report;
    report.fields = walker.fields;
    report.flows.sort();
    report.flows.dedup();
    report.clean_flows.sort();
    report.clean_flows.dedup();
    report.model_code_runs.sort();
    report.model_code_runs.dedup();
    // By RUN, the first write first: `written_before` searches it.
    report.written_runs.sort_by_key(|r| (r.run_line, r.write_line));
    report.written_runs.dedup();
    report
}

impl Walker<'_> {
    fn pop(&mut self) -> Sym {
        self.stack.pop().unwrap_or_default()
    }

    /// The index of the part `key` names, added as `make` says if new.
    fn intern(&mut self, key: (u32, u32), make: impl FnOnce() -> AnswerField) -> u32 {
        if let Some(&index) = self.field_index.get(&key) {
            return index;
        }
        let index = u32::try_from(self.fields.len()).unwrap_or(NONE);
        self.fields.push(make());
        self.field_index.insert(key, index);
        index
    }

    /// The whole answer of typed prompt `prompt`, of shape `shape`, held
    /// by the variable named `name`.
    fn answer_root(&mut self, prompt: u32, name: &str, shape: u32) -> u32 {
        let shapes = &self.module.shapes;
        let tainted = holds_text(shapes, shape);
        self.intern((NONE, prompt), || AnswerField { prompt, path: name.to_string(), shape, tainted })
    }

    /// Field `index` of the part `parent`, if that is a record that has it.
    fn member(&mut self, parent: u32, index: u32) -> Option<u32> {
        let module = self.module;
        let of = self.fields.get(parent as usize)?;
        let Some(Shape::Record(fields)) = module.shapes.get(of.shape as usize) else { return None };
        let field = fields.get(index as usize)?;
        let (prompt, shape) = (of.prompt, field.shape);
        let path = format!("{}.{}", of.path, module.string(field.name).unwrap_or("?"));
        let tainted = holds_text(&module.shapes, shape);
        Some(self.intern((parent, index), || AnswerField { prompt, path, shape, tainted }))
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
            join(&mut sources, &[Source::untyped(SourceKind::Prompt, line)]);
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
                    let mut sources = vec![Source::untyped(SourceKind::Read, line)];
                    match &path.text {
                        Some(path) => {
                            join(&mut sources, &self.written_anywhere);
                            if let Some(written) = self.files.get(path) {
                                join(&mut sources, written);
                            }
                        }
                        None => join(&mut sources, &self.written_all),
                    }
                    if let Some(cell) = self.slots.get_mut(slot as usize) {
                        join(cell, &sources);
                    }
                }
                Instr::Prompt { prompt } => {
                    self.pop();
                    let info = module.prompts.get(prompt as usize);
                    let into = info.map_or(NONE, |p| p.into);
                    // A typed answer names its parts as they are read; one
                    // without a STRING in it carries no free text:
                    // validated integers, booleans and enum literals are
                    // clean (book: reference/policy.md, reference/types.md).
                    let name = module.slots.get(into as usize).and_then(|s| module.string(s.name));
                    let source = match (info.and_then(|p| p.answer), name) {
                        (Some(answer), Some(name)) => Source {
                            kind: SourceKind::Prompt,
                            line,
                            field: self.answer_root(prompt, name, answer.shape),
                        },
                        _ => Source::untyped(SourceKind::Prompt, line),
                    };
                    if let Some(cell) = self.slots.get_mut(into as usize) {
                        join(cell, &[source]);
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
                    let mut sources = Vec::with_capacity(record.sources.len());
                    for source in &record.sources {
                        // A part of a typed answer: the field of that part.
                        let member = match source.field {
                            NONE => None,
                            parent => self.member(parent, index),
                        };
                        match member {
                            Some(field) => join(&mut sources, &[Source { field, ..*source }]),
                            None if text => join(&mut sources, &[*source]),
                            None => {}
                        }
                    }
                    self.stack.push(Sym { sources, text: None, shape: field });
                }
                Instr::Write {} | Instr::Append {} => {
                    let content = self.pop();
                    let path = self.pop();
                    if !content.sources.is_empty() {
                        // Model output is its free text: not clean parts of a typed answer.
                        let fields = &self.fields;
                        if content.sources.iter().any(|s| s.kind == SourceKind::Prompt && tainted(fields, s))
                        {
                            self.model_write = first(self.model_write, (line, false));
                        }
                        if content.sources.iter().any(|s| tainted(fields, s)) {
                            self.tainted_write = first(self.tainted_write, (line, false));
                        }
                        join(&mut self.written_all, &content.sources);
                        match path.text {
                            Some(path) => join(self.files.entry(path).or_default(), &content.sources),
                            None => join(&mut self.written_anywhere, &content.sources),
                        }
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
                    // The IN directory picks what runs (`sh x.sh` in a
                    // directory a model named): its data reaches the RUN.
                    let dir = if flags & run_flags::DIR != 0 { self.pop().sources } else { Vec::new() };
                    let mut sources = self.pop().sources;
                    join(&mut sources, &dir);
                    join(&mut sources, &self.env);
                    join(&mut self.last_run, &sources);
                    let (before, tainted_before) = (self.model_write, self.tainted_write);
                    for source in sources {
                        let flow = Flow { source, run_line: line, run_column: column };
                        if tainted(&self.fields, &source) {
                            // The RUN may write what it holds anywhere: every
                            // RUN after it may run that, as after a WRITE.
                            if source.kind == SourceKind::Prompt {
                                self.model_write = first(self.model_write, (line, true));
                            }
                            self.tainted_write = first(self.tainted_write, (line, true));
                            self.report.flows.push(flow);
                        } else {
                            self.report.clean_flows.push(flow);
                        }
                    }
                    if let Some((w, by_run)) = before {
                        self.report.model_code_runs.push(ModelCodeRun {
                            write_line: w,
                            run_line: line,
                            by_run,
                        });
                    }
                    if let Some((w, by_run)) = tainted_before {
                        self.report.written_runs.push(ModelCodeRun { write_line: w, run_line: line, by_run });
                    }
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

/// The earlier of `so_far` and `this` (by line).
fn first(so_far: Option<(u32, bool)>, this: (u32, bool)) -> Option<(u32, bool)> {
    Some(so_far.map_or(this, |w| if this.0 < w.0 { this } else { w }))
}

/// Whether `instr` can fail with a failure TRY catches, its message made
/// from its operands (book: reference/failures.md); the VM's `operands_tainted` agrees.
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
