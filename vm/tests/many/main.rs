//! Several plans at once: -j, shards, collect, and a real Slurm cluster.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;

mod batch_guards;
mod github_action;
mod github_output;
mod many_plans;
mod slurm_cluster;
