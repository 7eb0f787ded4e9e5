//! `tissvm run`: the start of a fresh run; `session.rs` runs it and reports.

use std::path::{Path, PathBuf};

use clap::Args;
use tiss_vm::machine::Machine;
use tiss_vm::machine::program::Program;
use tiss_vm::provider::settings::Origin;
use tiss_vm::session::snapshot::RememberedOptions;
use tisslang::module::Module;

use super::invalid::Invalid;
use super::many::ManyOptions;
use super::options::{HostOptions, ReportOptions, SnapshotOptions};
use super::session::{self, Start};
use super::status;

#[derive(Args)]
pub struct RunArgs {
    /// The plan: source (`.tiss`), or bytecode (`.tbc`) if it starts with the `.tbc` magic, whatever its name.
    /// Several plans, or a directory (every `.tiss` below it, sorted), run as many: each in a
    /// `tissvm run` of its own and a fresh workspace, up to -j at once (README, "Many plans").
    #[arg(value_name = "PLAN|DIR", required = true)]
    pub plans: Vec<PathBuf>,

    /// List every effect the plan could have, in order, and touch nothing.
    #[arg(long)]
    pub dry_run: bool,

    #[command(flatten)]
    pub host: HostOptions,

    #[command(flatten)]
    pub report: ReportOptions,

    #[command(flatten)]
    pub snapshot: SnapshotOptions,

    #[command(flatten, next_help_heading = "Many plans")]
    pub many: ManyOptions,
}

impl RunArgs {
    /// The plan of a run of one plan.
    pub fn plan(&self) -> &Path {
        &self.plans[0]
    }
}

pub fn run(module: Module, args: &RunArgs) -> u8 {
    let program = match Program::new(module) {
        Ok(p) => p,
        Err(e) => {
            let name = args.plan().display().to_string();
            return Invalid::told(&name, format!("{name}: {e}")).report(&args.report);
        }
    };
    if args.dry_run {
        return super::write_stdout(
            super::PROGRAM,
            &tiss_vm::analysis::dry_run::dry_run(&program),
            status::OK,
        );
    }
    let machine = Machine::new(&program);
    let workdir = args.host.workdir.clone().unwrap_or_else(|| PathBuf::from("."));
    let checkpoint = args.snapshot.checkpoint.clone();
    let start = Start { program, machine, bytecode: None, workdir, first: None, resumed: None, checkpoint };
    let remembered = match args.host.over(
        args.snapshot.snapshot_dir.as_deref(),
        RememberedOptions::default(),
        Origin::Default,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tissvm: {e}");
            return status::INVALID;
        }
    };
    session::execute(start, &args.host, &args.report, remembered)
}
