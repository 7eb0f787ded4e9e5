//! Every effect the machine can have goes through [`Host`]. The real host
//! (`os.rs`) talks to the operating system; `scripted.rs` drives
//! tests. The dispatch loop itself never touches the OS.

pub mod direct;
pub mod environment;
pub mod os;
pub mod process;
pub mod sandbox;
pub mod scripted;
pub mod spawn;
pub mod temp_files;
pub mod watchdog;
pub mod workspace;

use serde::{Deserialize, Serialize};

use crate::machine::value::RunResult;

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

/// A command to run (directly, or with `/bin/sh -c`: `process.rs`).
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

/// A file test of a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileQuery<'a> {
    Exists,
    IsEmpty,
    Contains(&'a str),
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
        #[serde(deserialize_with = "crate::machine::state_limits::options")]
        options: Vec<String>,
    },
    /// A RUN the command policy wants a human to approve (SPEC §8):
    /// answered like a REQUEST_REVIEW, approve or reject.
    Approval {
        command: String,
        /// Why it asks: the `approve` pattern, or the taint rule.
        reason: String,
    },
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
    /// Extra fields (shortened outputs), as (key, value).
    pub details: &'a [(&'a str, &'a str)],
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
    fn ask(&mut self, question: &Question, line: u32) -> Option<Answer>;
    /// Milliseconds on a monotonic clock.
    fn now_ms(&mut self) -> u64;
    fn log(&mut self, event: &Event<'_>);
    /// Writes out, atomically, what the host records of the run (the
    /// `--record` cassette): when the run stops, however it stops, and with
    /// each snapshot, so that a snapshot's cassette is complete up to it.
    fn persist(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// Checks a plan path before any host sees it: relative, no `..` that climbs
/// out, not empty. Symlinks are the host's business (it resolves beneath the
/// workspace). Returns the message of a `security_violation`.
pub fn check_relative(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("the path is empty".to_string());
    }
    if path.starts_with('/') || path.starts_with('~') || path.starts_with('\\') {
        return Err(format!("`{path}` is absolute; paths are relative to the workspace"));
    }
    if path.contains('\0') {
        return Err(format!("`{}` contains a NUL byte", path.escape_debug()));
    }
    let mut depth: i64 = 0;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("`{path}` leaves the workspace"));
                }
            }
            _ => depth += 1,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_relative;

    #[test]
    fn lexical_escapes_are_refused() {
        assert!(check_relative("a/b.txt").is_ok());
        assert!(check_relative("a/../b").is_ok());
        assert!(check_relative("./a").is_ok());
        for bad in ["", "/etc/passwd", "~/x", "..", "a/../../b", "../x", "a\0b"] {
            assert!(check_relative(bad).is_err(), "{bad:?}");
        }
    }
}
