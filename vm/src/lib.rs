//! `tiss-vm`: the TissLang virtual machine.
//!
//! [`program::Program`] is a verified module ready to run;
//! [`machine::Machine`] is the whole run state (plain data) and its dispatch
//! loop; every effect goes through [`host::Host`].

pub mod answers;
pub mod debugger;
pub mod dry_run;
pub mod environment;
pub mod estimate;
pub mod event_log;
pub mod failure;
pub mod host;
pub mod inspect;
pub mod interrupt;
pub mod machine;
pub mod os_host;
pub mod process;
pub mod program;
pub mod provider;
pub mod report;
pub mod scripted_host;
pub mod shell;
pub mod snapshot;
pub mod value;
pub mod workspace;
