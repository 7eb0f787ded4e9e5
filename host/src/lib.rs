//! The operating system's side of TissLang: the workspace on disk
//! (`workspace/`), RUN's processes (`process/`, `spawn.rs`, `direct.rs`,
//! `watchdog.rs`), their environment (`environment.rs`) and their sandbox
//! (`sandbox/`). The VM's `Host` drives these; nothing here knows the VM:
//! what the VM needs to see (cancellation, the output as it streams) comes
//! in as callbacks.

pub mod direct;
pub mod environment;
pub mod process;
pub mod sandbox;
pub mod spawn;
pub mod temp_files;
pub mod watchdog;
pub mod workspace;

/// Why an operation on the system failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// It could not be carried out (a missing file, a command that cannot
    /// start): the VM's `command_error`.
    Command(String),
    /// A path escaped the workspace, or the sandbox refused: the VM's
    /// `security_violation`.
    Security(String),
}
