//! Why a module was refused: every error names the pc, table or entry,
//! and what was expected there.

use std::fmt;

use crate::isa::Want;
use crate::types::{Field, ValueType};

pub(super) type Result<T = ()> = std::result::Result<T, VerifyError>;

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
    Shapes,
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
            Table::Shapes => "shapes",
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
    /// A regex entry names a pattern an earlier one names (the compiler
    /// emits each once: each is compiled when the module is loaded).
    RegexRepeated { regex: usize, earlier: usize },
    /// More regexes than any plan needs, each compiled at load time.
    TooManyRegexes { count: usize },
    /// A template with two text parts in a row (the compiler joins them):
    /// how a table of copies would make a run build text without end.
    TemplateTextRepeated { template: usize, part: usize },
    /// A template whose text adds up to far more than the module holds.
    TemplateTooLong { template: usize, bytes: usize, limit: usize },
    /// A prompt naming one variable twice in its context.
    ContextRepeated { prompt: usize, entry: usize },
    /// A CHOOSE with more options than [`super::MAX_CHOICE_OPTIONS`].
    TooManyOptions { choice: usize, count: usize },
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
    /// Two paths reach `pc` with different stacks (depths or types), bottom first.
    StackMismatch { pc: u32, from: u32, this: Vec<ValueType>, other: Vec<ValueType> },
    /// A value taken from the stack has the wrong type.
    WrongType { pc: u32, mnemonic: &'static str, what: &'static str, expected: Want, found: ValueType },
    /// The two sides of a comparison have different types.
    NotAlike { pc: u32, mnemonic: &'static str, left: ValueType, right: ValueType },
    /// `FIELD` of a record that has no such field.
    NoSuchField { pc: u32, field: u8, record: ValueType },
    /// `STORE` of a value that is not of the variable's declared type.
    StoreType { pc: u32, slot: u32, name: String, declared: ValueType, found: ValueType },
    /// A variable receives a value of another type than it is declared with.
    SlotType { site: Site, slot: u32, declared: ValueType, receives: ValueType },
    /// A variable or `LAST_RUN` is read where not every path has bound it.
    Unbound { pc: u32, mnemonic: &'static str, binding: Binding, through_task: Option<u32> },
    /// `STEP_EXIT` with no step open in its code unit.
    StepExitUnopened { pc: u32, step: u32 },
    /// `STEP_EXIT` of another step than the one open.
    StepExitOther { pc: u32, step: u32, open: u32 },
    /// `HALT` or `RETURN` with steps still open.
    StepsOpen { pc: u32, mnemonic: &'static str, open: Vec<u32> },
    /// Two paths reach `pc` inside different steps (outermost first).
    StepsMismatch { pc: u32, from: u32, this: Vec<u32>, other: Vec<u32> },
    /// An instruction is reached from two code units (the main code, a task).
    SharedCode { pc: u32, first: Unit, second: Unit },
    /// `CALL` with values on the operand stack.
    CallDepth { pc: u32, depth: u32 },
    /// A handler keeps more of the stack than a pc in its range holds.
    HandlerStack { handler: usize, pc: u32, holds: u32, stack_depth: u32 },
    /// A handler keeps more open steps than a pc in its range has.
    HandlerSteps { handler: usize, pc: u32, open: u32, step_depth: u32 },
    /// Two `CHOOSE` instructions use one choice.
    ChoiceShared { choice: u32, pc: u32, other: u32 },
    /// The control flow would take more analysis than the module's size allows.
    TooComplex { work: u64, limit: u64 },
    /// Execution would continue past the last instruction.
    FallsOffEnd { pc: u32, mnemonic: &'static str },
    /// `HALT` is reachable from a task's entry.
    HaltInTask { pc: u32 },
    /// `RETURN` is reachable from the main code (pc 0).
    ReturnInMain { pc: u32 },
    /// `RETURN` would leave values on the caller's stack.
    ReturnDepth { pc: u32, depth: u32 },
    /// Control goes back to an earlier instruction: plans have no loops, so
    /// a backward jump could only make a run that never ends.
    BackwardJump { site: Site, what: &'static str, target: u32 },
    /// Tasks call each other in a cycle: frames would grow without bound.
    CallCycle { task: u32 },
    /// The shape table is malformed (a forward reference, a name twice, ...).
    BadShape { reason: String },
    /// A typed answer on the stack whose shape is a leaf (leaves are plain values).
    LeafAnswer { site: Site, shape: u32 },
    /// A typed answer of the wrong shape for the instruction (`MEMBER` of a
    /// list, `LIST_CONTAINS` of a record, a record inserted into a RUN).
    WrongShape { pc: u32, mnemonic: &'static str, what: &'static str, expected: &'static str, shape: u32 },
    /// `MEMBER` or `HAS_MEMBER` of a field the record shape does not have.
    NoSuchMember { pc: u32, mnemonic: &'static str, index: u32, shape: u32 },
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
            VerifyError::RegexRepeated { regex, earlier } => {
                write!(f, "regexes[{regex}]: the pattern of regexes[{earlier}] again (each is compiled once)")
            }
            VerifyError::TemplateTextRepeated { template, part } => write!(
                f,
                "templates[{template}].parts[{part}]: a text part right after another (the compiler joins them)"
            ),
            VerifyError::TemplateTooLong { template, bytes, limit } => write!(
                f,
                "templates[{template}]: {bytes} bytes of text, more than the {limit} the module's strings allow"
            ),
            VerifyError::ContextRepeated { prompt, entry } => {
                write!(f, "prompts[{prompt}].context[{entry}]: a variable the context already names")
            }
            VerifyError::TooManyOptions { choice, count } => write!(
                f,
                "choices[{choice}]: {count} options, more than the {} a CHOOSE may offer",
                super::MAX_CHOICE_OPTIONS
            ),
            VerifyError::TooManyRegexes { count } => write!(
                f,
                "{count} regular expressions, more than the {} a module may compile",
                super::MAX_REGEXES
            ),
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
            VerifyError::StackMismatch { pc, from, this, other } => write!(
                f,
                "pc {pc}: reached from pc {from} with the stack {}, but with {} on another path",
                types(other),
                types(this)
            ),
            VerifyError::WrongType { pc, mnemonic, what, expected, found } => write!(
                f,
                "pc {pc} ({mnemonic}): {what} must be {}, but the stack holds a {} there",
                expected.describe(),
                found.name()
            ),
            VerifyError::NotAlike { pc, mnemonic, left, right } => write!(
                f,
                "pc {pc} ({mnemonic}): compares a {} with a {}; both sides must have one type",
                left.name(),
                right.name()
            ),
            VerifyError::NoSuchField { pc, field, record } => {
                let name = Field::from_u8(*field).map_or("?", Field::name);
                write!(f, "pc {pc} (FIELD): a {} has no field {name} (number {field})", record.name())
            }
            VerifyError::StoreType { pc, slot, name, declared, found } => write!(
                f,
                "pc {pc} (STORE): variable `{name}` (slot {slot}) is declared a {}, but the value stored is a {}",
                declared.name(),
                found.name()
            ),
            VerifyError::SlotType { site, slot, declared, receives } => write!(
                f,
                "{site}: slot {slot} is declared a {}, but it receives a {} here",
                declared.name(),
                receives.name()
            ),
            VerifyError::Unbound { pc, mnemonic, binding, through_task } => {
                write!(f, "pc {pc} ({mnemonic}): ")?;
                if let Some(task) = through_task {
                    write!(f, "tasks[{task}] reads {binding}, which")?;
                } else {
                    write!(f, "reads {binding}, which")?;
                }
                f.write_str(" is not bound on every path to here (bind it before every use)")
            }
            VerifyError::StepExitUnopened { pc, step } => {
                write!(f, "pc {pc} (STEP_EXIT): leaves step {step}, but no step is open there")
            }
            VerifyError::StepExitOther { pc, step, open } => {
                write!(f, "pc {pc} (STEP_EXIT): leaves step {step}, but step {open} is the one open there")
            }
            VerifyError::StepsOpen { pc, mnemonic, open } => write!(
                f,
                "pc {pc} ({mnemonic}): steps {open:?} are still open; every STEP_ENTER needs its STEP_EXIT on every path"
            ),
            VerifyError::StepsMismatch { pc, from, this, other } => write!(
                f,
                "pc {pc}: reached from pc {from} inside steps {other:?}, but inside steps {this:?} on another path"
            ),
            VerifyError::SharedCode { pc, first, second } => write!(
                f,
                "pc {pc}: reached from {first} and from {second}; each instruction belongs to one of them"
            ),
            VerifyError::CallDepth { pc, depth } => write!(
                f,
                "pc {pc} (CALL): {depth} values are on the stack; a task is called with an empty stack"
            ),
            VerifyError::HandlerStack { handler, pc, holds, stack_depth } => write!(
                f,
                "handlers[{handler}]: restores a stack of {stack_depth} values, but pc {pc} in its range leaves {holds}"
            ),
            VerifyError::HandlerSteps { handler, pc, open, step_depth } => write!(
                f,
                "handlers[{handler}]: keeps {step_depth} open steps, but pc {pc} in its range has {open} open"
            ),
            VerifyError::ChoiceShared { choice, pc, other } => write!(
                f,
                "choices[{choice}]: used by the CHOOSE at pc {other} and by the one at pc {pc}; a choice belongs to one CHOOSE"
            ),
            VerifyError::TooComplex { work, limit } => write!(
                f,
                "the control flow takes {work} steps to analyse, more than the {limit} a module of this size may take \
                 (compiled plans take a few per instruction)"
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
            VerifyError::BackwardJump { site, what, target } => write!(
                f,
                "{site}: {what} {target} goes backwards; plans have no loops, so every transfer must go forward"
            ),
            VerifyError::BadShape { reason } => write!(f, "shapes: {reason}"),
            VerifyError::LeafAnswer { site, shape } => {
                write!(f, "{site}: shape {shape} is a plain value, not a list or record")
            }
            VerifyError::WrongShape { pc, mnemonic, what, expected, shape } => {
                write!(f, "pc {pc} ({mnemonic}): {what} must be {expected}, but its shape {shape} is not")
            }
            VerifyError::NoSuchMember { pc, mnemonic, index, shape } => {
                write!(f, "pc {pc} ({mnemonic}): the record of shape {shape} has no field {index}")
            }
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

/// A code unit: the main code (from pc 0) or a task's (from its entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Main,
    Task { task: u32, entry: u32 },
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unit::Main => f.write_str("the main code"),
            Unit::Task { task, entry } => write!(f, "tasks[{task}] (entry pc {entry})"),
        }
    }
}

/// What a read needs bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    Slot { slot: u32, name: String },
    LastRun,
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Binding::Slot { slot, name } => write!(f, "variable `{name}` (slot {slot})"),
            Binding::LastRun => f.write_str("LAST_RUN (the result of a RUN)"),
        }
    }
}

/// A stack's types, bottom first: `[string, integer]`.
fn types(list: &[ValueType]) -> String {
    let names: Vec<&str> = list.iter().map(|t| t.name()).collect();
    format!("[{}]", names.join(", "))
}
