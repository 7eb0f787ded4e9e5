//! `tissvm slurm PLAN|DIR... --report-dir DIR` (book: guide/many-plans.md, "Beyond one
//! machine"): writes a batch script and submits it as one Slurm job array
//! (`sbatch --array=1-N`), each task `tissvm run --shard K/N --report-dir
//! DIR`; `--wait` waits for the array and prints the collected report.
//!
//! The job asks for `--signal=B:USR1@60 --requeue`: the batch script passes
//! the warning on to `tissvm run`, whose plans suspend (their snapshots go
//! into the report directory) and then requeues its task, which goes on
//! from those reports and snapshots (`--continue-from-reports`) instead of
//! starting its plans again. A task that Slurm requeues itself (node
//! failure, `scontrol requeue`) gets SIGTERM first and goes on the same way.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tiss_support::shell::quote::shell_word;

use crate::provider::settings::Origin;
use crate::session::snapshot::RememberedOptions;

use super::collect;
use crate::runner::options::{HostOptions, Invocation, OutputFormat, ReportOptions, parse_budget};
use crate::runner::status;

/// What `slurm` submits, and how.
pub struct SlurmOptions {
    /// The plans: files, or directories (every `.tiss` below them, sorted).
    pub plans: Vec<PathBuf>,
    /// Where each plan's JSON report and a suspended plan's snapshots go,
    /// with the batch script and Slurm's output files.
    pub report_dir: PathBuf,
    /// Plans run at once within each task.
    pub jobs: Option<usize>,
    /// Array tasks, each running one shard of the plans.
    pub shards: Option<usize>,
    /// Wait for the whole array to end, then print the collected report.
    pub wait: bool,
    /// Options for `sbatch`.
    pub sbatch: Vec<String>,
    /// `run`'s options, checked here; `workdir` holds the plans' workspaces.
    pub host: HostOptions,
    /// How each task's `tissvm run` is started, with the run options as
    /// given; `Err` says why it cannot be.
    pub invocation: Result<Invocation, String>,
}

/// The largest array a default Slurm takes (`MaxArraySize` 1001).
const MAX_DEFAULT_SHARDS: usize = 1000;

pub fn slurm(args: &SlurmOptions) -> u8 {
    match submit(args) {
        Ok((job, plans)) if args.wait => wait_and_collect(args, &job, plans),
        Ok((job, _)) => {
            let text = format!(
                "tissvm: submitted job array {job}; when it has ended:\n  tissvm collect {}",
                shell_word(&args.report_dir.display().to_string())
            );
            tiss_support::cli::print_line(crate::runner::PROGRAM, &text);
            status::OK
        }
        Err(e) => {
            eprintln!("tissvm: slurm: {e}");
            status::INVALID
        }
    }
}

