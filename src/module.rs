//! A compiled plan: the code and every table it indexes.
//!
//! `Module` is plain data (serde), encoded into a `.tbc` by `format.rs`. The
//! compiler builds it; the verifier (`verify.rs`) checks every index before
//! the VM runs it. Text lives once, in `strings`; everything else refers to
//! it by index. Table order is the order the compiler emitted, never a
//! hash-map order, so identical source gives identical bytes.

use serde::{Deserialize, Serialize};

use crate::cost::Dim;
use crate::isa::{Field, Instr};
pub use crate::source::Source;
use crate::strings::StringTable;

/// "No index": an absent optional string, slot, step or parent.
pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Module {
    /// The language version the module was compiled for, `[major, minor, patch]`.
    pub language: [u64; 3],
    /// String index of the `TASK` description.
    pub task: u32,
    /// `#TISS!` header entries: (key, value) string indices, in source order.
    #[serde(deserialize_with = "bounded::metadata")]
    pub metadata: Vec<(u32, u32)>,
    /// Every string the plan uses, each once.
    pub strings: StringTable,
    #[serde(deserialize_with = "bounded::constants")]
    pub constants: Vec<Constant>,
    /// The code. Execution starts at instruction 0 (SETUP, then the top-level
    /// steps, then `HALT`); task bodies follow, each ending in `RETURN`.
    #[serde(with = "code_section")]
    pub code: Vec<Instr>,
    /// The deepest the operand stack gets on any path.
    pub max_stack: u32,
    /// Variables: one slot each.
    #[serde(deserialize_with = "bounded::slots")]
    pub slots: Vec<Slot>,
    /// Sparse pc → source position: an entry where the position changes, sorted by pc.
    #[serde(with = "line_table")]
    pub lines: Vec<LineEntry>,
    #[serde(deserialize_with = "bounded::steps")]
    pub steps: Vec<StepInfo>,
    #[serde(deserialize_with = "bounded::tasks")]
    pub tasks: Vec<TaskInfo>,
    /// TRY blocks as a static exception table, innermost first for nested ranges.
    #[serde(deserialize_with = "bounded::handlers")]
    pub handlers: Vec<Handler>,
    /// String indices of the regular expressions compiled once at load time.
    #[serde(deserialize_with = "bounded::regexes")]
    pub regexes: Vec<u32>,
    #[serde(deserialize_with = "bounded::templates")]
    pub templates: Vec<Template>,
    #[serde(deserialize_with = "bounded::assertions")]
    pub assertions: Vec<Assertion>,
    #[serde(deserialize_with = "bounded::prompts")]
    pub prompts: Vec<PromptInfo>,
    #[serde(deserialize_with = "bounded::choices")]
    pub choices: Vec<Choice>,
    /// The static bounds bound by `ESTIMATE_COST` blocks.
    #[serde(deserialize_with = "bounded::estimates")]
    pub estimates: Vec<CostBound>,
    /// The whole plan's static cost bound.
    pub bound: CostBound,
    pub manifest: Manifest,
    /// What is kept of the source, for the debugger and listings: its hash,
    /// its text, or nothing. Last, so the content hash can leave it out.
    pub source: Source,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Constant {
    /// A string index.
    Str(u32),
    Int(i64),
    /// Milliseconds.
    Duration(u64),
    Bool(bool),
}

/// The static type of a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueType {
    Str,
    Int,
    Duration,
    Bool,
    LastRun,
    Cost,
    Error,
    Review,
    Estimate,
}

