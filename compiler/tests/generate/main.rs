//! Plan generation: `tissc generate` against scripted and real model servers, and its grammar.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

mod generate_real;
mod grammar;
mod plan_grammar;
mod tissc_generate;
