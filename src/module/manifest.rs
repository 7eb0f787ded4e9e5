//! A module's manifest: everything the plan can do, and its risk, for
//! review before it runs (`tissvm inspect`).

use serde::{Deserialize, Serialize};

use super::encoding::{bounded, opt_index};

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
    /// A command whose shell syntax cannot be read and whose text could
    /// name a risky program: what it runs is not known. Subject: why.
    UnreadableCommand,
    /// A tool that runs commands it makes or reads as it runs (`sed
    /// 's/x/y/e'`, `awk '{ system($0) }'`, `vim`), as `… | sh` does.
    /// Subject: the tool's name. Appended: older `.tbc` files decode as
    /// before.
    MadeCommand,
}

impl RiskKind {
    pub fn level(self) -> RiskLevel {
        match self {
            RiskKind::Privilege
            | RiskKind::NetworkTool
            | RiskKind::DiskTool
            | RiskKind::RecursiveRm
            | RiskKind::ModelOutputInCommand
            | RiskKind::PipeToShell
            | RiskKind::UnreadableCommand
            | RiskKind::MadeCommand => RiskLevel::High,
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
