//! Lowering: a checked [`Plan`] → a [`Module`] (book: reference/structure.md,
//! reference/statements.md, reference/expressions.md; DESIGN "Bytecode").
//!
//! Code is emitted in *units*: the main unit (SETUP, the top-level steps in
//! source order, `HALT`) and one unit per `DEFINE_TASK` (its body, `RETURN`).
//! Tasks are lowered first, callees before callers, so a `CALL` knows its
//! callee's static cost bound; the units are then concatenated (main first)
//! and their jump targets relocated. Shared tables (strings, constants,
//! slots, templates, ...) live in the [`Tables`] every unit appends to.
//!
//! While emitting, each unit keeps the static cost bound of the path so far
//! (`acc`) and the operand stack depth; branches snapshot and merge them, so
//! the bounds are exact per path by construction (see `bound_of` users).

mod expr;
mod manifest;
mod path_cost;
mod risk;
mod slots;
mod stmt;
mod tables;

use rustc_hash::FxHashMap as HashMap;

use tisslang::cost::bound::CostBound;
use tisslang::isa::Instr;
use tisslang::module::{Handler, LineEntry, Module, NONE, Observed, StepInfo, TaskInfo};

use crate::check::answers::AnswerTypes;
use crate::source_file::SourceFile;
use crate::syntax::ast::{Block, Item, Plan, StmtKind};
use crate::syntax::span::Span;
use tables::{SourceRef, Tables};
use tisslang::module::{Source, kept_source::SourceHash};

/// What a module keeps of its plan's source.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeepSource {
    /// Its hash (`tissc compile`'s default): the `.tiss` beside the `.tbc`
    /// is shown when its text has it.
    Hash,
    /// Its text (`--embed-source`; the default of a plan compiled in
    /// memory, which shows it).
    #[default]
    Text,
    /// Nothing (`--strip`).
    Nothing,
}

/// Lowers a plan that passed every check (no error diagnostics).
pub fn lower(plan: &Plan, file: &SourceFile, keep: KeepSource) -> Module {
    let (mut tables, tasks, header_items, lines) =
        lower_tasks(plan, SourceRef::Borrowed(file), crate::check::answer_types(plan));
    let (code, bound) = lower_main(&mut tables, &tasks, lines, plan.items.iter(), None);
    let (mut module, _) = finish(tables, &header_items, code, bound);
    module.source = match keep {
        KeepSource::Hash => Source::Hash(SourceHash::of(&file.text)),
        KeepSource::Text => Source::Embedded { name: file.name.clone(), text: file.text.clone() },
        KeepSource::Nothing => Source::Stripped,
    };
    module
}

