//! The verifier: nothing runs until every index, jump and stack depth of a
//! module has been checked.
//!
//! Three passes, each linear in the size of the module:
//!
//! 1. **Tables**: every string, slot, step, field and dimension number a table
//!    holds is in range (`NONE` only where `module.rs` says an index may be
//!    absent), handler ranges and task entries lie inside the code, the line
//!    table is sorted.
//! 2. **Operands**: every instruction's operands, reachable or not.
//! 3. **Stack**: abstract interpretation of the operand-stack depth over the
//!    control-flow graph, from pc 0 (the main code), from every task entry
//!    (depth 0) and from every handler's target (its `stack_depth`, seeded
//!    when the handler's first protected instruction is reached). Depths must
//!    agree where paths merge, never go below zero or above `max_stack`;
//!    main code ends in `HALT`, task code in `RETURN` (at depth 0, since
//!    `CALL` leaves the stack unchanged), unless it fails (`FAIL`); no path
//!    falls off the end. `ASSERT` falls through; `CHOOSE` continues at its
//!    choice's option targets.
//!
//! Each instruction is visited at most twice (once as main code, once as
//! task code); each choice's and handler's successors are propagated at most
//! twice too. Memory is a few bytes per instruction.

use std::fmt;

use crate::cost::Dim;
use crate::isa::{Field, Instr, NO_SLOT, run_flags};
use crate::module::{Module, NONE, PathRootRef, Subject, TemplatePart};

/// A module table, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Strings,
    Constants,
    Slots,
    Templates,
    Regexes,
    Assertions,
    Prompts,
    Choices,
    Estimates,
    Steps,
    Tasks,
    ManifestPrompts,
}

impl Table {
    pub fn name(self) -> &'static str {
        match self {
            Table::Strings => "strings",
            Table::Constants => "constants",
            Table::Slots => "slots",
            Table::Templates => "templates",
            Table::Regexes => "regexes",
            Table::Assertions => "assertions",
            Table::Prompts => "prompts",
            Table::Choices => "choices",
            Table::Estimates => "estimates",
            Table::Steps => "steps",
            Table::Tasks => "tasks",
            Table::ManifestPrompts => "manifest.prompts",
        }
    }
}

/// Where in the module a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// An instruction.
    Pc { pc: u32, mnemonic: &'static str },
    /// A module-level field (`task`, `max_stack`).
    Module { field: &'static str },
    /// An entry of a table: `steps[3]`, `manifest.commands[0]`.
    Entry { table: &'static str, index: usize },
    /// An element inside a table entry: `assertions[2].observed[1]`.
    Nested { table: &'static str, index: usize, part: &'static str, part_index: usize },
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Site::Pc { pc, mnemonic } => write!(f, "pc {pc} ({mnemonic})"),
            Site::Module { field } => write!(f, "module.{field}"),
            Site::Entry { table, index } => write!(f, "{table}[{index}]"),
            Site::Nested { table, index, part, part_index } => {
                write!(f, "{table}[{index}].{part}[{part_index}]")
            }
        }
    }
}

