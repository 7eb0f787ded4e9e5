//! Every effect the machine can have goes through [`Host`]: the bottom
//! layer of the VM, which imports nothing of the machine, the sessions or
//! the reports. The real host (`runner/os_host.rs`, on the `tiss-host`
//! crate) talks to the operating system; `scripted.rs` drives tests. The
//! dispatch loop itself never touches the OS.

pub mod scripted;

use serde::{Deserialize, Serialize};

/// A file test, and the lexical check of a plan path: the workspace's own
/// notions, defined where the workspace is.
pub use tiss_host::workspace::FileQuery;
pub use tiss_host::workspace::resolve::check_relative;

/// A question to a language model, its answer and its failure: the
/// providers' types, re-exported where the host's other types are.
pub use tiss_providers::{PromptError, PromptRequest, PromptResponse};

/// Why an effect failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// The effect could not be carried out: a `command_error` (catchable).
    Command(String),
    /// A path escaped the workspace, or the sandbox refused: `security_violation`.
    Security(String),
}

/// What a RUN recorded (`LAST_RUN`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RunResult {
    pub command: String,
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i64,
    pub duration_ms: u64,
    pub timed_out: bool,
}

/// A command to run (directly, or with `/bin/sh -c`: `tiss-host`'s `process/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRequest {
    pub command: String,
    /// Directory relative to the workspace (`IN`), already checked lexically.
    pub dir: Option<String>,
    /// `TIMEOUT` in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Variables set by ENV, in the order set (later wins).
    pub env: Vec<(String, String)>,
    /// The innermost step and the source line, for the log.
    pub step: Option<String>,
    pub line: u32,
}

/// What the machine asks a human.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Question {
    Pause {
        message: String,
    },
    Review {
        message: String,
    },
    Choose {
        prompt: Option<String>,
        #[serde(deserialize_with = "options")]
        options: Vec<String>,
    },
    /// A RUN the command policy wants a human to approve (book: reference/policy.md):
    /// answered like a REQUEST_REVIEW, approve or reject.
    Approval {
        command: String,
        /// Why it asks: the `approve` pattern, or the taint rule.
        reason: String,
    },
}

impl Question {
    /// The question as one line of text: `REQUEST_REVIEW "Ship it?"`.
    pub fn describe(&self) -> String {
        match self {
            Question::Pause { message } => format!("PAUSE {message:?}"),
            Question::Review { message } => format!("REQUEST_REVIEW {message:?}"),
            Question::Choose { prompt: Some(p), options } => {
                format!("CHOOSE {p:?} ({} options)", options.len())
            }
            Question::Choose { prompt: None, options } => format!("CHOOSE ({} options)", options.len()),
            Question::Approval { command, reason } => {
                format!("RUN {command:?}, which needs approval: {reason}")
            }
        }
    }
}

/// A human's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    Continue,
    Review {
        approved: bool,
        comment: String,
    },
    /// A 0-based option index.
    Choice(usize),
}

/// One event for the log and progress display.
#[derive(Debug, Clone, PartialEq)]
pub struct Event<'a> {
    /// `step_start`, `step_end` (outcome `passed`, or `failed` for each step
    /// a failure ends), `run`, `write`, `read`, ...
    pub event: &'a str,
    /// The innermost step's name, if any (for `step_end`: the step that ended).
    pub step: Option<&'a str>,
    /// How many steps are open (for `step_end`: the finished step's own depth, 0 = top level).
    pub depth: u32,
    pub line: u32,
    /// The operation's subject: the command, the path, the message.
    pub op: &'a str,
    /// `ok`, `failed`, `timed_out`, an exit code...
    pub outcome: &'a str,
    pub duration_ms: u64,
    /// Extra fields (shortened outputs, a prompt's counts), as (key, value).
    pub details: &'a [(&'a str, Detail<'a>)],
}

/// The value of one of an [`Event`]'s extra fields, typed as the log file
/// and the report write it: a count is a JSON number, a flag a boolean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail<'a> {
    Text(&'a str),
    Count(u64),
    Flag(bool),
}

impl Detail<'_> {
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Detail::Text(text) => text.into(),
            Detail::Count(n) => n.into(),
            Detail::Flag(b) => b.into(),
        }
    }
}

/// Where a question is asked: its line, and the innermost step open there
/// and how many are (what the answer's event names, as every other event).
#[derive(Debug, Clone, Copy)]
pub struct AskedAt<'a> {
    pub line: u32,
    pub step: Option<&'a str>,
    pub depth: u32,
}

pub trait Host {
    fn run(&mut self, request: &RunRequest) -> Result<RunResult, HostError>;
    fn read(&mut self, path: &str) -> Result<String, HostError>;
    /// Writes (or appends to) a file atomically, creating parent directories.
    fn write(&mut self, path: &str, content: &str, append: bool) -> Result<(), HostError>;
    fn mkdir(&mut self, path: &str) -> Result<(), HostError>;
    fn delete(&mut self, path: &str, recursive: bool) -> Result<(), HostError>;
    fn file_test(&mut self, path: &str, query: FileQuery<'_>) -> Result<bool, HostError>;
    /// Asks the model; a failure is a `provider_error` (or, when the API_CALLS
    /// budget stopped a retry, a `budget_exceeded`).
    fn prompt(&mut self, request: &PromptRequest) -> Result<PromptResponse, PromptError>;
    /// Asks a human; `None` means no answer is available now (suspend).
    fn ask(&mut self, question: &Question, at: AskedAt<'_>) -> Option<Answer>;
    /// Milliseconds on a monotonic clock.
    fn now_ms(&mut self) -> u64;
    /// The most tokens a model's answer may take (the provider's
    /// `max_tokens`): what a prompt's token maximum allows for the answer.
    fn completion_tokens(&self) -> u64 {
        tisslang::analysis::cost_model::DEFAULT_MAX_TOKENS
    }
    fn log(&mut self, event: &Event<'_>);
    /// Writes out, atomically, what the host records of the run (the
    /// `--record` cassette): when the run stops, however it stops, and with
    /// each snapshot, so that a snapshot's cassette is complete up to it.
    fn persist(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// The options of a question in a snapshot, claimed from the decoding
/// budget before they are allocated (book: reference/snapshots.md).
fn options<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    tisslang::codec::decode_budget::vec(d, "options of a question")
}
