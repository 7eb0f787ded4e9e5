//! The threaded counterpart of `tissvm run DIR -j N`, for
//! `benches/many_plans.sh` only: every `.tiss` in DIR (sorted) runs on one
//! of N threads of this process, each plan with its own Machine, host,
//! `standard` sandbox and fresh workspace under WORKDIR, its JSON report
//! written to a file there, as a `tissvm run` child does. What a thread
//! cannot have (a process's own Ctrl-C count, rlimits and stdout) is not
//! imitated; the figure is the most threads could gain.
//!
//! Usage: `cargo run --release --example many_threads -- DIR N WORKDIR`;
//! exits 1 naming the first plan that did not pass.

/// The binaries' allocator, so this measures what they would do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tiss_compiler::KeepSource;
use tiss_host::sandbox::{Limits, Profile, Sandbox};
use tiss_host::workspace::Workspace;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome};
use tiss_vm::runner::os_host::{OsHost, Progress};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, jobs, workdir] = args.as_slice() else {
        eprintln!("usage: many_threads DIR N WORKDIR");
        std::process::exit(2);
    };
    let mut plans: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the plan directory")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "tiss"))
        .collect();
    plans.sort();
    let jobs: usize = jobs.parse().expect("N, a number of threads");
    let next = AtomicUsize::new(0);
    let failed: Mutex<Vec<String>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                while let Some(plan) = plans.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(why) = run_one(plan, Path::new(workdir)) {
                        failed.lock().unwrap().push(format!("{}: {why}", plan.display()));
                    }
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap();
    if let Some(first) = failed.first() {
        eprintln!("many_threads: {} of {} plans did not pass; the first: {first}", failed.len(), plans.len());
        std::process::exit(1);
    }
}

/// What a `tissvm run PLAN --workdir WS --output-format json` child does
/// for one plan, on this thread.
fn run_one(plan: &Path, workdir: &Path) -> Result<(), String> {
    let source = std::fs::read(plan).map_err(|e| e.to_string())?;
    let name = plan.display().to_string();
    let (module, _) = tiss_compiler::compile(&name, &source, KeepSource::Text)
        .map_err(|fe| format!("does not compile: {:?}", fe.diagnostics))?;
    let program = Program::new(module).map_err(|e| e.to_string())?;
    let stem = plan.file_stem().ok_or("no file name")?;
    let root = workdir.join(stem);
    std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
    let workspace = Workspace::open(&root).map_err(|e| format!("{e:?}"))?;
    let sandbox = Sandbox::prepare(Profile::Standard, workspace.root(), Limits::default())
        .map_err(|e| e.to_string())?;
    let provider = tiss_vm::provider::build(&Default::default()).map_err(|e| e.to_string())?;
    let mut host = OsHost::new(workspace, provider, Progress::Quiet);
    host.sandbox = sandbox;
    host.quiet_steps = true;
    let mut machine = Machine::new(&program);
    let outcome = machine.run(&program, &mut host);
    let report = tiss_vm::report::RunReport::new(&program, &machine, &outcome, None).to_json();
    std::fs::write(root.join("report.json"), report.to_string()).map_err(|e| e.to_string())?;
    match outcome {
        Outcome::Completed => Ok(()),
        other => Err(format!("{other:?}")),
    }
}
