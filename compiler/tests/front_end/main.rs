//! The front end as a library: diagnostics and their codes, explanations, rendering, the formatter, no input panics.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

mod diagnostic_codes;
mod explain_examples;
mod fmt;
mod fmt_props;
mod frontend_fuzz;
mod render;
mod typed_answers;