/// Why a module was refused. Every variant names the pc, table or entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// There is no instruction at all.
    EmptyCode,
    /// More instructions than a `u32` pc can address.
    CodeTooLong { len: usize },
    /// An index into a table is out of range.
    IndexOutOfRange { site: Site, what: &'static str, index: u32, table: Table, len: usize },
    /// A jump target, task entry, choice target or handler target is not an instruction.
    TargetOutOfRange { site: Site, what: &'static str, target: u32, len: usize },
    /// A small operand (field, dimension, flags) has a value with no meaning.
    BadOperand { site: Site, what: &'static str, value: u32, expected: &'static str },
    /// `INTERP`'s hole count is not its template's.
    HolesMismatch { pc: u32, mnemonic: &'static str, template: u32, holes: u32, expected: u32 },
    /// A handler's protected range is not inside the code.
    HandlerRange { handler: usize, start: u32, end: u32, len: usize },
    /// A step's parent is not an earlier step.
    StepParent { step: usize, parent: u32 },
    /// A choice has no option, so `CHOOSE` could go nowhere.
    EmptyChoice { choice: usize },
    /// A line-table entry names an instruction that does not exist.
    LineOutOfRange { entry: usize, pc: u32, len: usize },
    /// The line table is not sorted by pc.
    LinesUnsorted { entry: usize, pc: u32, previous: u32 },
    /// `max_stack` is larger than any code of this length can need.
    MaxStackTooLarge { max_stack: u32, len: usize },
    /// An instruction pops more values than the stack holds.
    StackUnderflow { pc: u32, mnemonic: &'static str, depth: u32, pops: u32 },
    /// The stack would grow beyond `max_stack`.
    StackOverflow { pc: u32, mnemonic: &'static str, depth: u64, max_stack: u32 },
    /// Two paths reach `pc` with different stack depths.
    StackMismatch { pc: u32, depth: u32, other: u32, from: u32 },
    /// Execution would continue past the last instruction.
    FallsOffEnd { pc: u32, mnemonic: &'static str },
    /// `HALT` is reachable from a task's entry.
    HaltInTask { pc: u32 },
    /// `RETURN` is reachable from the main code (pc 0).
    ReturnInMain { pc: u32 },
    /// `RETURN` would leave values on the caller's stack.
    ReturnDepth { pc: u32, depth: u32 },
    /// A handler cuts the stack back to more values than its TRY starts with.
    HandlerDepth { handler: usize, stack_depth: u32, depth: u32 },
    /// Control goes back to an earlier instruction: plans have no loops, so
    /// a backward jump could only make a run that never ends.
    BackwardJump { site: Site, what: &'static str, target: u32 },
    /// Tasks call each other in a cycle: frames would grow without bound.
    CallCycle { task: u32 },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::EmptyCode => f.write_str("the module has no code (it must at least HALT)"),
            VerifyError::CodeTooLong { len } => {
                write!(f, "the code has {len} instructions, too many to address")
            }
            VerifyError::IndexOutOfRange { site, what, index, table, len } => {
                write!(f, "{site}: {what} {index} is out of range ({len} {})", table.name())
            }
            VerifyError::TargetOutOfRange { site, what, target, len } => {
                write!(f, "{site}: {what} {target} is outside the code ({len} instructions)")
            }
            VerifyError::BadOperand { site, what, value, expected } => {
                write!(f, "{site}: {what} {value} is invalid (expected {expected})")
            }
            VerifyError::HolesMismatch { pc, mnemonic, template, holes, expected } => {
                write!(f, "pc {pc} ({mnemonic}): fills {holes} holes, but template {template} has {expected}")
            }
            VerifyError::HandlerRange { handler, start, end, len } => write!(
                f,
                "handlers[{handler}]: protected range {start}..{end} is not inside the code ({len} instructions)"
            ),
            VerifyError::StepParent { step, parent } => {
                write!(f, "steps[{step}]: parent {parent} is not an earlier step")
            }
            VerifyError::EmptyChoice { choice } => write!(f, "choices[{choice}]: has no options"),
            VerifyError::LineOutOfRange { entry, pc, len } => {
                write!(f, "lines[{entry}]: pc {pc} is outside the code ({len} instructions)")
            }
            VerifyError::LinesUnsorted { entry, pc, previous } => {
                write!(
                    f,
                    "lines[{entry}]: pc {pc} comes after pc {previous}; the line table must be sorted by pc"
                )
            }
            VerifyError::MaxStackTooLarge { max_stack, len } => {
                write!(f, "module.max_stack: {max_stack} is more than {len} instructions can push")
            }
            VerifyError::StackUnderflow { pc, mnemonic, depth, pops } => {
                write!(f, "pc {pc} ({mnemonic}): pops {pops} values but the stack holds {depth}")
            }
            VerifyError::StackOverflow { pc, mnemonic, depth, max_stack } => write!(
                f,
                "pc {pc} ({mnemonic}): the stack reaches {depth} values, above max_stack {max_stack}"
            ),
            VerifyError::StackMismatch { pc, depth, other, from } => write!(
                f,
                "pc {pc}: reached with {other} values on the stack from pc {from}, but with {depth} on another path"
            ),
            VerifyError::FallsOffEnd { pc, mnemonic } => write!(
                f,
                "pc {pc} ({mnemonic}): execution falls off the end of the code (every path must end in HALT or RETURN)"
            ),
            VerifyError::HaltInTask { pc } => {
                write!(f, "pc {pc} (HALT): reachable from a task's entry; a task ends in RETURN")
            }
            VerifyError::ReturnInMain { pc } => {
                write!(f, "pc {pc} (RETURN): reachable from the main code; the main code ends in HALT")
            }
            VerifyError::ReturnDepth { pc, depth } => {
                write!(
                    f,
                    "pc {pc} (RETURN): leaves {depth} values on the stack (a task must return with none)"
                )
            }
            VerifyError::HandlerDepth { handler, stack_depth, depth } => write!(
                f,
                "handlers[{handler}]: restores a stack of {stack_depth} values, but its protected code starts with {depth}"
            ),
            VerifyError::BackwardJump { site, what, target } => write!(
                f,
                "{site}: {what} {target} goes backwards; plans have no loops, so every transfer must go forward"
            ),
            VerifyError::CallCycle { task } => {
                write!(
                    f,
                    "tasks[{task}] can call itself (directly or through other tasks); calls must form no cycle"
                )
            }
        }
    }
}

impl std::error::Error for VerifyError {}

type Result<T = ()> = std::result::Result<T, VerifyError>;

/// Checks that `module` is safe to run: see the module documentation.
pub fn verify(module: &Module) -> Result {
    let len = module.code.len();
    if len == 0 {
        return Err(VerifyError::EmptyCode);
    }
    if len >= u32::MAX as usize {
        return Err(VerifyError::CodeTooLong { len });
    }
    let checker = Checker { m: module, len };
    checker.tables()?;
    let holes = checker.template_holes();
    checker.operands(&holes)?;
    StackCheck::new(module).run()?;
    checker.termination()
}

struct Checker<'a> {
    m: &'a Module,
    len: usize,
}

impl Checker<'_> {
    fn index(&self, site: Site, what: &'static str, index: u32, table: Table) -> Result {
        let len = match table {
            Table::Strings => self.m.strings.len(),
            Table::Constants => self.m.constants.len(),
            Table::Slots => self.m.slots.len(),
            Table::Templates => self.m.templates.len(),
            Table::Regexes => self.m.regexes.len(),
            Table::Assertions => self.m.assertions.len(),
            Table::Prompts => self.m.prompts.len(),
            Table::Choices => self.m.choices.len(),
            Table::Estimates => self.m.estimates.len(),
            Table::Steps => self.m.steps.len(),
            Table::Tasks => self.m.tasks.len(),
            Table::ManifestPrompts => self.m.manifest.prompts.len(),
        };
        if (index as usize) < len {
            Ok(())
        } else {
            Err(VerifyError::IndexOutOfRange { site, what, index, table, len })
        }
    }

    /// An index that may be `NONE`.
    fn optional(&self, site: Site, what: &'static str, index: u32, table: Table) -> Result {
        if index == NONE { Ok(()) } else { self.index(site, what, index, table) }
    }

    fn string(&self, site: Site, what: &'static str, index: u32) -> Result {
        self.index(site, what, index, Table::Strings)
    }

    fn target(&self, site: Site, what: &'static str, target: u32) -> Result {
        if (target as usize) < self.len {
            Ok(())
        } else {
            Err(VerifyError::TargetOutOfRange { site, what, target, len: self.len })
        }
    }

    fn field(&self, site: Site, field: u8) -> Result {
        match Field::from_u8(field) {
            Some(_) => Ok(()),
            None => Err(VerifyError::BadOperand {
                site,
                what: "field number",
                value: u32::from(field),
                expected: FIELD_RANGE,
            }),
        }
    }

    fn dim(&self, site: Site, dim: u8) -> Result {
        if usize::from(dim) < Dim::ALL.len() {
            Ok(())
        } else {
            Err(VerifyError::BadOperand {
                site,
                what: "dimension number",
                value: u32::from(dim),
                expected: "0..=4",
            })
        }
    }

    /// Pass 1: every table.
    fn tables(&self) -> Result {
        let m = self.m;
        let entry = |table, index| Site::Entry { table, index };
        let nested = |table, index, part, part_index| Site::Nested { table, index, part, part_index };

        self.string(Site::Module { field: "task" }, "task string", m.task)?;
        if m.max_stack as usize > self.len {
            return Err(VerifyError::MaxStackTooLarge { max_stack: m.max_stack, len: self.len });
        }
        for (i, &(key, value)) in m.metadata.iter().enumerate() {
            self.string(entry("metadata", i), "key string", key)?;
            self.string(entry("metadata", i), "value string", value)?;
        }
        for (i, c) in m.constants.iter().enumerate() {
            if let crate::module::Constant::Str(s) = *c {
                self.string(entry("constants", i), "string", s)?;
            }
        }
        for (i, slot) in m.slots.iter().enumerate() {
            self.string(entry("slots", i), "name string", slot.name)?;
        }
        let mut previous = None;
        for (i, line) in m.lines.iter().enumerate() {
            if line.pc as usize >= self.len {
                return Err(VerifyError::LineOutOfRange { entry: i, pc: line.pc, len: self.len });
            }
            if let Some(previous) = previous
                && line.pc < previous
            {
                return Err(VerifyError::LinesUnsorted { entry: i, pc: line.pc, previous });
            }
            previous = Some(line.pc);
        }
        for (i, step) in m.steps.iter().enumerate() {
            self.string(entry("steps", i), "name string", step.name)?;
            if step.parent != NONE && step.parent as usize >= i {
                return Err(VerifyError::StepParent { step: i, parent: step.parent });
            }
        }
        for (i, task) in m.tasks.iter().enumerate() {
            self.string(entry("tasks", i), "name string", task.name)?;
            self.target(entry("tasks", i), "entry", task.entry)?;
        }
        for (i, h) in m.handlers.iter().enumerate() {
            if h.start > h.end || h.end as usize > self.len {
                return Err(VerifyError::HandlerRange {
                    handler: i,
                    start: h.start,
                    end: h.end,
                    len: self.len,
                });
            }
            self.target(entry("handlers", i), "target", h.target)?;
            self.optional(entry("handlers", i), "catch slot", h.catch_slot, Table::Slots)?;
        }
        for (i, &regex) in m.regexes.iter().enumerate() {
            self.string(entry("regexes", i), "pattern string", regex)?;
        }
        for (i, t) in m.templates.iter().enumerate() {
            for (j, part) in t.parts.iter().enumerate() {
                if let TemplatePart::Text(s) = *part {
                    self.string(nested("templates", i, "parts", j), "text string", s)?;
                }
            }
        }
        for (i, a) in m.assertions.iter().enumerate() {
            self.string(entry("assertions", i), "condition string", a.condition)?;
            self.optional(entry("assertions", i), "message string", a.message, Table::Strings)?;
            for (j, o) in a.observed.iter().enumerate() {
                let site = nested("assertions", i, "observed", j);
                self.string(site, "text string", o.text)?;
                if let PathRootRef::Slot(slot) = o.path.root {
                    self.index(site, "root slot", slot, Table::Slots)?;
                }
                for &field in &o.path.fields {
                    self.field(site, field)?;
                }
            }
        }
        for (i, p) in m.prompts.iter().enumerate() {
            for (j, &slot) in p.context.iter().enumerate() {
                self.index(nested("prompts", i, "context", j), "slot", slot, Table::Slots)?;
            }
            self.optional(entry("prompts", i), "INTO slot", p.into, Table::Slots)?;
        }
        for (i, c) in m.choices.iter().enumerate() {
            self.optional(entry("choices", i), "prompt string", c.prompt, Table::Strings)?;
            if c.options.is_empty() {
                return Err(VerifyError::EmptyChoice { choice: i });
            }
            for (j, o) in c.options.iter().enumerate() {
                let site = nested("choices", i, "options", j);
                self.string(site, "label string", o.label)?;
                self.target(site, "target", o.target)?;
            }
        }
        self.manifest()
    }

    fn manifest(&self) -> Result {
        let man = &self.m.manifest;
        let entry = |table, index| Site::Entry { table, index };
        for (i, c) in man.commands.iter().enumerate() {
            let site = entry("manifest.commands", i);
            self.string(site, "text string", c.text)?;
            self.optional(site, "dir string", c.dir, Table::Strings)?;
            self.optional(site, "step", c.step, Table::Steps)?;
        }
        for (i, p) in man.paths.iter().enumerate() {
            self.string(entry("manifest.paths", i), "path string", p.path)?;
        }
        for (i, p) in man.prompts.iter().enumerate() {
            self.string(entry("manifest.prompts", i), "query string", p.query)?;
            for (j, &name) in p.context.iter().enumerate() {
                let site =
                    Site::Nested { table: "manifest.prompts", index: i, part: "context", part_index: j };
                self.string(site, "name string", name)?;
            }
        }
        for (i, x) in man.interactions.iter().enumerate() {
            self.optional(entry("manifest.interactions", i), "text string", x.text, Table::Strings)?;
            for (j, &label) in x.options.iter().enumerate() {
                let site =
                    Site::Nested { table: "manifest.interactions", index: i, part: "options", part_index: j };
                self.string(site, "label string", label)?;
            }
        }
        for (i, b) in man.budgets.iter().enumerate() {
            self.dim(entry("manifest.budgets", i), b.dim)?;
        }
        for (i, &(name, _line)) in man.env.iter().enumerate() {
            self.string(entry("manifest.env", i), "name string", name)?;
        }
        for (i, r) in man.risk.reasons.iter().enumerate() {
            let site = entry("manifest.risk.reasons", i);
            match r.kind.subject() {
                Some(Subject::String) => self.string(site, "subject string", r.subject)?,
                Some(Subject::Prompt) => {
                    self.index(site, "subject prompt", r.subject, Table::ManifestPrompts)?
                }
                None => {}
            }
        }
        Ok(())
    }

    /// The number of holes of each template, counted once.
    fn template_holes(&self) -> Vec<u32> {
        self.m
            .templates
            .iter()
            .map(|t| {
                t.parts
                    .iter()
                    .filter(|p| matches!(p, TemplatePart::Hole))
                    .count()
                    .try_into()
                    .unwrap_or(u32::MAX)
            })
            .collect()
    }

    /// Pass 2: every instruction's operands.
    /// Every run ends: control only goes forward (jumps, CHOOSE options,
    /// handlers), and the call graph of tasks has no cycle. Runs after the
    /// range checks, so every index here is valid.
    fn termination(&self) -> Result {
        let m = self.m;
        let forward = |site: Site, what: &'static str, from: u32, target: u32| {
            if target > from { Ok(()) } else { Err(VerifyError::BackwardJump { site, what, target }) }
        };
        // Each choice's earliest option, once: a choice may be used by many CHOOSEs.
        let earliest: Vec<u32> =
            m.choices.iter().map(|c| c.options.iter().map(|o| o.target).min().unwrap_or(0)).collect();
        for (pc, instr) in m.code.iter().enumerate() {
            let pc = pc as u32;
            let site = Site::Pc { pc, mnemonic: instr.mnemonic() };
            match *instr {
                Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                    forward(site, "jump target", pc, target)?
                }
                Instr::Choose { choice } => forward(site, "option target", pc, earliest[choice as usize])?,
                _ => {}
            }
        }
        for (i, h) in m.handlers.iter().enumerate() {
            if h.target < h.end {
                return Err(VerifyError::BackwardJump {
                    site: Site::Entry { table: "handlers", index: i },
                    what: "handler target",
                    target: h.target,
                });
            }
        }
        // The call graph: each task's code runs from its entry to the next
        // entry (or the end). Iterative depth-first search, so a long chain
        // of tasks cannot exhaust the Rust stack.
        let mut entries: Vec<(u32, usize)> = m.tasks.iter().enumerate().map(|(i, t)| (t.entry, i)).collect();
        entries.sort_unstable();
        let mut ends = vec![self.len as u32; m.tasks.len()];
        for pair in entries.windows(2) {
            if pair[1].0 > pair[0].0 {
                ends[pair[0].1] = pair[1].0;
            }
        }
        // Tasks sharing an entry share their code: the end is the next distinct entry.
        for k in (0..entries.len().saturating_sub(1)).rev() {
            if entries[k + 1].0 == entries[k].0 {
                ends[entries[k].1] = ends[entries[k + 1].1];
            }
        }
        let calls = |task: usize| -> Vec<usize> {
            let (start, end) = (m.tasks[task].entry as usize, ends[task] as usize);
            m.code[start..end]
                .iter()
                .filter_map(|i| match i {
                    Instr::Call { task } => Some(*task as usize),
                    _ => None,
                })
                .collect()
        };
        let mut state = vec![0u8; m.tasks.len()]; // 0 new, 1 on the path, 2 done
        for root in 0..m.tasks.len() {
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            let mut stack = vec![(root, calls(root), 0usize)];
            while let Some((task, callees, next)) = stack.last_mut() {
                if let Some(&callee) = callees.get(*next) {
                    *next += 1;
                    match state[callee] {
                        1 => return Err(VerifyError::CallCycle { task: callee as u32 }),
                        0 => {
                            state[callee] = 1;
                            let c = calls(callee);
                            stack.push((callee, c, 0));
                        }
                        _ => {}
                    }
                } else {
                    state[*task] = 2;
                    stack.pop();
                }
            }
        }
        Ok(())
    }

    fn operands(&self, holes: &[u32]) -> Result {
        for (pc, instr) in self.m.code.iter().enumerate() {
            let pc = pc as u32;
            let site = Site::Pc { pc, mnemonic: instr.mnemonic() };
            match *instr {
                Instr::PushConst { index } => self.index(site, "constant", index, Table::Constants)?,
                Instr::Load { slot } | Instr::Store { slot } | Instr::Read { slot } => {
                    self.index(site, "slot", slot, Table::Slots)?
                }
                Instr::Review { slot } => {
                    if slot != NO_SLOT {
                        self.index(site, "slot", slot, Table::Slots)?
                    }
                }
                Instr::Field { field } => self.field(site, field)?,
                Instr::Interp { template, holes: n } | Instr::InterpShell { template, holes: n } => {
                    self.index(site, "template", template, Table::Templates)?;
                    let expected = holes[template as usize];
                    if n != expected {
                        return Err(VerifyError::HolesMismatch {
                            pc,
                            mnemonic: instr.mnemonic(),
                            template,
                            holes: n,
                            expected,
                        });
                    }
                }
                Instr::Estimate { estimate } => self.index(site, "estimate", estimate, Table::Estimates)?,
                Instr::Matches { regex } => self.index(site, "regex", regex, Table::Regexes)?,
                Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                    self.target(site, "jump target", target)?
                }
                Instr::Call { task } => self.index(site, "task", task, Table::Tasks)?,
                Instr::StepEnter { step } | Instr::StepExit { step } => {
                    self.index(site, "step", step, Table::Steps)?
                }
                Instr::Assert { assertion } | Instr::Fail { assertion } => {
                    self.index(site, "assertion", assertion, Table::Assertions)?
                }
                Instr::Choose { choice } => self.index(site, "choice", choice, Table::Choices)?,
                Instr::Run { flags } => {
                    if flags & !(run_flags::DIR | run_flags::TIMEOUT) != 0 {
                        return Err(VerifyError::BadOperand {
                            site,
                            what: "flags",
                            value: u32::from(flags),
                            expected: "only the DIR (1) and TIMEOUT (2) bits",
                        });
                    }
                }
                Instr::Delete { recursive } => {
                    if recursive > 1 {
                        return Err(VerifyError::BadOperand {
                            site,
                            what: "recursive flag",
                            value: u32::from(recursive),
                            expected: "0 or 1",
                        });
                    }
                }
                Instr::Env { name } => self.string(site, "name string", name)?,
                Instr::Prompt { prompt } => self.index(site, "prompt", prompt, Table::Prompts)?,
                Instr::SetBudget { dim } => self.dim(site, dim)?,
                Instr::Pop {}
                | Instr::LastRun {}
                | Instr::Cost {}
                | Instr::Eq {}
                | Instr::Ne {}
                | Instr::Lt {}
                | Instr::Le {}
                | Instr::Gt {}
                | Instr::Ge {}
                | Instr::Contains {}
                | Instr::StartsWith {}
                | Instr::EndsWith {}
                | Instr::MatchesDynamic {}
                | Instr::IsEmpty {}
                | Instr::Not {}
                | Instr::FileExists {}
                | Instr::FileIsEmpty {}
                | Instr::FileContains {}
                | Instr::Return {}
                | Instr::Halt {}
                | Instr::Write {}
                | Instr::Append {}
                | Instr::Mkdir {}
                | Instr::Log {}
                | Instr::Pause {} => {}
            }
        }
        Ok(())
    }
}

