//! tissvm as a command: its flags, help, docs, the commands of the README and the book, the examples, checkpoints, invalid plans, start-up.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;

mod book_examples;
mod checkpoint;
mod cli_docs;
mod cli_help;
mod closed_pipe;
mod invalid_plan_reports;
mod readme_commands;
mod run_examples;
mod run_fast_path;
mod startup_libraries;
mod tissvm_cli;
