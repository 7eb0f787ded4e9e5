//! Running plans: statements, the machine, budgets, dry-run arms, hostile plans, process trees and output, the workspace jail.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;

mod budgets;
mod dry_run_arms;
mod machine;
mod process_big_output;
mod run_hostile;
mod run_process_tree;
mod run_statements;
mod statement_costs;
mod workspace_race;
