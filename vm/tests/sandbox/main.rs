//! Confinement: the sandbox profiles, the command policy and taint.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;

mod as_nobody;
mod own_files;
mod policy_programs;
mod policy_taint;
mod sandbox_standard;
mod sandbox_strict;
mod strict_as_root;
mod taint_by_type;
mod taint_kept;
mod taint_props;
mod tree_kill_escape;
