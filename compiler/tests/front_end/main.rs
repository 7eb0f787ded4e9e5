//! The front end as a library: diagnostics and their codes, explanations, rendering, the formatter, no input panics; hostile plans through `tissc` within bounds of time and memory.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

mod diagnostic_codes;
mod explain_examples;
mod fmt;
mod fmt_props;
mod frontend_fuzz;
mod hostile_plans;
mod render;
mod typed_answers;