impl ValueType {
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Str => "string",
            ValueType::Int => "integer",
            ValueType::Duration => "duration",
            ValueType::Bool => "boolean",
            ValueType::LastRun => "LAST_RUN record",
            ValueType::Cost => "COST record",
            ValueType::Error => "error record",
            ValueType::Review => "review record",
            ValueType::Estimate => "estimate record",
        }
    }

    /// A string, integer, duration or boolean: not a record.
    pub fn is_scalar(self) -> bool {
        matches!(self, ValueType::Str | ValueType::Int | ValueType::Duration | ValueType::Bool)
    }

    /// The type of `field` on a record of this type, if it has that field
    /// (SPEC §3: LAST_RUN, COST, caught errors, reviews, estimates).
    pub fn field(self, field: Field) -> Option<ValueType> {
        use Field::*;
        let has = match self {
            ValueType::LastRun => matches!(field, Stdout | Stderr | ExitCode | Duration | TimedOut | Command),
            ValueType::Cost => {
                matches!(field, ApiCalls | TokenCount | ExecutionTime | RunCount | Instructions)
            }
            // An estimate has the fields of COST (upper bounds) and their `_MIN` twins.
            ValueType::Estimate => ValueType::Cost.field(field).is_some() || field.is_min(),
            ValueType::Error => matches!(field, Kind | Message | Step | Line),
            ValueType::Review => matches!(field, Approved | Comment),
            ValueType::Str | ValueType::Int | ValueType::Duration | ValueType::Bool => false,
        };
        has.then(|| field.value_type())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    /// String index of the variable's name.
    pub name: u32,
    pub ty: ValueType,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineEntry {
    pub pc: u32,
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepInfo {
    /// String index of the step's name ("SETUP" for the setup block).
    pub name: u32,
    pub line: u32,
    pub column: u32,
    /// Index of the enclosing step, or `NONE` for a top-level step.
    #[serde(with = "opt_index")]
    pub parent: u32,
    /// 0 for top-level steps.
    pub depth: u32,
    /// The step's static bound (from entering it to leaving it).
    pub bound: CostBound,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskInfo {
    /// String index of the DEFINE_TASK name.
    pub name: u32,
    /// First instruction of the body.
    pub entry: u32,
    pub line: u32,
    pub bound: CostBound,
}

/// One TRY: a failure raised at a pc in `[start, end)` continues at `target`
/// with the operand stack cut back to `stack_depth` and the step and call
/// stacks cut back to `step_depth` / `frame_depth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handler {
    pub start: u32,
    pub end: u32,
    pub target: u32,
    pub stack_depth: u32,
    /// How many steps are open at the TRY (counted from the run's start, or
    /// from the enclosing task's entry inside a task).
    pub step_depth: u32,
    /// The slot that receives the error record (`CATCH AS e`), or `NONE`.
    #[serde(with = "opt_index")]
    pub catch_slot: u32,
}

/// A string with holes: `INTERP` fills the holes from the stack in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Template {
    #[serde(deserialize_with = "bounded::template_parts")]
    pub parts: Vec<TemplatePart>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TemplatePart {
    /// Literal text: a string index.
    Text(u32),
    /// The next value from the stack.
    Hole,
}

/// What an `ASSERT` shows when it fails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assertion {
    /// String index of the condition as written.
    pub condition: u32,
    /// String index of `MESSAGE "..."`, or `NONE`.
    #[serde(with = "opt_index")]
    pub message: u32,
    /// The values the condition reads, to show their actual values on failure.
    #[serde(deserialize_with = "bounded::observed")]
    pub observed: Vec<Observed>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observed {
    /// String index of the expression as written (`LAST_RUN.STDOUT`).
    pub text: u32,
    pub path: PathRef,
}

/// A side-effect-free path the VM can evaluate directly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathRef {
    pub root: PathRootRef,
    /// `Field` numbers.
    #[serde(deserialize_with = "bounded::fields")]
    pub fields: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathRootRef {
    Slot(u32),
    LastRun,
    Cost,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptInfo {
    /// Slots named by `WITH`, in order. Empty with `default_context`: every
    /// variable bound by READ, plus `LAST_RUN`.
    #[serde(deserialize_with = "bounded::prompt_context")]
    pub context: Vec<u32>,
    pub default_context: bool,
    /// Slot receiving the answer (`INTO`), or `NONE`.
    #[serde(with = "opt_index")]
    pub into: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// String index of the question, or `NONE`.
    #[serde(with = "opt_index")]
    pub prompt: u32,
    #[serde(deserialize_with = "bounded::choice_options")]
    pub options: Vec<ChoiceOption>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChoiceOption {
    /// String index of the option's label.
    pub label: u32,
    /// First instruction of the option's block.
    pub target: u32,
}

/// A `[min, max]` bound per cost dimension, indexed in `Dim::ALL` order.
/// Execution time is in milliseconds. Arithmetic saturates. Serialized
/// compactly (`cost_bound_serde`): most dimensions of most bounds are zero or
/// exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CostBound {
    pub min: [u64; 5],
    pub max: [u64; 5],
}

impl CostBound {
    pub const ZERO: CostBound = CostBound { min: [0; 5], max: [0; 5] };

    pub fn get(&self, dim: Dim) -> (u64, u64) {
        let i = dim_index(dim);
        (self.min[i], self.max[i])
    }

    /// One path after the other.
    pub fn then(&self, other: &CostBound) -> CostBound {
        let mut out = *self;
        for i in 0..5 {
            out.min[i] = out.min[i].saturating_add(other.min[i]);
            out.max[i] = out.max[i].saturating_add(other.max[i]);
        }
        out
    }

    /// One of two paths.
    pub fn either(&self, other: &CostBound) -> CostBound {
        let mut out = *self;
        for i in 0..5 {
            out.min[i] = out.min[i].min(other.min[i]);
            out.max[i] = out.max[i].max(other.max[i]);
        }
        out
    }

    /// Adds an exact amount to one dimension.
    pub fn add(&mut self, dim: Dim, amount: u64) {
        let i = dim_index(dim);
        self.min[i] = self.min[i].saturating_add(amount);
        self.max[i] = self.max[i].saturating_add(amount);
    }

    /// Adds `[min, max]` to one dimension.
    pub fn add_range(&mut self, dim: Dim, min: u64, max: u64) {
        let i = dim_index(dim);
        self.min[i] = self.min[i].saturating_add(min);
        self.max[i] = self.max[i].saturating_add(max);
    }
}

/// Position of a dimension in `CostBound` arrays.
pub fn dim_index(dim: Dim) -> usize {
    match dim {
        Dim::ApiCalls => 0,
        Dim::TokenCount => 1,
        Dim::ExecutionTime => 2,
        Dim::RunCount => 3,
        Dim::Instructions => 4,
    }
}

/// Everything the plan can do, for review before it runs (`tissvm inspect`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Manifest {
    #[serde(deserialize_with = "bounded::commands")]
    pub commands: Vec<CommandEntry>,
    #[serde(deserialize_with = "bounded::paths")]
    pub paths: Vec<PathEntry>,
    #[serde(deserialize_with = "bounded::manifest_prompts")]
    pub prompts: Vec<PromptEntry>,
    #[serde(deserialize_with = "bounded::interactions")]
    pub interactions: Vec<InteractionEntry>,
    #[serde(deserialize_with = "bounded::budgets")]
    pub budgets: Vec<BudgetEntry>,
    /// Environment variables the plan sets (ENV): (name string index, line).
    #[serde(deserialize_with = "bounded::env")]
    pub env: Vec<(u32, u32)>,
    pub risk: Risk,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandEntry {
    /// String index of the command as written (with `${...}` holes if dynamic).
    pub text: u32,
    /// True when the command interpolates values known only at run time.
    pub dynamic: bool,
    /// String index of the `IN` directory, or `NONE`.
    #[serde(with = "opt_index")]
    pub dir: u32,
    /// `TIMEOUT` in milliseconds, if given.
    pub timeout_ms: Option<u64>,
    pub line: u32,
    /// Index of the innermost step, or `NONE`.
    #[serde(with = "opt_index")]
    pub step: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathAccess {
    Read,
    Write,
    Append,
    Create,
    Delete,
    DeleteRecursive,
    /// `FILE "p" EXISTS | IS_EMPTY | CONTAINS` and `RUN ... IN`.
    Inspect,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathEntry {
    /// String index of the path as written.
    pub path: u32,
    pub access: PathAccess,
    pub dynamic: bool,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptEntry {
    /// String index of the query as written.
    pub query: u32,
    /// String indices of the context variable names (empty: the default context).
    #[serde(deserialize_with = "bounded::entry_context")]
    pub context: Vec<u32>,
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InteractionKind {
    Pause,
    Review,
    Choose,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InteractionEntry {
    pub kind: InteractionKind,
    /// String index of the message or question, or `NONE`.
    #[serde(with = "opt_index")]
    pub text: u32,
    /// For CHOOSE: the option labels (string indices).
    #[serde(deserialize_with = "bounded::interaction_options")]
    pub options: Vec<u32>,
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetEntry {
    /// `Dim` number in `Dim::ALL` order.
    pub dim: u8,
    /// The cap (milliseconds for EXECUTION_TIME); `None` when set from a variable.
    pub value: Option<u64>,
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub enum RiskLevel {
    #[default]
    Low,
    Medium,
    High,
}

impl RiskLevel {
    pub fn name(self) -> &'static str {
        match self {
            RiskLevel::Low => "low",
            RiskLevel::Medium => "medium",
            RiskLevel::High => "high",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Risk {
    pub level: RiskLevel,
    /// Each reason with its level and source line, in source order.
    #[serde(deserialize_with = "bounded::risk_reasons")]
    pub reasons: Vec<RiskReason>,
}

/// One reason for the risk level: what kind, about what, where. Stored as
/// data rather than text (a plan can have thousands); [`Module::risk_text`]
/// words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskReason {
    pub kind: RiskKind,
    /// What the reason is about: for [`RiskKind::Prompt`] an index into
    /// `manifest.prompts`, for the other kinds that name something a string
    /// index (the tool, path or variable), else `NONE`.
    #[serde(with = "opt_index")]
    pub subject: u32,
    pub line: u32,
}

impl RiskReason {
    pub fn level(&self) -> RiskLevel {
        self.kind.level()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RiskKind {
    /// `sudo`, `su`, `doas`.
    Privilege,
    /// Subject: the tool's name.
    NetworkTool,
    /// Subject: the tool's name.
    DiskTool,
    /// `rm -r` and the like.
    RecursiveRm,
    /// Subject: the variable a PROMPT_AGENT filled.
    ModelOutputInCommand,
    DynamicCommand,
    InstallsPackages,
    GitPush,
    /// DELETE … RECURSIVE. Subject: the path.
    DeletesRecursively,
    /// Subject: the path as written.
    DynamicPath,
    /// Subject: the prompt (`manifest.prompts`).
    Prompt,
    /// ENV of a variable that decides what programs run. Subject: its name.
    LoaderEnvironment,
    /// `chmod 777` and the like: every user may change the files.
    WorldWritable,
    /// `… | sh`: a shell runs whatever the command before it printed.
    /// Subject: the shell's name.
    PipeToShell,
}

impl RiskKind {
    pub fn level(self) -> RiskLevel {
        match self {
            RiskKind::Privilege
            | RiskKind::NetworkTool
            | RiskKind::DiskTool
            | RiskKind::RecursiveRm
            | RiskKind::ModelOutputInCommand
            | RiskKind::PipeToShell => RiskLevel::High,
            RiskKind::DynamicCommand
            | RiskKind::InstallsPackages
            | RiskKind::GitPush
            | RiskKind::DeletesRecursively
            | RiskKind::DynamicPath
            | RiskKind::Prompt
            | RiskKind::LoaderEnvironment
            | RiskKind::WorldWritable => RiskLevel::Medium,
        }
    }

    /// Whether the subject is an index into `manifest.prompts` (else into
    /// the strings), and whether there is one.
    pub fn subject(self) -> Option<Subject> {
        match self {
            RiskKind::Privilege
            | RiskKind::RecursiveRm
            | RiskKind::DynamicCommand
            | RiskKind::InstallsPackages
            | RiskKind::GitPush
            | RiskKind::WorldWritable => None,
            RiskKind::Prompt => Some(Subject::Prompt),
            _ => Some(Subject::String),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    String,
    Prompt,
}

impl Module {
    /// Where the code of the task that starts at `entry` ends: the next
    /// task's entry, else the end of the code (tasks are laid out in order
    /// after the main code).
    pub fn task_end(&self, entry: u32) -> u32 {
        let code_end = u32::try_from(self.code.len()).unwrap_or(u32::MAX);
        self.tasks.iter().map(|t| t.entry).filter(|&e| e > entry).min().unwrap_or(code_end).min(code_end)
    }

    pub fn string(&self, index: u32) -> Option<&str> {
        self.strings.get(index)
    }

    /// A risk reason in words, as `tissvm inspect` and the disassembler show it.
    pub fn risk_text(&self, reason: &RiskReason) -> String {
        let name = || self.string(reason.subject).unwrap_or("?");
        match reason.kind {
            RiskKind::Privilege => "runs a command with elevated privileges".to_string(),
            RiskKind::NetworkTool => format!("uses the network tool `{}`", name()),
            RiskKind::DiskTool => format!("uses the disk-level tool `{}`", name()),
            RiskKind::RecursiveRm => "deletes recursively with rm".to_string(),
            RiskKind::ModelOutputInCommand => {
                format!("language-model output `{}` flows into a command", name())
            }
            RiskKind::DynamicCommand => "command built at run time from values".to_string(),
            RiskKind::InstallsPackages => "installs packages".to_string(),
            RiskKind::GitPush => "pushes to a remote repository".to_string(),
            RiskKind::DeletesRecursively => format!("deletes `{}` recursively", name()),
            RiskKind::DynamicPath => format!("path computed at run time: `{}`", name()),
            RiskKind::Prompt => {
                let context = self.manifest.prompts.get(reason.subject as usize).map(|p| &p.context[..]);
                let sent = match context {
                    None | Some([]) => "every file READ so far and LAST_RUN".to_string(),
                    Some(names) => names
                        .iter()
                        .map(|&n| format!("`{}`", self.string(n).unwrap_or("?")))
                        .collect::<Vec<_>>()
                        .join(", "),
                };
                format!("asks a language model, sending {sent}")
            }
            RiskKind::LoaderEnvironment => format!("changes `{}`, which decides what programs run", name()),
            RiskKind::WorldWritable => "makes files writable by every user (chmod 777)".to_string(),
            RiskKind::PipeToShell => {
                format!("pipes into a shell (`| {}`), which runs whatever it is sent", name())
            }
        }
    }

    /// The source position of instruction `pc` (the last entry at or before it).
    pub fn position(&self, pc: u32) -> Option<(u32, u32)> {
        let i = self.lines.partition_point(|e| e.pc <= pc);
        let e = self.lines.get(i.checked_sub(1)?)?;
        Some((e.line, e.column))
    }
}

/// `deserialize_with` for every table: each claims its memory before it is
/// allocated (`bounds.rs`), and names what it holds when that is refused.
mod bounded {
    crate::bounded_vecs! {
        metadata: "metadata entries",
        constants: "constants",
        slots: "variable slots",
        steps: "steps",
        tasks: "tasks",
        handlers: "TRY handlers",
        regexes: "regular expressions",
        templates: "templates",
        assertions: "assertions",
        prompts: "prompts",
        choices: "choices",
        estimates: "cost estimates",
        template_parts: "template parts",
        observed: "observed values of an assertion",
        fields: "fields of a path",
        prompt_context: "context variables of a prompt",
        choice_options: "options of a choice",
        commands: "manifest commands",
        paths: "manifest paths",
        manifest_prompts: "manifest prompts",
        interactions: "manifest interactions",
        budgets: "manifest budgets",
        env: "manifest ENV entries",
        entry_context: "context names of a manifest prompt",
        interaction_options: "options of a manifest interaction",
        risk_reasons: "risk reasons",
    }
}

/// The code is stored in its explicit opcode encoding (`isa.rs`), not as a
/// serde enum, so opcode numbers are the ones the instruction table fixes.
/// Decoded from the payload in place: the instructions are counted first,
/// their memory claimed (`bounds.rs`), then they are decoded into a vector
/// of exactly that length.
mod code_section {
    use crate::isa::{self, Instr};
    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(code: &[Instr], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&isa::encode_all(code))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Instr>, D::Error> {
        struct Code;
        impl<'de> Visitor<'de> for Code {
            type Value = Vec<Instr>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the encoded code section")
            }
            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<Instr>, E> {
                let count = isa::count(bytes).map_err(E::custom)?;
                crate::bounds::claim(count, size_of::<Instr>(), "instructions").map_err(E::custom)?;
                isa::decode_all(bytes, count).map_err(E::custom)
            }
        }
        d.deserialize_bytes(Code)
    }
}

/// Serde for an index that may be [`NONE`]: stored as `index + 1` with
/// `NONE` as 0, so the common "none" takes one byte rather than five.
mod opt_index {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(index: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(index.wrapping_add(1))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        Ok(u32::deserialize(d)?.wrapping_sub(1))
    }
}

/// The line table as deltas: per entry the pc step, the line step (zigzag,
/// as lines may go back) and the column, flattened into one `u32` sequence.
/// Wrapping arithmetic keeps it lossless for any table, sorted or not.
mod line_table {
    use super::LineEntry;
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::ser::SerializeSeq;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(lines: &[LineEntry], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(3 * lines.len()))?;
        let (mut pc, mut line) = (0u32, 0u32);
        for e in lines {
            let step = e.line.wrapping_sub(line) as i32;
            seq.serialize_element(&e.pc.wrapping_sub(pc))?;
            seq.serialize_element(&(((step << 1) ^ (step >> 31)) as u32))?;
            seq.serialize_element(&e.column)?;
            (pc, line) = (e.pc, e.line);
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<LineEntry>, D::Error> {
        struct Deltas;
        impl<'de> Visitor<'de> for Deltas {
            type Value = Vec<LineEntry>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the line table")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<LineEntry>, A::Error> {
                // bincode states the length: claimed before anything is allocated.
                let entries = seq.size_hint().unwrap_or(0) / 3;
                crate::bounds::claim(entries, size_of::<LineEntry>(), "line table entries")
                    .map_err(Error::custom)?;
                let mut out = Vec::with_capacity(entries);
                let (mut pc, mut line) = (0u32, 0u32);
                while let Some(pc_step) = seq.next_element::<u32>()? {
                    let (Some(zigzag), Some(column)) =
                        (seq.next_element::<u32>()?, seq.next_element::<u32>()?)
                    else {
                        return Err(Error::custom("the line table's length is not a multiple of 3"));
                    };
                    let step = ((zigzag >> 1) as i32) ^ -((zigzag & 1) as i32);
                    pc = pc.wrapping_add(pc_step);
                    line = line.wrapping_add(step as u32);
                    out.push(LineEntry { pc, line, column });
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Deltas)
    }
}

/// A [`CostBound`] as a sequence: a mask (bit `i`: `max[i]` is not zero; bit
/// `5 + i`: `min[i]` differs from `max[i]`), then for each dimension in order
/// its `max` if not zero and its `min` if it differs.
mod cost_bound_serde {
    use super::CostBound;
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    impl Serialize for CostBound {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut mask = 0u64;
            for i in 0..5 {
                mask |= u64::from(self.max[i] != 0) << i | u64::from(self.min[i] != self.max[i]) << (5 + i);
            }
            let mut seq = s.serialize_seq(Some(1 + mask.count_ones() as usize))?;
            seq.serialize_element(&mask)?;
            for i in 0..5 {
                if self.max[i] != 0 {
                    seq.serialize_element(&self.max[i])?;
                }
                if self.min[i] != self.max[i] {
                    seq.serialize_element(&self.min[i])?;
                }
            }
            seq.end()
        }
    }

    impl<'de> Deserialize<'de> for CostBound {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CostBound, D::Error> {
            struct Masked;
            impl<'de> Visitor<'de> for Masked {
                type Value = CostBound;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a cost bound")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CostBound, A::Error> {
                    let missing = || Error::custom("a cost bound ends early");
                    let mask: u64 = seq.next_element()?.ok_or_else(missing)?;
                    if mask >> 10 != 0 {
                        return Err(Error::custom(format!("cost bound mask {mask:#x} has unknown bits")));
                    }
                    let mut bound = CostBound::ZERO;
                    for i in 0..5 {
                        if mask & 1 << i != 0 {
                            bound.max[i] = seq.next_element()?.ok_or_else(missing)?;
                        }
                        bound.min[i] = bound.max[i];
                        if mask & 1 << (5 + i) != 0 {
                            bound.min[i] = seq.next_element()?.ok_or_else(missing)?;
                        }
                    }
                    if seq.next_element::<u64>()?.is_some() {
                        return Err(Error::custom("a cost bound has extra values"));
                    }
                    Ok(bound)
                }
            }
            d.deserialize_seq(Masked)
        }
    }
}
