//! Shell syntax, read as POSIX `sh` reads it and written so that it reads
//! back as meant. One reader for every crate that looks into a RUN command:
//!
//! - [`scan`]: the quoting rules, character by character: what is quoted
//!   (single or double), escaped by a backslash, or plain; the state at any
//!   point of a text ([`scan::quote_after`]).
//! - [`commands`]: a command line cut into its simple commands and their
//!   words (operators, pipes, substitutions, redirections, comments), for
//!   reading what programs a command runs.
//! - [`words`]: the argument vector of a command that is only literal words
//!   naming a program, one that needs no shell to run.
//! - [`quote`]: writing text as a shell word, or into a quoting context.
//!
//! A reading, not a shell: what only running it would tell (aliases,
//! functions, `eval`, expansions) is read as words.

pub mod commands;
pub mod quote;
pub mod scan;
pub mod words;
