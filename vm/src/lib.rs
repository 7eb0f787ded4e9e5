//! `tiss-vm`: the TissLang virtual machine.
//!
//! [`machine::program::Program`] is a verified module ready to run;
//! [`machine::Machine`] is the whole run state (plain data) and its dispatch
//! loop; every effect goes through [`host::Host`].
//!
//! One folder per concern: `machine/` (the state, its values and dispatch),
//! `host/` (the effects a run can have: the `Host` trait, and the scripted host
//! of tests; the OS side is the `tiss-host` crate), `provider`
//! (language models: the `tiss-providers` crate, re-exported), `analysis/` (what is known without running: estimate,
//! dry run, manifest), `session/` (suspension and what drives a run from
//! outside: snapshots, answers, Ctrl-C, the debugger), `report/` (what a
//! run tells: reports and the event log) and `runner/` (running a plan for
//! real: the OS host and the run logic of `tissvm`, on top of all the others)
//! and `dap/` (`tissvm dap`: the debugger over the Debug Adapter Protocol,
//! on top of `session/`'s debugger and `runner/`'s host), and `mcp/`
//! (`tissvm mcp`: the tools an agent uses, over the Model Context Protocol).

pub mod analysis;
pub mod dap;
pub mod host;
pub mod machine;
pub mod mcp;
pub mod policy;
/// The language-model providers live in their own crate, which `tissc
/// generate` uses too.
pub use tiss_providers as provider;
pub mod report;
pub mod runner;
pub mod session;