/// [`lower`], consuming the plan and its answer types as the checks found
/// them: each top-level item is freed once it is lowered, so the tree
/// shrinks while the module grows. With `release`, the source text of each
/// item lowered is given back too ([`SourceFile::release`]: it reads as
/// zeros after, so the caller must not need the text). The same module;
/// the source file back.
pub(crate) fn lower_owned(
    plan: Plan,
    file: SourceFile,
    answers: AnswerTypes,
    release: bool,
) -> (Module, SourceFile) {
    let (mut tables, tasks, header_items, lines) = lower_tasks(&plan, SourceRef::Owned(file), answers);
    // The header (TASK, `#TISS!`) is interned last, from its source text.
    let floor = header_items
        .iter()
        .filter_map(|item| match item {
            Item::Task { span, .. } | Item::Header { span, .. } => Some(span.end as usize),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let release = release.then_some(floor);
    let (code, bound) = lower_main(&mut tables, &tasks, lines, plan.items.into_iter(), release);
    let (module, file) = finish(tables, &header_items, code, bound);
    let SourceRef::Owned(file) = file else { unreachable!("lowered from an owned file") };
    (module, file)
}

/// Declares the slots and lowers the DEFINE_TASKs (callees first). Returns
/// the tables, the task index by name, the items the header is made of
/// (TASK and `#TISS!`), which are interned last, and room for the main
/// unit's line entries.
fn lower_tasks<'f>(
    plan: &Plan,
    file: SourceRef<'f>,
    answers: AnswerTypes,
) -> (Tables<'f>, HashMap<String, u32>, Vec<Item>, usize) {
    let (mut tables, sizes) = Tables::with_slots(file, answers, plan.bindings as usize, |declaring| {
        slots::declare_slots(plan, declaring)
    });
    sizes.reserve(&mut tables);
    let tasks = task_order(plan);
    tables.task_infos = (0..tasks.defs.len()).map(|_| None).collect();
    for &(index, _) in &tasks.order {
        let (name, body, span) = tasks.defs[index];
        let mut unit = Unit::new(&mut tables, &tasks.index, UnitKind::Task);
        unit.line(span);
        unit.block(body);
        unit.emit(Instr::Return {});
        let bound = unit.acc;
        let code = unit.finish();
        let name_index = tables.literal_or_raw(name);
        let line = tables.file.line_col(span.start as usize).line as u32;
        tables.task_infos[index] = Some((TaskInfo { name: name_index, entry: 0, line, bound }, code));
    }
    let header_items =
        plan.items.iter().filter(|i| matches!(i, Item::Task { .. } | Item::Header { .. })).cloned().collect();
    (tables, tasks.index, header_items, sizes.lines)
}

/// The main unit: SETUP and the top-level steps and budgets in source order,
/// then HALT. Returns its code and its static cost bound. With `release`
/// (the offset it starts from), the source text of each item lowered is
/// given back, when lowering owns it.
fn lower_main<I: std::borrow::Borrow<Item>>(
    tables: &mut Tables<'_>,
    task_index: &HashMap<String, u32>,
    lines: usize,
    items: impl Iterator<Item = I>,
    release: Option<usize>,
) -> (UnitCode, CostBound) {
    let mut main = Unit::new(tables, task_index, UnitKind::Main);
    main.lines.reserve_exact(lines);
    for item in items {
        let end = match item.borrow() {
            Item::Setup { description, body, span } => {
                let name = match description {
                    Some(d) => main.tables.literal_or_raw(d),
                    None => main.tables.string("SETUP"),
                };
                main.step(name, *span, body);
                span.end
            }
            Item::Step(step) => {
                let name = main.tables.literal_or_raw(&step.name);
                main.step(name, step.span, &step.body);
                step.span.end
            }
            Item::SetBudget(budget) => {
                main.line(budget.span);
                main.budget(budget);
                budget.span.end
            }
            // A TYPE is in the shape table (`Tables::answers`), not the code.
            Item::Header { .. }
            | Item::Version { .. }
            | Item::Task { .. }
            | Item::DefineTask { .. }
            | Item::TypeDef(_) => continue,
        };
        if let (Some(floor), SourceRef::Owned(file)) = (release, &mut main.tables.file) {
            file.release(floor, end as usize);
        }
    }
    main.emit(Instr::Halt {});
    let bound = main.acc;
    (main.finish(), bound)
}

/// Interns the header, assesses the risk and assembles the module.
fn finish<'f>(
    mut tables: Tables<'f>,
    header_items: &[Item],
    main_code: UnitCode,
    plan_bound: CostBound,
) -> (Module, SourceRef<'f>) {
    let header = tables.header(header_items);
    let risk = risk::assess(&mut tables);
    tables.into_module(header, risk, main_code, plan_bound)
}

/// The DEFINE_TASKs: source-order table indices and a callee-first order.
struct TaskOrder<'p> {
    defs: Vec<(&'p crate::syntax::ast::StrLit, &'p Block, Span)>,
    /// Task name → table index.
    index: HashMap<String, u32>,
    /// (table index, name) in callee-first order.
    order: Vec<(usize, String)>,
}