/// Writes the batch script and submits it: the job id and the number of plans.
fn submit(args: &SlurmOptions) -> Result<(String, usize), String> {
    let plans = super::plans::expand(&args.plans)?;
    let shards = match args.shards {
        Some(0) => return Err("--shards 0 would run nothing: give at least 1".into()),
        Some(n) => n.min(plans.len()),
        None => plans.len().min(MAX_DEFAULT_SHARDS),
    };
    if args.jobs == Some(0) {
        return Err("-j 0 would run nothing: give at least 1".into());
    }
    let (program, passed_on) = run_options(args)?;
    let absolute = |p: &Path| std::path::absolute(p).map_err(|e| format!("`{}`: {e}", p.display()));
    let dir = absolute(&args.report_dir)?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("--report-dir `{}`: cannot create it: {e}", dir.display()))?;
    if holds_reports(&dir) {
        return Err(format!(
            "--report-dir `{}` already holds reports, which the tasks would take as their own; give a new \
             directory, or remove its reports",
            dir.display()
        ));
    }
    let workdir = match &args.host.workdir {
        Some(w) => absolute(w)?,
        None => dir.join("workspaces"),
    };
    // The one word the shell expands: the task's shard.
    let shard = format!("${{SLURM_ARRAY_TASK_ID}}/{shards}");
    let mut run = vec![
        program.display().to_string(),
        "run".into(),
        "--shard".into(),
        shard.clone(),
        "--report-dir".into(),
        dir.display().to_string(),
        "--continue-from-reports".into(),
        "--workdir".into(),
        workdir.display().to_string(),
    ];
    if let Some(jobs) = args.jobs {
        run.extend(["-j".into(), jobs.to_string()]);
    }
    run.extend(passed_on);
    // The plans as given, from the directory of the submission (the
    // script goes there): their reports are named after these paths.
    run.extend(args.plans.iter().map(|p| p.display().to_string()));
    let here = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let command: Vec<String> =
        run.iter().map(|w| if *w == shard { format!("\"{w}\"") } else { shell_word(w) }).collect();
    let script = batch_script(&dir, &here, shards, &command.join(" "));
    let script_path = dir.join("tissvm-slurm.sh");
    tiss_support::atomic_write::write_atomically(&script_path, script.as_bytes(), Some(0o755))
        .map_err(|e| format!("cannot write `{}`: {e}", script_path.display()))?;
    let output = Command::new("sbatch")
        .arg("--parsable")
        .args(&args.sbatch)
        .arg(&script_path)
        .output()
        .map_err(|e| format!("cannot start `sbatch` ({e}): is Slurm installed here, and on PATH?"))?;
    if !output.status.success() {
        return Err(format!(
            "sbatch refused the job ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    // `--parsable`: `JOBID` or `JOBID;CLUSTER`.
    let job = stdout.trim().split(';').next().unwrap_or("").to_string();
    if job.is_empty() {
        return Err(format!("sbatch said nothing of the job it submitted: {stdout:?}"));
    }
    eprintln!(
        "tissvm: submitted job array {job}: {} plan(s) in {shards} task(s); batch script {}",
        plans.len(),
        script_path.display()
    );
    Ok((job, plans.len()))
}

/// The run options given to `slurm`, checked as `tissvm run` would check
/// them (a wrong one would fail every task, after the wait in the queue),
/// each as one `--name=value` word for the batch script; and the
/// `tissvm` the tasks run.
fn run_options(args: &SlurmOptions) -> Result<(PathBuf, Vec<String>), String> {
    let host = &args.host;
    for text in &host.budgets {
        parse_budget(text).map_err(|e| format!("--budget {e}"))?;
    }
    host.over(None, RememberedOptions::default(), Origin::Default)?;
    let invocation = args.invocation.clone()?;
    let words = invocation.passed_on.into_iter().map(|word| {
        word.into_string().map_err(|word| {
            format!("{}: not UTF-8, so it cannot be written into the batch script", word.to_string_lossy())
        })
    });
    Ok((invocation.program, words.collect::<Result<_, _>>()?))
}

/// Whether `dir` holds a `.json` file anywhere below it.
fn holds_reports(dir: &Path) -> bool {
    std::fs::read_dir(dir).into_iter().flatten().flatten().any(|entry| {
        let path = entry.path();
        if path.is_dir() { holds_reports(&path) } else { path.extension().is_some_and(|e| e == "json") }
    })
}

/// The batch script: the job's options, then `tissvm run` of the task's
/// shard in the background, so that the shell can pass signals on to it.
/// When Slurm's warning (SIGUSR1) suspended it, the task requeues itself,
/// and goes on from its reports when it starts again.
fn batch_script(dir: &Path, here: &Path, shards: usize, command: &str) -> String {
    let out = shell_word(&dir.join("slurm-%A_%a.out").display().to_string());
    let here = shell_word(&here.display().to_string());
    format!(
        r#"#!/bin/sh
#SBATCH --job-name=tissvm
#SBATCH --array=1-{shards}
#SBATCH --signal=B:USR1@60
#SBATCH --requeue
#SBATCH --output={out}
# Written by `tissvm slurm`: task K of {shards} runs the K-th shard of the plans.
# A requeued task (SLURM_RESTART_COUNT > 0) goes on from the reports and
# snapshots in the report directory (--continue-from-reports).
cd {here} || exit 70
warned=0
{command} &
pid=$!
trap 'warned=1; kill -USR1 $pid' USR1
trap 'kill -TERM $pid' TERM
trap 'kill -INT $pid' INT
status=0
wait $pid || status=$?
# `wait` returns early when a signal comes in: wait until it has ended.
while kill -0 $pid 2>/dev/null; do
    status=0
    wait $pid || status=$?
done
if [ "$warned" = 1 ] && [ "$status" = 3 ]; then
    echo "tissvm: time is up: the plans are suspended; requeueing this task to go on from their snapshots" >&2
    scontrol requeue "${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}"
fi
exit $status
"#
    )
}

/// `--wait`: polls `squeue` until no task of the array is left, then
/// prints the collected report.
fn wait_and_collect(args: &SlurmOptions, job: &str, plans: usize) -> u8 {
    let mut failures = 0;
    // An empty queue is believed the second time in a row: a task whose
    // plans suspended at the time limit requeues itself as it ends.
    let mut empty = 0;
    loop {
        match Command::new("squeue").args(["-h", "-j", job, "-o", "%T"]).output() {
            Ok(out) if out.status.success() => {
                failures = 0;
                empty = if String::from_utf8_lossy(&out.stdout).trim().is_empty() { empty + 1 } else { 0 };
                if empty == 2 {
                    break;
                }
            }
            // Once the job has left the controller's memory, squeue errs for its id.
            Ok(out) if String::from_utf8_lossy(&out.stderr).contains("Invalid job id") => break,
            result => {
                failures += 1;
                if failures >= 10 {
                    let why = match result {
                        Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
                        Err(e) => e.to_string(),
                    };
                    eprintln!("tissvm: slurm: cannot follow job {job} with squeue: {why}");
                    return status::INTERNAL;
                }
            }
        }
        std::thread::sleep(Duration::from_secs(2));
    }
    let dir = shell_word(&args.report_dir.display().to_string());
    eprintln!("tissvm: job array {job} has ended; tissvm collect {dir}:");
    let _ = std::io::stderr().flush();
    let text = ReportOptions { output_format: OutputFormat::Text, report: None };
    let code = collect::collect_dir(&args.report_dir, &text);
    let reports = collect::count(&args.report_dir);
    if reports < plans {
        eprintln!(
            "tissvm: {} of the {plans} plans have no report: see Slurm's output in {}/slurm-{job}_*.out",
            plans - reports,
            args.report_dir.display()
        );
        return code.max(1);
    }
    code
}
