//! Confinement: the sandbox profiles, the command policy and taint.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;

mod policy_taint;
mod sandbox_standard;
mod sandbox_strict;
mod taint_kept;
mod taint_props;