fn task_order(plan: &Plan) -> TaskOrder<'_> {
    let mut defs = Vec::new();
    let mut index = HashMap::default();
    for item in &plan.items {
        if let Item::DefineTask { name, body, span } = item {
            let key = name.as_literal().unwrap_or_default().to_string();
            index.entry(key).or_insert(defs.len() as u32);
            defs.push((name, body, *span));
        }
    }
    // Depth-first, callees first; the checker has rejected cycles, and the
    // `visiting` set keeps a malformed plan from recursing forever anyway.
    let mut order = Vec::new();
    let mut state = vec![0u8; defs.len()]; // 0 new, 1 visiting, 2 done
    fn visit(
        i: usize,
        defs: &[(&crate::syntax::ast::StrLit, &Block, Span)],
        index: &HashMap<String, u32>,
        state: &mut [u8],
        order: &mut Vec<(usize, String)>,
    ) {
        if state[i] != 0 {
            return;
        }
        state[i] = 1;
        let mut callees = Vec::new();
        collect_calls(defs[i].1, &mut callees);
        for callee in callees {
            if let Some(&j) = index.get(callee.as_str()) {
                visit(j as usize, defs, index, state, order);
            }
        }
        state[i] = 2;
        order.push((i, defs[i].0.as_literal().unwrap_or_default().to_string()));
    }
    for i in 0..defs.len() {
        visit(i, &defs, &index, &mut state, &mut order);
    }
    TaskOrder { defs, index, order }
}

