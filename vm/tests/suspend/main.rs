//! Stopping and going on: suspension, answers, resume, Ctrl-C, the debugger, hostile snapshots.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;
#[path = "../../../benches/plan_gen.rs"]
mod plan_gen;
#[path = "../../../benches/plan_shapes.rs"]
mod plan_shapes;
#[path = "../resealed/mod.rs"]
mod resealed;

mod fixture;
mod resume_guards;
mod resume_workspace;
mod suspend_cli;
mod suspend_replay;
mod suspend_sigint;

mod debug_session;
mod every_state;
mod hostile_snapshots;
mod resume_mutations;
