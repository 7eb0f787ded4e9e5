//! `tissvm run`: the start of a fresh run of one plan, which `execute/`
//! runs and reports; or, for many plans, the run of them all (`many/`).

use std::path::PathBuf;

use crate::machine::Machine;
use crate::machine::program::Program;
use crate::provider::settings::Origin;
use crate::session::snapshot::RememberedOptions;
use tisslang::module::{Module, kept_source};

use crate::runner::execute::{Start, execute};
use crate::runner::invalid::Invalid;
use crate::runner::many;
use crate::runner::options::RunOptions;
use crate::runner::plan::{Diagnostics, load_plan};
use crate::runner::{PROGRAM, status};
use tiss_support::cli::write_stdout;

/// Runs the plans; the exit status.
pub fn run(out: &mut Diagnostics, options: &RunOptions) -> u8 {
    if options.many.wanted(&options.plans) {
        return many::run(options);
    }
    match load_plan(out, options.plan()) {
        Ok(plan) => run_one(plan.module, options),
        Err(refused) => refused.report(&options.report),
    }
}

fn run_one(module: Module, args: &RunOptions) -> u8 {
    let program = match Program::new(module) {
        Ok(p) => p,
        Err(e) => {
            let name = args.plan().display().to_string();
            return Invalid::told(&name, format!("{name}: {e}")).report(&args.report);
        }
    };
    if args.dry_run {
        // The plan's text: embedded, or the `.tiss` beside a `.tbc`.
        let source = kept_source::find(&program.module.source, Some(args.plan())).ok();
        let listing = crate::analysis::dry_run::dry_run(&program, source.as_ref().map(|s| s.text.as_str()));
        return write_stdout(PROGRAM, &listing, status::OK);
    }
    let machine = Machine::new(&program);
    let workdir = args.host.workdir.clone().unwrap_or_else(|| PathBuf::from("."));
    let checkpoint = args.snapshot.checkpoint.clone();
    let plan = args.plan().display().to_string();
    let start =
        Start { program, machine, bytecode: None, workdir, first: None, resumed: None, checkpoint, plan };
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
    execute(start, &args.host, &args.report, remembered)
}
