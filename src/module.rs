//! A compiled plan: the code and every table it indexes.
//!
//! `Module` is plain data (serde), encoded into a `.tbc` by `format.rs`. The
//! compiler builds it; the verifier (`verify.rs`) checks every index before
//! the VM runs it. Text lives once, in `strings`; everything else refers to
//! it by index. Table order is the order the compiler emitted, never a
//! hash-map order, so identical source gives identical bytes.

use serde::{Deserialize, Serialize};

use crate::cost::Dim;
use crate::isa::Instr;

/// "No index": an absent optional string, slot, step or parent.
pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Module {
    /// The language version the module was compiled for, `[major, minor, patch]`.
    pub language: [u64; 3],
    /// String index of the `TASK` description.
    pub task: u32,
    /// `#TISS!` header entries: (key, value) string indices, in source order.
    pub metadata: Vec<(u32, u32)>,
    /// Every string the plan uses, each once.
    pub strings: Vec<String>,
    pub constants: Vec<Constant>,
    /// The code. Execution starts at instruction 0 (SETUP, then the top-level
    /// steps, then `HALT`); task bodies follow, each ending in `RETURN`.
    #[serde(with = "code_section")]
    pub code: Vec<Instr>,
    /// The deepest the operand stack gets on any path.
    pub max_stack: u32,
    /// Variables: one slot each.
    pub slots: Vec<Slot>,
    /// Sparse pc → source position: an entry where the position changes, sorted by pc.
    pub lines: Vec<LineEntry>,
    pub steps: Vec<StepInfo>,
    pub tasks: Vec<TaskInfo>,
    /// TRY blocks as a static exception table, innermost first for nested ranges.
    pub handlers: Vec<Handler>,
    /// String indices of the regular expressions compiled once at load time.
    pub regexes: Vec<u32>,
    pub templates: Vec<Template>,
    pub assertions: Vec<Assertion>,
    pub prompts: Vec<PromptInfo>,
    pub choices: Vec<Choice>,
    /// The static bounds bound by `ESTIMATE_COST` blocks.
    pub estimates: Vec<CostBound>,
    /// The whole plan's static cost bound.
    pub bound: CostBound,
    pub manifest: Manifest,
    /// The source text, for the debugger (absent when compiled with `--strip`).
    pub source: Option<Source>,
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
    pub catch_slot: u32,
}

/// A string with holes: `INTERP` fills the holes from the stack in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Template {
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
    pub message: u32,
    /// The values the condition reads, to show their actual values on failure.
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
    pub context: Vec<u32>,
    pub default_context: bool,
    /// Slot receiving the answer (`INTO`), or `NONE`.
    pub into: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// String index of the question, or `NONE`.
    pub prompt: u32,
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
/// Execution time is in milliseconds. Arithmetic saturates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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
    pub commands: Vec<CommandEntry>,
    pub paths: Vec<PathEntry>,
    pub prompts: Vec<PromptEntry>,
    pub interactions: Vec<InteractionEntry>,
    pub budgets: Vec<BudgetEntry>,
    /// Environment variables the plan sets (ENV): (name string index, line).
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
    pub dir: u32,
    /// `TIMEOUT` in milliseconds, if given.
    pub timeout_ms: Option<u64>,
    pub line: u32,
    /// Index of the innermost step, or `NONE`.
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
    pub text: u32,
    /// For CHOOSE: the option labels (string indices).
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
    pub reasons: Vec<RiskReason>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskReason {
    pub level: RiskLevel,
    pub reason: String,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    pub name: String,
    pub text: String,
}

impl Module {
    pub fn string(&self, index: u32) -> Option<&str> {
        self.strings.get(index as usize).map(String::as_str)
    }

    /// The source position of instruction `pc` (the last entry at or before it).
    pub fn position(&self, pc: u32) -> Option<(u32, u32)> {
        let i = self.lines.partition_point(|e| e.pc <= pc);
        let e = self.lines.get(i.checked_sub(1)?)?;
        Some((e.line, e.column))
    }
}

/// The code is stored in its explicit opcode encoding (`isa.rs`), not as a
/// serde enum, so opcode numbers are the ones the instruction table fixes.
mod code_section {
    use crate::isa::{self, Instr};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(code: &[Instr], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&isa::encode_all(code))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Instr>, D::Error> {
        let bytes: Vec<u8> = serde_bytes_vec(d)?;
        // Each instruction takes at least one byte, so this bounds the count.
        isa::decode_all(&bytes, bytes.len()).map_err(serde::de::Error::custom)
    }

    fn serde_bytes_vec<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the encoded code section")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_byte_buf(V)
    }
}
