//! `tissc` as a command: its subcommands, help, docs, the commands of the README and the book, teaching errors, the dialect corpus.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

mod ci_formats;
mod cli_docs;
mod dialect_corpus;
mod fmt_cli;
mod readme_commands;
mod teaching_errors;
mod tissc_cli;
mod tissc_compile;
mod tissc_lint;
mod tissc_schema;
