//! Journals (book: cookbook/journal.md): what a run records, `tissvm replay` of it, and a
//! restart from a step.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;

mod recording;
mod replay;
mod restart;
