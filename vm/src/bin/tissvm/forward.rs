//! The options each plan's `tissvm run` gets from the command line of the
//! run of many plans: every option given there, as given, except those
//! this run decides per plan (the plans, `--workdir`, `--output-format`,
//! `--snapshot-dir`, `--log-file`, `--record`, `--journal`, `--answers-plan`) and its own (`-j`, `--shard`,
//! `--report-dir`, `--restart`, ...).
//! Likewise the run options `tissvm slurm` gives each task's `tissvm run`.
//! Read back from clap's matches, so an option added to `run` is passed on
//! without a change here.

use std::ffi::OsString;

use clap::parser::ValueSource;
use clap::{ArgAction, CommandFactory};
use tiss_vm::runner::options::Invocation;

/// `run`'s arguments that are not passed on to each plan's `tissvm run`.
pub const DECIDED_PER_PLAN: &[&str] = &[
    "plans",
    "jobs",
    "fail_fast",
    "max_failures",
    "shard",
    "report_dir",
    "continue_from_reports",
    "raise_budget",
    "restart",
    "answers_plan",
    "workdir",
    "output_format",
    "report",
    "snapshot_dir",
    "checkpoint",
    "log_file",
    "record",
    "journal",
];

/// This process's invocation, with the options of its `subcommand` to pass
/// on as [`passed_on`] gives them.
pub fn invocation(subcommand: &str, decided_here: &[&str]) -> Result<Invocation, String> {
    Ok(Invocation {
        passed_on: passed_on(subcommand, decided_here)?,
        program: std::env::current_exe().map_err(|e| format!("cannot find this program's file: {e}"))?,
        arguments: std::env::args_os().skip(1).collect(),
    })
}

/// The options of this process's `subcommand` to pass on, those in
/// `decided_here` left out, each as `--name=value` (or `--name` for a flag).
fn passed_on(subcommand: &str, decided_here: &[&str]) -> Result<Vec<OsString>, String> {
    let mut command = crate::Cli::command();
    command.build();
    let matches = command.clone().try_get_matches_from(std::env::args_os()).map_err(|e| e.to_string())?;
    let (Some((name, run)), Some(definition)) = (matches.subcommand(), command.find_subcommand(subcommand))
    else {
        return Err(format!("not a `{subcommand}` command line"));
    };
    if name != subcommand {
        return Err(format!("not a `{subcommand}` command line"));
    }
    let mut out = Vec::new();
    for arg in definition.get_arguments() {
        let id = arg.get_id().as_str();
        if decided_here.contains(&id) || run.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        let Some(long) = arg.get_long() else { continue };
        match arg.get_action() {
            ArgAction::SetTrue => out.push(OsString::from(format!("--{long}"))),
            ArgAction::Count => {
                out.extend((0..run.get_count(id)).map(|_| OsString::from(format!("--{long}"))));
            }
            _ => {
                for value in run.get_raw(id).into_iter().flatten() {
                    let mut word = OsString::from(format!("--{long}="));
                    word.push(value);
                    out.push(word);
                }
            }
        }
    }
    Ok(out)
}