/// Every `CALL` target in a block, nested blocks included.
fn collect_calls(block: &Block, out: &mut Vec<String>) {
    for stmt in &block.commands {
        match &stmt.kind {
            StmtKind::Call { task } => out.push(task.as_literal().unwrap_or_default().to_string()),
            StmtKind::Step { body, .. } | StmtKind::EstimateCost { body, .. } => collect_calls(body, out),
            StmtKind::If(if_stmt) => {
                let mut current = Some(if_stmt);
                while let Some(i) = current {
                    collect_calls(&i.then_block, out);
                    current = match &i.else_branch {
                        Some(crate::syntax::ast::Else::If { stmt, .. }) => Some(stmt),
                        Some(crate::syntax::ast::Else::Block { block }) => {
                            collect_calls(block, out);
                            None
                        }
                        None => None,
                    };
                }
            }
            StmtKind::Try { body, handler, .. } => {
                collect_calls(body, out);
                collect_calls(handler, out);
            }
            StmtKind::Choose { options, .. } => options.iter().for_each(|o| collect_calls(&o.body, out)),
            _ => {}
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UnitKind {
    Main,
    Task,
}

/// A unit's code with unit-relative jump targets, and what refers into it.
pub(crate) struct UnitCode {
    code: Vec<Instr>,
    lines: Vec<LineEntry>,
    handlers: Vec<Handler>,
    /// Choice table indices whose option targets point into this unit.
    choices: Vec<u32>,
    max_stack: u32,
}

/// Emits one unit of code.
pub(crate) struct Unit<'t, 'f> {
    tables: &'t mut Tables<'f>,
    task_index: &'t HashMap<String, u32>,
    kind: UnitKind,
    code: Vec<Instr>,
    lines: Vec<LineEntry>,
    handlers: Vec<Handler>,
    choices: Vec<u32>,
    /// The static cost bound of the path so far.
    acc: CostBound,
    depth: u32,
    max_stack: u32,
    /// Open steps (step table indices), innermost last.
    steps: Vec<u32>,
    /// Inside an ESTIMATE_COST block: the code is thrown away and its
    /// effects must not reach the manifest.
    estimating: bool,
    /// The paths the assertion being lowered reads, collected here and
    /// moved into its entry in a vector of exactly their number.
    observed: Vec<Observed>,
}

impl<'t, 'f> Unit<'t, 'f> {
    fn new(tables: &'t mut Tables<'f>, task_index: &'t HashMap<String, u32>, kind: UnitKind) -> Self {
        // The main unit holds most of a plan's code: sized from the source
        // so it does not grow by copying; its line entries are counted
        // (`slots::Sizes`). An instruction per 9-12 bytes on most plans, per
        // 6 on the conditions shape, whose code outgrew a twelfth and was
        // copied (2.5 MiB of pages); room beyond what is used is never
        // touched, so a fifth costs address space only.
        let source = if matches!(kind, UnitKind::Main) { tables.file.text.len() } else { 0 };
        Unit {
            tables,
            task_index,
            kind,
            code: Vec::with_capacity(source / 5),
            lines: Vec::new(),
            handlers: Vec::new(),
            choices: Vec::new(),
            acc: CostBound::ZERO,
            depth: 0,
            max_stack: 0,
            steps: Vec::new(),
            estimating: false,
            observed: Vec::new(),
        }
    }

    fn pc(&self) -> u32 {
        self.code.len() as u32
    }

    /// Appends an instruction, accounting its stack effect and static cost.
    fn emit(&mut self, instr: Instr) -> u32 {
        let (pops, pushes) = instr.stack_effect();
        self.depth = self.depth.saturating_sub(pops) + pushes;
        self.max_stack = self.max_stack.max(self.depth);
        path_cost::add_instruction(&mut self.acc, &instr);
        self.code.push(instr);
        self.pc() - 1
    }

    /// Points jump `at` to the current pc.
    fn patch(&mut self, at: u32) {
        let here = self.pc();
        match &mut self.code[at as usize] {
            Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                *target = here
            }
            other => unreachable!("patching a non-jump {other:?}"),
        }
    }

    /// Records the source position of the next instruction.
    fn line(&mut self, span: Span) {
        let at = self.tables.file.line_col(span.start as usize);
        let (line, column) = (at.line as u32, at.column as u32);
        let pc = self.pc();
        if let Some(last) = self.lines.last_mut() {
            if last.pc == pc {
                last.line = line;
                last.column = column;
                return;
            }
            if (last.line, last.column) == (line, column) {
                return;
            }
        }
        self.lines.push(LineEntry { pc, line, column });
    }

    /// A step (top-level, nested, or SETUP): enter, body, exit, with its own bound.
    fn step(&mut self, name: u32, span: Span, body: &Block) {
        let at = self.tables.file.line_col(span.start as usize);
        let index = self.tables.steps.len() as u32;
        self.tables.steps.push(StepInfo {
            name,
            line: at.line as u32,
            column: at.column as u32,
            parent: self.steps.last().copied().unwrap_or(NONE),
            depth: self.steps.len() as u32,
            bound: CostBound::ZERO,
        });
        let outer = std::mem::replace(&mut self.acc, CostBound::ZERO);
        self.line(span);
        self.emit(Instr::StepEnter { step: index });
        self.steps.push(index);
        self.block(body);
        self.steps.pop();
        self.line(body.span.to(span));
        self.emit(Instr::StepExit { step: index });
        let bound = self.acc;
        self.tables.steps[index as usize].bound = bound;
        self.acc = outer.then(&bound);
    }

    fn block(&mut self, block: &Block) {
        for stmt in &block.commands {
            self.statement(stmt);
        }
    }

    /// The bound of what `f` emits, as if run alone; `acc` is left untouched.
    fn bound_of(&mut self, f: impl FnOnce(&mut Self)) -> CostBound {
        let outer = std::mem::replace(&mut self.acc, CostBound::ZERO);
        f(self);
        std::mem::replace(&mut self.acc, outer)
    }

    fn finish(self) -> UnitCode {
        debug_assert!(self.kind == UnitKind::Main || matches!(self.code.last(), Some(Instr::Return {})));
        UnitCode {
            code: self.code,
            lines: self.lines,
            handlers: self.handlers,
            choices: self.choices,
            max_stack: self.max_stack,
        }
    }
}

#[cfg(test)]
mod tests;
