//! A compiled plan: the code and every table it indexes.
//!
//! `Module` is plain data (serde), encoded into a `.tbc` by `container`. The
//! compiler builds it; the verifier (`verify.rs`) checks every index before
//! the VM runs it. Text lives once, in `strings`; everything else refers to
//! it by index. Table order is the order the compiler emitted, never a
//! hash-map order, so identical source gives identical bytes.

use serde::{Deserialize, Serialize};

use crate::answer::Shape;
use crate::cost::bound::CostBound;
use crate::isa::Instr;
use crate::types::ValueType;
use encoding::{bounded, code_section, opt_index};
pub use kept_source::Source;
pub use manifest::{
    BudgetEntry, CommandEntry, InteractionEntry, InteractionKind, Manifest, PathAccess, PathEntry,
    PromptEntry, Risk, RiskKind, RiskLevel, RiskReason, Subject,
};
use strings::StringTable;

mod encoding;
pub mod kept_source;
mod manifest;
pub mod strings;

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
    /// The shapes of typed answers (`INTO x AS T`), each referring only to
    /// shapes before it.
    #[serde(deserialize_with = "bounded::shapes")]
    pub shapes: Vec<Shape>,
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
    /// String index of the condition as written, laid out as `tissc fmt`
    /// prints it (one line, comments dropped).
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
    /// `INTO x AS T`: what the answer must be (TissLang 1.1).
    pub answer: Option<PromptAnswer>,
}

/// A typed prompt's answer: its shape, and what the providers are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptAnswer {
    /// Index in `Module::shapes`.
    pub shape: u32,
    /// String index of the schema's name (the TYPE's name, or `answer`).
    pub name: u32,
    /// String index of the shape's JSON Schema, derived once by the compiler.
    pub schema: u32,
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
            RiskKind::DynamicCommand => {
                "command built at run time (from values, or a program only running it tells)".to_string()
            }
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
            RiskKind::MadeCommand => made_command_text(name()),
            RiskKind::UnreadableCommand => {
                format!(
                    "a command that cannot be read as shell syntax ({}), so what it runs is not known",
                    name()
                )
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

/// A [`RiskKind::MadeCommand`] reason in words, as `tissvm inspect` and
/// the linter's W0004 give it.
pub fn made_command_text(tool: &str) -> String {
    format!(
        "runs `{tool}`, which runs commands it makes or reads as it runs (`s///e`, `system($0)`, \
         an option or a script that expands, an editor's `!CMD`, a template), so what they are is not known"
    )
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
                crate::codec::decode_budget::claim(entries, size_of::<LineEntry>(), "line table entries")
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
