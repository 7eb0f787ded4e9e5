//! Shell syntax, read as POSIX `sh` reads it and written so that it reads
//! back as meant. One reader for every crate that looks into a RUN command:
//!
//! - [`scan`]: the quoting rules, character by character: what is quoted
//!   (single or double), escaped by a backslash, or plain; the state at any
//!   point of a text ([`scan::quote_after`]).
//! - [`parse`]: a command line parsed by a real shell parser (POSIX `sh`),
//!   read into the simple commands it runs and their words (operators,
//!   pipes, compound commands, substitutions, redirections, here-documents).
//! - [`programs`]: the programs those commands run, by name, looked through
//!   wrappers (`sudo`, `env`, `timeout` ...), `sh -c` and `find -exec`: what
//!   the command policy and the risky-command list read.
//! - [`words`]: the argument vector of a command that is only literal words
//!   naming a program, one that needs no shell to run.
//! - [`quote`]: writing text as a shell word, or into a quoting context.
//!
//! A reading, not a shell: what only running it would tell (a parameter's
//! value, `eval`, aliases) is marked as such, never guessed.

pub mod parse;
pub mod programs;
pub mod quote;
pub mod scan;
pub mod words;