const FIELD_RANGE: &str = "a record field number, 0..=21";

/// Reached from pc 0.
const MAIN: u8 = 1;
/// Reached from a task's entry.
const TASK: u8 = 2;
/// Not reached yet.
const UNSEEN: u32 = u32::MAX;

/// Pass 3: the operand-stack depth over the control-flow graph.
struct StackCheck<'a> {
    m: &'a Module,
    /// The depth before each instruction, or `UNSEEN`.
    depth: Vec<u32>,
    /// Which entries (`MAIN`, `TASK`) reach each instruction.
    reached: Vec<u8>,
    /// Instructions whose `reached` gained a bit and must be (re)visited.
    work: Vec<u32>,
    /// Handler indices sorted by `start` (a counting sort), to seed targets
    /// as TRYs are reached: those starting at `pc` are
    /// `by_start[first[pc]..first[pc + 1]]`.
    by_start: Vec<usize>,
    first: Vec<usize>,
    /// Which entries each choice's options have been propagated for.
    choice_done: Vec<u8>,
    /// Which entries each handler's target has been seeded for.
    handler_done: Vec<u8>,
}

impl<'a> StackCheck<'a> {
    fn new(m: &'a Module) -> StackCheck<'a> {
        let len = m.code.len();
        // Pass 1 checked `start <= end <= len`.
        let mut first = vec![0usize; len + 2];
        for h in &m.handlers {
            first[h.start as usize + 1] += 1;
        }
        for pc in 1..first.len() {
            first[pc] += first[pc - 1];
        }
        let mut fill = first.clone();
        let mut by_start = vec![0usize; m.handlers.len()];
        for (i, h) in m.handlers.iter().enumerate() {
            let slot = &mut fill[h.start as usize];
            by_start[*slot] = i;
            *slot += 1;
        }
        StackCheck {
            m,
            depth: vec![UNSEEN; len],
            reached: vec![0; len],
            work: Vec::new(),
            by_start,
            first,
            choice_done: vec![0; m.choices.len()],
            handler_done: vec![0; m.handlers.len()],
        }
    }

    /// Records that `pc` is reached with `depth` by `entries`, coming from `from`.
    fn reach(&mut self, pc: u32, depth: u32, entries: u8, from: u32) -> Result {
        let i = pc as usize;
        let known = self.depth[i];
        if known == UNSEEN {
            self.depth[i] = depth;
        } else if known != depth {
            return Err(VerifyError::StackMismatch { pc, depth: known, other: depth, from });
        }
        if self.reached[i] & entries != entries {
            self.reached[i] |= entries;
            self.work.push(pc);
        }
        Ok(())
    }

    fn run(mut self) -> Result {
        let m = self.m;
        self.reach(0, 0, MAIN, 0)?;
        for task in &m.tasks {
            self.reach(task.entry, 0, TASK, task.entry)?;
        }
        while let Some(pc) = self.work.pop() {
            self.visit(pc)?;
        }
        Ok(())
    }

    fn visit(&mut self, pc: u32) -> Result {
        let m = self.m;
        let i = pc as usize;
        let depth = self.depth[i];
        let entries = self.reached[i];
        let instr = m.code[i];
        let mnemonic = instr.mnemonic();

        // Handlers whose protected range starts here become reachable.
        for k in self.first[i]..self.first[i + 1] {
            let h = self.by_start[k];
            let handler = m.handlers[h];
            if handler.start == handler.end || self.handler_done[h] & entries == entries {
                continue;
            }
            self.handler_done[h] |= entries;
            if handler.stack_depth > depth {
                return Err(VerifyError::HandlerDepth {
                    handler: h,
                    stack_depth: handler.stack_depth,
                    depth,
                });
            }
            self.reach(handler.target, handler.stack_depth, entries, pc)?;
        }

        let (pops, pushes) = instr.stack_effect();
        if pops > depth {
            return Err(VerifyError::StackUnderflow { pc, mnemonic, depth, pops });
        }
        let after = u64::from(depth - pops) + u64::from(pushes);
        if after > u64::from(m.max_stack) {
            return Err(VerifyError::StackOverflow { pc, mnemonic, depth: after, max_stack: m.max_stack });
        }
        let after = after as u32;
        let next = |this: &mut Self| -> Result {
            if i + 1 >= m.code.len() {
                return Err(VerifyError::FallsOffEnd { pc, mnemonic });
            }
            this.reach(pc + 1, after, entries, pc)
        };
        match instr {
            Instr::Jump { target } => self.reach(target, after, entries, pc),
            Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                self.reach(target, after, entries, pc)?;
                next(self)
            }
            Instr::Halt {} => {
                if entries & TASK != 0 {
                    return Err(VerifyError::HaltInTask { pc });
                }
                Ok(())
            }
            // A failure goes to a handler (seeded from the TRY) or ends the run.
            Instr::Fail { .. } => Ok(()),
            Instr::Return {} => {
                if entries & MAIN != 0 {
                    return Err(VerifyError::ReturnInMain { pc });
                }
                if after != 0 {
                    return Err(VerifyError::ReturnDepth { pc, depth: after });
                }
                Ok(())
            }
            Instr::Choose { choice } => {
                let c = choice as usize;
                if self.choice_done[c] & entries == entries {
                    // Already propagated for these entries; its targets
                    // record the depth, so a different one still conflicts.
                    if let Some(o) = m.choices[c].options.first() {
                        let known = self.depth[o.target as usize];
                        if known != after {
                            return Err(VerifyError::StackMismatch {
                                pc: o.target,
                                depth: known,
                                other: after,
                                from: pc,
                            });
                        }
                    }
                    return Ok(());
                }
                self.choice_done[c] |= entries;
                for o in &m.choices[c].options {
                    self.reach(o.target, after, entries, pc)?;
                }
                Ok(())
            }
            _ => next(self),
        }
    }
}

#[cfg(test)]
pub(crate) mod build;
#[cfg(test)]
mod tests;
